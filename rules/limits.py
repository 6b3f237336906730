"""PRF's limits: each round limit a performance run is held to, recomputed from the raw
numbers of its log, whatever loadgen's flags say.

One function per limit (LIMITS), each returning the Violations it finds; the PRF rules turn
them into problems, and PRF004 weighs all of them against the log's verdict. A limit judges
a run of a known model and scenario that is not inferred from another scenario's run
(PRF010 notes those). The written policy's stricter limits (`policy:` in the round file)
only warn: `policy_violations`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from checker import earlystop
from checker.model import Result
from checker.model.views import Measured
from checker.parsers.mllog import reads

# The loadgen keys the limits read (checked to be wanted, so none reads as None unread).
LOADGEN_KEYS = reads(
    "result_query_count",
    "result_overlatency_query_count",
    "result_99.00_percentile_latency_ns",
    "result_first_token_99.00_percentile_latency_ns",
    "result_time_per_output_token_99.00_percentile_ns",
    "effective_scenario",
    "effective_min_duration_ms",
    "effective_samples_per_query",
    "effective_target_latency_percentile",
    "requested_use_token_latencies",
    "early_stopping_met",
)


@dataclass(frozen=True)
class Violation:
    """A limit the raw numbers break, whatever loadgen's flags say."""

    key: str
    message: str
    observed: object
    expected: object


def _once_a_result(limit: Callable[[Measured], list[Violation]]) -> Callable[[Measured], list[Violation]]:
    """A limit judged once per result: its rule and PRF004 (`violations`) both ask for it. One
    that raises (a malformed value read) is asked again, and raises again."""
    slot = f"limit:{limit.__name__}"  # in result.cache

    @functools.wraps(limit)
    def judged(result: Measured) -> list[Violation]:
        if slot not in result.cache:
            result.cache[slot] = limit(result)
        found: list[Violation] = result.cache[slot]
        return found

    return judged


def _judged(result: Measured) -> str | None:
    """The scenario of a run the limits judge: a known scenario, and not inferred from
    another scenario's run (PRF010 notes those)."""
    return None if result.inferred_from else result.scenario


def _where(result: Result) -> str:
    return f"{result.scenario} limit of {result.model}, round {result.round.name}"


@_once_a_result
def latency_target(result: Measured) -> list[Violation]:
    """The p99 latency above the round's target for the folder's scenario (PRF002)."""
    scenario = _judged(result)
    limits = result.round.latency(result.model, scenario) if scenario else None
    target = limits.target_ns if limits else None
    log = result.performance_log
    p99 = log.get("result_99.00_percentile_latency_ns") if target is not None else None
    if target is None or p99 is None or p99 <= target:
        return []
    message = f"99th percentile latency {p99 / 1e6:.3f} ms > {target / 1e6:.3f} ms ({_where(result)})"
    return [Violation("result_99.00_percentile_latency_ns", message, p99, target)]


@_once_a_result
def token_latencies(result: Measured) -> list[Violation]:
    """TTFT and TPOT p99 not below the limits of the folder's scenario, or not measured (PRF003)."""
    scenario = _judged(result)
    limits = result.round.latency(result.model, scenario) if scenario else None
    if limits is None:
        return []
    log, found = result.performance_log, []
    for name, key, limit in (
        ("TTFT", "result_first_token_99.00_percentile_latency_ns", limits.ttft_ns),
        ("TPOT", "result_time_per_output_token_99.00_percentile_ns", limits.tpot_ns),
    ):
        if limit is None:
            continue
        value = log.get(key)
        if value is None:
            message = f"the log has no {name} p99 ({key}); token latencies were not measured"
            found.append(Violation(key, message, None, limit))
        elif value >= limit:
            message = f"{name} p99 {value / 1e6:.3f} ms is not below {limit / 1e6:.3f} ms ({_where(result)})"
            found.append(Violation(key, message, value, limit))
    return found


