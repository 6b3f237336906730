"""Claims checked against the published tables: what a vendor announces, and the rows it rests on.

A claims file (schemas/claims.schema.json) lists claims; each selects rows of one round's
table (or two selections, `from` and `to`) and states a figure:
- spread: the partners' mean |deviation| from the reference, as `compare` measures it (one
  group, compare.compare): the reference is the selection's median, or with
  `reference: submitter:NAME` that submitter's result, whose own rows are then not partners;
  the median and max are reported too, and the partners beyond `expect`; holds when the mean
  is at most `expect`;
- speedup and ratio: best(to) / best(from), inverted for latency, so that above 1 is faster;
- scaling: the same per accelerator (result / (nodes x per node));
- value: best(in).
An exact claim holds when |measured / expect - 1| <= margin (default 0.01); an at-least claim
(`at_least: true`, for "up to" and "at least") when measured >= expect x (1 - margin). A
claim whose selection is empty is `no-data`. A selection never mixes units (a round it
cannot mix: it is one round's table): one whose rows are in two units (a latency and a
throughput, say) is `ambiguous`, naming the units and how many rows each has, and so is a
comparison of a latency with a throughput; nothing is measured across units. Notes say what a
reader needs: the two sides' best rows come from different submitters, from different
divisions, from a Preview system, or are in different units of one direction.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import userfiles
from ..escaping import markdown_code, markdown_text, text_lines
from ..reporters import Formats, as_json, as_text
from ..settings import UsageError
from . import selection as chosen_by
from . import table as published
from .compare import Comparison, Options, beyond, compare, frame_of, groups_of, partners_line, reference_name
from .selection import Selection
from .table import Row, best, faster

KINDS = ("spread", "speedup", "ratio", "scaling", "value")
VERDICTS = ("holds", "fails", "no-data", "ambiguous")


class ClaimsError(UsageError):
    """A claims file that cannot be read or does not match the schema (exit code 2)."""


@dataclass
class ClaimVerdict:
    id: str
    kind: str
    text: str
    verdict: str  # holds | fails | no-data | ambiguous
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
        return _listed(userfiles.load(path, "claims.schema.json", "claims file"))
    except userfiles.UserFileError as error:
        raise ClaimsError(str(error)) from None


def claims_of(data: dict[str, Any] | list[dict[str, Any]], origin: str = "claims") -> list[dict[str, Any]]:
    """The claims of a document already read (`{"claims": [...]}`, or the list), checked as
    `load_claims` checks a file's; ClaimsError says what is wrong, at `origin`."""
    document = {"claims": data} if isinstance(data, list) else data
    try:
        parsed, line_of = userfiles.parse(json.dumps(document, indent=0), origin, json_text=True)
        userfiles.check(parsed, "claims.schema.json", origin, line_of)
        return _listed(userfiles.UserFile(origin, parsed, line_of))
    except (TypeError, ValueError) as error:
        raise ClaimsError(str(error)) from None


def _listed(document: userfiles.UserFile) -> list[dict[str, Any]]:
    """The claims of a document the schema took, or a UserFileError: an id used twice, a side missing."""
    claims: list[dict[str, Any]] = document.data["claims"]
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
        if "reference" in claim and claim["kind"] != "spread":
            raise document.error(
                ("claims", index, "reference"),
                f"claim {claim['id']!r} ({claim['kind']}): only a spread claim has a reference",
            )
    return claims


def select(rows: dict[str, list[Row]], side: dict[str, Any]) -> list[Row]:
    """The rows of one round's table that a claim's side takes, with a result above 0: model,
    scenario, submitter, accelerator and division by the one selection rule
    (checker.analysis.selection, as compare and the API take them; division `any` takes every
    division, and none given is closed), per_node, nodes, accelerators and availability exact."""
    division = side.get("division", "closed")
    selection = Selection.of(
        **{key: side[key] for key in ("model", "scenario", "submitter", "accelerator") if key in side},
        division=None if division == "any" else division,
    )
    exact = {key: side[key] for key in ("per_node", "nodes", "accelerators", "availability") if key in side}
    return [
        row
        for row in selection.select(rows.get(side["round"], []))
        if row.result is not None and row.result > 0 and all(getattr(row, k) == v for k, v in exact.items())
    ]


