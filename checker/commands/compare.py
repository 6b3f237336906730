"""Cross-partner reproducibility: how close are comparable results of different submitters?

The definition (printed with every output, and changed visibly by every option):
- a comparable group is closed-division results with the same Model, Scenario, Nodes,
  performance units and hardware: (Accelerator, a#) for accelerated systems, (Processor, p#)
  when a# is 0 or Accelerator is empty or "N/A";
- a group counts when it has results from at least `min_submitters` distinct submitters;
- the reference is the group median of Performance_Result, or one submitter's result
  (their median when they have several) with `reference="submitter:NAME"`;
- deviation = (x - ref) / ref for throughput, (ref - x) / ref for latency: positive is better;
- per group: n, submitters, ref, mean |deviation|, max |deviation|, the coefficient of
  variation (population std / mean) and the outliers (|deviation| > `outlier`); the group is
  within tolerance when mean |deviation| <= `tolerance`.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import stat
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..parsers import number
from ..reporters import Formats, as_data, as_text
from ..reporters.common import csv_text
from .published import canonical

# Description fields that explain an outlier: table keys, and description fields when the
# input was a submission tree.
EXPLAINING = ("Software", "framework", "other_software_stack", "Processor", "host_processor_model_name",
              "host_processors_per_node", "host_memory_capacity", "host_memory_configuration", "cooling",
              "operating_system", "weight_data_types", "Notes", "hw_notes", "sw_notes")
CSV_COLUMNS = ("model", "scenario", "kind", "hardware", "per_node", "nodes", "n", "submitters", "reference",
               "mean_abs_dev", "max_abs_dev", "cv", "outliers", "within_tolerance")


@dataclass
class Options:
    tolerance: float = 0.04
    outlier: float = 0.10
    reference: str = "median"  # or "submitter:NAME"
    min_submitters: int = 2

    def definition(self) -> str:
        reference = ("the group median of Performance_Result" if self.reference == "median"
                     else f"the result of submitter {self.reference.split(':', 1)[1]} (their median if several)")
        return (
            "Comparable group: closed division, same Model, Scenario, Nodes and units, and the same hardware "
            "(Accelerator and a#, or Processor and p# for CPU-only systems). "
            f"Groups need results from at least {self.min_submitters} submitters. "
            f"Reference: {reference}. Deviation = (x - ref) / ref for throughput and (ref - x) / ref for latency, "
            f"so positive is better. Outliers: |deviation| > {self.outlier:.0%}. "
            f"Within tolerance: mean |deviation| <= {self.tolerance:.0%}."
        )


@dataclass
class Group:
    key: dict[str, Any]
    reference: float
    members: list[dict[str, Any]]
    n: int
    submitters: int
    mean_abs_dev: float
    max_abs_dev: float
    cv: float
    outliers: list[dict[str, Any]] = field(default_factory=list)
    within_tolerance: bool = True


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(canonical(rows))
    for column in ("Category", "Model", "Scenario", "Nodes", "Accelerator", "a#", "Processor", "p#", "Submitter",
                   "Performance_Result", "Performance_Units", "Location"):
        if column not in frame:
            frame[column] = None
    frame = frame[(frame["Category"] == "closed") & pd.to_numeric(frame["Performance_Result"], errors="coerce").gt(0)]
    frame = frame.copy()
    frame["Performance_Result"] = frame["Performance_Result"].astype(float)
    accelerators = pd.to_numeric(frame["a#"], errors="coerce").fillna(0)
    cpu = frame["kind"] == "cpu"  # published.hardware_of: a# 0, or no accelerator named
    frame["per_node"] = accelerators.where(~cpu, pd.to_numeric(frame["p#"], errors="coerce").fillna(0)).astype(int)
    frame["nodes"] = pd.to_numeric(frame["Nodes"], errors="coerce").fillna(1).astype(int)
    frame["latency"] = frame["Performance_Units"].fillna("").astype(str).str.startswith("Latency")
    return frame


KEYS = ["Model", "Scenario", "Performance_Units", "kind", "hardware", "per_node", "nodes"]


def compare(rows: list[dict[str, Any]], options: Options) -> list[Group]:
    # Numbers near the float limit overflow to inf (and then NaN); the JSON writer says so.
    with np.errstate(all="ignore"):
        return _compare(rows, options)


def _compare(rows: list[dict[str, Any]], options: Options) -> list[Group]:
    frame = _frame(rows)
    groups: list[Group] = []
    for values, members in frame.groupby(KEYS, sort=True, dropna=False):
        key = dict(zip(KEYS, values))
        if members["Submitter"].nunique() < options.min_submitters:
            continue
        if options.reference == "median":
            reference = float(members["Performance_Result"].median())
        else:
            name = options.reference.split(":", 1)[1].lower()
            own = members[members["Submitter"].astype(str).str.lower() == name]
            if own.empty:
                continue
            reference = float(own["Performance_Result"].median())
        x = members["Performance_Result"]
        deviation = (reference - x) / reference if bool(members["latency"].iloc[0]) else (x - reference) / reference
        members = members.assign(deviation=deviation, abs_dev=deviation.abs())
        outlying = members[members["abs_dev"] > options.outlier]
        group = Group(
            key={"model": key["Model"], "scenario": key["Scenario"], "units": key["Performance_Units"],
                 "kind": key["kind"], "hardware": key["hardware"], "per_node": int(key["per_node"]),
                 "nodes": int(key["nodes"])},
            reference=reference,
            members=_records(members),
            n=len(members),
            submitters=int(members["Submitter"].nunique()),
            mean_abs_dev=float(members["abs_dev"].mean()),
            max_abs_dev=float(members["abs_dev"].max()),
            cv=float(x.std(ddof=0) / x.mean()),
        )
        group.within_tolerance = group.mean_abs_dev <= options.tolerance
        group.outliers = [dict(member, differs=_differences(member, members)) for member in _records(outlying)]
        groups.append(group)
    return groups


def _records(members: pd.DataFrame) -> list[dict[str, Any]]:
    keep = ["Submitter", "Location", "System", "Performance_Result", "deviation"]
    columns = [c for c in keep if c in members] + [c for c in EXPLAINING if c in members]
    records = members[columns].to_dict("records")
    return [{k: (None if isinstance(v, float) and pd.isna(v) else v) for k, v in r.items()} for r in records]


def _differences(member: dict[str, Any], members: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """The explaining fields where the member differs from the group's majority value."""
    found = {}
    for column in EXPLAINING:
        if column not in members:
            continue
        counts = members[column].dropna().astype(str).value_counts()
        if counts.empty:
            continue
        majority = counts.index[0]
        value = member.get(column)
        if value is not None and str(value) != majority:
            found[column] = {"this": value, "majority": majority}
    return found


