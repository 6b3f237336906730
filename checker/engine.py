"""Runs the rules over a tree: per submission, per system and per result, in parallel.

A unit of work is one system with all its results (plus one unit per submission for the
submission-wide rules). Units run in worker processes; their findings are merged and sorted,
so the output does not depend on the number of workers. A narrowed check (a Scope) checks
fewer results, never less of one: each checked result's submission and system units run
whole, as in a whole check.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import functools
import gc
import importlib
import os
import time
import traceback
from collections import ChainMap
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from . import cache, phases, process
from .findings import Finding, Problem, Report, ResultRecord, Severity, follow, judge
from .locate import place as place_findings
from .model import (
    NEEDS,
    Context,
    Result,
    Submission,
    System,
    discover,
    discovery_findings,
    results_of,
    systems_of,
    unfollowed_folders,
)
from .model.metrics import metric, power_metric
from .model.views import provided
from .output import held
from .parsers import Malformed
from .provenance import RepositorySource
from .reader import Reader
from .registry import RULES, Rule, selected
from .rounds import Round, load_round
from .scope import Scope
from .tree import Tree, join
from .waivers import Waiver, apply_waivers
from .workspace import Workspace, locate, too_long

# A command's hook: called once per checked result, in the worker that checked it; what it
# returns is the record's `collected`. It must be a module-level function (workers import it).
Collect = Callable[[Result, ResultRecord], Any]


@dataclass(frozen=True)
class Options:
    root: str
    round: str  # the round's origin: which round a worker's state is of (it is handed the round itself)
    inference_repo: str | None = None  # a clone of mlcommons/inference for the PRV rules
    collect: Collect | None = None  # a command's own facts per result (ResultRecord.collected)
    cache: str | None = None  # the cache folder (checker/cache.py), None for none
    # What keys a unit's entry (cache.Units.base), and when the check started (time.time_ns):
    # the process that runs a unit stores its output (cache.keep_unit).
    unit_base: tuple[Any, ...] | None = None
    started: int = 0


@dataclass
class UnitOutput:
    results: list[ResultRecord] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    submission: str = ""  # the key of the unit's submission
    seconds: float = 0.0  # how long the unit took, in its worker
    phases: dict[str, float] = field(default_factory=dict)  # those seconds by phase (checker/phases.py)
    unit: tuple[Any, ...] = ()  # which unit (_unit_key)
    notes: dict[str, str] = field(default_factory=dict)  # what the cache had to say (cache.note)
    stored: int = 0  # the bytes of its cache entry written (cache.keep_unit)


def _to_finding(rule: Rule, problem: Problem, location: str, subject: str, round: Round) -> Finding:
    message = problem.message
    own = round.severity(rule.code)
    if problem.severity is None and own is not None and own is not rule.severity and round.severity_reason(rule.code):
        message += f" ({own.value} in {round.name}: {round.severity_reason(rule.code)})"
    return Finding(
        code=rule.code,
        severity=problem.severity or own or rule.severity,
        path=problem.path,
        message=message,
        location=location,
        pointer=problem.pointer,
        observed=problem.observed,
        expected=problem.expected,
        name=rule.name,
        subject=subject,
        concerns=None if location else problem.concerns,
        line=problem.line,
        column=problem.column if problem.line is not None else None,
        cause=problem.cause,
        hint=None if problem.cause is not None else problem.hint,
    )


def _internal_error(
    rule: Rule | None, path: str, location: str, subject: str, error: BaseException, what: str = ""
) -> Finding:
    frame = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    where = f" ({os.path.basename(frame.filename)}:{frame.lineno})" if frame else ""
    internal = RULES["INT001"]
    return Finding(
        code=internal.code,
        severity=internal.severity,
        path=path,
        message=f"{what or (f'rule {rule.code} {rule.name}' if rule else 'the engine')} failed: "
        f"{type(error).__name__}: {error}{where}",
        location=location,
        name=internal.name,
        subject=subject,
        observed=rule.code if rule else None,
    )


def _run_rules(
    rules: Iterable[Rule],
    subject: Any,
    round: Round,
    path: str,
    location: str,
    key: str,
    artefact: Callable[[str], Any],
) -> list[Finding]:
    found: list[Finding] = []
    provided: dict[str, bool] = {}  # whether each artefact a rule needs is there, asked once
    for rule in rules:
        func = rule.func
        if func is None:  # a code with no function (INT001): nothing to run
            continue
        had = len(found)  # a rule that fails part way adds none of its findings
        try:
            for need in rule.needs:
                there = provided.get(need)
                if there is None:
                    there = provided[need] = artefact(need) is not None
                if not there:
                    break
            else:  # every need there (a loop, not a list: some 70,000 rule runs a round)
                for problem in func(subject, round) or ():
                    found.append(_to_finding(rule, problem, location, key, round))
        except Malformed:
            del found[had:]  # it read a value that broke its declaration: FIL012 says which, and it is skipped
        except Exception as error:  # noqa: BLE001 - a failing rule becomes a finding
            del found[had:]
            found.append(_internal_error(rule, path, location, key, error))
    return found


def _by_scope(scope: str) -> list[Rule]:
    """Every rule of the scope, whatever --select and --ignore say: some findings exist only
    when a rule reads the file (a malformed summary is LOG003 when a rule reads it), so every
    rule runs and the selection filters the findings, as ruff's does."""
    return [r for _, r in sorted(RULES.items()) if r.scope == scope and r.func is not None]


