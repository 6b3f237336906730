"""The published results table, per round, built from the checked tree.

Two steps. `table_row` gathers the round-independent facts of one result once (the check's
`collect` hook, in the worker that checked it: `record.collected`); they carry the key names of the v5.1/v6.0 tables
(`Submitter`, `Category`, `Performance_Result`, ...). `render` writes rows in a round's
published format, as the round file's `table:` block describes it: the keys, their names and
order, the file's shape, how `Location`, `compliance`, `inferred` and `Scenario` are written,
the producer's value fixes, and numbers as pandas writes them. `load_table` reads any of the
published formats (and the CSV of `table`) back into rows with the v5.1/v6.0 key names.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import math
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..findings import Report, ResultRecord
from ..model import Result, no_results_reason
from ..parsers import number
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
    """A count as the table has it: a number when the description gives a whole number,
    else the text as written."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return value
    text = "" if value is None else str(value)
    return int(text.strip()) if text.strip().isdigit() else text


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
        key = ((result.round.data.get("table") or {}).get("inferred") or {}).get("endpoints")
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
    """A round's `table:` block (rules/<round>.yaml)."""

    round: str
    spec: dict[str, Any]

    @classmethod
    def of(cls, round: Round) -> TableFormat | None:
        spec = round.data.get("table")
        return cls(round.name, spec) if isinstance(spec, dict) else None

    def __getitem__(self, name: str) -> Any:
        return self.spec[name]

    @property
    def shape(self) -> str:
        return self.spec["shape"]

    @property
    def keys(self) -> list[str]:
        return list(self.spec["keys"])

    @property
    def names(self) -> dict[str, str]:
        return dict(self.spec.get("names") or {})

    @property
    def power(self) -> dict[str, Any]:
        return dict(self.spec.get("power") or {})

    @property
    def publication(self) -> dict[str, str]:
        return dict(self.spec.get("publication") or {})

    @property
    def blank(self) -> str | None:
        return self.spec["blank"]

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
        pair = self.power.get("keys")
        if power and pair:
            at = keys.index(self.power["before"])
            keys[at:at] = pair
        return keys

    def inferred_of(self, row: dict[str, Any]) -> int:
        rule = self["inferred"]
        if rule["rule"] == "inferred_scenarios":
            return row["inferred"]
        effective, folder = row.get("_effective_scenario"), row["_scenario_folder"]
        if effective is None:
            return 0
        exempt = any((e["effective"], e["folder"]) == (effective, folder) for e in rule.get("except", []))
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
    facts = [fmt.fact(key) for key in fmt.all_keys() if key not in publication]
    values = {fact: row.get(fact) for fact in facts}
    values.update({fact: row.get(fact) for fact in fmt.power.get("row", {}).values()})
    values["Location"] = fmt["location"].format(result=row["Location"], performance=row["_performance"])
    compliance = fmt["compliance"]
    values["compliance"] = compliance.format(division=row["Category"]) if isinstance(compliance, str) else compliance
    values["inferred"] = fmt.inferred_of(row)
    if fmt["scenario"] == "folder":
        values["Scenario"] = row["_scenario_folder"]
    values["Model"] = fmt.spec.get("model_labels", {}).get(row["Model"], row["Model"])
    na_values = set(fmt.spec.get("na_values", []))  # what pandas read_csv reads as missing
    for fact, value in values.items():
        if value is None or (isinstance(value, str) and value in na_values):
            values[fact] = fmt.blank
    for fix in fmt.spec.get("fixes", []):
        fact = fmt.fact(fix["key"])
        if type(values.get(fact)) is type(fix["value"]) and values[fact] == fix["value"]:
            values[fact] = fix["becomes"]
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
        return tuple("" if pair[0].get(fmt.fact(k)) is None else str(pair[0].get(fmt.fact(k))) for k in fmt["order"])

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
        if has_power and "row" in fmt.power:  # a second row: the same, with the power metric
            out.append({**published, **{key: values[fact] for key, fact in fmt.power["row"].items()}})
    if as_written:
        places = [(row, key) for row in out for key, value in row.items() if isinstance(value, float)]
        for (row, key), written in zip(
            places, published_numbers([row[key] for row, key in places], fmt["double_precision"])
        ):
            row[key] = written
    return out


