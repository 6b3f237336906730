"""One count of a finding in every format (attack24 V5): a finding on a system or a
submission, or the same finding on several results, counts once in the text summary, the
JSON summary, SARIF's results, GitHub's annotations and its job summary (common.Distinct)."""

from __future__ import annotations

import io
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.findings import Distinct, Finding, Report, ResultRecord, Severity, judge, shown_counts
from checker.reporters import csv_report, github_report, json_report, sarif_report, text_report
from checker.rounds import load_round

SUBMITTER = "closed/A"
LOCATIONS = [f"{SUBMITTER}/results/s1/b{i}/Offline" for i in range(3)]
RECORDS = [
    ResultRecord(loc, "closed", "A", "s1", f"b{i}", "Offline", f"b{i}", f"{SUBMITTER}/systems/s1", SUBMITTER)
    for i, loc in enumerate(LOCATIONS)
]

FINDINGS = st.builds(
    Finding,
    code=st.sampled_from(["STR003", "SYS001", "ACC002", "PRF012"]),
    severity=st.sampled_from(list(Severity)),
    path=st.sampled_from([f"{SUBMITTER}/systems/s1.json", f"{SUBMITTER}/code", f"{LOCATIONS[0]}/accuracy.txt"]),
    message=st.sampled_from(["one", "two"]),
    location=st.sampled_from(["", *LOCATIONS]),
    pointer=st.sampled_from([None, "/x"]),
    waived=st.sampled_from([None, None, "agreed"]),
    subject=st.just(f"{SUBMITTER}/systems/s1"),
)


def _report(findings: list[Finding]) -> Report:
    records = [ResultRecord(**{**r.__dict__}) for r in RECORDS]
    report = Report(round=load_round("demo-v6.1"), root="/nonexistent-root", results=records, findings=findings)
    judge(report.results, report.findings)
    return report


def _text_counts(report: Report) -> dict[str, int]:
    out = io.StringIO()
    text_report.write(report, out, color="never")
    last = out.getvalue().splitlines()[-1]
    return {s: int(re.search(rf"(\d+) {s}s?\b", last).group(1)) for s in ("error", "warning", "note")}  # type: ignore[union-attr]


def _sarif_counts(report: Report) -> dict[str, int]:
    results = sarif_report.document(report)["runs"][0]["results"]
    counts = {"error": 0, "warning": 0, "note": 0}
    for result in results:
        if "suppressions" not in result:
            counts[result["level"]] += 1
    return counts


def _github_counts(report: Report, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    head = github_report.summary(report, "").splitlines()[2]
    found = re.search(r"(\d+) errors, (\d+) warnings, (\d+) notes", head)
    assert found is not None
    return dict(zip(("error", "warning", "note"), map(int, found.groups()), strict=True))


@settings(max_examples=120, deadline=None)
@given(findings=st.lists(FINDINGS, max_size=12))
def test_every_format_counts_each_distinct_finding_once(findings: list[Finding]) -> None:
    """Over every kind of finding (on a result, on several, on none; waived or not): the text
    summary, JSON's summary, SARIF's un-suppressed results and the job summary agree, and
    each is the number of distinct findings."""
    report = _report(findings)
    expected = shown_counts(Distinct(report).all)
    assert json_report.document(report)["summary"]["findings"] == expected
    assert _sarif_counts(report) == expected
    assert _text_counts(report) == expected
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert _github_counts(report, monkeypatch) == expected
    # and the annotations: each distinct finding once (up to GitHub's ten per severity)
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
        github_report.write(report, out)
    lines = out.getvalue().splitlines()
    annotated = sum(1 for line in lines if line.startswith("::"))
    more = next((int(line.split()[0]) for line in lines if not line.startswith("::")), 0)
    assert annotated + more == sum(expected.values())


def test_one_missing_folder_on_two_results_is_one_error_everywhere() -> None:
    """attack24 V5: STR003 on one path for two results: text 1, JSON 1 (was 2), SARIF one
    result (was two identical alerts) that says it affects 2 results."""
    stray = [
        Finding("STR003", Severity.ERROR, f"{SUBMITTER}/results/s1/b0", "missing", location=loc)
        for loc in LOCATIONS[:2]
    ]
    report = _report(stray)
    assert json_report.document(report)["summary"]["findings"] == {"error": 1, "warning": 0, "note": 0}
    results = sarif_report.document(report)["runs"][0]["results"]
    assert [(r["ruleId"], r["message"]["text"], r["properties"]) for r in results] == [
        ("STR003", "missing (affects 2 results)", {"affects": 2})
    ]
    assert _text_counts(report) == {"error": 1, "warning": 0, "note": 0}
    assert json.loads(json.dumps(json_report.document(report)))["findings"][0]["code"] == "STR003"


POSITIONS = st.builds(
    Finding,
    code=st.sampled_from(["SYS001", "ACC002"]),
    severity=st.sampled_from(list(Severity)),
    path=st.sampled_from([f"{SUBMITTER}/systems/s1.json", f"{LOCATIONS[0]}/accuracy.txt"]),
    message=st.just("m"),
    location=st.sampled_from(["", LOCATIONS[0]]),
    line=st.none() | st.integers(1, 10**6),
    column=st.none() | st.integers(1, 10**6),
)


@settings(max_examples=60, deadline=None)
@given(finding=POSITIONS)
def test_every_data_format_carries_the_line_and_column(finding: Finding) -> None:
    """attack24 L4: CSV had no line or column; JSON, SARIF and CSV now give the same."""
    import csv

    report = _report([finding])
    out = io.StringIO()
    csv_report.write(report, out)
    (row,) = [r for r in csv.DictReader(io.StringIO(out.getvalue())) if r["code"]]
    assert (row["line"], row["column"]) == (
        "" if finding.line is None else str(finding.line),
        "" if finding.column is None else str(finding.column),
    )
    (data,) = json_report.document(report)["findings"]
    assert (data.get("line"), data.get("column")) == (finding.line, finding.column)
    region = sarif_report.document(report)["runs"][0]["results"][0]["locations"][0]["physicalLocation"].get(
        "region", {}
    )
    assert region.get("startLine") == finding.line
    assert region.get("startColumn") == (finding.column if finding.line is not None else None)
