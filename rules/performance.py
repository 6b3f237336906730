"""PRF: the loadgen performance run, judged from its raw numbers and not only its flags."""

from __future__ import annotations

from collections.abc import Iterator

from checker.findings import Severity
from checker.model import Result
from checker.model.metrics import metric_source
from checker.model.views import Logged, Measured, Summarised
from checker.parsers.mllog import reads
from checker.registry import Problem, rule
from checker.rounds import Round
from checker.wording import said

from .limits import (
    Violation,
    early_stopping_limit,
    latency_target,
    min_duration_limit,
    min_queries_limit,
    policy_violations,
    samples_per_query_limit,
    token_latencies,
    violations,
)

FLAGS = ("result_min_duration_met", "result_min_queries_met", "result_perf_constraints_met", "early_stopping_met")
# The loadgen keys this family reads (checked to be wanted, so none reads as None unread).
LOADGEN_KEYS = reads(
    *FLAGS,
    "result_validity",
    "effective_performance_sample_count",
    "effective_target_latency_ns",
    "effective_sample_concatenate_permutation",
    "requested_server_ttft_latency",
    "requested_server_tpot_latency",
)


def perf_path(result: Result) -> str:
    return result.file("performance", "detail_log")


def _policy_problems(result: Measured, *keys: str) -> Iterator[Problem]:
    for violation in policy_violations(result):
        if violation.key in keys:
            yield Problem(
                path=perf_path(result),
                pointer=violation.key,
                message=violation.message,
                observed=violation.observed,
                expected=violation.expected,
                severity=Severity.WARNING,
            )


def _problems(result: Result, found: list[Violation]) -> Iterator[Problem]:
    """A limit's violations as its rule's problems."""
    for violation in found:
        yield Problem(
            path=perf_path(result),
            pointer=violation.key,
            message=violation.message,
            observed=violation.observed,
            expected=violation.expected,
        )


@rule("PRF001", "loadgen-result-valid")
def loadgen_result_valid(result: Logged, round: Round) -> Iterator[Problem]:
    """Loadgen judged the performance run VALID, and each of its constraint flags holds.

    Why: loadgen marks a run INVALID when it ran too short, issued too few queries, or missed
    its latency or early-stopping constraint; such a run measures nothing the round accepts.
    The official checker reads `result_validity` but never enforces it.
    Fix: read `result_invalid_reason` or the summary's "Result is" block, fix the cause
    (longer run, lower target QPS, more queries) and run again.
    Policy: MLPerf_Audit_Guidelines.adoc, "Compare results" ("Loadgen returns VALID");
    inference_rules.adoc, "Scenarios".
    Example: `result_validity` VALID passes; INVALID with `result_min_duration_met` false fails twice.
    """
    log = result.performance_log
    path = perf_path(result)
    validity = log.get("result_validity")
    if validity != "VALID":
        yield Problem(
            path=path,
            pointer="result_validity",
            message=f"loadgen judged the run {validity or 'without a verdict (no result_validity)'}",
            observed=validity,
            expected="VALID",
        )
    for flag in FLAGS:
        if log.get(flag) is False:
            yield Problem(path=path, pointer=flag, message=f"{flag} is false", observed=False, expected=True)


@rule("PRF002", "server-latency-within-target")
def server_latency_within_target(result: Measured, round: Round) -> Iterator[Problem]:
    """Server and Interactive runs meet the round's p99 latency target, recomputed from the log.

    Why: the target bounds the latency users see; a checker that trusts the flag, or compares
    only the configured target, accepts a forged or mis-configured run.
    Fix: lower the target QPS until the 99th percentile latency is below the target.
    Policy: inference_rules.adoc, "Scenarios" and the benchmark tables (Server latency
    constraints); loadgen mlperf.conf target_latency.
    Example: resnet Server p99 14 ms passes (15 ms target); 16 ms fails.
    """
    yield from _problems(result, latency_target(result))
    yield from _policy_problems(result, "result_99.00_percentile_latency_ns")
    limits = round.latency(result.model, result.scenario or "")
    target = limits.target_ns if limits else None
    configured = result.performance_log.get("effective_target_latency_ns")
    if target is not None and configured is not None and configured > target:
        yield Problem(
            path=perf_path(result),
            pointer="effective_target_latency_ns",
            message=f"the run was configured for a {configured / 1e6:.3f} ms target, looser than "
            f"the round's {target / 1e6:.3f} ms for {result.scenario}",
            observed=configured,
            expected=target,
        )


