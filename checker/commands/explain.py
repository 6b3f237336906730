"""`mlperf-check explain CODE`: the full documentation of one code."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from ..settings import Invocation, UsageError
from . import catalogue


@dataclass(frozen=True, kw_only=True)
class CommandLine:
    code: str


def invocation(options: CommandLine) -> Invocation[CommandLine]:
    return Invocation(options=options)


def run(invocation: Invocation[CommandLine]) -> int:
    code = invocation.options.code
    rule = catalogue.rules().get(code.upper())
    if rule is None:
        raise UsageError(f"unknown code {code!r}; `mlperf-check rules` lists them all")
    sys.stdout.write(catalogue.explain(rule, catalogue.rounds()))
    return 0
