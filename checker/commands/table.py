"""The published results table, per round, built from the checked tree.

Two steps. `table_row` gathers the round-independent facts of one result once (the check's
`collect` hook, in the worker that checked it: `record.collected`); they carry the key names of the v5.1/v6.0 tables
(`Submitter`, `Category`, `Performance_Result`, ...). `render` writes rows in a round's
published format, as the round file's `table:` block describes it: the keys, their names and
order, the file's shape, how `Location`, `compliance`, `inferred` and `Scenario` are written,
the producer's value fixes, and numbers as pandas writes them. commands/inputs.py reads any
of the published formats (and the CSV of `table`) back into rows with the v5.1/v6.0 key names.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from ..facts import Table, TablePower
from ..findings import Report, ResultRecord
from ..model import Result, no_results_reason
from ..parsers.counts import whole
from ..reporters import Formats, as_data, as_text
from ..reporters.common import csv_text
from ..rounds import Round, RoundError, available_rounds, load_round

# Description fields that explain differences between systems (compare); rows carry them,
# and the published table leaves them out unless asked.
DESCRIPTION_FIELDS = (
    "framework",
    "other_software_stack",
    "host_processor_model_name",
    "host_memory_capacity",
    "host_memory_configuration",
    "cooling",
    "hw_notes",
    "sw_notes",
)


# --- the facts of one result ------------------------------------------------------------


def _count(value: Any) -> int | str:
    """A count as the table has it: a number when the description gives a whole number
    (as a string, one of at most seven digits: parsers.counts.whole), else the text as
    written."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return value
    text = "" if value is None else str(value)
    count = whole(text)  # a count the description's schema allows: never int() of 5,000 digits
    return count if count is not None else text


def _text(value: Any) -> str:
    """A description value as the checker's CSV writes it: str() of it, spaces included."""
    return "" if value is None else str(value)


def _accuracy(result: Result) -> str:
    """`METRIC: value` for each of the model's table metrics, as the accuracy script printed
    the value, joined by two spaces."""
    if result.model is None:
        return ""
    metrics = result.round.table_metrics(result.model, result.scenario or "")
    if result.is_endpoints:
        # The round's checker keeps the first accuracy_scores[].score as the accuracy and
        # prints it as JSON with quotes, braces and commas dropped: "0.8723618090452261".
        score = result.endpoints_accuracy.score if result.endpoints_accuracy else None
        if score is None:
            return ""
        text = json.dumps(score).replace(",", " ").replace('"', "").replace("{", "").replace("}", "")
        return text.strip()
    report = result.accuracy_report
    if report is None:
        return ""
    parts = []
    for metric, _ in metrics:
        printed = report.printed(metric)
        if printed is not None:
            parts.append(f"{metric}: {printed}")
    return "  ".join(parts)


def _weight_data_types(result: Result) -> str:
    rel = result.implementation_path  # the same file MSR001 accepts
    data = result.reader.json(rel, required=False, what="implementation description") if rel else None
    return _text(data.get("weight_data_types")) if isinstance(data, dict) else ""


def _effective_scenario(result: Result) -> str | None:
    """The scenario the run says it ran: loadgen's `effective_scenario`; for an Endpoints
    result, the config.yaml key the round's table names (`type`, as written: "online")."""
    if result.is_endpoints:
        key = result.round.table.inferred.endpoints if result.round.table else None
        config = result.endpoints_config
        value = config.get(key) if key and config is not None else None
        return value if isinstance(value, str) else None
    log = result.performance_log
    return log.scenario if log is not None else None


