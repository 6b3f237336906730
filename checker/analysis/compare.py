"""Cross-partner reproducibility: how close are comparable results of different submitters?

The definition (printed with every output, and changed visibly by every option):
- a comparable group is closed-division results of one round with the same Model, Scenario,
  Nodes, performance units and hardware: (Accelerator, a#) for accelerated systems,
  (Processor, p#) when a# is 0 or Accelerator is empty or "N/A"; rounds and units are never
  mixed in one group, whatever else groups it;
- a group counts when it has results from at least `min_submitters` distinct submitters;
- the reference is the group median of Performance_Result, or one submitter's result (their
  median when they have several) with `reference="submitter:NAME"`; that submitter's results
  are the reference, and every other result is a partner;
- deviation = (x - ref) / ref for throughput, (ref - x) / ref for latency: positive is better
  (published.deviation, which claims and reproduce use too);
- per group, over the partners only: mean, median and max |deviation|, the partners beyond
  the tolerance (|deviation| > `tolerance`) and the outliers (|deviation| > `outlier`); the
  group is within tolerance when the partners' mean |deviation| <= `tolerance`. The
  coefficient of variation (population std / mean) is over every result of the group.

Computed as two frames: `compare` gives one row per member (its group's key, value, role,
deviation from the reference and from the group median, flags), `groups_of` one row per
group; text, JSON, CSV, HTML and the plot are rendered from them.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import option
from ..escaping import text_lines
from ..parsers import number
from ..reporters.common import csv_text
from ..settings import UsageError, WrongType, fraction, whole
from . import OUTLIER, TOLERANCE
from . import table as published
from .selection import Selection
from .table import Row, deviation, location_of, normalise

if TYPE_CHECKING:
    from .reader import Table

# Description fields that explain an outlier: table keys, and description fields when the
# input was a submission tree.
EXPLAINING = (
    "Software",
    "framework",
    "other_software_stack",
    "Processor",
    "host_processor_model_name",
    "host_processors_per_node",
    "host_memory_capacity",
    "host_memory_configuration",
    "cooling",
    "operating_system",
    "weight_data_types",
    "Notes",
    "hw_notes",
    "sw_notes",
)
# Never mixed in one group: a group is one round's results in one unit.
ALWAYS = ("round", "units")


def group_keys(by: Sequence[str]) -> list[str]:
    """The columns that group: the round, `by`, and the units, whatever `by` says."""
    return ["round", *(key for key in by if key not in ALWAYS), "units"]


# The frames are computed in the canonical columns (published.COLUMNS: the API's names); the
# outputs' records (`Comparison.each`) name a member's submitter, system, location and
# result as the published tables do (Submitter, System, Location, Performance_Result): the one
# place a name changes. The comparable-group key (table.GROUP_KEY) is `by`'s default, and
# the round and units are added to whatever `by` says.
BY = tuple(key for key in published.GROUP_KEY if key not in ALWAYS)
MEMBER_COLUMNS = ("role", "reference", "deviation", "deviation_from_median", "abs_dev", "beyond_tolerance", "outlier")
GROUP_COLUMNS = (
    "reference_submitter",
    "reference",
    "n",
    "partners",
    "submitters",
    "mean_abs_dev",
    "median_abs_dev",
    "max_abs_dev",
    "cv",
    "within_tolerance",
    "beyond",
    "outliers",
)


# The coefficient of variation, as every output states it: pandas' default (the sample
# standard deviation, n - 1) would say 1.85% where this says 1.7% for the same five results.
CV_DEFINITION = (
    "CV: the population standard deviation (dividing by n) of the group's results, the reference's "
    "included, over their mean."
)


def percent(fraction: float) -> str:
    """A tolerance or threshold as people write it: 4%, 2.5%."""
    return f"{fraction * 100:.4g}%"


@dataclass
class Options:
    tolerance: float = TOLERANCE
    outlier: float = OUTLIER
    reference: str = "median"  # or "submitter:NAME"
    min_submitters: int = 2
    division: tuple[str, ...] = ("closed",)

    @property
    def submitter(self) -> str | None:
        """The reference submitter's name, or None for the group median."""
        return reference_name(self.reference)

    def definition(self) -> str:
        reference = (
            "the group median of Performance_Result; every result is a partner"
            if self.submitter is None
            else f"the result of submitter {self.submitter} (their median if several); "
            f"the others are {self.submitter}'s partners, and {self.submitter}'s own results are not"
        )
        return (
            f"Comparable group: {' or '.join(self.division)} division, one round, same Model, Scenario, Nodes and units, and the same "
            "hardware (Accelerator and a#, or Processor and p# for CPU-only systems). "
            f"Groups need results from at least {self.min_submitters} submitters. "
            f"Reference: {reference}. Deviation = (x - ref) / ref for throughput and (ref - x) / ref for latency, "
            f"so positive is better. Mean, median and max |deviation| are over the partners; "
            f"beyond tolerance: |deviation| > {percent(self.tolerance)}; outliers: |deviation| > "
            f"{percent(self.outlier)}. Within tolerance: the partners' mean |deviation| <= {percent(self.tolerance)}. "
            f"{CV_DEFINITION}"
        )


