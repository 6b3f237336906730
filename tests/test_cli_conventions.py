"""The command-line conventions users bring from ruff, sqlfluff and check-jsonschema (issue 17):
--version, selections that must name codes, a configuration file, -q/--statistics/--exit-zero/
--color, shell completion, clean --help, -o choosing the format, progress on a terminal, and
compare's guards against duplicated rows and percentages given for fractions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from checker import __version__
from checker.cli import app
from helpers import EXAMPLE, OFFLINE, SINGLE, SUBMISSION, table_row, write_table

runner = CliRunner()

COMMANDS = [
    "check",
    "table",
    "followup",
    "provenance",
    "compare",
    "report",
    "claims",
    "reproduce",
    "rerun",
    "rules",
    "explain",
    "rounds",
    "version",
]


def _invoke(*args: str, **options):
    return runner.invoke(app, list(args), prog_name="mlperf-check", terminal_width=100, **options)


# --- --version, completion, --help ------------------------------------------------------------
def test_version_option_and_subcommand() -> None:
    for option in ("--version", "-V"):
        result = _invoke(option)
        assert (result.exit_code, result.stdout) == (0, f"mlperf-check {__version__}\n")
    result = _invoke("version")
    assert (result.exit_code, result.stdout) == (0, f"{__version__}\n")


def test_shell_completion_is_on() -> None:
    result = _invoke("--help")
    assert result.exit_code == 0
    assert "--install-completion" in result.stdout and "--show-completion" in result.stdout
    shown = _invoke("--show-completion", "bash")
    assert shown.exit_code == 0
    assert "_MLPERF_CHECK_COMPLETE=complete_bash" in shown.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_no_type_tags(command: str) -> None:
    result = _invoke(command, "--help")
    assert result.exit_code == 0, result.output
    assert not re.search(r"<(str|int|float|bool|list\[str\]|path)>|\b(TEXT|INTEGER|FLOAT|BOOLEAN)\b", result.stdout)
    assert "[default: 0]" not in result.stdout and "[default: progress]" not in result.stdout


def test_check_help_as_rendered() -> None:
    """What `mlperf-check check --help` prints: metavars, no type tags, no `[default: 0]`."""
    result = _invoke("check", "--help")
    assert result.exit_code == 0
    assert result.stdout == CHECK_HELP


CHECK_HELP = """\
Usage: mlperf-check check [OPTIONS] {PATH}...

  Check a submission tree and print a verdict per result.

  Given files (or several paths) inside a tree, check every result they affect, each as a whole
  check of the tree judges it. Options not given come from [tool.mlperf-check] in the nearest
  pyproject.toml (round, select, ignore, waivers, jobs, format).

Arguments:
  PATH  Folder holding closed/, open/ or network/ submissions; or files inside one: the results they
        affect (as pre-commit passes them).  [required]

Options:
  -r, --round ROUND           Round name (e.g. v6.1) or round file; default: the config's round,
                              else detected.
  -f, --format FORMAT         auto, text, json, csv, github, sarif or junit; FORMAT:FILE writes to a
                              file. Repeatable. auto is github under GitHub Actions. Without it, -o
                              FILE.json writes JSON (the extension decides).
  -o, --output FILE           File for the output (default stdout).
  --select CODES              Only these codes or prefixes (PRF,RNG001).
  --ignore CODES              Skip these codes or prefixes.
  --waivers FILE              YAML file of waivers, each with a reason.
  -j, --jobs N                Worker processes (default: all cores).
  --progress / --no-progress  Progress bar on a terminal (stderr).
  --inference-repo CLONE      Clone of mlcommons/inference: runs the loadgen provenance rules.
  --strict                    Treat every warning as an error.
  --changed-since GIT_REF     Git ref: check only the results changed since it.
  -q, --quiet                 Text report: only the errors and the invalid results, then the counts;
                              no informational lines on stderr.
  --statistics                Text report: a count per code (count, code, name, severity) in place
                              of the findings.
  --output-format VIEW        Text report: default (the problems, then a summary line), full (also
                              the offending line and a help: line with the fix under each finding)
                              or concise (one line per finding: path:line:col: CODE message).
  --show-valid                Text report: list the valid results too.
  --exit-zero                 Exit 0 even when errors are found (still 2 for a usage error and 3 for
                              an internal one).
  --color auto|always|never   Colour in the text report: auto (a terminal, and NO_COLOR unset),
                              always or never.  [default: auto]
  --cache-dir DIR             The cache folder (default: $MLPERF_CHECK_CACHE_DIR, else the user
                              cache folder); never in the tree.
  --no-cache                  Read every file again, and keep nothing in the cache.
  -h, --help                  Show this message and exit.
