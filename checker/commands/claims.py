"""Claims checked against the published tables: what a vendor announces, and the rows it rests on.

A claims file (schemas/claims.schema.json) lists claims; each selects rows of one round's
table (or two selections, `from` and `to`) and states a figure:
- spread: the mean |x - median| / median over the selection (the max is reported too);
  holds when it is at most `expect`;
- speedup and ratio: best(to) / best(from), inverted for latency, so that above 1 is faster;
- scaling: the same per accelerator (result / (nodes x per node));
- value: best(in).
An exact claim holds when |measured / expect - 1| <= margin (default 0.01); an at-least claim
(`at_least: true`, for "up to" and "at least") when measured >= expect x (1 - margin). A
claim whose selection is empty is `no-data`. Notes say what a reader needs: the two sides'
best rows come from different submitters, from different divisions, or from a Preview system.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from typing import Any

from .. import userfiles
from ..reporters import Formats, as_data, as_text
from .published import Row, best, faster

KINDS = ("spread", "speedup", "ratio", "scaling", "value")


class ClaimsError(ValueError):
    """A claims file that cannot be read or does not match the schema (exit code 2)."""


@dataclass
class Verdict:
    id: str
    kind: str
    text: str
    verdict: str  # holds | fails | no-data
    measured: float | None
    expect: float
    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "text": self.text,
            "verdict": self.verdict,
            "measured": self.measured,
            "expect": self.expect,
            **self.detail,
            "rows": self.rows,
            "notes": self.notes,
        }


def load_claims(path: str) -> list[dict[str, Any]]:
    """The claims of a file (YAML, or JSON when it ends in .json), read strictly by
    checker.userfiles against schemas/claims.schema.json; ClaimsError names the file, the
    line and the claim."""
    try:
        document = userfiles.load(path, "claims.schema.json", "claims file")
        claims = document.data["claims"]
        seen: set[str] = set()
        for index, claim in enumerate(claims):
            if claim["id"] in seen:
                raise document.error(("claims", index, "id"), f"claim id {claim['id']!r} is used twice")
            seen.add(claim["id"])
            sides = ("from", "to") if claim["kind"] in ("speedup", "ratio", "scaling") else ("in",)
            missing = [side for side in sides if side not in claim]
            if missing:
                raise document.error(
                    ("claims", index), f"claim {claim['id']!r} ({claim['kind']}) needs {' and '.join(missing)}"
                )
    except userfiles.UserFileError as error:
        raise ClaimsError(str(error)) from None
    return claims


def _norm(text: Any) -> str:
    return str(text).strip().lower().replace("_", ".")


def select(rows: dict[str, list[Row]], selection: dict[str, Any]) -> list[Row]:
    """The rows of one round's table that a selection takes."""
    table = rows.get(selection["round"], [])
    division = selection.get("division", "closed")
    chosen = []
    for row in table:
        if division != "any" and row.division != division:
            continue
        if (
            "model" in selection
            and _norm(row.model) != _norm(selection["model"])
            and _norm(row.raw.get("UsedModel", "")) != _norm(selection["model"])
        ):
            continue
        if "scenario" in selection and row.scenario.lower() != str(selection["scenario"]).lower():
            continue
        if "accelerator" in selection and str(selection["accelerator"]).lower() not in row.hardware.lower():
            continue
        if any(
            key in selection and selection[key] != value
            for key, value in (
                ("per_node", row.per_node),
                ("nodes", row.nodes),
                ("accelerators", row.accelerators),
                ("submitter", row.submitter),
                ("availability", row.availability),
            )
        ):
            continue
        if row.result is None or row.result <= 0:
            continue
        chosen.append(row)
    return chosen


def _holds(measured: float, claim: dict[str, Any]) -> bool:
    margin = claim.get("margin", 0.01)
    if claim["kind"] == "spread":
        return measured <= claim["expect"]
    if claim.get("at_least"):
        return measured >= claim["expect"] * (1 - margin)
    return abs(measured / claim["expect"] - 1) <= margin


def _notes(chosen: list[Row], sides: bool = True) -> list[str]:
    """What a reader of the claim needs to know about the rows it rests on; `sides` for the
    two best rows of a comparison (different submitters or divisions matter there)."""
    notes = []
    if sides and len({r.submitter for r in chosen}) > 1:
        notes.append(
            "the two sides' best rows come from different submitters: " + ", ".join(r.submitter for r in chosen)
        )
    if sides and len({r.division for r in chosen}) > 1:
        notes.append("the two sides' best rows come from different divisions: " + ", ".join(r.division for r in chosen))
    for row in chosen:
        if row.availability == "preview":
            notes.append(f"{row.location} ({row.round}) is a Preview system: not yet available")
    if any(r.mixed for r in chosen):
        notes.append("a row is from a system that mixes accelerators")
    return notes


