"""`mlperf-check rules` and `explain`: the catalogue of codes, with the severity each round
gives a rule where its round file sets one (`severities:`, Round.severity and
Round.severity_reason), since a rule that is an error by default may be a warning in the
rounds whose checker did not apply it.

`rules`, `explain` and `rounds` answer from the catalogue the package ships
(schemas/catalogue.json: every code's entry and docstring, each round's name and title, and
the facts `rounds show` prints of each bundled round),
made from the registry and the round files by `write_bundled` and tested to equal them
(tests/test_startup.py): they import no rule module and build no round, so they answer in
a blink."""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

from ..reporters import Formats, as_json, as_text

if TYPE_CHECKING:
    from ..registry import Rule
    from ..rounds import Round

BUNDLED = "catalogue.json"


def rules() -> dict[str, Rule]:
    """Every code: each rule module registers its own when imported (checker.rules)."""
    from importlib import import_module

    from ..registry import RULES

    import_module("checker.rules")

    return RULES


def rounds() -> list[Round]:
    """The real rounds this version knows, oldest first (profiles such as demo-v6.1 are not rounds)."""
    from ..rounds import load_round, real_rounds

    return [load_round(name) for name in real_rounds()]


def bundled() -> dict[str, Any]:
    """The catalogue the package ships: {"rules": entries (as `catalogue` makes them, each
    with its `doc`), "real_rounds": names, "rounds": [{name, title}] of every round file}."""
    from importlib import resources

    found: dict[str, Any] = json.loads(resources.files("checker.schemas").joinpath(BUNDLED).read_text("utf-8"))
    return found


def made() -> dict[str, Any]:
    """What `bundled` holds, made now from the registry and the bundled round files: with
    each round's `facts` (what `rounds show` prints)."""
    from ..rounds import available_rounds, load_round

    known, registered = rounds(), rules()
    entries = [{**entry, "doc": registered[entry["code"]].doc} for entry in catalogue(registered, known)]
    titles = [{"name": name, "title": load_round(name).title or ""} for name in available_rounds()]
    shown = {name: json.loads(json.dumps(facts(load_round(name)))) for name in available_rounds()}
    return {"rules": entries, "real_rounds": [round.name for round in known], "rounds": titles, "facts": shown}


# --- the facts `rounds show` prints ---------------------------------------------------------
def _plain(value: Any) -> Any:
    """A fact as JSON data: dataclasses as objects, tuples as lists, no private fields."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value) if not f.name.startswith("_")}
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


MODELS_SOURCE = "the round file's models table (the round checker's per-model configuration, as cited in its header)"


def facts(round: Round) -> dict[str, Any]:
    """What `rounds show` prints: each part with its source."""
    layout = round.layout
    return {
        "round": round.name,
        "title": round.title,
        "file": round.origin,
        "divisions": list(round.divisions),
        "layout": _plain(layout),
        "seeds": _plain(round.seeds),
        "seed_release": _plain(round.seed_release),
        "system_types": _plain(round.system_types),
        "benchmarks": {
            "source": MODELS_SOURCE,
            "models": {name: _plain(model) for name, model in round.models.items()},
            "model_mapping": dict(round.model_mapping),
        },
        "required_files": {
            "source": f"{layout.files.source}; {round.measurements.source}",
            "logs": _plain(layout.files),
            "measurements": _plain(round.measurements),
            "implementation_description": list(layout.implementation_description),
            "calibration": list(layout.calibration),
        },
        "accuracy_gated_in": list(round.accuracy_gated_in or ()),
        "compliance": _plain(round.compliance),
    }


def write_bundled(path: str) -> None:
    """Write `made()` to `path` (schemas/catalogue.json in a checkout) after a rule or a
    round file changes."""
    from ..output import write_file

    write_file(path, json.dumps(made(), indent=1, ensure_ascii=False) + "\n")


def round_severities(rule: Rule, known: list[Round]) -> dict[str, dict[str, str]]:
    """{round: {severity, why}} for the rounds whose file sets the rule's severity."""
    found = {}
    for round in known:
        own, why = round.severity(rule.code), round.severity_reason(rule.code)
        if own is not None:
            entry = {"severity": own.value}
            if why:
                entry["why"] = why
            found[round.name] = entry
    return found


