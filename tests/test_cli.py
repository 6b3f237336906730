"""The command line, through typer's CliRunner, plus one real subprocess run."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from checker.cli import app
from helpers import EXAMPLE, OFFLINE, SINGLE, tree_digest

runner = CliRunner()


def _schema() -> dict:
    return json.loads(resources.files("checker.schemas").joinpath("findings.schema.json").read_text())


def test_check_example_exits_0_with_text() -> None:
    result = runner.invoke(app, ["check", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert result.output.endswith("2 results, 2 valid, 0 invalid; 0 errors, 0 warnings, 0 notes\n")
    shown = runner.invoke(app, ["check", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1", "--show-valid"])
    assert f"{OFFLINE}  valid" in shown.output
    assert f"{SINGLE}  valid" in shown.output


def test_json_output_matches_its_schema(example: Path, tmp_path: Path) -> None:
    (example / OFFLINE / "performance" / "run_1" / "mlperf_log_detail.txt").unlink()
    out = tmp_path / "out.json"
    result = runner.invoke(
        app, ["check", str(example), "--round", "demo-v6.1", "-f", "json", "-o", str(out), "-j", "1"]
    )
    assert result.exit_code == 1
    data = json.loads(out.read_text())
    jsonschema.Draft202012Validator(_schema()).validate(data)
    assert data["round"] == "demo-v6.1"
    assert [(r["location"], r["valid"]) for r in data["results"]] == [(OFFLINE, False), (SINGLE, True)]
    assert [(f["code"], f["location"]) for f in data["findings"]] == [("FIL001", OFFLINE)]
    assert data["findings"][0]["name"] == "required-file-missing"


def test_csv_lists_findings_then_clean_results(example: Path) -> None:
    (example / OFFLINE / "user.conf").write_text("*.Offline.schedule_rng_seed = 5\n")
    result = runner.invoke(app, ["check", str(example), "--round", "demo-v6.1", "-f", "csv", "-j", "1"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("location,valid,code,name,severity,path")
    assert lines[1].startswith(f"{OFFLINE},True,RNG003,seeds-in-user-conf,warning,{OFFLINE}/user.conf")
    assert lines[2] == f"{SINGLE},True" + "," * 12


def test_several_formats_in_one_run(example: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "check",
            str(example),
            "--round",
            "demo-v6.1",
            "-j",
            "1",
            "-f",
            f"json:{tmp_path / 'a.json'}",
            "-f",
            f"csv:{tmp_path / 'a.csv'}",
        ],
    )
    assert result.exit_code == 0
    assert json.loads((tmp_path / "a.json").read_text())["summary"]["valid"] == 2
    assert (tmp_path / "a.csv").read_text().count("\n") == 3


def test_unknown_round_is_a_usage_error() -> None:
    result = runner.invoke(app, ["check", str(EXAMPLE), "--round", "v9.9"])
    assert result.exit_code == 2
    assert "unknown round 'v9.9'" in result.output


def test_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["check", str(tmp_path / "nope")])
    assert result.exit_code == 2


def test_waiver_needs_a_reason(tmp_path: Path) -> None:
    waivers = tmp_path / "w.yaml"
    waivers.write_text("waivers:\n  - code: FIL001\n")
    result = runner.invoke(app, ["check", str(EXAMPLE), "--round", "demo-v6.1", "--waivers", str(waivers)])
    assert result.exit_code == 2
    assert "has no `reason`" in result.output


def test_waived_error_keeps_the_result_valid(example: Path, tmp_path: Path) -> None:
    (example / OFFLINE / "performance" / "run_1" / "mlperf_log_detail.txt").unlink()
    waivers = tmp_path / "w.yaml"
    waivers.write_text(
        f"waivers:\n  - code: FIL001\n    path: '{OFFLINE}/*'\n    reason: Re-uploaded after the deadline\n"
    )
    out = tmp_path / "out.json"
    result = runner.invoke(
        app,
        [
            "check",
            str(example),
            "--round",
            "demo-v6.1",
            "--waivers",
            str(waivers),
            "-f",
            "json",
            "-o",
            str(out),
            "-j",
            "1",
        ],
    )
    assert result.exit_code == 0
    data = json.loads(out.read_text())
    assert [(f["code"], f["waived"]) for f in data["findings"]] == [("FIL001", "Re-uploaded after the deadline")]
    assert all(r["valid"] for r in data["results"])


def test_unused_waiver_is_a_note(tmp_path: Path) -> None:
    waivers = tmp_path / "w.yaml"
    waivers.write_text("waivers:\n  - code: PRF\n    reason: not needed any more\n")
    out = tmp_path / "out.json"
    result = runner.invoke(
        app,
        [
            "check",
            str(EXAMPLE),
            "--round",
            "demo-v6.1",
            "--waivers",
            str(waivers),
            "-f",
            "json",
            "-o",
            str(out),
            "-j",
            "1",
        ],
    )
    assert result.exit_code == 0
    findings = json.loads(out.read_text())["findings"]
    assert [(f["code"], f["severity"], f["path"]) for f in findings] == [("WVR001", "note", str(waivers))]


def test_rules_lists_every_code() -> None:
    result = runner.invoke(app, ["rules"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert any(line.startswith("FIL001  required-file-missing") for line in lines)
    assert any(line.startswith("RNG001  round-seeds") for line in lines)


def test_explain_prints_why_fix_policy() -> None:
    result = runner.invoke(app, ["explain", "rng001"])
    assert result.exit_code == 0
    assert result.stdout.startswith("RNG001 round-seeds (error, result)")
    for part in ("Why:", "Fix:", "Policy:"):
        assert part in result.stdout
    assert runner.invoke(app, ["explain", "XYZ123"]).exit_code == 2


@pytest.mark.slow
def test_real_subprocess_run_leaves_the_tree_untouched(tmp_path: Path) -> None:
    before = tree_digest(EXAMPLE)
    out = tmp_path / "out.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "checker.cli",
            "check",
            str(EXAMPLE),
            "--round",
            "demo-v6.1",
            "-f",
            "json",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["summary"] == {
        "results": 2,
        "valid": 2,
        "invalid": 0,
        "findings": {"error": 0, "warning": 0, "note": 0},
    }
    assert "mlperf-check, round demo-v6.1" in done.stderr
    assert tree_digest(EXAMPLE) == before


def test_output_extension_picks_the_format_when_none_is_given(example: Path, tmp_path: Path) -> None:
    (example / OFFLINE / "accuracy" / "accuracy.txt").write_text("accuracy=10.000%\nhash=00\n")
    for name, check in (
        ("out.json", lambda t: json.loads(t)["summary"]["invalid"] == 1),
        ("out.sarif", lambda t: json.loads(t)["version"] == "2.1.0"),
        ("out.xml", lambda t: t.startswith('<?xml version="1.0"')),
        ("out.txt", lambda t: f"{OFFLINE}  INVALID" in t),
        ("out", lambda t: f"{OFFLINE}  INVALID" in t),
    ):  # no extension: auto (text)
        out = tmp_path / name
        result = runner.invoke(app, ["check", str(example), "--round", "demo-v6.1", "-o", str(out), "-j", "1"])
        assert result.exit_code == 1, name
        assert check(out.read_text()), name
    # .md names a format check does not write, .log none: a usage error, never text in either
    for name, said in (
        ("out.md", ".md names the markdown format, which this command does not write"),
        ("out.log", ".log names no format; give --format"),
    ):
        result = runner.invoke(app, ["check", str(example), "--round", "demo-v6.1", "-o", str(tmp_path / name)])
        assert result.exit_code == 2 and not (tmp_path / name).exists()
        assert "error: -o " in result.stderr and said in result.stderr


@pytest.mark.real
@pytest.mark.full
def test_real_slice_json_via_output_extension(real: Path, tmp_path: Path) -> None:
    """The smoke run: `check $MLPERF_CHECK_REAL/v5.1 --round v5.1 -o FILE.json` writes strict JSON."""
    out = tmp_path / "real.json"
    done = subprocess.run(
        [sys.executable, "-m", "checker.cli", "check", str(real), "--round", "v5.1", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    data = json.loads(out.read_text(), parse_constant=lambda name: pytest.fail(f"non-standard JSON {name}"))
    assert (data["summary"]["results"], data["summary"]["valid"]) == (137, 131)


def test_non_finite_numbers_are_written_as_null_with_a_warning() -> None:
    from checker.reporters.common import strict_json

    said: list[str] = []
    text = strict_json({"a": [float("inf"), 1.5, {"b": float("nan")}]}, said.append)
    assert text == '{"a": [null, 1.5, {"b": null}]}'
    assert said == ["2 non-finite number(s) written as null (JSON has no NaN or Infinity): /a/0, /a/2/b"]


def test_every_command_picks_its_format_one_way() -> None:
    """--format, else the extension of -o when the command writes that format, else its default;
    an extension that names no format, or one the command does not write, is a usage error."""
    from checker.commands import claims, compare, followup, provenance, reproduce, table
    from checker.commands.common import choose
    from checker.reporters import CHECK
    from checker.settings import UsageError

    assert choose(compare.FORMATS, None, "out.html") == "html"
    assert choose(compare.FORMATS, None, "out.JSON") == "json"
    assert choose(compare.FORMATS, None, "out") == "text"  # no extension: the default
    with pytest.raises(UsageError, match=r"^-o out.log: \.log names no format; give --format `text`, "):
        choose(compare.FORMATS, None, "out.log")
    with pytest.raises(UsageError, match=r"^-o out.md: \.md names the markdown format, which this command does not"):
        choose(compare.FORMATS, None, "out.md")  # compare writes no markdown
    assert choose(claims.FORMATS, None, "claims.md") == "markdown"
    assert choose(followup.FORMATS, "csv", "out.json") == "csv"
    assert choose(provenance.FORMATS, None, "-") == "text"
    assert choose(table.FORMATS, None, None) == "json" and choose(table.FORMATS, None, "t.csv") == "csv"
    assert choose(CHECK, None, "report.sarif") == "sarif" and choose(CHECK, None, "report.xml") == "junit"
    with pytest.raises(UsageError, match=r"^--format csv: unknown format; no close name; choose `text` or `json`$"):
        choose(reproduce.FORMATS, "csv", None)
    with pytest.raises(UsageError, match=r"^--format jsn: unknown format; did you mean `json`\?$"):
        choose(reproduce.FORMATS, "jsn", None)
