"""Reliability of the command line and its outputs (issue 12): never write into the checked
tree, never hang, never pass silently, never end without saying why; strict JSON, atomic
files, and names and log text that cannot break a writer or reach a terminal raw.

Each test names the item of issue 12 it covers. CliRunner runs the commands in process;
exit codes that depend on the interpreter (tracebacks, broken pipes, encodings) are checked
in real subprocesses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import git
import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.registry import RULES
from helpers import (
    EXAMPLE,
    OFFLINE,
    SINGLE,
    SUBMISSION,
    add_mllog,
    set_mllog,
    table_row,
    tree_digest,
    write_table,
)

runner = CliRunner()
SYSTEM = f"{SUBMISSION}/results/cpu-1x-numpy"
HOLDING = "closed/, open/ or network/"


def _strict(text: str):
    """json.loads that refuses NaN, Infinity and -Infinity."""

    def refuse(name: str):
        raise AssertionError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def _cli(*args: str, env: dict | None = None, timeout: float = 60, **options) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    return subprocess.run(
        [sys.executable, "-m", "checker.cli", *args],
        capture_output=True,
        timeout=timeout,
        env={**clean, **(env or {})},
        **options,
    )


def _digest(root: Path) -> str:
    """tree_digest for trees whose names need not be UTF-8: every path as bytes."""
    import hashlib

    digest = hashlib.sha256()
    for folder, dirs, files in os.walk(os.fsencode(root), followlinks=False):
        dirs.sort()
        for name in sorted(dirs + files):
            path = os.path.join(folder, name)
            digest.update(os.path.relpath(path, os.fsencode(root)))
            if os.path.islink(path):
                digest.update(b"->" + os.readlink(path))
            elif os.path.isfile(path):
                with open(path, "rb") as handle:
                    digest.update(handle.read())
    return digest.hexdigest()


# --- 1. rerun never writes into the original ---------------------------------------------
@pytest.fixture
def bare_example(example: Path) -> Path:
    """The example without its system description: the case where rerun deleted 13 of 28 files."""
    (example / SUBMISSION / "systems" / "cpu-1x-numpy.json").unlink()
    return example


@pytest.mark.parametrize(
    "where,relation",
    [
        ("root", "is"),
        ("closed/MLCheckDemo", "is inside"),
        (OFFLINE, "is inside"),
        ("..", "holds"),
        ("link", "is inside"),
    ],
)
def test_rerun_refuses_a_workdir_in_at_or_around_the_tree(bare_example: Path, where: str, relation: str) -> None:
    """Item 1: the work folder is refused before anything is copied or run."""
    (bare_example.parent / "link").symlink_to(bare_example / "closed")
    workdir = {
        "root": str(bare_example),
        "..": str(bare_example.parent),
        "link": str(bare_example.parent / "link" / "new"),
    }.get(where, str(bare_example / where))
    before = tree_digest(bare_example)
    done = runner.invoke(
        app, ["rerun", str(bare_example / OFFLINE), "--builtin", "--round", "demo-v6.1", "--workdir", workdir]
    )
    assert done.exit_code == 2, done.output
    assert done.stderr == (
        f"error: --workdir {workdir} {relation} the original's tree {bare_example}; give a folder "
        "outside it (rerun never writes into the original)\n"
    )
    assert tree_digest(bare_example) == before


def test_rerun_refuses_a_workdir_that_is_not_empty(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "keep.txt").write_text("mine\n")
    done = runner.invoke(
        app, ["rerun", str(EXAMPLE / OFFLINE), "--builtin", "--round", "demo-v6.1", "--workdir", str(workdir)]
    )
    assert done.exit_code == 2
    assert done.stderr == (
        f"error: --workdir {workdir} is not an empty folder; give a new or empty one "
        "(rerun never overwrites or deletes files)\n"
    )
    assert [p.name for p in workdir.iterdir()] == ["keep.txt"]


# --- 3. a tree without results is a usage error ------------------------------------------
@pytest.fixture
def no_results(tmp_path: Path, example: Path) -> dict[str, tuple[Path, str]]:
    """Folders that hold no results, whatever discovery accepts as a root, and the message
    for each."""
    empty = tmp_path / "empty"
    empty.mkdir()
    hollow = tmp_path / "hollow"
    (hollow / "closed" / "Acme" / "systems").mkdir(parents=True)
    system = example / SYSTEM
    return {
        "empty": (empty, f"no results under {empty}: give the folder that holds {HOLDING}"),
        "hollow": (
            hollow,
            f"no results under {hollow}: its closed/ holds no "
            "<submitter>/results/<system>/<benchmark>/<scenario> folder",
        ),
        "system": (
            system,
            f"no results under {system}: give the folder that holds {HOLDING} (here {example}), not a folder inside it",
        ),
    }


@pytest.mark.slow
@pytest.mark.parametrize("case", ["empty", "hollow", "system"])
@pytest.mark.parametrize("command", ["check", "table", "provenance", "compare", "followup"])
def test_no_results_is_a_usage_error_that_names_the_folder(
    no_results: dict, case: str, command: str, tmp_path: Path
) -> None:
    """Item 3: never "0 results" with exit 0."""
    folder, message = no_results[case]
    before = tree_digest(folder)
    args = {
        "followup": [
            "followup",
            "--previous",
            str(folder),
            "--current",
            str(EXAMPLE),
            "--previous-round",
            "demo-v6.1",
            "--current-round",
            "demo-v6.1",
        ]
    }.get(command, [command, str(folder), "--round", "demo-v6.1"])
    done = runner.invoke(app, args + (["-j", "1"] if command in ("check", "table") else []))
    if (command, case) == ("check", "system"):  # issue 24: check takes a system folder, and checks its results
        assert done.exit_code == 0, done.output
        assert done.stderr.splitlines()[-1] == "1 path given; checked 2 results"
        assert tree_digest(folder) == before
        return
    if case == "system":  # issue 30: every command reads a path as check does: the system's 2 results
        if command == "followup":  # read, then refused for what they are: both of one round
            message = (
                "--previous and --current are both round demo-v6.1; a preview result is followed up in a later round"
            )
        else:
            assert done.exit_code == 0, done.output
            assert tree_digest(folder) == before
            return
    assert done.exit_code == 2, done.output
    assert done.stderr.splitlines()[-1] == f"error: {message}"
    assert done.stdout == ""
    assert tree_digest(folder) == before


def test_no_results_holds_whatever_discovery_returns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 3, in the CLI layer: a check that returns no results ends with exit 2, even for the
    right folder (here discovery is made to find nothing)."""
    import checker.engine as engine  # the CLI imports engine.check when a command runs
    from checker.scope import Scope

    real = engine.check
    nothing = Scope(results=frozenset())  # a scope that names no result: the check finds none
    monkeypatch.setattr(engine, "check", lambda *a, **k: real(str(EXAMPLE), "demo-v6.1", jobs=1, scope=nothing))
    done = runner.invoke(app, ["check", str(EXAMPLE), "--round", "demo-v6.1"])
    assert done.exit_code == 2
    assert done.stderr == (
        f"error: no results under {EXAMPLE}: its closed/ holds no "
        "<submitter>/results/<system>/<benchmark>/<scenario> folder\n"
    )