def dumps(rows: list[dict[str, Any]], fmt: TableFormat) -> str:
    """The file the round publishes: a list of rows, or an object keyed "0", "1", ...
    Strict JSON: a non-finite number is null (with a warning on stderr)."""
    from ..reporters.common import strict_json

    data: Any = rows if fmt.shape == "list" else {str(i): row for i, row in enumerate(rows)}
    return strict_json(data, indent=fmt.spec.get("indent", 2)) + "\n"


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
        if fmt is not None and all(fmt.spec != other.spec for other in found):
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
    power_row, power_units = fmt.power.get("row"), set(fmt.power.get("units", []))
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


def load_table(path: str) -> list[dict[str, Any]]:
    """A results table in any round's published format (a JSON list of rows, an object keyed
    "0", "1", ...) or the CSV of `table`, as rows with the v5.1/v6.0 key names."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if path.endswith(".csv"):
        try:
            rows = list(csv.DictReader(io.StringIO(text)))
        except csv.Error as error:
            raise ValueError(f"{path} is not a readable CSV table: {error}") from error
        fmt = _format_of(set(rows[0]) if rows else set(), None)
        text_keys = {fmt.key(k) for k in TEXT_KEYS} if fmt is not None else set(TEXT_KEYS)
        typed = [
            {k: (v if k in text_keys else _typed(v)) for k, v in row.items() if v != "" or k in text_keys}
            for row in rows
        ]
        return normalise(typed, fmt)
    data = json.loads(text)
    shape = "list"
    if isinstance(data, dict) and all(key.isdigit() for key in data):
        data, shape = [data[key] for key in sorted(data, key=int)], "index"
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise ValueError(f'{path} is not a results table (a JSON list of rows, or an object keyed "0", "1", ...)')
    keys = {key for row in data for key in row}
    return normalise(data, _format_of(keys, shape))


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
        for published, row in zip(canonical, ordered):
            published.update({name: row[name] for name in DESCRIPTION_FIELDS if name in row})
    return canonical


def table_of(
    path: str, round_name: str | None, jobs: int | None = None, with_description: bool = False
) -> list[dict[str, Any]]:
    """The valid rows of a submission tree (checked with the round), or of a table file.
    `with_description` adds the system-description fields that explain differences between
    systems (framework, software stack, host processor, memory, cooling, notes) to tree rows."""
    from ..engine import check
    from ..rounds import newest_round

    if not os.path.isdir(path):
        return load_table(path)
    report = check(path, round_name or newest_round(), jobs=jobs, collect=table_row)
    return publish(valid_rows(report), None, None, report.round.name, with_description)


class NoResults(ValueError):
    """A submission tree without a single result."""

    def __init__(self, path: str, round: Round) -> None:
        super().__init__(no_results_reason(path, round))
        self.path, self.round = path, round


def rows_of(
    path: str,
    round_name: str | None,
    with_description: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[dict[str, Any]], list[tuple[str, dict[str, Any]]]]:
    """The valid rows of a submission tree (checked with the round, reporting to `progress`
    as engine.check does), or the rows of a results table file with each row as written and
    its label (none for a tree). Raises NoResults for a tree without results and ValueError,
    naming the row, for a malformed table."""
    from ..engine import check
    from ..rounds import newest_round

    if os.path.isdir(path):
        report = check(path, round_name or newest_round(), progress=progress, collect=table_row)
        if not report.results:
            raise NoResults(path, report.round)
        return publish(valid_rows(report), None, None, report.round.name, with_description), []
    check_table(path)
    return load_table(path), labelled_rows(path)


def valid_rows(report: Report) -> list[dict[str, Any]]:
    """The rows `table_row` collected for the valid results of a check."""
    return [r.collected for r in report.results if r.valid and r.collected]


# --- input tables ----------------------------------------------------------------------------
# What compare and followup compute with, and what each must be. A table that breaks this is
# a usage error naming the file and the row, never a crash or a silently dropped row.
NAMES = ("Category", "Model", "Scenario", "Submitter", "Performance_Units")  # non-empty text
TEXTS = ("Accelerator", "Processor", "Location", "System", "Platform", "Availability", "version")  # a value or empty
COUNTS = ("Nodes", "a#", "p#")  # a whole number or empty


def labelled_rows(path: str) -> list[tuple[str, dict[str, Any]]]:
    """The rows of a results table file as written, each with the label that finds it in the
    file (`row 3` of a JSON list, `row "2"` of an object keyed "0", "1", ..., `line 4` of a
    CSV) and with the v5.1/v6.0 key names. Raises ValueError, naming the file, for a file
    that is not a results table."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ValueError(f"{path} is not a regular file")
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} is not UTF-8 text (byte {error.start}: {error.reason})") from None
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from None
    if path.endswith(".csv"):
        reader = csv.reader(io.StringIO(text, newline=""))
        try:
            records = [(reader.line_num, record) for record in reader]
        except csv.Error as error:
            raise ValueError(f"{path} is not a readable CSV table: line {reader.line_num}: {error}") from None
        if not records:
            return []
        header = records[0][1]
        fmt = _format_of(set(header), None)
        text_keys = {fmt.key(k) for k in TEXT_KEYS} if fmt is not None else set(TEXT_KEYS)
        found = []
        for line, record in records[1:]:
            if not record:
                continue
            if len(record) != len(header):
                raise ValueError(f"{path}: line {line}: {len(record)} cells, but the header has {len(header)}")
            row = {k: (v if k in text_keys else _typed(v)) for k, v in zip(header, record) if v != "" or k in text_keys}
            found.append((f"line {line}", _named(row, fmt)))
        return found
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not JSON: {error.msg} (line {error.lineno}, column {error.colno})") from None
    shape = "list"
    if isinstance(data, dict) and all(key.isdigit() for key in data):
        data, shape = [(f'row "{key}"', data[key]) for key in sorted(data, key=int)], "index"
    elif isinstance(data, list):
        data = [(f"row {number}", row) for number, row in enumerate(data, 1)]
    else:
        raise ValueError(f'{path} is not a results table (a JSON list of rows, or an object keyed "0", "1", ...)')
    for label, row in data:
        if not isinstance(row, dict):
            raise ValueError(f"{path}: {label} is {_kind(row)}, not an object of keys and values")
    fmt = _format_of({key for _, row in data for key in row}, shape)
    return [(label, _named(row, fmt)) for label, row in data]


