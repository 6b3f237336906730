"""`check --changed-since REF`: only the results a change since REF can affect.

A changed file inside a result folder pulls in that result; a system description pulls in
every result of the system; a compliance or measurements folder (v5.x keeps them beside
results/) pulls in its result; model_mapping.json pulls in the whole submission; any other
file of a submitter (documentation, code) pulls in the results of the benchmark whose code
changed. Every change runs its submission's own rules, which judge files anywhere in the
submission (a file over the size limit, a system left without results)."""

from __future__ import annotations

import atexit
import functools
import os
import re
import subprocess
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rounds import Round


@dataclass(frozen=True)
class Scope:
    results: frozenset[str] = field(default_factory=frozenset)  # result locations, and folder prefixes ending in /
    systems: frozenset[str] = field(default_factory=frozenset)  # division/submitter/systems/<name>
    submissions: frozenset[str] = field(default_factory=frozenset)  # division/submitter
    changed: int = 0  # how many changed paths were read
    # division/submitter/benchmark: every result of a benchmark whose code changed, on any system
    benchmarks: frozenset[str] = field(default_factory=frozenset)

    def touches(self, submission: str) -> bool:
        """Whether anything in scope lies in the submission `division/submitter`: only such
        a submission's folders need listing."""
        return submission in self._heads

    @functools.cached_property
    def _heads(self) -> frozenset[str]:
        """The `division/submitter` part of every entry."""
        return frozenset(
            "/".join(entry.split("/", 2)[:2])
            for entry in (*self.submissions, *self.systems, *self.results, *self.benchmarks)
        )

    def has_result(self, location: str) -> bool:
        """Whether a result (division/submitter/results/system/benchmark/scenario) is in
        scope: named, under a folder entry (ending in /), or of a benchmark entry. Names are
        compared as they are: a folder named with `*` or `[` is no pattern."""
        if location in self.results or any(
            entry.endswith("/") and location.startswith(entry) for entry in self.results
        ):
            return True
        parts = location.split("/")
        return len(parts) >= 6 and "/".join(parts[:2] + parts[4:5]) in self.benchmarks


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
        self._error: ValueError | None = None
        atexit.register(self.close)  # a check that ends early (a usage error) leaves no git behind
        try:
            self._others = self._start("ls-files", "--others", "--exclude-standard", "-z")
            commit = f"{ref}^{{commit}}" if _PLAIN_REF.fullmatch(ref) else self._resolve()
            if self._error is None:
                self._diff = self._start("diff-index", "-z", "--no-renames", "--relative", commit, "--")
        except OSError as error:  # no git executable
            self._error = ValueError(f"git cannot list the changes since {ref!r}: {error}")

    def _start(self, *args: str) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            ["git", *args], cwd=self.root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
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
            stdin=subprocess.DEVNULL,
            capture_output=True,
        )
        lines = done.stdout.decode("utf-8", "replace").splitlines()
        if verify and done.returncode == 0 and len(lines) == 2:
            return lines[1]
        stderr = done.stderr.decode("utf-8", "replace").strip()
        if lines:
            self._error = ValueError(f"{ref!r} is not a commit of {lines[0]}")
        elif "not a git repository" in stderr:
            self._error = ValueError(f"{self.root} is not inside a git repository")
        else:  # no work tree, or git refused it (e.g. an unsafe directory)
            self._error = ValueError(f"git cannot list the changes since {ref!r}: {stderr}")
        return ""

    def paths(self) -> list[str]:
        """Files changed since the ref (committed, staged, unstaged or untracked), relative
        to root, POSIX style. Raises ValueError when root is not in a git repository, the ref
        names no commit, or git fails."""
        try:
            if self._error is None:
                names = self._tracked() + self._output(self._others)
                if self._error is None:
                    return sorted(set(names))
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
            self._error = ValueError(f"git cannot list the changes since {self.ref!r}: {detail}")
        return out

    def _tracked(self) -> list[str]:
        """The tracked files that differ from the ref. diff-index (raw, -z: `:MODE MODE SHA
        SHA STATUS\0PATH\0`) gives a file whose stat data is stale (touched, or a hard link
        made) as modified with no worktree hash; such a file counts only when its content's
        hash differs from the ref's blob."""
        fields = self._bytes(self._diff).split(b"\0")
        if self._error is not None:  # diff-index failed: paths() says why
            return []
        names, stale = [], {}
        for meta, name in zip(fields[0::2], fields[1::2]):
            words = meta.decode("ascii", "replace").lstrip(":").split()
            path = os.fsdecode(name)
            if len(words) < 5:  # a record git did not write so: the path counts as changed
                words = ["", "", "", "", ""]
            old_mode, new_mode, old_sha, new_sha, status = words[:5]
            if status == "M" and old_mode == new_mode and old_mode in _BLOBS and not new_sha.strip("0"):
                stale[path] = old_sha
            else:
                names.append(path)
        return names + self._differing(stale)

    def _differing(self, stale: dict[str, str]) -> list[str]:
        """Of files with stale stat data, those whose content differs from the ref's blob
        (`git hash-object`, which applies the repository's filters and writes nothing); all
        of them when git cannot say."""
        asked = [path for path in stale if "\n" not in path]  # one path a line
        if not asked:
            return list(stale)
        done = subprocess.run(
            ["git", "hash-object", "--stdin-paths"],
            cwd=self.root,
            capture_output=True,
            input=b"".join(os.fsencode(path) + b"\n" for path in asked),
        )
        hashes = done.stdout.decode("ascii", "replace").split()
        if done.returncode != 0 or len(hashes) != len(asked):
            return list(stale)
        return [path for path in stale if path not in asked] + [
            path for path, sha in zip(asked, hashes) if sha != stale[path]
        ]

    def close(self) -> None:
        """Stop what still runs (a check that ends early, on a usage error)."""
        for process in self._running:
            if process.poll() is None:
                process.kill()
            process.communicate()
        self._running = []
        atexit.unregister(self.close)


def changed_paths(root: str, ref: str) -> list[str]:
    """Files changed since `ref` (committed, staged, unstaged or untracked), relative to
    `root`, POSIX style. Raises ValueError when root is not in a git repository or ref is unknown."""
    return Changes(root, ref).paths()


def scope_of(paths: list[str], round: Round) -> Scope:
    results: set[str] = set()
    systems: set[str] = set()
    submissions: set[str] = set()
    benchmarks: set[str] = set()
    results_root = round.results_root
    code = (round.layout.get("code") or "").split("/")[0]
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
            systems.add(f"{submission}/systems/{rest[-1][: -len('.json')]}")
        elif top == results_root and rest:
            results.add(_result(submission, results_root, rest))
            submissions.add(submission)  # its rules judge files under results/ too (size, systems without results)
        elif top in beside and rest:
            results.add(_result(submission, results_root, rest[: beside[top] - 1]))
            submissions.add(submission)
        elif top == "model_mapping.json":
            results.add(f"{submission}/{results_root}/")
            submissions.add(submission)
        else:
            submissions.add(submission)
            if top == code and rest:  # code/<benchmark>: the benchmark's results (STR005)
                benchmarks.add(f"{submission}/{rest[0]}")
    return Scope(frozenset(results), frozenset(systems), frozenset(submissions), len(paths), frozenset(benchmarks))


def _result(submission: str, results_root: str, rest: list[str]) -> str:
    """A result location (system/benchmark/scenario), or a folder prefix ending in / when
    the change is above the scenario level."""
    if len(rest) >= 3:
        return "/".join([submission, results_root] + rest[:3])
    return "/".join([submission, results_root] + rest) + "/"
