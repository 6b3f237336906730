"""`mlperf-check rounds`: the round files this version knows, each with its title."""

from __future__ import annotations

from dataclasses import dataclass

from ..rounds import available_rounds, load_round
from ..settings import Invocation


@dataclass(frozen=True, kw_only=True)
class CommandLine:
    pass


def invocation(options: CommandLine) -> Invocation[CommandLine]:
    return Invocation(options=options)


def run(invocation: Invocation[CommandLine]) -> int:
    for name in available_rounds():
        print(f"{name}  {load_round(name).title or ''}")
    return 0
