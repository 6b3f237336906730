"""The published results table: one row per valid result, in the format of the round's
`summary_results.json` (same keys, types and value formats), built from the checked tree.

Where the published table and the official checker's CSV differ, the published table wins:
`compliance` is 1 for a published (valid) result, not the division, and `inferred` is 1
exactly when the scenario's numbers come from another scenario's run."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from .model import Result

# The published column order.
KEYS = ("ID", "Submitter", "Availability", "Category", "Suite", "System", "Platform", "UsedModel", "Model",
        "Scenario", "Accuracy", "Nodes", "Processor", "host_processors_per_node", "host_processor_core_count",
        "Accelerator", "a#", "Location", "Software", "operating_system", "Notes", "compliance", "errors",
        "version", "inferred", "has_power", "weight_data_types", "p#", "Details", "Code",
        "Unique ID (e.g. for Audit)", "ColorKey", "Performance_Result", "Performance_Units", "Power_Result",
        "Power_Units")
PUBLICATION_KEYS = ("ID", "Details", "Code", "ColorKey")
# Description fields that explain differences between systems (compare); rows carry them,
# and publish() leaves them out of the published table unless asked.
DESCRIPTION_FIELDS = ("framework", "other_software_stack", "host_processor_model_name", "host_memory_capacity",
                      "host_memory_configuration", "cooling", "hw_notes", "sw_notes")


def _count(value: Any) -> int | str:
    """Counts are numbers in the table; a count that is not a whole number is left blank."""
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() else ""


def _text(value: Any) -> str:
    """A description value as published: as written, spaces included."""
    return "" if value is None else str(value)


def _accuracy(result: Result) -> str:
    """`METRIC: value` for each of the model's table metrics, as the accuracy script printed
    the value, joined by two spaces."""
    if result.model is None:
        return ""
    metrics = result.round.table_metrics(result.model, result.scenario or "")
    if result.is_endpoints:  # accuracy_results.json: the numbers as JSON gave them
        endpoints = result.endpoints_accuracy
        found = [(metric, endpoints.value(key, metric)) for metric, key in metrics] if endpoints else []
        return "  ".join(f"{metric}: {int(value) if value.is_integer() else value}" for metric, value in found
                         if value is not None)
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


def table_row(result: Result, metric: dict[str, Any] | None, power: dict[str, Any] | None) -> dict[str, Any]:
    """The published row of one result (without the keys only publication assigns)."""
    description = result.system.description or {}
    division = result.division
    suite = _text(description.get("system_type")).replace(" ", "")  # "datacenter,edge" stays one suite
    accelerators = _count(description.get("accelerators_per_node"))
    processors = _count(description.get("host_processors_per_node"))
    cores = description.get("host_processor_core_count")
    unique = f"{suite}/{division}/{result.submission.submitter}/{result.system.name}"
    if division == "open":
        unique += f"/{result.benchmark}"
    notes = ". ".join(n for n in (_text(description.get("hw_notes")), _text(description.get("sw_notes"))) if n.strip())
    row: dict[str, Any] = {
        "Submitter": _text(description.get("submitter")) or result.submission.submitter,
        "Availability": _text(description.get("status")).strip().lower(),
        "Category": division,
        "Suite": suite,
        "System": _text(description.get("system_name")),
        "Platform": result.system.name,
        "UsedModel": result.benchmark,
        "Model": result.model or result.benchmark,
        "Scenario": result.scenario or result.scenario_folder,
        "Accuracy": _accuracy(result),
        "Nodes": _count(description.get("number_of_nodes")),
        "Processor": _text(description.get("host_processor_model_name")),
        "host_processors_per_node": processors,
        "host_processor_core_count": str(_count(cores)),
        "Accelerator": _text(description.get("accelerator_model_name")) if accelerators else "",
        "a#": accelerators if accelerators else "",
        "Location": result.location,
        "Software": _text(description.get("framework")),
        "operating_system": _text(description.get("operating_system")),
        "Notes": notes,
        "compliance": 1,
        "errors": 0,
        "version": result.round.name,
        "inferred": 1 if result.inferred_from else 0,
        "has_power": bool(result.has_power and power is not None),
        "weight_data_types": _weight_data_types(result),
        "p#": processors,
        "Unique ID (e.g. for Audit)": unique,
        "Performance_Result": metric["value"] if metric else None,
        "Performance_Units": metric["units"] if metric else None,
    }
    if power is not None:
        row["Power_Result"] = power["value"]
        row["Power_Units"] = power["units"]
    for name in DESCRIPTION_FIELDS:
        if name in description:
            value = description[name]
            row[name] = value if isinstance(value, (str, int, float)) else json.dumps(value, sort_keys=True)
    return row


def publish(rows: list[dict[str, Any]], base: str | None, first_id: int | None, round_name: str,
            code_folder: str = "code", with_description: bool = False) -> list[dict[str, Any]]:
    """The rows in published order (by the parts of Location), with ID, Details, Code and
    ColorKey when a publication base URL and a first ID are given. IDs number the distinct
    Unique IDs in order; `code_folder` is the round's (code in v5.x, src from v6.0)."""
    rows = sorted(rows, key=lambda r: r["Location"].split("/"))
    numbers: dict[str, int] = {}
    out = []
    for row in rows:
        row = dict(row)
        if base is not None and first_id is not None:
            unique = row["Unique ID (e.g. for Audit)"]
            numbers.setdefault(unique, first_id + len(numbers))
            division, submitter = row["Location"].split("/")[:2]
            row["ID"] = f"{round_name.lstrip('v')}-{numbers[unique]:04d}"
            row["Details"] = f"{base.rstrip('/')}/{division}/{submitter}/results/{row['Platform']}"
            row["Code"] = f"{base.rstrip('/')}/{division}/{submitter}/{code_folder}"
            row["ColorKey"] = f"{row['Availability']}{row['Submitter']}"
        keys = KEYS + DESCRIPTION_FIELDS if with_description else KEYS
        out.append({key: row[key] for key in keys if key in row})
    return out


def to_json(rows: list[dict[str, Any]]) -> str:
    return json.dumps(rows, indent=2) + "\n"


def to_csv(rows: list[dict[str, Any]]) -> str:
    columns = [key for key in KEYS if any(key in row for row in rows)]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: row.get(key, "") for key in columns})
    return buffer.getvalue()


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
    """A results table in the published format, from JSON (a list of rows) or CSV."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if path.endswith(".csv"):
        try:
            rows = list(csv.DictReader(io.StringIO(text)))
        except csv.Error as error:
            raise ValueError(f"{path} is not a readable CSV table: {error}") from error
        return [{k: (v if k in TEXT_KEYS else _typed(v)) for k, v in row.items() if v != "" or k in TEXT_KEYS}
                for row in rows]
    data = json.loads(text)
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise ValueError(f"{path} is not a results table (a JSON list of rows)")
    return data


def table_of(path: str, round_name: str | None, jobs: int | None = None,
             with_description: bool = False) -> list[dict[str, Any]]:
    """The valid rows of a submission tree (checked with the round), or of a table file.
    `with_description` adds the system-description fields that explain differences between
    systems (framework, software stack, host processor, memory, cooling, notes) to tree rows."""
    import os

    from .engine import check
    from .rounds import newest_round

    if not os.path.isdir(path):
        return load_table(path)
    report = check(path, round_name or newest_round(), jobs=jobs)
    rows = publish([r.row for r in report.results if r.valid and r.row], None, None, report.round.name,
                   report.round.layout["code"].split("/")[0], with_description)
    return rows
