"""`mlperf-check rules`: every code, one line each (CODE  name  summary), or JSON; with
--round, the severity each has in that round; with --docs FOLDER, one page per code
(docs/rules/CODE.md) made from its docstring."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..output import Plan
from ..settings import Invocation, UsageError
from . import catalogue, common


@dataclass(frozen=True, kw_only=True)
class CommandLine:
    format: str | None = None
    output: str | None = None
    round: str | None = None
    docs: str | None = None


def invocation(options: CommandLine) -> Invocation[CommandLine]:
    if options.docs is not None:
        if options.format is not None or options.output is not None:
            raise UsageError("--docs writes one page per code into its folder: give it without --format and -o")
        if not os.path.isdir(options.docs):
            raise UsageError(f"--docs {options.docs}: no such folder")
        return Invocation(options=options)
    plan = Plan()
    name = common.choose(catalogue.FORMATS, options.format, options.output)
    return Invocation(options=options, plan=plan, outputs=((name, plan.add(options.output)),))


def run(invocation: Invocation[CommandLine]) -> int:
    options = invocation.options
    if options.docs is not None:
        return _docs(options.docs)
    shipped = catalogue.bundled()
    entries: list[dict[str, Any]] = shipped["rules"]
    if options.round is not None:
        name = options.round
        if name not in shipped["real_rounds"]:  # a profile or a round file of one's own: read it
            the_round = common.load(name)
            name = the_round.name
            entries = catalogue.catalogue(catalogue.rules(), [the_round])
        entries = catalogue.in_round(entries, name)
    common.emit(invocation.plan, catalogue.FORMATS, invocation.format, invocation.target, entries)
    return 0


def _docs(folder: str) -> int:
    """Write docs/rules/CODE.md for every code, and say how many."""
    from ..output import write_file

    rules = catalogue.rules()
    for code in sorted(rules):
        write_file(os.path.join(folder, f"{code}.md"), catalogue.page(rules[code]), "--docs")
    common.say(f"{len(rules)} pages written to {folder}")
    return 0
