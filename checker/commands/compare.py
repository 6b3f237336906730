"""`mlperf-check compare`: the command line's shell over checker.analysis.compare (which holds
the definition, the frames and the words): it reads the inputs, calls the analysis, and
writes the report, the HTML page and the plot."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..analysis import OUTLIER, TOLERANCE
from ..analysis.compare import (
    Comparison,
    Options,
    check_options,
    compared_rows,
    comparison,
    document,
    groups_summary,
    groups_view,
    reference_name,
    to_csv,
    to_text,
)
from ..analysis.selection import Selection
from ..analysis.table import normalise
from ..output import Plan, Target
from ..reporters import Formats, as_data, as_json, as_text
from ..settings import Invocation, UsageError, round_file
from .common import emit


def to_html(found: Comparison) -> str:
    """One HTML page in the audit report's look (checker/commands/templates/compare.html.j2): the
    definition, a row per group with percentages and units, and each group's members with
    their flags and the outliers' reasons, as the text output words them."""
    from ..analysis import plots
    from .html import render

    groups = list(found.each())
    rounds = ", ".join(sorted({str(group["round"]) for group, _ in groups}))
    interactivity, why = plots.throughput_images(groups)
    return render(
        "compare.html.j2",
        title=f"mlperf-check compare: comparable results{', ' + rounds if rounds else ''}",
        rounds=rounds,
        plots=plots.images(groups, found.options) if groups else [],
        plot_missing="",
        interactivity=interactivity,
        interactivity_missing=why if plots.token_groups(groups) else "",
        interactivity_definition=plots.INTERACTIVITY,
        definition=" ".join([found.options.definition(), *found.selection.lines(found.notes)]).strip(),
        groups=groups_view(found),
        summary=groups_summary(found),
    )


FORMATS = Formats(
    {"text": as_text(to_text), "json": as_json(document), "csv": as_text(to_csv), "html": as_data(to_html)}
)  # escaped by its templates


# --- the command ---------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class CommandLine:
    """compare's command line."""

    inputs: list[str]
    round: list[str] | None = None  # the round filter; one round is also the trees' round
    tolerance: float = TOLERANCE
    outlier: float = OUTLIER
    reference: str = "median"
    min_submitters: int = 2
    format: str | None = None
    output: str | None = None
    plot: str | None = None
    across_rounds: bool = False
    scaling_across_submitters: bool = False
    progress: bool = True
    # The filters (published.Selection); --round is one too: the rows of that round only.
    model: list[str] | None = None
    scenario: list[str] | None = None
    submitter: list[str] | None = None
    accelerator: list[str] | None = None
    division: list[str] | None = None

    @property
    def tree_round(self) -> str | None:
        """The round of the submission trees: the one --round (a name, case-blind, or a round
        file), or None (detected per tree) when none or several are given."""
        if not self.round or len(self.round) > 1:
            return None
        return round_named(self.round[0])

    def selection(self, rounds: list[str] | None) -> Selection:
        """The rows the command line takes; `rounds` the names of --round's rounds."""
        return Selection.of(
            model=self.model,
            scenario=self.scenario,
            submitter=self.submitter,
            accelerator=self.accelerator,
            round=rounds,
            division=self.division,
        )


def round_named(given: str) -> str:
    """A --round value as a round's name when it names one case-blind ("V6.0" is v6.0), else
    as given (a round file): selection.round_spelled, the filters' reading."""
    from ..analysis.selection import round_spelled
    from ..rounds import available_rounds

    spelled = round_spelled(given)
    return spelled if spelled in available_rounds() else given


@dataclass(frozen=True, kw_only=True)
class Invoked(Invocation[CommandLine]):
    plot: Target | None  # --plot


