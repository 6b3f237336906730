"""JSON read as the review tools read it (Python's json: a key given twice keeps its last
value), with every key given twice in one object a defect (FIL020) naming the key, both
values and the line of each. The scan for lines runs only when a key was given twice.
checker/reader.py (every JSON of a tree) and the Endpoints parsers read JSON through it.
FIL020 is a warning: published files the round accepted repeat a key."""

from __future__ import annotations

import json
import re
from typing import Any

from . import Defect

CODE = "FIL020"
_SHOWN = 60  # characters of a value the message shows


def loads(text: str, **options: Any) -> tuple[Any, list[Defect]]:
    """json.loads(text), and a FIL020 defect for each key given twice in one object (json
    keeps the later value: so does this). ValueError as json.loads raises it."""
    twice: list[tuple[str, Any, Any]] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in items:
            if key in seen:
                twice.append((key, seen[key], value))
            seen[key] = value
        return seen

    value = json.loads(text, object_pairs_hook=pairs, **options)
    if not twice:
        return value, []
    places = _places(text)
    defects = []
    for key, first, later in twice:
        where = next((p for p in places if p[1] == key), None)
        if where is not None:
            places.remove(where)
        pointer, _, first_line, line = where if where else ("", key, None, None)
        at = f" (line {first_line}, then line {line})" if line else ""
        defects.append(
            Defect(
                CODE,
                f"key `{key}` is given twice in one object{at}: {_shown(first)} then {_shown(later)}; "
                "the review tools keep the later value",
                line=line,
                pointer=pointer or None,
            )
        )
    return value, defects


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


# A token of valid JSON (json.loads has read it): a string, a mark, or a literal or number.
_TOKEN = re.compile(r'([ \t\r\n]*)(?:("(?:[^"\\]|\\.)*")|([{}\[\],:])|([^ \t\r\n{}\[\],:"]+))', re.S)


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def _places(text: str) -> list[tuple[str, str, int, int]]:
    """(JSON pointer of the later key, key, line of the first, line of the later) of every key
    given twice in one object of valid JSON `text`, in the order of the text."""
    found: list[tuple[str, str, int, int]] = []
    stack: list[list[Any]] = []  # [pointer, seen keys or None for an array, next index, last key]
    line, position, expect_key = 1, 0, False
    while (match := _TOKEN.match(text, position)) is not None and match.end() > position:
        space, string, mark, _ = match.groups()
        line += space.count("\n")
        position = match.end()
        frame = stack[-1] if stack else None
        if frame is not None and expect_key and string is not None:
            key = json.loads(string)
            if key in frame[1]:
                found.append((f"{frame[0]}/{_escape(key)}", key, frame[1][key], line))
            frame[1].setdefault(key, line)
            frame[3], expect_key = key, False
            continue
        if mark in ("}", "]"):
            stack.pop()
        elif mark == ",":
            expect_key = frame is not None and frame[1] is not None
        elif mark in ("{", "["):
            if frame is None:
                here = ""
            elif frame[1] is None:
                here, frame[2] = f"{frame[0]}/{frame[2]}", frame[2] + 1
            else:
                here = f"{frame[0]}/{_escape(frame[3])}"
            stack.append([here, {} if mark == "{" else None, 0, None])
            expect_key = mark == "{"
        elif mark is None and frame is not None and frame[1] is None:
            frame[2] += 1
    return found
