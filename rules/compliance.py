"""CMP: the compliance audits (TEST01, TEST04, TEST06, ...) and what their logs really show."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from checker.facts import ComplianceTest, PerformanceCheck, Score
from checker.findings import Severity
from checker.model import Result
from checker.model.views import Known, LoadgenRun, Measured
from checker.parsers.mllog import LoadgenLog, reads
from checker.parsers.text import Summary, parse_summary
from checker.registry import Problem, declare, rule
from checker.rounds import Round
from checker.tree import join
from checker.wording import said

declare(
    "CMP001",
    "verify-without-verdict",
    """A compliance verify file holds neither a TEST PASS/FAIL line nor any check.

Why: the verification scripts end with TEST PASS or TEST FAIL; a file without either was not
written by them.
Fix: run the test's run_verification.py and submit its output.
Policy: mlcommons/inference compliance/TESTxx/README.md.
""",
)

PASSING_CHECK_VALUES = ("true", "skipped")
# The loadgen keys this family reads itself; the round file's `performance_check` names the
# others (metric, same, same_benchmark), which tests/test_mllog_fast.py checks are wanted.
LOADGEN_KEYS = reads("effective_scenario", "result_validity")


def _required(result: Known, round: Round) -> list[tuple[str, ComplianceTest]]:
    """(test, its facts) of each compliance test the round requires of the result."""
    if result.division not in round.compliance_divisions:
        return []
    return [(test, spec) for test in round.compliance_tests(result.model) if (spec := round.compliance_test(test))]


@rule("CMP002", "compliance-test-present")
def compliance_test_present(result: LoadgenRun, round: Round) -> Iterator[Problem]:
    """Every compliance test the round requires for the model has its folder.

    Why: the audits show that the performance run used the same model as the accuracy run
    (TEST01), did not cache results (TEST04), and produced consistent LLM output (TEST06).
    Fix: run the missing test with its audit.config and copy its output folder.
    Policy: submission_rules.adoc, "Compliance Testing"; the round's models_TEST* lists.
    Example: resnet Offline without TEST04 fails in v6.1.
    """
    for test, _ in _required(result, round):
        folder = result.compliance_dir(test)
        if not result.reader.is_dir(folder):
            yield Problem(
                path=folder, message=f"{test} is required for {result.model} and its folder is missing", expected=folder
            )


def _fallback_files(result: Result, test: str, spec: ComplianceTest) -> list[str]:
    return [join(result.compliance_dir(test), "accuracy", name) for name in spec.accuracy_fallback]


@rule("CMP003", "compliance-verdict")
def compliance_verdict(result: LoadgenRun, round: Round) -> Iterator[Problem]:
    """Each required compliance test's verify files report a pass.

    Why: the verify files are the outcome of the audit; a TEST FAIL, or a failed TEST06 check,
    makes the result invalid unless the test allows a fallback (TEST01's accuracy comparison,
    CMP004).
    Fix: find why the test failed (a cache, a non-deterministic model, truncated outputs),
    fix it, and run the test again.
    Policy: submission_rules.adoc, "Compliance Testing"; compliance/TESTxx/README.md.
    Example: TEST04 verify_performance.txt with TEST FAIL fails.
    """
    for test, spec in _required(result, round):
        if not result.reader.is_dir(result.compliance_dir(test)):
            continue  # CMP002
        for kind, name in spec.verify.items():
            path = join(result.compliance_dir(test), name)
            verdict = result.compliance_verdict(test, kind, name)
            if verdict is None:
                continue
            failed_checks = [
                check for check in spec.checks if verdict.checks.get(check, "").lower() not in PASSING_CHECK_VALUES
            ]
            if verdict.passed is False:
                fallback = _fallback_files(result, test, spec)
                if kind == "accuracy" and fallback and all(result.reader.exists(f) for f in fallback):
                    continue  # CMP004 recomputes the comparison
                yield Problem(
                    path=path, message=f"{test} {name} says TEST FAIL", observed="TEST FAIL", expected="TEST PASS"
                )
            elif verdict.passed is None and spec.checks:
                for check in failed_checks:
                    yield Problem(
                        path=path,
                        pointer=check,
                        message=f"{test} check `{check}` is {verdict.checks.get(check, 'missing')!r}",
                        observed=verdict.checks.get(check),
                        expected="True",
                    )
            elif verdict.passed is None:
                yield Problem(path=path, message=f"{test} {name} has no TEST PASS line", expected="TEST PASS")


@rule("CMP004", "test01-accuracy-fallback")
def test01_accuracy_fallback(result: LoadgenRun, round: Round) -> Iterator[Problem]:
    """When TEST01's output comparison fails, its recomputed accuracy stays within the round's delta.

    Why: a non-deterministic model cannot match its accuracy-mode outputs byte for byte; the
    audit then compares the accuracy computed from the performance-mode outputs
    (compliance_accuracy.txt) with the baseline (baseline_accuracy.txt): at most 1% apart for
    99% models, 0.1% for 99.9% models.
    Fix: make the model deterministic, or find why its performance-mode outputs are less accurate.
    Policy: compliance/TEST01/README.md; the official checker's accuracy-delta-perc.
    Example: whisper baseline 97.76 and compliance 97.76 pass; 97.76 against 95.00 fails.
    """
    spec = dict(_required(result, round)).get("TEST01")
    if spec is None or not result.reader.is_dir(result.compliance_dir("TEST01")):
        return  # CMP002 reports the missing folder
    verdict = result.compliance_verdict("TEST01", "accuracy", spec.verify.get("accuracy", ""))
    fallback = _fallback_files(result, "TEST01", spec)
    if verdict is None or verdict.passed is not False or len(fallback) != 2:
        return
    if not all(result.reader.exists(f) for f in fallback):
        return  # CMP003 reports the failed verdict
    baseline = result.read_accuracy(fallback[0], what="TEST01 baseline accuracy")
    compliance = result.read_accuracy(fallback[1], what="TEST01 compliance accuracy")
    if baseline is None or compliance is None:
        return
    for gate in round.gates(result.model, result.scenario or ""):
        base, comp = baseline.get(gate.metric), compliance.get(gate.metric)
        delta = round.test01_delta_percent(result.model, gate)
        if delta is None:
            continue
        if base is None or comp is None:
            yield Problem(
                path=fallback[1] if comp is None else fallback[0],
                pointer=gate.metric,
                message=f"{gate.metric} is missing, so TEST01's accuracy cannot be compared",
            )
            continue
        difference = abs(1 - base / comp) * 100 if comp else float("inf")
        read = compliance.last(gate.metric)  # the match `get` read: its line and column
        if difference > delta:
            yield Problem(
                path=fallback[1],
                pointer=gate.metric,
                line=read.line if read else None,
                column=read.column if read else None,
                message=f"{gate.metric} differs by {difference:.3f}% from the baseline ({comp:.6g} vs "
                f"{base:.6g}); at most {delta:g}% is allowed",
                observed=round_(difference),
                expected=delta,
            )


def round_(value: float) -> float:
    return float(f"{value:.6g}")


def _times(ratio: float) -> str:
    """A ratio as people read it: 1.0988 x, 0.5 x, 11523 x."""
    return f"{ratio:.4g} x" if ratio < 1000 else f"{ratio:,.0f} x"


Run = LoadgenLog | Summary  # what a verify script reads of a run: its detail log or its summary


def _summary_field(summary: Summary, spec: Score) -> str | None:
    """The last of the spec's summary lines the summary prints, in its own spelling."""
    return next((name for name in reversed(list(summary.values)) if name in spec.fields), None)