# --- 5. every JSON output is strict -----------------------------------------------------
def test_check_json_of_a_nan_metric_is_strict(example: Path, tmp_path: Path) -> None:
    """Item 5: a NaN metric in a log is a finding (FIL012: not of its declared type), the
    result has no metric, and the JSON is strict: nothing non-finite is written."""
    log = example / OFFLINE / "performance" / "run_1" / "mlperf_log_detail.txt"
    set_mllog(log, "result_samples_per_second", float("nan"))
    out = tmp_path / "out.json"
    done = runner.invoke(app, ["check", str(example), "--round", "demo-v6.1", "-j", "1", "-f", "json", "-o", str(out)])
    assert done.exit_code == 1
    data = _strict(out.read_text())
    assert "metric" not in data["results"][0] and data["results"][0]["valid"] is False
    assert [(f["code"], f["pointer"]) for f in data["findings"]] == [("FIL012", "result_samples_per_second")]
    assert "result_samples_per_second is NaN, not a number from 0" in data["findings"][0]["message"]
    assert "non-finite" not in done.stderr


def test_compare_refuses_numbers_that_overflow_its_arithmetic(tmp_path: Path) -> None:
    """Item 5, then issue 22: a result near the float limit (the mean of two is inf) breaks its
    column's declared range; the row is left out with a warning naming it, never computed with."""
    table = write_table(
        tmp_path / "t.json",
        [table_row(Performance_Result=1.7e308), table_row(Submitter="Other", Performance_Result=1.6e308)],
    )
    done = runner.invoke(app, ["compare", str(table), "-f", "json"])
    assert done.exit_code == 2, done.output  # issue 33: every row left out, nothing measured
    assert done.stdout == ""
    assert done.stderr == (
        f"warning: {table}: row 1: Performance_Result is 1.7e+308, not a positive number of at most 1e+12; "
        "the row is left out\n"
        f"warning: {table}: row 2: Performance_Result is 1.6e+308, not a positive number of at most 1e+12; "
        "the row is left out\n"
        f"warning: {table}: every row is left out (2 rows)\n"
        f"error: {table}: no result rows to compare: nothing measured there\n"
    )


