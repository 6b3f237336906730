"""Words of the messages people read: a count with its noun in the right number. Every message
that counts says it through `counted`, so that no "1 warnings" or "node(s)" reaches a finding
(a value is quoted by checker.parsers.typed.shown)."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """ "1 result", "3 results", "0 results"; `plural` for a noun whose plural is not noun + s."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
