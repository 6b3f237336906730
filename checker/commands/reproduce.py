"""Is one result a reproduction of another? And re-running a result to find out.

`reproduce` checks the reproduction itself, then that it ran the same benchmark, scenario
and round settings (seeds, sample counts, latency targets) as the original, then compares
the performance metric and every accuracy metric. The audit rule decides: more than 2%
worse is materially different. A reproduction whose performance logs are byte-identical to
the original's is not a reproduction at all: the logs were copied, nothing ran.

`rerun` copies the result into a work folder outside the original tree first, then runs a
harness there (with a time limit), then calls `reproduce`. The original is never written."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..analysis import table as published
from ..engine import check
from ..escaping import text_lines
from ..facts import FileRole
from ..model import Result, Submission, System
from ..model.metrics import metric
from ..output import Plan, copy_file, copy_tree, held
from ..reporters import Formats, as_json, as_text
from ..rounds import Round
from ..scope import Scope
from ..settings import Invocation, UsageError, fraction, round_file
from ..tree import FileChanged, Kind, Tree
from ..workspace import locate_result
from . import TIMEOUT, common

# Loadgen settings that must match between an original and its reproduction.
SETTINGS = (
    "effective_scenario",
    "effective_qsl_rng_seed",
    "effective_sample_index_rng_seed",
    "effective_schedule_rng_seed",
    "effective_performance_sample_count",
    "effective_target_latency_ns",
    "effective_target_latency_percentile",
    "requested_server_ttft_latency",
    "requested_server_tpot_latency",
    "effective_sample_concatenate_permutation",
)


# Loadgen writes these on every run, with time stamps: a new run never writes the same bytes
# (roles in the round's layout `files`).
PERFORMANCE_LOGS: tuple[FileRole, ...] = ("detail_log", "summary_log")


class ResultPathError(UsageError):
    pass


class WorkdirError(UsageError):
    """A work folder rerun must not use."""


class CommandTimeout(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"the command ran longer than --timeout {seconds:g} s; its whole process group was killed")
        self.seconds = seconds


def result_root(path: str, round: Round) -> tuple[str, str]:
    """(checked root, result location) of a result folder (workspace.locate_result), or a
    ResultPathError."""
    found = locate_result(path, round.divisions, round.results_root)
    if found is not None:
        return found
    raise ResultPathError(
        f"{path} is not a result folder (.../<division>/<submitter>/"
        f"{round.results_root}/<system>/<benchmark>/<scenario>)"
    )


def result_at(root: str, location: str, round: Round) -> Result:
    division, submitter, _, system, benchmark, scenario = location.split("/")
    return Result(System(Submission(Tree(root), round, division, submitter), system), benchmark, scenario)


@dataclass
class Reproduction:
    original: str
    reproduction: str
    deviation: float | None
    accuracy_deltas: dict[str, dict[str, Any]]
    within_tolerance: bool
    mismatched_settings: list[dict[str, Any]]
    tolerance: float = 0.0
    original_metric: dict[str, Any] | None = None
    reproduction_metric: dict[str, Any] | None = None
    reproduction_valid: bool = True
    reproduction_errors: list[str] = field(default_factory=list)
    identical_logs: list[str] = field(default_factory=list)  # byte-identical to the original's: copied

    @property
    def failed(self) -> bool:
        return (
            not self.within_tolerance
            or bool(self.mismatched_settings)
            or not self.reproduction_valid
            or bool(self.identical_logs)
        )


def identical_logs(a: Result, b: Result) -> list[str]:
    """The performance logs of `b` that are byte-identical to those of `a` (paths relative to
    the result folder): loadgen time-stamps every run, so these were copied, not re-run."""
    found = []
    for role in PERFORMANCE_LOGS:
        rel_a, rel_b = a.file("performance", role), b.file("performance", role)
        if rel_a is not None and rel_b is not None and _same_content(a.tree, rel_a, b.tree, rel_b):
            found.append(os.path.relpath(rel_b, b.location).replace(os.sep, "/"))
    return found


def _same_content(tree_a: Tree, rel_a: str, tree_b: Tree, rel_b: str) -> bool:
    """Whether two files of checked trees hold the same bytes, each opened the one safe way
    (Tree.open: no symlink out of its tree, no FIFO, only the file judged). A file that is
    missing, not a regular file inside its tree, or unreadable is not compared: that is the
    reproduction check's finding."""
    left, right = tree_a.entry(rel_a), tree_b.entry(rel_b)
    if left.kind is not Kind.FILE or right.kind is not Kind.FILE or left.size != right.size:
        return False
    try:
        with (
            os.fdopen(tree_a.open(left), "rb", buffering=0) as one,
            os.fdopen(tree_b.open(right), "rb", buffering=0) as other,
        ):
            while True:
                block = one.read(1 << 20)
                if block != other.read(1 << 20):
                    return False
                if not block:
                    return True
    except (FileChanged, OSError):
        return False


