"""The tree `prepare` builds: a stage folder beside DEST, renamed onto it when it is done.

Every file the stage gets is written by `checker.output.new_file`, the project's one writer. Files come from the checked tree through
`Tree.open`: a link that stays inside SRC is followed (the upload holds no links), one that
leaves it, points nowhere or loops back into its own folder is never followed, and neither
is a FIFO or a device; each of those is a problem the caller turns into a finding. Folders
keep SRC's modes, which are put on only when the stage is finished, so it stays writable
while prepare works in it."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..output import new_file
from ..tree import FileChanged, Kind, Tree, join

CHUNK = 1 << 20
WORKING_MODE = 0o700  # a stage folder's mode until `finish` puts SRC's on

# (rel, code, message): what could not be copied, and why.
Problem = Callable[[str, str, str], None]

# What a file that is not one to copy is, and the code of its finding.
UNFOLLOWED = {
    Kind.OUTSIDE: ("FIL006", "is a symlink that leaves the source folder"),
    Kind.BROKEN: ("FIL010", "is a broken symlink"),
    Kind.OTHER: ("FIL011", "is not a regular file or folder"),
    Kind.TOO_LONG: ("FIL025", "cannot be opened: its path is longer than the 4095 bytes a file system opens by name"),
    Kind.DIR: ("FIL005", "is a folder"),
}


@dataclass
class Change:
    """One thing prepare did to the tree, and why: a log truncated, a result removed, moved
    or inferred, an empty folder removed. `path` is where the thing is in DEST (in SRC for
    what was removed or left out); `source` is what a moved or inferred result came from."""

    action: str
    path: str
    reason: str
    source: str = ""
    codes: list[str] = field(default_factory=list)  # the finding codes behind it
    facts: dict[str, Any] = field(default_factory=dict)  # bytes, hash

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"action": self.action, "path": self.path}
        if self.source:
            data["source"] = self.source
        data["reason"] = self.reason
        if self.codes:
            data["codes"] = self.codes
        data.update(self.facts)
        return data


class SourceError(Exception):
    """Reading a file of SRC failed (not writing the stage): `error` says how."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


def read_chunks(fd: int) -> Iterator[bytes]:
    """The bytes of an open file of SRC, a chunk at a time, in bounded memory; a failed read
    is a SourceError."""
    try:
        while chunk := os.read(fd, CHUNK):
            yield chunk
    except OSError as error:
        raise SourceError(error) from error


class Stage:
    """The folder being built. Paths are relative to it, POSIX style, as in the tree."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.modes: dict[str, int] = {}  # folder -> the mode it gets when finished

    def path(self, rel: str) -> str:
        return os.path.join(self.root, *rel.split("/")) if rel else self.root

    def exists(self, rel: str) -> bool:
        return os.path.lexists(self.path(rel))

    def is_dir(self, rel: str) -> bool:
        return os.path.isdir(self.path(rel))

    def folders(self, rel: str) -> list[str]:
        """The names of the folders in `rel`, sorted; [] when it is none."""
        try:
            with os.scandir(self.path(rel)) as scan:
                return sorted(item.name for item in scan if item.is_dir(follow_symlinks=False))
        except OSError:
            return []

    def mkdir(self, rel: str, mode: int) -> None:
        """Make the folder `rel` with `mode` (put on by `finish`); a parent it makes takes the
        same mode, one that exists keeps its own."""
        self.modes[rel] = mode
        missing = []
        probe = rel
        while probe and not os.path.isdir(self.path(probe)):
            missing.append(probe)
            probe = probe.rpartition("/")[0]
        for folder in reversed(missing):
            self.modes.setdefault(folder, mode)
            os.mkdir(self.path(folder), WORKING_MODE)

    def write(self, rel: str, chunks: Iterable[bytes], mode: int) -> None:
        new_file(self.path(rel), chunks, mode)

    def read(self, rel: str) -> bytes:
        with open(self.path(rel), "rb") as handle:
            return handle.read()

    def file_mode(self, rel: str) -> int:
        return stat.S_IMODE(os.lstat(self.path(rel)).st_mode)

    def remove(self, rel: str) -> bool:
        """Remove a file or a folder with all it holds; False when there was none."""
        path = self.path(rel)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
            for folder in [f for f in self.modes if f == rel or f.startswith(rel + "/")]:
                del self.modes[folder]
            return True
        if os.path.lexists(path):
            os.unlink(path)
            return True
        return False

    def copy(self, source: str, target: str) -> None:
        """Copy the stage's folder `source` to `target` (which must not exist), with its modes."""
        for folder, _, files in os.walk(self.path(source)):
            inner = os.path.relpath(folder, self.path(source)).replace(os.sep, "/")
            rel_from = source if inner == "." else join(source, inner)
            rel_to = target if inner == "." else join(target, inner)
            self.mkdir(rel_to, self.modes.get(rel_from, 0o755))
            for name in sorted(files):
                with open(os.path.join(folder, name), "rb") as handle:
                    mode = stat.S_IMODE(os.fstat(handle.fileno()).st_mode)
                    self.write(join(rel_to, name), iter(lambda: handle.read(CHUNK), b""), mode)

    def remove_empty(self, rel: str = "") -> list[str]:
        """Remove every empty folder under `rel`, deepest first (a folder left empty by that goes
        too); returns them, in that order. The stage's root stays."""
        removed: list[str] = []
        for folder, _, _ in sorted(os.walk(self.path(rel)), key=lambda item: -item[0].count(os.sep)):
            inner = os.path.relpath(folder, self.root).replace(os.sep, "/")
            if inner != "." and not os.listdir(folder):
                os.rmdir(folder)
                self.modes.pop(inner, None)
                removed.append(inner)
        return sorted(removed)

    def finish(self) -> None:
        """Put on every folder its mode, deepest first (a folder without write permission
        then no longer matters)."""
        for rel in sorted(self.modes, key=lambda r: -r.count("/")):
            if os.path.isdir(self.path(rel)):
                os.chmod(self.path(rel), self.modes[rel])

    def discard(self) -> None:
        """Remove the stage, whatever modes `finish` gave its folders."""
        if not os.path.isdir(self.root):
            return
        stack = [self.root]
        while stack:  # every folder writable and searchable first, from the top
            folder = stack.pop()
            os.chmod(folder, WORKING_MODE)
            with os.scandir(folder) as scan:
                stack += [item.path for item in scan if item.is_dir(follow_symlinks=False)]
        shutil.rmtree(self.root)


