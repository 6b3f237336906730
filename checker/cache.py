"""A persistent cache, as ruff and mypy keep one: what a reader made of each file, and each
unit's rule output, so that checking a tree again costs what changed in it.

Two kinds of entry, each a file of its own:

- `files`: what the reader made of one loadgen detail log of 1 MB or more (its values and
  defects), keyed by the file's absolute path, size, mtime_ns, ctime_ns, device and inode. A user can set mtime
  back, never ctime: a file rewritten with its mtime restored is still a new file.
- `units`: a unit's output (engine.UnitOutput: its results, and its findings with their
  positions), keyed by the unit (root, division, submitter, system, the results it checks),
  the round file's digest and the command's hook, and stored, by the process that ran the
  unit, with a proof of every read of the tree the unit made, from the stats the tree took
  for them (`proof`: each folder listed or walked by its stat, each file by its stat, each
  missing path by its nearest folder, all in one digest; every folder on the way a folder
  and no link; the reads it cannot make plain kept as they were). It is used only when the
  proof holds on the tree as it is now (`_Now.holds`: each path any proof names stat-ed once
  a run), so a file edited, renamed, deleted, added beside the others or given another mode,
  or a folder on the way made a link, makes the unit run again.

Every entry sits under a namespace: the fingerprint of this checker (its version, Python's,
and the size and mtime of each of its source and round files), so an entry of another
version is never read. Where: `--cache-dir`, else $MLPERF_CHECK_CACHE_DIR, else the user
cache folder (platformdirs: ~/.cache/mlperf-check on Linux), never inside the checked tree.

An entry is written to a temporary file beside it, then renamed over it (os.replace): a
reader sees a whole entry or none, so runs at once share one folder. A corrupt or foreign
entry (another magic, another key) is ignored and written again. After a run that wrote, the
oldest entries beyond $MLPERF_CHECK_CACHE_MAX_MB (default 512) go, other versions' first. A
folder that cannot be written (read-only, full) or entries that cannot be read leave the run
as right as a run without the cache, and the run says so once, on stderr.

The entries are pickles (a unit's proof is marshalled): the cache folder is the user's own
(it is made 0700), as mypy's and pytest's are. Anyone who can write there can run code as
the user; `--no-cache` reads none.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import itertools
import marshal
import operator
import os
import pickle
import stat
import struct
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from . import __version__
from .escaping import visible

ENV_DIR = "MLPERF_CHECK_CACHE_DIR"
ENV_MAX = "MLPERF_CHECK_CACHE_MAX_MB"
DEFAULT_MAX_MB = 512
MAGIC = b"mlperf-check cache 2\n"
LAYOUT = "v1"  # the folder of this layout of entries, under the cache folder
_DIGEST = 32  # bytes of blake2b that name an entry (and are written in it)
_count = itertools.count()
_STALE_TEMP = 3600  # seconds after which a temporary file left by a killed run is removed


# --- where the cache is -----------------------------------------------------------------
@dataclass(frozen=True)
class Where:
    folder: str | None  # None: no cache (--no-cache)
    given: bool  # named by --cache-dir or the environment, rather than the default


_chosen: Where | None = None


def configure(folder: str | None = None, enabled: bool = True) -> None:
    """What --cache-dir and --no-cache say, for the checks this process runs."""
    global _chosen
    _chosen = Where(None, True) if not enabled else Where(os.path.abspath(folder), True) if folder else None


def configure_default() -> None:
    """Back to the environment's cache folder (or the user's)."""
    global _chosen
    _chosen = None


def where() -> Where:
    """The cache folder of this process: --cache-dir, else $MLPERF_CHECK_CACHE_DIR, else the
    user cache folder; its folder is None with --no-cache."""
    if _chosen is not None:
        return _chosen
    named = os.environ.get(ENV_DIR)
    if named:
        return Where(os.path.abspath(named), True)
    import platformdirs

    return Where(platformdirs.user_cache_dir("mlperf-check", appauthor=False), False)


def inside(folder: str, root: str) -> bool:
    """Whether the cache folder lies in the checked tree `root` (or is it)."""
    real, top = os.path.realpath(folder), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def folder_for(root: str) -> str | None:
    """The cache folder for a check of `root`, or None: no cache, or one inside the tree (the
    checked tree is never written: the run says so and goes on without it)."""
    chosen = where()
    if chosen.folder is None:
        return None
    if inside(chosen.folder, root):
        note("inside", f"the cache folder {chosen.folder} is inside the checked tree {root}; it is not used")
        return None
    return chosen.folder


# --- what may change an entry: this checker -------------------------------------------------
_fingerprint: list[str] = []


def fingerprint() -> str:
    """This checker's version, Python's, and the size and mtime of every file of its package
    (its modules, compiled ones included, and round files: an edited checkout or a rebuilt
    module is another checker), and which compiled modules this process reads with (none under
    MLPERF_CHECK_PURE=1, nor one that failed to import or predates what the readers ask of it)."""
    if not _fingerprint:
        from .parsers import mllog
        from .tree import compiled

        pure = (compiled(), mllog.scanned(), mllog._suspects is not None)  # noqa: SLF001
        hashed = hashlib.blake2b(f"{__version__}\0{sys.version}\0{LAYOUT}\0{pure}".encode(), digest_size=8)
        top = os.path.dirname(os.path.abspath(__file__))
        rules = os.path.join(os.path.dirname(top), "rules")
        for base in (top, rules):
            for folder, folders, names in os.walk(base):
                folders[:] = sorted(name for name in folders if name != "__pycache__")
                for name in sorted(names):
                    if name.endswith((".py", ".yaml", ".json", ".so", ".pyd")):
                        with contextlib.suppress(OSError):
                            st = os.stat(os.path.join(folder, name))
                            hashed.update(f"{folder}/{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        _fingerprint.append(hashed.hexdigest())
    return _fingerprint[0]


def round_digest(round_name: str) -> str:
    """The digest of the round's text (a round file and those it extends); a bundled round is
    part of the fingerprint already."""
    from .rounds import RoundError, _resolve, digest, is_path

    if not is_path(round_name):
        return round_name
    try:
        return digest(_resolve(round_name)[2])
    except (RoundError, OSError):
        return f"unreadable:{time.time_ns()}"  # never the same twice: nothing is reused


def rules_digest() -> str:
    """The rules registered now, each with its scope, severity, needs and function's code: a
    rule added or replaced at run time (a plugin, a test) is another checker."""
    from .registry import RULES

    hashed = hashlib.blake2b(digest_size=16)
    for code, rule in sorted(RULES.items()):
        func = rule.func
        body = getattr(func, "__code__", None)
        hashed.update(repr((code, rule.scope, rule.severity, rule.needs, getattr(func, "__qualname__", None))).encode())
        if body is not None:  # its bytecode and the names it uses (constants may hold addresses)
            hashed.update(body.co_code + repr(body.co_names).encode())
    return hashed.hexdigest()


# --- what the run says --------------------------------------------------------------------
_notes: dict[str, str] = {}


def note(kind: str, message: str) -> None:
    """A problem of the cache (kind: write, read, corrupt, inside), said once per run."""
    _notes.setdefault(kind, message)


def take_notes() -> dict[str, str]:
    notes = dict(_notes)
    _notes.clear()
    return notes


def say(notes: dict[str, str]) -> None:
    """Each problem once, on stderr: the run is right without the cache. A folder that can
    be neither read nor written is said once, as one that cannot be written."""
    for kind, message in notes.items():
        if kind == "read" and "write" in notes:
            continue
        sys.stderr.write(visible(f"mlperf-check: cache: {message}") + "\n")


# --- entries --------------------------------------------------------------------------------
class Store:
    """The entries of one cache folder for this checker (its fingerprint)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.space = os.path.join(folder, LAYOUT, fingerprint())
        self.written = 0
        self.corrupt = 0
        self._folders: set[str] = set()  # the folders made (or found) already

    def _path(self, kind: str, key: tuple[Any, ...]) -> tuple[str, bytes]:
        name = hashlib.blake2b(repr((kind, key)).encode(), digest_size=_DIGEST).digest()
        hexed = name.hex()
        return os.path.join(self.space, kind, hexed), name  # one folder a kind: a few thousand entries

    def _read(self, kind: str, key: tuple[Any, ...]) -> bytes | None:
        """The bytes of `key`'s entry after its magic and name; None for none, or for a corrupt
        or foreign one (it is written again)."""
        path, name = self._path(kind, key)
        try:
            with open(path, "rb") as handle:
                raw = handle.read()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as error:
            note("read", f"cannot read entries in {self.folder} ({error.strerror or error}); they were not used")
            return None
        head = len(MAGIC) + _DIGEST
        if raw[: len(MAGIC)] != MAGIC or raw[len(MAGIC) : head] != name:
            self.corrupted()
            return None
        return raw[head:]

    def corrupted(self) -> None:
        self.corrupt += 1
        note("corrupt", f"entries in {self.folder} were corrupt or foreign; they were ignored and written again")

    get_raw = _read

    def get(self, kind: str, key: tuple[Any, ...]) -> Any:
        """The value stored for `key`, or None (none, corrupt or foreign: it is written again)."""
        raw = self._read(kind, key)
        if raw is None:
            return None
        try:
            stored, value = pickle.loads(raw)  # noqa: S301 - the user's own folder (module docstring)
            if stored != key:
                raise ValueError("another key")
        except Exception:  # noqa: BLE001 - any broken entry is a miss
            self.corrupted()
            return None
        return value

    def put(self, kind: str, key: tuple[Any, ...], value: Any) -> None:
        """Store `value` for `key`, atomically; a folder that cannot be written is said once."""
        try:
            data = pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
            return  # a value that cannot be stored (a command's hook gave one): not cached
        self.put_raw(kind, key, data)

    def put_raw(self, kind: str, key: tuple[Any, ...], payload: bytes) -> None:
        """Store the bytes `payload` for `key`, atomically (a temporary file renamed over the
        entry); a folder that cannot be written is said once."""
        if "write" in _notes:
            return  # it failed once this run: no more tries
        path, name = self._path(kind, key)
        data = MAGIC + name + payload
        folder = os.path.dirname(path)
        try:
            if folder not in self._folders:
                os.makedirs(self.folder, mode=0o700, exist_ok=True)
                os.makedirs(folder, exist_ok=True)
                self._folders.add(folder)
            # A name no other writer uses (this process, this entry, a count), made here only.
            temporary = f"{path}.tmp-{os.getpid()}-{next(_count)}"
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                os.replace(temporary, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError as error:
            note(
                "write",
                f"cannot write to {self.folder} ({error.strerror or error}); the results are right, "
                "but this run is not cached",
            )
            return
        self.written += len(data)


# --- when a file's stat can be trusted -----------------------------------------------------
def settled(entry: Any, before: int) -> bool:
    """Whether any change to the file after the clock read `before` (time.time_ns) would show
    in its stat: its mtime and ctime are older than that by more than the file system's
    timestamp grain (whole seconds on some file systems; a clock tick on Linux). A file
    changed within the grain of its reading is "racy", as git calls it: it is not cached."""
    return _settled(entry.mtime, entry.ctime, before)


# --- files: what a reader made of one file ----------------------------------------------------
_files: list[Store] = []  # the store of this process (a worker's, or the checking one's)


def use(folder: str | None) -> None:
    """The cache folder this process reads files through (engine._setup), or None."""
    _files[:] = [Store(folder)] if folder else []


# A smaller log is read again rather than kept: the pure reader reads about 2 ms a MB, and an
# entry costs about 0.5 ms to write (most of it making the file) and 0.15 ms to read (the v5.1
# round's detail logs, one core). The C scanner reads about 0.55 ms a MB: with it, a log is
# kept from SCANNED_TIMES this size (reader.py), as an entry pays off only when a unit whose
# other files changed reads it again.
MIN_FILE_BYTES = 1 << 20
SCANNED_TIMES = 4


def file_key(kind: str, path: str, entry: Any, scanned: bool = False) -> tuple[Any, ...] | None:
    """The key of a file's entry: its absolute path and everything its stat says of it; None
    without a cache, or for a file cheaper to read again (MIN_FILE_BYTES, times SCANNED_TIMES
    for a file the C scanner reads)."""
    if not _files or entry.size < MIN_FILE_BYTES * (SCANNED_TIMES if scanned else 1):
        return None
    return (kind, path, entry.size, entry.mtime, entry.ctime, entry.dev, entry.ino)


def file_get(key: tuple[Any, ...] | None) -> Any:
    return _files[0].get("files", key) if key is not None and _files else None


def file_put(key: tuple[Any, ...] | None, value: Any, entry: Any, before: int) -> None:
    """Store what a reader made of a file it began to read at `before` (unless racy)."""
    if key is not None and _files and settled(entry, before):
        _files[0].put("files", key, value)


# --- units: a unit's output and what it read of the tree ------------------------------------
# A unit's entry holds a proof of what its reads of the tree saw (`proof`), marshalled, then
# its output, pickled. A run reads the entries of all its units first, then takes one `lstat`
# of each path any of their proofs names (`_Now`: some 75,000 for a whole round, in C calls),
# and unpickles a unit's output only when its proof holds.
#
# The proof is the reads made plain, from what the tree already judged (no path stat-ed
# again): each file judged (not through a link) by its entry's stat; each folder listed,
# walked or holding a path judged missing by its own stat (Tree.folder_sig: taken once; an
# entry added, removed or renamed in a folder changes its mtime and ctime, and no user can set
# a ctime back); and every folder on the way of those a folder, not a link. What cannot be
# made plain (a link, a path through one, a folder that could not be listed, an item a walk
# found neither a file nor a folder) is kept as the read itself and done again
# (`_still_true`). A stat proves what a read saw, taken before it or after it, only when it
# is older than the check's start by more than the timestamp grain (`settled`): a unit whose
# file or folder changed during the check is not stored.
#
# Stored: (key, the absolute paths whose stat must match, the digest of their signatures,
# the absolute paths that must be folders, the reads kept as they were, pickled, or b"").
_HEAD = struct.Struct("<Q")  # the length of the marshalled proof, after the magic and the name
_SIG = operator.attrgetter("st_mode", "st_size", "st_dev", "st_ino", "st_mtime_ns", "st_ctime_ns")  # = tree.SIG
_MODE = _FIRST = operator.itemgetter(0)
_GONE = (0, -1, -1, -1, -1, -1)  # the signature of a path that is not there (no stat gives it)


def _parent(rel: str) -> str:
    return rel.rpartition("/")[0]


def _digest(sigs: tuple[tuple[int, ...], ...]) -> bytes:
    """The digest of a unit's stat signatures, in the order its proof names their paths."""
    # marshal's version 2 writes no references: the same numbers, the same bytes
    return hashlib.blake2b(marshal.dumps(sigs, 2), digest_size=_DIGEST).digest()


def proof(tree: Any, reads: Iterable[tuple[Any, ...]], started: int) -> tuple[Any, ...] | None:
    """What a unit's reads (Tree.reads) depend on: (groups, digest, folders, slow). groups:
    (folder, whether its own stat is proven, the names of its files whose stat is), each
    path relative to the root; digest: the digest of those stats' signatures in that order
    (`_digest`); folders: the folders that must be folders and no links (every folder on
    the way of the others whose own stat is not proven); slow: the reads kept as they were
    (pickled, or b""). None when a path changed during the check."""
    made = _Proof(tree, started)
    for read in reads:
        done = made.read(*read)
        if done is None:
            return None
        if not done:
            made.slow.append(read)
    return made.result()


_ENTRY_SIG = operator.itemgetter(8, 2, 4, 5, 6, 7)  # a file's Entry: its mode, size, device, inode, mtime, ctime
_MTIME, _CTIME = operator.itemgetter(4), operator.itemgetter(5)
_UP = operator.methodcaller("rpartition", "/")


class _Proof:
    """The reads of one unit, made plain as they come (`proof`)."""

    def __init__(self, tree: Any, started: int) -> None:
        self.tree, self.started = tree, started
        self.fine, self.whole = started - 50_000_000, started - 2_000_000_000  # `settled`'s bounds
        self.folders: dict[str, tuple[int, ...]] = {}  # a folder's own signature
        self.files: dict[str, dict[str, tuple[int, ...]]] = {}  # folder -> name -> signature
        self.ways: set[str] = set()  # folders that must be plain folders (with those above them)
        self.slow: list[tuple[Any, ...]] = []
        self.gone: dict[str, bool | None] = {}  # `missing`'s answer by the folder a path is missing from

    def result(self) -> tuple[Any, ...]:
        slow = self.slow
        kept = pickle.dumps(tuple(dict.fromkeys(slow)), protocol=pickle.HIGHEST_PROTOCOL) if slow else b""
        folders, files = self.folders, self.files
        groups: list[tuple[str, bool, tuple[str, ...]]] = []
        sigs: list[tuple[int, ...]] = []
        for rel in dict.fromkeys(itertools.chain(folders, files)):
            own = folders.get(rel)
            held = files.get(rel, {})
            groups.append((rel, own is not None, tuple(held)))
            if own is not None:
                sigs.append(own)
            sigs += held.values()
        # Plain: a folder whose own stat is proven is one if the one above it is (its stat
        # says it is a folder, no link); any other on the way is proven a folder on its own.
        above = set(map(_FIRST, map(_UP, folders)))  # (a proven folder's parent is a start too)
        ways: set[str] = set()
        for rel in (above | self.ways).union(files).difference(folders):
            while rel and rel not in ways and rel not in folders:
                ways.add(rel)
                rel = _parent(rel)
        ways.discard("")
        return tuple(groups), _digest(tuple(sigs)), tuple(sorted(ways)), kept

    def read(self, kind: str, rel: str, seen: Any) -> bool | None:
        """Whether the read is made plain (False: it is kept as it is; None: a path changed)."""
        if kind == "entry":
            what = seen[1]  # its Kind, a str (no enum lookup: a unit judges thousands)
            if what == "file":
                return self.file(rel, seen)
            if what == "dir" and not seen.is_link and self.tree.plain(rel) is not None:
                self.ways.add(rel)
                return True
            return self.missing(rel) if what == "missing" else False
        if kind in ("subdirs", "listdir"):
            return self.folder(rel)
        if kind == "walk":
            return self.walk(rel, seen)
        return False

    def _settled(self, sig: tuple[int, ...]) -> bool:
        newest = sig[4] if sig[4] > sig[5] else sig[5]  # `settled`, inline: a walk lists thousands of files
        return newest < (self.whole if newest % 1_000_000_000 == 0 else self.fine)

    def folder(self, rel: str) -> bool | None:
        """Whether `rel` is a plain folder, its stat kept (None: it changed during the check)."""
        if rel in self.folders:
            return True
        sig = self.tree.folder_sig(rel)
        if not sig:
            return False
        if not self._settled(sig):
            return None
        self.folders[rel] = sig
        return True

    def file(self, rel: str, entry: Any) -> bool | None:
        up, _, name = rel.rpartition("/")
        if entry.is_link or (up not in self.files and self.tree.plain(up) is None):
            return False
        sig = _ENTRY_SIG(entry)
        if not self._settled(sig):
            return None
        self.files.setdefault(up, {})[name] = sig
        return True

    def missing(self, rel: str) -> bool | None:
        """A path judged missing, made plain: its nearest folder that is there (what it holds
        cannot change without that folder's stat changing). Judged once a folder: a unit asks
        for many missing names in the same one."""
        up = _parent(rel)
        known = self.gone.get(up, self)
        if known is self:
            known = self.gone[up] = self._missing_in(up)
        return known  # type: ignore[return-value]

    def _missing_in(self, up: str) -> bool | None:
        while True:
            sig = self.tree.folder_sig(up)
            if sig is None:
                return False  # a link on the way, or not a folder
            if sig:
                return self.folder(up)
            if not up:
                return False
            up = _parent(up)  # not there: the folder above it

    def walk(self, rel: str, seen: Any) -> bool | None:
        """A walk: each folder it listed made plain (`step`); one it could not list (or out of
        the root) keeps the whole walk as it is, without those folders (it skips them)."""
        for step in seen:
            if step is None:
                continue
            where, items = step
            made = self.step(where, items) if items is not None else False
            if made is None:
                return None
            if not made:
                self.slow.append(("walk", rel, tuple(s for s in seen if s is None or s[1] is not None)))
                return True
        return True

    def step(self, where: str, items: tuple[Any, ...]) -> bool | None:
        """One folder of a walk made plain: its stat and each file's; a folder with a link or
        another kind of item in it is kept as its listing (listed again: `_still_true`)."""
        made = self.folder(where)
        if not made:
            return made
        pinned = self.tree.held.get(id(items))
        if pinned is not None and pinned[0] is items:  # made by the C lister as it listed them
            _, held, newest = pinned
            if held:
                if newest >= self.whole and not all(map(self._settled, held.values())):
                    return None  # a file changed during the check
                self.files.setdefault(where, {}).update(held)
            return True
        # the walk's own key of each file, as `Tree._listed` makes it (from `where` stripped)
        prefix = where.strip("/") + "/" if where.strip("/") else ""
        get = self.tree._entries.get  # noqa: SLF001 - what the walk judged of each file
        held = {}
        for name, what, size, _ in items:
            if what == "dir":
                continue
            entry = get(prefix + name) if what == "file" else None
            # an Entry: (rel, kind, size, is_link, ...), a file judged by this listing
            if entry is None or entry[2] != size or entry[3] or entry[1] != "file":
                self.slow.append(("step", where, items))
                return True
            held[name] = _ENTRY_SIG(entry)
        if held:
            sigs = held.values()
            newest = max(max(map(_MTIME, sigs)), max(map(_CTIME, sigs)))
            if newest >= self.whole and not all(map(self._settled, sigs)):
                return None  # a file changed during the check
            self.files.setdefault(where, {}).update(held)
        return True


def _settled(mtime: int, ctime: int, before: int) -> bool:
    newest = max(mtime, ctime)
    grain = 2_000_000_000 if newest % 1_000_000_000 == 0 else 50_000_000
    return newest < before - grain


class _Now:
    """The tree as it is now, for the proofs of one check's units: each path they name stat-ed
    once (`stat`), in C calls."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.prefix = root.rstrip(os.sep) + os.sep
        self.sigs: dict[str, tuple[int, ...]] = {}
        self._tree: Any = None

    def paths(self, groups: tuple[Any, ...], folders: tuple[str, ...]) -> Iterator[str]:
        """The absolute paths a proof names (`proof`), in its order: each group's folder (when
        its own stat is proven) and files, then the folders on the way."""
        prefix = self.prefix
        for rel, own, names in groups:
            base = prefix + rel + os.sep if rel else prefix
            if own:
                yield base
            yield from map(base.__add__, names)
        yield from map(prefix.__add__, folders)

    def stat(self, paths: Iterable[str]) -> None:
        """Take the stat signature of each of `paths` (once each), in place of those taken
        before (one submission's at a time: the memory stays flat)."""
        names = list(dict.fromkeys(paths))
        try:
            self.sigs = dict(zip(names, map(_SIG, map(os.lstat, names)), strict=True))
        except (OSError, ValueError):  # one is gone (or no path): each on its own
            self.sigs = dict(zip(names, map(_sig, names), strict=True))

    def holds(self, named: list[str], ways: int, digest: bytes, slow: bytes) -> bool:
        """Whether a proof holds: `named`, its paths (`paths`), the last `ways` of them folders
        on the way; `digest`, that of the others' signatures; `slow`, its reads kept."""
        sigs = self.sigs.__getitem__
        split = len(named) - ways
        if ways and not all(map(stat.S_ISDIR, map(_MODE, map(sigs, named[split:])))):
            return False
        if _digest(tuple(map(sigs, named[:split]))) != digest:
            return False
        if slow:
            from .tree import Tree

            if self._tree is None:
                self._tree = Tree(self.root)
            return still_true(self._tree, pickle.loads(slow))  # noqa: S301 - the user's own folder
        return True


def _sig(path: str) -> tuple[int, ...]:
    try:
        return _SIG(os.lstat(path))
    except (OSError, ValueError):
        return _GONE


def still_true(tree: Any, reads: Iterable[tuple[Any, ...]]) -> bool:
    """Whether every read a unit made (Tree.reads) gives the same answer on `tree` now. A
    walk its reader left early is compared as far as it went."""
    try:
        return _still_true(tree, reads)
    except (TypeError, ValueError, AttributeError):  # not reads this version records: a miss
        return False


def _still_true(tree: Any, reads: Iterable[tuple[Any, ...]]) -> bool:
    return all(_read_holds(tree, *read) for read in reads)


def _read_holds(tree: Any, kind: str, rel: str, seen: Any) -> bool:
    if kind == "entry":
        return bool(tree.entry(rel) == seen)
    if kind == "subdirs":
        return bool(tuple(tree.subdirs(rel)) == seen)
    if kind == "listdir":
        return bool(tuple(entry.rel.rpartition("/")[2] for entry in tree.listdir(rel)) == seen)
    if kind == "walk":
        now = tree.walk(rel)
        for step in seen:  # None: the walk ended there
            there = next(now, None)
            if (there if there is None else (there[0], tuple(there[1]))) != step:
                return False
        return True
    if kind == "step":  # one folder of a walk, listed again
        return bool(_listed(tree, rel) == seen)
    return False


def _listed(tree: Any, rel: str) -> tuple[Any, ...] | None:
    real = tree._real_dir(rel)  # noqa: SLF001 - one folder of a walk, as the walk lists it
    listed = tree._listed(rel, real, []) if real is not None else None  # noqa: SLF001
    return tuple(listed) if listed is not None else None


def unique(reads: Iterable[tuple[Any, ...]]) -> tuple[tuple[Any, ...], ...]:
    """The reads, each once, in order: one read of the same path that saw the same object (an
    entry is the tree's own until `forget`) is a read made again. Reads that saw equal objects
    are both kept (proving one twice proves what proving it once does), and none is hashed
    whole: a walk's steps hold every item it listed."""
    return tuple({(kind, rel, id(seen)): (kind, rel, seen) for kind, rel, seen in reads}.values())


def unit_key(base: tuple[Any, ...], unit: tuple[Any, ...]) -> tuple[Any, ...]:
    return (*base, *unit)


def keep_unit(base: tuple[Any, ...], started: int, tree: Any, output: Any, reads: list[tuple[Any, ...]]) -> int:
    """Store a unit's output that just ran in this process, with the proof of its reads
    (unless a path changed during the check): the bytes written."""
    if not _files:
        return 0
    proven = proof(tree, unique(reads), started)
    if proven is None:
        return 0  # a path changed as it was read: the next run reads it again
    store, key = _files[0], unit_key(base, output.unit)
    stored = dataclasses.replace(output, seconds=0.0, phases={}, notes={}, stored=0)
    try:
        head = marshal.dumps((key, *proven))
        body = pickle.dumps(stored, protocol=pickle.HIGHEST_PROTOCOL)
    except (ValueError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return 0  # a value that cannot be stored (a command's hook gave one): not cached
    before = store.written
    store.put_raw("units", key, _HEAD.pack(len(head)) + head + body)
    return store.written - before


class Units:
    """The outputs of the units of one check that the tree still gives (engine.check)."""

    def __init__(self, folder: str, root: str, round_name: str, hook: str) -> None:
        self.store = Store(folder)
        self.base = (root, round_name, round_digest(round_name), hook, rules_digest())
        self.started = time.time_ns()  # before any unit of the check read the tree

    def take(self, units: list[Any], root: str, name: Any, jobs: int = 1) -> tuple[list[Any], list[Any]]:
        """(outputs still true of the tree, units to run); `name(unit)` is a unit's key, its
        division and submitter first. The entries are read, then, one submission's units at
        a time, each path their proofs name is stat-ed once (`_held`). With `jobs` > 1 a
        forked process proves the later half of them (the bytes of their entries) at once."""
        collecting = gc.isenabled()
        gc.disable()  # what is made here (stats, outputs) lives to the end: no cycle to look for
        try:
            groups = [
                [(unit, key, self.store.get_raw("units", key)) for unit, key in ((u, self._key(n)) for u, n in group)]
                for _, group in itertools.groupby(((unit, name(unit)) for unit in units), key=lambda pair: pair[1][:2])
            ]
            split = _split(groups, jobs)
            forked = _fork(lambda: self._bodies(groups[split:], root)) if split < len(groups) else None
            if split < len(groups) and forked is None:
                split = len(groups)  # no process to fork: all here
            bodies = self._bodies(groups[:split], root)
            if split < len(groups):
                theirs = _joined(forked)
                bodies += theirs if theirs is not None else [None] * sum(map(len, groups[split:]))
            outputs: list[Any] = []
            left: list[Any] = []
            for unit, body in zip((unit for group in groups for unit, _, _ in group), bodies, strict=True):
                output = self._output(body) if body is not None else None
                (left if output is None else outputs).append(output if output is not None else unit)
        finally:
            if collecting:
                gc.enable()
        return outputs, left

    def _key(self, named: tuple[Any, ...]) -> tuple[Any, ...]:
        return unit_key(self.base, named)

    def _bodies(self, groups: list[list[tuple[Any, tuple[Any, ...], bytes | None]]], root: str) -> list[bytes | None]:
        """For each unit of `groups` (unit, key, its entry's bytes), the bytes of its output
        when its proof holds, else None: one submission's proofs at a time (the memory stays
        flat)."""
        now = _Now(root)
        bodies: list[bytes | None] = []
        for group in groups:
            found = [self._proven(key, raw, now) if raw is not None else None for _, key, raw in group]
            now.stat(itertools.chain.from_iterable(proven[0] for proven in found if proven is not None))
            bodies += [self._held(proven, now) if proven is not None else None for proven in found]
        return bodies

    def _proven(self, key: tuple[Any, ...], raw: bytes, now: _Now) -> tuple[Any, ...] | None:
        """The proof of `key`'s entry `raw`, as `_Now.holds` takes it, and the bytes of its
        output; None for a broken one."""
        try:
            (size,) = _HEAD.unpack_from(raw)
            head = marshal.loads(raw[_HEAD.size : _HEAD.size + size])
            if not isinstance(head, tuple) or len(head) != 5 or head[0] != key:
                raise ValueError("another key")
            _, groups, digest, folders, slow = head
            named = list(now.paths(groups, folders))  # (a proof that names no paths is another entry's)
            if not isinstance(digest, bytes) or not isinstance(slow, bytes):
                raise ValueError("another proof")
        except Exception:  # noqa: BLE001 - any broken entry is a miss
            self.store.corrupted()
            return None
        return named, len(folders), digest, slow, raw[_HEAD.size + size :]

    def _held(self, proven: tuple[Any, ...], now: _Now) -> bytes | None:
        try:
            return proven[4] if now.holds(*proven[:4]) else None
        except Exception:  # noqa: BLE001 - any broken entry is a miss
            self.store.corrupted()
            return None

    def _output(self, body: bytes) -> Any:
        try:
            return pickle.loads(body)  # noqa: S301 - the user's own folder (module docstring)
        except Exception:  # noqa: BLE001 - any broken entry is a miss
            self.store.corrupted()
            return None


# Below this many bytes of entries, proving them in a second process costs more than it saves.
SPLIT_BYTES = 1 << 20
# What proving a unit costs beyond its entry's bytes (reading it, its proof's own stats), as
# bytes, for `_split` to give each process about half the work.
UNIT_BYTES = 30_000


def _split(groups: list[list[tuple[Any, Any, bytes | None]]], jobs: int) -> int:
    """How many of `groups` this process proves: all of them, or with `jobs` > 1 and enough
    to prove, those holding the first half of the entries' bytes."""
    sizes = [sum(len(raw) + UNIT_BYTES for _, _, raw in group if raw is not None) for group in groups]
    total = sum(sizes)
    if jobs < 2 or total < SPLIT_BYTES or not hasattr(os, "fork") or threading.active_count() > 1:
        return len(groups)
    done = 0
    for at, size in enumerate(sizes):
        if done >= total / 2:
            return at
        done += size
    return len(groups)


def _fork(work: Any) -> tuple[int, int] | None:
    """Run `work()` in a forked process, which sends back what it returns (marshalled) and
    what the cache had to say (`note`): (its pid, the pipe to read), or None when no process
    can be forked. The child never returns: it ends with os._exit."""
    try:
        read, write = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: its answer, then out, with no cleanup of the parent's
        status = 1
        try:
            os.close(read)
            data = marshal.dumps((work(), take_notes()))
            with os.fdopen(write, "wb") as pipe:
                pipe.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    return pid, read


def _joined(forked: tuple[int, int] | None) -> list[Any] | None:
    """What the forked process sent back (its notes said here), or None when it failed."""
    if forked is None:
        return None
    pid, read = forked
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        status = 1
    if status != 0:
        return None
    try:
        answer, notes = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    for kind, message in notes.items():
        note(kind, message)
    return list(answer)


def finish(kept: Units | None, outputs: Iterable[Any]) -> None:
    """After a check's units ran (each stored by the process that ran it: `keep_unit`): say
    once what the cache had to say, in this process or in the workers (UnitOutput.notes),
    and keep the folder within its bound."""
    outputs = list(outputs)
    notes = take_notes()
    for output in outputs:
        for kind, message in output.notes.items():
            notes.setdefault(kind, message)
    if kept is not None and any(output.stored for output in outputs):
        prune(kept.store.folder)
        for kind, message in take_notes().items():
            notes.setdefault(kind, message)
    say(notes)


# --- the size bound, and the `cache` command --------------------------------------------------
def _entries(folder: str) -> Iterator[tuple[str, os.stat_result]]:
    for base, _, names in os.walk(os.path.join(folder, LAYOUT)):
        for name in names:
            path = os.path.join(base, name)
            with contextlib.suppress(OSError):
                yield path, os.stat(path)


def limit() -> int:
    try:
        return max(0, int(float(os.environ.get(ENV_MAX, DEFAULT_MAX_MB)) * 1024 * 1024))
    except (ValueError, OverflowError):  # not a number, or inf / nan
        return DEFAULT_MAX_MB * 1024 * 1024


def prune(folder: str, most: int | None = None) -> int:
    """Remove entries until the folder holds at most `most` bytes (limit()): other versions'
    first, then the oldest; temporary files of killed runs too. The bytes removed."""
    most = limit() if most is None else most
    now, mine = time.time(), os.path.join(folder, LAYOUT, fingerprint())
    entries, total, removed = [], 0, 0
    for path, st in _entries(folder):
        if ".tmp-" in os.path.basename(path):
            if now - st.st_mtime > _STALE_TEMP:
                with contextlib.suppress(OSError):
                    os.unlink(path)
            continue
        entries.append((path.startswith(mine + os.sep), st.st_mtime, path, st.st_size))
        total += st.st_size
    entries.sort()
    for _, _, path, size in entries:
        if total <= most:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
            total -= size
            removed += size
    return removed


def info(folder: str) -> dict[str, Any]:
    """What `cache info` prints: the folder, its entries and bytes, this version's among them."""
    mine = os.path.join(folder, LAYOUT, fingerprint()) + os.sep
    count = size = own = own_size = 0
    for path, st in _entries(folder):
        count, size = count + 1, size + st.st_size
        if path.startswith(mine):
            own, own_size = own + 1, own_size + st.st_size
    return {
        "folder": folder,
        "entries": count,
        "bytes": size,
        "this_version_entries": own,
        "this_version_bytes": own_size,
        "limit_bytes": limit(),
    }


def clean(folder: str) -> tuple[int, int]:
    """Remove every entry (this layout's folder, nothing else of the folder): (entries, bytes)."""
    count = size = 0
    for path, st in list(_entries(folder)):
        with contextlib.suppress(OSError):
            os.unlink(path)
            count, size = count + 1, size + st.st_size
    for base, _, _ in sorted(os.walk(os.path.join(folder, LAYOUT)), key=lambda step: -len(step[0])):
        with contextlib.suppress(OSError):
            os.rmdir(base)
    return count, size
