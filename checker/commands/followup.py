"""`mlperf-check followup`: the command line's shell over checker.analysis.followup (which
matches each Preview result to its Available successor and judges it): it reads both tables,
calls the analysis, and writes the outcomes."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..analysis.followup import FORMATS, check_order, counts, follow_up, load_mapping, table_round
from ..errors import naming
from ..output import Plan
from ..rounds import load_round
from ..settings import Invocation, UsageError, round_file
from . import common, inputs


# --- the command ---------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class CommandLine:
    """followup's command line."""

    previous: str
    current: str
    previous_round: str | None = None
    current_round: str | None = None
    mapping: str | None = None
    format: str | None = None
    output: str | None = None
    progress: bool = True


@dataclass(frozen=True, kw_only=True)
class Invoked(Invocation[CommandLine]):
    previous_round: str | None  # given, or detected from a --previous tree
    current_round: str | None
    names: dict[str, str] | None  # --mapping: previous system -> current system


def invocation(options: CommandLine) -> Invoked:
    """The outputs, both rounds (given and known, or detected from a tree), and the mapping."""
    name = common.choose(FORMATS, options.format, options.output)
    rounds = (options.previous_round, options.current_round)
    plan = Plan(reads=[options.mapping, *(round_file(r) for r in rounds)], trees=[options.previous, options.current])
    outputs = ((name, plan.add(options.output)),)
    for given, option in ((options.previous_round, "--previous-round"), (options.current_round, "--current-round")):
        if given is not None:
            with naming(option):
                load_round(given)
    sides = (
        (options.previous, options.previous_round, "--previous"),
        (options.current, options.current_round, "--current"),
    )
    for item, _, option in sides:
        if not os.path.exists(item):
            raise UsageError(f"{option} {item}: no such file or folder")
    detected = [
        common.round_name(given, item, f"{option}: ") if os.path.isdir(item) else given for item, given, option in sides
    ]
    names = load_mapping(options.mapping) if options.mapping else None  # a UserFileError is a UsageError
    return Invoked(
        options=options, plan=plan, outputs=outputs, previous_round=detected[0], current_round=detected[1], names=names
    )


def run(invocation: Invoked) -> int:
    """Follow the preview results up; 1 when one is degraded or missing."""
    options = invocation.options
    before = inputs.table_rows(options.previous, invocation.previous_round, shown=options.progress)
    after = inputs.table_rows(options.current, invocation.current_round, shown=options.progress)
    previous_round = table_round(before.labelled, options.previous, invocation.previous_round, "--previous-round")
    current_round = table_round(after.labelled, options.current, invocation.current_round, "--current-round")
    check_order(previous_round, current_round)
    report = follow_up(before.rows, after.rows, invocation.names, current_round)
    common.emit(invocation.plan, FORMATS, invocation.format, invocation.target, report)
    if options.output not in (None, "-") or invocation.format != "text":
        common.say(
            f"follow-up: {', '.join(f'{n} {status}' for status, n in counts(report).items())}"
            + (" (exit 1: a preview result is degraded or missing)" if report.failed else "")
        )
    return 1 if report.failed else 0
