"""EPT: results written by the MLPerf Endpoints harness (config.yaml, result_summary.json,
accuracy_results.json), held to the same limits as loadgen results."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from checker.facts import EndpointsFacts, Gate
from checker.findings import Severity
from checker.model import Result
from checker.model.views import (
    EndpointsConfigured,
    EndpointsRun,
    EndpointsScored,
    EndpointsTimed,
    KnownEndpointsRun,
)
from checker.registry import Problem, rule
from checker.rounds import Round
from checker.wording import said


def _summary_path(result: Result) -> str:
    return result.endpoints_summary_path or result.endpoints_summary_paths[0]


def _file(result: Result, role: Literal["config", "accuracy", "audit"], **parts: str) -> str:
    """An Endpoints result's file: its round has Endpoints results, since it has this one."""
    return result.endpoints_file(role, **parts) or ""


def _facts(round: Round) -> EndpointsFacts:
    """The round's Endpoints facts: a round without them allows no model."""
    return round.endpoints or EndpointsFacts(source="", allowed_models=(), metric_sets={})


@rule("EPT001", "endpoints-run-1-layout", severity=Severity.WARNING)
def endpoints_run_1_layout(result: EndpointsRun, round: Round) -> Iterator[Problem]:
    """An Endpoints result keeps result_summary.json directly in performance/, not performance/run_1/.

    Why: the agreed layout has no run_1 level for Endpoints results, but the harness's
    publish_submission.py still writes one; both are read, and the variant is flagged so the
    tree converges on one layout.
    Fix: move performance/run_1/* up into performance/.
    Policy: mlcommons/inference#2628 (Endpoints layout) and the review of #2630.
    Example: performance/run_1/result_summary.json gets a warning; performance/result_summary.json passes.
    """
    agreed = result.endpoints_summary_paths[0]
    if _summary_path(result) != agreed:
        yield Problem(
            path=_summary_path(result),
            message="result_summary.json is under performance/run_1/; the Endpoints layout has no run_1 level",
            expected=agreed,
        )


@rule("EPT002", "endpoints-model-allowed")
def endpoints_model_allowed(result: KnownEndpointsRun, round: Round) -> Iterator[Problem]:
    """The benchmark may be run with the Endpoints harness in this round.

    Why: only some models have an Endpoints reference implementation and accuracy scorer in
    the round; others must use loadgen.
    Fix: run the benchmark with loadgen, or submit one of the allowed models.
    Policy: the round's list of Endpoints models (official checker ENDPOINTS_ALLOWED_MODELS).
    Example: llama3.1-8b passes in v6.1; resnet fails.
    """
    allowed = list(_facts(round).allowed_models)
    if result.model not in allowed:
        yield Problem(
            path=_summary_path(result),
            observed=result.model,
            expected=allowed,
            message=f"{result.model} is not an Endpoints model in {round.name} (allowed: {', '.join(allowed)})",
        )


@rule("EPT003", "endpoints-run-complete")
def endpoints_run_complete(result: EndpointsRun, round: Round) -> Iterator[Problem]:
    """The Endpoints run completed: state `complete`, no failed samples, every issued sample completed.

    Why: an interrupted run or failed requests inflate throughput and hide errors, as loadgen
    error lines do for loadgen runs.
    Fix: find why samples failed (server errors, timeouts) and run again.
    Policy: inference_rules.adoc, "LoadGen Operation" (every query answered); Endpoints
    result_summary.json `state`, `complete` and `n_samples_failed`.
    Example: `state` "interrupted" fails; `n_samples_failed` 3 fails.
    """
    summary = result.endpoints_summary
    path = _summary_path(result)
    state, complete = summary.get("state"), summary.get("complete")
    if state != "complete" or complete is not True:
        yield Problem(
            path=path,
            pointer="state",
            observed={"state": state, "complete": complete},
            expected={"state": "complete", "complete": True},
            message=f"the run did not complete: state {said(state)}, complete {said(complete)}",
        )
    failed = summary.get("n_samples_failed")
    if failed:
        yield Problem(
            path=path, pointer="n_samples_failed", observed=failed, expected=0, message=f"{failed:g} samples failed"
        )
    issued, completed = summary.get("n_samples_issued"), summary.get("n_samples_completed")
    if issued is not None and completed is not None and completed < issued:
        yield Problem(
            path=path,
            pointer="n_samples_completed",
            observed=completed,
            expected=issued,
            message=f"{completed:g} of {issued:g} issued samples completed",
        )


