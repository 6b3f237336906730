"""`mlperf-check rules` and `explain`: the catalogue of codes, with the severity each round
gives a rule where its round file sets one (`severities:`, Round.severity and
Round.severity_reason), since a rule that is an error by default may be a warning in the
rounds whose checker did not apply it."""

from __future__ import annotations

from typing import Any

from ..registry import Rule
from ..reporters import Formats, as_data, as_text
from ..reporters.common import strict_json
from ..rounds import Round, load_round, real_rounds


def rules() -> dict[str, Rule]:
    """Every code: each rule module registers its own when imported (checker.rules)."""
    from importlib import import_module

    from ..registry import RULES

    import_module("checker.rules")

    return RULES


def rounds() -> list[Round]:
    """The real rounds this version knows, oldest first (profiles such as demo-v6.1 are not rounds)."""
    return [load_round(name) for name in real_rounds()]


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


def catalogue(rules: dict[str, Rule], known: list[Round]) -> list[dict[str, Any]]:
    return [
        {
            "code": rule.code,
            "name": rule.name,
            "scope": rule.scope,
            "severity": rule.severity.value,
            "summary": rule.summary,
            "preview": rule.preview,
            "rounds": round_severities(rule, known),
        }
        for rule in (rules[code] for code in sorted(rules))
    ]


def in_round(entries: list[dict[str, Any]], round: Round) -> list[dict[str, Any]]:
    """The entries as `round` applies them: `severity` is the round's, `round` names it; a
    rule whose severity the round file changes says why (`why`)."""
    found = []
    for entry in entries:
        own = entry["rounds"].get(round.name, {})
        rest = {key: value for key, value in entry.items() if key != "rounds"}
        found.append({**rest, "round": round.name, "severity": own.get("severity", entry["severity"])})
        if own.get("why"):
            found[-1]["why"] = own["why"]
    return found


def to_text(entries: list[dict[str, Any]]) -> str:
    """`CODE  name  summary`; with the round's severity (`rules --round`) after the name."""
    width = max((len(e["name"]) for e in entries), default=0)
    if any("round" in e for e in entries):
        return "".join(f"{e['code']}  {e['name']:<{width}}  {e['severity']:<7}  {e['summary']}\n" for e in entries)
    return "".join(f"{e['code']}  {e['name']:<{width}}  {e['summary']}\n" for e in entries)


def to_json(entries: list[dict[str, Any]]) -> str:
    return strict_json(entries, indent=2) + "\n"


FORMATS = Formats({"text": as_text(to_text), "json": as_data(to_json)})


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


def explain(rule: Rule, known: list[Round]) -> str:
    """The rule's code, name, default severity and scope; its severity in each round where a
    round file changes it (then every round, so that none is left to guess); its docstring."""
    lines = [f"{rule.code} {rule.name} ({rule.severity.value}, {rule.scope})", ""]
    own = round_severities(rule, known)
    if any(entry["severity"] != rule.severity.value for entry in own.values()):
        lines.append("Severity per round:")
        width = max(len(round.name) for round in known)
        for round in known:
            entry = own.get(round.name, {"severity": rule.severity.value})
            why = f"  {entry['why']}" if entry.get("why") else ""
            lines.append(f"  {round.name:<{width}}  {entry['severity']:<7}{why}".rstrip())
        lines.append("")
    lines.append(rule.doc)
    return "\n".join(lines) + "\n"
