"""ACC: the accuracy run and the accuracy it reports, held to the round's gates."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts import Gate
from checker.findings import Severity
from checker.model import Result
from checker.model.views import AccuracyRun, KnownAccuracyRun, Reported, Scored
from checker.parsers.mllog import reads
from checker.registry import Problem, rule
from checker.rounds import Round

# The loadgen keys this family reads (checked to be wanted, so none reads as None unread).
LOADGEN_KEYS = reads("effective_accuracy_sample_count", "qsl_reported_total_count")


def _gated(result: Result, round: Round) -> bool:
    return result.division in round.accuracy_divisions


def _acc_path(result: Result) -> str:
    return result.file("accuracy", "accuracy_report")


def _bounds(gate: Gate) -> str:
    parts = []
    if gate.lower_bound is not None:
        parts.append(f"{gate.factor:g} x reference {gate.reference:g} = {gate.lower_bound:.6g}")
    if gate.upper_bound is not None:
        upper = f"{gate.upper_factor:g} x {gate.reference:g} = " if gate.upper_factor else ""
        parts.append(f"at most {upper}{gate.upper_bound:.6g}")
    return "; ".join(parts)


def _misses(gate: Gate, value: float) -> tuple[str, float] | None:
    """(comparison, bound) when a value misses the gate, else None."""
    if gate.lower_bound is not None and value < gate.lower_bound:
        return "<", gate.lower_bound
    if gate.upper_bound is not None and value > gate.upper_bound:
        return ">", gate.upper_bound
    return None


@rule("ACC001", "no-accuracy-values")
def no_accuracy_values(result: Scored, round: Round) -> Iterator[Problem]:
    """accuracy.txt holds a value for at least one of the model's accuracy metrics.

    Why: accuracy.txt is the output of the benchmark's reference accuracy script; the round's
    checker reads each metric with its own pattern (`accuracy_patterns` in the round file),
    and a file none of them reads cannot be held to the accuracy target. In the open
    division the accuracy is only reported (a warning there).
    Fix: run the reference accuracy script on the accuracy run's mlperf_log_accuracy.json and
    save its whole output as accuracy.txt.
    Policy: submission_rules.adoc, "Directory structure" (accuracy.txt); the round checker's ACC_PATTERN.
    Example: `'exact_match': 83.396` passes for gpt-oss-120b; a file holding only the banner fails.
    """
    if result.accuracy_report.empty and round.gates(result.model, result.scenario or ""):
        names = ", ".join(sorted({g.metric for g in round.gates(result.model, result.scenario or "")}))
        yield Problem(
            path=_acc_path(result),
            severity=None if _gated(result, round) else Severity.WARNING,
            message=f"no line of accuracy.txt reads as {names}, the round's patterns for {result.model} ({round.name})",
            expected=names,
        )


@rule("ACC002", "accuracy-within-gate")
def accuracy_within_gate(result: Scored, round: Round) -> Iterator[Problem]:
    """Every accuracy value a closed or network result prints meets its gate (reference x factor, upper bounds).

    Why: closed results must be as accurate as the reference model (99% or 99.9% of it), and
    LLM outputs must stay within the length window, or faster results buy speed with quality.
    As in the round's checker, every line that prints the metric is held to the gate.
    Fix: improve the model's accuracy (less aggressive quantisation) or submit to the open division.
    Policy: inference_rules.adoc, "Benchmarks" (accuracy targets) and "Constraints for the
    Closed division"; the round checker's accuracy-target and accuracy-upper-limit.
    Example: llama2-70b-99 ROUGE1 44.45 passes (>= 0.99 x 44.4312 = 43.9869); 40.00 fails.
    """
    if not _gated(result, round):
        return
    report = result.accuracy_report
    for gate in round.gates(result.model, result.scenario or ""):
        for match in report.found(gate.metric):  # typed: a number from 0 (else FIL012, and no report)
            missed = _misses(gate, match.value)
            if missed:
                sign, bound = missed
                yield Problem(
                    path=_acc_path(result),
                    pointer=f"line {match.line}",
                    line=match.line,
                    column=match.column,
                    message=f"{gate.metric} {match.printed} {sign} {bound:.6g} ({_bounds(gate)}, round {round.name})",
                    observed=match.value,
                    expected=bound,
                )


@rule("ACC003", "accuracy-metric-missing")
def accuracy_metric_missing(result: Scored, round: Round) -> Iterator[Problem]:
    """accuracy.txt prints every metric the round holds to a lower bound for the model.

    Why: a metric that is not printed cannot be checked, and the results table cannot show
    it. A metric with only an upper bound (gpt-oss-120b tokens per sample) is checked only
    where printed, as the round's checker does. In the open division the accuracy achieved
    must still be reported (a warning there).
    Fix: save the complete output of the reference accuracy script; print plain numbers
    (numpy 2 prints `np.int64(27723428)`, which the round's patterns do not read).
    Policy: inference_rules.adoc, "Benchmarks"; "Relaxed constraints for the Open division" (report the accuracy).
    Example: llama2-70b accuracy.txt without `tokens_per_sample` fails.
    """
    report = result.accuracy_report
    if report.empty:
        return  # ACC001
    severity = None if _gated(result, round) else Severity.WARNING
    for gate in round.gates(result.model, result.scenario or ""):
        if gate.factor is not None and not report.found(gate.metric):
            yield Problem(
                path=_acc_path(result),
                pointer=gate.metric,
                severity=severity,
                message=f"{gate.metric} is not in accuracy.txt (no line matches the round's pattern "
                f"for it, {round.name})",
                expected=gate.metric,
            )


@rule("ACC008", "accuracy-below-written-policy", severity=Severity.WARNING)
def accuracy_below_written_policy(result: Scored, round: Round) -> Iterator[Problem]:
    """Where the written policy's accuracy bound is stricter than the one the round applied, a value between the two warns.

    Why: a published result passed the bound its round's checker applied; where the policy
    text states a stricter one (v6.1 DeepSeek-R1: 99% of 81.9132 in the rules, 99% of
    81.3582 in the checker), the result is valid for the round, and the gap is worth a look.
    Both bounds are cited; the round file lists the case under `disagreements`.
    Fix: nothing is required for this round; reach the policy's bound to be safe in the next.
    Policy: the round file's `disagreements`; inference_rules.adoc, "Benchmarks".
    Example: v6.1 deepseek-r1 exact_match 80.63 warns (policy 81.0921, applied 80.5446); 81.2 passes.
    """
    if not _gated(result, round):
        return
    report = result.accuracy_report
    applied = round.gates(result.model, result.scenario or "")
    for gate in round.gates(result.model, result.scenario or "", applied=None):
        policy = gate.policy_bound if gate.applied else gate
        if policy is None:
            continue
        for match in report.found(gate.metric):
            if any(g.metric == gate.metric and _misses(g, match.value) for g in applied):
                continue  # it misses a bound the round applied: ACC002
            missed = _misses(policy, match.value)
            if missed:
                sign, bound = missed
                held = (
                    f"the round applied {_bounds(gate)}, which it meets"
                    if gate.applied
                    else "the round's checker did not apply this bound"
                )
                yield Problem(
                    path=_acc_path(result),
                    pointer=f"line {match.line}",
                    line=match.line,
                    column=match.column,
                    observed=match.value,
                    expected=bound,
                    message=f"{gate.metric} {match.printed} {sign} {bound:.6g}, the written policy's bound "
                    f"({_bounds(policy)}; {policy.source}); {held} ({round.name})",
                )


@rule("ACC004", "accuracy-hash")
def accuracy_hash(result: Reported, round: Round) -> Iterator[Problem]:
    """accuracy.txt ends with the `hash=` line of the full accuracy log.

    Why: the accuracy log is truncated for submission; the hash, written by
    truncate_accuracy_log.py, ties accuracy.txt to the full log an auditor can ask for.
    Fix: `mlperf-check prepare SRC -o DEST` writes the submission with the hash of each full log
    appended, as the round's truncate_accuracy_log.py does; keep the full logs.
    Policy: submission_rules.adoc (mlperf_log_accuracy.json must be truncated); truncate_accuracy_log.py.
    Example: accuracy.txt without a `hash=` line fails.
    """
    if not result.accuracy_report.hash:
        yield Problem(
            path=_acc_path(result),
            message="accuracy.txt has no `hash=` line",
            severity=None if _gated(result, round) else Severity.WARNING,
            hint="mlperf-check prepare SRC -o DEST appends it",
        )


@rule("ACC005", "accuracy-log-truncated")
def accuracy_log_truncated(result: Result, round: Round) -> Iterator[Problem]:
    """mlperf_log_accuracy.json is present and truncated to the round's size limit.

    Why: full accuracy logs can be gigabytes; the submission carries the truncated log and the
    hash of the full one.
    Fix: `mlperf-check prepare SRC -o DEST` writes the submission with its accuracy logs
    truncated as the round's truncate_accuracy_log.py truncates them; keep the full logs.
    Policy: submission_rules.adoc, "Directory structure"; truncate_accuracy_log.py (10 KiB).
    It is judged whether or not the accuracy detail log beside it could be read, so a
    deleted accuracy folder names every file it should hold in one check.
    Example: an 8 KiB accuracy log passes; 20 MiB fails.
    """
    if result.is_endpoints:
        return
    limit = round.run.accuracy_log_max_bytes
    rel = result.file("accuracy", "accuracy_log")
    entry = result.reader.stat(rel, what="accuracy log")
    if entry is not None and limit and entry.size > limit:
        yield Problem(
            path=rel,
            message=f"accuracy log has {entry.size} bytes, more than {limit} (not truncated)",
            observed=entry.size,
            expected=limit,
            hint="mlperf-check prepare SRC -o DEST truncates it",
        )


@rule("ACC006", "accuracy-dataset-covered")
def accuracy_dataset_covered(result: KnownAccuracyRun, round: Round) -> Iterator[Problem]:
    """The accuracy run covered the whole dataset of the benchmark.

    Why: accuracy on a subset says nothing about the model on the validation set; open results
    too must use every sample.
    Fix: run the accuracy mode with the full dataset (no performance_sample_count or QSL
    size override).
    Policy: inference_rules.adoc, "LoadGen Operation" (the whole validation set exactly once);
    "Relaxed constraints for the Open division" (all samples).
    Example: llama2-70b with `qsl_reported_total_count` 24576 passes; 24000 fails.
    """
    expected = round.accuracy_sample_count(result.model, result.scenario or "")
    # The round's checker reads effective_accuracy_sample_count where the log has it (an
    # accuracy_sample_count_override, e.g. gpt-oss-120b's 4395 of 6396), else the QSL's size.
    key = (
        "effective_accuracy_sample_count"
        if "effective_accuracy_sample_count" in result.accuracy_log
        else "qsl_reported_total_count"
    )
    observed = result.accuracy_log.get(key)
    if expected and observed != expected:
        yield Problem(
            path=result.file("accuracy", "detail_log"),
            pointer=key,
            message=f"the accuracy run used {observed} samples; {result.model} has {expected} ({round.name})",
            observed=observed,
            expected=expected,
        )


@rule("ACC007", "accuracy-run-is-not-a-compliance-run")
def accuracy_run_is_not_a_compliance_run(result: AccuracyRun, round: Round) -> Iterator[Problem]:
    """The accuracy log was not written by a run that picked up a compliance `audit.config`.

    Why: loadgen applies an audit.config it finds in the working folder; a log that did so
    is a compliance run (TEST01, TEST06, ...), not the accuracy run of the result.
    Fix: run the accuracy mode without audit.config in the working folder and submit that log.
    Policy: compliance/README.md (audit.config is for compliance runs only); inference_rules.adoc,
    "LoadGen Operation".
    Example: an accuracy log with the warning "Found Audit Config file (audit.config)" fails.
    """
    record = result.accuracy_log.audit_config
    if record is not None:
        yield Problem(
            path=result.file("accuracy", "detail_log"),
            pointer=f"line {record.line}",
            message=f"the accuracy run read an audit.config: {record.value}",
        )