def applies_in(rule: Rule, round: Round) -> bool:
    """Whether `rule` can find anything in `round`: each round fact its needs require
    (model.views.ROUND_FACT: Endpoints files only in a round with Endpoints facts) is set."""
    from ..model.views import ROUND_FACT

    return all(getattr(round, ROUND_FACT[need]) for need in rule.needs if need in ROUND_FACT)


def catalogue(rules: dict[str, Rule], known: list[Round]) -> list[dict[str, Any]]:
    """Each code's entry: its severity per round where the round file sets one (`rounds`),
    and the rounds it cannot apply in (`not_in`, from their facts)."""
    return [
        {
            "code": rule.code,
            "name": rule.name,
            "scope": rule.scope,
            "severity": rule.severity.value,
            "summary": rule.summary,
            "preview": rule.preview,
            "rounds": round_severities(rule, known),
            "not_in": [round.name for round in known if not applies_in(rule, round)],
        }
        for rule in (rules[code] for code in sorted(rules))
    ]


def in_round(entries: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The entries that apply in the round `name` (not those its facts rule out, `not_in`),
    as it applies them: `severity` is the round's, `round` names it; a rule whose severity
    the round file changes says why (`why`)."""
    found = []
    for entry in entries:
        if name in entry.get("not_in", ()):
            continue
        own = entry["rounds"].get(name, {})
        rest = {key: value for key, value in entry.items() if key not in ("rounds", "doc", "not_in")}
        found.append({**rest, "round": name, "severity": own.get("severity", entry["severity"])})
        if own.get("why"):
            found[-1]["why"] = own["why"]
    return found


def to_text(entries: list[dict[str, Any]]) -> str:
    """`CODE  name  summary`; with the round's severity (`rules --round`) after the name."""
    width = max((len(e["name"]) for e in entries), default=0)
    if any("round" in e for e in entries):
        return "".join(f"{e['code']}  {e['name']:<{width}}  {e['severity']:<7}  {e['summary']}\n" for e in entries)
    return "".join(f"{e['code']}  {e['name']:<{width}}  {e['summary']}\n" for e in entries)


def document(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The catalogue as its JSON names it (reporters.as_json writes it): each entry but its page."""
    return [{k: v for k, v in entry.items() if k != "doc"} for entry in entries]


FORMATS = Formats({"text": as_text(to_text), "json": as_json(document)})


SECTIONS = ("Why", "Fix", "Policy", "Example")


def page(rule: Rule) -> str:
    """The rule's page in docs/rules/CODE.md, made from its docstring alone: its summary,
    default severity and scope, then Why, Fix, Policy and Example (`rules --docs` writes it;
    tests/test_docs.py checks that every page matches)."""
    lines = [f"# {rule.code} {rule.name}", "", rule.summary, ""]
    lines += [f"Default severity: {rule.severity.value}. Scope: {rule.scope}." + (" Preview." if rule.preview else "")]
    for part in SECTIONS:
        if rule.sections.get(part, "").strip():
            text = rule.sections[part].strip()
            lines += ["", f"## {part}", "", text[0].upper() + text[1:]]
    lines += [
        "",
        "---",
        "",
        f"Made from the rule's docstring by `mlperf-check rules --docs docs/rules`. `mlperf-check explain "
        f"{rule.code}` shows it with the severity in each round; `mlperf-check rules --round ROUND` lists every "
        "code with its severity in that round.",
    ]
    return "\n".join(lines) + "\n"


def explain(entry: dict[str, Any], known: list[str]) -> str:
    """The code, name, default severity and scope of a catalogue entry; its severity in each
    of the `known` rounds where a round file changes it (then every round, so that none is
    left to guess); its docstring."""
    lines = [f"{entry['code']} {entry['name']} ({entry['severity']}, {entry['scope']})", ""]
    own = entry["rounds"]
    if any(one["severity"] != entry["severity"] for one in own.values()):
        lines.append("Severity per round:")
        width = max(len(name) for name in known)
        for name in known:
            one = own.get(name, {"severity": entry["severity"]})
            why = f"  {one['why']}" if one.get("why") else ""
            lines.append(f"  {name:<{width}}  {one['severity']:<7}{why}".rstrip())
        lines.append("")
    lines.append(entry["doc"])
    return "\n".join(lines) + "\n"
