"""Counts in a system description: `8`, `"8"`, or, on a system that mixes hardware, one count
per part (`"64(AMD EPYC 9534) and 96(AMD EPYC 9655)"`, `"MI300X (x32), MI325X (x16)"`)."""

from __future__ import annotations

import re
from typing import Any

_WHOLE = re.compile(r"^\s*(\d+)\s*$")
_SEPARATOR = re.compile(r"\s*(?:,|;|\+|\band\b)\s*")
# A part: a count before its label, `64(AMD EPYC 9534)` or `64 AMD EPYC 9534`; or after it, `... (x16)`.
_COUNT_FIRST = re.compile(r"^(\d+)\s*(?:x\s+|\(\s*)?(?P<label>[^()]*?)\s*\)?$")
_COUNT_LAST = re.compile(r"^(?P<label>.*?)\s*\(\s*x\s*(\d+)(?:\s*x\s*(\d+))*\s*\)$")


def whole(value: Any) -> int | None:
    """A whole number written as a number or a string of digits, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    match = _WHOLE.match(value) if isinstance(value, str) else None
    return int(match.group(1)) if match else None


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
            numbers = [int(n) for n in re.findall(r"x\s*(\d+)", part[part.rfind("(") :])]
            total = 1
            for number in numbers:
                total *= number
            counted.append((total, last.group("label").strip()))
            continue
        first = _COUNT_FIRST.match(part)
        if not first or not first.group("label").strip():
            return None
        counted.append((int(first.group(1)), first.group("label").strip()))
    return counted
