"""Strict user files (checker/userfiles.py), stated for every format a person writes (issue 22,
"User files with unknown or duplicate keys").

The invariant: an unknown key or a key given twice, anywhere in a waivers file (YAML), a
claims file (YAML or JSON), a [tool.mlperf-check] table (TOML) or a round file (YAML), is
exit 2, and the one line names the file, the key and a line of the file that holds it. A
number that is not finite is exit 2 too. INT001 is never waived, and a result whose rule
crashed is never valid."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from checker.cli import app
from checker.findings import Finding, ResultRecord, Severity, judge
from helpers import EXAMPLE, OFFLINE, ROOT

runner = CliRunner()
ROUND = ["--round", "demo-v6.1"]
UNKNOWN = "zz_unknown_key"
SENTINEL = "zz_sentinel_key"

settings.register_profile(
    "userfiles",
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)

WAIVERS = {
    "waivers": [
        {"code": "FIL001", "path": "closed/Acme/*", "reason": "approved"},
        {"code": "PRF", "reason": "approved too"},
    ]
}
CLAIMS = {
    "claims": [
        {
            "id": "a",
            "kind": "speedup",
            "expect": 2.0,
            "margin": 0.05,
            "from": {"round": "v6.0", "model": "demo-mlp-99"},
            "to": {"round": "v6.1", "model": "demo-mlp-99", "division": "closed"},
        },
        {"id": "b", "kind": "value", "expect": 500, "at_least": True, "in": {"round": "v6.1"}},
    ]
}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("userfiles")
    tree = base / "tree"
    shutil.copytree(EXAMPLE, tree, symlinks=True)
    return {"base": base, "tree": tree}


def _mappings(document: Any, path: tuple = ()) -> list[tuple]:
    """The path of every mapping in a document."""
    found = []
    if isinstance(document, dict):
        found.append(path)
        for key, value in document.items():
            found += _mappings(value, (*path, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += _mappings(value, (*path, index))
    return found


def _at(document: Any, path: tuple) -> dict:
    for part in path:
        document = document[part]
    return document


def _edited(document: Any, path: tuple, duplicate: bool) -> tuple[Any, str]:
    """A copy of `document` with the mapping at `path` given an unknown key, or a sentinel
    that the text then turns into a second copy of its first key; and that key."""
    copy = json.loads(json.dumps(document))
    mapping = _at(copy, path)
    key = next(iter(mapping)) if duplicate else UNKNOWN
    mapping[SENTINEL if duplicate else UNKNOWN] = None
    return copy, key


def _run(kind: str, files: dict[str, Path], text: str) -> tuple[Path, Any]:
    """Write `text` as a user file of `kind` and run the command that reads it."""
    base, tree = files["base"], files["tree"]
    (tree / "pyproject.toml").unlink(missing_ok=True)  # an earlier example's
    if kind == "config TOML":
        path = tree / "pyproject.toml"
        path.write_text(text)
        return path, runner.invoke(app, ["check", str(tree), "-j", "1"])
    path = (
        base
        / {"waivers YAML": "w.yaml", "claims YAML": "c.yaml", "claims JSON": "c.json", "round YAML": "r.yaml"}[kind]
    )
    path.write_text(text)
    if kind == "waivers YAML":
        return path, runner.invoke(app, ["check", str(tree), *ROUND, "-j", "1", "--waivers", str(path)])
    if kind == "round YAML":
        return path, runner.invoke(app, ["check", str(tree), "--round", str(path), "-j", "1"])
    return path, runner.invoke(app, ["claims", str(path), "--table", f"v6.1={base}/missing.json"])


def _assert_named(path: Path, text: str, done: Any, key: str, duplicate: bool) -> None:
    """Exit 2, one line naming the file, a line that holds the key, and the key."""
    assert done.exit_code == 2, (text, done.output)
    line = done.stderr.splitlines()[-1]
    assert line.startswith(f"error: {path}:"), line
    number = int(line[len(f"error: {path}:") :].split(":")[0])
    assert key in text.splitlines()[number - 1], (line, text)
    assert (f"key {key!r} is given twice" if duplicate else f"{key}") in line, line


def _round_document() -> dict:
    return yaml.safe_load((ROOT / "rules" / "v6.1.yaml").read_text())


@pytest.mark.slow
@settings(settings.get_profile("userfiles"))
@given(data=st.data())
def test_an_unknown_or_duplicate_key_anywhere_is_exit_2_naming_it(files: dict[str, Path], data) -> None:
    kind = data.draw(
        st.sampled_from(["waivers YAML", "claims YAML", "claims JSON", "config TOML", "round YAML"]), label="kind"
    )
    duplicate = data.draw(st.booleans(), label="duplicate")
    if kind == "config TOML":
        lines = ["[tool.mlperf-check]", 'round = "demo-v6.1"', "jobs = 1", 'ignore = ["RNG003"]']
        at = data.draw(st.integers(1, len(lines) - 1), label="line")
        key = lines[at].partition(" =")[0] if duplicate else UNKNOWN
        extra = lines[at] if duplicate else f"{UNKNOWN} = 1"
        text = "\n".join([*lines, extra]) + "\n"
        path, done = _run(kind, files, text)
        if duplicate:  # tomllib's own error, with the line of the second key
            assert done.exit_code == 2 and f":{len(lines) + 1}: key {key!r} is given twice" in done.stderr
            return
        _assert_named(path, text, done, key, duplicate)
        return
    document = {"waivers YAML": WAIVERS, "claims YAML": CLAIMS, "claims JSON": CLAIMS}.get(kind) or _round_document()
    where = data.draw(st.sampled_from(_mappings(document)), label="mapping")
    edited, key = _edited(document, where, duplicate)
    if kind == "claims JSON":
        text = json.dumps(edited, indent=2)
    else:
        text = yaml.safe_dump(edited, sort_keys=False, width=1000)
    if duplicate:
        text = text.replace(SENTINEL, key)  # the mapping's first key, a second time
    path, done = _run(kind, files, text)
    _assert_named(path, text, done, key, duplicate)


@pytest.mark.parametrize(
    "name, text, message",
    [
        (
            "w.yaml",
            "waivers:\n  - code: FIL001\n    paht: closed/*\n    reason: x\n",
            ":3: unknown key 'paht' in waivers/0; the keys are code, path, reason",
        ),
        (
            "w.yaml",
            "waivers:\n  - code: FIL001\n    reason: x\n    reason: y\n",
            ":4: key 'reason' is given twice (first at line 3)",
        ),
        (
            "c.yaml",
            "claims:\n  - {id: a, kind: value, expect: .nan, in: {round: v6.1}}\n",
            ":2: claims/0/expect is nan; give a finite number",
        ),
        (
            "c.yaml",
            "claims:\n  - {id: a, kind: value, expect: 1, margin: .inf, in: {round: v6.1}}\n",
            ":2: claims/0/margin is inf; give a finite number",
        ),
        (
            "c.json",
            '{"claims": [{"id": "a", "kind": "value",\n "expect": NaN, "in": {"round": "v6.1"}}]}',
            ":2: claims/0/expect is nan; give a finite number",
        ),
        (
            "c.json",
            '{"claims": [{"id": "a", "kind": "value", "expect": 2,\n "margin": 1e999, "in": {"round": "v6.1"}}]}',
            ":2: claims/0/margin is inf; give a finite number",
        ),
        (
            "c.json",
            '{"claims": [{"id": "a", "kind": "value", "expect": 2,\n "expect": 3, "in": {"round": "v6.1"}}]}',
            ":2: key 'expect' is given twice (first at line 1)",
        ),
    ],
)
def test_user_file_errors_name_the_file_line_and_key(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    if name.startswith("w"):
        done = runner.invoke(app, ["check", str(EXAMPLE), *ROUND, "--waivers", str(path)])
    else:
        done = runner.invoke(app, ["claims", str(path), "--table", f"v6.1={tmp_path}/none.json"])
    assert (done.exit_code, done.stderr) == (2, f"error: {path}{message}\n")


def test_a_round_file_with_a_non_finite_number_is_exit_2(tmp_path: Path) -> None:
    text = (ROOT / "rules" / "v6.1.yaml").read_text().replace("tolerance: 0.02", "tolerance: .nan", 1)
    assert ".nan" in text
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    done = runner.invoke(app, ["check", str(EXAMPLE), "--round", str(path)])
    number = next(i for i, line in enumerate(text.splitlines(), 1) if ".nan" in line)
    assert (done.exit_code, done.stderr) == (
        2,
        f"error: {path}:{number}: audit/tolerance is nan; give a finite number\n",
    )


def test_a_mapping_file_is_strict(tmp_path: Path) -> None:
    """followup --mapping: a system mapped twice, or to a number, is a usage error."""
    path = tmp_path / "map.yaml"
    path.write_text("closed/A/sys1: closed/A/sys2\nclosed/A/sys1: closed/A/sys3\n")
    done = runner.invoke(
        app, ["followup", "--previous", str(EXAMPLE), "--current", str(EXAMPLE), "--mapping", str(path)]
    )
    assert (done.exit_code, done.stderr.splitlines()[-1]) == (
        2,
        f"error: {path}:2: key 'closed/A/sys1' is given twice (first at line 1)",
    )
    path.write_text("closed/A/sys1: 3\n")
    done = runner.invoke(
        app, ["followup", "--previous", str(EXAMPLE), "--current", str(EXAMPLE), "--mapping", str(path)]
    )
    assert (done.exit_code, done.stderr.splitlines()[-1]) == (
        2,
        f"error: {path}:1: closed/A/sys1: give the current system, as text, not int 3",
    )


# --- INT001 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("code", ["INT001", "int", "I"])
def test_a_waiver_that_covers_int001_is_a_usage_error(tmp_path: Path, code: str) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(f"waivers:\n  - code: {code}\n    reason: the crash is known\n")
    done = runner.invoke(app, ["check", str(EXAMPLE), *ROUND, "--waivers", str(path)])
    assert (done.exit_code, done.stderr) == (
        2,
        f"error: {path}:2: waiver 1 ({code.upper()}) would waive INT001, which cannot be waived: a rule that "
        "crashed gave no verdict to accept; report the crash instead\n",
    )


def test_a_result_whose_rule_crashed_is_never_valid() -> None:
    """Whatever else says so: a waiver (had one matched), or a severity below error."""
    record = ResultRecord(OFFLINE, "closed", "MLCheckDemo", "sys", "demo-mlp-99", "Offline", None, "k", "s")
    for finding in (
        Finding("INT001", Severity.ERROR, OFFLINE, "rule X failed", location=OFFLINE, waived="agreed"),
        Finding("INT001", Severity.NOTE, OFFLINE, "rule X failed", location=OFFLINE),
    ):
        judge([record], [finding])
        assert record.valid is False


def test_a_crashed_rule_makes_its_result_invalid_and_exit_3(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from checker.registry import RULES

    rule = next(r for r in RULES.values() if r.scope == "result" and r.func is not None)

    def crash(result, round):
        raise RuntimeError("boom")

    monkeypatch.setitem(RULES, rule.code, dataclasses.replace(rule, func=crash))
    out = tmp_path / "out.json"
    done = runner.invoke(app, ["check", str(EXAMPLE), *ROUND, "-j", "1", "-o", str(out)])
    assert done.exit_code == 3
    results = json.loads(out.read_text())["results"]
    assert [r["valid"] for r in results] == [False, False]