@rule("EPT004", "endpoints-latency")
def endpoints_latency(result: KnownEndpointsRun, round: Round) -> Iterator[Problem]:
    """The Endpoints run's p99 latencies are within the limits of the folder's scenario.

    Why: the same latency limits hold whichever harness measured them; Interactive results
    are held to the Interactive TTFT/TPOT limits, not the looser Server ones.
    Fix: lower the load (target QPS) until p99 TTFT/TPOT (or end-to-end latency) meet the limits.
    Policy: inference_rules.adoc, "Benchmarks" (latency constraints per scenario).
    Example: llama3.1-8b Interactive with TTFT p99 0.45 s passes; 0.6 s fails (limit 0.5 s).
    """
    limits = round.latency(result.model, result.scenario or "")
    summary = result.endpoints_summary
    for name, block, limit in (
        ("TTFT", "ttft", limits.ttft_ns if limits else None),
        ("TPOT", "tpot", limits.tpot_ns if limits else None),
        ("latency", "latency", limits.target_ns if limits else None),
    ):
        if limit is None:
            continue
        value, key = summary.p99(block)
        if value is None:
            yield Problem(
                path=_summary_path(result),
                pointer=key,
                expected=limit,
                message=f"result_summary.json has no early-stopping {name} p99 ({key}), which the round's "
                f"checker compares with the limit",
            )
        elif value > limit:
            yield Problem(
                path=_summary_path(result),
                pointer=key,
                observed=value,
                expected=limit,
                message=f"{name} p99 {value / 1e6:.3f} ms > {limit / 1e6:.3f} ms "
                f"({result.scenario} limit of {result.model}, round {round.name})",
            )


@rule("EPT005", "endpoints-duration")
def endpoints_duration(result: EndpointsTimed, round: Round) -> Iterator[Problem]:
    """The Endpoints run was configured for at least the round's minimum duration, and lasted it.

    Why: short runs hide thermal throttling and warm-up effects; the minimum holds for every
    harness. The round's checker judges the configured minimum (config.yaml
    settings.runtime.min_duration_ms, as loadgen's effective_min_duration_ms); a run that
    ended sooner than that (measured duration_ns) warns.
    Fix: raise `settings.runtime.min_duration_ms` in config.yaml to the round's minimum and run again.
    Policy: inference_rules.adoc, "Scenarios" (minimum run duration); the round checker's
    min_duration_check through ENDPOINTS_YAML_FIELD_MAP.
    Example: min_duration_ms 600000 passes in v6.1; 300000 fails; a 590 s run configured for
    600 s warns.
    """
    minimum_ms = round.min_duration_ms(result.model)
    configured = result.endpoints_config.get("settings.runtime.min_duration_ms")
    config = _file(result, "config")
    if configured is None:
        yield Problem(
            path=config,
            pointer="settings.runtime.min_duration_ms",
            expected=minimum_ms,
            message="config.yaml has no settings.runtime.min_duration_ms, which the round's checker reads",
        )
    elif configured < minimum_ms:
        yield Problem(
            path=config,
            pointer="settings.runtime.min_duration_ms",
            observed=configured,
            expected=minimum_ms,
            message=f"the run was configured for {configured / 1e3:g} s, less than {minimum_ms / 1e3:g} s "
            f"({round.name})",
        )
    duration = result.endpoints_summary.get("duration_ns")
    if duration is not None and duration < minimum_ms * 1e6:
        yield Problem(
            path=_summary_path(result),
            pointer="duration_ns",
            observed=duration,
            expected=minimum_ms * 1e6,
            severity=Severity.WARNING,
            message=f"the run lasted {duration / 1e9:.1f} s, less than {minimum_ms / 1e3:g} s ({round.name}); "
            f"a warning: the round's checker judges the configured minimum",
        )


def _gate_value(result: EndpointsScored, gate: Gate, key: str) -> tuple[float | None, str]:
    """A gate's metric (under `key`) from accuracy_results.json, and the pointer of the member
    it was read from (`key` when absent). A model with a single gate may report it as the
    headline score. Fractions are read as percent when the reference is a percentage."""
    report = result.endpoints_accuracy
    value, where = report.where(key, gate.metric)
    if value is None and len([g for g in result.round.gates(result.model, result.scenario or "") if g.key]) == 1:
        value, where = report.headline, None
    if value is not None and 0 <= value <= 1 and gate.reference > 1.5:
        value *= 100
    return value, where or key


