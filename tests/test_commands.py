"""Each command is `run(invocation(CommandLine(...)))`, without typer (issue 23, "A thin CLI"):
the same invocation the command line builds, the exact exit code and the exact output."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from checker.commands import check, common, compare, table
from checker.settings import Settings, UsageError
from helpers import EXAMPLE, OFFLINE, SINGLE

CHECK = dict(round="demo-v6.1", jobs=1, progress=False)


def _check(capsys: pytest.CaptureFixture[str], *paths: Path, **options: object) -> tuple[int, str, str]:
    code = check.run(check.invocation(check.CommandLine(paths=[str(p) for p in paths], **{**CHECK, **options})))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_of_a_clean_tree_is_0_with_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _check(capsys, EXAMPLE, format=["json"])
    assert code == 0
    data = json.loads(out)
    assert data["summary"] == {
        "results": 2,
        "valid": 2,
        "invalid": 0,
        "findings": {"error": 0, "warning": 0, "note": 0},
    }
    assert [r["location"] for r in data["results"]] == [OFFLINE, SINGLE]
    assert err.splitlines()[-1:] == [
        "mlperf-check, round demo-v6.1: 2 results, 2 valid, 0 invalid; 0 errors, 0 warnings, 0 notes"
    ]


def test_check_with_an_error_is_1_and_exit_zero_makes_it_0(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (example / OFFLINE / "accuracy" / "accuracy.txt").write_text("accuracy=10.000%\nhash=00\n")
    code, out, _ = _check(capsys, example, format=["csv"])
    assert code == 1
    rows = list(csv.DictReader(io.StringIO(out)))
    assert sorted({(r["code"], r["severity"]) for r in rows if r["code"]}) == [("ACC002", "error")]
    assert _check(capsys, example, format=["csv"], exit_zero=True)[0] == 0


def test_check_usage_errors_are_raised_before_any_work(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(
        UsageError, match=r"^--color sometimes: unknown color; no close name; choose `auto`, `always` or `never`$"
    ):
        check.invocation(check.CommandLine(paths=[str(EXAMPLE)], color="sometimes"))
    with pytest.raises(UsageError, match=r"^--select XYZ: unknown code, prefix or rule name"):
        check.invocation(check.CommandLine(paths=[str(EXAMPLE)], select=["XYZ"], **CHECK))
    # through the one call the command line makes: one line on stderr, exit 2
    assert common.call("check", {"paths": [str(EXAMPLE)], "color": "sometimes"}) == 2
    assert capsys.readouterr() == (
        "",
        "error: --color sometimes: unknown color; no close name; choose `auto`, `always` or `never`\n",
    )


def test_the_check_invocation_merges_the_configuration(example: Path, tmp_path: Path) -> None:
    (example / "pyproject.toml").write_text('[tool.mlperf-check]\nround = "demo-v6.1"\nselect = ["RNG"]\njobs = 1\n')
    invoked = check.invocation(check.CommandLine(paths=[str(example)], jobs=2, progress=False, quiet=True))
    assert invoked.settings == Settings(
        round="demo-v6.1", select=("RNG",), jobs=2, config=invoked.settings.config, taken=True
    )
    assert (invoked.round_name, invoked.outputs) == ("demo-v6.1", (("text", None),))


def _table(capsys: pytest.CaptureFixture[str], **options: object) -> tuple[int, str, str]:
    code = table.run(table.invocation(table.CommandLine(path=str(EXAMPLE), **{**CHECK, **options})))
    out, err = capsys.readouterr()
    return code, out, err


def test_table_writes_the_rounds_rows(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _table(capsys, format="csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["Organization"], r["Scenario"], r["Result"], r["Units"]) for r in rows] == [
        ("MLCheckDemo", "Offline", "522.247", "Samples/s"),
        ("MLCheckDemo", "SingleStream", "2.418581", "Latency (ms)"),
    ]
    assert err == (
        "2 rows in the demo-v6.1 table format (summary.json); 0 invalid results left out "
        "(`mlperf-check check` says why)\n"
    )
    with pytest.raises(UsageError, match=r"^--publish-base and --first-id go together$"):
        table.invocation(table.CommandLine(path=str(EXAMPLE), publish_base="https://x", **CHECK))


def test_compare_of_two_submitters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The example's table, and the same results of a second submitter 10% faster."""
    code, out, _ = _table(capsys, format="csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    other = [
        {**row, "Organization": "Other", "Location": row["Location"].replace("MLCheckDemo", "Other")}
        | {"Result": str(float(row["Result"]) * (1.1 if row["Units"] == "Samples/s" else 1 / 1.1))}
        for row in rows
    ]
    path = tmp_path / "both.csv"
    with path.open("w", newline="") as out_file:
        writer = csv.DictWriter(out_file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows + other)
    line = compare.CommandLine(inputs=[str(path)], format="json", progress=False)
    assert compare.run(compare.invocation(line)) == 0
    found = json.loads(capsys.readouterr().out)
    assert [
        (g["scenario"], [(m["Submitter"], round(m["deviation"], 4)) for m in g["members"]]) for g in found["groups"]
    ] == [
        ("Offline", [("MLCheckDemo", -0.0476), ("Other", 0.0476)]),
        ("SingleStream", [("MLCheckDemo", -0.0476), ("Other", 0.0476)]),
    ]
    with pytest.raises(UsageError, match=r"^--tolerance 4: give a fraction, e.g. 0.04 for 4%$"):
        compare.invocation(compare.CommandLine(inputs=[str(path)], tolerance=4))
    with pytest.raises(UsageError, match=r"^--scaling-across-submitters goes with --across-rounds$"):
        compare.invocation(compare.CommandLine(inputs=[str(path)], scaling_across_submitters=True))
    assert os.listdir(tmp_path) == ["both.csv"]  # nothing written beside it


def test_every_command_line_is_declared_once_in_typer_and_once_as_its_dataclass() -> None:
    """cli.py declares a command's options; the command's CommandLine holds the same names, so
    the command line, a test and the Python API build the same invocation."""
    import dataclasses
    import importlib
    import inspect

    from checker.cli import app

    for info in app.registered_commands:
        name = info.name or info.callback.__name__
        if name == "version":
            continue
        module = importlib.import_module(f"checker.commands.{name}")
        declared = list(inspect.signature(info.callback).parameters)
        assert [f.name for f in dataclasses.fields(module.CommandLine)] == declared, name
        assert callable(module.invocation) and callable(module.run), name
