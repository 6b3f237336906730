"""A narrowed check (`check --changed-since REF`, `check FILE...`): which results the changed
paths can affect, and git's listing of the changes.

A path names the results that depend on it, the narrowest set that exists:

- a file of a result folder, or of its compliance or measurements folder (v5.x keeps them
  beside results/): that result. A file added or deleted names its benchmark's results on
  the system, since which scenarios a benchmark has is judged per benchmark (STR003);
- a file above the scenario level under results/: the results under its folder;
- a system description: the results of that system;
- a modified file of a benchmark's code folder (code/<benchmark>, src/<benchmark>): that
  benchmark's results on every system;
- any other file of a submitter folder (model_mapping.json, calibration.md, documentation, a
  code folder that appears or goes), or the submitter folder itself: every result of the
  submitter, and its systems without results;
- a division folder given (among other paths): every result of the division.

When no result a path names exists (a deleted result, a system without results), it names
the next wider set, up to the whole submitter folder. A path outside every submitter folder
names none. Then every named result is checked exactly as a whole check checks it: its
submitter folder's rules, its system's rules and its own (engine.check), so that its
findings and verdict are a whole check's.

Two inputs are read by every verdict, not by some results: the waivers file and the
[tool.mlperf-check] table. When one changed since the ref (`changed_inputs`), the check is
whole. pre-commit passes the files that stay, never a deleted one: `staged_deletions` lists
those of the git index, which name the results that read them like any other path."""

from __future__ import annotations

import atexit
import functools
import os
import re
import subprocess
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import UsageError

if TYPE_CHECKING:
    from .rounds import Round


@dataclass(frozen=True)
class Pick:
    """The results under `prefix` (a folder, ending in /), of `benchmark` only when given.
    `whole`: the pick of a whole submitter folder, whose every system is checked, those
    without results too."""

    prefix: str
    benchmark: str | None = None
    whole: bool = False

    def takes(self, location: str, benchmark: str) -> bool:
        """Whether the result at `location` (of `benchmark`) is picked. Names are compared
        as they are: a folder named with `*` or `[` is no pattern."""
        return (location + "/").startswith(self.prefix) and self.benchmark in (None, benchmark)

    def within(self, submission: str) -> bool:
        """Whether the pick can take a result of the submission `division/submitter`."""
        folder = submission + "/"
        return folder.startswith(self.prefix) or self.prefix.startswith(folder)


@dataclass(frozen=True)
class Scope:
    """The results a narrowed check judges. Each changed path gives a chain of picks, the
    narrowest first; the first pick that takes an existing result names the path's results
    (a whole-submitter pick always does). `results` names result locations directly, each a
    chain of its own with no wider pick. The engine checks every named result exactly as a
    whole check does: its submitter folder's rules, its system's rules and its own."""

    chains: frozenset[tuple[Pick, ...]] = field(default_factory=frozenset)
    results: frozenset[str] = field(default_factory=frozenset)
    changed: int = 0  # how many changed paths were read
    outside: tuple[str, ...] = ()  # changed paths in no submitter folder: they affect no result

    @functools.cached_property
    def _chains(self) -> tuple[tuple[Pick, ...], ...]:
        return tuple(sorted(self.chains, key=repr)) + tuple(
            (Pick(location + "/"),) for location in sorted(self.results)
        )

    def touches(self, submission: str) -> bool:
        """Whether a path in scope lies in the submission `division/submitter`: only such a
        submission's folders need listing."""
        return any(chain[0].within(submission) or chain[-1].within(submission) for chain in self._chains)

    def resolve(self, submission: str, results: list[tuple[str, str]]) -> frozenset[str] | None:
        """The locations to check among `results`, the (location, benchmark) of every result
        of the submission `division/submitter`; None when the whole submission is checked."""
        chosen: set[str] = set()
        for chain in self._chains:
            for pick in chain:
                if not pick.within(submission):
                    continue
                if pick.whole:
                    return None
                taken = {location for location, benchmark in results if pick.takes(location, benchmark)}
                if taken:
                    chosen |= taken
                    break
        return frozenset(chosen)


def git_env() -> dict[str, str]:
    """The environment of every git this tool runs: git only reads. Without optional locks
    (GIT_OPTIONAL_LOCKS=0), no git refreshes an index it would otherwise rewrite (`status`
    inside a submodule, run by diff-index to tell whether it is dirty, rewrites
    .git/modules/<path>/index)."""
    return {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}


_GITLINK = "160000"  # a submodule: its changes are those of every file under it
_BLOBS = ("100644", "100755")  # regular files; a link or a submodule that looks changed stays changed

