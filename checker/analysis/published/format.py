"""A round's published results table: its format (the round file's `table:` block) and the
rows written in it. `render` writes rows in a round's published format: the keys, their
names and order, the file's shape, how `Location`, `compliance`, `inferred` and `Scenario`
are written, the producer's value fixes, and numbers as pandas writes them."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from ...facts import Table, TablePower
from ...reporters import Formats, as_data, as_text
from ...reporters.common import csv_text
from ...rounds import Round


@dataclass(frozen=True)
class TableFormat:
    """A round's `table:` block (rules/<round>.yaml): how its published table writes a row."""

    round: str
    table: Table

    @classmethod
    def of(cls, round: Round) -> TableFormat | None:
        return cls(round.name, round.table) if round.table is not None else None

    @property
    def shape(self) -> str:
        return self.table.shape

    @property
    def keys(self) -> list[str]:
        return list(self.table.keys)

    @property
    def names(self) -> dict[str, str]:
        return dict(self.table.names)

    @property
    def power(self) -> TablePower:
        return self.table.power or TablePower()

    @property
    def publication(self) -> dict[str, str]:
        return dict(self.table.publication)

    @property
    def blank(self) -> str | None:
        return self.table.blank

    def fact(self, key: str) -> str:
        """The row fact a published key writes."""
        return self._names.get(key, key)

    @functools.cached_property
    def _names(self) -> dict[str, str]:  # `names`, read once: `fact` runs for every key of every row
        return self.names

    @functools.cached_property
    def written_facts(self) -> tuple[str, ...]:
        """The row facts a row of the table writes, in order: its keys' (the power pair's
        included, the publication keys not), then the power row's. Read once a format:
        `_as_published` runs for every row."""
        publication = self.publication
        facts = {self.fact(key): None for key in self.all_keys() if key not in publication}
        facts.update(dict.fromkeys(self.power.row.values()))
        return tuple(facts)

    @functools.cached_property
    def fixes(self) -> tuple[tuple[str, Any, Any], ...]:
        """The producer's value fixes as (the fact, the value it fixes, what it becomes), the
        fact found once a format: `_as_published` runs for every row."""
        return tuple((self.fact(fix.key), fix.value, fix.becomes) for fix in self.table.fixes)

    @functools.cached_property
    def na_values(self) -> frozenset[str]:
        """What pandas read_csv reads as missing."""
        return frozenset(self.table.na_values)

    def key(self, fact: str) -> str:
        """The published key of a row fact."""
        return next((key for key, name in self.names.items() if name == fact), fact)

    def all_keys(self, power: bool = True) -> list[str]:
        """The published keys in order, with the power pair where a power row has it."""
        keys = self.keys
        pair = self.power.keys
        if power and pair and self.power.before is not None:
            at = keys.index(self.power.before)
            keys[at:at] = pair
        return keys

    def inferred_of(self, row: dict[str, Any]) -> int:
        rule = self.table.inferred
        if rule.rule == "inferred_scenarios":
            return row["inferred"]  # type: ignore[no-any-return]
        effective, folder = row.get("_effective_scenario"), row["_scenario_folder"]
        if effective is None:
            return 0
        exempt = any((e.effective, e.folder) == (effective, folder) for e in rule.except_)
        return 1 if folder != effective and not exempt else 0


def published_numbers(values: list[float], precision: int = 10) -> list[float]:
    """Numbers as the published tables hold them: pandas' JSON encoder writes each with at
    most `precision` decimals (and its own rules for very large and very small values), and
    json.loads reads the text back, as generate_final_report.py does. The encoder itself
    does it, so the digits are pandas' to the last one."""
    if not values:
        return []
    import pandas as pd

    series = pd.Series(values, dtype="float64")
    # pandas takes orient="values" for a Series; pandas-stubs lists it for a DataFrame only
    text = series.to_json(orient="values", double_precision=precision)  # type: ignore[call-overload]
    numbers: list[float] = json.loads(text)
    return numbers


def _as_published(fmt: TableFormat, row: dict[str, Any]) -> dict[str, Any]:
    """Each fact the round writes, as it writes it, still under the fact's name."""
    values = {fact: row.get(fact) for fact in fmt.written_facts}
    table = fmt.table
    values["Location"] = table.location.format(result=row["Location"], performance=row["_performance"])
    compliance = table.compliance
    values["compliance"] = compliance.format(division=row["Category"]) if isinstance(compliance, str) else compliance
    values["inferred"] = fmt.inferred_of(row)
    if table.scenario == "folder":
        values["Scenario"] = row["_scenario_folder"]
    values["Model"] = table.model_labels.get(row["Model"], row["Model"])
    na_values = fmt.na_values
    for fact, value in values.items():
        if value is None or (isinstance(value, str) and value in na_values):
            values[fact] = fmt.blank
    for fact, value, becomes in fmt.fixes:
        if type(values.get(fact)) is type(value) and values[fact] == value:
            values[fact] = becomes
    return values


