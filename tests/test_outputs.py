"""What every output of `check` says about why a result is invalid (issue 17).

- every output names the findings that make each invalid result invalid, by the rule that
  judged it (Report.causes, findings.Applying; JSON `caused_by`);
- a finding about a system or a submission, or the same on several results, is shown once with
  the number of results it affects (text, GitHub annotations and job summary, JUnit);
- `--format github` outside GitHub Actions says where the findings it did not annotate are;
- JUnit carries time, timestamp, errors and skipped, and validates against Jenkins' junit-10.xsd;
- SARIF's locations are relative to SRCROOT, and its invocation says how the check ran.

Most tests read the example with the defects of helpers.shared_defects, its clock fixed."""

from __future__ import annotations

import datetime
import functools
import io
import json
from importlib import resources
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest
import xmlschema

from checker.findings import Applying, Finding, Report, ResultRecord, Severity, judge
from checker.registry import RULES, Rule
from checker.reporters import csv_report, github_report, json_report, junit_report, sarif_report, text_report
from checker.rounds import load_round
from helpers import OFFLINE, ROOT, SINGLE, SUBMISSION, fixed, run, shared_defects

SYSTEM = f"{SUBMISSION}/systems/cpu-1x-numpy.json"
OTHER = f"{SUBMISSION}/results/cpu-2x-numpy/demo-mlp-99"
SECOND = "closed/SecondCo/results/cpu-1x-numpy/demo-mlp-99"
ACCURACY = f"{OFFLINE}/accuracy/accuracy.txt"
ACC002 = "acc 80.000 < 88.1719 (0.99 x reference 89.0625 = 88.1719, round demo-v6.1)"
STR005 = "no implementation folder closed/SecondCo/src for demo-mlp-99 (demo-v6.1)"
JUNIT_XSD = ROOT / "tests" / "data" / "junit-10.xsd"
SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Report]:
    root = shared_defects(tmp_path_factory.mktemp("shared") / "demo-v6.1")
    return root, fixed(run(root))


