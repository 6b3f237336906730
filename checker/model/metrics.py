"""A result's metrics as its round defines them: the headline metric (from loadgen's log, or
an Endpoints summary; inferred from another scenario's run where the round allows it) and
the power metric. Each is None when a value it is made of is missing, or broke its
declaration (FIL012 says which)."""

from __future__ import annotations

import math
from typing import Any

from ..parsers import Malformed
from .result import Result

MetricSource = tuple[str, str, float, float | None]  # log key, units, scale, numerator


def metric(result: Result) -> dict[str, Any] | None:
    """The headline metric: {value, units, key}, and `inferred_from` for an inferred result."""
    try:
        return _metric(result)
    except Malformed:
        return None


def _metric(result: Result) -> dict[str, Any] | None:
    if result.model is None or result.scenario is None:
        return None
    if result.is_endpoints:
        return _endpoints_metric(result, result.model, result.scenario)
    source, log = metric_source(result), result.performance_log
    if log is None or source is None:
        return None
    key, units, scale, numerator = source
    value = log.get(key)  # typed: a finite number from 0, or None
    if value is None:
        return None  # PRF016 says why
    if numerator is not None:
        rule = result.round.inference(result.inferred_from, result.scenario)
        factor_key = rule.numerator_key if rule else None
        factor = log.get(factor_key) if factor_key else 1
        if value == 0 or factor is None:
            return None
        value = numerator * factor / value
    found = {"value": value * scale, "units": units, "key": key}
    if result.inferred_from:
        found["inferred_from"] = result.inferred_from
    return found


def metric_source(result: Result) -> MetricSource | None:
    """(log key, units, scale, numerator) of the headline metric of a loadgen result, as the
    round defines it for the folder's scenario or for the inference it allows."""
    if result.model is None or result.scenario is None:
        return None
    rule = result.round.inference(result.inferred_from, result.scenario) if result.inferred_from else None
    if rule is not None:
        return rule.key, rule.units, rule.scale, rule.numerator
    chosen = result.round.metric(result.model, result.scenario)
    return (chosen.key, chosen.units, chosen.scale, None) if chosen else None


def _endpoints_metric(result: Result, model: str, scenario: str) -> dict[str, Any] | None:
    summary = result.endpoints_summary
    chosen = result.round.endpoints_metric(model, scenario)
    if summary is None or chosen is None:
        return None
    value = summary.get(chosen.key)  # typed: a finite number from 0, or None
    if value is None and chosen.key == "qps":  # the official parser's fallback
        issued, duration = summary.get("n_samples_issued"), summary.get("duration_ns")
        value = issued / (duration / 1e9) if issued is not None and duration else None
    if value is None:
        return None
    return {"value": value * chosen.scale, "units": chosen.units, "key": chosen.key}


def power_metric(result: Result) -> dict[str, Any] | None:
    """Average watts over the measured window, or energy per query (mJ) in the scenarios the
    round names, per query of the folder's scenario: a result inferred from another
    scenario's run scales the run's energy per query by its inference rule's
    `energy_per_query_factor` (8 SingleStream queries make a MultiStream query); None
    without power results or samples."""
    try:
        return _power_metric(result)
    except Malformed:
        return None


def _power_metric(result: Result) -> dict[str, Any] | None:
    power = result.round.power
    if not result.has_power or power is None:
        return None
    window = result.power_window()
    if not window or not window[0]:
        return None
    watts, seconds = window
    average = math.fsum(watts) / len(watts)  # the round's checker sums in Python 3.12, which is compensated
    if result.scenario in power.energy_scenarios:
        log = result.performance_log
        queries = log.get("result_query_count") if log is not None else None  # typed: a count, or None
        if not queries:
            return None
        rule = result.round.inference(result.inferred_from, result.scenario)
        factor = rule.energy_per_query_factor if rule else 1
        return {"value": average * seconds * factor * 1000 / queries, "units": "millijoules"}
    return {"value": average, "units": "Watts"}