class Unreadable(Exception):
    """A file of SRC that cannot be read whole: `path`, the finding `code`, and why."""

    def __init__(self, path: str, code: str, message: str) -> None:
        super().__init__(message)
        self.path, self.code, self.message = path, code, message


@contextlib.contextmanager
def open_source(tree: Tree, rel: str, what: str) -> Iterator[tuple[int, Iterator[bytes]]]:
    """(mode, chunks) of the tree's regular file `rel`, opened for one read; Unreadable when
    it is no regular file inside the tree (a link out of it, a FIFO), cannot be opened, or a
    read fails."""
    entry = tree.entry(rel)
    named = what or "file"
    if entry.kind is not Kind.FILE:
        code, text = UNFOLLOWED.get(entry.kind, ("FIL011", "is not a regular file"))
        raise Unreadable(rel, code, f"{named} {text}")
    try:
        fd = tree.open(entry)
    except FileChanged as error:
        raise Unreadable(rel, "FIL006" if error.kind is Kind.OUTSIDE else "FIL011", f"{named} {error.detail}") from None
    except OSError as error:
        raise Unreadable(rel, "FIL011", f"{named} cannot be read: {error.strerror or error}") from None
    try:
        yield stat.S_IMODE(os.fstat(fd).st_mode), _whole(fd, rel, named)
    finally:
        os.close(fd)


def _whole(fd: int, rel: str, named: str) -> Iterator[bytes]:
    try:
        yield from read_chunks(fd)
    except SourceError as failed:
        reason = failed.error.strerror or failed.error
        raise Unreadable(rel, "FIL011", f"{named} cannot be read whole: {reason}") from None


def copy_file(tree: Tree, rel: str, stage: Stage, target: str, what: str = "") -> None:
    """Copy the tree's file `rel` to the stage's `target`, with its mode; Unreadable when it
    cannot be read whole (the stage then holds nothing of it)."""
    with open_source(tree, rel, what) as (mode, chunks):
        stage.write(target, chunks, mode)


def copy_folder(tree: Tree, top: str, stage: Stage, skip: Callable[[str], bool], problem: Problem) -> None:
    """Copy the tree's folder `top` into the stage at the same place: every file and folder
    but those `skip` names, links inside the tree followed, none out of it."""
    stack: list[tuple[str, str, tuple[str, ...]]] = [(top, os.path.realpath(tree.real(top)), ())]
    while stack:
        rel, real, above = stack.pop()
        try:
            names = os.listdir(real)
            mode = stat.S_IMODE(os.stat(real).st_mode)
        except OSError as error:
            problem(rel, "FIL011", f"folder cannot be read: {error.strerror or error}; it was not copied")
            continue
        stage.mkdir(rel, mode)
        for entry in tree.listdir(rel) if names else []:
            if skip(entry.rel):
                continue
            if entry.kind is Kind.DIR:
                name = entry.rel.rpartition("/")[2]
                target = os.path.realpath(os.path.join(real, name)) if entry.is_link else os.path.join(real, name)
                if target in (*above, real):
                    problem(entry.rel, "FIL011", "is a symlink to a folder that holds it (a loop); it was not followed")
                    continue
                stack.append((entry.rel, target, (*above, real)))
                continue
            try:
                copy_file(tree, entry.rel, stage, entry.rel)
            except Unreadable as failed:
                problem(failed.path, failed.code, f"{failed.message}; it was not copied")