GROUPS_NAMED = 6  # the comparable groups an ambiguous claim names one by one


def _spans(side: str, chosen: list[Row]) -> str | None:
    """Why `chosen` cannot give one figure: its rows are in more than one comparable group
    (GROUP_KEY), which a claim never pools."""
    groups = published.grouped(chosen)
    if len(groups) < 2:
        return None
    named = "; ".join(
        f"{published.group_name(key)}: {len(found)} row{'s' if len(found) > 1 else ''}"
        for key, found in list(groups.items())[:GROUPS_NAMED]
    )
    more = f"; ... ({len(groups)} in all)" if len(groups) > GROUPS_NAMED else ""
    return (
        f"the {side} selection spans {len(groups)} comparable groups ({named}{more}); a claim never pools "
        "groups: name the scenario, per_node or nodes (or the accelerator) of one"
    )


def _took(side: str, top: Row, chosen: list[Row]) -> dict[str, Any]:
    """The row a best-of claim took, and why: the best of its one group's rows."""
    best_is = "lowest" if top.latency else "highest"
    ((key, _),) = published.grouped(chosen).items()
    return {
        "side": side,
        "location": top.location,
        "submitter": top.submitter,
        "result": top.result,
        "why": f"the {best_is} {top.units} of the {len(chosen)} row{'s' if len(chosen) > 1 else ''} of "
        f"{published.group_name(key)}",
    }


def _holds(measured: float, claim: dict[str, Any]) -> bool:
    margin = float(claim.get("margin", 0.01))
    expect = float(claim["expect"])
    if claim["kind"] == "spread":
        return measured <= expect
    if claim.get("at_least"):
        return measured >= expect * (1 - margin)
    return abs(measured / expect - 1) <= margin


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


def _mixed(side: str, chosen: list[Row]) -> str | None:
    """Why `chosen` cannot give one figure: its rows are in more than one unit."""
    units: dict[str, int] = {}
    for row in chosen:
        units[row.units] = units.get(row.units, 0) + 1
    if len(units) < 2:
        return None
    counts = ", ".join(f"{unit}: {n} row{'s' if n > 1 else ''}" for unit, n in sorted(units.items()))
    return (
        f"the {side} selection takes rows in {len(units)} units ({counts}); a figure is never taken across "
        "units: name a scenario (or a model) that has one"
    )


def _spread(verdict: ClaimVerdict, claim: dict[str, Any], chosen: list[Row]) -> None:
    """The spread as compare measures it: one group (the selection), its reference and partners."""
    reference = claim.get("reference", "median")
    submitter = reference_name(reference)  # the one reading of a reference, as compare's
    members = compare(frame_of(chosen), submitter, claim["expect"], by=(), min_submitters=1)
    options = Options(claim["expect"], reference=reference, min_submitters=1)
    found = Comparison(options, members, groups_of(members, claim["expect"]))
    verdict.rows = [r.summary() for r in chosen]
    if not len(found.groups):
        verdict.notes.append(f"no row of submitter {submitter} in the selection: nothing to measure from")
        return
    ((group, listed),) = found.each()
    if not group["partners"]:
        verdict.notes.append(f"every row of the selection is {submitter}'s: no partner to measure")
        return
    verdict.measured = group["mean_abs_dev"]
    verdict.detail = {
        "reference": {"submitter": group["reference_submitter"] or "median", "value": group["reference"]},
        "median_abs_dev": group["median_abs_dev"],
        "max": group["max_abs_dev"],
        "median": statistics.median(r.result for r in chosen if r.result is not None),
        "n": group["n"],
        "partners": group["partners"],
        "beyond": [{"name": name, "deviation": dev} for name, dev in beyond(listed)],
    }
    by_place = {(m["Location"], m["Submitter"]): m for m in listed}
    for summary, row in zip(verdict.rows, chosen, strict=True):
        member = by_place[(row.location, row.submitter)]
        summary.update(role=member["role"], deviation=member["deviation"])
    verdict.notes = [partners_line(group, listed, claim["expect"]), *_notes(chosen, sides=False)]
    if len(chosen) < 2:
        verdict.notes.append("one row: a spread of one result says nothing")