# --- input tables ----------------------------------------------------------------------------
# What compare and followup compute with, and what each must be. A table that breaks this is
# a usage error naming the file and the row, never a crash or a silently dropped row.
NAMES = ("Category", "Model", "Scenario", "Submitter", "Performance_Units")  # non-empty text
TEXTS = ("Accelerator", "Processor", "Location", "System", "Platform", "Availability", "version")  # a value or empty
COUNTS = ("Nodes", "a#", "p#")  # a whole number or empty


def labelled_rows(path: str) -> list[tuple[str, dict[str, Any]]]:
    """The rows of a results table file as written, each with the label that finds it in the
    file (`row 3` of a JSON list, `row "2"` of an object keyed "0", "1", ..., `line 4` of a
    CSV) and with the v5.1/v6.0 key names. Raises ValueError, naming the file, for a file
    that is not a results table."""
    from .table import TEXT_KEYS, _format_of, _typed

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ValueError(f"{path} is not a regular file")
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} is not UTF-8 text (byte {error.start}: {error.reason})") from None
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from None
    if path.endswith(".csv"):
        reader = csv.reader(io.StringIO(text, newline=""))
        try:
            records = [(reader.line_num, record) for record in reader]
        except csv.Error as error:
            raise ValueError(f"{path} is not a readable CSV table: line {reader.line_num}: {error}") from None
        if not records:
            return []
        header = records[0][1]
        fmt = _format_of(set(header), None)
        text_keys = {fmt.key(k) for k in TEXT_KEYS} if fmt is not None else set(TEXT_KEYS)
        found = []
        for line, record in records[1:]:
            if not record:
                continue
            if len(record) != len(header):
                raise ValueError(f"{path}: line {line}: {len(record)} cells, but the header has {len(header)}")
            row = {k: (v if k in text_keys else _typed(v)) for k, v in zip(header, record) if v != "" or k in text_keys}
            found.append((f"line {line}", _named(row, fmt)))
        return found
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not JSON: {error.msg} (line {error.lineno}, column {error.colno})") from None
    shape = "list"
    if isinstance(data, dict) and all(key.isdigit() for key in data):
        data, shape = [(f'row "{key}"', data[key]) for key in sorted(data, key=int)], "index"
    elif isinstance(data, list):
        data = [(f"row {number}", row) for number, row in enumerate(data, 1)]
    else:
        raise ValueError(f"{path} is not a results table (a JSON list of rows, or an object keyed \"0\", \"1\", ...)")
    for label, row in data:
        if not isinstance(row, dict):
            raise ValueError(f"{path}: {label} is {_kind(row)}, not an object of keys and values")
    fmt = _format_of({key for _, row in data for key in row}, shape)
    return [(label, _named(row, fmt)) for label, row in data]