def _summary_score(summary: Summary, spec: Score) -> float | None:
    """The value of that line, typed (a finite number from 0)."""
    name = _summary_field(summary, spec)
    value: float | None = summary.get(name) if name is not None else None
    return value


def _scored(run: Run, spec: Score) -> str:
    """What a score finding points at: the detail-log key, or the summary line as the run's
    summary spells it (90th or 90.0th)."""
    found = _summary_field(run, spec) if isinstance(run, Summary) else None
    return spec.key or found or spec.fields[0]


def _score(source: Run, spec: Score) -> float | None:
    """A verify script's score of one run: a detail-log key, or a summary line (each typed:
    a finite number from 0, or None), inverted where the script inverts latencies."""
    value = source.get(spec.key or "") if isinstance(source, LoadgenLog) else _summary_score(source, spec)
    if value is not None and spec.invert:
        value = spec.invert / value if value else None
    return value


def _scenario_and_validity(source: Run) -> tuple[str | None, str | None]:
    if isinstance(source, LoadgenLog):
        return source.get("effective_scenario"), source.get("result_validity")
    return source.scenario, source.validity


def _runs(result: Measured, test: str, check: PerformanceCheck) -> tuple[Run | None, Run | None]:
    """(main, compliance) inputs of a verify script: detail logs or summaries."""
    if check.reads == "detail":
        return result.performance_log, result.compliance_log(test)
    rel = result.compliance_file(test, "summary_log")
    return result.performance_summary, result.reader.parsed(rel, parse_summary, what=f"{test} performance summary")


