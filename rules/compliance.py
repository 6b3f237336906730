"""CMP: the compliance audits (TEST01, TEST04, TEST06, ...) and what their logs really show."""

from __future__ import annotations

from typing import Iterator

from checker.model import Result
from checker.registry import Problem, declare, rule
from checker.rounds import Round
from checker.tree import join

declare("CMP001", "verify-without-verdict", """A compliance verify file holds neither a TEST PASS/FAIL line nor any check.

Why: the verification scripts end with TEST PASS or TEST FAIL; a file without either was not
written by them.
Fix: run the test's run_verification.py and submit its output.
Policy: mlcommons/inference compliance/TESTxx/README.md.
""")

PASSING_CHECK_VALUES = ("true", "skipped")


def _required(result: Result, round: Round) -> list[str]:
    if result.model is None or result.division not in round.compliance_divisions:
        return []
    return [test for test in round.compliance_tests(result.model) if round.compliance_spec(test)]


@rule("CMP002", "compliance-test-present", needs=("model", "loadgen"))
def compliance_test_present(result: Result, round: Round) -> Iterator[Problem]:
    """Every compliance test the round requires for the model has its folder.

    Why: the audits show that the performance run used the same model as the accuracy run
    (TEST01), did not cache results (TEST04), and produced consistent LLM output (TEST06).
    Fix: run the missing test with its audit.config and copy its output folder.
    Policy: submission_rules.adoc, "Compliance Testing"; the round's models_TEST* lists.
    Example: resnet Offline without TEST04 fails in v6.1.
    """
    for test in _required(result, round):
        folder = result.compliance_dir(test)
        if not result.reader.is_dir(folder):
            yield Problem(path=folder, message=f"{test} is required for {result.model} and its folder is missing",
                          expected=folder)


def _fallback_files(result: Result, test: str, spec: dict) -> list[str]:
    return [join(result.compliance_dir(test), "accuracy", name) for name in spec.get("accuracy_fallback", [])]


@rule("CMP003", "compliance-verdict", needs=("model", "loadgen"))
def compliance_verdict(result: Result, round: Round) -> Iterator[Problem]:
    """Each required compliance test's verify files report a pass.

    Why: the verify files are the outcome of the audit; a TEST FAIL, or a failed TEST06 check,
    makes the result invalid unless the test allows a fallback (TEST01's accuracy comparison,
    CMP004).
    Fix: find why the test failed (a cache, a non-deterministic model, truncated outputs),
    fix it, and run the test again.
    Policy: submission_rules.adoc, "Compliance Testing"; compliance/TESTxx/README.md.
    Example: TEST04 verify_performance.txt with TEST FAIL fails.
    """
    for test in _required(result, round):
        if not result.reader.is_dir(result.compliance_dir(test)):
            continue  # CMP002
        spec = round.compliance_spec(test)
        for kind, name in spec["verify"].items():
            path = join(result.compliance_dir(test), name)
            verdict = result.compliance_verdict(test, kind, name)
            if verdict is None:
                continue
            failed_checks = [check for check in spec.get("checks", [])
                             if verdict.checks.get(check, "").lower() not in PASSING_CHECK_VALUES]
            if verdict.passed is False:
                fallback = _fallback_files(result, test, spec)
                if kind == "accuracy" and fallback and all(result.reader.exists(f) for f in fallback):
                    continue  # CMP004 recomputes the comparison
                yield Problem(path=path, message=f"{test} {name} says TEST FAIL", observed="TEST FAIL",
                              expected="TEST PASS")
            elif verdict.passed is None and spec.get("checks"):
                for check in failed_checks:
                    yield Problem(path=path, pointer=check,
                                  message=f"{test} check `{check}` is {verdict.checks.get(check, 'missing')!r}",
                                  observed=verdict.checks.get(check), expected="True")
            elif verdict.passed is None:
                yield Problem(path=path, message=f"{test} {name} has no TEST PASS line", expected="TEST PASS")