def _publication(fmt: TableFormat, values: dict[str, Any], base: str, number: int) -> dict[str, str]:
    fields = {
        "base": base.rstrip("/"),
        "number": number,
        "division": values["Category"],
        "submitter": values["Submitter"],
        "system": values["Platform"],
        "availability": values["Availability"],
    }
    return {key: template.format(**fields) for key, template in fmt.publication.items()}


def in_order(rows: list[dict[str, Any]], fmt: TableFormat) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(published values, facts) of each row, in the round's published order."""

    facts = [fmt.fact(k) for k in fmt.table.order]

    def order(pair: tuple[dict[str, Any], dict[str, Any]]) -> tuple[str, ...]:
        values = pair[0]
        return tuple("" if values.get(fact) is None else str(values.get(fact)) for fact in facts)

    return sorted(((_as_published(fmt, row), row) for row in rows), key=order)


def render(
    rows: list[dict[str, Any]],
    fmt: TableFormat,
    base: str | None = None,
    first_id: int | None = None,
    as_written: bool = True,
) -> list[dict[str, Any]]:
    """The rows in the round's published format and order: its keys, names and values. With
    `base` and `first_id`, the publication keys too (IDs number the Unique IDs in order).
    `as_written=False` keeps each number as checked rather than as the table's encoder writes
    it (`published_numbers`: the same to ten decimals), for comparisons that do not need the
    encoder's last digits, nor pandas."""
    return rendered(in_order(rows, fmt), fmt, base, first_id, as_written)


def rendered(
    pairs: list[tuple[dict[str, Any], dict[str, Any]]],
    fmt: TableFormat,
    base: str | None = None,
    first_id: int | None = None,
    as_written: bool = True,
) -> list[dict[str, Any]]:
    """`render` of rows already in order, each with its published values (`in_order`), which
    it takes as its own (the publication keys go into them)."""
    numbers: dict[str, int] = {}
    out: list[dict[str, Any]] = []
    publication = fmt.publication
    all_keys = {power: fmt.all_keys(power=power) for power in (True, False)}  # once, not once a row
    for values, row in pairs:
        if base is not None and first_id is not None and publication:
            unique = values["Unique ID (e.g. for Audit)"]
            numbers.setdefault(unique, first_id + len(numbers))
            values.update(_publication(fmt, values, base, numbers[unique]))
        has_power = row.get("Power_Result") is not None
        keys = [k for k in all_keys[has_power] if k not in publication or k in values]
        published = {key: values[fmt.fact(key)] for key in keys}
        out.append(published)
        if has_power and fmt.power.row:  # a second row: the same, with the power metric
            out.append({**published, **{key: values[fact] for key, fact in fmt.power.row.items()}})
    if as_written:
        places = [(row, key) for row in out for key, value in row.items() if isinstance(value, float)]
        for (row, key), written in zip(
            places, published_numbers([row[key] for row, key in places], fmt.table.double_precision), strict=True
        ):
            row[key] = written
    return out


def dumps(rows: list[dict[str, Any]], fmt: TableFormat) -> str:
    """The file the round publishes: a list of rows, or an object keyed "0", "1", ...
    Strict JSON: a non-finite number is null (with a warning on stderr)."""
    from ...reporters import json_text

    data: Any = rows if fmt.shape == "list" else {str(i): row for i, row in enumerate(rows)}
    return json_text(data, 2 if fmt.table.indent is None else fmt.table.indent)


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    """Every key of the rows, in the order of the row that has the most of them, then the rest."""
    widest = max(rows, key=len, default={})
    columns = list(widest)
    for row in rows:
        columns += [k for k in row if k not in columns]
    return columns


def to_csv(rows: list[dict[str, Any]], columns: list[str] | None = None) -> str:
    columns = [c for c in columns if any(c in row for row in rows)] if columns else _columns(rows)
    return csv_text(rows, columns)


def _csv(rows: list[dict[str, Any]], fmt: TableFormat) -> str:
    return to_csv(rows, fmt.all_keys())


# The round's published file, or the same rows and keys as CSV.
FORMATS = Formats({"json": as_data(dumps), "csv": as_text(_csv)}, default="json")
