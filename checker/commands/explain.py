"""`mlperf-check explain CODE|NAME`: the full documentation of one code, found by its code
(any case) or its rule name."""

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
    given = invocation.options.code
    shipped = catalogue.bundled()
    by_code = {entry["code"]: entry for entry in shipped["rules"]}
    by_name = {entry["name"]: entry for entry in shipped["rules"]}
    entry = by_code.get(given.upper()) or by_name.get(given.lower())
    if entry is None:
        from ..escaping import visible
        from ..suggest import closest

        close = closest(given, [*by_code, *by_name])
        hint = f"did you mean `{close}`?" if close else "no close code or name;"
        raise UsageError(f"unknown code or rule name `{visible(given)}`; {hint} `mlperf-check rules` lists them all")
    sys.stdout.write(catalogue.explain(entry, shipped["real_rounds"]))
    return 0
