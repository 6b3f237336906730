"""`mlperf-check rounds`: the round files this version knows, each with its title; `rounds
show ROUND`: what the round asks, with the source of each part (its layout, seeds, benchmarks
and scenarios per system type with their accuracy gates, required files, compliance tests),
as text or JSON. It reads the round file the package ships, so a pip user needs no checkout."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..escaping import text_lines
from ..output import Plan
from ..settings import Invocation, UsageError, one_of
from . import common
from .catalogue import MODELS_SOURCE, bundled, facts

__all__ = ["MODELS_SOURCE", "facts"]

if TYPE_CHECKING:
    from ..reporters import Formats

ACTIONS = ("show",)


@dataclass(frozen=True, kw_only=True)
class CommandLine:
    action: str | None = None
    name: str | None = None
    format: str | None = None
    output: str | None = None


def invocation(options: CommandLine) -> Invocation[CommandLine]:
    if options.action is None:
        if options.format is not None or options.output is not None:
            raise UsageError("--format and -o go with `rounds show ROUND`")
        return Invocation(options=options)
    one_of(options.action, ACTIONS, "rounds", "action")
    if options.name is None:
        raise UsageError("rounds show needs a round: `mlperf-check rounds` lists them")
    plan = Plan()
    name = common.choose(formats(), options.format, options.output)
    outputs = ((name, plan.add(options.output)),)
    if options.name in bundled()["facts"]:  # a bundled round (a name, never a path): no round to build
        return Shown(options=options, plan=plan, outputs=outputs, found=bundled()["facts"][options.name])
    the_round = common.load(options.name)
    return Shown(options=options, plan=plan, outputs=outputs, round=the_round, found=facts(the_round))


@dataclass(frozen=True, kw_only=True)
class Shown(Invocation[CommandLine]):
    """`rounds show`'s invocation: the facts to show, from the shipped catalogue for a bundled
    round (catalogue.bundled, tested equal to the round file), else from the round file read."""

    found: dict[str, Any]


def run(invocation: Invocation[CommandLine]) -> int:
    if not isinstance(invocation, Shown):
        for listed in bundled()["rounds"]:
            print(f"{listed['name']}  {listed['title']}")
        return 0
    common.emit(invocation.plan, formats(), invocation.format, invocation.target, invocation.found)
    return 0


def formats() -> Formats:
    from ..reporters import Formats, as_json, as_text

    return Formats({"text": as_text(to_text), "json": as_json(document)})


def document(found: dict[str, Any]) -> dict[str, Any]:
    """A round's facts (or the rounds listed), as the JSON names them: as found."""
    return found


def _gate(gate: dict[str, Any]) -> str:
    """`acc >= 0.99 x 76.46 = 75.6954`, with an upper bound when there is one."""
    metric, reference, factor = gate["metric"], gate["reference"], gate["factor"]
    bounds = []
    if factor is not None and reference is not None:
        bounds.append(f">= {factor:g} x {reference:g} = {factor * reference:.6g}")
    if gate.get("upper_factor") is not None and reference is not None:
        bounds.append(f"<= {gate['upper_factor']:g} x {reference:g} = {gate['upper_factor'] * reference:.6g}")
    elif gate.get("upper") is not None:
        bounds.append(f"<= {gate['upper']:g}")
    text = f"{metric} {', '.join(bounds) or '(no bound)'}"
    if gate.get("scenarios"):
        text += f" ({', '.join(gate['scenarios'])})"
    return text


def _rows(rows: dict[str, Any], indent: str = "  ") -> list[str]:
    width = max((len(key) for key in rows), default=0)
    return [f"{indent}{key:<{width}}  {value}" for key, value in rows.items() if value not in (None, "", [], {})]


def to_text(found: dict[str, Any]) -> str:
    layout, seeds, release = found["layout"], found["seeds"], found["seed_release"]
    bundled = found["file"].startswith("rules/")
    where = "the round file bundled with mlperf-check" if bundled else found["file"]
    lines = [f"{found['title'] or found['round']} ({found['round']}; {where})", ""]
    lines += [f"Divisions: {', '.join(found['divisions'])}"]
    system_types = found["system_types"]
    lines += [f"System types: {', '.join(system_types['values'])} (source: {system_types['source']})", ""]
    lines += [f"Layout (source: {layout['source']})"]
    lines += _rows({key: value for key, value in layout.items() if isinstance(value, str) and key != "source"})
    lines += ["", f"Seeds (source: {seeds['source']})"]
    lines += _rows({key: value for key, value in seeds.items() if key != "source"})
    if release:
        lines += [f"  seed release  {release['commit'][:12]} ({release['date']}), deadline {release['deadline']}"]
        lines += [f"  (source: {release['source']})"]
    lines += ["", f"Benchmarks and scenarios per system type (source: {found['benchmarks']['source']})"]
    for name, model in found["benchmarks"]["models"].items():
        lines.append(f"  {name}")
        rows = {
            system_type: "; ".join(
                f"{kind} {', '.join(scenarios)}"
                for kind, scenarios in (("required", rule["required"]), ("one of", rule["one_of"]))
                if scenarios
            )
            + ("; optional " + ", ".join(rule["optional"]) if rule["optional"] else "")
            for system_type, rule in model["scenarios"].items()
        }
        rows["accuracy"] = "; ".join(_gate(gate) for gate in model["accuracy"])
        rows["compliance"] = ", ".join(model["compliance"])
        lines += _rows(rows, "    ")
    required = found["required_files"]
    lines += ["", f"Required files (source: {required['source']})"]
    lines += _rows(
        {
            "logs": ", ".join(value for key, value in required["logs"].items() if key != "source"),
            "measurements": ", ".join(required["measurements"]["required_files"]),
            "measurements fields": ", ".join(required["measurements"]["required_fields"]),
            "implementation": " or ".join(required["implementation_description"]),
            "calibration": " or ".join(required["calibration"]),
        }
    )
    compliance = found["compliance"]
    lines += ["", f"Accuracy gates apply in: {', '.join(found['accuracy_gated_in']) or 'no division'}"]
    lines += ["", f"Compliance tests (source: {compliance['source']})"]
    lines += [f"  required in {', '.join(compliance['required_in'])}"]
    lines += _rows({name: ", ".join(test["verify"].values()) for name, test in compliance["tests"].items()})
    return text_lines(lines)
