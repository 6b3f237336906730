"""Runs the rules over a tree: per submission, per system and per result, in parallel.

A unit of work is one system with all its results (plus one unit per submission for the
submission-wide rules). Units run in worker processes; their findings are merged and sorted,
so the output does not depend on the number of workers.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import time
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from . import phases
from .findings import Finding, Problem, Report, ResultRecord, Severity, judge
from .model import (
    NEEDS,
    Context,
    Result,
    Submission,
    System,
    discover,
    discovery_findings,
    locate,
    results_of,
    systems_of,
    unfollowed_folders,
)
from .provenance import RepositorySource
from .registry import RULES, Rule, selected
from .rounds import Round, load_round
from .scope import Scope
from .tree import Tree, join
from .waivers import Waiver, apply_waivers

# A command's hook: called once per checked result, in the worker that checked it; what it
# returns is the record's `collected`. It must be a module-level function (workers import it).
Collect = Callable[[Result, ResultRecord], Any]


@dataclass(frozen=True)
class Options:
    root: str
    round: str
    inference_repo: str | None = None  # a clone of mlcommons/inference for the PRV rules
    scope: Scope | None = None  # --changed-since: only these results, systems and submissions
    collect: Collect | None = None  # a command's own facts per result (ResultRecord.collected)


@dataclass
class UnitOutput:
    results: list[ResultRecord] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    submission: str = ""  # the key of the unit's submission
    seconds: float = 0.0  # how long the unit took, in its worker
    phases: dict[str, float] = field(default_factory=dict)  # those seconds by phase (checker/phases.py)


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
        hint=problem.hint,
        name=rule.name,
        subject=subject,
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
        message=f"{what or f'rule {rule.code} {rule.name}'} failed: {type(error).__name__}: {error}{where}",
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
    for rule in rules:
        try:
            if any(artefact(need) is None for need in rule.needs):
                continue
            for problem in rule.func(subject, round) or ():
                found.append(_to_finding(rule, problem, location, key, round))
        except Exception as error:  # noqa: BLE001 - a failing rule becomes a finding
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
    record.metric = result.metric()
    power = result.power_metric()
    if power is not None:
        record.facts["power"] = power
    status = (result.system.description or {}).get("status")
    availability = status.strip().lower() if isinstance(status, str) else None
    record.facts["availability"] = availability
    record.facts["auditable"] = result.round.auditable(result.division, availability)


def check_system(system: System, scope: Scope | None = None, collect: Collect | None = None) -> UnitOutput:
    """System rules once, then every result of the system (those in `scope`, when given)."""
    out = UnitOutput()
    round = system.submission.round
    system_rules, result_rules = _by_scope("system"), _by_scope("result")
    if scope is None or system.key in scope.systems:
        out.findings += _run_rules(
            system_rules, system, round, system.json_path, "", system.key, lambda name: system.description
        )  # the one artefact of a system (NEEDS)
    for result in results_of(system):
        if scope is not None and system.key not in scope.systems and not scope.has_result(result.location):
            continue
        record = _record(result)
        found = _run_rules(result_rules, result, round, result.location, result.location, "", result.artefact)
        what = "reading the metrics"
        try:
            _facts(result, record)
            if collect is not None:
                what = f"collecting with {collect.__name__}"
                record.collected = collect(result, record)
        except Exception as error:  # noqa: BLE001 - a failing step becomes a finding
            found.append(_internal_error(None, result.location, result.location, "", error, what))
        out.findings += result.findings + found
        out.results.append(record)
    out.findings += system.findings
    return out


def check_submission(submission: Submission) -> UnitOutput:
    out = UnitOutput()
    out.findings += unfollowed_folders(submission)
    out.findings += _run_rules(
        _by_scope("submission"), submission, submission.round, submission.rel, "", submission.rel, lambda name: True
    )  # a submission provides none (NEEDS)
    out.findings += submission.findings
    return out


def load_all() -> dict[str, Rule]:
    """Import every rule module so that its rules register themselves, and check what each
    rule `needs` against what the model of its scope provides (model.NEEDS)."""
    from . import rules as _  # noqa: F401  (checker.rules imports each family module)

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
            round=load_round(options.round),
            submissions={},
            context=Context(provenance=source),
        )
    return _STATE["tree"], _STATE["round"]


def _submission(options: Options, division: str, submitter: str) -> Submission:
    tree, round = _setup(options)
    cache = _STATE["submissions"]
    if (division, submitter) not in cache:
        cache[(division, submitter)] = Submission(tree, round, division, submitter, context=_STATE["context"])
    return cache[(division, submitter)]


def _run_unit(args: tuple[Options, str, str, str | None]) -> UnitOutput:
    options, division, submitter, system_name = args
    started = time.perf_counter()
    with phases.phase("rules"):  # the rules and the model; reading and listing are phases of their own
        submission = _submission(options, division, submitter)
        submission.tree.forget()  # a unit lists its own folders: a worker's memory stays flat
        if system_name is None:
            output = check_submission(submission)
        else:
            output = check_system(System(submission, system_name), options.scope, options.collect)
    output.submission, output.seconds = submission.rel, time.perf_counter() - started
    output.phases = phases.take()
    return output


def check(
    root: str,
    round_name: str,
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
    `scope` (from --changed-since) limits the check to what a change can affect; `collect`
    gathers a command's own facts per result, in the worker that checked it."""
    checked_at = datetime.datetime.now(datetime.UTC)
    started = time.perf_counter()
    load_all()
    round = load_round(round_name)
    root, only = locate(root, round)
    tree = Tree(root)
    codes = frozenset(selected(select, ignore))
    options = Options(
        tree.root, round_name, os.path.abspath(inference_repo) if inference_repo else None, scope, collect
    )
    submissions = discover(tree, round, only)
    found_first = discovery_findings(tree, round, only)
    units: list[tuple[Options, str, str, str | None]] = []
    for submission in submissions:
        if scope is not None and not scope.touches(submission.rel):
            continue  # nothing in scope there: its folders are not listed
        if scope is None or submission.rel in scope.submissions:
            units.append((options, submission.division, submission.submitter, None))
        for system in systems_of(submission):
            if (
                scope is None
                or system.key in scope.systems
                or any(scope.has_result(r.location) for r in results_of(system))
            ):
                units.append((options, submission.division, submission.submitter, system.name))

    listed = time.perf_counter()
    outputs = _run_units(units, jobs or os.cpu_count() or 1, round, tree, progress)
    ran = time.perf_counter()

    results = sorted((r for o in outputs for r in o.results), key=lambda r: r.location)
    findings = [f for f in found_first + [g for o in outputs for g in o.findings] if _chosen(f, codes)]
    if strict:
        findings = [
            dataclasses.replace(f, severity=Severity.ERROR) if f.severity is Severity.WARNING else f for f in findings
        ]
    findings = apply_waivers(findings, waivers or [])
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


