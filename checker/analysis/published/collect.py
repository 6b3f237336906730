"""The facts of one result's row in the published results table: `table_row` gathers the
round-independent facts of one result once (the check's `collect` hook, in the worker that
checked it: `record.collected`); they carry the key names of the v5.1/v6.0 tables
(`Submitter`, `Category`, `Performance_Result`, ...). checker/analysis/published/format.py writes them
in a round's published format."""

from __future__ import annotations

import json
import math
from typing import Any

from ...findings import Report, ResultRecord
from ...model import Result
from ...parsers import Malformed, number
from ...parsers.counts import whole

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


# What the interactivity figure (tokens per second per user) is made of: the run's measured
# p99 time per output token, the statistic the round's TPOT limit bounds. loadgen writes it as
# this key; an Endpoints summary as tpot.percentiles["99.0"]. Nanoseconds either way.
TPOT_KEY = "result_time_per_output_token_99.00_percentile_ns"
TPOT_ENDPOINTS = "tpot.percentiles.99.0"


def tpot_p99_ns(result: Result) -> float | None:
    """The run's p99 TPOT in nanoseconds (TPOT_KEY, or TPOT_ENDPOINTS), or None: a run
    that measures no token latencies (Offline, a non-LLM benchmark), or a value that is
    not a positive finite number."""
    try:
        if result.is_endpoints:
            summary = result.endpoints_summary
            value = summary.get(TPOT_ENDPOINTS) if summary is not None else None
        else:
            log = result.performance_log
            value = log.get(TPOT_KEY) if log is not None else None  # typed: nanoseconds, or None
    except Malformed:  # FIL012 says why
        return None
    found = number(value)
    return float(found) if found is not None and 0 < found < math.inf else None


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
        "tpot_p99_ns": tpot_p99_ns(result),  # not a published column: the interactivity figure's source
    }
    if power is not None:
        row["Power_Result"] = float(power["value"])
        row["Power_Units"] = power["units"]
    for name in DESCRIPTION_FIELDS:
        if name in description:
            value = description[name]
            row[name] = value if isinstance(value, (str, int, float)) else json.dumps(value, sort_keys=True)
    return row


def valid_rows(report: Report) -> list[dict[str, Any]]:
    """The rows `table_row` collected for the valid results of a check."""
    return [r.collected for r in report.results if r.valid and r.collected]
