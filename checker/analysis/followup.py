"""Preview follow-up: a Preview result must return as Available, at most 2% worse, in its
target round (submission_rules.adoc, "Preview Systems"; reference/RULES.md PRV-01 to PRV-03).

Inputs are results tables in the published format (or trees, tabled first). A preview
system is matched to its Available successor by a mapping file, else the same system (its
division, submitter and system folder) when it returns Available, else by the same submitter,
accelerator model (its words, marks and order aside) and count, and node count. Power results compare performance per watt."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from .. import userfiles
from ..errors import naming
from ..escaping import text_lines
from ..reporters import Formats, as_json, as_text
from ..reporters.common import csv_text
from ..rounds import RoundError, available_rounds, load_round, newest_round
from ..settings import UsageError
from .table import canonical


@dataclass
class Outcome:
    location: str
    model: str
    scenario: str
    previous: float | None
    units: str
    status: str  # followed, degraded, missing, not-comparable
    successor: str | None = None
    current: float | None = None
    delta: float | None = None  # (current - previous) / previous in the better direction
    matched_by: str | None = None
    basis: str = "performance"
    reason: str | None = None  # why it is not-comparable or missing


@dataclass
class Followup:
    tolerance: float  # at most this much worse (the target round's `preview:`)
    outcomes: list[Outcome] = field(default_factory=list)
    systems: list[dict[str, Any]] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(o.status in ("degraded", "missing") for o in self.outcomes)


def _system_key(row: dict[str, Any]) -> str:
    return f"{row.get('Category')}/{row.get('Submitter')}/{row.get('Platform')}"


def _chip(name: Any) -> frozenset[str]:
    """An accelerator name as its words, marks and order aside: "Intel(R) Arc Pro(R) B70" and
    "Intel(R) Arc(TM) Pro B70" are the same chip."""
    text = re.sub(r"\((?:r|tm|c)\)|[®™]", " ", str(name or "").lower())
    return frozenset(re.findall(r"[a-z0-9]+", text))


def _hardware(row: dict[str, Any]) -> tuple[Any, ...]:
    return (str(row.get("Submitter", "")).lower(), _chip(row.get("Accelerator")), row.get("a#"), row.get("Nodes"))


def _score(row: dict[str, Any]) -> tuple[float | None, str]:
    """A number where higher is better: performance, or performance per watt for power rows."""
    value, units = row.get("Performance_Result"), str(row.get("Performance_Units", ""))
    if not isinstance(value, (int, float)) or value <= 0:
        return None, "performance"
    score = 1 / value if units.startswith("Latency") else float(value)
    power = row.get("Power_Result")
    if isinstance(power, (int, float)) and power > 0:
        # Watts: per watt; energy per query (millijoules): less energy is better either way.
        return score / power, "performance per watt"
    return score, "performance"


def _successors(current: list[dict[str, Any]], round_name: str | None) -> dict[str, tuple[str, ...]]:
    """The benchmarks the current round (or the rounds its rows name) has in place of those
    it no longer has (rules/<round>.yaml `successors`)."""
    names = {round_name} if round_name else {str(r.get("version")) for r in current if r.get("version")}
    found: dict[str, tuple[str, ...]] = {}
    for name in sorted(names):
        try:
            found.update(load_round(name).successors)
        except RoundError:
            continue
    return found


def _current_models(current: list[dict[str, Any]], round_name: str | None) -> tuple[set[str], str]:
    """The benchmarks the current round still has, and where that comes from: its round
    file's models when known, else every model that appears in the current table."""
    names = {round_name} if round_name else {str(r.get("version")) for r in current if r.get("version")}
    models: set[str] = set()
    in_table = {str(r.get("Model")) for r in current}
    for name in names:
        try:
            models |= set(load_round(name).models)
        except RoundError:
            return in_table, "the current table"
    if not models:
        return in_table, "the current table"
    return models, f"round {', '.join(sorted(names))}"


def load_mapping(path: str) -> dict[str, str]:
    """`previous system -> current system`, each as `division/Submitter/Platform` or a Platform."""
    data = userfiles.load(path, "mapping.schema.json", "mapping file").data  # UserFileError is a ValueError
    return {str(k): str(v) for k, v in data.items()}


def _known(name: str, what: str) -> Any:
    with naming(what):  # a RoundError, led by the option
        return load_round(name)


def table_round(rows: list[tuple[str, dict[str, Any]]], source: str, given: str | None, option: str) -> str | None:
    """The round of one input: `given` (the --previous-round or --current-round) when named,
    which must be a known round; the `version` of each labelled row must then be that round,
    and without it, one known round for every row. None when neither names a round. Raises
    ValueError naming the file and the row."""
    expected = _known(given, option).name if given is not None else None
    first: tuple[str, str] | None = None  # (version, label)
    for label, row in rows:
        version = row.get("version")
        if version in (None, ""):
            continue
        if not isinstance(version, str):
            raise UsageError(f"{source}: {label}: version {version!r} is not a round name")
        if first is None:
            if expected is not None and version != expected:
                raise UsageError(f"{source}: {label}: version {version}, but {option} is {expected}")
            if expected is None and version not in available_rounds():
                raise UsageError(
                    f"{source}: {label}: version {version!r} is not a round this version knows "
                    f"({', '.join(available_rounds())})"
                )
            first = (version, label)
        elif version != first[0]:
            raise UsageError(
                f"{source}: {label}: version {version}, but {first[1]} is {first[0]}; a table holds one round"
            )
    return given if given is not None else first[0] if first else None


