"""`mlperf-check claims`: the command line's shell over checker.analysis.claims (which reads
the claims and judges them): it reads the tables, calls the analysis, and writes the verdicts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..analysis.claims import FORMATS, judged, load_claims, of_round
from ..analysis.selection import FILTERS, Selection
from ..analysis.table import Row, normalise
from ..output import Plan
from ..settings import Invocation, UsageError
from . import common, inputs


# --- the command ---------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class CommandLine:
    """claims' command line."""

    claims_file: str
    table: list[str]
    format: str | None = None
    output: str | None = None
    progress: bool = True
    # The filters (published.Selection): the tables' rows the claims are judged on.
    model: list[str] | None = None
    scenario: list[str] | None = None
    submitter: list[str] | None = None
    accelerator: list[str] | None = None
    round: list[str] | None = None
    division: list[str] | None = None

    def selection(self) -> Selection:
        return Selection.of(**{key: getattr(self, key) for key in FILTERS})


@dataclass(frozen=True, kw_only=True)
class Invoked(Invocation[CommandLine]):
    listed: list[dict[str, Any]]  # the claims, read


def invocation(options: CommandLine) -> Invoked:
    import os

    name = common.choose(FORMATS, options.format, options.output)
    paths = [path for _, _, path in (t.partition("=") for t in options.table) if path]
    plan = Plan(
        reads=[options.claims_file, *(p for p in paths if not os.path.isdir(p))],
        trees=[p for p in paths if os.path.isdir(p)],
    )
    outputs = ((name, plan.add(options.output)),)
    listed = load_claims(options.claims_file)  # a ClaimsError is a UsageError: exit 2
    return Invoked(options=options, plan=plan, outputs=outputs, listed=listed)


def run(invocation: Invoked) -> int:
    """Judge every claim on the rows of its rounds' tables; 1 unless every claim holds."""
    options = invocation.options
    rows: dict[str, list[Row]] = {}
    positions: dict[str, list[str]] = {}
    for item in options.table:
        name, found, where = _table(item, options.progress)
        rows.setdefault(name, []).extend(found)
        positions.setdefault(name, []).extend(where)
    selection = options.selection()
    verdicts, notes = judged(invocation.listed, rows, selection, common.warn, positions, options.claims_file)
    common.emit(invocation.plan, FORMATS, invocation.format, invocation.target, verdicts, selection, notes)
    return 0 if all(v.verdict == "holds" for v in verdicts) else 1


def _table(item: str, shown: bool) -> tuple[str, list[Row], list[str]]:
    """The round, the rows of one --table ROUND=PATH, and where each row is."""
    import os

    name, sep, path = item.partition("=")
    if not sep or not name or not path:
        raise UsageError(f"--table {item!r}: give ROUND=PATH, e.g. v6.1=summary.json")
    if not os.path.exists(path):
        raise UsageError(f"--table {item}: {path}: no such file or folder")
    common.load(name)
    table = inputs.table_rows(path, name, shown=shown)
    return name, of_round(f"--table {item}", name, normalise(table.rows, name)), table.positions()