@rule("PRF003", "token-latency-within-limits")
def token_latency_within_limits(result: Measured, round: Round) -> Iterator[Problem]:
    """LLM Server and Interactive runs keep TTFT and TPOT p99 below the limits of the folder's scenario.

    Why: loadgen logs an Interactive run as scenario "Server", so a checker that takes the
    scenario from the log holds Interactive runs to the looser Server limits. Here the limits
    come from the folder's scenario.
    Fix: re-run with the Interactive latency targets of the round (the `*-interactive`
    settings of mlperf.conf), at a lower load if needed.
    Policy: inference_rules.adoc, "Benchmarks" (LLM latency constraints); loadgen mlperf.conf.
    Example: llama2-70b Interactive TTFT p99 430 ms passes (450 ms); 1.5 s fails although
    it is below the Server limit of 2 s.
    """
    yield from _problems(result, token_latencies(result))
    yield from _policy_problems(
        result, "result_first_token_99.00_percentile_latency_ns", "result_time_per_output_token_99.00_percentile_ns"
    )
    limits = round.latency(result.model, result.scenario or "")
    log = result.performance_log
    for name, key, limit in (
        ("TTFT", "requested_server_ttft_latency", limits.ttft_ns if limits else None),
        ("TPOT", "requested_server_tpot_latency", limits.tpot_ns if limits else None),
    ):
        configured = log.get(key)
        if limit is not None and configured is not None and configured > limit:
            yield Problem(
                path=perf_path(result),
                pointer=key,
                message=f"the run was configured with a {name} target of {configured / 1e6:.0f} ms, looser "
                f"than the {result.scenario} limit of {limit / 1e6:.0f} ms",
                observed=configured,
                expected=limit,
            )


@rule("PRF004", "flag-contradicts-numbers")
def flag_contradicts_numbers(result: Measured, round: Round) -> Iterator[Problem]:
    """Loadgen's verdict agrees with what its own numbers show.

    Why: a log that says VALID while its numbers break a limit has been edited, or was made by
    a modified loadgen; a log that says INVALID while every recomputed limit holds points at
    a constraint this check cannot see.
    Fix: re-run with an unmodified loadgen and submit its logs untouched.
    Policy: inference_rules.adoc, "LoadGen Operation" (loadgen must not be altered).
    Example: `result_validity` VALID with TTFT p99 above the limit is an error; INVALID with
    every limit met is a note.
    """
    broken = violations(result)
    validity = result.performance_log.get("result_validity")
    path = perf_path(result)
    if validity == "VALID" and broken:
        yield Problem(
            path=path,
            pointer="result_validity",
            message="the log says VALID, but its numbers break the round's limits: "
            + "; ".join(v.message for v in broken),
            observed="VALID",
            expected="INVALID",
        )
    elif validity == "INVALID" and not broken and not result.inferred_from:
        false_flags = [flag for flag in FLAGS if result.performance_log.get(flag) is False]
        yield Problem(
            path=path,
            pointer="result_validity",
            severity=Severity.NOTE,
            message="the log says INVALID while every limit recomputed here holds"
            + (f" (flags false: {', '.join(false_flags)})" if false_flags else ""),
            observed="INVALID",
        )