def reproduce(original: str, reproduction: str, rules: Round, tolerance: float | None = None) -> Reproduction:
    """Check the reproduction and compare it with the original: settings, accuracy, and the
    headline metric against `tolerance` (default: the round's audit threshold)."""
    tolerance = rules.audit.tolerance if tolerance is None else tolerance
    root_a, where_a = result_root(original, rules)
    root_b, where_b = result_root(reproduction, rules)
    # One result is judged, not its benchmark's set of scenarios (STR003).
    report = check(
        root_b,
        rules,
        ignore=["STR003"],
        jobs=1,
        scope=Scope(results=frozenset({where_b})),
    )
    checked = [r for r in report.results if r.location == where_b]
    errors = [
        f"{f.code} {f.path}: {f.message}"
        for f in report.findings
        if f.severity.value == "error" and not f.waived and f.location in ("", where_b)
    ]
    a, b = result_at(root_a, where_a, rules), result_at(root_b, where_b, rules)
    mismatched = []
    for what, model_a, model_b in (("model", a.model, b.model), ("scenario", a.scenario, b.scenario)):
        if model_a != model_b:
            mismatched.append({"setting": what, "original": model_a, "reproduction": model_b})
    log_a, log_b = a.performance_log, b.performance_log
    if log_a is not None and log_b is not None:
        for key in SETTINGS:  # a value not of its declared type (FIL012, in the errors) compares as None
            left, right = (None if key in log.malformed else log.get(key) for log in (log_a, log_b))
            if left != right:
                mismatched.append({"setting": key, "original": left, "reproduction": right})
    metric_a, metric_b = metric(a), metric(b)
    deviation = None
    if metric_a and metric_b and metric_a["units"] == metric_b["units"] and metric_a["value"]:
        # The reproduction against the original as compare measures a partner against its reference.
        deviation = round(
            float(published.deviation(metric_b["value"], metric_a["value"], metric_a["units"].startswith("Latency"))), 6
        )
    deltas = {}
    report_a, report_b = a.accuracy_report, b.accuracy_report
    if report_a is not None and report_b is not None and a.model:
        for gate in rules.gates(a.model, a.scenario or ""):
            left, right = report_a.get(gate.metric), report_b.get(gate.metric)
            if left is not None and right is not None:
                deltas[gate.metric] = {
                    "original": left,
                    "reproduction": right,
                    "delta": round(right - left, 6),
                    "relative": round((right - left) / left, 6) if left else None,
                }
    return Reproduction(
        original=where_a,
        reproduction=where_b,
        deviation=deviation,
        accuracy_deltas=deltas,
        within_tolerance=deviation is not None and deviation >= -tolerance,
        mismatched_settings=mismatched,
        tolerance=tolerance,
        original_metric=metric_a,
        reproduction_metric=metric_b,
        reproduction_valid=bool(checked and checked[0].valid),
        reproduction_errors=errors,
        identical_logs=identical_logs(a, b),
    )


def document(result: Reproduction) -> dict[str, Any]:
    """The reproduction as its JSON names it (reporters.as_json writes it)."""
    return asdict(result)