def test_every_json_writer_is_strict(capsys: pytest.CaptureFixture) -> None:
    """Item 5: table, followup and reproduce JSON too."""
    from checker.analysis import followup
    from checker.commands import reproduce
    from checker.commands.table import TableFormat, dumps
    from checker.reporters import json_text
    from checker.rounds import load_round

    nan = float("nan")
    fmt = TableFormat.of(load_round("v6.0"))
    outcome = followup.Outcome("loc", "m", "Offline", nan, "Tokens/s", "followed", delta=float("inf"))
    texts = [
        dumps([{"Performance_Result": nan}], fmt),
        json_text([{"x": float("-inf")}]),
        json_text(followup.document(followup.Followup(0.02, [outcome]))),
        json_text(reproduce.document(reproduce.Reproduction("a", "b", nan, {}, False, []))),
    ]
    for text in texts:
        _strict(text)
    assert capsys.readouterr().err.splitlines() == [
        "warning: 1 non-finite number(s) written as null (JSON has no NaN or Infinity): /0/Performance_Result",
        "warning: 1 non-finite number(s) written as null (JSON has no NaN or Infinity): /0/x",
        "warning: 2 non-finite number(s) written as null (JSON has no NaN or Infinity): /results/0/previous, "
        "/results/0/delta",
        "warning: 1 non-finite number(s) written as null (JSON has no NaN or Infinity): /deviation",
    ]


# --- 8 and 11. names that are not UTF-8, and escape sequences ------------------------------
def _with_system(example: Path, name: bytes) -> str:
    """The example with a copy of its system's results under another (raw bytes) name."""
    base = os.fsencode(example / SUBMISSION / "results")
    shutil.copytree(base + b"/cpu-1x-numpy", base + b"/" + name)
    return os.fsdecode(name)