def _other_benchmark(result: Measured, test: str, check: PerformanceCheck) -> str | None:
    """Why the compliance run is another benchmark's run, when its logs say so."""
    log, main = result.compliance_log(test), result.performance_log
    if log is None:
        return None
    for key in check.same_benchmark:
        if key in log and key in main and log.get(key) != main.get(key):
            return f"its {key} is {log.get(key)}, the main run's {main.get(key)}"
    return None


def _scores(check: PerformanceCheck, scenario: str | None, main: Run, run: Run) -> tuple[Score, float, float] | None:
    """(how the verify script scores the scenario, the main run's score, the compliance
    run's), or None when one is missing or the main run's is not above 0."""
    metric = check.metric.get(scenario or "")
    ref, value = (_score(main, metric), _score(run, metric)) if metric else (None, None)
    if metric is None or ref is None or value is None or ref <= 0:
        return None
    return metric, ref, value


def _claimed(
    result: Measured, test: str, spec: ComplianceTest, check: PerformanceCheck
) -> tuple[str, Severity | None, str]:
    """What verify_performance.txt claimed, as a finding says it: (the claim, the severity of
    a failed comparison, a note). A TEST PASS made from another benchmark's logs was
    accepted by the round, so failing the comparison then only warns."""
    verdict = result.compliance_verdict(test, "performance", spec.verify.get("performance", ""))
    passed, other = bool(verdict and verdict.passed), _other_benchmark(result, test, check)
    if not (passed and other):
        return (" although verify_performance.txt says TEST PASS" if passed else ""), None, ""
    note = (
        f"; the {test} logs are another benchmark's run ({other}), so verify_performance.txt compared "
        f"other logs, and the round accepted it on its TEST PASS line"
    )
    return " although verify_performance.txt says TEST PASS", Severity.WARNING, note


def _judge(check: PerformanceCheck, scenario: str, ref: float, test: float) -> tuple[bool, float, str]:
    """(passes, threshold, rule) of a verify script's comparison; `rule` says what passes."""
    threshold, why = check.threshold, ""
    relaxed = check.relaxed
    if relaxed and scenario in relaxed.at_most and ref <= relaxed.at_most[scenario]:
        threshold = relaxed.threshold
        why = f", relaxed because the reference score {ref:.6g} <= {relaxed.at_most[scenario]:g}"
    if check.passes == "within":
        rule = f"scores within {threshold * 100:g}% of the main run's either way{why}"
        return ref * (1 - threshold) <= test <= ref * (1 + threshold), threshold, rule
    rule = f"scores less than {threshold * 100:g}% above the main run's{why}"
    return test < ref * (1 + threshold), threshold, rule


