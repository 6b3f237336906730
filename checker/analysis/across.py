"""The same hardware across rounds, and the same accelerator across node counts.

- Across rounds: for each benchmark (model, scenario) and hardware key (the accelerator, or
  the processor of a CPU-only system, with the count per node and the node count) found in
  two or more rounds, the best closed result of each round and the ratio of each round's best
  to the first round's (above 1 is faster: the same hardware made faster by software). The
  same per submitter, where one submitter has the key in two or more rounds.
- Scaling: for each round, benchmark, accelerator and submitter with results at two or more
  total accelerator counts, each count's best result per accelerator against the smallest
  count's (the efficiency; 1 is linear scaling). One submitter's systems are compared with
  each other only: another submitter's system differs in more than its size (its host, its
  software, its tuning), so a ratio across submitters is not scaling. `across_submitters`
  compares every submitter's systems, as one series per benchmark and accelerator.
A system that mixes accelerators keeps its own hardware key.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import option
from ..escaping import text_lines
from ..reporters import Formats, as_json, as_text
from ..reporters.common import csv_text
from ..settings import UsageError
from .selection import Selection
from .table import Row, best, faster


def _order(name: str) -> tuple[int, ...]:
    return tuple(int(p) for p in name.lstrip("v").split(".") if p.isdigit())


@dataclass
class Series:
    """One benchmark on one hardware key, round after round."""

    model: str
    scenario: str
    hardware: str
    per_node: int
    nodes: int
    units: str
    submitter: str | None  # None: every submitter's best
    best: dict[str, Row] = field(default_factory=dict)  # round -> best row

    def ratios(self) -> dict[str, float]:
        rounds = sorted(self.best, key=_order)
        first = self.best[rounds[0]]
        return {name: faster(first, self.best[name]) for name in rounds}

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "scenario": self.scenario,
            "hardware": self.hardware,
            "per_node": self.per_node,
            "nodes": self.nodes,
            "units": self.units,
            "submitter": self.submitter or "all",
            "rounds": {
                name: {**row.summary(), "ratio": self.ratios()[name]}
                for name, row in sorted(self.best.items(), key=lambda item: _order(item[0]))
            },
        }


@dataclass
class Scaling:
    round: str
    model: str
    scenario: str
    hardware: str
    units: str
    submitter: str | None  # None: every submitter's systems
    points: dict[int, Row] = field(default_factory=dict)  # total accelerators -> best row

    @property
    def whose(self) -> str:
        return f"{self.submitter}'s systems" if self.submitter is not None else "all submitters' systems"

    def efficiency(self) -> dict[int, float]:
        smallest = min(self.points)
        base = self.points[smallest]
        return {count: faster(base, row) * smallest / count for count, row in sorted(self.points.items())}

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "model": self.model,
            "scenario": self.scenario,
            "hardware": self.hardware,
            "units": self.units,
            "submitter": self.submitter or "all",
            "points": [
                {"accelerators": count, **row.summary(), "system": row.system, "efficiency": self.efficiency()[count]}
                for count, row in sorted(self.points.items())
            ],
        }


@dataclass
class Followed:
    """What `follow` found: the rows taken, the series, the scaling series, the selection's notes
    and the divisions followed."""

    rows: list[Row]
    series: list[Series]
    scalings: list[Scaling]
    notes: list[str]
    division: tuple[str, ...]


def follow(
    rows: list[Row],
    selection: Selection,
    scaling_too: bool = False,
    across_submitters: bool = False,
) -> Followed:
    """`compare --across-rounds` and mlperf_check.across_rounds alike: the rows of the
    selection's divisions (closed when it names none) that it takes (published.Selection, a
    usage error saying why when none is), which must hold two or more rounds; each hardware
    name in one spelling (published.one_spelling)."""
    import dataclasses

    from .table import frame, one_spelling

    division = tuple(d.lower() for d in selection.division) or ("closed",)
    within = dataclasses.replace(selection, division=division)
    if rows:
        taken = within.taken(frame(rows)).tolist()
        rows = [row for row, keep in zip(rows, taken, strict=True) if keep]
    spelling = one_spelling(row.hardware for row in rows)
    rows = [dataclasses.replace(row, hardware=spelling[row.hardware]) for row in rows]
    rounds = sorted({row.round for row in rows if row.round}, key=_order)
    if len(rounds) < 2:
        raise UsageError(
            f"{option('across_rounds')} needs results of two or more rounds; the rows selected hold {', '.join(rounds) or 'none'}"
        )
    series = across_rounds(rows, division)
    scalings = scaling(rows, across_submitters, division) if scaling_too else []
    return Followed(rows, series, scalings, selection.notes(row.hardware for row in rows), division)


def across_rounds(rows: list[Row], division: tuple[str, ...] = ("closed",)) -> list[Series]:
    """Series of every benchmark and hardware key in two or more rounds, over the rows of
    `division`: overall, then per submitter where one submitter has it in two or more rounds."""
    groups: dict[tuple[Any, ...], list[Row]] = defaultdict(list)
    for row in rows:
        if row.division in division and row.result and row.hardware:
            groups[(row.model, row.scenario, row.kind, row.hardware, row.per_node, row.nodes, row.units)].append(row)
    found = []
    for (model, scenario, _, hardware, per_node, nodes, units), members in sorted(groups.items()):
        for submitter in [None] + sorted({r.submitter for r in members}):
            chosen = [r for r in members if submitter is None or r.submitter == submitter]
            by_round: dict[str, list[Row]] = defaultdict(list)
            for row in chosen:
                by_round[row.round].append(row)
            bests = {name: b for name, rs in by_round.items() if (b := best(rs)) is not None}
            if len(bests) < 2:
                continue
            found.append(
                Series(
                    model,
                    scenario,
                    hardware,
                    per_node,
                    nodes,
                    units,
                    submitter,
                    bests,
                )
            )
    return found


def scaling(rows: list[Row], across_submitters: bool = False, division: tuple[str, ...] = ("closed",)) -> list[Scaling]:
    """Scaling series of the throughput results of accelerated systems of `division`: per
    round, benchmark, accelerator and units, and per submitter unless `across_submitters`."""
    groups: dict[tuple[Any, ...], dict[int, list[Row]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if (
            row.division in division
            and row.result
            and row.kind == "accelerator"
            and not row.latency
            and row.accelerators
        ):
            submitter = "" if across_submitters else row.submitter
            groups[(row.round, row.model, row.scenario, row.hardware, row.units, submitter)][row.accelerators].append(
                row
            )
    found = []
    for (name, model, scenario, hardware, units, submitter), by_count in sorted(groups.items()):
        points = {count: b for count, rs in by_count.items() if (b := best(rs)) is not None}
        if len(points) >= 2:
            found.append(Scaling(name, model, scenario, hardware, units, submitter or None, points))
    return found


def document(
    series: list[Series], scalings: list[Scaling], selection: Selection | None = None, notes: Sequence[str] = ()
) -> dict[str, Any]:
    """The series and scalings as their JSON names them (reporters.as_json writes it)."""
    chosen = selection.fields(notes) if selection else {}
    return {**chosen, "across_rounds": [s.to_dict() for s in series], "scaling": [s.to_dict() for s in scalings]}


def to_text(
    series: list[Series], scalings: list[Scaling], selection: Selection | None = None, notes: Sequence[str] = ()
) -> str:
    lines = selection.lines(notes) if selection else []
    which = " or ".join(d.lower() for d in selection.division) if selection and selection.division else "closed"
    lines.append(
        f"Across rounds: the best {which} result per round on the same hardware (ratio to the first round; "
        "above 1 is faster)."
    )
    for s in series:
        who = s.submitter or "all submitters"
        lines.append(
            f"{s.model} {s.scenario}, {s.per_node}x {s.hardware}"
            + (f" x {s.nodes} nodes" if s.nodes > 1 else "")
            + f" ({who}):"
        )
        for name, ratio in s.ratios().items():
            row = s.best[name]
            lines.append(f"    {name}: {row.result:.6g} {row.units} x{ratio:.3f}  {row.location} ({row.submitter})")
    lines += [
        "",
        "Scaling: the best result per accelerator at each count against the smallest count's, "
        + (
            "across all submitters' systems."
            if any(s.submitter is None for s in scalings)
            else "among one submitter's systems (--scaling-across-submitters compares different submitters')."
        ),
    ]
    for scale in scalings:
        lines.append(f"{scale.round} {scale.model} {scale.scenario}, {scale.hardware} ({scale.whose}):")
        for count, efficiency in scale.efficiency().items():
            row = scale.points[count]
            lines.append(
                f"    {count} accelerators: {row.result:.6g} {row.units}, efficiency {efficiency:.1%}  "
                f"{row.location} ({row.submitter})"
            )
    lines += ["", f"{len(series)} series across rounds, {len(scalings)} scaling series"]
    return text_lines(lines)


CSV_COLUMNS = (
    "kind",
    "model",
    "scenario",
    "hardware",
    "per_node",
    "nodes",
    "submitter",
    "round",
    "accelerators",
    "result",
    "units",
    "ratio",
    "location",
)


def records(series: list[Series], scalings: list[Scaling]) -> list[dict[str, Any]]:
    """One record per round of each series, then per count of each scaling series (CSV_COLUMNS):
    `ratio` is the ratio to the first round, or the scaling efficiency."""
    found = []
    for s in series:
        for name, ratio in s.ratios().items():
            row = s.best[name]
            found.append(
                {
                    "kind": "across_rounds",
                    "model": s.model,
                    "scenario": s.scenario,
                    "hardware": s.hardware,
                    "per_node": s.per_node,
                    "nodes": s.nodes,
                    "submitter": s.submitter or "all",
                    "round": name,
                    "accelerators": row.accelerators,
                    "result": row.result,
                    "units": row.units,
                    "ratio": ratio,
                    "location": row.location,
                }
            )
    for scale in scalings:
        for count, efficiency in scale.efficiency().items():
            row = scale.points[count]
            found.append(
                {
                    "kind": "scaling",
                    "model": scale.model,
                    "scenario": scale.scenario,
                    "hardware": scale.hardware,
                    "per_node": row.per_node,
                    "nodes": row.nodes,
                    "submitter": row.submitter,
                    "round": scale.round,
                    "accelerators": count,
                    "result": row.result,
                    "units": row.units,
                    "ratio": efficiency,
                    "location": row.location,
                }
            )
    return found


def to_csv(
    series: list[Series], scalings: list[Scaling], selection: Selection | None = None, notes: Sequence[str] = ()
) -> str:
    rows = [{**record, "ratio": round(record["ratio"], 6)} for record in records(series, scalings)]
    return csv_text(rows, CSV_COLUMNS)


FORMATS = Formats({"text": as_text(to_text), "json": as_json(document), "csv": as_text(to_csv)})