def invocation(options: CommandLine) -> Invoked:
    """The format (--across-rounds writes its own), the options checked, the outputs."""
    import os

    from .common import choose

    if options.across_rounds:
        from ..analysis.across import FORMATS as ACROSS

        if options.format is not None and options.format not in ACROSS.writers:
            raise UsageError(
                f"--across-rounds writes {', '.join(ACROSS.names[:-1])} or {ACROSS.names[-1]}, not {options.format!r}"
            )
        name = choose(ACROSS, options.format, options.output)
    else:
        name = choose(FORMATS, options.format, options.output)
    reference_name(options.reference)  # the one reading of a reference, as the API's
    check_options(options.tolerance, options.outlier, options.min_submitters)
    if options.scaling_across_submitters and not options.across_rounds:
        raise UsageError("--scaling-across-submitters goes with --across-rounds")
    inputs = options.inputs
    plan = Plan(
        reads=[
            *(round_file(round_named(r)) for r in options.round or ()),
            *(i for i in inputs if not os.path.isdir(i)),
        ],
        trees=[i for i in inputs if os.path.isdir(i)],
    )
    outputs = ((name, plan.add(options.output)),)
    plot = plan.add(options.plot, "--plot")
    if options.plot is not None:
        from ..analysis.plots import image_format

        image_format(options.plot)  # an .svg file, before anything is read or written
    return Invoked(options=options, plan=plan, outputs=outputs, plot=plot)


def run(invocation: Invoked) -> int:
    """Compare (or follow the hardware across rounds), write the report and the plot."""
    from .common import load, pages

    options = invocation.options
    rounds = [load(round_named(r)).name for r in options.round or ()]
    selection = options.selection(rounds or None)
    rows = _compared_rows(options.inputs, options.tree_round, options.progress)
    if options.across_rounds:
        return _across_rounds(invocation, rows, selection)
    division = tuple(d.strip().lower() for d in options.division or ("closed",))
    found = comparison(
        rows,
        Options(options.tolerance, options.outlier, options.reference, options.min_submitters, division),
        selection,
    )
    emit(invocation.plan, FORMATS, invocation.format, invocation.target, found)
    noted(invocation.format, found.notes)
    if invocation.plot is not None:
        pages(invocation.plan, invocation.plot, lambda page: _plots(found, page))
    return 0


def _plots(found: Comparison, path: str) -> list[str]:
    """compare's plot pages at `path`: the deviations, then, when a group is a token
    benchmark, throughput against interactivity (`<stem>-interactivity<ext>`)."""
    from ..analysis import plots

    groups = list(found.each())
    written = plots.deviations(groups, found.options, path)
    if plots.token_groups(groups):
        written += plots.throughput(groups, path)
    return written


def noted(format: str, notes: list[str]) -> None:
    """The selection's notes on stderr (`note: ...`) for a format that has no place for them
    (CSV: one row per member); the others print them with the selection."""
    from .common import say

    if format == "csv":
        for note in notes:
            say(f"note: {note}")


def _compared_rows(inputs: list[str], round: str | None, progress: bool) -> list[dict[str, Any]]:
    """Read compare's inputs (a tree's round given or detected); analysis.compare.compared_rows
    keeps each result once."""
    import os

    from .common import round_name, warn
    from .inputs import table_rows

    tables = []
    for item in inputs:
        if not os.path.exists(item):
            raise UsageError(f"{item}: no such file or folder")
        name = round_name(round, item, f"{item}: ") if os.path.isdir(item) else round
        tables.append((item, table_rows(item, name, with_description=True, shown=progress)))
    return compared_rows(tables, round, warn)


def _across_rounds(invocation: Invoked, rows: list[dict[str, Any]], selection: Selection) -> int:
    from ..analysis import across, plots
    from .common import pages

    options = invocation.options
    within = dataclasses.replace(selection, division=tuple(options.division or ()))
    found = across.follow(normalise(rows), within, True, options.scaling_across_submitters)
    emit(
        invocation.plan,
        across.FORMATS,
        invocation.format,
        invocation.target,
        found.series,
        found.scalings,
        selection,
        found.notes,
    )
    noted(invocation.format, found.notes)
    if invocation.plot is not None:
        rounds = sorted({row.round for row in found.rows if row.round})
        pages(invocation.plan, invocation.plot, lambda page: plots.rounds(found.series, page, found.division, rounds))
    return 0