def judge(claim: dict[str, Any], rows: dict[str, list[Row]]) -> Verdict:
    kind = claim["kind"]
    verdict = Verdict(claim["id"], kind, claim.get("text", ""), "no-data", None, claim["expect"])
    if kind in ("spread", "value"):
        chosen = select(rows, claim["in"])
        if not chosen:
            verdict.notes.append(f"no row of {claim['in']['round']} matches the selection")
            return verdict
        if kind == "spread":
            values = [r.result for r in chosen]
            median = statistics.median(values)
            deviations = [abs(v - median) / median for v in values]
            verdict.measured = sum(deviations) / len(deviations)
            verdict.detail = {"max": max(deviations), "median": median, "n": len(values)}
            verdict.rows = [r.summary() for r in chosen]
            verdict.notes = _notes(chosen, sides=False)
            if len(chosen) < 2:
                verdict.notes.append("one row: a spread of one result says nothing")
        else:
            top = best(chosen)
            verdict.measured = top.result
            verdict.rows = [top.summary()]
            verdict.notes = _notes([top], sides=False)
    else:
        low, high = select(rows, claim["from"]), select(rows, claim["to"])
        if not low or not high:
            empty = [side for side, found in (("from", low), ("to", high)) if not found]
            verdict.notes.append(f"no row matches the {' and '.join(empty)} selection")
            return verdict
        a, b = best(low), best(high)
        ratio = faster(a, b)
        if kind == "scaling":
            ratio = ratio * a.accelerators / b.accelerators if a.accelerators and b.accelerators else ratio
            verdict.detail = {"accelerators": {"from": a.accelerators, "to": b.accelerators}}
        verdict.measured = ratio
        verdict.rows = [a.summary(), b.summary()]
        verdict.notes = _notes([a, b])
    verdict.verdict = "holds" if _holds(verdict.measured, claim) else "fails"
    return verdict


def check_claims(claims: list[dict[str, Any]], rows: dict[str, list[Row]]) -> list[Verdict]:
    return [judge(claim, rows) for claim in claims]


# --- outputs ---------------------------------------------------------------------------------
def _figure(kind: str, value: float | None) -> str:
    if value is None:
        return "n/a"
    return (
        f"{value:.2%}"
        if kind == "spread"
        else (
            f"{value:.4g}x" if kind in ("speedup", "ratio") else f"{value:.1%}" if kind == "scaling" else f"{value:.6g}"
        )
    )


def to_text(verdicts: list[Verdict]) -> str:
    lines = []
    for v in verdicts:
        lines.append(
            f"{v.verdict.upper():8} {v.id} ({v.kind}): measured {_figure(v.kind, v.measured)}, "
            f"claimed {_figure(v.kind, v.expect)}" + (f" - {v.text}" if v.text else "")
        )
        for row in v.rows[:10]:
            lines.append(
                f"    {row['round']} {row['location']} {row['submitter']} {row['division']} "
                f"{row['availability']}: {row['result']:.6g} {row['units']}"
            )
        if len(v.rows) > 10:
            lines.append(f"    ... {len(v.rows) - 10} more rows")
        lines += [f"    note: {note}" for note in v.notes]
    counts = {k: sum(v.verdict == k for v in verdicts) for k in ("holds", "fails", "no-data")}
    lines.append(f"{len(verdicts)} claims: {counts['holds']} hold, {counts['fails']} fail, {counts['no-data']} no data")
    return "\n".join(lines) + "\n"


def to_json(verdicts: list[Verdict]) -> str:
    return json.dumps({"claims": [v.to_dict() for v in verdicts]}, indent=2, allow_nan=False) + "\n"


def to_markdown(verdicts: list[Verdict]) -> str:
    lines = ["| claim | kind | verdict | measured | claimed | rows | notes |", "|---|---|---|---|---|---|---|"]
    for v in verdicts:
        rows = "<br>".join(f"{r['round']} `{r['location']}` {r['result']:.6g} {r['units']}" for r in v.rows[:5])
        lines.append(
            f"| {v.id} | {v.kind} | **{v.verdict}** | {_figure(v.kind, v.measured)} | "
            f"{_figure(v.kind, v.expect)} | {rows} | {'; '.join(v.notes)} |"
        )
    return "\n".join(lines) + "\n"


FORMATS = Formats({"text": as_text(to_text), "json": as_data(to_json), "markdown": as_text(to_markdown)})