@rule("EPT006", "endpoints-accuracy")
def endpoints_accuracy(result: EndpointsScored, round: Round) -> Iterator[Problem]:
    """An Endpoints result reports an accuracy score; the models the round's checker gates meet their gates, and the others' gates warn.

    Why: Endpoints results must be as accurate as loadgen ones. The round's checker requires
    an accuracy score for every Endpoints result, but holds only some models to a target
    (v6.1: qwen3-vl, the first metric of its scenario); for the others the written gates
    (reference x factor, under the names accuracy_results.json gives them) warn.
    Fix: report every metric the round gates (in accuracy_results.json or its breakdown), and
    reach reference x factor; or submit to the open division.
    Policy: inference_rules.adoc, "Benchmarks" (accuracy targets); the round checker's
    accuracy_result_check (Endpoints branch).
    Example: qwen3-vl with f1 0.79 passes (>= 0.99 x 0.7903); 0.77 fails; llama3.1-8b with
    rouge1 40.0 warns.
    """
    path = _file(result, "accuracy")
    report = result.endpoints_accuracy
    if report.score is None:
        yield Problem(
            path=path,
            pointer="accuracy_scores",
            expected="accuracy_scores[].score",
            message="accuracy_results.json holds no accuracy score (accuracy_scores[].score), which the "
            "round's checker requires",
        )
        return
    if result.division not in round.accuracy_divisions:
        return
    gated = result.model in _facts(round).accuracy_gated_models
    for gate in round.gates(result.model, result.scenario or "", applied=None):
        key = gate.key
        if key is None:
            continue  # an accuracy.txt pattern only
        held = gate.applied and gated
        severity = None if held else Severity.WARNING
        why = (
            ""
            if held
            else (
                f"; a warning: the round's checker holds Endpoints results of {result.model} to no accuracy target"
                if gate.applied
                else f"; a warning: {gate.source}"
            )
        )
        value, read = _gate_value(result, gate, key)
        if value is None:
            yield Problem(
                path=path,
                pointer=gate.key,
                expected=gate.key,
                severity=Severity.WARNING if not held else None,
                message=f"{gate.metric} (`{gate.key}`) is not in accuracy_results.json{why}",
            )
            continue
        for bound, stricter in ((gate, False), (gate.policy_bound, True)):
            if bound is None:
                continue
            low, high = bound.lower_bound, bound.upper_bound
            missed = (
                ("<", low)
                if low is not None and value < low
                else (">", high)
                if high is not None and value > high
                else None
            )
            if missed:
                yield Problem(
                    path=path,
                    pointer=read,
                    observed=value,
                    expected=missed[1],
                    severity=Severity.WARNING if stricter else severity,
                    message=f"{gate.metric} {value:.6g} {missed[0]} {missed[1]:.6g} ({bound.factor:g} x "
                    f"reference {bound.reference:g}, round {round.name})"
                    + (f"; a warning: the written policy's bound ({bound.source})" if stricter else why),
                )
                break


@rule("EPT007", "endpoints-seeds")
def endpoints_seeds(result: EndpointsConfigured, round: Round) -> Iterator[Problem]:
    """config.yaml runs the Endpoints harness with the round's sample-index and schedule seeds.

    Why: the seeds decide which samples are issued and when; Endpoints runs carry them as
    dataloader and scheduler seeds.
    Fix: set settings.runtime.dataloader_random_seed and scheduler_random_seed to the round's values.
    Policy: inference_rules.adoc, "Non-determinism is restricted"; official checker
    ENDPOINTS_YAML_FIELD_MAP.
    Example: scheduler_random_seed equal to the round's schedule_rng_seed passes; 42 fails.
    """
    config, seeds = result.endpoints_config, round.seeds.named()
    for seed, key in _facts(round).seed_keys.items():
        expected, observed = seeds.get(seed), config.get(key)
        if expected is not None and observed != expected:
            yield Problem(
                path=_file(result, "config"),
                pointer=key,
                observed=observed,
                expected=expected,
                message=f"{key} is {observed}, the round's {seed} is {expected} ({round.name})",
            )


@rule("EPT008", "endpoints-scenario")
def endpoints_scenario(result: EndpointsConfigured, round: Round) -> Iterator[Problem]:
    """config.yaml's run type is one the round's checker accepts for the scenario folder.

    Why: an online run filed as Offline (or the reverse) is judged by the wrong limits and
    metric. The round's checker takes the scenario from SingleStream and Interactive folders
    and from the run type elsewhere (`online` is Server), and fails a result whose scenario is
    not its folder's: those are errors. A type the written layout does not pair with the
    folder, where the checker took the folder's scenario, warns.
    Fix: move the result to the folder of the scenario it ran, or run the right type.
    Policy: submission_rules.adoc, "Directory structure" (the scenario folder names the
    scenario); the round checker's map_endpoints_scenario and inferred_check.
    Example: `type: offline` under Offline passes; `type: online` under Offline fails;
    `type: offline` under SingleStream warns.
    """
    run_type = result.endpoints_config.scenario_type
    facts = _facts(round)
    path = _file(result, "config")
    if result.scenario in facts.folder_decides:
        if result.scenario not in facts.scenario_types.get(run_type or "", ()):
            yield Problem(
                path=path,
                pointer="type",
                observed=run_type,
                expected=result.scenario,
                severity=Severity.WARNING,
                message=f"config.yaml `type` is {said(run_type)}, which does not run the {result.scenario} "
                f"scenario; a warning: the round's checker takes the scenario from the folder",
            )
        return
    judged = facts.type_scenario.get(run_type or "")
    if judged != result.scenario:
        yield Problem(
            path=path,
            pointer="type",
            observed=run_type,
            expected=result.scenario,
            message=f"config.yaml `type` is {said(run_type)}, which the round's checker reads as "
            f"{judged or 'no scenario'}, not {result.scenario}",
        )


