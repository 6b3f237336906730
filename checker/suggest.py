""" "Did you mean": the one wording of a value that is not among the names allowed.

A close name is suggested (difflib's ratio at least 0.6); a value close to none says so and
lists the names allowed, the first few when there are many. Every usage error and every
finding about an enumerated value words it this way."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

SHOWN = 8  # names listed when none is close


def closest(value: str, names: Iterable[str]) -> str | None:
    """The allowed name closest to `value` (any case), when one is close enough."""
    allowed = list(names)
    lowered = {name.lower(): name for name in allowed}
    found = difflib.get_close_matches(value.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[found[0]] if found else None


def choices(names: Iterable[str], listed_by: str | None = None) -> str:
    """`a, b or c`; the first SHOWN and how many more when there are more (and the command
    that lists them all, `listed_by`)."""
    allowed = [f"`{name}`" for name in names]
    if len(allowed) > SHOWN:
        where = f" ({listed_by} lists them)" if listed_by else ""
        return ", ".join(allowed[:SHOWN]) + f" and {len(allowed) - SHOWN} more{where}"
    return ", ".join(allowed[:-1]) + f" or {allowed[-1]}" if len(allowed) > 1 else "".join(allowed)


def did_you_mean(value: str, names: Iterable[str], listed_by: str | None = None) -> str:
    """`did you mean `available`?`, or `no close name; choose a, b or c`."""
    allowed = list(names)
    close = closest(value, allowed)
    if close is not None:
        return f"did you mean `{close}`?"
    return f"no close name; choose {choices(allowed, listed_by)}" if allowed else "no name is allowed here"