def _record(result: Result) -> ResultRecord:
    system, submission = result.system, result.submission
    return ResultRecord(
        location=result.location,
        division=result.division,
        submitter=submission.submitter,
        system=system.name,
        benchmark=result.benchmark,
        scenario=result.scenario or result.scenario_folder,
        model=result.model,
        system_key=system.key,
        submission_key=submission.rel,
    )


def _facts(result: Result, record: ResultRecord) -> None:
    """The headline metric, the power metric, the availability, and whether the round can
    audit the result (its `audit:` block)."""
    record.metric = metric(result)
    power = power_metric(result)
    if power is not None:
        record.facts["power"] = power
    status = (result.system.description or {}).get("status")
    availability = status.strip().lower() if isinstance(status, str) else None
    record.facts["availability"] = availability
    record.facts["auditable"] = result.round.auditable(result.division, availability)


def check_system(system: System, only: frozenset[str] | None = None, collect: Collect | None = None) -> UnitOutput:
    """System rules once, then every result of the system (those in `only`, when given)."""
    out = UnitOutput()
    round = system.submission.round
    own = _run_rules(
        _by_scope("system"), system, round, system.json_path, "", system.key, lambda name: system.description
    )  # the one artefact of a system (NEEDS)
    result_rules = _by_scope("result")
    for result in results_of(system):
        if only is not None and result.location not in only:
            continue
        record = _record(result)
        found = _run_rules(
            result_rules, result, round, result.location, result.location, "", functools.partial(provided, result)
        )
        what = "reading the metrics"
        try:
            _facts(result, record)
            if collect is not None:
                what = f"collecting with {collect.__name__}"
                record.collected = collect(result, record)
        except Malformed:
            pass  # a fact read a value that broke its declaration (FIL012): the result is not valid
        except Exception as error:  # noqa: BLE001 - a failing step becomes a finding
            found.append(_internal_error(None, result.location, result.location, "", error, what))
        out.findings += _placed(result.findings + found, result.reader, system.reader, system.submission.reader)
        out.results.append(record)
    out.findings[:0] = _placed(own, system.reader, system.submission.reader)
    out.findings += _placed(system.findings, system.reader, system.submission.reader)
    # results_of's Results, kept in the system's cache, each pointing back at the system: the
    # cycle is broken here, so that what they read is freed with the unit, not at the next GC.
    system.cache.pop("results", None)
    return out


def _placed(findings: list[Finding], *readers: Reader) -> list[Finding]:
    """`findings` with their places (checker/locate.py), from what these readers read: a
    file is read again only for a place its reading did not keep."""
    if not any(f.path and (f.line is None or f.column is None) for f in findings):
        return findings
    return place_findings(readers[0].tree, findings, ChainMap(*(reader.kept() for reader in readers)))