@rule("CMP004", "test01-accuracy-fallback", needs=("model", "loadgen"))
def test01_accuracy_fallback(result: Result, round: Round) -> Iterator[Problem]:
    """When TEST01's output comparison fails, its recomputed accuracy stays within the round's delta.

    Why: a non-deterministic model cannot match its accuracy-mode outputs byte for byte; the
    audit then compares the accuracy computed from the performance-mode outputs
    (compliance_accuracy.txt) with the baseline (baseline_accuracy.txt): at most 1% apart for
    99% models, 0.1% for 99.9% models.
    Fix: make the model deterministic, or find why its performance-mode outputs are less accurate.
    Policy: compliance/TEST01/README.md; the official checker's accuracy-delta-perc.
    Example: whisper baseline 97.76 and compliance 97.76 pass; 97.76 against 95.00 fails.
    """
    spec = round.compliance_spec("TEST01")
    if "TEST01" not in _required(result, round) or not spec or not result.reader.is_dir(result.compliance_dir("TEST01")):
        return  # CMP002 reports the missing folder
    verdict = result.compliance_verdict("TEST01", "accuracy", spec["verify"].get("accuracy", ""))
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
            yield Problem(path=fallback[1] if comp is None else fallback[0], pointer=gate.metric,
                          message=f"{gate.metric} is missing, so TEST01's accuracy cannot be compared")
            continue
        difference = abs(1 - base / comp) * 100 if comp else float("inf")
        if difference > delta:
            yield Problem(path=fallback[1], pointer=gate.metric,
                          message=f"{gate.metric} differs by {difference:.3f}% from the baseline ({comp:.6g} vs "
                                  f"{base:.6g}); at most {delta:g}% is allowed",
                          observed=round_(difference), expected=delta)


def round_(value: float) -> float:
    return float(f"{value:.6g}")


@rule("CMP005", "compliance-performance-recomputed", needs=("performance_log", "model"))
def compliance_performance_recomputed(result: Result, round: Round) -> Iterator[Problem]:
    """TEST01 and TEST04 performance, recomputed from their logs, is within tolerance of the main run.

    verify_performance.txt is not trusted: its TEST PASS is reported beside the recomputed numbers.

    Why: TEST04 issues the same sample again and again; a run more than 10% faster than the
    main run is caching results. TEST01 must perform like the submission run. The official
    checker only greps verify_performance.txt for TEST PASS, which the submitter writes.
    Fix: remove the cache or the difference between the runs, and run the test again.
    Policy: compliance/TEST01/README.md and compliance/TEST04/README.md (10%).
    Example: TEST04 at 1.005 x the main throughput passes; TEST04 at half (or 1.5 x) the main
    throughput fails, and the finding says that verify_performance.txt claimed TEST PASS.
    """
    main = result.metric()
    if main is None or result.inferred_from:
        return
    higher_is_better = not main["units"].startswith("Latency")
    for test in _required(result, round):
        spec = round.compliance_spec(test)
        if not spec.get("performance_log") or not result.reader.is_dir(result.compliance_dir(test)):
            continue
        log = result.compliance_log(test)
        value = log.get(main["key"]) if log is not None else None
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not main["value"]:
            continue
        test_value = value * round.metric(result.model, result.scenario).scale
        ratio = test_value / main["value"]
        speedup = ratio if higher_is_better else 1 / ratio
        tolerance = spec.get("performance_tolerance", round.run.get("compliance_performance_tolerance", 0.1))
        faster_only = spec.get("direction") == "faster"
        bad = speedup > 1 + tolerance or (not faster_only and speedup < 1 - tolerance)
        if not bad:
            continue
        path = join(result.compliance_dir(test), "performance", "run_1", "mlperf_log_detail.txt")
        verdict = result.compliance_verdict(test, "performance", spec["verify"].get("performance", ""))
        claim = " although verify_performance.txt says TEST PASS" if verdict and verdict.passed else ""
        word = "faster" if speedup > 1 else "slower"
        yield Problem(path=path, pointer=main["key"],
                      message=f"{test} ran {abs(speedup - 1) * 100:.1f}% {word} than the main run "
                              f"({test_value:.6g} vs {main['value']:.6g} {main['units']}); the tolerance is "
                              f"{tolerance * 100:g}%{claim}",
                      observed=round_(speedup), expected=1 + tolerance if speedup > 1 else 1 - tolerance)