# --- the frames ------------------------------------------------------------------------------
COMPARED = ["round", "division", *BY, "units", "submitter", "system", "location", "result"]


def comparable(table: pd.DataFrame) -> pd.DataFrame:
    """A frame of published.COLUMNS as `compare` takes it: the rows with a positive result,
    the COMPARED columns first, then the others; text as Python objects."""
    taken = table[table["result"] > 0]
    text = [c for c in taken.columns if isinstance(taken[c].dtype, pd.StringDtype)]
    taken = taken.astype({c: object for c in text})
    taken[text] = taken[text].where(taken[text].notna(), None)
    return taken[COMPARED + [c for c in taken.columns if c not in COMPARED]].reset_index(drop=True)


def frame_of(rows: list[Row]) -> pd.DataFrame:
    """Rows with a positive result as one frame: the grouping columns (ALWAYS and BY),
    submitter, system, location, result, the other canonical columns (published.COLUMNS), and
    the explaining fields they carry, as written."""
    table = comparable(published.frame([row for row in rows if row.result is not None and row.result > 0]))
    kept = [row for row in rows if row.result is not None and row.result > 0]
    explaining = {
        key: [row.raw.get(key) for row in kept]
        for key in EXPLAINING
        if any(row.raw.get(key) is not None for row in kept)
    }
    return table.assign(
        **{key: pd.Series(values, index=table.index, dtype=object) for key, values in explaining.items()}
    )


def check_options(tolerance: float, outlier: float, min_submitters: int) -> None:
    """A usage error (a ValueError) for a tolerance or outlier threshold that is not a fraction,
    or a minimum of submitters that is not a whole number from 1: checked first, by the
    command line and the API alike."""
    for value, parameter in ((tolerance, "tolerance"), (outlier, "outlier")):
        if value is None:  # compare has no default of the round's: a fraction is given
            raise WrongType(f"{option(parameter)} None: give a fraction, e.g. 0.04 for 4%", parameter)
        fraction(value, parameter)
    if min_submitters is None:  # whole() takes None for "not given"; here a count is given
        raise WrongType(f"{option('min_submitters')} None: give a whole number, 1 or more", "min_submitters")
    whole(min_submitters, "min_submitters", 1)