@rule("PRF005", "min-duration")
def min_duration(result: Measured, round: Round) -> Iterator[Problem]:
    """The run was configured for at least the round's minimum duration.

    Why: short runs hide thermal throttling and warm-up effects; the round fixes 600 s for
    every scenario.
    Fix: do not lower min_duration in user.conf; run for at least the round's minimum.
    Policy: inference_rules.adoc, "Scenarios" (minimum duration); loadgen mlperf.conf min_duration.
    Example: `effective_min_duration_ms` 600000 passes in v6.1; 60000 fails.
    """
    yield from _problems(result, min_duration_limit(result))
    yield from _policy_problems(result, "effective_min_duration_ms")


@rule("PRF006", "min-query-count")
def min_query_count(result: Measured, round: Round) -> Iterator[Problem]:
    """Scenarios without early stopping issue at least the round's minimum number of queries.

    Why: too few queries make the measured rate noisy. Scenarios with early stopping
    (Server, Interactive, SingleStream, MultiStream) are judged by it instead.
    Fix: raise min_query_count or the run length.
    Policy: inference_rules.adoc, "Scenarios"; loadgen mlperf.conf min_query_count.
    Example: an Offline run with 1 query passes (minimum 1).
    """
    yield from _problems(result, min_queries_limit(result))


@rule("PRF007", "offline-samples-per-query")
def offline_samples_per_query(result: Measured, round: Round) -> Iterator[Problem]:
    """A closed Offline run issues one query of at least the round's minimum number of samples.

    Why: the Offline query must be large enough to cover the dataset (24,576 samples, or the
    whole dataset when smaller), so that throughput is not measured on a cached subset.
    Fix: raise offline_expected_qps so that loadgen issues more samples.
    Policy: inference_rules.adoc, "Scenarios" (Offline footnote).
    Example: llama2-70b Offline with 24576 samples passes; 10000 fails.
    """
    yield from _problems(result, samples_per_query_limit(result))
    yield from _policy_problems(result, "effective_samples_per_query")


@rule("PRF008", "performance-sample-count")
def performance_sample_count(result: Measured, round: Round) -> Iterator[Problem]:
    """Loadgen loaded at least the benchmark's performance sample count.

    Why: a smaller working set fits caches the real workload would not.
    Fix: do not lower performance_sample_count_override below the benchmark's value.
    Policy: inference_rules.adoc, "Benchmarks" (QSL size); loadgen mlperf.conf
    performance_sample_count_override.
    Example: resnet with 1024 samples passes; 512 fails.
    """
    required = round.models[result.model].samples.performance
    observed = result.performance_log.get("effective_performance_sample_count")
    if required and isinstance(observed, int) and observed < required:
        yield Problem(
            path=perf_path(result),
            pointer="effective_performance_sample_count",
            message=f"performance sample count {observed} < {required} for {result.model} ({round.name})",
            observed=observed,
            expected=required,
        )
    elif not result.inferred_from:
        yield from _policy_problems(result, "effective_performance_sample_count")


@rule("PRF013", "equal-issue-mode")
def equal_issue_mode(result: Measured, round: Round) -> Iterator[Problem]:
    """Benchmarks whose samples vary in cost run with equal-issue mode on.

    Why: without `sample_concatenate_permutation`, a run can end on a lucky stretch of cheap
    samples; equal-issue mode makes every sample appear equally often.
    Fix: use the loadgen of the round's seed release, whose mlperf.conf sets it.
    Policy: loadgen mlperf.conf sample_concatenate_permutation; new_benchmark_checklist.md
    section 6.
    Example: llama2-70b with `effective_sample_concatenate_permutation` true passes; false fails.
    """
    if not round.models[result.model].equal_issue or result.inferred_from:
        return
    key = "effective_sample_concatenate_permutation"
    value = result.performance_log.get(key)
    if value is not True:
        yield Problem(
            path=perf_path(result),
            pointer="effective_sample_concatenate_permutation",
            message=f"equal-issue mode is off ({key} is {said(value)}); {result.model} requires it"
            if value is not None
            else f"the log has no {key}: equal-issue mode, which {result.model} requires, is not shown to be on",
            observed=value,
            expected=True,
        )