def check_submission(submission: Submission) -> UnitOutput:
    out = UnitOutput()
    out.findings += unfollowed_folders(submission)
    out.findings += _run_rules(
        _by_scope("submission"), submission, submission.round, submission.rel, "", submission.rel, lambda name: True
    )  # a submission provides none (NEEDS)
    out.findings += submission.findings
    out.findings = _placed(out.findings, submission.reader)
    return out


def load_all() -> dict[str, Rule]:
    """Import every rule module so that its rules register themselves, and check what each
    rule `needs` against what the model of its scope provides (model.NEEDS)."""
    importlib.import_module(f"{__package__}.rules")  # checker.rules imports each family module

    for rule in RULES.values():
        unknown = [name for name in rule.needs if name not in NEEDS.get(rule.scope, frozenset())]
        if unknown:
            raise ValueError(
                f"rule {rule.code} needs {', '.join(unknown)}, which a {rule.scope} does not provide "
                f"(model.NEEDS: {', '.join(sorted(NEEDS.get(rule.scope, ()))) or 'nothing'})"
            )
    return RULES


# --- the worker side ------------------------------------------------------------------
_STATE: dict[str, Any] = {}


def _setup(options: Options) -> tuple[Tree, Round]:
    key = (options.root, options.round, options.inference_repo)
    if _STATE.get("key") != key:
        load_all()
        source = RepositorySource(options.inference_repo) if options.inference_repo else None
        _STATE.update(
            key=key,
            tree=Tree(options.root),
            round=_STATE["handed"],
            submissions={},
            context=Context(provenance=source),
        )
        cache.use(options.cache)
    return _STATE["tree"], _STATE["round"]


def _submission(options: Options, division: str, submitter: str) -> Submission:
    tree, round = _setup(options)
    cache = _STATE["submissions"]
    if (division, submitter) not in cache:
        cache[(division, submitter)] = Submission(tree, round, division, submitter, context=_STATE["context"])
    submission: Submission = cache[(division, submitter)]
    return submission


# A unit of work: a submission's own rules (no system), or a system with its results (those
# named, when narrowed; None for all of them).
Unit = tuple[Options, str, str, str | None, frozenset[str] | None]


def _run_unit(args: Unit) -> UnitOutput:
    options, division, submitter, system_name, only = args
    started = time.perf_counter()
    with phases.phase("rules"):  # the rules and the model; reading and listing are phases of their own
        tree = _setup(options)[0]
    try:
        with phases.phase("rules"):
            if _STATE.get("judged") != (division, submitter):  # a worker's memory stays flat: one submission's
                tree.forget()  # entries and folder stats at a time (those of its units shared: none stat-ed twice)
                _STATE["judged"] = (division, submitter)
            tree.unlistable.clear()
            # With a cache, every read of the tree the unit makes, of a Submission of its own
            # (none derived by another unit): what its output depends on (checker/cache.py).
            reads: list[tuple[str, str, Any]] | None = [] if options.cache else None
            tree.reads = reads
            try:
                if reads is not None:
                    _STATE["submissions"].pop((division, submitter), None)
                submission = _submission(options, division, submitter)
                if system_name is None:
                    output = check_submission(submission)
                else:
                    output = check_system(System(submission, system_name), only, options.collect)
            finally:
                tree.reads = None
        output.findings += unlistable(tree)
        output.submission, output.unit = submission.rel, _unit_key(args)
        if reads is not None and options.unit_base is not None:
            output.stored = cache.keep_unit(options.unit_base, options.started, tree, output, reads)
    finally:
        tree.drop_held()  # what the C lister made of the unit's walks for its proof, however it ended
    output.seconds = time.perf_counter() - started
    output.phases = phases.take()
    output.notes = cache.take_notes()
    return output


def _unit_key(unit: Unit) -> tuple[Any, ...]:
    """A unit's name, the same in every run (checker/cache.py keys its output by it)."""
    _, division, submitter, system, only = unit
    return (division, submitter, system, tuple(sorted(only)) if only is not None else None)


# The units make many small objects that live to the end of their unit (entries, reads,
# proofs, the model) and few cycles: at the collector's default pace (a pass each 700 more
# objects) its passes took 0.29 s of the two workers' CPU on the whole v5.1 round with a cache
# and 0.18 s without one; at this pace 0.08 s and 0.03 s (gc.callbacks), the peak the same.
GC_THRESHOLD = 10_000


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """The collector at GC_THRESHOLD while units run in this process, put back as it was afterwards."""
    before = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _worker(round: Round) -> None:
    """A worker process starts: its own signals (checker.process.worker), its phase times from
    zero, the round the check loaded (forked, it is not read again), and a collector that
    passes less often, over none of what was made before the fork (gc.freeze)."""
    _STATE["handed"] = round
    process.worker()
    phases.reset()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])