def compare(
    frame: pd.DataFrame,
    reference: str | None = None,
    tolerance: float = TOLERANCE,
    by: Sequence[str] = BY,
    *,
    outlier: float = OUTLIER,
    min_submitters: int = 2,
) -> pd.DataFrame:
    """One row per member of every comparable group of `frame` (as `frame_of` makes it).

    Groups are the rows with the same `by` columns, and always the same round and units
    (ALWAYS are added to `by`): a group never mixes rounds or units. A group counts with
    results from at least `min_submitters` submitters and, when `reference` names a
    submitter (case-blind), one of theirs. Columns: `group` (a number), the grouping
    columns, submitter, system, location, result and the explaining fields, then `role`
    (reference or partner), `reference` (the value deviations are measured from),
    `deviation`, `deviation_from_median`, `abs_dev`, `beyond_tolerance` and `outlier` (a
    partner's |deviation| above `tolerance` and `outlier`)."""
    keys = group_keys(by)
    columns = ["group", *keys, *(c for c in frame.columns if c not in keys), *MEMBER_COLUMNS]
    check_options(tolerance, outlier, min_submitters)
    if not len(frame):  # no row to compare (the reader said why)
        return pd.DataFrame(columns=columns)
    if reference is not None:
        known_reference(reference, frame)
    if "hardware" in frame.columns:
        frame = frame.assign(hardware=frame["hardware"].map(published.one_spelling(frame["hardware"].astype(str))))
    grouped = frame.groupby(keys, sort=True, dropna=False)
    number = grouped.ngroup()  # in the keys' order
    submitter = frame["submitter"].astype(str).str.lower()
    own = submitter == reference.lower() if reference is not None else pd.Series(False, index=frame.index)
    kept = grouped["submitter"].transform("nunique") >= min_submitters
    if reference is not None:
        kept &= own.groupby(number).transform("any")
    if not kept.any():
        return pd.DataFrame(columns=columns)
    members, own, number = frame[kept], own[kept], number[kept]
    value = members["result"]
    with np.errstate(all="ignore"):  # numbers near the float limit overflow; the JSON writer says so
        median = value.groupby(number).transform("median")
        ref = value.where(own).groupby(number).transform("median").where(own.groupby(number).transform("any"), median)
        latency = members["units"].astype(str).str.startswith("Latency")
        dev = deviation(value, ref, latency)
        partner = ~own
        members = members.assign(
            group=np.unique(number.to_numpy(), return_inverse=True)[1],
            role=np.where(own, "reference", "partner"),
            reference=ref,
            deviation=dev,
            deviation_from_median=deviation(value, median, latency),
            abs_dev=dev.abs(),
            beyond_tolerance=partner & (dev.abs() > tolerance),
            outlier=partner & (dev.abs() > outlier),
        )
    order = members["role"].ne("reference")  # the reference first, then by submitter and location
    members = members.assign(_order=order, _name=members["submitter"].astype(str).str.lower())
    members = members.sort_values(["group", "_order", "_name", "location"], kind="stable")
    return members[columns].reset_index(drop=True)


def groups_of(members: pd.DataFrame, tolerance: float = TOLERANCE, by: Sequence[str] = BY) -> pd.DataFrame:
    """One row per group of `compare`'s members: the grouping columns, then the reference
    (its submitter, as written, or None for the median, and its value), n, partners,
    submitters, the partners' mean, median and max |deviation|, the group's coefficient of
    variation, whether it is within `tolerance`, and how many partners are beyond it or
    outliers. Each statistic is pandas' own reduction of the group's column (`_mean`,
    `_median`, `_max`, `_std`), made on numpy arrays of the groups at once: a group at a time
    in pandas took a third of the report's variance section."""
    keys = group_keys(by)
    records = []
    if len(members):
        group = members["group"].to_numpy()
        order = np.argsort(group, kind="stable")  # each group's rows in their order, groups ascending
        cuts = np.flatnonzero(group[order][1:] != group[order][:-1]) + 1
        role = members["role"].to_numpy()
        partner, own = role == "partner", role == "reference"
        abs_dev = members["abs_dev"].to_numpy(dtype=np.float64)
        result = members["result"].to_numpy(dtype=np.float64)
        beyond = members["beyond_tolerance"].to_numpy(dtype=bool)
        outlier = members["outlier"].to_numpy(dtype=bool)
        submitter, reference = members["submitter"], members["reference"]
        columns = {key: members[key] for key in keys}
        with np.errstate(all="ignore"):
            for rows in np.split(order, cuts):
                first = int(rows[0])
                partners = rows[partner[rows]]
                owners = rows[own[rows]]
                devs = abs_dev[partners]
                mean = _mean(devs) if len(partners) else float("nan")
                records.append(
                    {
                        "group": group[first],
                        **{key: column.iloc[first] for key, column in columns.items()},
                        "reference_submitter": str(submitter.iloc[int(owners[0])]) if len(owners) else None,
                        "reference": float(reference.iloc[first]),
                        "n": len(rows),
                        "partners": len(partners),
                        "submitters": len({name for name in submitter.iloc[rows] if not pd.isna(name)}),
                        "mean_abs_dev": mean,
                        "median_abs_dev": _median(devs) if len(partners) else float("nan"),
                        "max_abs_dev": _max(devs) if len(partners) else float("nan"),
                        "cv": float(np.float64(_std(result[rows])) / np.float64(_mean(result[rows]))),
                        "within_tolerance": bool(mean <= tolerance),
                        "beyond": int(beyond[partners].sum()),
                        "outliers": int(outlier[rows].sum()),
                    }
                )
    return pd.DataFrame(records, columns=["group", *keys, *GROUP_COLUMNS])


