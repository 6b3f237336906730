"""Counts in a system description: `8`, `"8"`, or, on a system that mixes hardware, one count
per part (`"64(AMD EPYC 9534) and 96(AMD EPYC 9655)"`, `"MI300X (x32), MI325X (x16)"`).

A count has at most MAX_DIGITS digits: the system-description schema's whole number
(schemas/system_desc.schema.json `$defs/whole_number`), which this reads; a longer one is
not a count (SYS005), and it is never given to int()."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any


def _most() -> int:
    """The largest count: the schema's whole number, as an integer."""
    schema = json.loads(resources.files("checker.schemas").joinpath("system_desc.schema.json").read_text("utf-8"))
    most: int = schema["$defs"]["whole_number"]["anyOf"][0]["maximum"]
    return most


MAX_COUNT = _most()
MAX_DIGITS = len(str(MAX_COUNT))
_WHOLE = re.compile(rf"^\s*([0-9]{{1,{MAX_DIGITS}}})\s*$")
_DIGITS = re.compile(r"\s*[0-9]+\s*")
_SEPARATOR = re.compile(r"\s*(?:,|;|\+|\band\b)\s*")
# A part: a count before its label, `64(AMD EPYC 9534)` or `64 AMD EPYC 9534`; or after it, `... (x16)`.
_COUNT_FIRST = re.compile(r"^(\d+)\s*(?:x\s+|\(\s*)?(?P<label>[^()]*?)\s*\)?$")
_COUNT_LAST = re.compile(r"^(?P<label>.*?)\s*\(\s*x\s*(\d+)(?:\s*x\s*(\d+))*\s*\)$")


def whole(value: Any) -> int | None:
    """A whole number written as a number or a string of digits, else None (a count of
    more than MAX_COUNT too)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= MAX_COUNT else None
    match = _WHOLE.match(value) if isinstance(value, str) else None
    return int(match.group(1)) if match else None


def absurd(value: Any) -> bool:
    """Whether a value is a whole number beyond any count: an integer above MAX_COUNT, or a
    string of more digits than a count has."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value > MAX_COUNT
    return isinstance(value, str) and _DIGITS.fullmatch(value) is not None and len(value.strip()) > MAX_DIGITS


def per_part(value: Any) -> list[tuple[int, str]] | None:
    """(count, label) of each part of a mixed system's count field, or None when the text is
    not a list of counted parts. `"2x8"` counts multiply (`MI300X (x2x8)`: 16)."""
    if not isinstance(value, str) or not value.strip():
        return None
    parts = [p for p in _SEPARATOR.split(value.strip()) if p]
    if len(parts) < 2:
        return None
    counted = []
    for part in parts:
        last = _COUNT_LAST.match(part)
        if last:
            numbers = re.findall(r"x\s*(\d+)", part[part.rfind("(") :])
            total = 1
            for number in numbers:
                if len(number) > MAX_DIGITS:
                    return None
                total *= int(number)
            if total > MAX_COUNT:
                return None
            counted.append((total, last.group("label").strip()))
            continue
        first = _COUNT_FIRST.match(part)
        if not first or not first.group("label").strip() or len(first.group(1)) > MAX_DIGITS:
            return None
        counted.append((int(first.group(1)), first.group("label").strip()))
    return counted