def _run_task(units: list[Unit]) -> list[UnitOutput]:
    """The units of one task (`_tasks`), in order, in one worker."""
    return [_run_unit(unit) for unit in units]


def _in_workers(
    tasks: list[list[Unit]],
    workers: int,
    outputs: list[UnitOutput],
    progress: Callable[[int, int], None] | None,
) -> None:
    """The tasks' units in worker processes, their outputs in order. Forked with SIGINT and
    SIGTERM held (each worker sets its own: checker.process.worker); when this process is
    stopped (a signal, any exception), the workers are terminated and the units not started
    dropped."""
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker, initargs=(_STATE["handed"],))
    total = sum(map(len, tasks))
    try:
        with held():
            done_in_order = pool.map(_run_task, tasks, chunksize=1)  # forks the workers
        for done_task in done_in_order:
            outputs += done_task
            if progress:
                progress(len(outputs), total)
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown()


def _stop(pool: ProcessPoolExecutor) -> None:
    """Terminate a pool's workers now and drop the work not started."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join(timeout=5)


def check(
    where: str | Workspace,
    round: str | Round,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    jobs: int | None = None,
    waivers: list[Waiver] | None = None,
    progress: Callable[[int, int], None] | None = None,
    inference_repo: str | None = None,
    strict: bool = False,
    scope: Scope | None = None,
    collect: Collect | None = None,
) -> Report:
    """Check every result under `root`. With `inference_repo`, the provenance rules (PRV)
    judge each loadgen build against that clone; `strict` makes every warning an error;
    `scope` (--changed-since, or files given) narrows the results checked, each checked as a
    whole check checks it (_units); `collect` gathers a command's own facts per result, in
    the worker that checked it."""
    checked_at = datetime.datetime.now(datetime.UTC)
    started = time.perf_counter()
    # What this process cached of an earlier check (its tree, its submissions with what their
    # rules derived) describes the tree as it was then: a second check of the same folder in
    # one process (a test, a watcher) must see it as it is now.
    _STATE.clear()  # (and the round a worker was handed)
    load_all()
    # What keys the cache (checker/cache.py): the round named, or the file a round was read from.
    round_key = round if isinstance(round, str) else round.origin if os.path.isfile(round.origin) else round.name
    if isinstance(round, str):
        round = load_round(round)
    if isinstance(where, str):  # a path: its workspace, narrowed to what it names (a workspace handed is as decided)
        where = locate(where, deletions=False)
        scope = scope or where.scope(round)
    only = where.part
    tree = Tree(where.root)
    codes = frozenset(selected(select, ignore))
    # The cache (checker/cache.py): none for the PRV rules, which read a clone it cannot key.
    folder = cache.folder_for(tree.root) if not inference_repo else None
    kept = cache.Units(folder, tree.root, round_key, getattr(collect, "__qualname__", "")) if folder else None
    options = Options(
        tree.root,
        round.origin,
        os.path.abspath(inference_repo) if inference_repo else None,
        collect,
        folder,
        kept.base if kept else None,
        kept.started if kept else 0,
    )
    _STATE["handed"] = round  # the workers, forked, inherit it: the round is loaded once a run
    submissions = discover(tree, round, only)
    found_first = place_findings(tree, discovery_findings(tree, round, only))
    units = [unit for submission in submissions for unit in _units(options, submission, scope)]
    outputs, units = kept.take(units, tree.root, _unit_key, jobs or os.cpu_count() or 1) if kept else ([], units)

    listed = time.perf_counter()
    ran_now = _run_units(units, jobs or os.cpu_count() or 1, round, tree, progress)
    ran = time.perf_counter()
    cache.finish(kept, ran_now)
    outputs += ran_now

    results = sorted((r for o in outputs for r in o.results), key=lambda r: r.location)
    merged = found_first + unlistable(tree) + [g for o in outputs for g in o.findings]
    # each consequence of a read failure names its cause (findings.follow), before selection
    findings = [f for f in follow(_once(merged, "FIL025")) if _chosen(f, codes)]
    if strict:
        findings = [
            dataclasses.replace(f, severity=Severity.ERROR) if f.severity is Severity.WARNING else f for f in findings
        ]
    given = len(findings)
    findings = apply_waivers(
        findings, waivers or [], tree.root, functools.partial(_judged, whole=scope is None and not only, codes=codes)
    )
    findings[given:] = place_findings(tree, findings[given:])  # the waivers' own (WVR001), after the others
    findings.sort(key=Finding.sort_key)
    judge(results, findings)
    seconds: dict[str, float] = {}
    spent = {"listing": listed - started, "running units": ran - listed, "merging": time.perf_counter() - ran}
    for output in outputs:
        seconds[output.submission] = seconds.get(output.submission, 0.0) + output.seconds
        phases.add(spent, output.phases)
    return Report(
        round=round,
        root=tree.root,
        results=results,
        findings=findings,
        checked_at=checked_at,
        elapsed=time.perf_counter() - started,
        seconds=dict(sorted(seconds.items())),
        phases=spent,
    )


def unlistable(tree: Tree) -> list[Finding]:
    """FIL025 for each folder of the tree that could not be listed because its path is longer
    than a file system opens by name (what it holds is then neither read nor checked)."""
    found = []
    for rel in sorted(tree.unlistable):
        rule = RULES["FIL025"]
        why = too_long(tree.root, rel) or "its path is longer than a file system opens by name"
        parts = rel.split("/")
        location = "/".join(parts[:6]) if len(parts) >= 6 else ""  # <division>/<submitter>/results/<s>/<b>/<scenario>
        message = f"the folder cannot be listed: {why}"
        found.append(Finding(rule.code, rule.severity, rel, message, location=location, name=rule.name))
    return found


def _once(findings: list[Finding], code: str) -> list[Finding]:
    """The findings, each of `code` once per path (units that list the same folder each say so)."""
    seen: set[str] = set()
    kept = []
    for finding in findings:
        if finding.code == code:
            if finding.path in seen:
                continue
            seen.add(finding.path)
        kept.append(finding)
    return kept


def _judged(waiver: Waiver, whole: bool, codes: frozenset[str]) -> bool:
    """Whether this check saw every finding `waiver` could match: a check of the whole tree
    (one narrowed to paths, or to a division or submitter folder, leaves results out) with
    every code of the waiver selected."""
    return whole and all(code in codes for code in RULES if code.startswith(waiver.code))


def _units(options: Options, submission: Submission, scope: Scope | None) -> list[Unit]:
    """The units that check a submission: its own rules and each of its systems. Narrowed by
    a scope, the results it names, each with every unit it depends on: its submission's
    rules and its system's, run whole as in a whole check (Scope.resolve)."""
    key = (options, submission.division, submission.submitter)
    if scope is not None and not scope.touches(submission.rel):
        return []  # nothing in scope there: its folders are not listed
    systems = systems_of(submission)
    if scope is None:
        return [(*key, None, None)] + [(*key, system.name, None) for system in systems]
    results = {system.name: results_of(system) for system in systems}
    picked = scope.resolve(submission.rel, [(r.location, r.benchmark) for rs in results.values() for r in rs])
    if picked is None:
        return [(*key, None, None)] + [(*key, system.name, None) for system in systems]
    units: list[Unit] = [(*key, None, None)]
    for system in systems:
        mine = frozenset(r.location for r in results[system.name] if r.location in picked)
        if mine:
            units.append((*key, system.name, mine))
    return units