# pandas' reductions of a float64 Series (pandas.core.nanops, skipna), on its numpy array: the
# same operations in the same order, so the same last digit as pandas without bottleneck (with
# it installed, pandas sums in its own order; these do not depend on it). The cv divides numpy
# scalars, as pandas did: a mean of 0 is inf or NaN, not a ZeroDivisionError.
def _mean(values: np.ndarray) -> float:
    missing = np.isnan(values)
    count = values.size - int(missing.sum())
    kept = np.where(missing, 0.0, values)
    return float(kept.sum(dtype=np.float64) / count) if count else float("nan")


def _median(values: np.ndarray) -> float:
    kept = values[~np.isnan(values)]
    return float(np.nanmedian(kept)) if kept.size else float("nan")


def _max(values: np.ndarray) -> float:
    missing = np.isnan(values)
    return float("nan") if missing.all() else float(np.where(missing, -np.inf, values).max())


def _std(values: np.ndarray) -> float:
    """The population standard deviation (ddof=0), as nanops.nanstd makes it."""
    missing = np.isnan(values)
    count = values.size - int(missing.sum())
    if count <= 0:
        return float("nan")
    kept = np.where(missing, 0.0, values)
    average = kept.sum(dtype=np.float64) / count
    squares = np.where(missing, 0.0, (average - kept) ** 2)
    return float(np.sqrt(squares.sum(dtype=np.float64) / count))


@dataclass
class Comparison:
    """What `compare` found: the options, one frame of members and one of groups."""

    options: Options
    members: pd.DataFrame
    groups: pd.DataFrame
    selection: Selection = field(default_factory=Selection)
    notes: list[str] = field(default_factory=list)  # what the selection pools (Selection.notes)

    @property
    def interactivity(self) -> bool:
        """Whether a member has an interactivity figure (published.INTERACTIVITY): the outputs
        then define it and show it beside the throughput."""
        return any("interactivity" in member for _, members in self._listed for member in members)

    def each(self) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Each group as a record (its key, as GROUP_KEY names it) with its members' records:
        plain Python values, None for a missing or non-finite number. Made once (every output,
        the page and the plot read them); each call gives its own copies."""
        for group, members in self._listed:
            yield dict(group), [dict(member) for member in members]

    @functools.cached_property
    def _listed(self) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        by_group: dict[Any, list[dict[str, Any]]] = {}
        for record in _records(self.members):
            by_group.setdefault(record["group"], []).append(_member(record))
        return [(record, by_group[record["group"]]) for record in _records(self.groups)]


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        {str(k): (None if _missing(v) else v.item() if isinstance(v, np.generic) else v) for k, v in record.items()}
        for record in frame.to_dict("records")
    ]


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value) or value is pd.NA


def _member(record: dict[str, Any]) -> dict[str, Any]:
    """A member as the outputs name it: the published tables' key names (the one rename)."""
    member = {
        "role": record["role"],
        "Submitter": record["submitter"],
        "System": record["system"],
        "Location": record["location"],
        "Performance_Result": record["result"],
        "deviation": record["deviation"],
        "deviation_from_median": record["deviation_from_median"],
        "beyond_tolerance": bool(record["beyond_tolerance"]),
        "outlier": bool(record["outlier"]),
    }
    member.update({key: record[key] for key in EXPLAINING if record.get(key) is not None})
    if record.get("interactivity") is not None:  # measured in a tree's logs (published.INTERACTIVITY)
        member["interactivity"] = record["interactivity"]
    if "differs" in record:
        member["differs"] = record["differs"] or {}
    return member