def assess(claim: dict[str, Any], rows: dict[str, list[Row]]) -> ClaimVerdict:
    kind = claim["kind"]
    verdict = ClaimVerdict(claim["id"], kind, claim.get("text", ""), "no-data", None, claim["expect"])
    sides = ("in",) if kind in ("spread", "value") else ("from", "to")
    chosen = {side: select(rows, claim[side]) for side in sides}
    empty = [side for side in sides if not chosen[side]]
    if empty:
        verdict.notes.append(
            f"no row of {claim['in']['round']} matches the selection"
            if sides == ("in",)
            else f"no row matches the {' and '.join(empty)} selection"
        )
        return verdict
    mixed = [why for side in sides if (why := _mixed(side, chosen[side]))]
    if len(sides) == 2 and not mixed and chosen["from"][0].latency != chosen["to"][0].latency:
        mixed.append(
            f"from is in {chosen['from'][0].units} and to in {chosen['to'][0].units}: "
            "a latency and a throughput are not compared"
        )
    pooled = [
        note if side == "in" else f"the {side} selection: {note}"
        for side in sides
        if "accelerator" in claim[side]
        and (note := chosen_by.pooled(str(claim[side]["accelerator"]), (r.hardware for r in chosen[side])))
    ]
    mixed += [why for side in sides if not _mixed(side, chosen[side]) and (why := _spans(side, chosen[side]))]
    if mixed:
        verdict.verdict, verdict.notes = "ambiguous", mixed + pooled
        verdict.rows = [r.summary() for side in sides for r in chosen[side]][:20]
        return verdict
    if kind == "spread":
        _spread(verdict, claim, chosen["in"])
        if verdict.measured is None:
            verdict.notes += pooled
            return verdict
    elif kind == "value":
        top = _best(chosen["in"])
        verdict.measured = top.result
        verdict.rows = [top.summary()]
        took = _took("in", top, chosen["in"])
        verdict.detail = {"took": [took]}
        verdict.notes = [f"took {top.location} ({top.submitter}): {took['why']}", *_notes([top], sides=False)]
    else:
        a, b = _best(chosen["from"]), _best(chosen["to"])
        ratio = faster(a, b)
        if kind == "scaling":
            ratio = ratio * a.accelerators / b.accelerators if a.accelerators and b.accelerators else ratio
            verdict.detail = {"accelerators": {"from": a.accelerators, "to": b.accelerators}}
        verdict.measured = ratio
        verdict.rows = [a.summary(), b.summary()]
        verdict.detail["took"] = [_took("from", a, chosen["from"]), _took("to", b, chosen["to"])]
        verdict.notes = _notes([a, b])
        if a.units != b.units:
            verdict.notes.append(f"the two sides are in different units: {a.units}, {b.units}")
    verdict.notes += pooled
    verdict.verdict = "holds" if verdict.measured is not None and _holds(verdict.measured, claim) else "fails"
    return verdict


def _best(rows: list[Row]) -> Row:
    """The best of rows `select` took: each has a result above 0, so there is one."""
    top = best(rows)
    assert top is not None
    return top


def check_claims(claims: list[dict[str, Any]], rows: dict[str, list[Row]]) -> list[ClaimVerdict]:
    return [assess(claim, rows) for claim in claims]


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


def to_text(verdicts: list[ClaimVerdict], selection: Selection | None = None, notes: Sequence[str] = ()) -> str:
    lines = selection.lines(notes) if selection else []
    for v in verdicts:
        lines.append(
            f"{v.verdict.upper():8} {v.id} ({v.kind}): measured {_figure(v.kind, v.measured)}, "
            f"claimed {_figure(v.kind, v.expect)}" + (f" - {v.text}" if v.text else "")
        )
        for row in v.rows[:10]:
            role = row.get("role")
            lines.append(
                f"    {row['round']} {row['location']} {row['submitter']} {row['division']} "
                f"{row['availability']}: {row['result']:.6g} {row['units']}"
                + ("" if role is None else " (reference)" if role == "reference" else f" ({row['deviation']:+.2%})")
            )
        if len(v.rows) > 10:
            lines.append(f"    ... {len(v.rows) - 10} more rows")
        lines += [f"    note: {note}" for note in v.notes]
    counts = {k: sum(v.verdict == k for v in verdicts) for k in VERDICTS}
    lines.append(
        f"{len(verdicts)} claims: {counts['holds']} hold, {counts['fails']} fail, {counts['no-data']} no data, "
        f"{counts['ambiguous']} ambiguous"
    )
    return text_lines(lines)