def _run_units(
    units: list[tuple[Options, str, str, str | None]],
    jobs: int,
    round: Round,
    tree: Tree,
    progress: Callable[[int, int], None] | None,
) -> list[UnitOutput]:
    """Every unit's output, in worker processes when `jobs` > 1, each unit to the first worker
    free: the submissions' units first, then the systems', the largest first (`_weight`,
    weighed while the workers run the first ones), so that no worker is left alone with a
    large unit at the end."""
    outputs: list[UnitOutput] = []
    if jobs > 1 and len(units) > 1:
        systems = [unit for unit in units if unit[3] is not None]
        if systems:
            # Built once here, before the workers fork, rather than once in each of them:
            # the system rules' validator (jsonschema's import and the round's schema).
            round.system_validator  # noqa: B018 - a cached property, for its cache
        try:
            with ProcessPoolExecutor(max_workers=min(jobs, len(units)), initializer=phases.reset) as pool:
                futures = [pool.submit(_run_unit, unit) for unit in units if unit[3] is None]
                weights = _weight(systems, round, tree)
                futures += [pool.submit(_run_unit, unit) for unit in sorted(systems, key=lambda u: -weights[u[1:]])]
                for done, future in enumerate(as_completed(futures), 1):
                    outputs.append(future.result())
                    if progress:
                        progress(done, len(units))
        except (OSError, BrokenProcessPool):
            # No worker processes here (a sandbox without semaphores, a killed worker):
            # the same units, in this process.
            outputs = []
    if len(outputs) < len(units):
        phases.reset()
        for done, unit in enumerate(units, 1):
            outputs.append(_run_unit(unit))
            if progress:
                progress(done, len(units))
    return outputs


# What a result costs, in bytes of detail log: the v5.1 round's system units, timed one by
# one, take about 1.8 ms of CPU a MB of detail logs and 1.9 ms a result (its other files,
# its rules and the model): a result is worth about 1 MB.
_RESULT_BYTES = 1 << 20


def _weight(units: list[tuple[Options, str, str, str | None]], round: Round, tree: Tree) -> dict[tuple, int]:
    """Each system unit's estimated cost, by (division, submitter, system): the bytes of its
    results' performance and accuracy detail logs, and a share per result. An estimate, from
    two plain stats a result (a file is judged, as Tree judges it, only where it is read)."""
    weights: dict[tuple, int] = {}
    log = round.layout["files"]["detail_log"]
    for _, division, submitter, system in units:
        base = join(division, submitter, round.results_root, system)
        weight = 0
        for benchmark in tree.subdirs(base):
            for scenario in tree.subdirs(join(base, benchmark)):
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
