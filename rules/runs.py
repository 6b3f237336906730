"""PRF009-PRF012: which run a detail log holds (its scenario and test mode, the folder's) and
the errors loadgen recorded in it."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts import LoadgenErrors, LogKind
from checker.findings import Severity
from checker.model import Result
from checker.model.metrics import metric
from checker.model.views import LoadgenRun, Logged
from checker.parsers.mllog import LoadgenLog, Record, reads
from checker.parsers.typed import shown as quoted
from checker.registry import Problem, rule
from checker.rounds import Round

from .performance import perf_path

# The loadgen keys this family reads (checked to be wanted, so none reads as None unread).
LOADGEN_KEYS = reads("effective_scenario", "effective_test_mode", "num_errors")


@rule("PRF009", "scenario-matches-folder")
def scenario_matches_folder(result: Logged, round: Round) -> Iterator[Problem]:
    """The performance log's scenario is the folder's, or one the round lets it be inferred from.

    Why: a Server log filed under Offline reports a different metric under the wrong name.
    Interactive folders hold Server runs; edge systems may infer MultiStream and Offline from
    SingleStream or MultiStream runs (PRF010 reports those).
    Fix: move the logs to the folder of the scenario they ran.
    Policy: inference_rules.adoc, "Constraints for the Closed division" (inferred results);
    submission_rules.adoc, "Directory structure".
    Example: an Offline log under Offline/ passes; a Server log under Offline/ fails.
    """
    logged = result.performance_log.scenario
    expected = result.logged_scenario
    if expected is None or logged == expected:
        return
    if round.inference(logged, result.scenario) is None:
        yield Problem(
            path=perf_path(result),
            pointer="effective_scenario",
            message=f"the log ran scenario {logged}, but the folder is {result.scenario_folder}"
            if logged is not None
            else f"the log names no scenario (no effective_scenario); the folder is {result.scenario_folder}",
            observed=logged,
            expected=expected,
        )


@rule("PRF010", "inferred-scenario", severity=Severity.NOTE)
def inferred_scenario(result: Logged, round: Round) -> Iterator[Problem]:
    """Reports a result inferred from another scenario's run, with the inferred metric.

    Why: reviewers and the results table mark inferred results; inference is allowed only on
    the system types the round names (edge), where it is an error elsewhere.
    Fix: on a datacenter system, run the scenario itself instead of inferring it.
    Policy: inference_rules.adoc, "Constraints for the Closed division".
    Example: an Offline folder holding a SingleStream run on an edge system gets a note.
    """
    logged = result.inferred_from
    if logged is None:
        return
    found = metric(result)
    shown = f"{found['value']:.6g} {found['units']}" if found else "not computable from the log"
    system_type, facts = result.system.system_type, round.inferred_scenarios
    this = "this one has no system_type" if system_type is None else f"this one is {quoted(system_type)}"
    applied, written = (facts.system_types, facts.policy_system_types) if facts else ((), ())
    path = perf_path(result)
    if not round.inference_allowed(system_type):
        yield Problem(
            path=path,
            pointer="effective_scenario",
            severity=Severity.ERROR,
            observed=logged,
            expected=result.scenario,
            message=f"{result.scenario} inferred from a {logged} run: {shown}; the round's checker lets only "
            f"{', '.join(applied)} systems infer, and {this}",
        )
    elif not round.inference_allowed(system_type, policy=True):
        yield Problem(
            path=path,
            pointer="effective_scenario",
            severity=Severity.WARNING,
            observed=logged,
            expected=result.scenario,
            message=f"{result.scenario} inferred from a {logged} run: {shown}; the written rules allow "
            f"inference only on {', '.join(written)} systems, and {this} (the round's "
            f"checker allowed it)",
        )
    else:
        yield Problem(
            path=path,
            pointer="effective_scenario",
            observed=logged,
            expected=result.scenario,
            message=f"{result.scenario} inferred from a {logged} run: {shown}",
        )


@rule("PRF011", "test-mode-matches-folder")
def test_mode_matches_folder(result: LoadgenRun, round: Round) -> Iterator[Problem]:
    """`performance/` holds a PerformanceOnly run and `accuracy/` an AccuracyOnly run.

    Why: swapped or mislabelled logs report accuracy from a performance run, or the other way
    round, and neither can be checked.
    Fix: put each run's logs in the folder of its mode.
    Policy: inference_rules.adoc, "LoadGen Operation"; submission_rules.adoc, "Directory structure".
    Example: an AccuracyOnly log under performance/run_1 fails.
    """
    for log, path, mode in (
        (result.performance_log, perf_path(result), "PerformanceOnly"),
        (result.accuracy_log, result.file("accuracy", "detail_log"), "AccuracyOnly"),
    ):
        if log is not None and log.test_mode != mode and log.audit_config is None:  # ACC007 for those
            yield Problem(
                path=path,
                pointer="effective_test_mode",
                message=f"the log ran in mode {log.test_mode}, this folder needs {mode}"
                if log.test_mode is not None
                else f"the log names no test mode (no effective_test_mode); this folder needs {mode}",
                observed=log.test_mode,
                expected=mode,
            )


def all_logs(result: Result) -> Iterator[tuple[str, LoadgenLog, str | None]]:
    """The performance, accuracy and compliance-run detail logs present for a result, each
    with the compliance test it belongs to (None for the performance and accuracy runs)."""
    if result.performance_log is not None:
        yield perf_path(result), result.performance_log, None
    if result.accuracy_log is not None:
        yield result.file("accuracy", "detail_log"), result.accuracy_log, None
    for test, rel, log in result.compliance_runs():
        yield rel, log, test


def _log_kind(result: Result, round: Round, log: LoadgenLog, test: str | None) -> LogKind:
    """Which of the round's loadgen-error severities applies to a log."""
    if test is None:
        return "accuracy" if log is result.accuracy_log else "performance"
    spec = round.compliance_test(test)
    return "compliance" if spec and spec.performance_log else "other_compliance"


