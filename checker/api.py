"""The Python API (the package `mlperf_check`, docs/api.md): DataFrames in, DataFrames out.

Each function here asks the question its command asks, of the same core: `check` is
engine.check, `load_table`, `compare`, `across_rounds` and `claims` are checker/analysis
(the one typed reader and table, the one selection, the one comparable-group key), and
`reproduce` is commands/reproduce.py's. So the API and the command line give the same
numbers (tests/test_api.py and tests/test_api_equals_cli.py hold them to it). Nothing here
prints or writes, except `across_rounds(..., plot=PATH)`, which draws the plot
`compare --across-rounds --plot` draws.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import settings
from .analysis import OUTLIER, TOLERANCE
from .errors import api_door
from .findings import Finding, ResultRecord
from .wording import counted

if TYPE_CHECKING:
    import pandas as pd

    from .analysis.table import Row

TABLES_VARIABLE = "MLPERF_CHECK_TABLES"  # the folder of the published tables, one folder per round
BY = ("model", "scenario", "kind", "hardware", "per_node", "nodes")  # table.GROUP_KEY but round and units
Filter = str | Iterable[str] | None


# --- check -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Report:
    """What `check` found: the round, the checked folder, one ResultRecord per result and
    every Finding. `to_frame()` gives one row per result, `to_frame("findings")` one per finding."""

    round: str
    root: str
    results: list[ResultRecord]
    findings: list[Finding]

    def to_frame(self, what: str = "results") -> pd.DataFrame:
        """One row per result (round, location, division, submitter, system, benchmark, model,
        scenario, verdict valid or invalid, metric, units) or, with "findings", one row per
        finding (code, severity, location, path, pointer, line, column, message, waived)."""
        import pandas as pd

        if what == "results":
            return pd.DataFrame.from_records(
                [
                    {
                        "round": self.round,
                        "location": r.location,
                        "division": r.division,
                        "submitter": r.submitter,
                        "system": r.system,
                        "benchmark": r.benchmark,
                        "model": r.model,
                        "scenario": r.scenario,
                        "verdict": "valid" if r.valid else "invalid",
                        "metric": r.metric["value"] if r.metric else None,
                        "units": r.metric["units"] if r.metric else None,
                    }
                    for r in self.results
                ],
                columns=list(RESULT_COLUMNS),
            ).astype(RESULT_COLUMNS)
        if what == "findings":
            return pd.DataFrame.from_records(
                [
                    {
                        "code": f.code,
                        "severity": f.severity.value,
                        "location": f.location,
                        "path": f.path,
                        "pointer": f.pointer,
                        "line": f.line,
                        "column": f.column,
                        "message": f.message,
                        "waived": f.waived,
                    }
                    for f in self.findings
                ],
                columns=list(FINDING_COLUMNS),
            ).astype(FINDING_COLUMNS)
        raise settings.UsageError(f"to_frame gives results or findings, not {what!r}")


RESULT_COLUMNS = {
    "round": "string",
    "location": "string",
    "division": "string",
    "submitter": "string",
    "system": "string",
    "benchmark": "string",
    "model": "string",
    "scenario": "string",
    "verdict": "string",
    "metric": "float64",
    "units": "string",
}
FINDING_COLUMNS = {
    "code": "string",
    "severity": "string",
    "location": "string",
    "path": "string",
    "pointer": "string",
    "line": "Int64",
    "column": "Int64",
    "message": "string",
    "waived": "string",
}


@api_door
def check(path: str | os.PathLike[str], round: str | None = None, **options: Any) -> Report:
    """Check the submission tree at `path` with its round (a name such as "v6.1" or a round
    file; detected from the tree when None, as `mlperf-check check` does). `options` are the
    engine's: select and ignore (codes or prefixes), jobs, strict, inference_repo. ValueError
    for a path that does not exist or is not a folder, a round that cannot be found or read, a
    tree that holds no results (the command line's exit 2 and message); a warning when the
    round is not detected and the newest is used, as the command line does."""
    from .analysis.published import NoResults
    from .detect import detect
    from .engine import check as run

    round = settings.text(round, "round", paths=True)
    options = _engine_options(options)
    root = os.fspath(settings.text(path, "path", paths=True) or "")
    if not os.path.lexists(root):
        raise settings.UsageError(f"{root}: no such file or folder")
    if not os.path.isdir(root):
        raise settings.UsageError(f"{root}: not a folder; check takes a submission tree (load_table reads a table)")
    if round is None:
        found = detect(root)
        if found.round is None:
            raise settings.UsageError(found.reason)
        if found.reason.startswith("not detected"):  # the command line says so too, and goes on
            warnings.warn(f"{root}: round {found.reason}", stacklevel=3)
        round = found.round
    report = run(root, round, **options)
    if not report.results:
        raise NoResults(root, report.round)  # a ValueError with the command line's reason
    return Report(report.round.name, report.root, report.results, report.findings)


ENGINE_OPTIONS = ("select", "ignore", "jobs", "strict", "inference_repo")


def _engine_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """check's options, each checked as the command line checks its option: select and
    ignore a code, a prefix or a rule's name, or a list of them ("PRV" is one prefix, and
    "PRF,SYS" two, as --select takes them); jobs a whole number, 0 (every core) or more;
    strict True or False; inference_repo a path. A WrongType (a TypeError) or UsageError (a
    ValueError) names the parameter and what was given."""
    unknown = sorted(set(options) - set(ENGINE_OPTIONS))
    if unknown:
        raise settings.WrongType(
            f"check() got an unknown option {', '.join(unknown)}; the options are {', '.join(ENGINE_OPTIONS)}",
            unknown[0],
        )
    checked: dict[str, Any] = {}
    for key in ("select", "ignore"):
        if key in options:
            checked[key] = settings.names(options[key], key)
    if "jobs" in options:
        checked["jobs"] = settings.whole(options["jobs"], "jobs", 0, settings.JOBS)
    if "strict" in options:
        checked["strict"] = settings.flag(options["strict"], "strict")
    if "inference_repo" in options:
        checked["inference_repo"] = settings.text(options["inference_repo"], "inference_repo", paths=True)
    return checked


# --- tables ----------------------------------------------------------------------------------
@api_door
def load_table(path_or_round: str | os.PathLike[str], round: str | None = None) -> pd.DataFrame:
    """One published results table (any round's format: a JSON list, v6.1's object keyed
    "0", "1", ..., or the CSV of `mlperf-check table`), a folder holding one, a checked
    submission tree (its valid results), or a round's name ("v6.1": its table in the folder
    $MLPERF_CHECK_TABLES/v6.1) as one DataFrame of the canonical columns (docs/api.md),
    `round` among them. `round` names the round of rows that do not say theirs (a tree's
    round is detected when None). A row whose values break their declared types is left out
    with a warning (warnings.warn) naming the file, the row and the column, and so are a
    tree's invalid results; rows whose round is said nowhere have round <NA>, with a warning.
    ValueError for what is not a results table (a file lacking a column the canonical
    columns are made of is one, naming it) and for a round this version does not know."""
    from .analysis.reader import left_out_lines, rows_of
    from .analysis.table import frame, normalise
    from .rounds import available_rounds

    path_or_round = settings.text(path_or_round, "path_or_round", paths=True) or ""
    round = settings.text(round, "round")
    if round is not None and round not in available_rounds():
        raise settings.UsageError(f"round {round!r}: not a round this version knows ({', '.join(available_rounds())})")
    source = _table_path(os.fspath(path_or_round))
    if round is None and os.path.isdir(source):
        round = _detected(source)
    table = rows_of(source, round)
    for line in left_out_lines(source, table.left_out):
        warnings.warn(line, stacklevel=3)
    if table.invalid:
        warnings.warn(
            f"{source}: {counted(table.invalid, 'invalid result')} left out (`mlperf-check check` says why)",
            stacklevel=3,
        )
    unnamed = sum(1 for row in table.rows if not row.get("version"))
    if unnamed and round is None:
        warnings.warn(
            f"{source}: {unnamed} rows do not name their round (no version column): their round is <NA>; "
            "give round= to name it",
            stacklevel=3,
        )
    return frame(normalise(table.rows, round))


def _detected(root: str) -> str:
    from .detect import detect

    found = detect(root)
    if found.round is None:
        raise settings.UsageError(found.reason)
    return found.round


def _table_path(given: str) -> str:
    """The file (or tree) `load_table` reads for what it was given."""
    from .rounds import available_rounds, load_round
    from .workspace import WorkspaceError, locate

    rounds = [load_round(name) for name in available_rounds()]
    if os.path.isdir(given):
        # A submission tree (or a part of one: workspace.locate) is checked; another folder
        # holding one round's table file is that table.
        try:
            if locate(given, deletions=False).tree:
                return given
        except WorkspaceError:
            pass
        names = {r.table.file for r in rounds if r.table is not None}
        held = sorted(name for name in names if os.path.isfile(os.path.join(given, name)))
        return os.path.join(given, held[0]) if len(held) == 1 else given
    if os.path.exists(given) or given not in available_rounds():
        return given
    folder = os.environ.get(TABLES_VARIABLE)
    if not folder:
        raise settings.UsageError(
            f"{given}: set {TABLES_VARIABLE} to the folder of the published tables, or give the file"
        )
    table = load_round(given).table
    if table is None:
        raise settings.UsageError(f"{given}: the round has no published table")
    return os.path.join(folder, given, table.file)


def _frame(tables: pd.DataFrame | Iterable[pd.DataFrame]) -> pd.DataFrame:
    """One frame of load_table's columns, each result once (a duplicate is left out with the
    command line's warning: a counted note, or one naming both rows and values when their
    results differ); a ValueError naming the columns a frame lacks."""
    from .analysis.table import without_duplicates

    table, positions = _typed(tables, stacklevel=5)
    table, duplicates = without_duplicates(table, positions)
    for line in duplicates.lines():
        warnings.warn(line, stacklevel=4)
    return table


def _typed(tables: pd.DataFrame | Iterable[pd.DataFrame], stacklevel: int = 4) -> tuple[pd.DataFrame, list[str]]:
    """One frame of load_table's columns typed by the reader's declarations, and where each
    of its rows is in the frames given (`frame row 3`, `frame 1 row 0`)."""
    import pandas as pd

    from .analysis.reader import left_out_lines
    from .analysis.table import COLUMNS, typed_frame

    if isinstance(tables, (str, bytes, os.PathLike)) or not isinstance(tables, (pd.DataFrame, Iterable)):
        raise settings.WrongType(f"give a DataFrame of load_table or a list of them, not {type(tables).__name__}")
    frames = [tables] if isinstance(tables, pd.DataFrame) else list(tables)
    typed = []
    positions: list[str] = []
    for number, frame in enumerate(frames):
        if not isinstance(frame, pd.DataFrame):
            raise settings.WrongType(f"give DataFrames of load_table, not {type(frame).__name__}")
        missing = [column for column in COLUMNS if column not in frame.columns]
        if missing:
            raise settings.UsageError(f"not a frame of load_table's columns: it lacks {', '.join(missing)}")
        source = "frame" if len(frames) == 1 else f"frame {number}"
        kept, left_out = typed_frame(frame, source)  # the reader's declarations: what a file would keep
        for line in left_out_lines(source, left_out):
            warnings.warn(line, stacklevel=stacklevel)
        if len(frame) and not len(kept):
            warnings.warn(f"{source}: every row is left out ({counted(len(frame), 'row')})", stacklevel=stacklevel)
        positions += [f"{source} row {index!r}" for index in kept.index]
        typed.append(kept.reset_index(drop=True))
    if not typed:
        raise settings.UsageError("no table given")
    return (typed[0] if len(typed) == 1 else pd.concat(typed, ignore_index=True)), positions


def _selection(filters: Mapping[str, Filter]) -> Any:
    from .analysis.selection import Selection

    return Selection.of(**filters)


# --- compare ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Compared:
    """What `compare` gives: `members` (one row per member of a comparable group) and
    `groups` (one row per group); `notes` say what the filters pooled. Unpacks as
    `members, groups = compare(...)`."""

    members: pd.DataFrame
    groups: pd.DataFrame
    notes: list[str]

    def __iter__(self) -> Iterator[pd.DataFrame]:
        return iter((self.members, self.groups))


@api_door
def compare(
    frame: pd.DataFrame,
    reference: str | None = None,
    tolerance: float = TOLERANCE,
    by: Sequence[str] = BY,
    *,
    outlier: float = OUTLIER,
    min_submitters: int = 2,
    division: Filter = "closed",
    **filters: Filter,
) -> Compared:
    """`compare`'s comparable groups of `frame` (load_table's columns): the rows of
    `division` that the filters (model, scenario, submitter, accelerator, round) take,
    grouped by `by` and always by round and units. `reference` is None for the group median,
    or a submitter's name ("AMD", or "submitter:AMD" as the command line writes it). Members:
    the group number, its key, the row's columns, role (reference or partner), reference,
    deviation (positive is better), deviation_from_median, abs_dev, beyond_tolerance and
    outlier. Groups: the group number, its key, reference_submitter, reference, n, partners,
    submitters, mean_abs_dev, median_abs_dev, max_abs_dev, cv, within_tolerance, beyond,
    outliers."""
    from .analysis import compare as command

    command.check_options(tolerance, outlier, min_submitters)
    by = settings.columns(by, "by")
    name = command.reference_name(reference)  # as compare --reference reads it
    frame = _frame(frame)
    unknown = [key for key in by if key not in frame.columns]
    if unknown:
        raise settings.UsageError(f"by names no column of the frame: {', '.join(unknown)}")
    if not len(frame):  # as the command line: nothing measured, no verdict (issue 33)
        raise settings.UsageError("frame: no result rows to compare: nothing measured there")
    selection = _selection({**filters, "division": division})
    chosen = frame[selection.taken(frame)] if len(frame) else frame
    members = command.compare(
        command.comparable(chosen), name, tolerance, by, outlier=outlier, min_submitters=min_submitters
    )
    groups = command.groups_of(members, tolerance, by)
    notes = selection.notes(chosen["hardware"].astype(str))
    return Compared(_noted(members, notes), _noted(groups, notes), notes)


def _noted(frame: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """`frame` carrying the selection's notes in `frame.attrs["notes"]` (docs/api.md), as every
    output of the command line prints them."""
    frame.attrs["notes"] = list(notes)
    return frame


# --- across rounds ---------------------------------------------------------------------------
@api_door
def across_rounds(
    frames: pd.DataFrame | Iterable[pd.DataFrame],
    *,
    scaling: bool = False,
    across_submitters: bool = False,
    division: Filter = "closed",
    plot: str | os.PathLike[str] | None = None,
    **filters: Filter,
) -> pd.DataFrame:
    """`compare --across-rounds` on the rows of `frames` (load_table's, of two or more rounds)
    that the filters take: one row per round of each series (the best result of each
    benchmark and hardware key per round, overall and per submitter) with `ratio`, the ratio
    to the first round (above 1 is faster); with `scaling`, also the scaling series (`kind`
    scaling, `ratio` the efficiency). `plot` draws the ratios into that SVG file."""
    import pandas as pd

    from .analysis import across
    from .analysis.table import rows

    scaling = settings.flag(scaling, "scaling")
    across_submitters = settings.flag(across_submitters, "across_submitters")
    plot = settings.text(plot, "plot", paths=True)
    if plot is not None:  # before any work, as the command line checks --plot
        from .analysis import plots

        plots.image_format(os.fspath(plot), "plot")
        folder = os.path.dirname(os.fspath(plot)) or "."
        if not os.path.isdir(folder):
            raise settings.UsageError(f"plot {os.fspath(plot)}: no folder {folder}", "plot")
    table = _frame(frames)
    found = across.follow(rows(table), _selection({**filters, "division": division}), scaling, across_submitters)
    if plot is not None:
        plots.rounds(
            found.series, os.fspath(plot), found.division, sorted({row.round for row in found.rows if row.round})
        )
    return _noted(
        pd.DataFrame.from_records(across.records(found.series, found.scalings), columns=list(across.CSV_COLUMNS)),
        found.notes,
    )


# --- claims ----------------------------------------------------------------------------------
@api_door
def claims(
    spec: str | os.PathLike[str] | Mapping[str, Any] | Sequence[Mapping[str, Any]],
    tables: Mapping[str, pd.DataFrame | str | os.PathLike[str]] | pd.DataFrame | Iterable[pd.DataFrame],
    **filters: Filter,
) -> pd.DataFrame:
    """Judge claims (a claims file, schemas/claims.schema.json, or its document already read:
    {"claims": [...]} or the list) on the tables' rows that the filters take. `tables` maps
    each round to its table (a DataFrame of load_table, or anything load_table reads), or
    is frames whose `round` column says it. One row per claim: id, kind, text, verdict
    (holds, fails, no-data, ambiguous), measured, expect, notes (a list) and rows (the rows
    it rests on, as dicts). ValueError for a claims document that is not valid."""
    import pandas as pd

    from .analysis import claims as command
    from .analysis.table import rows

    if isinstance(spec, (str, os.PathLike)):
        listed = command.load_claims(os.fspath(spec))
    elif not isinstance(spec, (Mapping, list, tuple)) or (
        not isinstance(spec, Mapping) and not all(isinstance(claim, Mapping) for claim in spec)
    ):
        raise settings.WrongType(
            f"spec {settings.shown(spec)}: give a claims file, its document ({{'claims': [...]}}) or its list of claims",
            "spec",
        )
    else:
        listed = command.claims_of(dict(spec) if isinstance(spec, Mapping) else [dict(claim) for claim in spec], "spec")
    by_round: dict[str, list[Row]] = {}
    positions: dict[str, list[str]] = {}
    if isinstance(tables, Mapping):
        for name, value in tables.items():
            settings.text(name, "tables (a round's name)")
            given = value if isinstance(value, pd.DataFrame) else load_table(value, round=name)
            typed, where = _typed(given)
            found = rows(typed)
            by_round.setdefault(name, []).extend(command.of_round(f"tables[{name!r}]", name, found))
            positions.setdefault(name, []).extend(f"tables[{name!r}]: {place}" for place in where)
    else:
        typed, where = _typed(tables)
        for row, place in zip(rows(typed), where, strict=True):
            by_round.setdefault(row.round, []).append(row)
            positions.setdefault(row.round, []).append(place)
    source = os.fspath(spec) if isinstance(spec, (str, os.PathLike)) else "spec"
    verdicts, notes = command.judged(
        listed, by_round, _selection(filters), _warning, positions, source, "a table in tables"
    )
    return _noted(
        pd.DataFrame.from_records(
            [v.to_dict() for v in verdicts],
            columns=["id", "kind", "text", "verdict", "measured", "expect", "notes", "rows"],
        ),
        notes,
    )


def _warning(message: str) -> None:
    """What a command prints as a warning, as a Python warning of the caller."""
    warnings.warn(message, stacklevel=5)


# --- reproduce -------------------------------------------------------------------------------
@api_door
def reproduce(
    original: str | os.PathLike[str],
    reproduction: str | os.PathLike[str],
    round: str | None = None,
    tolerance: float | None = None,
) -> dict[str, Any]:
    """`mlperf-check reproduce`: the reproduction checked and compared with the original
    result folder (.../<system>/<benchmark>/<scenario>), as its JSON output gives it:
    deviation (positive is better), accuracy_deltas, within_tolerance, mismatched_settings,
    reproduction_valid, identical_logs, ... and `failed`. `round` is detected from the
    original when None; `tolerance` defaults to the round's audit threshold."""
    from .commands import reproduce as command
    from .detect import detect_result
    from .rounds import load_round

    original = settings.text(original, "original", paths=True) or ""
    reproduction = settings.text(reproduction, "reproduction", paths=True) or ""
    round = settings.text(round, "round", paths=True)
    settings.fraction(tolerance, "tolerance")  # what reproduce --tolerance takes: 0.05 for 5%
    if round is None:
        found = detect_result(os.fspath(original))
        if found.round is None:
            raise settings.UsageError(found.reason)
        round = found.round
    the_round = load_round(round)
    result = command.reproduce(os.fspath(original), os.fspath(reproduction), the_round, tolerance)
    return {**dataclasses.asdict(result), "failed": result.failed}


__all__ = ["BY", "Compared", "Report", "across_rounds", "check", "claims", "compare", "load_table", "reproduce"]