# A ref that names one revision in the plain syntax: `REF^{commit}` then names its commit. A
# range (a..b, x^!), a leading dash or anything stranger is resolved by `rev-parse` first.
_PLAIN_REF = re.compile(r"(?!-)(?!.*\.\.)(?!.*\^[!@-])[A-Za-z0-9_./@{}~^+-]+")


class Changes:
    """The files changed since a ref, listed by git in the background: started at once, so
    that git walks the tree while the check loads its round and rules. Two git processes,
    side by side: `ls-files --others` (the untracked files; it walks every folder) and
    `diff-index --name-only REF^{commit}` (committed, staged and unstaged changes), both run
    in root and relative to it. Neither writes: porcelain `git diff` rewrites .git/index when
    it finds stale stat data (a touched file), and the checked tree stays byte-identical.
    diff-index gives such a file as modified; `hash-object` then tells whether its content
    really differs from the ref's.
    `paths()` waits for them; only when one fails does `rev-parse` say why (not a
    repository, not a commit)."""

    def __init__(self, root: str, ref: str) -> None:
        self.root, self.ref = root, ref
        self._running: list[subprocess.Popen[bytes]] = []
        self.commit = ""  # the ref as git names its commit (`REF^{commit}`, or the hash)
        self.gitlinks: set[str] = set()  # changed submodules: folders, each changing all it holds
        self._error: UsageError | None = None
        atexit.register(self.close)  # a check that ends early (a usage error) leaves no git behind
        try:
            self._others = self._start("ls-files", "--others", "--exclude-standard", "-z")
            commit = f"{ref}^{{commit}}" if _PLAIN_REF.fullmatch(ref) else self._resolve()
            self.commit = commit
            if self._error is None:
                self._diff = self._start(
                    "diff-index", "-z", "--no-renames", "--ignore-submodules=none", "--relative", commit, "--"
                )
        except OSError as error:  # no git executable
            self._error = UsageError(f"git cannot list the changes since {ref!r}: {error}")

    def _start(self, *args: str) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            ["git", *args],
            cwd=self.root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=git_env(),
        )
        self._running.append(process)
        return process

    def _resolve(self) -> str:
        """The commit the ref names; else "" and the error that says why."""
        ref = self.ref
        verify = [] if ref.startswith("-") else ["--verify", "--quiet", f"{ref}^{{commit}}"]
        done = subprocess.run(
            ["git", "rev-parse", "--show-toplevel", *verify],
            cwd=self.root,
            env=git_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
        )
        lines = done.stdout.decode("utf-8", "replace").splitlines()
        if verify and done.returncode == 0 and len(lines) == 2:
            return lines[1]
        stderr = done.stderr.decode("utf-8", "replace").strip()
        if lines:
            self._error = UsageError(f"{ref!r} is not a commit of {lines[0]}")
        elif "not a git repository" in stderr:
            self._error = UsageError(f"{self.root} is not inside a git repository")
        else:  # no work tree, or git refused it (e.g. an unsafe directory)
            self._error = UsageError(f"git cannot list the changes since {ref!r}: {stderr}")
        return ""

    def paths(self) -> list[str]:
        """Files changed since the ref (committed, staged, unstaged or untracked), relative
        to root, POSIX style. Raises ValueError when root is not in a git repository, the ref
        names no commit, or git fails."""
        return sorted(self.statuses())

    def statuses(self) -> dict[str, str]:
        """Each changed file (as `paths`) with how: "A" added (or untracked), "D" deleted,
        "M" modified, or git's other letter (T, a file that became a link); "?" when git's
        record could not be read."""
        try:
            if self._error is None:
                found = self._tracked()
                found.update(dict.fromkeys(self._output(self._others), "A"))
                if self._error is None:
                    return found
            raise self._error
        finally:
            self.close()

    def _output(self, process: subprocess.Popen[bytes]) -> list[str]:
        return [os.fsdecode(name) for name in self._bytes(process).split(b"\0") if name]

    def _bytes(self, process: subprocess.Popen[bytes]) -> bytes:
        out, err = process.communicate()
        if process.returncode != 0 and self._error is None:
            if not self._resolve():  # why: not a repository, not a commit
                return b""
            detail = err.decode("utf-8", "replace").strip()
            self._error = UsageError(f"git cannot list the changes since {self.ref!r}: {detail}")
        return out

    def _tracked(self) -> dict[str, str]:
        """The tracked files that differ from the ref, each with its status letter.
        diff-index (raw, -z: `:MODE MODE SHA SHA STATUS\0PATH\0`) gives a file whose stat data
        is stale (touched, or a hard link made) as modified with no worktree hash; such a file
        counts only when its content's hash differs from the ref's blob."""
        fields = self._bytes(self._diff).split(b"\0")
        if self._error is not None:  # diff-index failed: paths() says why
            return {}
        found, stale = {}, {}
        # The output ends in \0, so the last field is empty and has no partner: zip drops it.
        for meta, name in zip(fields[0::2], fields[1::2], strict=False):
            words = meta.decode("ascii", "replace").lstrip(":").split()
            path = os.fsdecode(name)
            if len(words) < 5:  # a record git did not write so: the path counts as changed
                words = ["", "", "", "", "?"]
            old_mode, new_mode, old_sha, new_sha, status = words[:5]
            if _GITLINK in (old_mode, new_mode):
                self.gitlinks.add(path)
            if status == "M" and old_mode == new_mode and old_mode in _BLOBS and not new_sha.strip("0"):
                stale[path] = old_sha
            else:
                found[path] = status[:1] or "?"
        return found | dict.fromkeys(self._differing(stale), "M")

    def _differing(self, stale: dict[str, str]) -> list[str]:
        """Of files with stale stat data, those whose content differs from the ref's blob
        (`git hash-object`, which applies the repository's filters and writes nothing); all
        of them when git cannot say."""
        asked = [path for path in stale if "\n" not in path]  # one path a line
        if not asked:
            return list(stale)
        # Absolute paths: git resolves --stdin-paths against the repository's top, not the
        # folder it runs in, so a relative path from a subfolder would name another file.
        top = os.path.abspath(self.root)
        done = subprocess.run(
            ["git", "hash-object", "--stdin-paths"],
            cwd=self.root,
            env=git_env(),
            capture_output=True,
            input=b"".join(os.fsencode(os.path.join(top, path)) + b"\n" for path in asked),
        )
        hashes = done.stdout.decode("ascii", "replace").split()
        if done.returncode != 0 or len(hashes) != len(asked):
            return list(stale)
        return [path for path in stale if "\n" in path] + [  # those not asked, then those that differ
            path for path, sha in zip(asked, hashes, strict=True) if sha != stale[path]
        ]

    def listing(self) -> bool:
        """Whether git is still listing: a process of it has not ended."""
        return any(process.poll() is None for process in self._running)

    def close(self) -> None:
        """Stop what still runs (a check that ends early, on a usage error)."""
        for process in self._running:
            if process.poll() is None:
                process.kill()
            process.communicate()
        self._running = []
        atexit.unregister(self.close)


