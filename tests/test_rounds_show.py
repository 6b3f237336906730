"""A round's rules without reading YAML (issue 24): `rounds show ROUND` prints what the round
asks with the source of each part, as text or JSON; `rules --round ROUND` lists every code
with its severity in that round."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from checker.cli import app
from checker.rounds import load_round

runner = CliRunner()


def _invoke(*args: str):
    return runner.invoke(app, list(args), prog_name="mlperf-check", terminal_width=100)


def test_rounds_show_prints_each_part_with_its_source() -> None:
    done = _invoke("rounds", "show", "v6.0")
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines[0] == "MLPerf Inference v6.0 (v6.0; the round file bundled with mlperf-check)"
    headings = [line.split(" (source:")[0] for line in lines if line and not line.startswith(" ")]
    assert headings[1:] == [
        "Divisions: closed, open, network",
        "System types: datacenter, edge, datacenter,edge, edge,datacenter",
        "Layout",
        "Seeds",
        "Benchmarks and scenarios per system type",
        "Required files",
        "Accuracy gates apply in: closed, network",
        "Compliance tests",
    ]
    assert "  qsl_rng_seed           2465351861681999779" in lines
    resnet = lines.index("  resnet")
    assert lines[resnet + 1 : resnet + 5] == [
        "    edge             required SingleStream, MultiStream, Offline",
        "    datacenter,edge  required SingleStream, MultiStream, Offline, Server",
        "    accuracy         acc >= 0.99 x 76.46 = 75.6954",
        "    compliance       TEST01, TEST04",
    ]
    assert "  TEST01  verify_accuracy.txt, verify_performance.txt" in lines
    assert "rules/" not in done.stdout.replace("the round file bundled", "")


def test_rounds_show_writes_the_same_facts_as_json(tmp_path) -> None:
    target = tmp_path / "v6.1.json"
    done = _invoke("rounds", "show", "v6.1", "-o", str(target))
    assert done.exit_code == 0, done.output
    data = json.loads(target.read_text())
    the_round = load_round("v6.1")
    assert data["seeds"]["qsl_rng_seed"] == the_round.seeds.qsl_rng_seed
    assert set(data["benchmarks"]["models"]) == set(the_round.models)
    assert all(part["source"] for part in (data["layout"], data["seeds"], data["compliance"], data["benchmarks"]))
    assert data["compliance"]["tests"]["TEST01"]["verify"] == {
        "accuracy": "verify_accuracy.txt",
        "performance": "verify_performance.txt",
    }


def test_rounds_usage_errors_say_what_to_give() -> None:
    assert (_invoke("rounds", "sho", "v6.0").exit_code, "did you mean `show`?" in _invoke("rounds", "sho").output) == (
        2,
        True,
    )
    assert _invoke("rounds", "show").exit_code == 2
    assert "unknown round 'v9.9'" in _invoke("rounds", "show", "v9.9").output


def test_rules_round_lists_each_code_with_its_severity_in_that_round() -> None:
    """STR006 is an error by default and a warning in v6.0, whose checker had no such check."""
    done = _invoke("rules", "--round", "v6.0")
    assert done.exit_code == 0, done.output
    rows = {line.split()[0]: line.split()[2] for line in done.stdout.splitlines()}
    assert rows["STR006"] == "warning" and rows["ACC002"] == "error"
    listed = json.loads(_invoke("rules", "--round", "v6.0", "-f", "json").stdout)
    (entry,) = [e for e in listed if e["code"] == "STR006"]
    assert (entry["round"], entry["severity"]) == ("v6.0", "warning") and "calibration" in entry["why"]
    assert len(listed) == len(rows)


def test_explain_takes_a_code_or_a_rule_name_and_suggests_the_close_one() -> None:
    by_code, by_name = _invoke("explain", "rng001"), _invoke("explain", "round-seeds")
    assert by_code.exit_code == by_name.exit_code == 0
    assert by_code.stdout == by_name.stdout and by_code.stdout.startswith("RNG001 round-seeds (error, result)")
    typo = _invoke("explain", "round-sed")
    assert (typo.exit_code, "did you mean `round-seeds`?" in typo.output) == (2, True)
    far = _invoke("explain", "zzzzzzzz")
    assert (far.exit_code, "no close code or name;" in far.output) == (2, True)