def _run_units(
    units: list[Unit],
    jobs: int,
    round: Round,
    tree: Tree,
    progress: Callable[[int, int], None] | None,
) -> list[UnitOutput]:
    """Every unit's output, in worker processes when `jobs` > 1, each task (`_tasks`) to the
    first worker free, the largest first, so that no worker is left alone with a large unit
    at the end."""
    outputs: list[UnitOutput] = []
    systems = [unit for unit in units if unit[3] is not None]
    weights = _weight(systems, round, tree) if jobs > 1 and len(units) > 1 else {}
    if weights and sum(weights.values()) >= IN_PROCESS_BELOW:
        if systems:
            # Built once here, before the workers fork, rather than once in each of them:
            # the system rules' validator (jsonschema's import and the round's schema).
            round.system_validator  # noqa: B018 - a cached property, for its cache
        tasks = _tasks(units, weights, jobs)
        try:
            _in_workers(tasks, min(jobs, len(tasks)), outputs, progress)
        except (OSError, BrokenProcessPool):
            # No worker processes here (a sandbox without semaphores, a killed worker):
            # the same units, in this process.
            outputs = []
    if len(outputs) < len(units):
        phases.reset()
        with _fewer_collections():
            for done, unit in enumerate(units, 1):
                outputs.append(_run_unit(unit))
                if progress:
                    progress(done, len(units))
    return outputs