@pytest.mark.slow
def test_every_writer_escapes_names_that_are_not_utf8(example: Path, tmp_path: Path) -> None:
    """Item 8: CSV and JUnit crashed (exit 3, a partial file); every writer escapes the byte."""
    _with_system(example, b"cpu-\xff")
    summary = tmp_path / "summary.md"
    files = {name: tmp_path / f"out.{name}" for name in ("json", "csv", "sarif", "junit", "github")}
    formats = [part for name, path in files.items() for part in ("--format", f"{name}:{path}")]
    before = _digest(example)
    done = _cli(
        "check",
        str(example),
        "--round",
        "demo-v6.1",
        "-j",
        "1",
        "--format",
        "text",
        *formats,
        env={"GITHUB_STEP_SUMMARY": str(summary)},
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr
    shown = f"{SUBMISSION}/results/cpu-\\xff/demo-mlp-99/Offline"
    assert f"{shown}  INVALID  522.247 Samples/s".encode() in done.stdout.splitlines()
    for path in [*files.values(), summary]:
        data = path.read_bytes()
        data.decode("utf-8")  # no byte a UTF-8 file cannot hold
        assert b"cpu-\\xff" in data.replace(b"\\\\", b"\\"), path
    results = _strict(files["json"].read_text())["results"]
    assert [r["location"] for r in results][2:] == [
        f"{SUBMISSION}/results/cpu-\\xff/demo-mlp-99/Offline",
        f"{SUBMISSION}/results/cpu-\\xff/demo-mlp-99/SingleStream",
    ]
    _strict(files["sarif"].read_text())
    assert ET.parse(files["junit"]).getroot().find("testsuite").get("name") == SUBMISSION
    # Invalid through its missing system description (FIL001), which caused_by names.
    assert (
        f"{shown},False" + "," * 12 + f"FIL001 {SUBMISSION}/systems/cpu-\\xff.json"
        in files["csv"].read_text().splitlines()
    )
    assert _digest(example) == before


def test_escape_sequences_are_shown_not_sent_in_text_and_github(example: Path, tmp_path: Path) -> None:
    """Item 11: a folder name and a log value with terminal escapes reach people visible."""
    name = _with_system(example, b"cpu-\x1b[31mred")
    log = (
        example / SUBMISSION / "results" / name / "demo-mlp-99" / "Offline" / "performance/run_1/mlperf_log_detail.txt"
    )
    set_mllog(log, "num_errors", 1)
    add_mllog(log, "error_runtime", "\x1b]0;pwned\x07\x1b[2Jbad", is_error=True)
    summary = tmp_path / "summary.md"
    shown = f"{SUBMISSION}/results/cpu-\\x1b[31mred/demo-mlp-99/Offline"
    text = runner.invoke(app, ["check", str(example), "--round", "demo-v6.1", "-j", "1"])
    github = runner.invoke(
        app,
        ["check", str(example), "--round", "demo-v6.1", "-j", "1", "-f", "github"],
        env={"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_WORKSPACE": str(example)},
    )
    for output in (text.output, github.output, summary.read_text()):
        assert "\x1b" not in output and "\x07" not in output
    assert f"{shown}  INVALID  522.247 Samples/s" in text.stdout.splitlines()
    assert (
        f"  warning PRF012 {shown}/performance/run_1/mlperf_log_detail.txt:91:44: loadgen error "
        "error_runtime: \\x1b]0;pwned\\x07\\x1b[2Jbad (a warning: the round's checker fails performance logs on "
        "loadgen errors only with --submission-exceptions)"
    ) in text.stdout.splitlines()
    assert (
        f"::warning file={shown}/performance/run_1/mlperf_log_detail.txt,line=91,col=44,title=PRF012 loadgen-errors::"
        "loadgen error error_runtime: \\x1b]0;pwned\\x07\\x1b[2Jbad (a warning: the round's checker fails "
        "performance logs on loadgen errors only with --submission-exceptions)%0Ahelp: "
        + RULES["PRF012"].sections["Fix"]
    ) in github.stdout.splitlines()
    assert (
        "| `results/cpu-\\x1b[31mred/demo-mlp-99/Offline` | **invalid** | FIL001 (`systems/cpu-\\x1b[31mred.json`) "
        "| PRF012 |\n"
    ) in summary.read_text()


def test_usage_errors_show_what_they_name(tmp_path: Path) -> None:
    """Items 11 and 13: a path with an escape sequence or rich markup is shown as written."""
    for name, shown in (("x\x1b[2Jy", "x\\x1b[2Jy"), ("nope[/]", "nope[/]"), ("[bold]b", "[bold]b")):
        done = runner.invoke(app, ["check", str(tmp_path / name)])
        assert (done.exit_code, done.stderr) == (2, f"error: {tmp_path}/{shown}: no such file or folder\n")


# --- 9. malformed compare and followup input ---------------------------------------------
@pytest.mark.parametrize(
    "rows,message",
    [
        ([table_row(Model=["x"])], "row 1: Model is a list, not a name"),
        ([table_row(), table_row(Scenario={"a": 1})], "row 2: Scenario is an object, not a name"),
        (
            [table_row(Performance_Result="fast")],
            "row 1: Performance_Result is 'fast', not a positive number of at most 1e+12",
        ),
        (
            [table_row(Performance_Result=float("nan"))],
            "row 1: Performance_Result is NaN, not a positive number of at most 1e+12",
        ),
        ([table_row(**{"a#": 1e400})], "row 1: a# is Infinity, not a whole number from 0 to 100000"),
        ([table_row(Nodes="many")], "row 1: Nodes is 'many', not a whole number from 1 to 100000"),
        ([table_row(Performance_Units=None)], "row 1: no Performance_Units"),
    ],
)
def test_a_malformed_compare_row_is_left_out_with_a_warning(tmp_path: Path, rows: list, message: str) -> None:
    """Item 9, then issue 22: the row is named (file, row, column) and left out; the others
    are compared (a list value gave exit 3, then a usage error that hid every other row)."""
    table = write_table(tmp_path / "t.json", rows)
    done = runner.invoke(
        app,
        ["compare", str(table), str(write_table(tmp_path / "ok.json", [table_row(Submitter="Other")])), "-f", "json"],
    )
    assert done.exit_code == 0
    warnings = [f"warning: {table}: {message}; the row is left out"]
    if len(rows) == 1:
        warnings.append(f"warning: {table}: every row is left out (1 row)")
    assert done.stderr.splitlines() == warnings
    assert [g["n"] for g in json.loads(done.stdout)["groups"]] == ([2] if len(rows) == 2 else [])


@pytest.mark.parametrize(
    "rows,message",
    [
        ([[1]], "error: {table}: row 1 is a list, not an object of keys and values\n"),
        (
            [],
            "warning: {table}: the table holds no rows\nerror: {table}: no result rows to compare: nothing measured there\n",
        ),
    ],
)
def test_a_table_that_is_not_one_is_a_usage_error_and_an_empty_one_a_warning(
    tmp_path: Path, rows: list, message: str
) -> None:
    table = write_table(tmp_path / "t.json", rows)
    done = runner.invoke(app, ["compare", str(table)])
    assert (done.exit_code, done.stderr) == (2, message.format(table=table))  # issue 33: an empty one is no verdict


@pytest.mark.slow
def test_malformed_compare_csv_and_json_in_a_real_process(tmp_path: Path) -> None:
    """Item 9: a ragged CSV and an unhashable value gave exit 3."""
    ragged = tmp_path / "t.csv"
    ragged.write_text("Submitter,Model,Performance_Result,Category\nA,B,1,closed,extra,more\n")
    done = _cli("compare", str(ragged), text=True)
    assert (done.returncode, done.stderr) == (2, f"error: {ragged}: line 2: 6 cells, but the header has 4\n")
    listed = write_table(tmp_path / "l.json", [table_row(Model=["x"])])
    done = _cli("compare", str(listed), text=True)
    assert (done.returncode, done.stderr) == (
        2,  # issue 33: every row left out, nothing measured
        f"warning: {listed}: row 1: Model is a list, not a name; the row is left out\n"
        f"warning: {listed}: every row is left out (1 row)\n"
        f"error: {listed}: no result rows to compare: nothing measured there\n",
    )


def test_followup_round_names_are_checked(tmp_path: Path) -> None:
    """Item 9: unknown and mismatched round names are usage errors naming the file and row."""
    previous = write_table(tmp_path / "prev.json", [table_row(Availability="preview", version="v5.1")])
    current = write_table(tmp_path / "cur.json", [table_row()])
    unknown = write_table(tmp_path / "v99.json", [table_row(), table_row(version="v9.9")])
    mixed = write_table(tmp_path / "mixed.json", [table_row(), table_row(version="v5.1")])
    cases = [
        ([], 0, None),
        (
            ["--current-round", "v9.9"],
            2,
            "--current-round: unknown round 'v9.9'; known rounds: v5.1, v6.0, demo-v6.1, v6.1",
        ),
        (["--previous-round", "v6.0"], 2, f"{previous}: row 1: version v5.1, but --previous-round is v6.0"),
        (["--current", str(unknown)], 2, f"{unknown}: row 2: version v9.9, but row 1 is v6.0; a table holds one round"),
        (["--current", str(mixed)], 2, f"{mixed}: row 2: version v5.1, but row 1 is v6.0; a table holds one round"),
        (
            ["--current", str(write_table(tmp_path / "u.json", [table_row(version="v9.9")]))],
            2,
            f"{tmp_path / 'u.json'}: row 1: version 'v9.9' is not a round this version knows (v5.1, v6.0, demo-v6.1, "
            "v6.1)",
        ),
        (
            ["--current", str(previous)],
            2,
            "--previous and --current are both round v5.1; a preview result is followed up in a later round",
        ),
        (
            ["--previous", str(current), "--current", str(previous)],
            2,
            "--previous is round v6.0 (seed release 2026-01-13) and --current is round v5.1 (2025-06-18); a preview "
            "result is followed up in a later round",
        ),
    ]
    for extra, code, message in cases:
        given = {"--previous": str(previous), "--current": str(current)} | dict(
            zip(extra[::2], extra[1::2], strict=True)
        )
        args = ["followup", *(part for pair in given.items() for part in pair)]  # each option once
        done = runner.invoke(app, args)
        assert done.exit_code == code, (extra, done.output)
        if message:
            assert done.stderr == f"error: {message}\n", extra


# --- 10. rerun --command: a time limit, and copied logs -----------------------------------
@pytest.mark.slow
def test_rerun_command_is_killed_with_its_process_group_on_timeout(tmp_path: Path) -> None:
    """Item 10: a harness that never ends is stopped (with what it started) and rerun says so."""
    pids = tmp_path / "pids"
    command = f'sleep 120 & echo $! > "{pids}"; echo $$ >> "{pids}"; echo started; wait'
    done = _cli(  # a hang fails at the subprocess's timeout, not at a measured time
        "rerun",
        str(EXAMPLE / SINGLE),
        "--round",
        "demo-v6.1",
        "--workdir",
        str(tmp_path / "w"),
        "--command",
        command,
        "--timeout",
        "1",
        text=True,
        timeout=30,
    )
    copy = tmp_path / "w" / SINGLE
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "  | started",
        f"error: the command ran longer than --timeout 1 s; its whole process group was killed; what it wrote is in "
        f"{copy}",
    ]
    assert not any(_alive(int(pid)) for pid in pids.read_text().split())


