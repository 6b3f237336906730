"""Rows of published results tables, made comparable across formats and rounds.

The three published formats (and the CSV `table` writes) spell the same facts differently:
v6.1 writes folder scenarios (`offline`) and its own model labels (`VLM`), v6.0 and v6.1 end
`Location` in `/performance/run_1`, an open result names its own model (`llama3_1-8b`). A
`Row` holds each fact once, in the round's spelling: the model and scenario as the round
names them, the scenario folder, and a hardware key (the accelerator without its count, or
the processor of a CPU-only system; a system that mixes accelerators keeps its own key).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..parsers import number
from ..parsers.counts import per_part
from ..rounds import Round, RoundError, available_rounds, load_round

if TYPE_CHECKING:
    import pandas as pd

NOT_APPLICABLE = ("", "N/A", "n/a", "NA", "None", "-")
_COUNT_SUFFIX = re.compile(r"\s*\((?:x\s*)?\d+(?:\s*x\s*\d+)*\)\s*$", re.IGNORECASE)
_MIXED = re.compile(r"\s(?:\+|and)\s", re.IGNORECASE)


@dataclass(frozen=True)
class Row:
    round: str
    location: str  # the scenario folder: division/submitter/results/system/benchmark/scenario
    submitter: str
    division: str
    availability: str
    system: str
    model: str  # as the round names it
    scenario: str  # as the round spells it
    result: float | None
    units: str
    kind: str  # "accelerator" or "cpu"
    hardware: str  # the accelerator (count removed), or the processor of a CPU-only system
    per_node: int
    nodes: int
    mixed: bool = False
    interactivity: float | None = None  # tokens/s per user (`interactivity`); None where not measured
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def latency(self) -> bool:
        return self.units.startswith("Latency")

    @property
    def accelerators(self) -> int:
        """The total: nodes x per node (the published Total Accelerators)."""
        return self.nodes * self.per_node

    def summary(self) -> dict[str, Any]:
        """The facts a reader of a claim or comparison needs about the row."""
        return {
            "round": self.round,
            "location": self.location,
            "submitter": self.submitter,
            "division": self.division,
            "availability": self.availability,
            "result": self.result,
            "units": self.units,
        }


# The interactivity figure of a token benchmark: tokens per second per user, 1e9 over the run's
# measured p99 time per output token in nanoseconds (loadgen's
# result_time_per_output_token_99.00_percentile_ns; an Endpoints summary's tpot.percentiles
# "99.0"): the statistic the round's TPOT limit bounds, so 99% of the tokens came at least this
# fast. The published tables hold no TPOT: a table's rows have none ("not published"); a
# checked tree's rows have it where the run measured token latencies (Server, Interactive).
INTERACTIVITY = (
    "Interactivity: tokens per second per user, 1e9 / the run's p99 TPOT in ns (loadgen's "
    "result_time_per_output_token_99.00_percentile_ns, an Endpoints summary's tpot.percentiles 99.0), "
    "read from a submission tree's logs; the published tables hold no TPOT (not published)."
)


def interactivity(tpot_ns: Any) -> float | None:
    """Tokens per second per user from a p99 TPOT in nanoseconds; None without one."""
    value = number(tpot_ns)
    return 1e9 / value if value is not None and 0 < value < math.inf else None


@functools.lru_cache(maxsize=16)
def _round(name: str) -> Round | None:
    """The bundled round a row's `version` names, or None: a table's data never names a
    round file to read."""
    if name not in available_rounds():
        return None
    try:
        return load_round(name)
    except RoundError:
        return None


def _count(value: Any) -> int:
    """A count as the tables give it (8, "8", or 8.0 from a writer that types columns as
    floats); 0 for anything else."""
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    text = str(value).strip() if value is not None and not isinstance(value, (bool, float)) else ""
    return int(text) if text.isdigit() else 0


def _labels(round: Round | None) -> dict[str, str]:
    """Published label -> model (v6.1's `VLM` -> qwen3-vl-235b-a22b)."""
    labels = round.table.model_labels if round and round.table else {}
    return {label: model for model, label in labels.items()}


def model_of(row: dict[str, Any], round: Round | None) -> str:
    used, model = str(row.get("UsedModel") or ""), str(row.get("Model") or "")
    if round is not None:
        for name in (model, used):
            canonical = round.canonical_model(name) if name else None
            if canonical:
                return canonical
        if model in _labels(round):
            return _labels(round)[model]
    return model or used


def location_of(row: dict[str, Any]) -> str:
    return str(row.get("Location") or "").removeprefix("./").removesuffix("/performance/run_1")


_MARKS = re.compile(r"\((?:R|TM|C)\)|[\u00ae\u2122]", re.IGNORECASE)


def hardware_name(name: str) -> str:
    """A hardware name without trademark marks ("(R)", "(TM)", "®", "™") and with single
    spaces: "INTEL(R) XEON(R) 6980P" is "INTEL XEON 6980P". Case is folded where keys are
    compared (`one_spelling`), so that the name keeps a spelling its submitters wrote."""
    return " ".join(_MARKS.sub("", name).split())


def fold(name: str) -> str:
    """The key under which hardware names are one: marks and spaces removed, case folded."""
    return hardware_name(name).casefold()


def one_spelling(names: Iterable[str]) -> dict[str, str]:
    """Each of `names` -> the one spelling of its `fold`: the most frequent, ties broken by
    the sorted order. Every grouping of hardware (compare, across rounds, notes) keys on it,
    so "NVIDIA B300-SXM-270GB" and "Nvidia B300-SXM-270GB" are one hardware."""
    counts: dict[str, dict[str, int]] = {}
    for name in names:
        spellings = counts.setdefault(fold(name), {})
        spellings[name] = spellings.get(name, 0) + 1
    chosen = {key: min(spellings, key=lambda n: (-spellings[n], n)) for key, spellings in counts.items()}
    return {name: chosen[key] for key, spellings in counts.items() for name in spellings}


def hardware_of(row: dict[str, Any]) -> tuple[str, str, int, bool]:
    """(kind, hardware key, count per node, mixed) of a row; the key without trademark marks."""
    accelerator = hardware_name(str(row.get("Accelerator") or ""))
    per_node = _count(row.get("a#"))
    if per_node == 0 or accelerator in NOT_APPLICABLE:
        return "cpu", hardware_name(str(row.get("Processor") or "")), _count(row.get("p#")), False
    mixed = bool(per_part(accelerator)) or bool(_MIXED.search(accelerator))
    return "accelerator", (accelerator if mixed else _COUNT_SUFFIX.sub("", accelerator)), per_node, mixed


def normalise(rows: list[dict[str, Any]], round_name: str | None = None) -> list[Row]:
    """Rows (as `inputs.load_table` returns them) made comparable; `round_name` when the rows
    carry no `version`."""
    out = []
    for row in rows:
        name = str(row.get("version") or round_name or "")
        round = _round(name) if name else None
        scenario = str(row.get("Scenario") or "")
        scenario = (round.scenario_name(scenario) if round else None) or scenario
        kind, hardware, per_node, mixed = hardware_of(row)
        result = row.get("Performance_Result")
        out.append(
            Row(
                round=name,
                location=location_of(row),
                submitter=str(row.get("Submitter") or ""),
                division=str(row.get("Category") or ""),
                availability=str(row.get("Availability") or "").lower(),
                system=str(row.get("Platform") or ""),
                model=model_of(row, round),
                scenario=scenario,
                result=float(result) if result is not None and number(result) is not None else None,
                units=str(row.get("Performance_Units") or ""),
                kind=kind,
                hardware=hardware,
                per_node=per_node,
                nodes=_count(row.get("Nodes")) or 1,
                mixed=mixed,
                interactivity=interactivity(row.get("tpot_p99_ns")),
                raw=row,
            )
        )
    return out


# The one comparable-group key: results are compared (compare's groups, a claim, a series
# across rounds, the plots and the report's variance) only within one round, model, scenario,
# unit, hardware kind, hardware (in its one spelling), count per node and node count.
GROUP_KEY = ("round", "model", "scenario", "units", "kind", "hardware", "per_node", "nodes")


def grouped(rows: Sequence[Row]) -> dict[tuple[Any, ...], list[Row]]:
    """The rows by their comparable group (GROUP_KEY, the hardware in its one spelling), in
    the order each group first appears."""
    spelled = one_spelling(row.hardware for row in rows)
    found: dict[tuple[Any, ...], list[Row]] = {}
    for row in rows:
        key = tuple(spelled[row.hardware] if name == "hardware" else getattr(row, name) for name in GROUP_KEY)
        found.setdefault(key, []).append(row)
    return found


def group_name(key: Sequence[Any]) -> str:
    """A comparable group as people read it: `v6.0 llama2-70b-99 Offline, 8x NVIDIA B300 (Tokens/s)`."""
    fields = dict(zip(GROUP_KEY, key, strict=True))
    nodes = f" x {fields['nodes']} nodes" if fields["nodes"] != 1 else ""
    return (
        f"{fields['round']} {fields['model']} {fields['scenario']}, {fields['per_node']}x {fields['hardware']}"
        f"{nodes} ({fields['units']})"
    )


def best(rows: list[Row]) -> Row | None:
    """The best row: the highest throughput, or the lowest latency when the units are a latency."""
    scored = [(r.result, r) for r in rows if r.result is not None and r.result > 0]
    if not scored:
        return None
    pick = min if scored[0][1].latency else max
    return pick(scored, key=lambda pair: pair[0])[1]


def deviation(value: Any, reference: Any, latency: Any) -> Any:
    """How much better `value` is than `reference`, as a fraction: (x - ref) / ref for a
    throughput, (ref - x) / ref for a latency, so positive is better. Numbers or pandas
    Series alike: compare, claims and reproduce all measure a deviation with this."""
    change = (value - reference) / reference
    if isinstance(latency, bool):
        return -change if latency else change
    return change.where(~latency, -change)  # a Series of latency flags, one per value


def faster(a: Row, b: Row) -> float:
    """How many times faster b is than a (above 1: b is faster), whatever the units; NaN
    when either has no result."""
    if not a.result or not b.result:
        return math.nan
    return a.result / b.result if a.latency else b.result / a.result


def canonical(rows: list[dict[str, Any]], round_name: str | None = None) -> list[dict[str, Any]]:
    """The rows with Model, Scenario and Location in the round's spelling (what compare
    groups by), the hardware key, and the name the submitter used kept in UsedModel."""
    out = []
    for row, norm in zip(rows, normalise(rows, round_name), strict=True):
        out.append(
            {
                **row,
                "Model": norm.model,
                "Scenario": norm.scenario,
                "Location": norm.location,
                "hardware": norm.hardware,
                "kind": norm.kind,
                "mixed": norm.mixed,
            }
        )
    return out


def duplicated(count: int) -> str:
    """The note for `count` rows left out as identical duplicates (`Duplicates.lines`)."""
    return (
        f"{count} duplicate row{'s' if count > 1 else ''} ignored (the round, Location and Submitter of an earlier row)"
    )


CONFLICTS_SHOWN = 10  # conflicting duplicates named one by one (reader.LEFT_OUT_SHOWN's number)


@dataclass(frozen=True)
class Conflict:
    """Two rows of one result (the same round, Location and Submitter) that give different
    results: the first is kept, the other left out, and both are named with their values."""

    round: str
    location: str
    submitter: str
    first: str  # where the kept row is in the input: `t.json row 3`, `frame row 2`, a tree's location
    other: str
    kept: float | None
    ignored: float | None

    def message(self) -> str:
        def value(result: float | None) -> str:
            if result is None:
                return "no result"
            short = f"{result:.10g}"
            return short if float(short) == result else repr(result)  # two results never shown alike

        return (
            f"conflicting duplicate rows: {self.first} and {self.other} are both {self.location} of "
            f"{self.submitter or 'no submitter'} in round {self.round or '<NA>'}, with results {value(self.kept)} "
            f"and {value(self.ignored)}; the first is kept, the other ignored"
        )


@dataclass(frozen=True)
class Duplicates:
    """The rows left out as duplicates of an earlier row of the same round, Location and
    Submitter: `identical` ones (the same result: a table given twice, a tree and its table),
    a counted note; and `conflicts` (another result), each a warning naming both rows and
    both values, since which of them is right is not known."""

    identical: int = 0
    conflicts: tuple[Conflict, ...] = ()

    def lines(self) -> list[str]:
        """The warnings, the command line's and the API's alike."""
        lines = [duplicated(self.identical)] if self.identical else []
        lines += [conflict.message() for conflict in self.conflicts[:CONFLICTS_SHOWN]]
        if len(self.conflicts) > CONFLICTS_SHOWN:
            lines.append(f"{len(self.conflicts) - CONFLICTS_SHOWN} more conflicting duplicate rows (the first kept)")
        return lines


def _same(a: float | None, b: float | None) -> bool:
    """The same result: equal, both missing, or both NaN."""
    return a == b or (a is not None and b is not None and a != a and b != b)


def first_of_each(
    keys: Sequence[tuple[str, str, str]], results: Sequence[float | None], positions: Sequence[str]
) -> tuple[list[int], Duplicates]:
    """The indexes of the first row of each key (round, location, submitter), in order, and
    the rows left out: the one duplicate handling of compare, claims and the API."""
    first: dict[tuple[str, str, str], int] = {}
    kept, identical, conflicts = [], 0, []
    for index, key in enumerate(keys):
        earlier = first.setdefault(key, index)
        if earlier == index:
            kept.append(index)
        elif _same(results[earlier], results[index]):
            identical += 1
        else:
            conflicts.append(Conflict(*key, positions[earlier], positions[index], results[earlier], results[index]))
    return kept, Duplicates(identical, tuple(conflicts))


def unique_rows(rows: list[Row], positions: Sequence[str] | None = None) -> tuple[list[Row], Duplicates]:
    """`first_of_each` for Rows; `positions` say where each row is (by default `row N`)."""
    where = positions if positions is not None else [f"row {number}" for number in range(1, len(rows) + 1)]
    kept, found = first_of_each([(r.round, r.location, r.submitter) for r in rows], [r.result for r in rows], where)
    return [rows[i] for i in kept], found


def without_duplicates(table: pd.DataFrame, positions: Sequence[str] | None = None) -> tuple[pd.DataFrame, Duplicates]:
    """A frame of COLUMNS with each result once (the first row of each round, location and
    submitter), and the rows left out (`first_of_each`): the same table given twice, or a
    tree and its table, would count a result twice in n and in the median."""
    if not len(table):
        return table, Duplicates()
    key = table[["round", "location", "submitter"]].astype(object)
    key = key.where(key.notna(), "")
    results = [None if value != value else float(value) for value in table["result"].astype(float)]
    where = positions if positions is not None else [f"row {index!r}" for index in table.index]
    kept, found = first_of_each([(str(a), str(b), str(c)) for a, b, c in key.itertuples(index=False)], results, where)
    return (table if len(kept) == len(table) else table.iloc[kept].reset_index(drop=True)), found


# --- one canonical frame, and selections ------------------------------------------------------
# The columns of `frame` (and mlperf_check.load_table), with their dtypes: every round's
# published format (and the CSV of `table`, and a checked tree's valid results) in one set.
COLUMNS: dict[str, str] = {
    "round": "string",  # v5.1, v6.0, v6.1
    "division": "string",  # closed, open, network
    "availability": "string",  # available, preview, rdi (lower case)
    "submitter": "string",
    "system": "string",  # the system's name (System), else its folder
    "platform": "string",  # the system's folder (Platform)
    "location": "string",  # division/submitter/results/system/benchmark/scenario
    "model": "string",  # as the round names it (v6.1's VLM is qwen3-vl-235b-a22b)
    "used_model": "string",  # as the submitter named it (an open result's own model)
    "scenario": "string",  # as the round spells it (Offline, not offline)
    "units": "string",  # Tokens/s, Samples/s, Latency (ms), ...
    "result": "float64",  # Performance_Result
    "power": "float64",  # Power_Result; NaN without a power result
    "accelerator": "string",  # as published, e.g. "NVIDIA H200-SXM-141GB (x8)"
    "processor": "string",
    "kind": "string",  # accelerator, or cpu for a CPU-only system
    "hardware": "string",  # the accelerator without its count, or a CPU-only system's processor
    "per_node": "int64",  # accelerators per node (processors for a CPU-only system)
    "nodes": "int64",
    "accelerators": "int64",  # nodes x per_node
    "mixed": "bool",  # a system that mixes accelerators (its hardware key is its own)
    "software": "string",
    "interactivity": "float64",  # tokens/s per user (INTERACTIVITY); NaN where not measured or published
}


def frame(rows: list[Row]) -> pd.DataFrame:
    """The rows as one DataFrame of COLUMNS, in their order and dtypes; a missing text is <NA>."""
    import pandas as pd

    def text(value: Any) -> str | None:
        return None if value is None or str(value) == "" else str(value)

    records = [
        {
            "round": text(row.round),  # <NA> where no row or caller names the round
            "division": row.division,
            "availability": row.availability,
            "submitter": row.submitter,
            "system": text(row.raw.get("System")) or row.system,
            "platform": row.system,
            "location": row.location,
            "model": row.model,
            "used_model": text(row.raw.get("UsedModel")) or row.model,
            "scenario": row.scenario,
            "units": row.units,
            "result": row.result,
            "power": float(power) if (power := number(row.raw.get("Power_Result"))) is not None else None,
            "accelerator": text(row.raw.get("Accelerator")),
            "processor": text(row.raw.get("Processor")),
            "kind": row.kind,
            "hardware": row.hardware,
            "per_node": row.per_node,
            "nodes": row.nodes,
            "accelerators": row.accelerators,
            "mixed": row.mixed,
            "software": text(row.raw.get("Software")),
            "interactivity": row.interactivity,
        }
        for row in rows
    ]
    return pd.DataFrame.from_records(records, columns=list(COLUMNS)).astype(COLUMNS)


def rows(table: pd.DataFrame) -> list[Row]:
    """The rows of a frame of COLUMNS (as `frame` makes it) as Rows again: what across_rounds
    and claims compute with. Missing text is empty; the raw row holds the published key names."""

    def text(value: Any) -> str:
        return "" if value is None or value is pd.NA or value != value else str(value)

    import pandas as pd

    found = []
    for record in table.to_dict("records"):
        result = record["result"]
        found.append(
            Row(
                **{field: text(record[column]) for field, column in TEXT_FIELDS.items()},
                result=None if result is None or result != result else float(result),
                per_node=int(record["per_node"]),
                nodes=int(record["nodes"]),
                mixed=bool(record["mixed"]),
                interactivity=None if (tpot := record.get("interactivity")) is None or tpot != tpot else float(tpot),
                raw={
                    key: text(record[column])
                    for key, column in RAW.items()
                    if column in record and text(record[column])
                },
            )
        )
    return found


# The Row fields that are text, and the column of COLUMNS each is.
TEXT_FIELDS = {
    **{name: name for name in ("round", "location", "submitter", "division", "availability", "model", "scenario")},
    **{"system": "platform", "units": "units", "kind": "kind", "hardware": "hardware"},
}
# The published keys a Row's `raw` gives the columns that are not a Row field.
RAW = {"UsedModel": "used_model", "System": "system", "Accelerator": "accelerator", "Processor": "processor"}


# --- the frame door: a DataFrame given to the API, typed as the reader types a file -----------
def _declared() -> dict[str, Any]:
    """COLUMNS' declarations, each as reader.COLUMNS declares the published column it comes
    from (result is Performance_Result: a positive number of at most 1e12), so that a frame
    given to the API keeps the rows, and leaves out the rows, a table file would."""
    from .reader import COLUMNS as PUBLISHED
    from .reader import Column

    published = {column.key: column for column in PUBLISHED}
    source = {
        "division": "Category",
        "model": "Model",
        "scenario": "Scenario",
        "submitter": "Submitter",
        "units": "Performance_Units",
        "result": "Performance_Result",
        "power": "Power_Result",
        "round": "version",
    }
    declared: dict[str, Any] = {name: dataclasses.replace(published[key], key=name) for name, key in source.items()}
    declared.update(
        nodes=dataclasses.replace(published["Nodes"], key="nodes", required=True),
        per_node=dataclasses.replace(published["a#"], key="per_node", required=True),
        accelerators=Column("accelerators", "count", required=True, low=0, high=10**10),
        mixed=Column("mixed", "flag", required=True),
        interactivity=Column("interactivity", "number", positive=True, high=1e12),
    )
    for name, dtype in COLUMNS.items():
        if dtype == "string" and name not in declared:
            declared[name] = Column(name, "text")
    return declared


def _cell(value: Any, numeric: bool) -> Any:
    """A frame's cell as the reader sees a file's: a missing value (None, NaN or <NA>) in a
    column other than a required number is absent; a number written as text is the number."""
    import pandas as pd

    if value is None or value is pd.NA or (isinstance(value, float) and value != value and not numeric):
        return None
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # a numpy scalar as the Python value a file gives
    if numeric and isinstance(value, str):
        from .published.load import _typed

        return _typed(value.strip())
    return value


def typed_frame(table: pd.DataFrame, source: str = "frame") -> tuple[pd.DataFrame, list[Any]]:
    """A frame given to the API as the one typed table: COLUMNS only (other columns are
    left out, as a table file's other keys are), in their dtypes, without the rows whose
    values break their declaration (`_declared`), and a reader.LeftOut for each of those,
    naming `source`, the row (its index) and the column: the rows and the warnings a table
    file with the same values gives. The rows kept keep their index (where they are in the
    frame given, which a duplicate's warning names)."""
    import pandas as pd

    from .reader import LeftOut

    declared = _declared()
    numeric = {name for name, column in declared.items() if column.kind in ("number", "count")}
    table = table[list(COLUMNS)]
    fine = _plainly_typed(table, declared)
    kept: list[Any] = []
    index_kept: list[Any] = []
    left_out = []
    if fine is not None and fine.all():
        return table, []
    records = table.to_dict("records")
    for index, record in zip(table.index, records, strict=True):
        optional = ("power", "interactivity")
        cells = {name: _cell(value, name in numeric and name not in optional) for name, value in record.items()}
        for name in optional:  # NaN is "no power result", "no interactivity", as load_table writes them
            if isinstance(cells[name], float) and cells[name] != cells[name]:
                cells[name] = None
        wrong = next(((name, why) for name, column in declared.items() if (why := column.problem(cells))), None)
        if wrong is None:
            kept.append({**cells, "round": cells["round"] or None})
            index_kept.append(index)
        else:
            left_out.append(LeftOut(source, f"row {index!r}", *wrong))
    typed = pd.DataFrame.from_records(kept, columns=list(COLUMNS)).astype(COLUMNS)
    return typed.set_axis(pd.Index(index_kept) if index_kept else typed.index), left_out


def _plainly_typed(table: pd.DataFrame, declared: dict[str, Any]) -> pd.Series | None:
    """Which rows of a frame in COLUMNS' dtypes keep every declaration, decided a column at a
    time (load_table's frames: a thousand rows in a millisecond); None for a frame in other
    dtypes, whose rows `typed_frame` looks at one by one."""
    import pandas as pd

    from .reader import ROUND_NAME

    if any(str(table[name].dtype) != dtype for name, dtype in COLUMNS.items()):
        return None
    fine = pd.Series(True, index=table.index)
    for name, column in declared.items():
        values = table[name]
        if column.kind in ("number", "count"):
            present = values.notna()
            low = values > 0 if column.positive else values >= (column.low if column.low is not None else -math.inf)
            within = present & low & (values <= column.high)
            fine &= within if column.required or name == "result" else (~present | within)
        elif column.kind == "name":
            fine &= values.notna() & values.str.strip().ne("")
        elif column.kind == "round":
            fine &= values.isna() | values.str.fullmatch(ROUND_NAME.pattern).fillna(False).astype(bool)
    return fine