@pytest.fixture
def workspace(shared, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The checked folder at the top of the repository, as under GitHub Actions."""
    monkeypatch.setenv("GITHUB_WORKSPACE", str(shared[0].parent))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return shared[0].parent


def _written(writer, report: Report) -> str:
    out = io.StringIO()
    writer(report, out)
    return out.getvalue()


# --- 1. the causes of every invalid result ------------------------------------------------
def _record(location: str, system: str = "closed/A/systems/s1", submission: str = "closed/A") -> ResultRecord:
    return ResultRecord(
        location=location,
        division="closed",
        submitter="A",
        system=system.rsplit("/", 1)[-1],
        benchmark="b",
        scenario="Offline",
        model="b",
        system_key=system,
        submission_key=submission,
    )


def _error(
    path: str, location: str = "", subject: str = "", severity: Severity = Severity.ERROR, waived: str | None = None
) -> Finding:
    return Finding(
        code="FIL001", severity=severity, path=path, message="m", location=location, subject=subject, waived=waived
    )


def test_a_finding_applies_to_its_result_or_to_every_result_of_its_system_or_submission() -> None:
    one, two = _record("closed/A/results/s1/b/Offline"), _record("closed/A/results/s2/b/Offline", "closed/A/systems/s2")
    findings = [
        _error("closed/A/systems/s1.json", subject="closed/A/systems/s1"),  # 0: s1's description
        _error("closed/A/documentation", subject="closed/A", severity=Severity.WARNING),  # 1: a warning
        _error("closed/A/x", subject="closed/A", waived="approved"),  # 2: waived
        _error("closed/stray", subject=""),  # 3: about nothing checked
        _error("closed/A/code/b", subject="closed/A"),  # 4: the submission
        _error("closed/A/results/s2/b/Offline/x", location=two.location),  # 5: on result two
    ]
    applying = Applying([one, two], findings)
    assert applying.positions(one) == [0, 1, 2, 4] and applying.positions(two) == [1, 2, 4, 5]
    assert applying.causes(one) == [findings[0], findings[4]]
    assert applying.cause_positions(two) == [4, 5]
    assert applying.affected(findings[0]) == [one] and applying.affected(findings[4]) == [one, two]
    assert applying.affected(findings[3]) == [] and applying.affected(findings[5]) == [two]
    judge([one, two], findings[:4])
    assert (one.valid, two.valid) == (False, True)


def test_report_causes_name_what_makes_each_result_invalid(shared) -> None:
    _, report = shared
    causes = {r.location: [(f.code, f.path) for f in report.causes(r)] for r in report.results}
    assert causes == {
        OFFLINE: [("SYS001", SYSTEM), ("ACC002", ACCURACY)],
        SINGLE: [("SYS001", SYSTEM)],
        f"{OTHER}/Offline": [],
        f"{OTHER}/SingleStream": [],
        f"{SECOND}/Offline": [("STR005", "closed/SecondCo/src")],
        f"{SECOND}/SingleStream": [("STR005", "closed/SecondCo/src")],
    }
    assert all(r.valid is not bool(report.causes(r)) for r in report.results)


def test_json_results_carry_caused_by(shared) -> None:
    _, report = shared
    document = json.loads(json.dumps(json_report.document(report)))
    schema = json.loads(resources.files("checker.schemas").joinpath("findings.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(document)
    assert [(f["code"], f["location"]) for f in document["findings"]] == [
        ("STR007", ""),
        ("SYS001", ""),
        ("ACC002", OFFLINE),
        ("STR005", f"{SECOND}/Offline"),
        ("STR005", f"{SECOND}/SingleStream"),
    ]
    assert [(r["location"], r["valid"], r["caused_by"]) for r in document["results"]] == [
        (OFFLINE, False, [1, 2]),
        (SINGLE, False, [1]),
        (f"{OTHER}/Offline", True, []),
        (f"{OTHER}/SingleStream", True, []),
        (f"{SECOND}/Offline", False, [3]),
        (f"{SECOND}/SingleStream", False, [4]),
    ]


def test_csv_rows_name_the_causes(shared) -> None:
    _, report = shared
    lines = _written(csv_report.write, report).splitlines()
    assert lines[0].endswith(",waived,caused_by")
    assert f"{SINGLE},False" + "," * 12 + f"SYS001 {SYSTEM}" in lines
    assert lines[3].endswith(f",SYS001 {SYSTEM}; ACC002 {ACCURACY}") and lines[3].startswith(f"{OFFLINE},False,ACC002")
    assert f"{OTHER}/Offline,True" + "," * 12 in lines


# --- 1 and 2 in what people read --------------------------------------------------------
def test_text_lists_shared_findings_once_and_names_them_under_each_invalid_result(shared, workspace) -> None:
    """The default view: the shared errors, each invalid result with why, then the warnings
    and the summary line; with --show-valid the valid results too, in their place."""
    text = _written(text_report.write, shared[1])
    problems = [
        "Submissions and systems",
        f"  error   SYS001 {SYSTEM}:1:1 [/framework]: required field `framework` is missing (affects 2 results)",
        f"  error   STR005 closed/SecondCo/src: {STR005} (affects 2 results)",
        f"{OFFLINE}  INVALID  522.247 Samples/s",
        f"  error   ACC002 {ACCURACY}:1:10: {ACC002}",
        f"  also invalidated by SYS001 {SYSTEM} (see Submissions and systems)",
        f"{SINGLE}  INVALID  2.41858 Latency (ms)",
        f"  invalidated by SYS001 {SYSTEM} (see Submissions and systems)",
        f"{SECOND}/Offline  INVALID  522.247 Samples/s",
        "  invalidated by STR005 closed/SecondCo/src (see Submissions and systems)",
        f"{SECOND}/SingleStream  INVALID  2.41858 Latency (ms)",
        "  invalidated by STR005 closed/SecondCo/src (see Submissions and systems)",
        "Warnings and notes",
        "  warning STR007 closed/MLCheckDemo/documentation/notes: empty folder",
        "mlperf-check, round demo-v6.1: 6 results, 2 valid, 4 invalid; 3 errors, 1 warning, 0 notes",
    ]
    assert text.splitlines() == problems
    everything = _written(functools.partial(text_report.write, show_valid=True), shared[1]).splitlines()
    valid = [f"{OTHER}/Offline  valid  522.247 Samples/s", f"{OTHER}/SingleStream  valid  2.41858 Latency (ms)"]
    assert everything == problems[:8] + valid + problems[8:]


def test_text_groups_several_shared_causes_by_file() -> None:
    record = _record("closed/A/results/s1/b/Offline")
    findings = [
        Finding(code=code, severity=Severity.ERROR, path=path, message="m", subject=subject)
        for code, path, subject in [
            ("SYS001", "closed/A/systems/s1.json", "closed/A/systems/s1"),
            ("SYS002", "closed/A/systems/s1.json", "closed/A/systems/s1"),
            ("STR006", "closed/A/documentation/calibration.md", "closed/A"),
        ]
    ]
    report = Report(round=load_round("demo-v6.1"), root=".", results=[record], findings=findings)
    judge(report.results, report.findings)
    lines = _written(text_report.write, report).splitlines()
    assert lines[5] == (
        "  invalidated by SYS001, SYS002 closed/A/systems/s1.json; STR006 "
        "closed/A/documentation/calibration.md (see Submissions and systems)"
    )


def _help(code: str) -> str:
    """An annotation's last line: its rule's fix, `%` escaped."""
    return "%0Ahelp: " + RULES[code].sections["Fix"].replace("%", "%25")


def test_github_annotates_a_shared_finding_once(shared, workspace) -> None:
    assert _written(github_report.write, shared[1]).splitlines() == [
        "::error file=demo-v6.1/closed/MLCheckDemo/systems/cpu-1x-numpy.json,line=1,col=1,title=SYS001 "
        "required-field-missing::"
        "required field `framework` is missing [/framework] (affects 2 results)" + _help("SYS001"),
        f"::error file=demo-v6.1/{ACCURACY},line=1,col=10,title=ACC002 accuracy-within-gate::{ACC002}"
        + _help("ACC002"),
        f"::error file=demo-v6.1/closed/SecondCo/src,title=STR005 code-for-benchmark::{STR005} (affects 2 results)"
        + _help("STR005"),
        "::warning file=demo-v6.1/closed/MLCheckDemo/documentation/notes,title=STR007 empty-folder::empty folder"
        + _help("STR007"),
    ]


def test_job_summary_names_the_causes_and_lists_shared_findings_once(shared, workspace) -> None:
    text = github_report.summary(shared[1], "demo-v6.1/")
    assert text.splitlines()[6:11] == [
        "| result | verdict | caused by | other findings |",
        "|---|---|---|---|",
        "| `results/cpu-1x-numpy/demo-mlp-99/Offline` | **invalid** | ACC002, SYS001 (`systems/cpu-1x-numpy.json`) "
        "|  |",
        "| `results/cpu-1x-numpy/demo-mlp-99/SingleStream` | **invalid** | SYS001 (`systems/cpu-1x-numpy.json`) |  |",
        "| `results/cpu-2x-numpy/demo-mlp-99/Offline` | valid |  |  |",
    ]
    assert "| `results/cpu-1x-numpy/demo-mlp-99/SingleStream` | **invalid** | STR005 (`src`) |  |" in text
    assert text.split("### Findings\n\n")[1].splitlines() == [
        "- warning **STR007** `demo-v6.1/closed/MLCheckDemo/documentation/notes`: empty folder",
        f"- error **SYS001** `demo-v6.1/{SYSTEM}:1:1` (/framework): required field \\`framework\\` is missing "
        "(affects 2 results)",
        f"- error **ACC002** `demo-v6.1/{ACCURACY}:1:10`: " + ACC002.replace("<", "\\<"),  # literal Markdown
        f"- error **STR005** `demo-v6.1/closed/SecondCo/src`: {STR005} (affects 2 results)",
    ]


def test_junit_failures_name_their_causes_and_shared_findings_appear_once(shared) -> None:
    suites = ET.fromstring(_written(junit_report.write, shared[1]))
    cases = {(c.get("classname"), c.get("name")): c for c in suites.iter("testcase")}

    def failure(classname: str, name: str) -> tuple[str, str] | None:
        element = cases[(classname, name)].find("failure")
        return None if element is None else (element.get("message"), element.text)

    assert failure(SUBMISSION, "submission and systems") == (
        "1 error(s): SYS001",
        f"error SYS001 {SYSTEM}:1:1 [/framework]: required field `framework` is missing (affects 2 results)",
    )
    assert cases[(SUBMISSION, "submission and systems")].find("system-out").text == (
        "warning STR007 closed/MLCheckDemo/documentation/notes: empty folder"
    )
    system = f"{SUBMISSION}/results/cpu-1x-numpy"
    assert failure(system, "demo-mlp-99/Offline") == (
        "2 error(s): ACC002, SYS001",
        f'error ACC002 {ACCURACY}:1:10: {ACC002}\nerror SYS001 {SYSTEM}:1:1 [/framework] (see "submission and systems")',
    )
    assert failure(system, "demo-mlp-99/SingleStream") == (
        "1 error(s): SYS001",
        f'error SYS001 {SYSTEM}:1:1 [/framework] (see "submission and systems")',
    )
    assert failure(f"{SUBMISSION}/results/cpu-2x-numpy", "demo-mlp-99/Offline") is None
    assert failure("closed/SecondCo", "submission and systems") == (
        "1 error(s): STR005",
        f"error STR005 closed/SecondCo/src: {STR005} (affects 2 results)",
    )
    assert failure("closed/SecondCo/results/cpu-1x-numpy", "demo-mlp-99/Offline") == (
        "1 error(s): STR005",
        'error STR005 closed/SecondCo/src (see "submission and systems")',
    )


# --- 3. --format github outside GitHub Actions ---------------------------------------------
def _many_errors(root: Path) -> Report:
    """12 errors of one code: 10 annotated, 2 left for elsewhere."""
    findings = [
        Finding(
            code="FIL001",
            severity=Severity.ERROR,
            path=f"closed/X/f{n:02d}.txt",
            message=f"m{n}",
            name="required-file-missing",
            subject="closed/X",
        )
        for n in range(12)
    ]
    return Report(round=load_round("demo-v6.1"), root=str(root), results=[], findings=findings)


def test_github_without_a_job_summary_says_where_the_other_findings_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    lines = _written(github_report.write, _many_errors(tmp_path)).splitlines()
    assert len(lines) == 11 and lines[9].startswith("::error file=closed/X/f09.txt,")
    assert lines[10] == (
        "2 more findings are not annotated (at most 10 per severity) and no job summary was written "
        "($GITHUB_STEP_SUMMARY is not set): run with --format text or --format json to see every "
        "finding."
    )
    assert list(tmp_path.iterdir()) == []


def test_github_with_a_job_summary_points_at_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    lines = _written(github_report.write, _many_errors(tmp_path)).splitlines()
    assert lines[10:] == ["2 more findings are in the job summary."]
    assert "- error **FIL001** `closed/X/f11.txt`: m11\n" in summary.read_text()


def test_github_with_a_job_summary_it_cannot_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path))  # a folder: no file to append to
    lines = _written(github_report.write, _many_errors(tmp_path)).splitlines()
    assert lines[10:] == [
        "2 more findings are not annotated (at most 10 per severity) and no job summary was "
        "written ($GITHUB_STEP_SUMMARY could not be written): run with --format text or --format "
        "json to see every finding."
    ]
    assert "cannot append the job summary to $GITHUB_STEP_SUMMARY" in capsys.readouterr().err


# --- 4. JUnit: time, timestamp, errors, and the Jenkins schema ------------------------------
@pytest.fixture(scope="module")
def junit_schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(JUNIT_XSD))


def test_junit_counts_and_clock(shared, junit_schema: xmlschema.XMLSchema) -> None:
    text = _written(junit_report.write, shared[1])
    junit_schema.validate(text)
    suites = ET.fromstring(text)
    assert suites.attrib == {
        "name": "mlperf-check demo-v6.1",
        "tests": "8",
        "failures": "6",
        "errors": "0",
        "time": "1.500",
    }
    assert [s.attrib for s in suites] == [
        {
            "name": SUBMISSION,
            "tests": "5",
            "failures": "3",
            "errors": "0",
            "skipped": "0",
            "time": "0.250",
            "timestamp": "2026-07-01T12:00:00+00:00",
        },
        {
            "name": "closed/SecondCo",
            "tests": "3",
            "failures": "3",
            "errors": "0",
            "skipped": "0",
            "time": "0.250",
            "timestamp": "2026-07-01T12:00:00+00:00",
        },
    ]


def _broken_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(result, round):
        raise ZeroDivisionError("boom")
        yield  # pragma: no cover

    monkeypatch.setitem(
        RULES,
        "ZZZ999",
        Rule("ZZZ999", "always-broken", "result", Severity.ERROR, "Breaks.\n\nWhy: x\nFix: y\nPolicy: z", broken),
    )


def test_junit_internal_errors_are_errors(
    example: Path, monkeypatch: pytest.MonkeyPatch, junit_schema: xmlschema.XMLSchema
) -> None:
    _broken_rule(monkeypatch)
    text = _written(junit_report.write, fixed(run(example)))
    junit_schema.validate(text)
    suites = ET.fromstring(text)
    assert (suites.get("tests"), suites.get("failures"), suites.get("errors")) == ("3", "0", "2")
    case = next(c for c in suites.iter("testcase") if c.get("name") == "demo-mlp-99/Offline")
    assert case.find("failure") is None
    error = case.find("error")
    assert (error.get("type"), error.get("message")) == ("internal", "1 error(s): INT001")
    assert error.text.startswith(f"error INT001 {OFFLINE}: rule ZZZ999 always-broken failed: ZeroDivisionError: boom")


def test_every_junit_snapshot_validates(junit_schema: xmlschema.XMLSchema) -> None:
    snapshots = sorted((ROOT / "tests" / "__snapshots__" / "test_snapshots").glob("test_junit*.xml"))
    assert len(snapshots) >= 3
    for path in snapshots:
        junit_schema.validate(str(path))


def test_the_engine_times_the_check(example: Path) -> None:
    """The report says when the check began (read from the clock between the two readings
    here, whatever the load) and how long it and each submitter took; JUnit writes those.
    No bound on how long: timings belong in benchmarks/."""
    before = datetime.datetime.now(datetime.UTC)
    report = run(example)
    after = datetime.datetime.now(datetime.UTC)
    assert before <= report.checked_at <= after
    assert report.elapsed > 0
    assert list(report.seconds) == [SUBMISSION] and report.seconds[SUBMISSION] > 0
    suite = ET.fromstring(_written(junit_report.write, report)).find("testsuite")
    assert suite.get("timestamp") == report.checked_at.isoformat(timespec="seconds")
    assert suite.get("time") == f"{report.seconds[SUBMISSION]:.3f}"


# --- 5. SARIF: base URIs and the invocation ------------------------------------------------
def test_sarif_locations_are_relative_to_srcroot(shared, workspace) -> None:
    document = sarif_report.document(shared[1])
    jsonschema.Draft7Validator(SARIF_SCHEMA, format_checker=jsonschema.FormatChecker()).validate(document)
    run_ = document["runs"][0]
    assert run_["originalUriBaseIds"] == {
        "SRCROOT": {
            "uri": workspace.as_uri() + "/",
            "description": {
                "text": "The repository root: GITHUB_WORKSPACE, else the folder mlperf-check ran in (the "
                "checked folder when it is outside it)."
            },
        }
    }
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run_["results"]][:2] == [
        {"uri": "demo-v6.1/closed/MLCheckDemo/documentation/notes", "uriBaseId": "SRCROOT"},
        {"uri": f"demo-v6.1/{SYSTEM}", "uriBaseId": "SRCROOT"},
    ]
    assert run_["invocations"] == [
        {
            "executionSuccessful": True,
            "startTimeUtc": "2026-07-01T12:00:00.000Z",
            "endTimeUtc": "2026-07-01T12:00:01.500Z",
        }
    ]


def test_sarif_base_is_the_checked_folder_outside_the_workspace(
    shared, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    root, report = shared
    run_ = sarif_report.document(report)["runs"][0]
    assert run_["originalUriBaseIds"]["SRCROOT"]["uri"] == root.as_uri() + "/"
    assert run_["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "closed/MLCheckDemo/documentation/notes",
        "uriBaseId": "SRCROOT",
    }


def test_sarif_invocation_reports_internal_errors(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _broken_rule(monkeypatch)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(example))
    document = sarif_report.document(fixed(run(example)))
    jsonschema.Draft7Validator(SARIF_SCHEMA, format_checker=jsonschema.FormatChecker()).validate(document)
    run_ = document["runs"][0]
    codes = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    assert run_["tool"]["driver"]["notifications"] == [
        {"id": "INT001", "name": "internal-error", "shortDescription": {"text": RULES["INT001"].summary}}
    ]
    invocation = run_["invocations"][0]
    assert invocation["executionSuccessful"] is False
    notifications = invocation["toolExecutionNotifications"]
    assert [
        (n["level"], n["descriptor"], n["associatedRule"], n["locations"][0]["physicalLocation"]["artifactLocation"])
        for n in notifications
    ] == [
        (
            "error",
            {"id": "INT001", "index": 0},
            {"id": "ZZZ999", "index": codes.index("ZZZ999")},
            {"uri": location, "uriBaseId": "SRCROOT"},
        )
        for location in (OFFLINE, SINGLE)
    ]
    assert notifications[0]["message"]["text"].startswith("rule ZZZ999 always-broken failed: ZeroDivisionError: boom")


def test_quiet_keeps_the_shared_errors_invalid_results_point_at(tmp_path: Path) -> None:
    """-q drops valid results and shared warnings, but keeps the shared errors that an
    invalid result's `invalidated by ... (see Submissions and systems)` names."""
    from io import StringIO

    from checker.reporters import text_report

    report = run(shared_defects(tmp_path / "demo-v6.1"), "demo-v6.1")
    out = StringIO()
    text_report.write(report, out, quiet=True, color="never")
    lines = out.getvalue().splitlines()
    assert lines[0] == "Submissions and systems"
    shared = lines[1 : lines.index(next(line for line in lines if line.startswith("closed/")))]
    assert [line.split()[:2] for line in shared] == [["error", "SYS001"], ["error", "STR005"]]
    assert not any("STR007" in line or "  valid" in line for line in lines)
    assert sum("invalidated by" in line for line in lines) == 4
