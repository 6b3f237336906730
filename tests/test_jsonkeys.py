"""A key given twice in one JSON object: the later value, as Python's json keeps it, and one
defect per repetition naming the key, both values, both lines and the pointer (issue 33)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from checker.parsers import jsonkeys


def test_a_key_given_twice_names_the_key_both_values_and_lines() -> None:
    text = '{"a": 1,\n "status": "available",\n "b": {"x": [1, {"k": 1, "k": [2]}]},\n "status": "preview"}'
    value, defects = jsonkeys.loads(text)
    assert value == json.loads(text)
    assert [(d.code, d.line, d.pointer, d.message) for d in defects] == [
        (
            "FIL020",
            3,
            "/b/x/1/k",
            "key `k` is given twice in one object (line 3, then line 3): 1 then [2]; "
            "the review tools keep the later value",
        ),
        (
            "FIL020",
            4,
            "/status",
            'key `status` is given twice in one object (line 2, then line 4): "available" '
            'then "preview"; the review tools keep the later value',
        ),
    ]


KEYS = st.sampled_from(["a", "b", "a/b", "~", "ü", 'q"'])
VALUES = st.recursive(
    st.none() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.lists(st.tuples(KEYS, inner), max_size=4),
    max_leaves=12,
)


def _dump(value) -> str:
    """JSON text of a value whose objects are lists of (key, value) pairs, keys repeated."""
    if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):
        return "{" + ",\n".join(f"{json.dumps(k)}: {_dump(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_dump(v) for v in value) + "]"
    return json.dumps(value)


def _repeats(value) -> int:
    if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):
        keys = [k for k, _ in value]
        return len(keys) - len(set(keys)) + sum(_repeats(v) for _, v in value)
    if isinstance(value, list):
        return sum(_repeats(v) for v in value)
    return 0


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(VALUES)
def test_the_value_is_jsons_and_every_repetition_is_one_defect_with_its_line(value) -> None:
    text = _dump(value)
    read, defects = jsonkeys.loads(text)
    assert read == json.loads(text)
    assert len(defects) == _repeats(value)
    lines = text.split("\n")
    for defect in defects:
        key = defect.message.split("'")[1] if "'" in defect.message else None
        assert defect.line is not None and defect.pointer is not None
        assert 1 <= defect.line <= len(lines)
        assert key is None or json.dumps(key)[1:-1] in lines[defect.line - 1] or '"' in key or "\\" in key