def unique(rows: list[dict[str, Any]], positions: Sequence[str]) -> tuple[list[dict[str, Any]], published.Duplicates]:
    """The rows with each result once, and those left out (published.first_of_each): a row
    with the round, Location and Submitter of an earlier one (the same table given twice, or
    a tree and its table) would count the result twice in n and in the median. `positions`
    say where each row is, for the warning of two rows that give different results."""
    keys = [(str(row.get("version") or ""), location_of(row), str(row.get("Submitter") or "")) for row in rows]
    results = [float(value) if (value := number(row.get("Performance_Result"))) is not None else None for row in rows]
    kept, duplicates = published.first_of_each(keys, results, positions)
    return [rows[i] for i in kept], duplicates


def compared_rows(
    tables: Sequence[tuple[str, Table]], round: str | None, warn: Callable[[str], None]
) -> list[dict[str, Any]]:
    """The rows compare compares, of its inputs (`tables`: each input's name and its table,
    as the reader read it), each result once. A row names its round, else its table's (the
    one `round` given, or `(round of INPUT)`, with a warning): two tables' rows never pool in
    one group. No row at all is a usage error (nothing measured, no verdict: issue 33); a
    duplicate is left out with a warning (`unique`)."""
    rows: list[dict[str, Any]] = []
    positions: list[str] = []
    for item, table in tables:
        found = table.rows
        positions += table.positions()
        unnamed = [row for row in found if row.get("version") in (None, "")]
        for row in unnamed:
            row["version"] = round or f"(round of {item})"
        if unnamed and round is None:  # as load_table warns (its round is <NA>)
            warn(
                f"{item}: {len(unnamed)} rows do not name their round (no version column): "
                f"their round is '(round of {item})'; give --round to name it"
            )
        rows += found
    if not rows:  # [], {}, a CSV header, every row left out
        raise UsageError(f"{', '.join(item for item, _ in tables)}: no result rows to compare: nothing measured there")
    rows, duplicates = unique(rows, positions)
    for line in duplicates.lines():
        warn(line)
    return rows


def reference_name(reference: Any) -> str | None:
    """The one reading of a reference, for every door (compare --reference, the API's
    reference=, a spread claim's reference): None or "median" is the group median;
    "submitter:NAME", or NAME alone, that submitter. A blank name is a usage error naming the
    parameter; whether NAME has a result is known_reference's."""
    if reference is None or reference == "median":
        return None
    if not isinstance(reference, str):
        raise WrongType(f"{option('reference')} {reference!r}: give a submitter's name or None", "reference")
    name = reference.removeprefix("submitter:")
    if not name.strip():
        raise UsageError(
            f"{option('reference')} {reference!r}: give median, or submitter:NAME (a submitter's name)", "reference"
        )
    return name


def known_reference(name: str, frame: pd.DataFrame) -> None:
    """A usage error (a ValueError) unless the reference submitter `name` has a result among
    the rows compared (`frame`: the selected rows of the divisions compared), case-blind."""
    if not isinstance(name, str) or not name.strip():
        raise UsageError(f"{option('reference')} submitter:{name}: give a submitter's name", "reference")
    known = sorted({str(s) for s in frame["submitter"].dropna()}, key=str.lower)
    if name.strip().lower() not in {k.lower() for k in known}:
        divisions = sorted({str(d) for d in frame["division"].dropna()})
        shown = ", ".join(known[:5]) + (f", ... ({len(known)} in all)" if len(known) > 5 else "")
        raise UsageError(
            f"{option('reference')} submitter:{name}: no {' or '.join(divisions)} result of submitter {name} "
            f"among the selected rows; their submitters are {shown or 'none'}"
        )


def selected(rows: list[Row], selection: Selection, division: Sequence[str]) -> list[Row]:
    """The rows of `division` that `selection` takes (one path: published.Selection, case-blind),
    or a usage error saying why none is."""
    if not rows:
        return []
    within = dataclasses.replace(selection, division=tuple(selection.division or division))
    taken = within.taken(published.frame(rows)).tolist()
    return [row for row, keep in zip(rows, taken, strict=True) if keep]


