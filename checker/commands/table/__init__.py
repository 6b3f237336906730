"""`mlperf-check table`: the published results table, per round, built from the checked tree.

The command's shell: the table itself (collecting a result's facts, a round's published
format, reading tables back) is checker.analysis.published, which the analyses read too."""

from __future__ import annotations

from dataclasses import dataclass

from ...analysis.published import (
    DESCRIPTION_FIELDS,
    FORMATS,
    TEXT_KEYS,
    NoResults,
    TableFormat,
    dumps,
    formats,
    normalise,
    publish,
    published_numbers,
    render,
    table_row,
    to_csv,
    valid_rows,
)
from ...settings import Invocation, UsageError
from ...wording import counted
from .. import common

__all__ = [
    "DESCRIPTION_FIELDS",
    "FORMATS",
    "TEXT_KEYS",
    "NoResults",
    "TableFormat",
    "dumps",
    "formats",
    "normalise",
    "publish",
    "published_numbers",
    "render",
    "table_row",
    "to_csv",
    "valid_rows",
]


@dataclass(frozen=True, kw_only=True)
class CommandLine:
    """table's command line."""

    path: str
    round: str | None = None
    format: str | None = None
    output: str | None = None
    publish_base: str | None = None
    first_id: int | None = None
    jobs: int | None = None
    progress: bool = True


@dataclass(frozen=True, kw_only=True)
class Invoked(Invocation[CommandLine]):
    table: TableFormat  # the round's published format


def invocation(options: CommandLine) -> Invoked:
    common.folder(options.path)
    name = common.choose(FORMATS, options.format, options.output)
    if (options.publish_base is None) != (options.first_id is None):
        raise UsageError("--publish-base and --first-id go together")
    if options.first_id is not None and options.first_id < 1:
        raise UsageError(f"--first-id {options.first_id}: give a whole number, 1 or more (the first row's ID)")
    tree = common.on_tree(options, options.path, {"round": options.round, "jobs": options.jobs})
    assert tree.round is not None
    fmt = TableFormat.of(tree.round)
    if fmt is None:
        raise UsageError(f"round {tree.round.name} has no results-table format (`table:` in its round file)")
    if options.publish_base is not None and not fmt.publication:
        raise UsageError(
            f"the {tree.round.name} table ({fmt.table.file}) has no ID, Details, Code or ColorKey; "
            "leave out --publish-base and --first-id"
        )
    outputs = ((name, tree.plan.add(options.output)),)
    return tree.extended(Invoked, outputs=outputs, table=fmt)


def run(invocation: Invoked) -> int:
    from ...engine import check

    options, fmt, the_round = invocation.options, invocation.table, invocation.round
    assert the_round is not None and invocation.round_name is not None
    with common.progress(options.progress) as tick:
        report = check(options.path, the_round, jobs=invocation.settings.jobs or None, progress=tick, collect=table_row)
    if not report.results:
        raise common.no_results(options.path, the_round)
    rows = render(valid_rows(report), fmt, options.publish_base, options.first_id)
    common.emit(invocation.plan, FORMATS, invocation.format, invocation.target, rows, fmt)
    left_out = sum(1 for r in report.results if not r.valid)
    common.say(
        f"{counted(len(rows), 'row')} in the {the_round.name} table format ({fmt.table.file}); "
        f"{counted(left_out, 'invalid result')} left out (`mlperf-check check` says why)"
    )
    return 3 if any(f.code == "INT001" for f in report.findings) else 0