@_once_a_result
def min_duration_limit(result: Measured) -> list[Violation]:
    """A configured minimum duration below the round's (PRF005)."""
    if _judged(result) is None:
        return []
    log = result.performance_log
    configured, minimum = log.get("effective_min_duration_ms"), result.round.min_duration_ms(result.model)
    if configured is None or configured >= minimum:
        return []
    message = f"minimum duration was set to {configured:.0f} ms, the round requires {minimum} ms"
    return [Violation("effective_min_duration_ms", message, configured, minimum)]


@_once_a_result
def min_queries_limit(result: Measured) -> list[Violation]:
    """Fewer queries than the round's minimum, in a scenario without early stopping (PRF006)."""
    scenario = _judged(result)
    if scenario is None:
        return []
    log, round = result.performance_log, result.round
    minimum, queries = round.models[result.model].min_queries.get(scenario), log.get("result_query_count")
    if not minimum or queries is None or scenario in round.run.early_stopping_scenarios or queries >= minimum:
        return []
    message = f"{queries:.0f} queries < {minimum} required for {scenario} ({round.name})"
    return [Violation("result_query_count", message, queries, minimum)]


def samples_per_query_judged(result: Result, scenario: str) -> bool:
    """Whether the round holds the result to the Offline samples-per-query minimum: an Offline
    run, in a division the round's `offline_samples_per_query_in` names."""
    return scenario == "Offline" and result.division in result.round.run.offline_samples_per_query_in


@_once_a_result
def samples_per_query_limit(result: Measured) -> list[Violation]:
    """An Offline query with fewer samples than the round's minimum, where the round judges it (PRF007)."""
    scenario = _judged(result)
    if scenario is None or not samples_per_query_judged(result, scenario):
        return []
    log, model = result.performance_log, result.model
    minimum, spq = result.round.models[model].offline_min_samples_per_query, log.get("effective_samples_per_query")
    if not minimum or spq is None or spq >= minimum:
        return []
    message = f"Offline query holds {spq:.0f} samples < {minimum} required for {model} ({result.round.name})"
    return [Violation("effective_samples_per_query", message, spq, minimum)]


@_once_a_result
def early_stopping_limit(result: Measured) -> list[Violation]:
    """Early stopping recomputed from the performance log's counts (PRF015). Empty when it
    holds or cannot be judged."""
    scenario = _judged(result)
    log, round = result.performance_log, result.round
    facts = round.run.early_stopping
    percentile = log.get("effective_target_latency_percentile")  # a fraction: 0.99, not 99
    queries = log.get("result_query_count")
    if (
        facts is None
        or scenario is None
        or scenario not in round.run.early_stopping_scenarios
        or percentile is None
        or queries is None
        or log.scenario != result.logged_scenario
    ):  # PRF009/PRF010 judge those
        return []
    p, confidence = percentile - facts.tolerance, facts.confidence
    if not 0 < p < 1:
        return []
    seen, even = f"{queries:.0f} queries", ""
    if log.scenario == "Server":
        over = log.get("result_overlatency_query_count")
        if over is None or log.get("requested_use_token_latencies") is True:
            # TTFT and TPOT are judged apart, on over-latency counts the log does not hold (its
            # own count is against a target of 0); with none over, h(0) is still needed.
            needed, even = earlystop.server_min_queries(0, p, confidence), " even with none over the latency targets"
        else:
            needed = earlystop.server_min_queries(int(over), p, confidence)
            seen += f" with {over:.0f} over the latency target"
    elif log.scenario in ("SingleStream", "MultiStream"):
        needed = earlystop.stream_min_queries(p, confidence)
        seen = f"{queries:.0f} {scenario} queries"
    else:
        return []
    if queries >= needed:
        return []
    tolerance = f", tolerance {facts.tolerance:g}" if facts.tolerance else ""
    message = (
        f"{seen}; early stopping needs at least {needed}{even} "
        f"(p{percentile * 100:g}, confidence {confidence:g}{tolerance}, round {round.name})"
    )
    if log.get("early_stopping_met") is True:
        message += ", although the log says early_stopping_met true"
    # Keyed by the flag the counts contradict: result_query_count is PRF006's key.
    return [Violation("early_stopping_met", message, queries, needed)]


