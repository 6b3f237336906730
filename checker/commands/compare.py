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

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..parsers import number
from ..reporters import Formats, as_data, as_text
from ..reporters.common import csv_text
from .pages import paged, save
from .published import canonical, location_of

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
CSV_COLUMNS = (
    "model",
    "scenario",
    "kind",
    "hardware",
    "per_node",
    "nodes",
    "n",
    "submitters",
    "reference",
    "mean_abs_dev",
    "max_abs_dev",
    "cv",
    "outliers",
    "within_tolerance",
)


@dataclass
class Options:
    tolerance: float = 0.04
    outlier: float = 0.10
    reference: str = "median"  # or "submitter:NAME"
    min_submitters: int = 2

    def definition(self) -> str:
        reference = (
            "the group median of Performance_Result"
            if self.reference == "median"
            else f"the result of submitter {self.reference.split(':', 1)[1]} (their median if several)"
        )
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
    for column in (
        "Category",
        "Model",
        "Scenario",
        "Nodes",
        "Accelerator",
        "a#",
        "Processor",
        "p#",
        "Submitter",
        "Performance_Result",
        "Performance_Units",
        "Location",
    ):
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


def unique(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The rows with each result once, and how many were left out: a row with the round,
    Location and Submitter of an earlier one (the same table given twice, or a tree and its
    table) would count the result twice in n and in the median."""
    seen: set[tuple[str, str, str]] = set()
    kept = []
    for row in rows:
        key = (str(row.get("version") or ""), location_of(row), str(row.get("Submitter") or ""))
        if key not in seen:
            seen.add(key)
            kept.append(row)
    return kept, len(rows) - len(kept)


def submitters(rows: list[dict[str, Any]]) -> list[str]:
    """The submitters of the closed rows (those compare groups), sorted case-blind."""
    return sorted(
        {str(r.get("Submitter")) for r in canonical(rows) if r.get("Category") == "closed" and r.get("Submitter")},
        key=str.lower,
    )


def compare(rows: list[dict[str, Any]], options: Options) -> list[Group]:
    # Numbers near the float limit overflow to inf (and then NaN); the JSON writer says so.
    with np.errstate(all="ignore"):
        return _compare(rows, options)


def _compare(rows: list[dict[str, Any]], options: Options) -> list[Group]:
    if not rows:  # no valid result, or every row left out: nothing to group (and no column to group by)
        return []
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
            key={
                "model": key["Model"],
                "scenario": key["Scenario"],
                "units": key["Performance_Units"],
                "kind": key["kind"],
                "hardware": key["hardware"],
                "per_node": int(key["per_node"]),
                "nodes": int(key["nodes"]),
            },
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


# --- outputs ---------------------------------------------------------------------------------
def _hardware(group: Group) -> str:
    return f"{group.key['per_node']}x {group.key['hardware']}" + (
        f" x {group.key['nodes']} nodes" if group.key["nodes"] > 1 else ""
    )


def summary(groups: list[Group]) -> dict[str, Any]:
    means = pd.Series([g.mean_abs_dev for g in groups], dtype=float)
    return {
        "groups": len(groups),
        "within_tolerance": sum(g.within_tolerance for g in groups),
        "median_mean_abs_dev": float(means.median()) if len(means) else None,
    }


def to_json(groups: list[Group], options: Options) -> str:
    from ..reporters.common import strict_json

    return (
        strict_json(
            {
                "definition": options.definition(),
                "options": {
                    "tolerance": options.tolerance,
                    "outlier": options.outlier,
                    "reference": options.reference,
                    "min_submitters": options.min_submitters,
                },
                "summary": summary(groups),
                "groups": [
                    {
                        **g.key,
                        "reference": g.reference,
                        "n": g.n,
                        "submitters": g.submitters,
                        "mean_abs_dev": g.mean_abs_dev,
                        "max_abs_dev": g.max_abs_dev,
                        "cv": g.cv,
                        "within_tolerance": g.within_tolerance,
                        "members": g.members,
                        "outliers": g.outliers,
                    }
                    for g in groups
                ],
            },
            indent=2,
            default=str,
        )
        + "\n"
    )


def csv_rows(groups: list[Group]) -> list[dict[str, Any]]:
    return [
        {
            "model": g.key["model"],
            "scenario": g.key["scenario"],
            "kind": g.key["kind"],
            "hardware": g.key["hardware"],
            "per_node": g.key["per_node"],
            "nodes": g.key["nodes"],
            "n": g.n,
            "submitters": g.submitters,
            "reference": round(g.reference, 6),
            "mean_abs_dev": round(g.mean_abs_dev, 6),
            "max_abs_dev": round(g.max_abs_dev, 6),
            "cv": round(g.cv, 6),
            "outliers": " ".join(f"{o['Submitter']}:{o['deviation']:+.4f}" for o in g.outliers),
            "within_tolerance": g.within_tolerance,
        }
        for g in groups
    ]


def to_csv(groups: list[Group], options: Options) -> str:
    return csv_text(csv_rows(groups), CSV_COLUMNS)


def to_text(groups: list[Group], options: Options) -> str:
    lines = [options.definition(), ""]
    for g in groups:
        verdict = "within" if g.within_tolerance else "OUTSIDE"
        lines.append(
            f"{g.key['model']} {g.key['scenario']}, {_hardware(g)}: n={g.n} ({g.submitters} submitters), "
            f"ref {g.reference:.6g} {g.key['units']}, mean |dev| {g.mean_abs_dev:.1%}, "
            f"max {g.max_abs_dev:.1%}, CV {g.cv:.1%} - {verdict} {options.tolerance:.0%}"
        )
        for o in g.outliers:
            why = "; ".join(f"{k}: {v['this']!r} (most: {v['majority']!r})" for k, v in o["differs"].items())
            lines.append(
                f"    outlier {o['Submitter']} {o['deviation']:+.1%} {o['Location']}" + (f" - {why}" if why else "")
            )
    s = summary(groups)
    median = f"{s['median_mean_abs_dev']:.1%}" if s["median_mean_abs_dev"] is not None else "n/a"
    lines += [
        "",
        f"{s['groups']} groups, {s['within_tolerance']} within tolerance; median of the mean |deviation|: {median}",
    ]
    return "\n".join(lines) + "\n"


# --- the HTML views (compare --format html and the audit page) --------------------------------
def _pct(value: Any, signed: bool = False) -> str:
    if not isinstance(value, (int, float)) or value != value or value in (float("inf"), float("-inf")):
        return "n/a"
    return f"{value:+.1%}" if signed else f"{value:.1%}"


def _number(value: Any) -> str:
    return f"{value:.6g}" if number(value) is not None else str(value or "")


def groups_view(groups: list[Any], options: Any) -> list[dict[str, Any]]:
    """The comparable groups as the text output words them: percentages, units, every member
    and each outlier's reasons (the explaining fields where it differs from the majority)."""
    views = []
    for group in groups:
        outliers = {(o.get("Submitter"), o.get("Location")): o for o in group.outliers}
        members = []
        for member in group.members:
            outlier = outliers.get((member.get("Submitter"), member.get("Location")))
            why = [
                f"{k}: {v['this']!r} (most: {v['majority']!r})" for k, v in (outlier or {}).get("differs", {}).items()
            ]
            members.append(
                {
                    "submitter": str(member.get("Submitter") or ""),
                    "system": str(member.get("System") or ""),
                    "location": str(member.get("Location") or ""),
                    "value": _number(member.get("Performance_Result")),
                    "deviation": _pct(member.get("deviation"), signed=True),
                    "outlier": outlier is not None,
                    "why": why,
                }
            )
        views.append(
            {
                "title": f"{group.key['model']} {group.key['scenario']}, {_hardware(group)}",
                "units": str(group.key["units"]),
                "n": group.n,
                "submitters": group.submitters,
                "reference": _number(group.reference),
                "mean": _pct(group.mean_abs_dev),
                "max": _pct(group.max_abs_dev),
                "cv": _pct(group.cv),
                "within": group.within_tolerance,
                "tolerance": f"{options.tolerance:.0%}",
                "outliers": len(group.outliers),
                "members": members,
            }
        )
    return views


def groups_summary(groups: list[Any]) -> dict[str, Any]:
    found = summary(groups)
    return {
        "groups": found["groups"],
        "within": found["within_tolerance"],
        "median": _pct(found["median_mean_abs_dev"]),
    }


def to_html(groups: list[Group], options: Options) -> str:
    """One HTML page in the audit report's look (checker/commands/templates/compare.html.j2): the
    definition, a row per group with percentages and units, and each group's members with
    the outliers and why, as the text output words them."""
    from .html import render

    return render(
        "compare.html.j2",
        title="mlperf-check compare: comparable results",
        definition=options.definition(),
        groups=groups_view(groups, options),
        summary=groups_summary(groups),
    )


def plot(groups: list[Group], options: Options, path: str, title: str = "Comparable results") -> list[str]:
    """Each member's deviation per group, the group's mean |deviation| (what the tolerance
    bounds) and the outlier threshold, in pages of PER_PAGE groups: `path`, then
    `<stem>-2.png`, ...; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pages = paged(groups)
    written = []
    for page_number, page in enumerate(pages, 1):
        figure, axes = plt.subplots(figsize=(10, max(2.5, 0.42 * len(page) + 1.6)))
        for side in (-1, 1):
            axes.axvline(
                side * options.outlier * 100,
                color="tab:red",
                linestyle="--",
                linewidth=0.8,
                label=f"outlier threshold ±{options.outlier:.0%}" if side > 0 else None,
            )
        axes.axvline(
            options.tolerance * 100,
            color="tab:green",
            linewidth=1.2,
            label=f"tolerance {options.tolerance:.0%} on the group's mean |deviation|",
        )
        axes.axvline(0, color="grey", linewidth=0.8)
        for row, group in enumerate(page):
            deviations = [m["deviation"] * 100 for m in group.members]
            axes.scatter(
                deviations,
                [row] * len(deviations),
                s=18,
                color="tab:blue",
                zorder=3,
                label="a result's deviation" if row == 0 else None,
            )
            axes.scatter(
                [group.mean_abs_dev * 100],
                [row],
                marker="D",
                s=30,
                zorder=4,
                color="tab:green" if group.within_tolerance else "tab:orange",
                label="group mean |deviation|" if row == 0 else None,
            )
            for outlier in group.outliers:
                axes.annotate(
                    outlier["Submitter"],
                    (outlier["deviation"] * 100, row),
                    textcoords="offset points",
                    xytext=(4, 4),
                    fontsize=7,
                    color="tab:red",
                )
        axes.set_yticks(range(len(page)))
        axes.set_yticklabels([f"{g.key['model']} {g.key['scenario']} {_hardware(g)}"[:70] for g in page], fontsize=7)
        axes.set_xlabel("deviation from the reference (%), positive is better")
        axes.set_title(title + (f", page {page_number} of {len(pages)}" if len(pages) > 1 else ""))
        axes.invert_yaxis()
        axes.legend(loc="lower right", fontsize=7)
        written.append(save(figure, path, page_number))
    return written


FORMATS = Formats(
    {"text": as_text(to_text), "json": as_data(to_json), "csv": as_text(to_csv), "html": as_data(to_html)}
)  # escaped by its templates
