"""Reliability of reading (issue 12): a deeply nested value is a finding (item 7)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.parsers.mllog import parse_mllog
from helpers import EXAMPLE, OFFLINE, SINGLE, run, tree_digest

LOG = f"{OFFLINE}/performance/run_1/mlperf_log_detail.txt"
ERROR = "error"


def found(report_or_sink) -> list[tuple[str, str, str, str | None]]:
    """(code, severity, path, pointer) of every finding, in output order."""
    findings = report_or_sink.findings if hasattr(report_or_sink, "findings") else report_or_sink
    return [(f.code, f.severity.value, f.path, f.pointer) for f in findings]


@pytest.fixture
def example(tmp_path: Path):
    """A private copy of the example, removed after the test (pytest keeps the folders of
    the last runs)."""
    target = tmp_path / "submission"
    shutil.copytree(EXAMPLE, target, symlinks=True)
    yield target
    shutil.rmtree(target, ignore_errors=True)


# --- item 7: deep nesting ----------------------------------------------------------------
def _nest(path: Path, key: str, depth: int) -> int:
    """Give the record `key` a value nested `depth` lists deep; returns its line number."""
    lines = path.read_bytes().splitlines(keepends=True)
    for number, line in enumerate(lines, 1):
        if f'"key": "{key}", "value": '.encode() in line:
            head, rest = line.split(b'"value": ', 1)
            tail = rest[rest.index(b', "time_ms"'):]
            lines[number - 1] = head + b'"value": ' + b"[" * depth + b"]" * depth + tail
            path.write_bytes(b"".join(lines))
            return number
    raise AssertionError(key)


KEY = "effective_sample_concatenate_permutation"


@pytest.mark.parametrize("depth", [65, 5000, 200_000])
def test_a_deeply_nested_log_value_is_a_finding(example: Path, depth: int) -> None:
    number = _nest(example / LOG, KEY, depth)
    report = run(example)
    assert found(report) == [("LOG001", ERROR, LOG, f"line {number}")]
    assert report.findings[0].message == f"line {number} nests its {KEY!r} value more than 64 deep; it was not read"
    assert {r.location: r.valid for r in report.results} == {OFFLINE: False, SINGLE: True}


def test_a_value_64_deep_is_still_read(example: Path) -> None:
    _nest(example / LOG, "effective_sample_concatenate_permutation", 64)
    log, defects = parse_mllog(open(example / LOG, "rb"))
    assert defects == [] and isinstance(log.get(KEY), list)


def test_provenance_and_reproduce_report_a_deeply_nested_log(example: Path) -> None:
    number = _nest(example / LOG, KEY, 5000)
    before = tree_digest(example)
    runner = CliRunner()
    result = runner.invoke(app, ["provenance", str(example), "--round", "demo-v6.1", "-f", "json"])
    assert result.exit_code == 0, result.output
    verdicts = json.loads(result.stdout)["results"]
    assert [(v["location"], v["verdict"]) for v in verdicts] == [(OFFLINE, "descends"), (SINGLE, "descends")]
    result = runner.invoke(app, ["reproduce", str(EXAMPLE / OFFLINE), str(example / OFFLINE), "--round", "demo-v6.1",
                                 "-f", "json"])
    assert result.exit_code == 1, result.output
    reproduction = json.loads(result.stdout)
    assert reproduction["reproduction_valid"] is False
    assert reproduction["reproduction_errors"] == [
        f"LOG001 {LOG}: line {number} nests its {KEY!r} value more than 64 deep; it was not read"]
    assert reproduction["mismatched_settings"] == [{"setting": KEY, "original": False, "reproduction": None}]
    assert tree_digest(example) == before


SYSTEM = "closed/MLCheckDemo/systems/cpu-1x-numpy.json"


@pytest.mark.parametrize("depth", [65, 100_000])
def test_a_deeply_nested_json_file_is_a_finding(example: Path, depth: int) -> None:
    description = json.loads((example / SYSTEM).read_text())
    text = json.dumps(description)[:-1] + ', "extra": ' + "[" * depth + "]" * depth + "}"
    (example / SYSTEM).write_text(text)
    report = run(example)
    assert found(report) == [("FIL007", ERROR, SYSTEM, None)]
    assert report.findings[0].message == "system description nests lists or objects more than 64 deep; it was not read"


def test_endpoints_files_nested_too_deep_or_recursive_are_findings() -> None:
    from checker.parsers.endpoints import parse_accuracy_results, parse_endpoints_config, parse_result_summary

    deep_json = '{"ttft": ' + "[" * 100_000 + "]" * 100_000 + "}"
    too_deep = "nests lists or mappings more than 64 deep; it was not read as "
    for parse, text, message in (
            (parse_result_summary, deep_json, too_deep + "JSON"),
            (parse_accuracy_results, deep_json, too_deep + "JSON"),
            # Within the safe YAML loader's limits (200 levels), past the one for parsed values.
            (parse_endpoints_config, "x: " + "[" * 100 + "]" * 100 + "\n", too_deep + "YAML"),
            # The safe YAML loader refuses these first.
            (parse_endpoints_config, "type: offline\nsettings: &a [*a]\n",  # holds itself
             "cannot be read as YAML: the file repeats a mapping or list through an alias; write it out"),
            (parse_endpoints_config, "x: " + "[" * 5000 + "]" * 5000 + "\n",
             "cannot be read as YAML: the file is not valid YAML: while increasing flow level")):
        data, defects = parse(text)
        assert data.data == {}
        assert [(d.code, d.message) for d in defects] == [("FIL007", message)], (parse, text[:40])