"""


# --- --select / --ignore name codes ----------------------------------------------------------
@pytest.mark.parametrize(
    "option, value, hint",
    [
        ("--select", "XYZ999", "no close code or name;"),
        ("--ignore", "QQQ", "no close code or name;"),
        ("--select", "PRF,AVL01", "did you mean `AVL001`?"),
        ("--select", "availability-categry", "did you mean `availability-category`?"),
    ],
)
def test_unknown_code_or_prefix_is_a_usage_error(option: str, value: str, hint: str) -> None:
    """attack24 V6: the closest code or rule name, as `explain` suggests it."""
    result = _invoke("check", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1", option, value)
    bad = value.split(",")[-1]
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {option} {bad}: unknown code, prefix or rule name; {hint} `mlperf-check rules` lists them\n"
    )
    assert result.stdout == ""


def test_a_rule_name_selects_its_code_as_explain_takes_it() -> None:
    from checker.engine import load_all
    from checker.registry import selected

    load_all()
    assert selected(["availability-category"]) == {"AVL001"}
    assert "AVL001" not in selected(ignore=["Availability-Category"])


def test_known_codes_and_prefixes_are_accepted() -> None:
    result = _invoke(
        "check",
        str(EXAMPLE),
        "--round",
        "demo-v6.1",
        "-j",
        "1",
        "--select",
        "PRF,rng001",
        "--select",
        "STR",
        "--ignore",
        "RNG001",
        "-f",
        "json",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["findings"] == []


def test_the_engine_checks_a_selection_the_same_way() -> None:
    from checker.engine import check
    from checker.registry import SelectionError, selected

    assert "RNG001" in selected(["RNG"]) and selected(["rng001"]) == {"RNG001"}
    with pytest.raises(SelectionError, match=r"^--ignore XYZ: unknown code, prefix or rule name"):
        check(str(EXAMPLE), "demo-v6.1", ignore=["XYZ"], jobs=1)


# --- [tool.mlperf-check] in pyproject.toml ---------------------------------------------------
def _pyproject(folder: Path, text: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(text)
    return path


def test_the_configuration_file_gives_the_options(example: Path, tmp_path: Path) -> None:
    (example / OFFLINE / "user.conf").write_text("*.Offline.schedule_rng_seed = 5\n")  # RNG003, a warning
    (tmp_path / "w.yaml").write_text(f"waivers:\n  - code: RNG003\n    path: '{OFFLINE}/*'\n    reason: approved\n")
    config = _pyproject(
        tmp_path,
        '[project]\nname = "x"\n\n[tool.mlperf-check]\nround = "demo-v6.1"\n'
        'select = ["RNG", "STR001"]\nignore = "RNG001"\nwaivers = "w.yaml"\njobs = 1\n'
        'format = ["json:out/report.json"]\n',
    )
    (tmp_path / "out").mkdir()
    result = _invoke("check", str(example))
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == f"config: {config}"
    assert "round" not in result.stderr.splitlines()[1]  # the round is the configuration's: nothing detected
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert data["round"] == "demo-v6.1"
    assert [(f["code"], f["waived"]) for f in data["findings"]] == [("RNG003", "approved")]


def test_command_line_flags_win_over_the_configuration(example: Path, tmp_path: Path) -> None:
    _pyproject(example, '[tool.mlperf-check]\nround = "v5.1"\nselect = ["XYZ"]\nformat = "csv"\n')
    result = _invoke("check", str(example), "--round", "demo-v6.1", "--select", "RNG", "-j", "1", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["round"] == "demo-v6.1"
    assert "config:" not in result.stderr  # nothing was taken from it
    out = tmp_path / "x.json"
    result = _invoke("check", str(example), "--round", "demo-v6.1", "--select", "RNG", "-j", "1", "-o", str(out))
    assert result.exit_code == 0 and json.loads(out.read_text())["round"] == "demo-v6.1"  # -o wins over format


def test_the_nearest_pyproject_with_the_table_is_used_up_to_the_repository_root(example: Path, tmp_path: Path) -> None:
    from checker.config import find

    _pyproject(tmp_path, '[tool.mlperf-check]\nround = "v6.0"\n')
    _pyproject(example, '[project]\nname = "no table here"\n')
    assert find(str(example / "closed")).path == str(tmp_path / "pyproject.toml")
    assert find(str(example / "closed")).get("round") == "v6.0"
    (example / ".git").mkdir()  # a repository root: the search stops there
    assert find(str(example / "closed")).path is None
    result = _invoke("check", str(example), "--round", "demo-v6.1", "-j", "1")
    assert result.exit_code == 0 and "config:" not in result.stderr


@pytest.mark.parametrize(
    "text, message",
    [
        (
            '[tool.mlperf-check]\nrounds = "v6.1"\n',
            "2: unknown key 'rounds' in [tool.mlperf-check]; the keys are round, select, ignore, waivers, jobs, format",
        ),
        (
            '[tool.mlperf-check]\njobs = "4"\n',
            "2: [tool.mlperf-check] jobs: give a whole number (0 for all cores), not str '4'",
        ),
        (
            "[tool.mlperf-check]\njobs = true\n",
            "2: [tool.mlperf-check] jobs: give a whole number (0 for all cores), not bool True",
        ),
        ("[tool.mlperf-check]\nselect = [1]\n", "2: [tool.mlperf-check] select: give a list of strings, not list [1]"),
        ("[tool.mlperf-check]\nround = 6.1\n", "2: [tool.mlperf-check] round: give a string, not float 6.1"),
        ("[tool.mlperf-check]\nround = \n", " is not valid TOML: Invalid value (at line 2, column 9)"),
        ("[tool.mlperf-check]\njobs = nan\n", "2: [tool.mlperf-check] jobs is nan; give a finite number"),
        (
            "[tool.mlperf-check]\njobs = 1\njobs = 2\n",
            "3: key 'jobs' is given twice (Cannot overwrite a value (at line 3, column 9))",
        ),
    ],
)
def test_a_bad_configuration_is_a_usage_error_naming_the_file_and_key(example: Path, text: str, message: str) -> None:
    config = _pyproject(example, text)
    result = _invoke("check", str(example), "-j", "1")
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {config}{'' if message.startswith(' ') else ':'}{message}\n",
    )


def test_a_configuration_that_is_not_utf8_is_a_usage_error(example: Path) -> None:
    config = example / "pyproject.toml"
    config.write_bytes(b'[tool.mlperf-check]\nround = "\xff"\n')
    result = _invoke("check", str(example), "-j", "1")
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {config} is not UTF-8 text (bad byte at offset 29)\n",
    )


def test_unknown_codes_and_formats_in_the_configuration_name_it(example: Path) -> None:
    config = _pyproject(example, '[tool.mlperf-check]\nround = "demo-v6.1"\nignore = ["RNG", "QQQ"]\n')
    result = _invoke("check", str(example), "-j", "1")
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {config} [tool.mlperf-check] ignore QQQ: unknown code, prefix or rule name; "
        "no close code or name; `mlperf-check rules` lists them\n",
    )
    _pyproject(example, '[tool.mlperf-check]\nround = "demo-v6.1"\nformat = ["yaml"]\n')
    result = _invoke("check", str(example), "-j", "1")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"error: {config} [tool.mlperf-check] format yaml: unknown format; no close name; choose `auto`"
    )


def test_report_and_table_read_the_round_from_the_configuration(example: Path, tmp_path: Path) -> None:
    config = _pyproject(example, '[tool.mlperf-check]\nround = "demo-v6.1"\njobs = 1\n')
    result = _invoke("table", str(example), "-o", str(tmp_path / "t.json"))
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == f"config: {config}"
    assert len(json.loads((tmp_path / "t.json").read_text())) == 2  # the demo benchmark's rows: demo-v6.1, not v6.1
    assert "detected" not in result.stderr
    result = _invoke("report", str(example), "-o", str(tmp_path / "audit.html"))
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == f"config: {config}"
    assert "round demo-v6.1" in (tmp_path / "audit.html").read_text()


# --- check -q, --statistics, --exit-zero, --color ---------------------------------------------
def _two_kinds(example: Path) -> None:
    """Offline invalid (ACC002), SingleStream valid with a warning (RNG003), a warning on the
    submission (STR007)."""
    (example / OFFLINE / "accuracy" / "accuracy.txt").write_text("accuracy=10.000%\nhash=00\n")
    (example / SINGLE / "user.conf").write_text("*.SingleStream.schedule_rng_seed = 5\n")
    (example / SUBMISSION / "documentation" / "diagrams").mkdir()


SUMMARY = "mlperf-check, round demo-v6.1: 2 results, 1 valid, 1 invalid; 1 error, 2 warnings, 0 notes\n"


def test_quiet_shows_only_invalid_results_and_their_findings(example: Path) -> None:
    _two_kinds(example)
    full = _invoke("check", str(example), "--round", "demo-v6.1", "-j", "1")
    assert full.exit_code == 1
    assert f"{SINGLE}  valid" not in full.stdout and "STR007" in full.stdout and "RNG003" in full.stdout
    shown = _invoke("check", str(example), "--round", "demo-v6.1", "-j", "1", "--show-valid")
    assert f"{SINGLE}  valid" in shown.stdout
    result = _invoke("check", str(example), "--round", "demo-v6.1", "-j", "1", "-q")
    assert result.exit_code == 1
    assert result.stdout == (
        f"{OFFLINE}  INVALID  522.247 Samples/s\n"
        f"  error   ACC002 {OFFLINE}/accuracy/accuracy.txt:1:10: acc 10.000 < 88.1719 (0.99 x reference 89.0625 = "
        "88.1719, round demo-v6.1)\n"
        "mlperf-check, round demo-v6.1: 2 results, 1 valid, 1 invalid; 1 error (2 warnings and notes not shown: -q)\n"
    )
    quiet_detected = _invoke("check", str(example), "-j", "1", "--quiet", "-f", "json")
    assert quiet_detected.exit_code == 1 and "detected" not in quiet_detected.stderr


def test_statistics_counts_per_code(example: Path) -> None:
    _two_kinds(example)
    (example / SUBMISSION / "documentation" / "more").mkdir()
    result = _invoke("check", str(example), "--round", "demo-v6.1", "-j", "1", "--statistics")
    assert result.exit_code == 1
    assert result.stdout == (
        "     2  STR007  empty-folder          warning\n"
        "     1  ACC002  accuracy-within-gate  error\n"
        "     1  RNG003  seeds-in-user-conf    warning\n" + SUMMARY.replace("2 warnings", "3 warnings")
    )


def test_exit_zero_keeps_the_report_but_not_the_failure(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _two_kinds(example)
    result = _invoke("check", str(example), "--round", "demo-v6.1", "-j", "1", "--exit-zero")
    assert result.exit_code == 0
    assert f"{OFFLINE}  INVALID" in result.stdout
    # An internal error is no finding: still exit 3; and a usage error still exit 2.
    from checker.findings import Severity
    from checker.registry import RULES, Rule

    def broken(result, round):
        raise ZeroDivisionError("boom")
        yield  # pragma: no cover

    monkeypatch.setitem(
        RULES,
        "ZZZ999",
        Rule("ZZZ999", "always-broken", "result", Severity.ERROR, "Breaks.\n\nWhy: x\nFix: y\nPolicy: z", broken),
    )
    assert _invoke("check", str(example), "--round", "demo-v6.1", "-j", "1", "--exit-zero").exit_code == 3
    assert _invoke("check", str(example), "--round", "v9.9", "--exit-zero").exit_code == 2


ESCAPE = "\x1b["


@pytest.mark.parametrize(
    "option, no_color, coloured",
    [("always", None, True), ("always", "1", True), ("never", None, False), ("auto", None, False)],
)
def test_color_option(example: Path, monkeypatch: pytest.MonkeyPatch, option: str, no_color, coloured: bool) -> None:
    _two_kinds(example)
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    if no_color:
        monkeypatch.setenv("NO_COLOR", no_color)
    result = _invoke("check", str(example), "--round", "demo-v6.1", "-j", "1", "--color", option)
    assert result.exit_code == 1
    assert (ESCAPE in result.stdout) is coloured
    if coloured:
        assert "\x1b[1;31mINVALID\x1b[0m" in result.stdout


def test_color_auto_follows_the_terminal_and_no_color(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from checker.engine import check as run_check
    from checker.reporters import text_report

    report = run_check(str(EXAMPLE), "demo-v6.1", jobs=1)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    out = Terminal()
    text_report.write(report, out, color="auto")
    assert ESCAPE in out.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    out = Terminal()
    text_report.write(report, out, color="auto")
    assert ESCAPE not in out.getvalue()
    out = Terminal()
    text_report.write(report, out, color="never")
    assert ESCAPE not in out.getvalue()


def test_an_unknown_color_is_a_usage_error() -> None:
    result = _invoke("check", str(EXAMPLE), "--color", "sometimes")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: --color sometimes: unknown color; no close name; choose `auto`, `always` or `never`\n",
    )


# --- rules --format, explain per round --------------------------------------------------------
def test_rules_text_is_the_default_and_json_carries_each_rounds_severity(tmp_path: Path) -> None:
    text = _invoke("rules")
    assert text.exit_code == 0
    assert text.stdout == _invoke("rules", "--format", "text").stdout
    assert re.search(r"^PRV001  loadgen-dirty +Loadgen was built from a clean checkout", text.stdout, re.M)
    result = _invoke("rules", "--format", "json")
    assert result.exit_code == 0
    entries = {e["code"]: e for e in json.loads(result.stdout)}
    why = "the round's checker does not check loadgen's provenance, and published results ran older, forked or modified builds"
    assert entries["PRV001"] == {
        "code": "PRV001",
        "name": "loadgen-dirty",
        "scope": "result",
        "severity": "error",
        "summary": "Loadgen was built from a clean checkout: no changed file in its git status, no uncommitted-changes error.",
        "preview": False,
        "rounds": {"v5.1": {"severity": "warning", "why": why}, "v6.0": {"severity": "warning", "why": why}},
        "not_in": [],
    }
    assert entries["RNG001"]["rounds"] == {}
    assert entries["EPT002"]["not_in"] == ["v5.1", "v6.0"]  # no Endpoints results in those rounds
    assert list(entries) == sorted(entries) and len(text.stdout.splitlines()) == len(entries)
    out = tmp_path / "rules.json"
    assert _invoke("rules", "-o", str(out)).exit_code == 0  # the extension picks JSON
    assert json.loads(out.read_text()) == list(entries.values())


def test_explain_shows_the_severity_of_each_round_where_a_round_changes_it() -> None:
    result = _invoke("explain", "prv001")
    assert result.exit_code == 0
    why = "the round's checker does not check loadgen's provenance, and published results ran older, forked or modified builds"
    assert result.stdout.startswith(
        "PRV001 loadgen-dirty (error, result)\n\n"
        "Severity per round:\n"
        f"  v5.1  warning  {why}\n"
        f"  v6.0  warning  {why}\n"
        "  v6.1  error\n\n"
        "Loadgen was built from a clean checkout"
    )
    plain = _invoke("explain", "RNG001")
    assert plain.stdout.startswith("RNG001 round-seeds (error, result)\n\nLoadgen ran with the round's RNG seeds")
    assert "Severity per round" not in plain.stdout


# --- -o FILE picks the format by its extension, in every command --------------------------------


def _two_submitters(tmp_path: Path) -> Path:
    return write_table(
        tmp_path / "v60.json",
        [
            table_row(),
            table_row(
                Submitter="Bolt", Location="./closed/Bolt/results/s1/llama2-70b-99/Offline", Performance_Result=1040.0
            ),
        ],
    )


def test_output_extension_picks_the_format_of_every_command(tmp_path: Path) -> None:
    import csv

    out = tmp_path / "t.csv"
    assert _invoke("table", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1", "-o", str(out)).exit_code == 0
    rows = list(csv.DictReader(out.open()))
    assert [r["Scenario"] for r in rows] == ["Offline", "SingleStream"]

    out = tmp_path / "f.json"
    assert (
        _invoke(
            "followup",
            "--previous",
            str(EXAMPLE),
            "--previous-round",
            "v6.0",
            "--current",
            str(EXAMPLE),
            "--current-round",
            "v6.1",
            "-o",
            str(out),
        ).exit_code
        == 0
    )
    assert json.loads(out.read_text())["summary"] == {"followed": 0, "degraded": 0, "missing": 0, "not-comparable": 0}

    out = tmp_path / "p.csv"
    assert _invoke("provenance", str(EXAMPLE), "--round", "demo-v6.1", "-o", str(out)).exit_code == 0
    assert out.read_text().splitlines()[0].startswith("location,loadgen_version,rev,verdict,")

    claims = tmp_path / "claims.yaml"
    claims.write_text(
        "claims:\n- id: spread\n  text: within 4%\n  kind: spread\n  expect: 0.04\n"
        "  in: {round: v6.0, model: llama2-70b-99, scenario: Offline, accelerator: Accel Y}\n"
    )
    out = tmp_path / "c.md"
    assert _invoke("claims", str(claims), "--table", f"v6.0={_two_submitters(tmp_path)}", "-o", str(out)).exit_code == 0
    assert out.read_text().startswith("| claim | kind | verdict | measured | claimed | rows | notes |\n|---|")

    out = tmp_path / "r.json"
    original = EXAMPLE / OFFLINE
    assert _invoke("reproduce", str(original), str(original), "--round", "demo-v6.1", "-o", str(out)).exit_code == 1
    assert json.loads(out.read_text())["original"] == OFFLINE

    out = tmp_path / "c.html"
    assert _invoke("compare", str(_two_submitters(tmp_path)), "-o", str(out)).exit_code == 0
    assert out.read_text().startswith("<!doctype html>")


# --- progress on a terminal ---------------------------------------------------------------------
PROGRESS_RUNS = {
    "check": ["check", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1", "-f", "json"],
    "table": ["table", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1"],
    "followup": [
        "followup",
        "--previous",
        str(EXAMPLE),
        "--previous-round",
        "v6.0",
        "--current",
        str(EXAMPLE),
        "--current-round",
        "v6.1",
    ],
    "provenance": ["provenance", str(EXAMPLE), "--round", "demo-v6.1"],
    "compare": ["compare", str(EXAMPLE), "--round", "demo-v6.1"],
    "report": ["report", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1", "-o", "{tmp}/audit.html"],
}


@pytest.mark.parametrize("command", sorted(PROGRESS_RUNS))
def test_progress_on_a_terminal_only(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rich.console import Console

    from checker.commands import common

    args = [a.replace("{tmp}", str(tmp_path)) for a in PROGRESS_RUNS[command]]
    for terminal, extra, shown in ((True, [], True), (True, ["--no-progress"], False), (False, [], False)):
        screen = io.StringIO()
        console = Console(file=screen, force_terminal=terminal, width=80)
        monkeypatch.setattr(common, "_progress_console", lambda console=console: console)
        result = _invoke(*args, *extra)
        assert result.exit_code == 0, (command, result.output)
        label = "reading loadgen builds" if command == "provenance" else "checking"
        assert (label in screen.getvalue()) is shown, (command, terminal, extra)
        assert screen.getvalue() == "" or shown
        assert "\x1b[" not in result.stderr  # the bar goes to the terminal, never into the captured stderr


# --- compare: duplicated rows, an unknown reference, percentages for fractions -------------------
def test_the_same_table_twice_does_not_double_n(tmp_path: Path) -> None:
    table = _two_submitters(tmp_path)
    once = _invoke("compare", str(table), "-f", "json")
    twice = _invoke("compare", str(table), str(table), "-f", "json")
    assert once.exit_code == twice.exit_code == 0
    assert json.loads(twice.stdout) == json.loads(once.stdout)
    assert json.loads(twice.stdout)["groups"][0]["n"] == 2
    assert twice.stderr == "warning: 2 duplicate rows ignored (the round, Location and Submitter of an earlier row)\n"
    assert once.stderr == ""
    # The same result in another table (another file, the tree's spelling of Location) is the same row.
    other = write_table(
        tmp_path / "other.json",
        [table_row(Location="closed/Acme/results/s1/llama2-70b-99/Offline", Performance_Result=1000.0)],
    )
    result = _invoke("compare", str(table), str(other), "-f", "json")
    assert json.loads(result.stdout)["groups"][0]["n"] == 2
    assert result.stderr == "warning: 1 duplicate row ignored (the round, Location and Submitter of an earlier row)\n"


def test_a_reference_submitter_with_no_row_is_a_usage_error(tmp_path: Path) -> None:
    rows = [
        table_row(Submitter=name, Location=f"./closed/{name}/results/s1/llama2-70b-99/Offline")
        for name in ("Acme", "bolt", "Cray", "Dell", "Eon", "Fox", "Gem")
    ]
    table = write_table(tmp_path / "t.json", rows)
    result = _invoke("compare", str(table), "--reference", "submitter:Nobody")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --reference submitter:Nobody: no closed result of submitter Nobody among the selected rows; "
        "their submitters are Acme, bolt, Cray, Dell, Eon, ... (7 in all)\n"
    )
    assert _invoke("compare", str(table), "--reference", "submitter:BOLT").exit_code == 0  # case-blind, as compare


@pytest.mark.parametrize(
    "args, message",
    [
        (["--tolerance", "4"], "--tolerance 4: give a fraction, e.g. 0.04 for 4%"),
        (["--outlier", "10"], "--outlier 10: give a fraction, e.g. 0.1 for 10%"),
        (["--tolerance", "-0.04"], "--tolerance -0.04: give a fraction, e.g. 0.04 for 4%"),
        (["--outlier", "1000"], "--outlier 1000: give a fraction, e.g. 0.04 for 4%"),
    ],
)
def test_compare_takes_fractions_not_percentages(tmp_path: Path, args: list[str], message: str) -> None:
    result = _invoke("compare", str(_two_submitters(tmp_path)), *args)
    assert (result.exit_code, result.stderr) == (2, f"error: {message}\n")
    assert _invoke("compare", str(_two_submitters(tmp_path)), "--tolerance", "1", "--outlier", "0").exit_code == 0


@pytest.mark.parametrize("command", ["reproduce", "rerun"])
def test_reproduce_and_rerun_take_a_fraction(command: str) -> None:
    places = [str(EXAMPLE / OFFLINE)] * (2 if command == "reproduce" else 1)
    result = _invoke(command, *places, *(["--builtin"] if command == "rerun" else []), "--tolerance", "2")
    assert (result.exit_code, result.stderr) == (2, "error: --tolerance 2: give a fraction, e.g. 0.02 for 2%\n")


def test_a_round_file_in_the_configuration_is_relative_to_it(example: Path, tmp_path: Path) -> None:
    import shutil

    from helpers import ROOT

    (tmp_path / "rounds").mkdir()
    shutil.copyfile(ROOT / "rules" / "demo-v6.1.yaml", tmp_path / "rounds" / "demo.yaml")
    _pyproject(tmp_path, '[tool.mlperf-check]\nround = "rounds/demo.yaml"\njobs = 1\n')
    result = _invoke("check", str(example), "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["round"] == "demo-v6.1"


def test_across_rounds_plot_needs_no_matplotlib_and_a_png_is_a_usage_error_before_writing(
    tmp_path: Path, monkeypatch
) -> None:
    """The plots are SVG of the project's own (issue 34): drawn without matplotlib; a .png
    (which needed it) is refused before anything is read or written, saying why."""
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)  # import matplotlib raises ImportError
    old = write_table(tmp_path / "v6.0.json", [table_row()])
    new = write_table(tmp_path / "v6.1.json", [table_row(version="v6.1", Performance_Result=1200.0)])
    out = tmp_path / "across.txt"
    for plot, code in (("p.png", 2), ("p.svg", 0)):
        result = _invoke(
            "compare", str(old), str(new), "--across-rounds", "--plot", str(tmp_path / plot), "-o", str(out),
            "--no-progress",
        )  # fmt: skip
        if code == 2:
            assert (result.exit_code, result.stderr) == (
                2,
                f"error: --plot {tmp_path / plot}: a plot is an .svg file (drawn as SVG, which any browser shows "
                "and converts), not .png\n",
            )
            assert not out.exists()
        else:
            assert result.exit_code == 0, result.output
            assert (tmp_path / plot).read_text().startswith("<?xml")
