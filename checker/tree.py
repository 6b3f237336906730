"""Read-only, symlink-safe access to a checked tree.

Every path handed in or out is relative to the checked root, POSIX style. Nothing here ever
writes, and nothing follows a symlink whose target lies outside the root.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import functools
import operator
import os
import stat
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from .phases import phase

# The C lister of a folder of a walk (checker/_listing.c), built when the package is installed
# with a C compiler; without it, or with MLPERF_CHECK_PURE=1, `Tree._scanned` lists the same.
_Lister = Callable[
    [str, str, str, dict[str, Any], Any, Any, Any, list[str], dict[str, Any], dict[str, Any] | None],
    tuple[list[Any], list[int], tuple[dict[str, tuple[int, ...]], int] | None],
]
_lister: _Lister | None
if os.environ.get("MLPERF_CHECK_PURE") == "1":
    _lister = None
else:
    try:
        from . import _listing
    except ImportError:
        _lister = None
    else:  # an older build (no HELD: its listings give no proof steps) lists with os.scandir
        _lister = _listing.listed if getattr(_listing, "HELD", 0) else None


def compiled() -> bool:
    """Whether folders are listed with the C lister (built, recent enough, MLPERF_CHECK_PURE not 1)."""
    return _lister is not None


class Kind(enum.StrEnum):
    FILE = "file"
    DIR = "dir"
    MISSING = "missing"
    OUTSIDE = "outside"  # a symlink (or a path through one) that leaves the checked root
    BROKEN = "broken"  # a symlink whose target does not exist
    OTHER = "other"  # a socket, FIFO or device
    TOO_LONG = "too long"  # a path the file system cannot open by name (workspace.too_long): FIL025


# One item of a folder as `Tree.walk` lists it: (name, "dir" | "file" | "link" | "other", size
# of a file, and for a link where it goes: Kind.BROKEN, Kind.OUTSIDE or None, inside the root).
Item = tuple[str, str, int, Kind | None]


class Entry(NamedTuple):
    """What lies at a path (`Tree.entry`). A named tuple, not a dataclass: a check makes one
    for each of some 75,000 paths of a round, at a sixth of a frozen dataclass's cost."""

    rel: str
    kind: Kind
    size: int = 0
    is_link: bool = False
    # The identity of the file judged (of a link's target): `Tree.open` opens only that file.
    dev: int = 0
    ino: int = 0
    # What else says the file changed (checker/cache.py): its mtime and ctime, in ns.
    mtime: int = 0
    ctime: int = 0
    mode: int = 0  # of a file, its st_mode


# An Entry from its nine fields in order, without the named tuple's Python-level __new__ (a
# walk makes one a file).
_new_entry = functools.partial(tuple.__new__, Entry)