def _tasks(units: list[Unit], weights: dict[tuple[str, str, str | None], int], jobs: int) -> list[list[Unit]]:
    """The units as the workers' tasks. A submission whose systems weigh little (a share of
    the whole no worker would wait long on) is one task: its own unit, then its systems', in
    one worker, which judges each path once for all of them (the walk of its own unit lists
    what its systems read). A larger one's units are tasks of their own, so that the workers
    share its systems. Its own units first (a walk of each submission, of no known weight),
    then the rest, the heaviest first."""
    total = sum(weights.values())
    small = total // (jobs * 8)
    by_submission: dict[tuple[str, str], list[Unit]] = {}
    for unit in units:
        by_submission.setdefault((unit[1], unit[2]), []).append(unit)
    first: list[list[Unit]] = []
    rest: list[tuple[int, list[Unit]]] = []
    for group in by_submission.values():
        own = [unit for unit in group if unit[3] is None]
        systems = [unit for unit in group if unit[3] is not None]
        weight = sum(weights[unit[1:4]] for unit in systems)
        if weight <= small:
            rest.append((weight, own + systems))
        else:
            first += [[unit] for unit in own]
            rest += [(weights[unit[1:4]], [unit]) for unit in systems]
    rest.sort(key=lambda task: -task[0])  # stable: equal weights keep the units' order
    return first + [task for _, task in rest]


# Below this weight (`_weight`: about 16 results), the units run in this process: forking two
# workers, each loading the round again, costs more than they save (`check --changed-since`
# with one changed result: 0.1 s of its 0.5).
IN_PROCESS_BELOW = 16 << 20

# What a result costs, in bytes of detail log: the v5.1 round's system units, timed one by
# one, take about 1.8 ms of CPU a MB of detail logs and 1.9 ms a result (its other files,
# its rules and the model): a result is worth about 1 MB.
_RESULT_BYTES = 1 << 20


def _weight(units: list[Unit], round: Round, tree: Tree) -> dict[tuple[str, str, str | None], int]:
    """Each system unit's estimated cost, by (division, submitter, system): the bytes of the
    performance and accuracy detail logs of the results it checks, and a share per result. An estimate, from
    two plain stats a result (a file is judged, as Tree judges it, only where it is read)."""
    weights: dict[tuple[str, str, str | None], int] = {}
    log = round.layout.files.detail_log
    for _, division, submitter, system, only in units:
        if system is None:  # a submission's own unit: no results of its own
            continue
        base = join(division, submitter, round.results_root, system)
        weight = 0
        for benchmark in tree.subdirs(base):
            for scenario in tree.subdirs(join(base, benchmark)):
                if only is not None and join(base, benchmark, scenario) not in only:
                    continue  # narrowed (--changed-since): a result the unit does not check
                weight += _RESULT_BYTES
                for folder in ("performance", "accuracy"):
                    inner = round.layout_path(folder, system=system, benchmark=benchmark, scenario=scenario)
                    if inner is not None:
                        weight += _size(tree.abspath(join(division, submitter, inner, log)))
        weights[division, submitter, system] = weight
    return weights


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _chosen(finding: Finding, codes: frozenset[str]) -> bool:
    """Whether the selection keeps a finding: its code is chosen, or it is the internal error
    of a chosen rule or of the engine itself."""
    if finding.code == "INT001":
        return finding.observed is None or finding.observed in codes
    return finding.code in codes