@rule("CMP005", "compliance-performance-recomputed")
def compliance_performance_recomputed(result: Measured, round: Round) -> Iterator[Problem]:
    """TEST01 and TEST04 performance, recomputed exactly as the round's verify scripts define it, passes.

    verify_performance.txt is not trusted: the comparison is made again from the logs, with
    the script's score per scenario, threshold and pass rule (the round file's
    `performance_check`). TEST01 is two-sided (within 10%, 20% for short latencies); TEST04
    is one-sided: only a faster TEST04 fails, and a slower one passes. Where the script
    passes what its own intent forbids (TEST04 inverts latencies before its 20% relaxation,
    so every SingleStream/MultiStream run gets 20%), or where the compliance logs are
    another benchmark's run (verify_performance.txt made from other logs, which the round
    accepted on its TEST PASS line), this warns and says why.
    Why: TEST04 issues the same sample again and again; a run much faster than the main run
    is caching results. TEST01 must perform like the submission run. The official checker
    only greps verify_performance.txt for TEST PASS, which the submitter writes.
    Fix: remove the cache or the difference between the runs, run the test again, and run
    its run_verification.py on this result's own logs.
    Policy: compliance/TEST01 and TEST04 README.md and verify_performance.py.
    Example: TEST04 Offline at 1.05 x the main throughput passes; at 1.15 x it fails, and the
    finding says whether verify_performance.txt claimed TEST PASS; TEST04 37% slower passes.
    """
    for test, spec in _required(result, round):
        check = spec.performance_check
        if check and result.reader.is_dir(result.compliance_dir(test)):
            yield from _recomputed(result, round, test, spec, check)


def _recomputed(
    result: Measured, round: Round, test: str, spec: ComplianceTest, check: PerformanceCheck
) -> Iterator[Problem]:
    """CMP005 for one compliance test: its verify script's comparison, made again."""
    main, run = _runs(result, test, check)
    if main is None or run is None:
        return  # unreadable or missing: FIL and CMP002 say why
    path = result.compliance_file(test, "detail_log" if check.reads == "detail" else "summary_log")
    claim, accepted, note = _claimed(result, test, spec, check)
    (main_scenario, main_validity), (scenario, validity) = _scenario_and_validity(main), _scenario_and_validity(run)
    if main_scenario is None:
        return  # the main run's log names no scenario: PRF009 says so
    if scenario != main_scenario:
        yield Problem(
            path=path,
            pointer="effective_scenario",
            observed=scenario,
            expected=main_scenario,
            severity=accepted,
            message=f"{test} ran {scenario or 'no scenario it names'}, the main run {main_scenario}: its verify "
            f"script fails that{claim}{note}",
        )
        return
    if main_validity != "VALID":
        return  # PRF001 reports the main run; the comparison has nothing valid to compare with
    if validity != "VALID":
        yield Problem(
            path=path,
            pointer="result_validity",
            observed=validity,
            expected="VALID",
            severity=accepted,
            message=f"{test} ran {validity or 'without a verdict'}, not VALID: its verify script fails "
            f"that{claim}{note}",
        )
        return
    scores = _scores(check, scenario, main, run)
    if scores is None:
        return  # no score to compare: the log rules report the missing keys
    metric, ref, value = scores
    for key in check.same.get(scenario or "", ()):
        if run.get(key) != main.get(key) and main.get(key) is not None:  # the main log's missing keys: PRF
            yield Problem(
                path=path,
                pointer=key,
                observed=run.get(key),
                expected=main.get(key),
                severity=accepted,
                message=f"{test} ran with {key} {said(run.get(key))}, the main run with {said(main.get(key))}: its "
                f"verify script fails that{claim}{note}",
            )
    passes, threshold, why = _judge(check, scenario or "", ref, value)
    ratio = value / ref
    if not passes:
        yield Problem(
            path=path,
            pointer=_scored(run, metric),
            severity=accepted,
            observed=round_(ratio),
            expected=threshold,
            message=f"{test} score {value:.6g} is {_times(ratio)} the main run's {ref:.6g}; its verify "
            f"script passes only {why} ({round.name}){claim}{note}",
        )
    elif check.intended and threshold > check.intended.threshold:
        intended = replace(check, threshold=check.intended.threshold, relaxed=None)
        if not _judge(intended, scenario or "", ref, value)[0]:
            yield Problem(
                path=path,
                pointer=_scored(run, metric),
                severity=Severity.WARNING,
                observed=round_(ratio),
                expected=check.intended.threshold,
                message=f"{test} score {value:.6g} is {_times(ratio)} the main run's {ref:.6g}: the "
                f"verify script passes it (it passes {why}), but the test's intent is at most "
                f"{check.intended.threshold * 100:g}% ({check.intended.source})",
            )
