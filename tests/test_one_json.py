"""One JSON serialisation (issue 31): every command's JSON is `reporters.as_json(document)`,
the data it found as the output names it, written by `reporters.json_text`; no command has a
`to_json` of its own (there were ten, each dumping in its own way: some strict, some not)."""

from __future__ import annotations

import importlib
import io
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checker.reporters import Formats, as_json, check_formats, json_text

ROOT = Path(__file__).resolve().parent.parent

# Every module whose command writes JSON, and how its formats are found.
FORMATS = {
    "checker.analysis.across": "FORMATS",
    "checker.analysis.claims": "FORMATS",
    "checker.analysis.followup": "FORMATS",
    "checker.commands.compare": "FORMATS",
    "checker.commands.catalogue": "FORMATS",
    "checker.commands.prepare": "FORMATS",
    "checker.commands.provenance": "FORMATS",
    "checker.commands.reproduce": "FORMATS",
    "checker.commands.rounds": "formats",
}


def _formats(module: str, name: str) -> Formats:
    found = getattr(importlib.import_module(module), name)
    return found() if callable(found) else found


def test_no_module_has_a_json_writer_of_its_own() -> None:
    own = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "checker").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.match(r"\s*def to_json\b", line)
    ]
    assert own == []


@pytest.mark.parametrize(("module", "name"), sorted(FORMATS.items()))
def test_every_commands_json_is_the_one_writer(module: str, name: str) -> None:
    writer = _formats(module, name).writers["json"]
    assert callable(getattr(writer, "document", None)), f"{module}: its JSON is not reporters.as_json"


def test_checks_json_and_sarif_are_the_one_writer() -> None:
    for name in ("json", "sarif"):
        assert callable(getattr(check_formats().writers[name], "document", None)), name


NUMBERS = st.one_of(
    st.integers(-(10**20), 10**20), st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none()
)
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12) | st.sampled_from(
    ["\n", "\x1b[31m", "\ufffe", "<&>", '"']
)
DATA = st.recursive(
    NUMBERS | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20,
)


def _finite(value: Any) -> Any:
    """`value` as strict JSON holds it: a non-finite number is null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


@given(DATA, st.sampled_from([None, 1, 2]))
def test_the_one_writer_writes_strict_json_of_the_document(data: Any, indent: int | None) -> None:
    out = io.StringIO()
    as_json(lambda found: found, indent)(data, out)
    text = out.getvalue()
    assert (
        text == json_text(data, indent)
        and text.endswith("\n")
        and text.count("\n") == text.rstrip("\n").count("\n") + 1
    )
    read = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in strict JSON"))
    plain = _finite(data)
    if all(c.isprintable() or c == " " for c in json.dumps(plain, ensure_ascii=False)):
        assert read == plain  # nothing to make printable: the data as given, non-finite numbers null
