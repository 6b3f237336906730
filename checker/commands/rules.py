"""`mlperf-check rules`: every code, one line each (CODE  name  summary), or JSON."""

from __future__ import annotations

from dataclasses import dataclass

from ..output import Plan
from ..settings import Invocation
from . import catalogue, common


@dataclass(frozen=True)
class CommandLine:
    format: str | None = None
    output: str | None = None


def invocation(options: CommandLine) -> Invocation[CommandLine]:
    plan = Plan()
    name = common.choose(catalogue.FORMATS, options.format, options.output)
    return Invocation(options=options, plan=plan, outputs=((name, plan.add(options.output)),))


def run(invocation: Invocation[CommandLine]) -> int:
    entries = catalogue.catalogue(catalogue.rules(), catalogue.rounds())
    common.emit(invocation.plan, catalogue.FORMATS, invocation.format, invocation.target, entries)
    return 0