def _named(row: dict[str, Any], fmt: Any) -> dict[str, Any]:
    return {fmt.fact(key): value for key, value in row.items()} if fmt is not None else dict(row)


def _kind(value: Any) -> str:
    """A value as the message names it: JSON's words for JSON's types."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def problem(row: dict[str, Any]) -> str | None:
    """What is wrong with one row of an input table, or None."""
    for key in NAMES:
        value = row.get(key)
        if not isinstance(value, str) or not value.strip():
            return f"no {key}" if key not in row or value in (None, "") else f"{key} is {_kind(value)}, not a name"
    for key in TEXTS:
        if isinstance(row.get(key), (dict, list)):
            return f"{key} is {_kind(row[key])}, not a value"
    value = row.get("Performance_Result")
    if number(value) is None or not math.isfinite(value) or value <= 0:
        return (
            f"Performance_Result is {_kind(value)}, not a positive number"
            if "Performance_Result" in row
            else "no Performance_Result"
        )
    for key in COUNTS:
        value = row.get(key)
        if value in (None, ""):
            continue
        whole = (
            isinstance(value, int)
            and not isinstance(value, bool)
            or isinstance(value, float)
            and value.is_integer()
            or isinstance(value, str)
            and value.strip().isdigit()
        )
        if not whole or float(value) < 0:
            return f"{key} is {_kind(value)}, not a whole number"
    return None


def check_table(path: str) -> None:
    """Raises ValueError naming the file and the first malformed row (or an empty table)."""
    rows = labelled_rows(path)
    if not rows:
        raise ValueError(f"{path} holds no rows")
    for label, row in rows:
        wrong = problem(row)
        if wrong:
            raise ValueError(f"{path}: {label}: {wrong}")


def _csv(rows: list[dict[str, Any]], fmt: TableFormat) -> str:
    return to_csv(rows, fmt.all_keys())


# The round's published file, or the same rows and keys as CSV.
FORMATS = Formats({"json": as_data(dumps), "csv": as_text(_csv)}, default="json")
