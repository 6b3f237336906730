"""Words of the messages people read: a count with its noun in the right number. Every message
that counts says it through `counted`, so that no "1 warnings" or "node(s)" reaches a finding
(a value is quoted by checker.parsers.typed.shown)."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """ "1 result", "3 results", "0 results"; `plural` for a noun whose plural is not noun + s."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def said(value: object) -> str:
    """A value read from a file as a message says it: `true`, `false` and `null` as JSON and
    loadgen write them, text and numbers in backticks, nothing read as "nothing", never a
    Python repr (None, True, False, quotes)."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, (list, tuple)):
        return ", ".join(said(item) for item in value) or "an empty list"
    if isinstance(value, dict):
        return "an object"
    return f"`{value}`"