# Listings started before the command's own modules load (`start_early`), by (folder, ref).
_EARLY: dict[tuple[str, str], Changes] = {}


def start_early(paths: list[str], ref: str) -> None:
    """Start git's listing for the one folder given to `check --changed-since REF`, as soon as
    the command line is read: git walks the tree while the check's modules, round and rules
    load. `changes` takes it over when that folder is the tree's root; else it is stopped."""
    if len(paths) == 1 and os.path.isdir(paths[0]):
        key = (os.path.realpath(paths[0]), ref)
        if key not in _EARLY:
            _EARLY[key] = Changes(paths[0], ref)


def changes(root: str, ref: str) -> Changes:
    """The listing of the changes in `root` since `ref`: the one `start_early` started for
    it, else one started now (any other started early is stopped)."""
    early = _EARLY.pop((os.path.realpath(root), ref), None)
    stop_early()
    if early is not None and early.root != root:
        early.root = root  # the same folder, named as the workspace names it
    return early if early is not None else Changes(root, ref)


def stop_early() -> None:
    """Stop every listing `start_early` started that no check took over: the command that
    started it has ended (a usage error before its check began). A listing left for the next
    command of the same process (a test, a program running the command line) would give it
    the changes as they were then: a change made since would go unchecked."""
    for early in _EARLY.values():
        early.close()
    _EARLY.clear()


def changed_inputs(
    commit: str, inputs: Mapping[str, Callable[[bytes | None], Any]], unknown: bool = False
) -> list[str]:
    """Of files read by every verdict (the waivers file, the pyproject.toml of the
    configuration), given by path with what of them counts (`inputs[path](content)`, None
    for no file), those that count otherwise at `commit`: those widen a narrowed check to a
    whole one. A file outside the repository, or not in git, counts as `unknown` says."""
    changed = []
    for path, meaning in inputs.items():
        folder, name = os.path.split(os.path.abspath(path))
        try:
            done = subprocess.run(
                ["git", "show", f"{commit}:./{name}"],
                cwd=folder,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                env=git_env(),
            )
        except OSError:
            done = None
        missing = done is not None and re.search(rb"does not exist in|exists on disk, but not in", done.stderr)
        if done is None or (done.returncode != 0 and not missing):
            if unknown:  # outside the repository, or git cannot say
                changed.append(path)
            continue
        try:
            with open(path, "rb") as handle:
                now: bytes | None = handle.read()
        except OSError:
            now = None
        if meaning(done.stdout if done.returncode == 0 else None) != meaning(now):
            changed.append(path)
    return changed