def comparison(rows: list[dict[str, Any]], options: Options, selection: Selection | None = None) -> Comparison:
    """The rows of `rows` (table rows, as checker/analysis/reader.py reads them) in the options'
    divisions that `selection` takes, compared as `options` say, with the fields in which each
    outlier differs from its group's majority."""
    selection = selection or Selection()
    chosen = selected(normalise(rows), selection, options.division)
    frame = frame_of(chosen)
    members = compare(
        frame,
        options.submitter,
        options.tolerance,
        outlier=options.outlier,
        min_submitters=options.min_submitters,
    )
    groups = groups_of(members, options.tolerance)
    if len(members):
        differs: dict[Any, dict[str, dict[str, Any]] | None] = {}
        for _, frame_members in members.groupby("group", sort=True):
            flags = frame_members["outlier"].tolist()
            majorities = _majorities(frame_members) if any(flags) else {}
            for index, flagged in zip(frame_members.index, flags, strict=True):
                differs[index] = _differences(index, frame_members, majorities) if flagged else None
        members["differs"] = pd.Series(differs, dtype=object).reindex(members.index)
    return Comparison(options, members, groups, selection, selection.notes(r.hardware for r in chosen))


def _majorities(members: pd.DataFrame) -> dict[str, str]:
    """The majority value of each explaining field a group's members give, as text: the most
    frequent, the first seen among the most frequent (pandas' value_counts order); a field
    none of them gives has none. The text is pandas' (`astype(str)`), as `_differences` takes
    a member's value (`str` of the column's scalar): `tolist()` would make a float32 0.1 the
    float 0.10000000149011612, which no member's text equals, and keep a NaT."""
    found = {}
    for column in EXPLAINING:
        if column in members:
            counts = Counter(members[column].dropna().astype(str).tolist())
            if counts:
                found[column] = counts.most_common(1)[0][0]
    return found


