"""`mlperf-check prepare SRC -o DEST`: a submission ready for upload, written into a new tree
as the round's own tools write it (truncate_accuracy_log.py, then preprocess_submission.py).

SRC is only read. The new tree is built in a stage folder beside DEST and renamed onto DEST
when it is done, so an interrupted run (SIGINT, SIGTERM) leaves neither a stage nor half a
DEST. The steps, each from the round file's `prepare:` facts:

1. Copy the division folders (the `--submitter` one only), links inside SRC followed, none
   out of it, modes kept, and what looks like a mistake (a `.DS_Store`, a `.bak`, a second
   copy of a log, a second run folder: STR012) left out; truncate each accuracy log the round truncates and put the hash of
   the whole log in its report.
2. Check the copy; remove each result whose own files fail, or move its benchmark to open,
   as the round's preprocess does (a failing power measurement alone loses only its power
   files); infer what the round infers; remove empty folders; check again. A result that
   fails only because its benchmark lacks a scenario waits until nothing more can be
   inferred, then goes the same way. The loop ends when a check finds nothing to change.
3. The last check is DEST's verdict.

Every step is a `Change` in the change list; what could not be read is a finding."""

from __future__ import annotations

import dataclasses
import os
import stat
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import __version__
from ..engine import check
from ..findings import Finding, Report, Severity
from ..model import Result, discover, no_results_reason, results_of, systems_of
from ..output import settle_folder, stage_beside
from ..registry import RULES
from ..reporters import Formats, as_json, as_text
from ..rounds import Round, load_round
from ..settings import Invocation, UsageError
from ..strays import AccuracyLogs, RunFolders, read_head, strays
from ..tree import Kind, Tree, join
from ..workspace import Workspace, locate, too_long, within
from . import common
from .prepare_results import Failed, Inference, preparation, sort_results
from .prepare_tree import Change, Stage, copy_folder
from .prepare_truncate import Unreadable, places, truncate

# A bound no real run reaches (each round removes, moves or infers a result at least once,
# and none is moved or inferred twice): past it, something loops.
MAX_ROUNDS = 100
ACTIONS = ("truncated", "hashed", "not truncated", "removed", "power removed", "moved", "inferred", "empty folder")


class PrepareError(UsageError):
    """A SRC, DEST or round prepare cannot work with (a usage error, exit 2)."""


@dataclass
class Prepared:
    """What prepare did (`changes`), what it could not read (`findings`), and the check of
    the tree it wrote (`report`, of DEST)."""

    source: str
    destination: str
    round: Round
    dry_run: bool
    changes: list[Change] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    report: Report | None = None

    @property
    def check_exit(self) -> int:
        """The exit status `check DEST` gives: 3 for a rule that failed, 1 for an error, 2
        when DEST holds no result, else 0."""
        report = self.report
        if report is None or not report.results:
            return 2
        if any(f.code == "INT001" for f in report.findings):
            return 3
        return 1 if report.has_errors else 0

    @property
    def exit_code(self) -> int:
        """The check's verdict, and 1 when prepare itself found an error or left no result."""
        own = 1 if any(f.severity is Severity.ERROR for f in self.findings) else 0
        verdict = self.check_exit
        if verdict == 3:
            return 3
        return max(own, 1 if verdict == 2 else verdict)

    def counts(self) -> dict[str, int]:
        counted = Counter(change.action for change in self.changes)
        return {action: counted.get(action, 0) for action in ACTIONS}


def workspace_of(source: str, destination: str) -> Workspace:
    """SRC's workspace, with DEST checked against it before any work: not empty, outside SRC,
    outside the tree SRC lies in (at any level it is given: a copy there is a second tree in
    it) and every tree holding that one, new or empty, in a folder that can be written."""
    if not os.path.isdir(source):
        raise PrepareError(f"{source} is not a folder")
    if destination == "":
        raise PrepareError("-o '': an empty path (an unset variable?); give a new or empty folder")
    real_source, real_destination = os.path.realpath(source), os.path.realpath(destination)
    if within(real_destination, real_source):
        raise PrepareError(f"-o {destination}: it is inside {source}; give a folder outside the submission")
    where = locate(source, deletions=False)  # a WorkspaceError is a UsageError, as a PrepareError is
    where.refuse(destination, "-o")
    for root in where.trees:
        if within(real_destination, root):
            raise PrepareError(
                f"-o {destination}: it is inside the tree {root} that {source} lies in; give a folder outside it"
            )
    check_paths(source, destination)
    return where