@rule("EPT009", "endpoints-audits")
def endpoints_audits(result: KnownEndpointsRun, round: Round) -> Iterator[Problem]:
    """Each Endpoints audit file present passed, and the ones the round's checker requires are there.

    Why: Endpoints runs are audited like loadgen runs; audit/audit_<name>.json records each
    test's outcome. The round's checker fails a present audit that did not pass, in every
    division, but requires the file itself only where its round file says
    (`endpoints.required_audits`: v6.1 TEST04 for wan-2.2); elsewhere a missing audit of a
    closed result warns, as the written rules require the test.
    Fix: run the harness's audit flow for the missing or failed test.
    Policy: submission_rules.adoc, "Compliance Testing"; the round checker's
    compliance_endpoints_check and ENDPOINTS_COMPLIANCE_MAPPING.
    Example: llama3.1-8b closed without audit/audit_consistency_output_test.json warns; with
    one that says `passed: false` it fails.
    """
    facts = _facts(round)
    for test in round.compliance_tests(result.model):
        name = facts.audits.get(test)
        if name is None:
            continue
        path = _file(result, "audit", test=name)
        if not result.reader.exists(path):
            if result.model in facts.required_audits.get(test, ()):
                yield Problem(
                    path=path, expected=path, message=f"{test} requires {path.rpartition('/')[2]}, which is missing"
                )
            elif result.division in round.compliance_divisions:
                yield Problem(
                    path=path,
                    expected=path,
                    severity=Severity.WARNING,
                    message=f"{test} has no {path.rpartition('/')[2]}; the written rules require the test, "
                    f"the round's checker skips a missing audit of {result.model}",
                )
            continue
        audit = result.reader.json(path, what=f"{test} audit")
        if audit is None:
            continue  # unreadable: the reader's finding says why
        if not isinstance(audit, dict):
            yield Problem(
                path=path,
                observed=type(audit).__name__,
                expected="object",
                message=f"{test} audit {name} is JSON but not an object with `test` and `passed`",
            )
            continue
        if audit.get("test") != name or audit.get("passed") is not True:
            yield Problem(
                path=path,
                pointer="passed",
                observed={"test": audit.get("test"), "passed": audit.get("passed")},
                expected={"test": name, "passed": True},
                message=f"{test} audit {name} did not pass (test {said(audit.get('test'))}, "
                f"passed {said(audit.get('passed'))})",
            )
    bounds = facts.output_tokens.get(result.model)
    if bounds and "TEST09" in round.compliance_tests(result.model):
        mean = result.endpoints_summary.get("output_sequence_lengths.avg")
        low, high = bounds
        if mean is None or not low <= mean <= high:
            yield Problem(
                path=_summary_path(result),
                pointer="output_sequence_lengths.avg",
                observed=mean,
                expected=list(bounds),
                message=f"TEST09: the mean output length is {mean}, outside [{low:g}, {high:g}] tokens "
                f"for {result.model} ({round.name})",
            )


@rule("EPT010", "endpoints-accuracy-samples")
def endpoints_accuracy_samples(result: EndpointsScored, round: Round) -> Iterator[Problem]:
    """The Endpoints accuracy run scored the round's accuracy sample count.

    Why: accuracy on a subset says nothing about the model on the validation set; the round's
    checker sums the accuracy datasets' `total_samples` (else `response_counts.issued`) and
    compares it with the model's count, as it does for loadgen accuracy runs (ACC006).
    Fix: run the accuracy datasets whole (no sample cap in config.yaml).
    Policy: inference_rules.adoc, "LoadGen Operation"; the round checker's dataset_check and
    _endpoint_accuracy_sample_count.
    Example: qwen3.6-27b with total_samples 995 passes; 900 fails.
    """
    expected = round.accuracy_sample_count(result.model, result.scenario or "")
    observed = result.endpoints_accuracy.sample_count
    if expected and observed is not None and observed != expected:
        yield Problem(
            path=_file(result, "accuracy"),
            pointer="accuracy_scores",
            observed=observed,
            expected=expected,
            message=f"the accuracy run scored {observed} samples; {result.model} has {expected} ({round.name})",
        )
