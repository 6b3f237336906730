"""The text report's views, as ruff shows its findings (issue 24): the problems first, each
finding once; `full` with the offending line and the fix; `concise` one line per finding;
`--show-valid` the valid results too; and a summary whose counts are the findings shown.

The count rule: one finding line counts once, however many results it affects (STR005 on a
submitter's code folder that two results need is one error, "affects 2 results")."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_snapshots import TextSnapshot

from checker.findings import Finding, Report, ResultRecord, Severity, judge
from checker.registry import RULES
from checker.reporters import text_report
from checker.rounds import load_round
from helpers import REAL_ROOT, real_data, run, shared_defects

FINDING = re.compile(r"^  (error|warning|note)\s+[A-Z]{3}\d{3} ")
CONCISE = re.compile(r"^\S+: [A-Z]{3}\d{3} ")
SUMMARY = re.compile(
    r"^mlperf-check, round \S+: (\d+) results?, (\d+) valid, (\d+) invalid; (\d+) errors?"
    r"(?:, (\d+) warnings?, (\d+) notes?)?"
)


def _text(report: Report, **options) -> str:
    out = io.StringIO()
    text_report.write(report, out, color="never", **options)
    return out.getvalue()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Report:
    return run(shared_defects(tmp_path_factory.mktemp("shared") / "demo-v6.1"))


def test_one_finding_counts_once_however_many_results_it_affects(shared: Report) -> None:
    """SYS001 and STR005 each affect 2 results and count 1 error each; ACC002 is the third."""
    text = _text(shared)
    assert "(affects 2 results)" in text
    assert text.splitlines()[-1] == (
        "mlperf-check, round demo-v6.1: 6 results, 2 valid, 4 invalid; 3 errors, 1 warning, 0 notes"
    )


@settings(max_examples=12, deadline=None)
@given(view=st.sampled_from(text_report.VIEWS), quiet=st.booleans(), show_valid=st.booleans())
def test_summary_counts_equal_the_findings_shown(shared: Report, view: str, quiet: bool, show_valid: bool) -> None:
    """In every view, the errors, warnings and notes the summary counts are the finding
    lines shown; -q shows no warning and says how many it left out."""
    lines = _text(shared, view=view, quiet=quiet, show_valid=show_valid).splitlines()
    if view == "concise":
        shown = [line.split()[1] for line in lines if CONCISE.match(line)]
        severities = [RULES[code].severity.value for code in shown]
    else:
        severities = [m.group(1) for m in map(FINDING.match, lines) if m]
    numbers = SUMMARY.match(lines[-1])
    assert numbers is not None, lines[-1]
    assert int(numbers.group(4)) == severities.count("error") == 3
    if quiet:
        assert numbers.group(5) is None and lines[-1].endswith("(1 warning or note not shown: -q)")
        assert severities.count("warning") == 0
    else:
        assert int(numbers.group(5)) == severities.count("warning") == 1
        assert int(numbers.group(6)) == severities.count("note") == 0
    valid = [line for line in lines if line.endswith(("valid  522.247 Samples/s", "valid  2.41858 Latency (ms)"))]
    assert len(valid) == (2 if show_valid and view != "concise" else 0)


def _report(tmp_path: Path, line: int | None, column: int | None, hint: str | None = None) -> Report:
    """One result, one SYS001 on its system description, at `line`:`column` when given."""
    system = tmp_path / "closed/A/systems/s1.json"
    system.parent.mkdir(parents=True)
    system.write_text('{\n  "framework": "",\n  "x\\u001b": 1\n}\n')
    record = ResultRecord(
        "closed/A/results/s1/b/Offline", "closed", "A", "s1", "b", "Offline", "b", "closed/A/systems/s1", "closed/A"
    )
    finding = Finding(
        code="SYS001",
        severity=Severity.ERROR,
        path="closed/A/systems/s1.json",
        message="required field `framework` is empty",
        pointer="/framework",
        subject="closed/A/systems/s1",
        line=line,
        column=column,
        hint=hint,
    )
    report = Report(round=load_round("demo-v6.1"), root=str(tmp_path), results=[record], findings=[finding])
    judge(report.results, report.findings)
    return report


def test_full_shows_the_line_with_a_caret_under_the_value_and_the_fix(tmp_path: Path) -> None:
    from checker.engine import load_all

    load_all()
    lines = _text(_report(tmp_path, 2, 16), view="full").splitlines()
    assert lines[:6] == [
        "Submissions and systems",
        "  error   SYS001 closed/A/systems/s1.json:2:16 [/framework]: required field `framework` is empty "
        "(affects 1 result)",
        "     |",
        '    2 |   "framework": "",',
        "     |                ^",
        f"    help: {RULES['SYS001'].sections['Fix']}",
    ]


def test_full_without_a_line_shows_only_the_help(tmp_path: Path) -> None:
    """No position known: no source line, no caret; a finding's own hint is its help."""
    lines = _text(_report(tmp_path, None, None, hint="write the framework's name"), view="full").splitlines()
    assert lines[1:3] == [
        "  error   SYS001 closed/A/systems/s1.json [/framework]: required field `framework` is empty "
        "(affects 1 result)",
        "    help: write the framework's name",
    ]