def _alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for its reaper does not)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def test_reproduce_of_copied_logs_is_not_a_reproduction(tmp_path: Path) -> None:
    """Item 10: byte-identical performance logs were copied: exit 1, "not a reproduction"."""
    copy = tmp_path / "copy"
    shutil.copytree(EXAMPLE, copy)
    done = runner.invoke(app, ["reproduce", str(EXAMPLE / OFFLINE), str(copy / OFFLINE), "--round", "demo-v6.1"])
    assert done.exit_code == 1
    assert done.stdout.splitlines()[-1] == (
        "verdict: not a reproduction: performance/run_1/mlperf_log_detail.txt, performance/run_1/mlperf_log_summary.txt "
        "are byte-identical to the original's (copied logs, not a new run)"
    )
    assert tree_digest(copy) == tree_digest(EXAMPLE)


def test_rerun_timeout_must_be_positive() -> None:
    done = runner.invoke(app, ["rerun", str(EXAMPLE / OFFLINE), "--command", "true", "--timeout", "0"])
    assert (done.exit_code, done.stderr) == (2, "error: --timeout 0: give a number of seconds above 0\n")


# --- 12. output files --------------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ["check", str(EXAMPLE), "--round", "demo-v6.1"],
        ["table", str(EXAMPLE), "--round", "demo-v6.1"],
        ["provenance", str(EXAMPLE), "--round", "demo-v6.1"],
        ["reproduce", str(EXAMPLE / OFFLINE), str(EXAMPLE / OFFLINE)],
        ["compare", str(EXAMPLE), "--round", "demo-v6.1"],
        ["followup", "--previous", str(EXAMPLE), "--current", str(EXAMPLE)],
    ],
)
def test_output_into_a_missing_folder_is_a_usage_error_before_any_work(tmp_path: Path, args: list[str]) -> None:
    """Item 12: exit 2 with one line (it was exit 3 after the whole check)."""
    target = tmp_path / "missing" / "out.json"
    done = runner.invoke(app, [*args, "-o", str(target)])
    assert (done.exit_code, done.stderr) == (2, f"error: -o {target}: the folder {target.parent} does not exist\n")
    assert not target.parent.exists()