@rule("PRF014", "summary-matches-detail")
def summary_matches_detail(result: Summarised, round: Round) -> Iterator[Problem]:
    """The summary's "Result is" line agrees with the detail log's `result_validity`.

    Why: both files come from the same run; when they disagree, one of them was edited or
    taken from another run.
    Fix: submit the summary and detail log that one run wrote.
    Policy: submission_rules.adoc, "Directory structure" (mlperf_log_summary.txt, mlperf_log_detail.txt).
    Example: summary VALID with detail INVALID fails.
    """
    summary = result.performance_summary.validity
    detail = result.performance_log.get("result_validity")
    if summary != detail:
        said = f"says {detail}" if detail is not None else "has no result_validity"
        yield Problem(
            path=result.file("performance", "summary_log"),
            pointer="Result is",
            message=f"the summary says {summary or 'nothing'}, the detail log {said}",
            observed=summary,
            expected=detail,
        )


@rule("PRF015", "early-stopping-recomputed")
def early_stopping_recomputed(result: Measured, round: Round) -> Iterator[Problem]:
    """A run judged by early stopping issued the queries early stopping needs, recomputed from its counts.

    Why: loadgen accepts a Server run's percentile only when, with t of its queries over the
    target, it issued at least h(t) + t: h(t) is the fewest queries within the target for which
    t or fewer over it would have had less than a 1% chance, were only 99% of all queries
    within it. A SingleStream or MultiStream run needs h(1) + 1 (64 at p90, 662 at p99). A log
    whose `early_stopping_met` says true while its counts fall short was edited. LLM runs
    (`requested_use_token_latencies`) are judged on TTFT and TPOT, whose over-latency counts are
    not logged (`result_overlatency_query_count` counts against a target of 0), so for them only
    the necessary h(0) (459 at p99) is checked.
    Fix: run longer, or at a lower load, until loadgen reports early stopping met, and
    submit its logs untouched.
    Policy: inference_rules.adoc, Appendix "Early Stopping"; loadgen results.cc
    PerformanceSummary::EarlyStopping and early_stopping.cc (confidence and tolerance in the
    round file).
    Example: a p99 Server run with 0 queries over the target passes with 459 queries and
    fails with 458; a p90 SingleStream run passes with 64 and fails with 63.
    """
    for violation in early_stopping_limit(result):  # keyed by the flag for PRF004; the count is what falls short
        yield Problem(
            path=perf_path(result),
            pointer="result_query_count",
            message=violation.message,
            observed=violation.observed,
            expected=violation.expected,
        )


@rule("PRF016", "headline-metric-readable")
def headline_metric_readable(result: Measured, round: Round) -> Iterator[Problem]:
    """The performance log holds the round's headline metric for the result, above zero.

    Why: the metric is what the results table publishes and what comparisons rank; a log
    without it, or with a value of zero, has no result to publish, however valid its flags
    say the run was. A metric that is not a finite number from zero (NaN, Infinity, text) is
    FIL012, its key's declared type (schemas/loadgen_log.schema.json).
    Fix: submit the detail log loadgen wrote for the run, unedited; rerun if the metric is missing.
    Policy: submission_rules.adoc, "Directory structure" (mlperf_log_detail.txt); the round's
    metric per scenario (the round checker's RESULT_FIELD tables).
    Example: `result_samples_per_second` 522.2 passes; 0.0 fails.
    """
    source = metric_source(result)
    if source is None:
        return
    key = source[0]
    value = result.performance_log.get(key)
    if value is None:
        yield Problem(
            path=perf_path(result),
            pointer=key,
            expected=key,
            message=f"the log has no {key}, the headline metric of {result.model} {result.scenario} ({round.name})",
        )
    elif value <= 0:  # typed: a finite number from zero
        yield Problem(
            path=perf_path(result),
            pointer=key,
            observed=value,
            message=f"{key} is {value!r}: the headline metric must be above zero",
        )