def test_the_caret_counts_a_control_character_as_shown(tmp_path: Path) -> None:
    (tmp_path / "closed/A/systems").mkdir(parents=True)
    (tmp_path / "closed/A/systems/s1.json").write_text('\t"framework": "",\n')
    report = _report(tmp_path / "other", 1, 3)
    report.root = str(tmp_path)
    lines = _text(report, view="full").splitlines()
    assert lines[3:5] == ['    1 | \\t"framework": "",', "     |    ^"]


@pytest.mark.parametrize(
    ("line", "column", "where"),
    [
        (2, 16, "closed/A/systems/s1.json:2:16"),
        (2, None, "closed/A/systems/s1.json:2"),
        (None, None, "closed/A/systems/s1.json"),
    ],
)
def test_concise_omits_the_unknown_parts_of_the_position(tmp_path: Path, line, column, where) -> None:
    lines = _text(_report(tmp_path, line, column), view="concise").splitlines()
    assert lines == [
        f"{where}: SYS001 required field `framework` is empty [/framework] (affects 1 result)",
        "mlperf-check, round demo-v6.1: 1 result, 0 valid, 1 invalid; 1 error, 0 warnings, 0 notes",
    ]


# --- each view of a real slice, pinned -----------------------------------------------------
VIEW_OPTIONS = {
    "default": {},
    "full": {"view": "full"},
    "concise": {"view": "concise"},
    "show-valid": {"show_valid": True},
}


@pytest.fixture(scope="module")
def real_v60() -> Report:
    return run(real_data(REAL_ROOT / "v6.0"), "v6.0", jobs=1)


@pytest.mark.real
@pytest.mark.slow
@pytest.mark.parametrize("view", list(VIEW_OPTIONS))
@pytest.mark.full
def test_view_of_the_real_v60_slice(real_v60: Report, view: str, snapshot) -> None:
    assert _text(real_v60, **VIEW_OPTIONS[view]) == snapshot(extension_class=TextSnapshot)


# --- the fix travels with the finding ------------------------------------------------------
def test_the_fix_is_in_the_annotation_and_in_sarif(tmp_path: Path) -> None:
    """The GitHub annotation ends with `help: FIX`; SARIF's rule carries `help`, and, as the
    package names no repository URL, no `helpUri` (which must be absolute) but the page's
    path (docs/rules/CODE.md) in its help text; a finding's own hint is in its message."""
    from checker.engine import load_all
    from checker.reporters import github_report, sarif_report
    from helpers import ROOT

    load_all()
    report = _report(tmp_path, 2, 16, hint="write the framework's name")
    assert github_report.annotation(report.findings[0], "").endswith("%0Ahelp: write the framework's name")
    document = sarif_report.document(report)
    (rule,) = [r for r in document["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "SYS001"]
    assert "helpUri" not in rule and (ROOT / "docs/rules/SYS001.md").is_file()
    assert rule["help"]["text"].endswith("\n\nDocumentation: docs/rules/SYS001.md")
    assert f"Fix: {RULES['SYS001'].sections['Fix']}" in rule["help"]["text"]
    (result,) = document["runs"][0]["results"]
    assert result["message"]["text"].endswith("\nhelp: write the framework's name")
    without = _report(tmp_path / "other", None, None)
    assert github_report.annotation(without.findings[0], "").endswith(
        "%0Ahelp: " + RULES["SYS001"].sections["Fix"].replace("%", "%25")
    )


def test_an_empty_table_says_why(tmp_path: Path) -> None:
    """Every result invalid (the example is no v6.1 submission): an empty table, and one line
    that says so and why, not silence."""
    from typer.testing import CliRunner

    from checker.cli import app
    from helpers import EXAMPLE

    done = CliRunner().invoke(app, ["table", str(EXAMPLE), "-o", str(tmp_path / "t.json"), "--no-progress"])
    assert done.exit_code == 0, done.output
    assert done.stderr.splitlines()[-1] == (
        "0 rows in the v6.1 table format (summary.json); 2 invalid results left out (`mlperf-check check` says why)"
    )