def check_order(previous: str | None, current: str | None) -> None:
    """A preview result is followed up in a later round: the previous round's seed release
    comes before the current one's. Raises ValueError when both are known and it does not."""
    if previous is None or current is None:
        return
    before, after = load_round(previous), load_round(current)
    if before.name == after.name:
        raise UsageError(
            f"--previous and --current are both round {after.name}; a preview result is followed up in a later round"
        )
    dates = [str(r.seed_release.date or "") if r.seed_release else "" for r in (before, after)]
    if all(dates) and dates[0] >= dates[1]:
        raise UsageError(
            f"--previous is round {before.name} (seed release {dates[0]}) and --current is round "
            f"{after.name} ({dates[1]}); a preview result is followed up in a later round"
        )


def follow_up(
    previous: list[dict[str, Any]],
    current: list[dict[str, Any]],
    mapping: dict[str, str] | None = None,
    current_round: str | None = None,
) -> Followup:
    result = Followup(tolerance=load_round(current_round or newest_round()).preview.tolerance)
    previous, current = canonical(previous), canonical(current)  # one spelling of models and scenarios
    available = [r for r in current if str(r.get("Availability", "")).lower() == "available"]
    models, where = _current_models(current, current_round)
    replaced = _successors(current, current_round)
    previews: dict[str, list[dict[str, Any]]] = {}
    for row in previous:
        if str(row.get("Availability", "")).lower() == "preview":
            previews.setdefault(_system_key(row), []).append(row)
    for key, rows in sorted(previews.items()):
        target = (mapping or {}).get(key) or (mapping or {}).get(str(rows[0].get("Platform")))
        if target is not None:
            successors = [r for r in available if target in (_system_key(r), r.get("Platform"))]
            how = f"mapping file ({target})"
        elif any(_system_key(r) == key for r in available):
            successors = [r for r in available if _system_key(r) == key]
            how = "the same system (division, submitter and system folder)"
        else:
            successors = [r for r in available if _hardware(r) == _hardware(rows[0])]
            how = "same submitter, accelerator, accelerator count and node count"
        names = sorted({_system_key(r) for r in successors})
        result.systems.append({"preview": key, "successors": names, "matched_by": how if names else None})
        for row in rows:
            result.outcomes.append(
                _judge(row, successors, (models, where, replaced), how if names else None, result.tolerance)
            )
    return result


def _judge(
    row: dict[str, Any],
    successors: list[dict[str, Any]],
    benchmarks: tuple[set[str], str, dict[str, tuple[str, ...]]],
    how: str | None,
    tolerance: float,
) -> Outcome:
    """The outcome of one preview row, with the reason when it is not-comparable (its
    benchmark is not in the current round; and what the round names in its place, when it
    names one) or missing (no successor, or none of its benchmark and scenario with a result)."""
    models, where, replaced = benchmarks
    before, basis = _score(row)
    outcome = Outcome(
        location=str(row.get("Location")),
        model=str(row.get("Model")),
        scenario=str(row.get("Scenario")),
        previous=row.get("Performance_Result"),
        units=str(row.get("Performance_Units", "")),
        status="missing",
        matched_by=how,
        basis=basis,
    )
    if outcome.model not in models:
        outcome.status = "not-comparable"
        instead = replaced.get(outcome.model)
        outcome.reason = f"{outcome.model} is not a benchmark of {where}" + (
            f"; in its place the round has {' and '.join(instead)} (another benchmark): nothing to follow it up with"
            if instead
            else ", nor does the round name one in its place: nothing to follow it up with"
        )
        return outcome
    same = [r for r in successors if r.get("Model") == row.get("Model") and r.get("Scenario") == row.get("Scenario")]
    scored = [(s, r) for r in same for s in [_score(r)[0]] if s is not None]
    if before is None:
        outcome.reason = "the preview row has no result above 0 to compare"
        return outcome
    if not scored:
        outcome.reason = (
            "no Available successor system found"
            if how is None
            else f"no {outcome.model} {outcome.scenario} result of the successor ({how})"
        )
        return outcome
    best, chosen = max(scored, key=lambda pair: pair[0])
    outcome.successor = str(chosen.get("Location"))
    outcome.current = chosen.get("Performance_Result")
    outcome.delta = round((best - before) / before, 6)
    outcome.status = "followed" if outcome.delta >= -tolerance else "degraded"
    return outcome


COLUMNS = (
    "location",
    "model",
    "scenario",
    "status",
    "delta",
    "previous",
    "current",
    "units",
    "basis",
    "successor",
    "matched_by",
    "reason",
)


def counts(followup: Followup) -> dict[str, int]:
    return {
        s: sum(1 for o in followup.outcomes if o.status == s)
        for s in ("followed", "degraded", "missing", "not-comparable")
    }


def document(followup: Followup) -> dict[str, Any]:
    """The follow-up as its JSON names it (reporters.as_json writes it)."""
    return {
        "tolerance": followup.tolerance,
        "summary": counts(followup),
        "systems": followup.systems,
        "results": [asdict(o) for o in followup.outcomes],
    }


def to_csv(followup: Followup) -> str:
    return csv_text((asdict(outcome) for outcome in followup.outcomes), COLUMNS)


def to_text(followup: Followup) -> str:
    lines = [f"Preview follow-up (Available successor, at most {followup.tolerance:.0%} worse):"]
    for system in followup.systems:
        found = ", ".join(system["successors"]) or "none found"
        lines.append(
            f"  {system['preview']} -> {found}" + (f" [{system['matched_by']}]" if system["matched_by"] else "")
        )
    for o in followup.outcomes:
        delta = f" {o.delta:+.1%} ({o.basis})" if o.delta is not None else ""
        lines.append(f"  {o.status:<14} {o.location}{delta}" + (f": {o.reason}" if o.reason else ""))
    return text_lines(lines)


FORMATS = Formats({"text": as_text(to_text), "json": as_json(document), "csv": as_text(to_csv)})
