"""Discovery: the submissions, systems and results of a tree, as the round's layout names
them. It lists folders and reads no file (but the open division's `model_mapping.json`);
what it cannot enter (links out of the tree, folders named only in another case) is a
finding."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..findings import Finding, Severity
from ..registry import RULES
from ..rounds import Round
from ..tree import Kind, Tree, join
from ..workspace import too_long
from .result import Result
from .submission import Submission, System, entered

if TYPE_CHECKING:
    from ..workspace import Workspace


def no_results_reason(path: str, round: Round) -> str:
    """Why a tree holds no results, naming the folder to give instead (workspace.no_results_reason)."""
    from ..workspace import no_results_reason as reason

    return reason(path, round.divisions, round.results_root)


def holds_results(where: Workspace, round: Round) -> bool:
    """Whether the workspace's tree has a result at all."""
    return any(
        results_of(system)
        for submission in discover(Tree(where.root), round, where.part)
        for system in systems_of(submission)
    )


LINK_KINDS = {
    Kind.OUTSIDE: ("FIL006", "is a symlink that leaves the checked folder; it was not followed"),
    Kind.BROKEN: ("FIL010", "is a broken symlink"),
    Kind.OTHER: ("FIL011", "is not a regular file or folder"),
    Kind.TOO_LONG: ("FIL025", "cannot be opened"),  # and why: workspace.too_long
}


def _unfollowed(tree: Tree, rel: str, what: str) -> list[Finding]:
    """Findings for the entries of a folder that discovery cannot enter: links out of the
    tree, broken links, FIFOs and devices. Plain files beside the folders are fine."""
    found = []
    for entry in tree.listdir(rel):
        if entry.kind in LINK_KINDS:
            code, text = LINK_KINDS[entry.kind]
            if entry.kind is Kind.TOO_LONG:
                text += f": {too_long(tree.root, entry.rel)}"
            found.append(
                Finding(
                    code=code,
                    severity=Severity.ERROR,
                    path=entry.rel,
                    message=f"{what} {entry.rel} {text}",
                    name=RULES[code].name if code in RULES else "",
                    subject=entry.rel,
                )
            )
    return found


def _clash_finding(path: str, message: str, canonical: str | None, concerns: tuple[str, ...]) -> Finding:
    code = "STR011"
    return Finding(
        code=code,
        severity=RULES[code].severity if code in RULES else Severity.ERROR,
        path=path,
        message=message,
        observed=path.rpartition("/")[2],
        expected=canonical,
        name=RULES[code].name if code in RULES else "",
        concerns=concerns,
    )


def discover(tree: Tree, round: Round, only: tuple[str, ...] = ()) -> list[Submission]:
    """The `<division>/<submitter>` folders under the root (those `only` names, when given)."""
    divisions = set(round.divisions)
    top = tree.subdirs("")
    found = [(div, sub) for div in top if div in divisions for sub in tree.subdirs(div)]
    return [Submission(tree, round, div, sub) for div, sub in found if (div, sub)[: len(only)] == only]


def discovery_findings(tree: Tree, round: Round, only: tuple[str, ...] = ()) -> list[Finding]:
    """What discovery could not enter at the division and submitter levels: links, and a
    division folder that the round does not name because of its case (`Closed/`)."""
    found: list[Finding] = []
    spelled = {division.casefold(): division for division in round.divisions}
    for folder in tree.subdirs(""):
        division = spelled.get(folder.casefold())
        if division is None or (division,)[: len(only)] != only[:1]:
            continue
        if folder != division:
            found.append(
                _clash_finding(
                    folder,
                    f"division folder `{folder}` is not the round's `{division}`: its results are not checked "
                    f"and are no results of {round.name}",
                    division,
                    (),
                )
            )
            continue
        found += [
            f
            for f in _unfollowed(tree, division, "submitter folder")
            if (division, f.path.rpartition("/")[2])[: len(only)] == only
        ]
    return found


def unfollowed_folders(submission: Submission) -> list[Finding]:
    """Folders of the submission's results and systems that discovery could not enter."""
    tree, round = submission.tree, submission.round
    base = join(submission.rel, round.results_root)
    with_results = set(submission.systems_with_results)
    # A description of a system with results is reported where it is read (the reader).
    found = _unfollowed(tree, base, "system folder") + [
        f
        for f in _unfollowed(tree, join(submission.rel, "systems"), "system description")
        if f.path.rpartition("/")[2].removesuffix(".json") not in with_results
    ]
    for system in sorted(with_results):
        found += _unfollowed(tree, join(base, system), "benchmark folder")
        for benchmark in tree.subdirs(join(base, system)):
            found += _unfollowed(tree, join(base, system, benchmark), "scenario folder")
    return found


def systems_of(submission: Submission) -> list[System]:
    """Systems with a results folder or a description; each appears once."""
    return [System(submission, name) for name in sorted(submission.systems_with_results | submission.described_systems)]


def results_of(system: System) -> list[Result]:
    """The results of a system: every `<benchmark>/<scenario>` folder of its results, except
    a folder whose name differs only in case from the one beside it that the round names.
    Found once per System: the engine, its system rules and the rules that look at a
    result's neighbours (STR002 asks for each result) see the same Result objects, each
    read once."""
    if "results" not in system.cache:
        system.cache["results"] = tuple(_results_of(system))
    found: tuple[Result, ...] = system.cache["results"]
    return list(found)


def _results_of(system: System) -> list[Result]:
    submission = system.submission
    tree = submission.tree
    base = join(submission.rel, submission.round.results_root, system.name)
    if system.name not in submission.systems_with_results:
        return []
    found = []
    for benchmark in entered(tree.subdirs(base), submission.names_benchmark):
        for scenario in entered(tree.subdirs(join(base, benchmark)), submission.names_scenario):
            found.append(Result(system, benchmark, scenario))
    return found


def result_locations(submission: Submission) -> frozenset[str]:
    """The folders of every result of the submission (computed once)."""
    if "result_locations" not in submission.cache:
        submission.cache["result_locations"] = frozenset(
            result.location for system in systems_of(submission) for result in results_of(system)
        )
    found: frozenset[str] = submission.cache["result_locations"]
    return found


def result_holding(submission: Submission, rel: str) -> str | None:
    """The result a path of the submission belongs to (`Submission.results_folder_of`): the
    one whose folder is the path or holds it; None when the path is part of no result."""
    folder, locations = submission.results_folder_of(rel), result_locations(submission)
    while folder and folder not in locations:
        folder = folder.rpartition("/")[0]
    return folder or None