def to_text(result: Reproduction) -> str:
    lines = [f"original:     {result.original}", f"reproduction: {result.reproduction}"]
    lines.append("reproduction check: " + ("valid" if result.reproduction_valid else "INVALID"))
    lines += [f"  {e}" for e in result.reproduction_errors]
    for m in result.mismatched_settings:
        lines.append(f"setting differs: {m['setting']}: {m['original']!r} -> {m['reproduction']!r}")
    a, b = result.original_metric, result.reproduction_metric
    if result.deviation is None or a is None or b is None:
        lines.append("performance: not comparable (a metric is missing or the units differ)")
    else:
        lines.append(
            f"performance: {a['value']:.6g} -> {b['value']:.6g} {a['units']} ({result.deviation:+.2%}, "
            f"positive is better)"
        )
    for name, d in result.accuracy_deltas.items():
        lines.append(f"accuracy {name}: {d['original']:.6g} -> {d['reproduction']:.6g} ({d['delta']:+.6g})")
    if result.identical_logs:
        lines.append(
            f"verdict: not a reproduction: {', '.join(result.identical_logs)} "
            f"{'is' if len(result.identical_logs) == 1 else 'are'} byte-identical to the original's "
            "(copied logs, not a new run)"
        )
        return text_lines(lines)
    verdict = "within tolerance" if result.within_tolerance else "materially different"
    lines.append(
        f"verdict: {verdict} (more than {result.tolerance:.0%} worse is materially different)"
        + ("; settings differ" if result.mismatched_settings else "")
    )
    return text_lines(lines)


# --- rerun -------------------------------------------------------------------------------------
def check_workdir(original: str, round: Round, workdir: str) -> None:
    """Raises WorkdirError unless `workdir` is outside the original's tree (symlinks
    resolved: not the tree, not inside it, not holding it) and new or empty."""
    if workdir == "":
        raise WorkdirError("--workdir '': an empty path (an unset variable?); give a new or empty folder")
    root, _ = result_root(original, round)
    tree, work = os.path.realpath(root), os.path.realpath(workdir)
    common = os.path.commonpath([tree, work])
    relation = "is" if work == tree else "is inside" if common == tree else "holds" if common == work else None
    if relation:
        raise WorkdirError(
            f"--workdir {workdir} {relation} the original's tree {root}; give a folder outside it "
            "(rerun never writes into the original)"
        )
    if os.path.lexists(workdir) and (not os.path.isdir(workdir) or os.listdir(workdir)):
        raise WorkdirError(
            f"--workdir {workdir} is not an empty folder; give a new or empty one "
            "(rerun never overwrites or deletes files)"
        )


def prepare_copy(original: str, round: Round, workdir: str) -> str:
    """A private copy of the original result (and its system description) to re-run into,
    made before anything runs; the original stays untouched. Returns the copy's result
    folder. Raises WorkdirError for a work folder `check_workdir` refuses."""
    check_workdir(original, round, workdir)
    root, location = result_root(original, round)
    division, submitter, _, system, _, _ = location.split("/")
    target = Path(workdir)
    (target / division / submitter / "systems").mkdir(parents=True)
    description = Path(root, division, submitter, "systems", f"{system}.json")
    if description.is_file():
        copy_file(str(description), str(target / division / submitter / "systems" / f"{system}.json"))
    copy = target / location
    inside = os.path.realpath(root)
    copy_tree(str(Path(root, location)), str(copy), ignore=_links_out(inside))
    for folder in ("src", "code", "documentation"):
        source = Path(root, division, submitter, folder)
        if source.is_dir():
            copy_tree(str(source), str(target / division / submitter / folder), ignore=_links_out(inside))
    return str(copy)


def _links_out(root: str) -> Callable[[str, list[str]], set[str]]:
    """For copytree: leave out links that leave the original's tree or point nowhere, so the
    copy holds neither files from elsewhere nor links a harness could write through."""
    tree = Tree(root)

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {
            name
            for name in names
            if os.path.islink(path := os.path.join(folder, name)) and tree.astray(path) is not None
        }

    return ignore


def rerun_builtin(copy: str, round: Round, step: Callable[[str], None]) -> None:
    """Run the built-in harness (real loadgen, the numpy demo model) into the copy."""
    from . import harness

    root, location = result_root(copy, round)
    result = result_at(root, location, round)
    if result.benchmark != harness.MODEL or result.scenario not in ("Offline", "SingleStream"):
        raise UsageError(
            f"--builtin re-runs {harness.MODEL} Offline or SingleStream, not "
            f"{result.benchmark} {result.scenario_folder}"
        )
    minimum = round.min_duration_ms(harness.MODEL)
    performance, accuracy = Path(copy, "performance", "run_1"), Path(copy, "accuracy")
    step("performance run")
    for stale in performance.glob("mlperf_log_*"):
        stale.unlink()
    harness.run(harness.RunSpec(result.scenario, "performance", min_duration_ms=minimum), performance)
    (performance / "mlperf_log_accuracy.json").unlink(missing_ok=True)
    step("accuracy run")
    harness.run(harness.RunSpec(result.scenario, "accuracy", min_duration_ms=minimum), accuracy)
    harness.write_accuracy_txt(accuracy / "mlperf_log_accuracy.json", accuracy / "accuracy.txt")


