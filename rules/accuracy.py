"""ACC: the accuracy run and the accuracy it reports, held to the round's gates."""

from __future__ import annotations

from typing import Iterator

from checker.findings import Severity
from checker.model import Result
from checker.registry import Problem, declare, rule
from checker.rounds import Gate, Round
from checker.tree import join

declare("ACC001", "no-accuracy-values", """accuracy.txt holds no accuracy values.

Why: accuracy.txt is the output of the benchmark's reference accuracy script; without its
numbers the result cannot be held to the accuracy target.
Fix: run the reference accuracy script on the accuracy run's mlperf_log_accuracy.json and save
its whole output as accuracy.txt.
Policy: submission_rules.adoc, "Directory structure" (accuracy.txt); inference_rules.adoc, "Benchmarks".
""")

GATED_DIVISIONS = ("closed", "network")


def _acc_path(result: Result) -> str:
    return result.path("accuracy", "accuracy.txt")


def _bounds(gate: Gate) -> str:
    parts = []
    if gate.lower_bound is not None:
        parts.append(f"{gate.factor:g} x reference {gate.reference:g} = {gate.lower_bound:.6g}")
    if gate.upper_bound is not None:
        upper = f"{gate.upper_factor:g} x {gate.reference:g} = " if gate.upper_factor else ""
        parts.append(f"at most {upper}{gate.upper_bound:.6g}")
    return "; ".join(parts)


@rule("ACC002", "accuracy-within-gate", needs=("accuracy_report", "model"))
def accuracy_within_gate(result: Result, round: Round) -> Iterator[Problem]:
    """Every accuracy metric of a closed or network result meets its gate (reference x factor, upper bounds).

    Why: closed results must be as accurate as the reference model (99% or 99.9% of it), and
    LLM outputs must stay within the length window, or faster results buy speed with quality.
    Fix: improve the model's accuracy (less aggressive quantisation) or submit to the open division.
    Policy: inference_rules.adoc, "Benchmarks" (accuracy targets) and "Constraints for the Closed division".
    Example: llama2-70b-99 ROUGE1 44.45 passes (>= 0.99 x 44.4312 = 43.9869); 40.00 fails.
    """
    if result.division not in GATED_DIVISIONS:
        return
    report = result.accuracy_report
    for gate in round.gates(result.model, result.scenario or ""):
        value = report.get(gate.key)
        if value is None:
            continue  # ACC003 reports the missing metric
        low, high = gate.lower_bound, gate.upper_bound
        if low is not None and value < low:
            yield Problem(path=_acc_path(result), pointer=gate.key,
                          message=f"{gate.metric} {value:.6g} < {low:.6g} ({_bounds(gate)}, round {round.name})",
                          observed=value, expected=low)
        if high is not None and value > high:
            yield Problem(path=_acc_path(result), pointer=gate.key,
                          message=f"{gate.metric} {value:.6g} > {high:.6g} ({_bounds(gate)}, round {round.name})",
                          observed=value, expected=high)


@rule("ACC003", "accuracy-metric-missing", needs=("accuracy_report", "model"))
def accuracy_metric_missing(result: Result, round: Round) -> Iterator[Problem]:
    """accuracy.txt reports every metric the round gates for the model.

    Why: a metric that is not printed cannot be checked, and the results table cannot show
    it. In the open division the accuracy achieved must still be reported (a warning there).
    Fix: save the complete output of the reference accuracy script.
    Policy: inference_rules.adoc, "Benchmarks"; "Relaxed constraints for the Open division" (report the accuracy).
    Example: llama2-70b accuracy.txt without `tokens_per_sample` fails.
    """
    report = result.accuracy_report
    severity = None if result.division in GATED_DIVISIONS else Severity.WARNING
    for gate in round.gates(result.model, result.scenario or ""):
        if report.get(gate.key) is None:
            yield Problem(path=_acc_path(result), pointer=gate.key, severity=severity,
                          message=f"{gate.metric} (printed as `{gate.key}`) is not in accuracy.txt",
                          expected=gate.key)


@rule("ACC004", "accuracy-hash", needs=("accuracy_report",))
def accuracy_hash(result: Result, round: Round) -> Iterator[Problem]:
    """accuracy.txt ends with the `hash=` line of the full accuracy log.

    Why: the accuracy log is truncated for submission; the hash, written by
    truncate_accuracy_log.py, ties accuracy.txt to the full log an auditor can ask for.
    Fix: run tools/submission/truncate_accuracy_log.py on the submission.
    Policy: submission_rules.adoc (mlperf_log_accuracy.json must be truncated); truncate_accuracy_log.py.
    Example: accuracy.txt without a `hash=` line fails.
    """
    if not result.accuracy_report.hash:
        yield Problem(path=_acc_path(result), message="accuracy.txt has no `hash=` line",
                      hint="run truncate_accuracy_log.py")


@rule("ACC005", "accuracy-log-truncated", needs=("accuracy_log",))
def accuracy_log_truncated(result: Result, round: Round) -> Iterator[Problem]:
    """mlperf_log_accuracy.json is present and truncated to the round's size limit.

    Why: full accuracy logs can be gigabytes; the submission carries the truncated log and the
    hash of the full one.
    Fix: run tools/submission/truncate_accuracy_log.py on the submission.
    Policy: submission_rules.adoc, "Directory structure"; truncate_accuracy_log.py (10 KiB).
    Example: an 8 KiB accuracy log passes; 20 MiB fails.
    """
    limit = round.run.get("accuracy_log_max_bytes")
    rel = result.path("accuracy", "mlperf_log_accuracy.json")
    entry = result.reader.stat(rel, what="accuracy log")
    if entry is not None and limit and entry.size > limit:
        yield Problem(path=rel, message=f"accuracy log has {entry.size} bytes, more than {limit} (not truncated)",
                      observed=entry.size, expected=limit, hint="run truncate_accuracy_log.py")


@rule("ACC006", "accuracy-dataset-covered", needs=("accuracy_log", "model"))
def accuracy_dataset_covered(result: Result, round: Round) -> Iterator[Problem]:
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
    observed = result.accuracy_log.get("qsl_reported_total_count")
    if expected and observed != expected:
        yield Problem(path=result.path("accuracy", "mlperf_log_detail.txt"), pointer="qsl_reported_total_count",
                      message=f"the accuracy run used {observed} samples; {result.model} has {expected} ({round.name})",
                      observed=observed, expected=expected)


@rule("ACC007", "accuracy-run-is-not-a-compliance-run", needs=("accuracy_log",))
def accuracy_run_is_not_a_compliance_run(result: Result, round: Round) -> Iterator[Problem]:
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
        yield Problem(path=result.path("accuracy", "mlperf_log_detail.txt"), pointer=f"line {record.line}",
                      message=f"the accuracy run read an audit.config: {record.value}")
