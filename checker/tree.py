"""Read-only, symlink-safe access to a checked tree.

Every path handed in or out is relative to the checked root, POSIX style. Nothing here ever
writes, and nothing follows a symlink whose target lies outside the root.
"""

from __future__ import annotations

import enum
import os
import stat
from dataclasses import dataclass


class Kind(str, enum.Enum):
    FILE = "file"
    DIR = "dir"
    MISSING = "missing"
    OUTSIDE = "outside"  # a symlink (or a path through one) that leaves the checked root
    BROKEN = "broken"  # a symlink whose target does not exist
    OTHER = "other"  # a socket, FIFO or device


@dataclass(frozen=True)
class Entry:
    rel: str
    kind: Kind
    size: int = 0
    is_link: bool = False


def join(*parts: str) -> str:
    """Join relative POSIX parts, skipping empty ones."""
    return "/".join(part.strip("/") for part in parts if part and part.strip("/"))


class Tree:
    """The checked root. Caches the real path of every folder it has looked into."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = os.path.realpath(os.fspath(root))
        self._real_dirs: dict[str, str | None] = {"": self.root}

    def abspath(self, rel: str) -> str:
        return os.path.join(self.root, rel) if rel else self.root

    def _inside(self, real: str) -> bool:
        return real == self.root or real.startswith(self.root + os.sep)

    def _real_dir(self, rel: str) -> str | None:
        """The real path of a folder, or None when it leaves the root or does not exist."""
        if rel in self._real_dirs:
            return self._real_dirs[rel]
        parent, _, name = rel.rpartition("/")
        real_parent = self._real_dir(parent)
        real: str | None = None
        if real_parent is not None:
            candidate = os.path.join(real_parent, name)
            if os.path.islink(candidate):
                resolved = os.path.realpath(candidate)
                real = resolved if self._inside(resolved) else None
            else:
                real = candidate
        self._real_dirs[rel] = real
        return real

    def entry(self, rel: str) -> Entry:
        """What lies at `rel`, judged without following links out of the root."""
        parent, _, name = rel.rpartition("/")
        real_parent = self._real_dir(parent)
        if real_parent is None:
            # Either a folder on the way is missing, or one of them leaves the tree.
            probe = parent
            while probe:
                up, _, leaf = probe.rpartition("/")
                up_real = self._real_dir(up)
                if up_real is not None:
                    path = os.path.join(up_real, leaf)
                    if os.path.islink(path):
                        target = os.path.realpath(path)
                        return Entry(rel, Kind.OUTSIDE if os.path.exists(target) else Kind.BROKEN, is_link=True)
                    return Entry(rel, Kind.MISSING)
                probe = up
            return Entry(rel, Kind.MISSING)
        path = os.path.join(real_parent, name)
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return Entry(rel, Kind.MISSING)
        except OSError:
            return Entry(rel, Kind.OTHER)
        is_link = stat.S_ISLNK(st.st_mode)
        if is_link:
            target = os.path.realpath(path)
            if not os.path.exists(target):
                return Entry(rel, Kind.BROKEN, is_link=True)
            if not self._inside(target):
                return Entry(rel, Kind.OUTSIDE, is_link=True)
            st = os.stat(target)
        if stat.S_ISREG(st.st_mode):
            return Entry(rel, Kind.FILE, st.st_size, is_link)
        if stat.S_ISDIR(st.st_mode):
            return Entry(rel, Kind.DIR, 0, is_link)
        return Entry(rel, Kind.OTHER, 0, is_link)

    def real(self, rel: str) -> str:
        """The absolute path to open for an entry already judged FILE or DIR."""
        parent, _, name = rel.rpartition("/")
        real_parent = self._real_dir(parent)
        assert real_parent is not None, rel
        return os.path.join(real_parent, name)

    def listdir(self, rel: str) -> list[Entry]:
        """The entries of a folder, sorted by name; [] when it is not a readable folder."""
        real = self._real_dir(rel) if rel else self.root
        if real is None:
            return []
        try:
            names = sorted(os.listdir(real))
        except OSError:
            return []
        return [self.entry(join(rel, name)) for name in names]

    def subdirs(self, rel: str) -> list[str]:
        return [e.rel.rpartition("/")[2] for e in self.listdir(rel) if e.kind is Kind.DIR]

    def walk(self, rel: str):
        """Every folder under `rel` (links not followed), as (folder, [(name, kind, size, link_target)]).
        `kind` is "dir", "file", "link" or "other"; link_target is the link's resolved path."""
        stack = [rel]
        while stack:
            folder = stack.pop()
            real = self._real_dir(folder) if folder else self.root
            if real is None:
                continue
            try:
                with os.scandir(real) as scan:
                    items = sorted(scan, key=lambda item: item.name)
            except OSError:
                continue
            listed = []
            for item in items:
                try:
                    if item.is_symlink():
                        listed.append((item.name, "link", 0, os.path.realpath(item.path)))
                    elif item.is_dir(follow_symlinks=False):
                        listed.append((item.name, "dir", 0, None))
                        stack.append(join(folder, item.name))
                    elif item.is_file(follow_symlinks=False):
                        listed.append((item.name, "file", item.stat(follow_symlinks=False).st_size, None))
                    else:
                        listed.append((item.name, "other", 0, None))
                except OSError:
                    listed.append((item.name, "other", 0, None))
            yield folder, listed