def test_output_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 12: a writer that fails halfway leaves the previous file as it was, and no temp file."""
    from checker.reporters import CHECK

    out = tmp_path / "out.json"
    out.write_text("the previous report\n")

    def half(report, handle) -> None:
        handle.write('{"half": ')
        raise RuntimeError("disk on fire")

    mode = out.stat().st_mode
    monkeypatch.setitem(CHECK.writers, "json", half)
    done = runner.invoke(app, ["check", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1", "-o", str(out)])
    assert done.exit_code == 3
    assert done.stderr.splitlines()[-1] == (
        "internal error: RuntimeError: disk on fire (a bug: please report it with "
        "the command line; findings about the input are never this error)"
    )
    assert out.read_text() == "the previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    monkeypatch.undo()
    done = runner.invoke(app, ["check", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1", "-o", str(out)])
    assert done.exit_code == 0
    assert _strict(out.read_text())["summary"]["results"] == 2
    assert out.stat().st_mode == mode  # the replaced file's permissions


# --- 13. every exit says why ---------------------------------------------------------------
@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A small repository with a loadgen/ folder."""
    root = tmp_path_factory.mktemp("inference") / "inference"
    repo = git.Repo.init(root, initial_branch="master")
    (root / "loadgen").mkdir()
    (root / "loadgen" / "loadgen.cc").write_text("int v = 1;\n")
    repo.index.add([str(root / "loadgen" / "loadgen.cc")])
    repo.index.commit("loadgen")
    return root