def loadgen_errors_of(log: LoadgenLog) -> tuple[int, list[Record]]:
    """(count, flagged records) of the errors loadgen recorded. The count is `num_errors`
    where the log has it (loadgen 5.0.16 on): loadgen counts each error it flags, and some
    6.0.9 compliance logs flag every line while counting none. Older logs: the flagged lines."""
    count = log.get("num_errors")
    if count is not None:
        return count, (log.errors if count > 0 else [])
    return len(log.errors), log.errors


@rule("PRF012", "loadgen-errors")
def loadgen_errors(result: LoadgenRun, round: Round) -> Iterator[Problem]:
    """No loadgen error in the result's detail logs, judged per log as the round's checker judged it.

    Why: loadgen logs an error when the SUT misbehaved (a sample completed twice, queries
    lost) or when it was built from modified sources; the run cannot be trusted. The count
    is loadgen's own `num_errors`, so a log whose lines are all flagged but which counted no
    error has none. The round file says per kind of log what its checker did: errors in
    accuracy logs always failed; from v6.0 errors in performance and compliance logs did not
    (they warn here). Messages a compliance test is expected to log (TEST07 "Max query count
    reached") are not errors. Compliance runs are optional in the open division (a warning).
    Fix: fix the cause the error names and run again; build loadgen from a clean checkout.
    Policy: inference_rules.adoc, "LoadGen Operation"; the round checker's loadgen_errors_check
    (v5.1 find_error_in_detail_log).
    Example: an accuracy log with `error_runtime` "Attempted to complete a sample twice." fails;
    a log with 91 flagged lines and num_errors 0 passes.
    """
    facts = round.loadgen_errors or LoadgenErrors(source="", severity={})
    for path, log, test in all_logs(result):
        count, records = loadgen_errors_of(log)
        if count <= 0:
            continue
        expected = facts.expected.get(test or "", ())
        unexpected = [r for r in records if not any(text in str(r.value) for text in expected)]
        if records and not unexpected and count <= len(records):
            continue  # only what the compliance test logs by design
        kind = _log_kind(result, round, log, test)
        severity = Severity(facts.severity.get(kind, "error"))
        why = facts.why.get(kind, f"not an error in {round.name}")
        if test is not None and result.division not in round.compliance_divisions:
            severity, why = Severity.WARNING, f"compliance runs are optional in the {result.division} division"
        note = "" if severity is Severity.ERROR else f" (a warning: {why})"
        for record in unexpected:
            yield Problem(
                path=path,
                pointer=f"line {record.line}",
                severity=severity,
                message=f"loadgen error {record.key}: {record.value}{note}",
                observed=record.key,
            )
        if count > len(records):
            yield Problem(
                path=path,
                pointer="num_errors",
                severity=severity,
                message=f"loadgen counted {count} errors, {len(records)} of them are in the log{note}",
                observed=count,
                expected=0,
            )