# Every limit the raw numbers are judged by, one function each; violations() gathers them for PRF004.
LIMITS: tuple[Callable[[Measured], list[Violation]], ...] = (
    latency_target,
    token_latencies,
    min_duration_limit,
    min_queries_limit,
    samples_per_query_limit,
    early_stopping_limit,
)


def violations(result: Measured) -> list[Violation]:
    """Every round limit the performance log's numbers break (what PRF004 weighs against the
    log's verdict). Computed once per result."""
    if "violations" not in result.cache:
        result.cache["violations"] = [v for limit in LIMITS for v in limit(result)]
    found: list[Violation] = result.cache["violations"]
    return found


# A limit of the written policy: (log key, what it is, the policy's limit, the one applied,
# the side a value breaks it on, where the policy states it).
PolicyLimit = tuple[str, str, float | None, float | None, str, str | None]


def _policy_limits(result: Measured, scenario: str) -> list[PolicyLimit]:
    round, model = result.round, result.model
    facts, limits = round.models[model], round.latency(model, scenario)
    checks: list[PolicyLimit] = []
    if limits is not None and limits.policy is not None:
        written = limits.policy
        checks += [
            (key, name, stricter, held, "above", written.source)
            for key, name, stricter, held in (
                ("result_99.00_percentile_latency_ns", "99th percentile latency", written.target_ns, limits.target_ns),
                ("result_first_token_99.00_percentile_latency_ns", "TTFT p99", written.ttft_ns, limits.ttft_ns),
                ("result_time_per_output_token_99.00_percentile_ns", "TPOT p99", written.tpot_ns, limits.tpot_ns),
            )
        ]
    policy = facts.policy
    if policy is None:
        return checks
    source = policy.source
    duration = policy.min_duration_ms, round.min_duration_ms(model)
    checks.append(("effective_min_duration_ms", "minimum duration", *duration, "below", source))
    if samples_per_query_judged(result, scenario):
        spq = policy.offline_min_samples_per_query, facts.offline_min_samples_per_query
        checks.append(("effective_samples_per_query", "Offline samples per query", *spq, "below", source))
    samples = policy.samples.performance if policy.samples else None, facts.samples.performance
    checks.append(("effective_performance_sample_count", "performance sample count", *samples, "below", source))
    return checks


def policy_violations(result: Measured) -> list[Violation]:
    """The limits the written policy states more strictly than the round applied (the round
    file's `policy:` facts) that the log breaks while it meets the applied ones: warnings."""
    if "policy_violations" in result.cache:
        cached: list[Violation] = result.cache["policy_violations"]
        return cached
    found: list[Violation] = []
    log, scenario = result.performance_log, _judged(result)
    applied = {v.key for v in violations(result)}
    for key, name, stricter, held, side, source in _policy_limits(result, scenario) if scenario else ():
        value = log.get(key)
        if stricter is None or value is None or key in applied:
            continue
        if (side == "above" and value > stricter) or (side == "below" and value < stricter):
            shown = _ms if key.endswith("_ns") else _count
            found.append(
                Violation(
                    key,
                    f"{name} {shown(value)} is {side} {shown(stricter)}, the written policy's "
                    f"limit ({source}); the round applied "
                    f"{shown(held) if held is not None else 'none'}, which it meets ({result.round.name})",
                    value,
                    stricter,
                )
            )
    result.cache["policy_violations"] = found
    return found


def _ms(value: float) -> str:
    return f"{value / 1e6:.3f} ms"


def _count(value: float) -> str:
    return f"{value:.0f}"