def test_a_clone_git_cannot_read_is_a_one_line_usage_error(clone: Path, tmp_path: Path) -> None:
    """Item 13: gitpython opens a repository of an unknown format, git refuses it; on the v6.0
    slice this ended with exit 1 and no output at all (a broken pipe to git cat-file)."""
    bare = tmp_path / "inference.git"
    git.Repo(clone).clone(str(bare), bare=True)
    (bare / "config").write_text("[core]\n\trepositoryformatversion = 9\n\tbare = true\n")
    done = runner.invoke(app, ["provenance", str(EXAMPLE), "--round", "demo-v6.1", "--inference-repo", str(bare)])
    assert (done.exit_code, done.stderr) == (
        2,
        f"error: --inference-repo {bare} is not a readable git repository: "
        "fatal: Expected git repo version <= 1, found 9\n",
    )
    assert done.stdout == ""


def test_a_folder_inside_a_clone_falls_back_to_the_git_command_line(clone: Path) -> None:
    """Item 13: gitpython cannot open clone/loadgen; git finds its repository."""
    done = runner.invoke(
        app,
        ["provenance", str(EXAMPLE), "--round", "demo-v6.1", "-f", "json", "--inference-repo", str(clone / "loadgen")],
    )
    # git found the repository and read it: the clone lacks the round's seed release, so no
    # verdict (issue 33), not "unknown-commit" for every result
    assert done.exit_code == 2, done.output
    assert "the clone does not hold round demo-v6.1's seed release b066279436" in done.stderr


BOOM = (
    "import checker.cli as c, checker.commands.catalogue as r; "
    "r.bundled = lambda: (_ for _ in ()).throw({error}); c.main()"
)


@pytest.mark.slow
@pytest.mark.parametrize(
    "error,line",
    [
        ("RuntimeError('boom\\nsecond line')", "internal error: RuntimeError: boom second line"),
        ("BrokenPipeError(32, 'Broken pipe')", "internal error: BrokenPipeError: [Errno 32] Broken pipe"),
    ],
)
def test_an_unexpected_exception_is_one_line_and_exit_3(error: str, line: str) -> None:
    """Item 13: typer turned any broken pipe (a git process's too) into exit 1 without a word."""
    done = subprocess.run(
        [sys.executable, "-c", BOOM.format(error=error), "rounds"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (3, "")
    assert done.stderr == (
        f"{line} (a bug: please report it with the command line; findings about the input are never this error)\n"
    )


@pytest.mark.slow
def test_a_closed_stdout_ends_quietly() -> None:
    """Item 13: `| head` is no error; as a process ended by SIGPIPE (141), without a word."""
    process = subprocess.Popen(
        [sys.executable, "-m", "checker.cli", "rules"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    process.stdout.close()
    error = process.stderr.read()
    assert (process.wait(timeout=60), error) == (141, b"")