def table_row(result: Result, record: ResultRecord) -> dict[str, Any]:
    """The round-independent facts of one result's row (a `collect` hook of check). Keys
    starting with `_` are facts a round's format may write (the scenario folder, the
    performance folder, the run's own scenario); the others carry the v5.1/v6.0 key names."""
    metric, power = record.metric, record.facts.get("power")
    description = result.system.description or {}
    division, submitter = result.division, result.submission.submitter
    suite = _text(description.get("system_type")).replace(" ", "")  # "datacenter,edge" stays one suite
    nodes = _count(description.get("number_of_nodes"))
    accelerators = _count(description.get("accelerators_per_node"))
    processors = _count(description.get("host_processors_per_node"))
    unique = f"{suite}/{division}/{submitter}/{result.system.name}"
    if division == "open":
        unique += f"/{result.benchmark}"
    notes = _text(description.get("hw_notes"))
    if description.get("sw_notes"):  # ResultExporter / log_result: "hw. sw"
        notes = (notes + ". " if notes else "") + _text(description.get("sw_notes"))
    row: dict[str, Any] = {
        "Submitter": submitter,  # the folder's name, in every round (published 'Dell' where the JSON says 'DELL')
        "Availability": _text(description.get("status")).strip().lower(),
        "Category": division,
        "Suite": suite,
        "System": _text(description.get("system_name")),
        "Platform": result.system.name,
        "UsedModel": result.benchmark,
        "Model": result.model or result.benchmark,
        "Scenario": result.scenario or result.scenario_folder,
        "Accuracy": _accuracy(result),
        "Nodes": nodes,
        "Processor": _text(description.get("host_processor_model_name")),
        "host_processors_per_node": processors,
        "host_processor_core_count": _text(description.get("host_processor_core_count")),
        "Accelerator": _text(description.get("accelerator_model_name")),
        "a#": accelerators,
        "Total Accelerators": (
            nodes * accelerators if isinstance(nodes, int) and isinstance(accelerators, int) else ""
        ),
        "Location": result.location,
        "Software": _text(description.get("framework")),
        "operating_system": _text(description.get("operating_system")),
        "Notes": notes,
        "errors": 0,
        "version": result.round.name,
        "inferred": 1 if result.inferred_from else 0,  # the round's inferred_scenarios rules
        "has_power": bool(result.has_power and power is not None),
        "weight_data_types": _weight_data_types(result),
        "p#": processors,
        "Unique ID (e.g. for Audit)": unique,
        "Performance_Result": float(metric["value"]) if metric else None,
        "Performance_Units": metric["units"] if metric else None,
        "design_power_watts": "",
        "PrivateID": "",
        "_scenario_folder": result.scenario_folder,
        "_performance": result.path("performance") or result.location,
        "_effective_scenario": _effective_scenario(result),
    }
    if power is not None:
        row["Power_Result"] = float(power["value"])
        row["Power_Units"] = power["units"]
    for name in DESCRIPTION_FIELDS:
        if name in description:
            value = description[name]
            row[name] = value if isinstance(value, (str, int, float)) else json.dumps(value, sort_keys=True)
    return row


# --- a round's published format ---------------------------------------------------------


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

    text = pd.Series(values, dtype="float64").to_json(orient="values", double_precision=precision)
    return json.loads(text)


def _as_published(fmt: TableFormat, row: dict[str, Any]) -> dict[str, Any]:
    """Each fact the round writes, as it writes it, still under the fact's name."""
    publication = fmt.publication
    values = {fact: row.get(fact) for fact in [fmt.fact(key) for key in fmt.all_keys() if key not in publication]}
    values.update({fact: row.get(fact) for fact in fmt.power.row.values()})
    table = fmt.table
    values["Location"] = table.location.format(result=row["Location"], performance=row["_performance"])
    compliance = table.compliance
    values["compliance"] = compliance.format(division=row["Category"]) if isinstance(compliance, str) else compliance
    values["inferred"] = fmt.inferred_of(row)
    if table.scenario == "folder":
        values["Scenario"] = row["_scenario_folder"]
    values["Model"] = table.model_labels.get(row["Model"], row["Model"])
    na_values = set(table.na_values)  # what pandas read_csv reads as missing
    for fact, value in values.items():
        if value is None or (isinstance(value, str) and value in na_values):
            values[fact] = fmt.blank
    for fix in table.fixes:
        fact = fmt.fact(fix.key)
        if type(values.get(fact)) is type(fix.value) and values[fact] == fix.value:
            values[fact] = fix.becomes
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


def _in_order(rows: list[dict[str, Any]], fmt: TableFormat) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(published values, facts) of each row, in the round's published order."""

    def order(pair: tuple[dict[str, Any], dict[str, Any]]) -> tuple:
        return tuple("" if pair[0].get(fmt.fact(k)) is None else str(pair[0].get(fmt.fact(k))) for k in fmt.table.order)

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
    numbers: dict[str, int] = {}
    out: list[dict[str, Any]] = []
    for values, row in _in_order(rows, fmt):
        if base is not None and first_id is not None and fmt.publication:
            unique = values["Unique ID (e.g. for Audit)"]
            numbers.setdefault(unique, first_id + len(numbers))
            values.update(_publication(fmt, values, base, numbers[unique]))
        has_power = row.get("Power_Result") is not None
        keys = [k for k in fmt.all_keys(power=has_power) if k not in fmt.publication or k in values]
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
    from ..reporters.common import strict_json

    data: Any = rows if fmt.shape == "list" else {str(i): row for i, row in enumerate(rows)}
    return strict_json(data, indent=2 if fmt.table.indent is None else fmt.table.indent) + "\n"


