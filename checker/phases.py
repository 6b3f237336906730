"""Where a check's time goes, by phase (benchmarks/bench.py prints them).

Code that does one kind of work opens its phase: `with phase("detail logs"): ...`. Time is
charged to the innermost phase open, so nested phases do not count twice and the phases of
a process add up to its time inside them. A worker's phases go back with each unit it ran
(`take`), and the engine sums them into `Report.phases`. Wall-clock seconds, from
`time.perf_counter` (about 0.1 us a reading): cheap enough to stay on.
"""

from __future__ import annotations

import time

_spent: dict[str, float] = {}
_open: list[str] = []
_since = 0.0  # when the innermost open phase was last charged


class phase:  # noqa: N801 - used as a context manager, named as one
    """`with phase(name):` charges the time inside to `name`, less the nested phases."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self) -> None:
        global _since
        now = time.perf_counter()
        if _open:
            outer = _open[-1]
            _spent[outer] = _spent.get(outer, 0.0) + now - _since
        _open.append(self.name)
        _since = now

    def __exit__(self, *exc: object) -> None:
        global _since
        now = time.perf_counter()
        name = _open.pop()
        _spent[name] = _spent.get(name, 0.0) + now - _since
        _since = now


def innermost() -> str | None:
    """The name of the innermost open phase, None when none is open: a phase of that name
    need not be entered again (nested in itself, it charges the same time)."""
    return _open[-1] if _open else None


def reset() -> None:
    """No phase open and nothing charged (a worker starts so, whatever it inherited)."""
    global _since
    _spent.clear()
    _open.clear()
    _since = 0.0


def take() -> dict[str, float]:
    """The seconds charged in this process since the last take, by phase; and start again."""
    spent = dict(_spent)
    _spent.clear()
    return spent


def add(total: dict[str, float], more: dict[str, float]) -> None:
    for name, seconds in more.items():
        total[name] = total.get(name, 0.0) + seconds