class FileChanged(Exception):
    """The path no longer holds the regular file its entry judged: it became a symlink, a FIFO,
    a folder or another file between the judgement and the open. `kind` is what it is now
    (OUTSIDE for a symlink that leaves the root, else OTHER or DIR)."""

    def __init__(self, kind: Kind, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


# Read-only; never follow a symlink in the last component; never wait on a FIFO or a device.
OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _what(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "something other than a regular file"


_NAME = operator.attrgetter("name")
# What says a file or folder changed, from its lstat (an Entry holds the same for a file).
SIG = operator.attrgetter("st_mode", "st_size", "st_dev", "st_ino", "st_mtime_ns", "st_ctime_ns")


def join(head: str, tail: str = "", *rest: str) -> str:
    """Join relative POSIX parts, skipping empty ones (and the slashes at their ends)."""
    # the usual call, two clean parts: no strip needed (a check runs 280,000)
    if head and tail and not rest and head[0] != "/" != head[-1] and tail[0] != "/" != tail[-1]:
        return head + "/" + tail
    return "/".join(part.strip("/") for part in (head, tail, *rest) if part and part.strip("/"))


class Tree:
    """The checked root. Remembers the real path of every folder it has looked into, and the
    entry of every path it has judged until `forget` (which a caller moving on to another
    part of the tree calls, to keep memory flat): each is one system call."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = os.path.realpath(os.fspath(root))
        self._prefix = self.root + "/"  # what a folder's real path is under the root, joined as `_real_dir` does
        self._real_dirs: dict[str, str | None] = {"": self.root}
        self._entries: dict[str, Entry] = {}
        self.unlistable: set[str] = set()  # folders whose path is too long to list (Kind.TOO_LONG, FIL025)
        # Every read of the tree, while a unit's are recorded (checker/cache.py): (kind, rel,
        # what it saw), kind "entry", "subdirs", "listdir" or "walk" (a list of its steps).
        self.reads: list[tuple[str, str, Any]] | None = None
        # The stat signature of each plain folder a proof asked for (`folder_sig`), until `forget`.
        self._folder_sigs: dict[str, tuple[int, ...] | None] = {}
        # What `walk` listed of each folder, until `forget`, and its names once asked (`_absent`).
        self._listings: dict[str, list[Item]] = {}
        self._names: dict[str, frozenset[str]] = {}
        # While reads are recorded, what the C lister made of a walk's step for its proof (its
        # files' stat signatures by name, and the newest of their times), by the id of the
        # step's items, which it holds (cache._Proof.step; dropped when the unit is stored).
        self.held: dict[int, tuple[tuple[Item, ...], dict[str, tuple[int, ...]], int]] = {}
        self._fresh: tuple[dict[str, tuple[int, ...]], int] | None = None  # the last listing's

    def drop_held(self) -> None:
        """Drop what the C lister made of the walks' steps for their proofs (`held`): a unit's
        own, kept until it is stored."""
        self.held.clear()
        self._fresh = None

    def forget(self) -> None:
        """Drop the entries and folder stats judged so far (a folder's real path is kept: a few
        hundred bytes a folder)."""
        self._entries.clear()
        self._folder_sigs.clear()
        self._listings.clear()
        self._names.clear()

    def plain(self, rel: str) -> str | None:
        """The absolute path of the folder `rel` when no part of it is a link (its real path
        is the root joined with it); None otherwise, or when it is not known to this tree."""
        real = self._real_dirs.get(rel)
        if real is None:
            return None
        return real if real == (self._prefix + rel if rel else self.root) else None

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
            candidate = real_parent + "/" + name
            if os.path.islink(candidate):
                resolved = os.path.realpath(candidate)
                real = resolved if self._inside(resolved) else None
            else:
                real = candidate
        self._real_dirs[rel] = real
        return real

    def entry(self, rel: str) -> Entry:
        """What lies at `rel`, judged without following links out of the root (once)."""
        entry = self._entries.get(rel)
        if entry is None:
            with phase("tree"):
                entry = self._entries[rel] = self._entry(rel)
        if self.reads is not None:  # a read each time (cache.unique keeps one): entries outlive a unit
            self.reads.append(("entry", rel, entry))
        return entry

    def folder_sig(self, rel: str) -> tuple[int, ...] | None:
        """The stat signature (mode, size, device, inode, mtime_ns, ctime_ns) of `rel` when it is a
        plain folder (`plain`), taken once until `forget`; () when nothing is there; None when
        it is something else (not a folder, a link on the way, a path this tree does not know).
        What a unit's proof holds of a folder (cache.proof)."""
        known = self._folder_sigs.get(rel, self)
        if known is not self:
            return known  # type: ignore[return-value]
        path = self.plain(rel)
        if path is None:
            return None  # not known to be plain (yet): not kept
        sig: tuple[int, ...] | None = None
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            sig = ()
        except OSError:
            pass
        else:
            if stat.S_ISDIR(st.st_mode):
                sig = SIG(st)
        self._folder_sigs[rel] = sig
        return sig

    def _absent(self, rel: str) -> bool:
        """Whether `rel` is known missing from a walk's listing, with no system call: the
        nearest folder above it that `walk` listed has no item of the name on the way. The
        folders on the way get the real path `_real_dir` would give them (each one missing).
        False when that is not known, or when a lookup by name could answer otherwise: a
        part that is empty, `.` or `..`, a name or a path too long to look up (TOO_LONG)."""
        listings = self._listings
        up, below = rel, []
        while True:
            up, _, leaf = up.rpartition("/")
            below.append(leaf)
            if up in listings:
                break
            if not up:
                return False
        names = self._names.get(up)
        if names is None:
            names = self._names[up] = frozenset(item[0] for item in listings[up])
        if below[-1] in names:
            return False
        real = self._real_dirs.get(up)
        if real is None or len(real) + 4 * len(rel) >= 4000:  # under PATH_MAX, in any encoding
            return False
        if any(not part or part == "." or part == ".." or len(part) > 63 for part in below):
            return False
        sub, path = up, real
        for part in reversed(below[1:]):  # the folders on the way, as `_real_dir` has them
            sub, path = (sub + "/" + part if sub else part), path + "/" + part
            self._real_dirs.setdefault(sub, path)
        return True

    def _entry(self, rel: str) -> Entry:
        if self._listings and self._absent(rel):
            return Entry(rel, Kind.MISSING)
        parent, _, name = rel.rpartition("/")
        real_parent = self._real_dir(parent)
        if real_parent is None:
            # Either a folder on the way is missing, or one of them leaves the tree.
            probe = parent
            while probe:
                up, _, leaf = probe.rpartition("/")
                up_real = self._real_dir(up)
                if up_real is not None:
                    path = up_real + "/" + leaf
                    if os.path.islink(path):
                        target = os.path.realpath(path)
                        return Entry(rel, Kind.OUTSIDE if os.path.exists(target) else Kind.BROKEN, is_link=True)
                    return Entry(rel, Kind.MISSING)
                probe = up
            return Entry(rel, Kind.MISSING)
        path = real_parent + "/" + name
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return Entry(rel, Kind.MISSING)
        except OSError as error:
            return Entry(rel, Kind.TOO_LONG if error.errno == errno.ENAMETOOLONG else Kind.OTHER)
        is_link = stat.S_ISLNK(st.st_mode)
        if is_link:
            astray = self.astray(path)
            if astray is not None:
                return Entry(rel, astray, is_link=True)
            st = os.stat(path)
        if stat.S_ISREG(st.st_mode):
            return Entry(
                rel, Kind.FILE, st.st_size, is_link, st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_mode
            )
        if stat.S_ISDIR(st.st_mode):
            return Entry(rel, Kind.DIR, 0, is_link)
        return Entry(rel, Kind.OTHER, 0, is_link)

    def astray(self, path: str) -> Kind | None:
        """For the link at the absolute `path`: BROKEN when it points nowhere, OUTSIDE when
        it leaves the root; None when it stays inside."""
        target = os.path.realpath(path)
        if not os.path.exists(target):
            return Kind.BROKEN
        if not self._inside(target):
            return Kind.OUTSIDE
        return None

    def real(self, rel: str) -> str:
        """The absolute path to open for an entry already judged FILE or DIR."""
        parent, _, name = rel.rpartition("/")
        real_parent = self._real_dir(parent)
        assert real_parent is not None, rel
        return real_parent + "/" + name

    def open(self, entry: Entry) -> int:
        """A read-only descriptor of the regular file `entry` judged (Kind.FILE), opened without
        following a symlink and without blocking, then checked to be that very file: regular,
        with the device and inode the judgement saw. A path swapped since then (for a symlink,
        a FIFO, a folder or another file) raises FileChanged and is never read; a file that
        cannot be opened raises OSError. The caller closes the descriptor."""
        path = self.real(entry.rel)
        if entry.is_link:  # a link judged to stay inside: open its target, never the link
            path = os.path.realpath(path)
            if not self._inside(path):
                raise FileChanged(Kind.OUTSIDE, "became a symlink that leaves the checked folder")
        try:
            fd = os.open(path, OPEN_FLAGS)
        except OSError as error:
            if error.errno != errno.ELOOP:
                raise
            target = os.path.realpath(path)
            outside = os.path.exists(target) and not self._inside(target)
            raise FileChanged(
                Kind.OUTSIDE if outside else Kind.OTHER,
                "became a symlink that leaves the checked folder" if outside else "became a symlink",
            ) from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise FileChanged(Kind.DIR if stat.S_ISDIR(st.st_mode) else Kind.OTHER, f"became {_what(st.st_mode)}")
            if (st.st_dev, st.st_ino) != (entry.dev, entry.ino):
                raise FileChanged(Kind.OTHER, "was replaced by another file")
        except BaseException:
            os.close(fd)
            raise
        return fd

    def listdir(self, rel: str) -> list[Entry]:
        """The entries of a folder, sorted by name; [] when it is not a readable folder."""
        real = self._real_dir(rel) if rel else self.root
        names: list[str] = []
        if real is not None:
            try:
                names = sorted(os.listdir(real))
            except OSError as error:
                self._unlistable(rel, error)
        if self.reads is not None:
            self.reads.append(("listdir", rel, tuple(names)))
        return [self.entry(join(rel, name)) for name in names]

    def subdirs(self, rel: str) -> list[str]:
        """The names of the folders in the folder `rel` (and of links to folders inside the
        tree), sorted; [] when it is not a readable folder. A folder is known by its listing,
        without a system call; only a link is judged."""
        names = self._subdirs(rel)
        if self.reads is not None:
            self.reads.append(("subdirs", rel, tuple(names)))
        return names

    def _subdirs(self, rel: str) -> list[str]:
        real = self._real_dir(rel) if rel else self.root
        if real is None:
            return []
        with phase("tree"):
            try:
                with os.scandir(real) as scan:
                    items = sorted(scan, key=_NAME)
            except OSError as error:
                self._unlistable(rel, error)
                return []
            names = []
            for item in items:
                try:
                    if item.is_symlink():
                        if self.entry(join(rel, item.name)).kind is Kind.DIR:
                            names.append(item.name)
                    elif item.is_dir(follow_symlinks=False):
                        self._real_dirs.setdefault(join(rel, item.name), item.path)
                        names.append(item.name)
                except OSError:
                    continue
            return names

    def _unlistable(self, rel: str, error: OSError) -> None:
        if error.errno == errno.ENAMETOOLONG:
            self.unlistable.add(rel)

    def walk(self, rel: str) -> Iterator[tuple[str, list[Item]]]:
        """Every folder under `rel` (links not followed), as (folder, [(name, kind, size, link)]).
        `kind` is "dir", "file", "link" or "other"; for a link, `link` is `astray`'s answer:
        Kind.BROKEN (nowhere), Kind.OUTSIDE (out of the root), or None (inside it)."""
        steps: list[tuple[str, tuple[Item, ...] | None] | None] | None = None
        if self.reads is not None:
            steps = []
            self.reads.append(("walk", rel, steps))  # as far as its reader goes
        stack = [rel]
        while stack:
            folder = stack.pop()
            real = self._real_dir(folder) if folder else self.root
            with phase("tree"):
                listed = self._listed(folder, real, stack) if real is not None else None
            if listed is None:
                if steps is not None:
                    steps.append((folder, None))  # a folder it could not list (cache.proof)
                continue
            self._listings[folder] = listed
            if steps is not None:
                frozen = tuple(listed)
                steps.append((folder, frozen))
                if self._fresh is not None:
                    self.held[id(frozen)] = (frozen, *self._fresh)
            yield folder, listed
        if steps is not None:
            steps.append(None)  # it ended there

    def _listed(self, folder: str, real: str, stack: list[str]) -> list[Item] | None:
        """The items of one folder for `walk`; its folders go on `stack`. None when it cannot
        be listed. Listed by the C lister when it is built (`_listing.listed`), else with
        os.scandir (`_scanned`): the same items, entries and folder stats."""
        if _lister is None:
            return self._scanned(folder, real, stack)
        prefix = folder.strip("/") + "/" if folder.strip("/") else ""  # what join(folder, name) makes
        base = real if real.endswith("/") else real + "/"  # what a DirEntry's path is, less its name
        sigs = self._folder_sigs if self.reads is not None and self.plain(folder) is not None else None
        self._fresh = None
        try:
            listed, links, self._fresh = _lister(
                real, base, prefix, self._entries, Entry, Kind.FILE, Kind.DIR, stack, self._real_dirs, sigs
            )
        except (OSError, ValueError) as error:  # ValueError: a path with a NUL, which no folder has
            if isinstance(error, OSError):
                self._unlistable(folder, error)
            return None
        for at in links:
            name = listed[at][0]
            listed[at] = (name, "link", 0, self.astray(base + name))
        return listed

    def _scanned(self, folder: str, real: str, stack: list[str]) -> list[Item] | None:
        """`_listed` with os.scandir (no C lister built, or MLPERF_CHECK_PURE=1)."""
        self._fresh = None  # (its steps are made plain in cache._Proof.step)
        try:
            with os.scandir(real) as scan:
                items = sorted(scan, key=_NAME)
        except OSError as error:
            self._unlistable(folder, error)
            return None
        listed: list[Item] = []
        # The entry of each file and folder, from this listing's stat (one system call a
        # file, not two); a read when it is used (`entry`).
        entries = self._entries
        prefix = folder.strip("/") + "/" if folder.strip("/") else ""  # what join(folder, name) makes
        # While reads are recorded (a cached check), each plain folder's stat, for its proof
        # (`folder_sig`): from its item here, with no path to resolve.
        sigs = self._folder_sigs if self.reads is not None and self.plain(folder) is not None else None
        append, real_dirs, file_kind, dir_kind = listed.append, self._real_dirs, Kind.FILE, Kind.DIR
        for item in items:
            name = item.name
            try:
                if item.is_file(follow_symlinks=False):  # the most of them: asked first (a link is none)
                    st = item.stat(follow_symlinks=False)
                    size = st.st_size
                    append((name, "file", size, None))
                    if (rel := prefix + name) not in entries:
                        entries[rel] = _new_entry(
                            (
                                rel,
                                file_kind,
                                size,
                                False,
                                st.st_dev,
                                st.st_ino,
                                st.st_mtime_ns,
                                st.st_ctime_ns,
                                st.st_mode,
                            )
                        )
                elif item.is_dir(follow_symlinks=False):
                    append((name, "dir", 0, None))
                    stack.append(sub := prefix + name)
                    real_dirs.setdefault(sub, item.path)  # a folder, not a link: no lstat to say so
                    if sigs is not None and sub not in sigs and self.plain(sub) is not None:
                        with contextlib.suppress(OSError):  # a path too long to stat by name: a folder all the same
                            sigs[sub] = SIG(item.stat(follow_symlinks=False))
                    if sub not in entries:
                        entries[sub] = _new_entry((sub, dir_kind, 0, False, 0, 0, 0, 0, 0))
                elif item.is_symlink():
                    append((name, "link", 0, self.astray(item.path)))
                else:
                    append((name, "other", 0, None))
            except OSError:
                append((name, "other", 0, None))
        return listed
