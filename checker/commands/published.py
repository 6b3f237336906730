"""Rows of published results tables, made comparable across formats and rounds.

The three published formats (and the CSV `table` writes) spell the same facts differently:
v6.1 writes folder scenarios (`offline`) and its own model labels (`VLM`), v6.0 and v6.1 end
`Location` in `/performance/run_1`, an open result names its own model (`llama3_1-8b`). A
`Row` holds each fact once, in the round's spelling: the model and scenario as the round
names them, the scenario folder, and a hardware key (the accelerator without its count, or
the processor of a CPU-only system; a system that mixes accelerators keeps its own key).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from typing import Any

from ..parsers import number
from ..parsers.counts import per_part
from ..rounds import Round, RoundError, available_rounds, load_round

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


def hardware_of(row: dict[str, Any]) -> tuple[str, str, int, bool]:
    """(kind, hardware key, count per node, mixed) of a row."""
    accelerator = str(row.get("Accelerator") or "").strip()
    per_node = _count(row.get("a#"))
    if per_node == 0 or accelerator in NOT_APPLICABLE:
        return "cpu", str(row.get("Processor") or "").strip(), _count(row.get("p#")), False
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
                raw=row,
            )
        )
    return out


def best(rows: list[Row]) -> Row | None:
    """The best row: the highest throughput, or the lowest latency when the units are a latency."""
    scored = [(r.result, r) for r in rows if r.result is not None and r.result > 0]
    if not scored:
        return None
    pick = min if scored[0][1].latency else max
    return pick(scored, key=lambda pair: pair[0])[1]


def deviation(value: Any, reference: Any, latency: bool) -> Any:
    """How much better `value` is than `reference`, as a fraction: (x - ref) / ref for a
    throughput, (ref - x) / ref for a latency, so positive is better. Numbers or pandas
    Series alike: compare, claims and reproduce all measure a deviation with this."""
    change = (value - reference) / reference
    return -change if latency else change


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