def document(
    verdicts: list[ClaimVerdict], selection: Selection | None = None, notes: Sequence[str] = ()
) -> dict[str, Any]:
    """The verdicts as their JSON names them (reporters.as_json writes it)."""
    chosen = selection.fields(notes) if selection else {}
    return {**chosen, "claims": [v.to_dict() for v in verdicts]}


def to_markdown(verdicts: list[ClaimVerdict], selection: Selection | None = None, notes: Sequence[str] = ()) -> str:
    """A Markdown table, one row per claim: every value read from the claims or the tables is
    literal Markdown (checker.escaping), so no `|` splits a cell, no newline ends the row and
    no backtick or HTML in a name is read."""
    lines = [f"{markdown_text(line)}  " if line else line for line in selection.lines(notes)] if selection else []
    lines += ["| claim | kind | verdict | measured | claimed | rows | notes |", "|---|---|---|---|---|---|---|"]
    for v in verdicts:
        rows = "<br>".join(
            f"{markdown_text(str(r['round']))} {markdown_code(str(r['location']), cell=True)} {r['result']:.6g} "
            f"{markdown_text(str(r['units']))}"
            for r in v.rows[:5]
        )
        lines.append(
            f"| {markdown_text(v.id)} | {markdown_text(v.kind)} | **{v.verdict}** | {_figure(v.kind, v.measured)} | "
            f"{_figure(v.kind, v.expect)} | {rows} | {markdown_text('; '.join(v.notes))} |"
        )
    return text_lines(lines)


FORMATS = Formats({"text": as_text(to_text), "json": as_json(document), "markdown": as_text(to_markdown)})


def judged(
    listed: list[dict[str, Any]],
    rows: dict[str, list[Row]],
    selection: Selection,
    warn: Callable[[str], None],
    positions: Mapping[str, Sequence[str]] | None = None,
    source: str = "claims",
    a_table: str = "a --table",
) -> tuple[list[Any], list[str]]:
    """The verdicts of the claims `listed` on the rows of each round (`rows`, each result once:
    a duplicate is left out with a warning, which names both rows, from `positions`, when
    their results differ) that `selection` takes, and the selection's notes: what `claims`
    and mlperf_check.claims both compute. A claim of a round no table was given for is a
    usage error, naming the claims (`source`) and the rounds (`a_table`: how the door names a
    table, `a --table` or `a table in tables`): no-data would say the round has no such row."""
    missing = rounds_without_table(listed, rows)
    if missing:
        raise UsageError(f"{source}: claims select rounds without {a_table}: {', '.join(missing)}")
    taken: dict[str, list[Row]] = {}
    identical, conflicts = 0, list[published.Conflict]()
    for name, found in rows.items():
        taken[name], duplicates = published.unique_rows(found, (positions or {}).get(name))
        identical += duplicates.identical
        conflicts += duplicates.conflicts
    for line in published.Duplicates(identical, tuple(conflicts)).lines():
        warn(line)
    chosen = {name: selection.select(found) for name, found in taken.items()}
    if selection and any(taken.values()) and not any(chosen.values()):
        raise UsageError(selection.why_empty(published.frame([row for found in taken.values() for row in found])))
    verdicts = check_claims(listed, chosen)
    return verdicts, selection.notes(row.hardware for found in chosen.values() for row in found)


def rounds_without_table(listed: list[dict[str, Any]], rows: Mapping[str, Any]) -> list[str]:
    """The rounds the claims' selections name that `rows` (by round) has no table of."""
    named = {side["round"] for claim in listed for key in ("in", "from", "to") if (side := claim.get(key))}
    return sorted(named - set(rows))


def of_round(label: str, name: str, found: list[Row]) -> list[Row]:
    """The rows of a table given for round `name`, or a usage error when they say another round."""
    other = sorted({r.round for r in found if r.round and r.round != name})
    if other:
        raise UsageError(f"{label}: its rows are of round {', '.join(other)}, not {name}")
    return found