def _fits(tree: Tree, folders: list[str], destination: str) -> None:
    """A usage error, before any write, when a file prepare would copy lies too deep under
    DEST for the file system (workspace.too_long: the limit FIL025 holds SRC's files to)."""
    base = os.path.realpath(destination)
    for folder in folders:
        for top, dirs, files in os.walk(tree.abspath(folder)):
            dirs.sort()
            for name in sorted(files) or [""]:
                rel = os.path.relpath(os.path.join(top, name), tree.root).replace(os.sep, "/")
                why = too_long(base, rel)
                if why:
                    raise PrepareError(
                        f"-o {destination}: {rel} would not fit there (FIL025: {why}); give a DEST with a shorter path"
                    )


def check_paths(source: str, destination: str) -> None:
    """A usage error unless SRC is a folder and DEST is new or empty, outside SRC, in a
    folder that exists and can be written."""
    if not os.path.isdir(source):
        raise PrepareError(f"{source} is not a folder")
    real_source = os.path.realpath(source)
    real_destination = os.path.realpath(destination)
    if real_destination == real_source or real_destination.startswith(real_source.rstrip(os.sep) + os.sep):
        raise PrepareError(f"-o {destination}: it is inside {source}; give a folder outside the submission")
    if os.path.lexists(destination):
        if not os.path.isdir(destination) or os.path.islink(destination):
            raise PrepareError(f"-o {destination}: it exists and is not a folder; give a new or empty folder")
        if os.listdir(destination):
            raise PrepareError(f"-o {destination}: the folder is not empty; give a new or empty folder")
    parent = os.path.dirname(os.path.abspath(destination))
    if not os.path.isdir(parent):
        raise PrepareError(f"-o {destination}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise PrepareError(f"-o {destination}: the folder {parent} is not writable")


class _Run:
    """One prepare: the tree read, the stage written, what happened."""

    def __init__(self, tree: Tree, round: Round, stage: Stage, prepared: Prepared) -> None:
        self.tree, self.round, self.stage, self.prepared = tree, round, stage, prepared
        self.owner: dict[str, str] = {}  # a result's folder -> its location
        self.broken: dict[str, Finding] = {}  # results not copied whole -> why

    def finding(self, path: str, code: str, message: str) -> None:
        location = self._owner_of(path)
        found = Finding(
            code=code,
            severity=Severity.ERROR,
            path=path,
            message=message,
            location=location,
            name=RULES[code].name if code in RULES else "",
        )
        self.prepared.findings.append(found)
        if location:
            self.broken.setdefault(location, found)

    def _owner_of(self, path: str) -> str:
        probe = path
        while probe:
            if probe in self.owner:
                return self.owner[probe]
            probe = probe.rpartition("/")[0]
        return ""

    def copy(self, submissions: list[tuple[str, str]], results: list[Result]) -> None:
        """Step 1: the division folders, every accuracy log as the round truncates it, each
        file that looks like a mistake (checker/strays.py, STR012) left out and listed."""
        for result in results:
            for key in preparation(self.round).failed.result_folders:
                folder = result.path(key)
                if folder:
                    self.owner.setdefault(folder, result.location)
        planned = places(self.tree, preparation(self.round).truncation, self.round.layout.files, results)
        skipped = {p.log for p in planned} | {p.report for p in planned}
        for division, submitter in submissions:
            found = strays(
                self.tree.walk(join(division, submitter)),
                RunFolders.of(self.round.layout.performance),
                AccuracyLogs.of(self.round),
                read_head(self.tree),
            )
            for stray in sorted(found, key=lambda stray: stray.rel):
                skipped.add(stray.rel)
                self.prepared.changes.append(
                    Change("left out", stray.rel, f"{stray.what}, not part of the submission", codes=["STR012"])
                )
            self.stage.mkdir(division, _mode(self.tree.abspath(division)))
            copy_folder(self.tree, join(division, submitter), self.stage, skipped.__contains__, self.finding)
        for place in planned:
            try:
                change = truncate(self.tree, self.stage, place, preparation(self.round).truncation)
            except Unreadable as failed:
                why = "the round's truncation reads it whole, so the result is not copied"
                self.finding(failed.path, failed.code, f"{failed.message}; {why}")
                for rel in (place.log, place.report):
                    self.stage.remove(rel)
                continue
            if change is not None:
                self.prepared.changes.append(change)
        self.empty("empty in SRC")

    def empty(self, why: str) -> None:
        self.prepared.changes += [Change("empty folder", rel, why) for rel in self.stage.remove_empty()]

    def settle(self, options: dict[str, Any], move: bool, infer: bool) -> Report:
        """Step 2: check, remove or move what fails, infer, until nothing changes."""
        failed, inference = Failed(self.stage, self.round, move), Inference(self.stage, self.round)
        for _ in range(MAX_ROUNDS):
            report = check(self.stage.root, **options)
            verdicts = sort_results(report, self.round, self.broken)
            self.broken = {}
            changes = failed.apply(report, verdicts.failing)
            changes += inference.apply(verdicts.sound) if infer else []
            if not changes:  # nothing more to infer: what only the benchmark's set fails goes too
                changes = failed.apply(report, verdicts.waiting)
            if not changes:
                return report
            self.prepared.changes += changes
            self.empty("left empty")
        raise RuntimeError(f"prepare did not settle after {MAX_ROUNDS} checks")


def _mode(path: str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _left_out(tree: Tree, round: Round, divisions: set[str], only: tuple[str, ...]) -> list[Change]:
    """What SRC holds beside its division and submitter folders: the round's tools copy only
    those. (Submitters that --submitter leaves out are not listed.)"""
    if only:
        return []
    found = []
    for entry in tree.listdir(""):
        if entry.rel not in round.divisions or entry.kind is not Kind.DIR:
            found.append(Change("left out", entry.rel, f"not a division folder ({', '.join(round.divisions)})"))
        elif entry.rel in divisions:
            found += [
                Change("left out", inner.rel, "not a submitter folder: the round's tools copy only those")
                for inner in tree.listdir(entry.rel)
                if inner.kind is not Kind.DIR
            ]
    return found


def prepare(
    source: str,
    destination: str,
    round_name: str,
    *,
    submitter: str | None = None,
    move: bool = False,
    infer: bool = True,
    dry_run: bool = False,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    waivers: list[Any] | None = None,
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Prepared:
    """Write SRC ready for upload into DEST (nothing at all with `dry_run`) and check it.
    PrepareError for a usage error."""
    where = workspace_of(source, destination)
    round = load_round(round_name)
    if round.prepare is None:
        raise PrepareError(f"{round.origin} has no prepare facts (`prepare:`): give a round file that has them")
    root, only = where.root, where.part
    tree = Tree(root)
    submissions = [s for s in discover(tree, round, only) if submitter is None or s.submitter == submitter]
    if submitter is not None and not submissions:
        raise PrepareError(
            f"--submitter {submitter}: {source} has no {submitter} folder in {', '.join(round.divisions)}"
        )
    results = [r for s in submissions for system in systems_of(s) for r in results_of(system)]
    if not results:
        if tree.unlistable:  # the results are there, too deep to list
            first = min(tree.unlistable)
            raise PrepareError(f"{source}: {first} cannot be listed (FIL025: {too_long(tree.root, first)})")
        raise PrepareError(no_results_reason(source, round))
    _fits(tree, [f"{s.division}/{s.submitter}" for s in submissions], destination)
    prepared = Prepared(source, destination, round, dry_run)
    options = {
        "round": round,
        "select": select,
        "ignore": ignore,
        "jobs": jobs,
        "waivers": waivers,
        "progress": progress,
    }
    stage = Stage(stage_beside(destination, "prepare"))
    try:
        run = _Run(tree, round, stage, prepared)
        pairs = [(s.division, s.submitter) for s in submissions]
        prepared.changes += _left_out(tree, round, {division for division, _ in pairs}, only)
        run.copy(pairs, results)
        prepared.report = run.settle(options, move, infer)
        prepared.findings.sort(key=Finding.sort_key)
        prepared.report.root = os.path.abspath(destination)
        if not dry_run:
            stage.modes[""] = _mode(tree.root)
            stage.finish()
            settle_folder(stage.root, destination)
    except OSError as error:  # reading SRC fails as findings: this is the stage or DEST
        raise PrepareError(f"-o {destination}: cannot write there: {error.strerror or error}") from None
    finally:
        stage.discard()  # nothing there once renamed
    return prepared


# --- the change list -------------------------------------------------------------------


def _line(change: Change) -> str:
    """One line of the change list: names and reasons `visible` (a newline in a folder name
    is `\\n`, never a line of its own), as check's text writes them."""
    from ..escaping import visible

    source = f" (from {visible(change.source)})" if change.source else ""
    return f"{change.action:<14} {visible(change.path)}{source}: {visible(change.reason)}"


def _many(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def summary(prepared: Prepared) -> str:
    """One line: what prepare did, and the verdict of DEST's check."""
    counts = prepared.counts()
    done = ", ".join(
        [
            _many(counts["truncated"] + counts["hashed"], "accuracy log truncated", "accuracy logs truncated"),
            _many(counts["removed"], "result removed", "results removed"),
            f"{counts['moved']} moved to open",
            f"{counts['inferred']} inferred",
            _many(counts["empty folder"], "empty folder removed", "empty folders removed"),
        ]
    )
    report = prepared.report
    if report is None or not report.results:
        verdict = "no result"
    else:
        valid = sum(1 for r in report.results if r.valid)
        verdict = f"{_many(len(report.results), 'result', 'results')}, {valid} valid, " + _many(
            report.counts()["error"], "error", "errors"
        )
    unread = sum(1 for f in prepared.findings if f.severity is Severity.ERROR)
    if unread:
        done += "; " + _many(unread, "file could not be read", "files could not be read")
    if prepared.dry_run:
        where = f"nothing written; {prepared.destination} would hold {verdict}"
    else:
        where = f"{prepared.destination} holds {verdict}"
    return f"prepare{' --dry-run' if prepared.dry_run else ''}: {done}; {where} (exit {prepared.exit_code})"


def to_text(prepared: Prepared) -> str:
    lines = [_line(change) for change in prepared.changes]
    lines += [f"{f.severity.value:<14} {f.code} {f.path}: {f.message}" for f in prepared.findings]
    from ..escaping import text_lines

    return text_lines([*lines, summary(prepared)])


def document(prepared: Prepared) -> dict[str, Any]:
    """What prepare did, as its JSON names it (reporters.as_json writes it)."""
    report = prepared.report
    check_facts: dict[str, Any] = {"exit": prepared.check_exit}
    if report is not None:
        check_facts.update(
            results=len(report.results),
            valid=sum(1 for r in report.results if r.valid),
            findings=report.counts(),
            invalid=[r.location for r in report.results if not r.valid],
            errors=[f.to_dict() for f in report.findings if f.severity is Severity.ERROR and not f.waived],
        )
    return {
        "schema_version": 1,
        "tool": {"name": "mlperf-check", "version": __version__},
        "round": prepared.round.name,
        "source": prepared.source,
        "destination": prepared.destination,
        "dry_run": prepared.dry_run,
        "counts": prepared.counts(),
        "changes": [change.to_dict() for change in prepared.changes],
        "findings": [f.to_dict() for f in prepared.findings],
        "check": check_facts,
        "exit": prepared.exit_code,
    }


FORMATS = Formats({"text": as_text(to_text), "json": as_json(document)})


# --- the command ---------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class CommandLine:
    """prepare's command line."""

    path: str
    output: str
    round: str | None = None
    submitter: str | None = None
    move_failed_to_open: bool = False
    no_infer: bool = False
    dry_run: bool = False
    format: str = "text"
    jobs: int | None = None
    progress: bool = True


def invocation(options: CommandLine) -> Invocation[CommandLine]:
    """SRC's settings (its configuration's select, ignore and waivers too) and round; the
    change list goes to stdout."""
    name = common.choose(FORMATS, options.format, None)
    common.folder(options.path)
    workspace_of(options.path, options.output)  # DEST is refused before anything is read or written
    given = {"select": None, "ignore": None, "waivers": None, "jobs": options.jobs, "round": options.round}
    return dataclasses.replace(common.on_tree(options, options.path, given), outputs=((name, None),))


def run(invocation: Invocation[CommandLine]) -> int:
    """Prepare DEST, print the change list, and exit with DEST's check (why it still fails
    on stderr)."""
    from .check import formats_of

    options, settings = invocation.options, invocation.settings
    assert invocation.round_name is not None
    found = common.waivers(settings.waivers)
    with common.progress(options.progress, f"checking the prepared copy of {options.path}") as tick:
        prepared = prepare(
            options.path,
            options.output,
            invocation.round_name,
            submitter=options.submitter,
            move=options.move_failed_to_open,
            infer=not options.no_infer,
            dry_run=options.dry_run,
            select=list(settings.select),
            ignore=list(settings.ignore),
            waivers=list(found),
            jobs=settings.jobs or None,
            progress=tick,
        )
    common.emit(invocation.plan, FORMATS, invocation.format, None, prepared)
    if prepared.report is not None and prepared.report.has_errors:  # why DEST still fails
        formats_of(True, False, "auto").write("text", sys.stderr, prepared.report)
    if invocation.format != "text":
        common.say(summary(prepared))
    return prepared.exit_code