def _named(row: dict[str, Any], fmt: Any) -> dict[str, Any]:
    return {fmt.fact(key): value for key, value in row.items()} if fmt is not None else dict(row)


def _kind(value: Any) -> str:
    """A value as the message names it: JSON's words for JSON's types."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def problem(row: dict[str, Any]) -> str | None:
    """What is wrong with one row of an input table, or None."""
    for key in NAMES:
        value = row.get(key)
        if not isinstance(value, str) or not value.strip():
            return f"no {key}" if key not in row or value in (None, "") else f"{key} is {_kind(value)}, not a name"
    for key in TEXTS:
        if isinstance(row.get(key), (dict, list)):
            return f"{key} is {_kind(row[key])}, not a value"
    value = row.get("Performance_Result")
    if number(value) is None or not math.isfinite(value) or value <= 0:
        return f"Performance_Result is {_kind(value)}, not a positive number" if "Performance_Result" in row \
            else "no Performance_Result"
    for key in COUNTS:
        value = row.get(key)
        if value in (None, ""):
            continue
        whole = isinstance(value, int) and not isinstance(value, bool) or \
            isinstance(value, float) and value.is_integer() or isinstance(value, str) and value.strip().isdigit()
        if not whole or float(value) < 0:
            return f"{key} is {_kind(value)}, not a whole number"
    return None


def check_table(path: str) -> None:
    """Raises ValueError naming the file and the first malformed row (or an empty table)."""
    rows = labelled_rows(path)
    if not rows:
        raise ValueError(f"{path} holds no rows")
    for label, row in rows:
        wrong = problem(row)
        if wrong:
            raise ValueError(f"{path}: {label}: {wrong}")


# --- outputs ---------------------------------------------------------------------------------
def _hardware(group: Group) -> str:
    return f"{group.key['per_node']}x {group.key['hardware']}" + (f" x {group.key['nodes']} nodes"
                                                                   if group.key["nodes"] > 1 else "")


def summary(groups: list[Group]) -> dict[str, Any]:
    means = pd.Series([g.mean_abs_dev for g in groups], dtype=float)
    return {"groups": len(groups), "within_tolerance": sum(g.within_tolerance for g in groups),
            "median_mean_abs_dev": float(means.median()) if len(means) else None}


def to_json(groups: list[Group], options: Options) -> str:
    from ..reporters.common import strict_json

    return strict_json({
        "definition": options.definition(),
        "options": {"tolerance": options.tolerance, "outlier": options.outlier, "reference": options.reference,
                    "min_submitters": options.min_submitters},
        "summary": summary(groups),
        "groups": [{**g.key, "reference": g.reference, "n": g.n, "submitters": g.submitters,
                    "mean_abs_dev": g.mean_abs_dev, "max_abs_dev": g.max_abs_dev, "cv": g.cv,
                    "within_tolerance": g.within_tolerance, "members": g.members, "outliers": g.outliers}
                   for g in groups],
    }, indent=2, default=str) + "\n"


def csv_rows(groups: list[Group]) -> list[dict[str, Any]]:
    return [{"model": g.key["model"], "scenario": g.key["scenario"], "kind": g.key["kind"],
             "hardware": g.key["hardware"], "per_node": g.key["per_node"], "nodes": g.key["nodes"], "n": g.n,
             "submitters": g.submitters, "reference": round(g.reference, 6), "mean_abs_dev": round(g.mean_abs_dev, 6),
             "max_abs_dev": round(g.max_abs_dev, 6), "cv": round(g.cv, 6),
             "outliers": " ".join(f"{o['Submitter']}:{o['deviation']:+.4f}" for o in g.outliers),
             "within_tolerance": g.within_tolerance} for g in groups]


def to_csv(groups: list[Group], options: Options) -> str:
    return csv_text(csv_rows(groups), CSV_COLUMNS)


def to_text(groups: list[Group], options: Options) -> str:
    lines = [options.definition(), ""]
    for g in groups:
        verdict = "within" if g.within_tolerance else "OUTSIDE"
        lines.append(f"{g.key['model']} {g.key['scenario']}, {_hardware(g)}: n={g.n} ({g.submitters} submitters), "
                     f"ref {g.reference:.6g} {g.key['units']}, mean |dev| {g.mean_abs_dev:.1%}, "
                     f"max {g.max_abs_dev:.1%}, CV {g.cv:.1%} - {verdict} {options.tolerance:.0%}")
        for o in g.outliers:
            why = "; ".join(f"{k}: {v['this']!r} (most: {v['majority']!r})" for k, v in o["differs"].items())
            lines.append(f"    outlier {o['Submitter']} {o['deviation']:+.1%} {o['Location']}" + (f" - {why}" if why else ""))
    s = summary(groups)
    median = f"{s['median_mean_abs_dev']:.1%}" if s["median_mean_abs_dev"] is not None else "n/a"
    lines += ["", f"{s['groups']} groups, {s['within_tolerance']} within tolerance; median of the mean |deviation|: "
                  f"{median}"]
    return "\n".join(lines) + "\n"


def to_html(groups: list[Group], options: Options) -> str:
    """One HTML page in the audit report's look (checker/commands/templates/compare.html.j2): the
    definition, a row per group with percentages and units, and each group's members with
    the outliers and why, as the text output words them."""
    from .report import compare_page

    return compare_page(groups, options)


PER_PAGE = 30


def plot(groups: list[Group], options: Options, path: str, title: str = "Comparable results") -> list[str]:
    """Each member's deviation per group, the group's mean |deviation| (what the tolerance
    bounds) and the outlier threshold, in pages of PER_PAGE groups: `path`, then
    `<stem>-2.png`, ...; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stem = path[:-4] if path.lower().endswith(".png") else path
    pages = [groups[i:i + PER_PAGE] for i in range(0, len(groups), PER_PAGE)] or [[]]
    written = []
    for page_number, page in enumerate(pages, 1):
        figure, axes = plt.subplots(figsize=(10, max(2.5, 0.42 * len(page) + 1.6)))
        for side in (-1, 1):
            axes.axvline(side * options.outlier * 100, color="tab:red", linestyle="--", linewidth=0.8,
                         label=f"outlier threshold ±{options.outlier:.0%}" if side > 0 else None)
        axes.axvline(options.tolerance * 100, color="tab:green", linewidth=1.2,
                     label=f"tolerance {options.tolerance:.0%} on the group's mean |deviation|")
        axes.axvline(0, color="grey", linewidth=0.8)
        for row, group in enumerate(page):
            deviations = [m["deviation"] * 100 for m in group.members]
            axes.scatter(deviations, [row] * len(deviations), s=18, color="tab:blue", zorder=3,
                         label="a result's deviation" if row == 0 else None)
            axes.scatter([group.mean_abs_dev * 100], [row], marker="D", s=30, zorder=4,
                         color="tab:green" if group.within_tolerance else "tab:orange",
                         label="group mean |deviation|" if row == 0 else None)
            for outlier in group.outliers:
                axes.annotate(outlier["Submitter"], (outlier["deviation"] * 100, row), textcoords="offset points",
                              xytext=(4, 4), fontsize=7, color="tab:red")
        axes.set_yticks(range(len(page)))
        axes.set_yticklabels([f"{g.key['model']} {g.key['scenario']} {_hardware(g)}"[:70] for g in page], fontsize=7)
        axes.set_xlabel("deviation from the reference (%), positive is better")
        axes.set_title(title + (f", page {page_number} of {len(pages)}" if len(pages) > 1 else ""))
        axes.invert_yaxis()
        axes.legend(loc="lower right", fontsize=7)
        figure.tight_layout()
        target = path if page_number == 1 else f"{stem}-{page_number}.png"
        figure.savefig(target, dpi=110)
        plt.close(figure)
        written.append(target)
    return written


FORMATS = Formats({"text": as_text(to_text), "json": as_data(to_json), "csv": as_text(to_csv),
                   "html": as_data(to_html)})  # escaped by its templates