def rerun_command(copy: str, command: str, echo: Callable[[str], None], timeout: float = TIMEOUT) -> tuple[int, float]:
    """Run the user's harness; it writes loadgen logs into $MLPERF_CHECK_OUTPUT (the copy's
    performance/run_1). Its output is streamed; returns (exit status, seconds). It runs in a
    process group of its own: after `timeout` seconds the whole group is killed (SIGTERM,
    then SIGKILL) and CommandTimeout is raised; so is it when this process is interrupted."""
    output = Path(copy, "performance", "run_1")
    for stale in output.glob("mlperf_log_*"):
        stale.unlink()
    output.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, MLPERF_CHECK_OUTPUT=str(output), MLPERF_CHECK_RESULT=copy)
    start = time.perf_counter()
    process: subprocess.Popen[str] | None = None
    try:  # from the start: a signal as soon as the harness runs (before its reader starts) stops it
        # Started with the signals held, so that one cannot land between the harness's start
        # and `process` naming it (it would be left running); the harness itself gets them.
        with held():
            process = subprocess.Popen(
                command,
                shell=True,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                text=True,
                errors="backslashreplace",
                bufsize=1,
                start_new_session=True,
                preexec_fn=_unblocked,  # noqa: PLW1509 - no other thread runs yet
            )
        assert process.stdout is not None
        reader = threading.Thread(target=_stream, args=(process.stdout, echo), daemon=True)
        reader.start()
        status = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        assert process is not None
        _kill_group(process)
        raise CommandTimeout(timeout) from None
    except BaseException:
        if process is not None:
            _kill_group(process)
        raise
    # Output still in the pipe is shown; a left-over background process holding the pipe
    # open does not keep rerun waiting.
    reader.join(timeout=5)
    return status, time.perf_counter() - start


def _unblocked() -> None:
    """In the harness's process, before it runs: the signals the parent held are its own."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


def _stream(pipe: Any, echo: Callable[[str], None]) -> None:
    for line in pipe:
        echo(line.rstrip("\n"))


def _kill_group(process: subprocess.Popen[Any], grace: float = 5.0) -> None:
    """SIGTERM to the command's whole process group; after `grace` seconds, SIGKILL to
    whatever is left of it (what the shell started, too)."""
    _signal_group(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=grace)
    _signal_group(process.pid, signal.SIGKILL)
    process.wait()


def _signal_group(group: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group has gone
        os.killpg(group, sig)


FORMATS = Formats({"text": as_text(to_text), "json": as_json(document)})


def verdict(result: Reproduction) -> str:
    """The verdict in one line, for stderr when the report itself goes elsewhere."""
    if result.identical_logs:
        return (
            f"not a reproduction: {', '.join(result.identical_logs)} "
            f"{'is' if len(result.identical_logs) == 1 else 'are'} byte-identical to the original's (exit 1)"
        )
    if not result.reproduction_valid:
        return "the reproduction is not valid (exit 1)"
    if result.mismatched_settings:
        return "the settings differ (exit 1)"
    return "within tolerance" if result.within_tolerance else "materially different (exit 1)"


# --- the command ---------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class CommandLine:
    """reproduce's command line."""

    original: str
    reproduction: str
    round: str | None = None
    tolerance: float | None = None
    format: str | None = None
    output: str | None = None


def invocation(options: CommandLine) -> Invocation[CommandLine]:
    name = common.choose(FORMATS, options.format, options.output)
    fraction(options.tolerance, "tolerance")
    plan = Plan(reads=[round_file(options.round)], trees=[options.original, options.reproduction])
    outputs = ((name, plan.add(options.output)),)
    round_name = common.round_name(options.round, options.original, result=True)
    return Invocation(options=options, plan=plan, outputs=outputs, round_name=round_name, round=common.load(round_name))


def run(invocation: Invocation[CommandLine]) -> int:
    """Compare the two results; 1 unless the reproduction holds."""
    options = invocation.options
    assert invocation.round is not None
    result = reproduce(options.original, options.reproduction, invocation.round, options.tolerance)
    common.emit(invocation.plan, FORMATS, invocation.format, invocation.target, result)
    if options.output not in (None, "-") or invocation.format != "text":
        common.say(verdict(result))
    return 1 if result.failed else 0