def to_json(rows: list[dict[str, Any]], fmt: TableFormat | None = None) -> str:
    from ..reporters.common import strict_json

    return dumps(rows, fmt) if fmt is not None else strict_json(rows, indent=2) + "\n"


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


# --- reading tables back -----------------------------------------------------------------


def formats() -> list[TableFormat]:
    """The table formats of the bundled rounds (one per distinct `table:` block)."""
    found: list[TableFormat] = []
    for name in available_rounds():
        try:
            fmt = TableFormat.of(load_round(name))
        except RoundError:
            continue
        if fmt is not None and all(fmt.table != other.table for other in found):
            found.append(fmt)
    return found


def _format_of(keys: set[str], shape: str | None) -> TableFormat | None:
    """The bundled format whose keys a table's rows use most."""
    candidates = [f for f in formats() if shape is None or f.shape == shape]
    scored = [(len(keys & set(f.all_keys())), -i, f) for i, f in enumerate(candidates)]
    return max(scored, key=lambda s: s[:2])[2] if scored else None


def normalise(rows: list[dict[str, Any]], fmt: TableFormat | None) -> list[dict[str, Any]]:
    """Rows of a round's format with the v5.1/v6.0 key names: published keys renamed to their
    facts, and a separate power row merged into its performance row."""
    if fmt is None:
        return rows
    power_row, power_units = fmt.power.row, set(fmt.power.units)
    units, location = fmt.key("Performance_Units"), fmt.key("Location")
    out: list[dict[str, Any]] = []
    for row in rows:
        if power_row and row.get(units) in power_units and out and out[-1].get("Location") == row.get(location):
            out[-1].update({fact: row.get(key) for key, fact in power_row.items()})
            continue
        named = {fmt.fact(key): value for key, value in row.items()}
        if "p#" not in named and isinstance(named.get("host_processors_per_node"), int):
            named["p#"] = named["host_processors_per_node"]  # generate_final_report.py: p# = host_processors_per_node
        out.append(named)
    return out


def _typed(value: str) -> Any:
    """A CSV cell back to the published table's type: int, float, bool or text."""
    if value in ("True", "False"):
        return value == "True"
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value


TEXT_KEYS = ("host_processor_core_count", "Notes", "System", "Accelerator", "Processor", "Software")


def publish(
    rows: list[dict[str, Any]],
    base: str | None,
    first_id: int | None,
    round_name: str,
    with_description: bool = False,
    as_written: bool = True,
) -> list[dict[str, Any]]:
    """The rows as `round_name` publishes them (order, values), with the v5.1/v6.0 key names:
    what compare and followup read. With `base` and `first_id`, the publication keys too
    where the round's table has them; `as_written` as `render` says."""
    fmt = TableFormat.of(load_round(round_name))
    if fmt is None:
        raise RoundError(f"round {round_name} has no `table:` block")
    ordered = [row for _, row in _in_order(rows, fmt)]
    canonical = normalise(render(ordered, fmt, base, first_id, as_written), fmt)  # one row per result again
    if with_description:
        for published, row in zip(canonical, ordered, strict=True):
            published.update({name: row[name] for name in DESCRIPTION_FIELDS if name in row})
    return canonical


class NoResults(ValueError):
    """A submission tree without a single result."""

    def __init__(self, path: str, round: Round) -> None:
        super().__init__(no_results_reason(path, round))
        self.path, self.round = path, round


def valid_rows(report: Report) -> list[dict[str, Any]]:
    """The rows `table_row` collected for the valid results of a check."""
    return [r.collected for r in report.results if r.valid and r.collected]


def _csv(rows: list[dict[str, Any]], fmt: TableFormat) -> str:
    return to_csv(rows, fmt.all_keys())


# The round's published file, or the same rows and keys as CSV.
FORMATS = Formats({"json": as_data(dumps), "csv": as_text(_csv)}, default="json")
