"""Pure parsers: bytes or text in, typed values and a list of defects out.

A parser never raises on bad input. What it cannot read becomes a `Defect`, which the
caller turns into a finding that names the file.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Defect:
    """A problem a parser found in its input. `code` is a registered finding code."""

    code: str
    message: str
    line: int | None = None
    pointer: str | None = None
