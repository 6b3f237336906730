"""`mlperf-check rules`: every code, one line each (CODE  name  summary), or JSON."""

from __future__ import annotations

from dataclasses import dataclass

from ..output import Plan
from ..settings import Invocation
from . import catalogue, common


@dataclass(frozen=True, kw_only=True)
class CommandLine:
    format: str | None = None
    output: str | None = None


def invocation(options: CommandLine) -> Invocation[CommandLine]:
    plan = Plan()
    name = common.choose(catalogue.FORMATS, options.format, options.output)
    return Invocation(options=options, plan=plan, outputs=((name, plan.add(options.output)),))


def run(invocation: Invocation[CommandLine]) -> int:
    # Only JSON writes each round's own severity: the text reads no round file.
    known = catalogue.rounds() if invocation.format == "json" else []
    entries = catalogue.catalogue(catalogue.rules(), known)
    common.emit(invocation.plan, catalogue.FORMATS, invocation.format, invocation.target, entries)
    return 0