def _differences(index: Any, members: pd.DataFrame, majorities: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The explaining fields where the member `index` differs from its group's majority value."""
    found = {}
    for column, majority in majorities.items():
        value = members.at[index, column]
        if not _missing(value) and str(value) != majority:
            found[column] = {"this": value, "majority": majority}
    return found


# --- outputs ---------------------------------------------------------------------------------
def _hardware(group: dict[str, Any]) -> str:
    return f"{group['per_node']}x {group['hardware']}" + (f" x {group['nodes']} nodes" if group["nodes"] > 1 else "")


def title(group: dict[str, Any]) -> str:
    return f"{group['round']} {group['model']} {group['scenario']}, {_hardware(group)}"


def _named(member: dict[str, Any], members: list[dict[str, Any]]) -> str:
    """A member's submitter, with its system when the submitter has several in the group."""
    same = sum(1 for m in members if m["Submitter"] == member["Submitter"])
    return str(member["Submitter"]) + (f" ({member['System']})" if same > 1 else "")


def beyond(members: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """The partners beyond the tolerance, the farthest first: (name, deviation)."""
    found = [m for m in members if m["beyond_tolerance"]]
    found.sort(key=lambda m: -abs(m["deviation"]))
    return [(_named(m, members), m["deviation"]) for m in found]


def _fraction(value: float | None, signed: bool = False, digits: int = 1) -> str:
    if value is None:
        return "n/a"
    return f"{value:+.{digits}%}" if signed else f"{value:.{digits}%}"


def partners_line(group: dict[str, Any], members: list[dict[str, Any]], tolerance: float) -> str:
    """`7 partners of AMD: mean |dev| 4.07%, median 3.95%, max 5.36%; beyond 4%: X -5.36%, Y -5.13%`."""
    count = group["partners"]
    who = (
        f"{count} partner{'s' if count != 1 else ''} of {group['reference_submitter']}"
        if group["reference_submitter"] is not None
        else f"{count} result{'s' if count != 1 else ''} against their median"
    )
    listed = ", ".join(f"{name} {dev:+.2%}" for name, dev in beyond(members)) or "none"
    return (
        f"{who}: mean |dev| {_fraction(group['mean_abs_dev'], digits=2)}, median "
        f"{_fraction(group['median_abs_dev'], digits=2)}, max {_fraction(group['max_abs_dev'], digits=2)}; "
        f"beyond {percent(tolerance)}: {listed}"
    )


def summary(found: Comparison) -> dict[str, Any]:
    groups = found.groups
    means = groups["mean_abs_dev"].dropna()
    return {
        "groups": len(groups),
        "within_tolerance": int(groups["within_tolerance"].sum()),
        "median_mean_abs_dev": float(means.median()) if len(means) else None,
        "partners": int(groups["partners"].sum()),
        "beyond_tolerance": int(groups["beyond"].sum()),
    }


def document(found: Comparison) -> dict[str, Any]:
    """What compare found, as its JSON names it (reporters.as_json writes it)."""
    options = found.options
    groups = []
    for group, members in found.each():
        group = {k: v for k, v in group.items() if k not in ("group", "beyond", "outliers")}
        groups.append(
            {
                **group,
                "within_tolerance": group["within_tolerance"],
                "beyond_tolerance": [
                    {k: m[k] for k in ("Submitter", "System", "Location", "deviation")}
                    for m in sorted((m for m in members if m["beyond_tolerance"]), key=lambda m: -abs(m["deviation"]))
                ],
                "members": [{k: v for k, v in m.items() if k != "differs"} for m in members],
                "outliers": [m for m in members if m["outlier"]],
            }
        )
    return {
        "definition": options.definition(),
        "options": {
            "tolerance": options.tolerance,
            "outlier": options.outlier,
            "reference": options.reference,
            "min_submitters": options.min_submitters,
        },
        "summary": summary(found),
        **({"interactivity": published.INTERACTIVITY} if found.interactivity else {}),
        **found.selection.fields(found.notes),
        "groups": groups,
    }


CSV_COLUMNS = (
    "group",
    "round",
    "model",
    "scenario",
    "units",
    "kind",
    "hardware",
    "per_node",
    "nodes",
    "role",
    "submitter",
    "system",
    "location",
    "value",
    "deviation",
    "deviation_from_median",
    "beyond_tolerance",
    "outlier",
    "reference_submitter",
    "reference",
    "n",
    "partners",
    "mean_abs_dev",
    "median_abs_dev",
    "max_abs_dev",
    "cv",
    "within_tolerance",
)


# A member's CSV columns: the keys of its record (`_member`) they take.
MEMBER_CSV = {
    "role": "role",
    "submitter": "Submitter",
    "system": "System",
    "location": "Location",
    "value": "Performance_Result",
    "deviation": "deviation",
    "deviation_from_median": "deviation_from_median",
    "beyond_tolerance": "beyond_tolerance",
    "outlier": "outlier",
}


FIGURES = ("mean_abs_dev", "median_abs_dev", "max_abs_dev", "cv")


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def csv_rows(found: Comparison) -> list[dict[str, Any]]:
    """One row per member, with its group's key and figures."""
    rows = []
    for group, members in found.each():
        shared = {k: _rounded(group[k]) if k in FIGURES else group[k] for k in CSV_COLUMNS[CSV_COLUMNS.index("n") :]}
        shared.update(
            reference_submitter=group["reference_submitter"] or "median", reference=_rounded(group["reference"])
        )
        for m in members:
            row = {k: group[k] for k in CSV_COLUMNS[:9]}
            row.update((column, m[key]) for column, key in MEMBER_CSV.items())
            row.update(
                deviation=_rounded(row["deviation"]), deviation_from_median=_rounded(row["deviation_from_median"])
            )
            rows.append({**row, **shared})
    return rows


def to_csv(found: Comparison) -> str:
    return csv_text(csv_rows(found), CSV_COLUMNS)


def _why(member: dict[str, Any]) -> str:
    return "; ".join(f"{k}: {v['this']!r} (most: {v['majority']!r})" for k, v in member.get("differs", {}).items())


def to_text(found: Comparison) -> str:
    options = found.options
    lines = [options.definition(), *([published.INTERACTIVITY] if found.interactivity else []), ""]
    lines += found.selection.lines(found.notes)
    for group, members in found.each():
        verdict = "within" if group["within_tolerance"] else "OUTSIDE"
        who = group["reference_submitter"] or "the median"
        lines.append(
            f"{title(group)}: reference {who} {group['reference']:.6g} {group['units']}, {group['n']} results of "
            f"{group['submitters']} submitters, CV {_fraction(group['cv'])} - {verdict} {percent(options.tolerance)}"
        )
        lines.append("    " + partners_line(group, members, options.tolerance))
        width = max(len(_named(m, members)) for m in members)
        for m in members:
            flags = "reference" if m["role"] == "reference" else f"{m['deviation']:+.2%}"
            notes = [f"beyond {percent(options.tolerance)}"] if m["beyond_tolerance"] else []
            if m["outlier"]:
                why = _why(m)
                notes.append(f"outlier{' - ' + why if why else ''}")
            lines.append(
                f"      {_named(m, members):<{width}}  {m['Performance_Result']:>10.6g}  {flags:>9}  {m['Location']}"
                + (f"  {m['interactivity']:.4g} tokens/s per user" if "interactivity" in m else "")
                + (f"  [{'; '.join(notes)}]" if notes else "")
            )
    s = summary(found)
    median = f"{s['median_mean_abs_dev']:.1%}" if s["median_mean_abs_dev"] is not None else "n/a"
    lines += [
        "",
        f"{s['groups']} groups, {s['within_tolerance']} within tolerance; median of the mean |deviation|: {median}; "
        f"{s['beyond_tolerance']} of {s['partners']} partners beyond {percent(options.tolerance)}",
    ]
    return text_lines(lines)


# --- the HTML views (compare --format html and the audit page) --------------------------------
def _pct(value: Any, signed: bool = False) -> str:
    if not isinstance(value, (int, float)) or value != value or value in (float("inf"), float("-inf")):
        return "n/a"
    return f"{value:+.1%}" if signed else f"{value:.1%}"


def _number(value: Any) -> str:
    return f"{value:.6g}" if number(value) is not None else str(value or "")


def groups_view(found: Comparison) -> list[dict[str, Any]]:
    """The comparable groups as the text output words them: percentages, units, the
    reference, every member with its flags, and each outlier's reasons (the explaining fields
    where it differs from the majority)."""
    tolerance = percent(found.options.tolerance)
    views = []
    for group, members in found.each():
        rows = []
        for member in members:
            flags = ["reference"] if member["role"] == "reference" else []
            if member["beyond_tolerance"]:
                flags.append(f"beyond {tolerance}")
            rows.append(
                {
                    "submitter": str(member.get("Submitter") or ""),
                    "system": str(member.get("System") or ""),
                    "location": str(member.get("Location") or ""),
                    "value": _number(member.get("Performance_Result")),
                    "deviation": _pct(member.get("deviation"), signed=True),
                    "flags": flags,
                    "outlier": member["outlier"],
                    "why": [f"{k}: {v['this']!r} (most: {v['majority']!r})" for k, v in member["differs"].items()]
                    if member["outlier"]
                    else [],
                }
            )
        views.append(
            {
                "title": title(group),
                "units": str(group["units"]),
                "reference_of": str(group["reference_submitter"] or "median"),
                "partners_line": partners_line(group, members, found.options.tolerance),
                "n": group["n"],
                "partners": group["partners"],
                "submitters": group["submitters"],
                "reference": _number(group["reference"]),
                "mean": _pct(group["mean_abs_dev"]),
                "median": _pct(group["median_abs_dev"]),
                "max": _pct(group["max_abs_dev"]),
                "cv": _pct(group["cv"]),
                "within": group["within_tolerance"],
                "tolerance": tolerance,
                "beyond": group["beyond"],
                "outliers": group["outliers"],
                "members": rows,
            }
        )
    return views


def groups_summary(found: Comparison) -> dict[str, Any]:
    s = summary(found)
    return {"groups": s["groups"], "within": s["within_tolerance"], "median": _pct(s["median_mean_abs_dev"])}