def staged_deletions(root: str) -> list[str]:
    """The files under `root` (relative to it, POSIX style) that the index deletes from HEAD:
    pre-commit never passes them, but the results that read them must be checked. Plumbing
    (diff-index --cached) that never rewrites the index; [] outside a repository or with no
    HEAD yet."""
    try:
        done = subprocess.run(
            ["git", "diff-index", "--cached", "--name-only", "--diff-filter=D", "-z", "--relative", "HEAD", "--"],
            cwd=root,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=git_env(),
        )
    except OSError:
        return []
    if done.returncode != 0:
        return []
    return [os.fsdecode(name) for name in done.stdout.split(b"\0") if name]


def changed_paths(root: str, ref: str) -> list[str]:
    """Files changed since `ref` (committed, staged, unstaged or untracked), relative to
    `root`, POSIX style. Raises ValueError when root is not in a git repository or ref is unknown."""
    return Changes(root, ref).paths()


# How a path changed, when it may have made or removed a file or folder: added, deleted, a
# type change (a file become a link), or not known (a path given, not listed by git).
APPEARS_OR_GOES = frozenset("ADT?")


def scope_of(changes: Mapping[str, str] | Iterable[str], round: Round, folders: Iterable[str] = ()) -> Scope:
    """The scope of changed paths, relative to the checked root: a mapping of each path to
    its status letter (Changes.statuses), or paths whose status is not known ("?").
    `folders` are the given paths that name folders (a path from git is a file)."""
    statuses = dict(changes) if isinstance(changes, Mapping) else dict.fromkeys(changes, "?")
    folders = frozenset(folders)
    chains: set[tuple[Pick, ...]] = set()
    outside = []
    for path, status in statuses.items():
        chain = _chain(path.strip("/"), status, path.strip("/") in folders, round)
        if chain:
            chains.add(chain)
        else:
            outside.append(path)
    return Scope(frozenset(chains), changed=len(statuses), outside=tuple(sorted(outside)))


def _chain(path: str, status: str, folder: bool, round: Round) -> tuple[Pick, ...]:
    """The picks of the results that depend on `path`, the narrowest first (module doc);
    () for a path in no submitter folder."""
    parts = path.split("/")
    if parts[0] not in round.divisions or (len(parts) <= 2 and not folder):
        return ()  # a file beside the division or submitter folders: no submission reads it
    if len(parts) == 1:
        return (Pick(parts[0] + "/", whole=True),)  # a division folder given
    submission, top, rest = "/".join(parts[:2]), parts[2] if len(parts) > 2 else "", parts[3:]
    root = f"{submission}/{round.results_root}/"
    whole = Pick(root, whole=True)
    moved = status in APPEARS_OR_GOES
    if top == round.results_root and rest:
        picks = [Pick(root + "/".join(rest[:depth]) + "/") for depth in (3, 2, 1) if len(rest) >= depth]
        if moved and len(rest) >= 3:  # which scenarios a benchmark has is judged per benchmark (STR003)
            picks = picks[1:]
        return (*picks, whole)
    beside = _beside(round).get(top)
    if beside and rest:  # v5.x: compliance/ and measurements/ mirror results/
        return (Pick(root + "/".join(rest[: beside - 1]) + "/"), whole)
    if top == "systems" and len(rest) == 1 and rest[0].endswith(".json"):
        return (Pick(root + rest[0][: -len(".json")] + "/"), whole)
    code = round.layout.code.split("/")[0]
    if top == code and rest and not moved:  # a benchmark's code (STR005 reads whether its folder is there)
        return (Pick(root, benchmark=rest[0]), whole)
    return (whole,)


def _beside(round: Round) -> dict[str, int]:
    """The folders beside results/ that mirror it (v5.x compliance/ and measurements/), with
    the depth of a result's folder in them."""
    found = {}
    for template in (round.layout.compliance, round.layout.measurements):
        if template and not template.startswith("{result}"):
            found[template.split("/")[0]] = len(template.split("/"))
    return found
