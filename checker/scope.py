"""`check --changed-since REF`: only the results a change since REF can affect.

A changed file inside a result folder pulls in that result; a system description pulls in
every result of the system; a compliance or measurements folder (v5.x keeps them beside
results/) pulls in its result; model_mapping.json pulls in the whole submission; any other
file of a submitter (documentation, code) runs the submission's own rules and the results
of the benchmark whose code changed."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field

from .rounds import Round


@dataclass(frozen=True)
class Scope:
    results: frozenset[str] = field(default_factory=frozenset)  # result locations, and folder prefixes ending in /
    systems: frozenset[str] = field(default_factory=frozenset)  # division/submitter/systems/<name>
    submissions: frozenset[str] = field(default_factory=frozenset)  # division/submitter
    changed: int = 0  # how many changed paths were read

    def has_result(self, location: str) -> bool:
        """Whether a result is in scope: named, or under a folder (`.../` entries, `*` globs)."""
        return any(location == entry or (entry.endswith("/") and fnmatch.fnmatchcase(location, entry + "*"))
                   for entry in self.results)


def changed_paths(root: str, ref: str) -> list[str]:
    """Files changed since `ref` (committed, staged, unstaged or untracked), relative to
    `root`, POSIX style. Raises ValueError when root is not in a git repository or ref is unknown."""
    import git  # gitpython

    try:
        repo = git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as error:
        raise ValueError(f"{root} is not inside a git repository") from error
    try:
        repo.commit(ref)
    except (git.BadName, ValueError, git.GitError) as error:
        raise ValueError(f"{ref!r} is not a commit of {repo.working_tree_dir}") from error
    top = os.path.realpath(repo.working_tree_dir)
    inside = os.path.relpath(os.path.realpath(root), top).replace(os.sep, "/")
    inside = "" if inside == "." else inside + "/"
    try:
        names = repo.git.diff("--name-only", "--no-renames", ref, "--", inside or ".").splitlines()
        names += [n for n in repo.untracked_files if n.startswith(inside)]
    except git.GitError as error:  # no git executable, or git refused (e.g. an unsafe directory)
        raise ValueError(f"git cannot list the changes since {ref!r}: {error}") from error
    return sorted({n[len(inside):] for n in names if n.startswith(inside)})


def scope_of(paths: list[str], round: Round) -> Scope:
    results: set[str] = set()
    systems: set[str] = set()
    submissions: set[str] = set()
    results_root = round.results_root
    beside = {}  # v5.x: compliance/ and measurements/ folders that mirror results/
    for name in ("compliance", "measurements"):
        template = round.layout.get(name, "")
        if isinstance(template, str) and not template.startswith("{result}"):
            beside[template.split("/")[0]] = len(template.split("/"))
    for path in paths:
        parts = path.split("/")
        if len(parts) < 3 or parts[0] not in round.divisions:
            continue
        submission = "/".join(parts[:2])
        top, rest = parts[2], parts[3:]
        if top == "systems" and rest and rest[-1].endswith(".json"):
            systems.add(f"{submission}/systems/{rest[-1][:-len('.json')]}")
        elif top == results_root and rest:
            results.add(_result(submission, results_root, rest))
        elif top in beside and rest:
            results.add(_result(submission, results_root, rest[: beside[top] - 1]))
        elif top == "model_mapping.json":
            results.add(f"{submission}/{results_root}/")
            submissions.add(submission)
        else:
            submissions.add(submission)
            code = (round.layout.get("code") or "").split("/")[0]
            if top == code and rest:  # code/<benchmark>: the benchmark's results (STR005)
                results.add(f"{submission}/{results_root}/*/{rest[0]}/")
    return Scope(frozenset(results), frozenset(systems), frozenset(submissions), len(paths))


def _result(submission: str, results_root: str, rest: list[str]) -> str:
    """A result location (system/benchmark/scenario), or a folder prefix ending in / when
    the change is above the scenario level."""
    if len(rest) >= 3:
        return "/".join([submission, results_root] + rest[:3])
    return "/".join([submission, results_root] + rest) + "/"
