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

import math
import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

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


NEEDED = (
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
)
KEYS = ["Model", "Scenario", "Performance_Units", "kind", "hardware", "per_node", "nodes"]
KEPT = ("Submitter", "Location", "System", "Performance_Result", "deviation")  # a member's record


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


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _numeric(value: Any) -> float | None:
    """A cell as a number, or None: numbers, and text that reads as a decimal number
    (spaces around it allowed; no underscores, no hexadecimal), as a table reader would."""
    if isinstance(value, (bool, int, float)):
        return None if _missing(value) else float(value)
    if isinstance(value, str) and "_" not in value:
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _cells(rows: list[dict[str, Any]], columns: list[str]) -> dict[str, list[Any]]:
    """Each column of the rows, a cell a row (None where a row lacks it or holds NaN), typed
    as one column of a table is: whole numbers with a cell missing, or beside fractions, are
    read as fractions (8 as 8.0)."""
    cells = {}
    for column in columns:
        values = [None if _missing(row.get(column)) else row.get(column) for row in rows]
        present = [v for v in values if v is not None]
        numbers = [v for v in present if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if (
            numbers
            and len(numbers) == len(present)
            and (len(present) < len(values) or any(isinstance(v, float) for v in numbers))
        ):
            values = [None if v is None else float(v) for v in values]
        cells[column] = values
    return cells


def _grouped(rows: list[dict[str, Any]]) -> tuple[list[str], list[tuple[tuple, list[dict[str, Any]]]]]:
    """The rows compare reads (closed, a positive Performance_Result), with their group key
    fields (per_node, nodes, latency), grouped by KEYS in sorted order (values of one kind
    in their order, a missing one last); and the record columns present in any row."""
    rows = canonical(rows)
    present = {column for row in rows for column in row}
    columns = [c for c in KEPT if c in present or c == "deviation"] + [c for c in EXPLAINING if c in present]
    cells = _cells(rows, [c for c in columns if c != "deviation"])
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for index, row in enumerate(rows):
        result = _numeric(row.get("Performance_Result"))
        if row.get("Category") != "closed" or result is None or not result > 0:
            continue
        per_node = _numeric(row.get("p#") if row.get("kind") == "cpu" else row.get("a#"))
        nodes = _numeric(row.get("Nodes"))
        member = {column: cells[column][index] for column in cells}
        member.update(
            Performance_Result=result,
            per_node=int(per_node or 0),
            nodes=int(1 if nodes is None else nodes),
            latency=str("" if _missing(row.get("Performance_Units")) else row["Performance_Units"]).startswith(
                "Latency"
            ),
        )
        key = tuple(None if _missing(row.get(k, member.get(k))) else row.get(k, member.get(k)) for k in KEYS[:5])
        groups.setdefault(key + (member["per_node"], member["nodes"]), []).append(member)
    order = sorted(groups, key=lambda key: tuple((value is None, type(value).__name__, value) for value in key))
    return columns, [(key, groups[key]) for key in order]


def compare(rows: list[dict[str, Any]], options: Options) -> list[Group]:
    """The comparable groups of the rows, in the order of their keys. Numbers near the float
    limit overflow to inf (and then NaN); the JSON writer says so."""
    columns, grouped = _grouped(rows)
    found: list[Group] = []
    for values, members in grouped:
        key = dict(zip(KEYS, values, strict=True))
        if len({m["Submitter"] for m in members if m["Submitter"] is not None}) < options.min_submitters:
            continue
        if options.reference == "median":
            reference = statistics.median(m["Performance_Result"] for m in members)
        else:
            name = options.reference.split(":", 1)[1].lower()
            own = [m["Performance_Result"] for m in members if str(m["Submitter"]).lower() == name]
            if not own:
                continue
            reference = statistics.median(own)
        for member in members:
            x = member["Performance_Result"]
            member["deviation"] = (reference - x) / reference if member["latency"] else (x - reference) / reference
        deviations = [abs(m["deviation"]) for m in members]
        results = [m["Performance_Result"] for m in members]
        mean = sum(results) / len(results)  # plain float sums: past the float limit, inf and NaN
        spread = math.sqrt(sum((x - mean) * (x - mean) for x in results) / len(results))
        group = Group(
            key={
                "model": key["Model"],
                "scenario": key["Scenario"],
                "units": key["Performance_Units"],
                "kind": key["kind"],
                "hardware": key["hardware"],
                "per_node": key["per_node"],
                "nodes": key["nodes"],
            },
            reference=reference,
            members=[{c: None if _missing(m[c]) else m[c] for c in columns} for m in members],  # NaN as no value
            n=len(members),
            submitters=len({m["Submitter"] for m in members if m["Submitter"] is not None}),
            mean_abs_dev=sum(deviations) / len(deviations),
            max_abs_dev=max(deviations),
            cv=spread / mean,
        )
        group.within_tolerance = group.mean_abs_dev <= options.tolerance
        group.outliers = [
            dict(record, differs=_differences(record, group.members, columns))
            for member, record in zip(members, group.members, strict=True)
            if abs(member["deviation"]) > options.outlier  # NaN is no outlier
        ]
        found.append(group)
    return found


def _differences(
    member: dict[str, Any], members: list[dict[str, Any]], columns: list[str]
) -> dict[str, dict[str, Any]]:
    """The explaining fields where the member differs from the group's majority value (the
    first seen, among the most frequent)."""
    found = {}
    for column in EXPLAINING:
        if column not in columns:
            continue
        counts = Counter(str(m[column]) for m in members if m[column] is not None)
        if not counts:
            continue
        majority = counts.most_common(1)[0][0]
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
    """The counts, and the median of the groups' mean |deviation| (of those that are numbers;
    NaN when none is)."""
    means = [g.mean_abs_dev for g in groups if g.mean_abs_dev == g.mean_abs_dev]
    return {
        "groups": len(groups),
        "within_tolerance": sum(g.within_tolerance for g in groups),
        "median_mean_abs_dev": statistics.median(means) if means else (math.nan if groups else None),
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


# The colours of matplotlib's default cycle (tab:blue ...), so the page's plot looks like
# `compare --plot`'s.
_COLOURS = {"blue": "#1f77b4", "green": "#2ca02c", "orange": "#ff7f0e", "red": "#d62728", "grey": "#7f7f7f"}


def svg_pages(groups: list[Group], options: Options, title: str = "Comparable results") -> list[str]:
    """What `plot` draws, as SVG documents (a page of PER_PAGE groups each), without
    matplotlib: each member's deviation per group, the group's mean |deviation| (green within
    the tolerance, orange outside), the outlier threshold and the tolerance."""
    pages = paged(groups)
    widest = max(
        [abs(m["deviation"]) for g in groups for m in g.members if m["deviation"] == m["deviation"]]
        + [options.outlier, options.tolerance],
    )
    span = 100 * min(widest, 1e6) * 1.1  # percent either side of 0
    left, right, top, row_height, width = 400, 30, 48, 24, 1000
    step = _tick_step(span)
    documents = []
    for page_number, page in enumerate(pages, 1):
        height = top + row_height * max(1, len(page)) + 80
        bottom = top + row_height * max(1, len(page))

        def x(percent: float) -> float:
            return left + (min(max(percent, -span), span) + span) / (2 * span) * (width - left - right)

        heading = title + (f", page {page_number} of {len(pages)}" if len(pages) > 1 else "")
        parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">{_escape(heading)}</text>',
            f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{bottom - top}" fill="none" '
            f'stroke="{_COLOURS["grey"]}"/>',
        ]
        tick = -math.floor(span / step) * step
        while tick <= span:
            parts.append(
                f'<line x1="{x(tick):.1f}" y1="{bottom}" x2="{x(tick):.1f}" y2="{bottom + 4}" stroke="black"/>'
            )
            parts.append(f'<text x="{x(tick):.1f}" y="{bottom + 16}" text-anchor="middle">{tick:g}</text>')
            tick += step
        for side in (-1, 1):
            parts.append(_vline(x(side * options.outlier * 100), top, bottom, _COLOURS["red"], dashed=True))
        parts.append(_vline(x(options.tolerance * 100), top, bottom, _COLOURS["green"]))
        parts.append(_vline(x(0), top, bottom, _COLOURS["grey"]))
        for row, group in enumerate(page):
            y = top + row_height * (row + 0.5)
            label = f"{group.key['model']} {group.key['scenario']} {_hardware(group)}"[:70]
            parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{_escape(label)}</text>')
            for member in group.members:
                parts.append(
                    f'<circle cx="{x(member["deviation"] * 100):.1f}" cy="{y:.1f}" r="3.5" fill="{_COLOURS["blue"]}"/>'
                )
            mean, colour = x(group.mean_abs_dev * 100), _COLOURS["green" if group.within_tolerance else "orange"]
            parts.append(
                f'<polygon points="{mean:.1f},{y - 5:.1f} {mean + 5:.1f},{y:.1f} {mean:.1f},{y + 5:.1f} '
                f'{mean - 5:.1f},{y:.1f}" fill="{colour}"/>'
            )
            for outlier in group.outliers:
                parts.append(
                    f'<text x="{x(outlier["deviation"] * 100) + 4:.1f}" y="{y - 5:.1f}" font-size="9" '
                    f'fill="{_COLOURS["red"]}">{_escape(str(outlier["Submitter"]))}</text>'
                )
        parts.append(
            f'<text x="{(left + width - right) / 2}" y="{bottom + 34}" text-anchor="middle">'
            "deviation from the reference (%), positive is better</text>"
        )
        legend = [
            (_COLOURS["blue"], "a result's deviation"),
            (_COLOURS["green"], "group mean |deviation|"),
            (_COLOURS["red"], f"outlier threshold ±{options.outlier:.0%}"),
            (_COLOURS["green"], f"tolerance {options.tolerance:.0%} on the group's mean |deviation|"),
        ]
        for index, (colour, text) in enumerate(legend):  # two columns under the plot
            lx, ly = left + (index % 2) * 280, bottom + 44 + (index // 2) * 14
            parts.append(f'<rect x="{lx}" y="{ly}" width="10" height="10" fill="{colour}"/>')
            parts.append(f'<text x="{lx + 14}" y="{ly + 9}" font-size="10">{_escape(text)}</text>')
        parts.append("</svg>")
        documents.append("\n".join(parts))
    return documents


def _tick_step(span: float) -> float:
    """A round step (1, 2 or 5 times a power of ten) for about five ticks either side of 0."""
    raw = span / 5
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _vline(x: float, top: float, bottom: float, colour: str, dashed: bool = False) -> str:
    dash = ' stroke-dasharray="5,3"' if dashed else ""
    return f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="{colour}"{dash}/>'


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


FORMATS = Formats(
    {"text": as_text(to_text), "json": as_data(to_json), "csv": as_text(to_csv), "html": as_data(to_html)}
)  # escaped by its templates
