"""Pure parsers: bytes or text in, typed values and a list of defects out.

A parser never raises on bad input. What it cannot read becomes a `Defect`, which the
caller turns into a finding that names the file.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Defect:
    """A problem a parser found in its input. `code` is a registered finding code."""

    code: str
    message: str
    line: int | None = None
    pointer: str | None = None
    column: int | None = None  # of what the defect is about on `line`, when the parser knows it


# A text a parser reads once per process (`once`): a round's folders hold the same
# mlperf.conf, user.conf, summary and accuracy.txt many times over (v5.1: 622 mlperf.conf
# files of 10 texts, 1,449 run summaries of 693, 1,449 accuracy.txt of 631). Texts up to
# MEMO_CHARS, the last MEMO_TEXTS of them per parser: a check's peak memory grows by about
# 1.5 MB (256 texts: 5 MB, for no more hits; the repeats are mostly a submitter's own).
MEMO_CHARS = 1 << 16
MEMO_TEXTS = 64


def once(parser: Callable[..., tuple[T, list[Defect]]]) -> Callable[..., tuple[T, list[Defect]]]:
    """`parser(text, *args)` (args hashable), read once per text and args: the same text gives
    the same value (shared: a parsed value is read, never changed, as a Reader already hands
    one value to every rule) and an equal list of defects."""
    remembered = functools.lru_cache(maxsize=MEMO_TEXTS)(parser)

    @functools.wraps(parser)
    def parse(text: str, *args: Hashable) -> tuple[T, list[Defect]]:
        if len(text) > MEMO_CHARS:
            return parser(text, *args)
        value, defects = remembered(text, *args)
        return value, list(defects)

    return parse


class Malformed(Exception):
    """A value read that broke its declared type (parsers/typed.py). Its file's reading
    already reported it (FIL012, naming the key), and it is never handed on: reading it
    raises this, and the engine skips the rule that read it, as it skips a rule whose file
    could not be read."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def number(value: Any) -> int | float | None:
    """`value` when it is a number (an int or a float, not a bool), else None."""
    return None if isinstance(value, bool) or not isinstance(value, (int, float)) else value


# How deep a parsed value may nest its lists and mappings. Real files nest at most 16 deep
# (a TEST01 metadata.json; loadgen records 2); a deeper value is refused where it is read,
# so that nothing downstream (rules, reporters, comparisons) recurses through it.
MAX_DEPTH = 64


def nests_deeper(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` nests lists, tuples or dicts more than `limit` deep, or holds itself
    (a recursive YAML alias). Iterative, and each container is measured once, however often
    it is shared (YAML aliases), so the walk is linear in the distinct containers."""
    if not isinstance(value, (list, tuple, dict)):
        return False
    heights: dict[int, int] = {}  # id -> height of a container already measured
    on_path: set[int] = {id(value)}
    # Each frame: [container, iterator over its children, height of its tallest child so far].
    stack: list[list[Any]] = [[value, _children(value), 0]]
    while stack:
        frame = stack[-1]
        for child in frame[1]:
            if not isinstance(child, (list, tuple, dict)):
                continue
            known = heights.get(id(child))
            if known is not None:  # shared: measured once; does it reach too deep from here?
                if len(stack) + known > limit:
                    return True
                frame[2] = max(frame[2], known)
                continue
            if id(child) in on_path or len(stack) >= limit:
                return True
            on_path.add(id(child))
            stack.append([child, _children(child), 0])
            break
        else:
            stack.pop()
            on_path.discard(id(frame[0]))
            height = frame[2] + 1
            heights[id(frame[0])] = height
            if stack:
                stack[-1][2] = max(stack[-1][2], height)
    return False


def _children(container: Any) -> Iterator[Any]:
    return iter(container.values()) if isinstance(container, dict) else iter(container)
