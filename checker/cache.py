"""A persistent cache, as ruff and mypy keep one: what a reader made of each file, and each
unit's rule output, so that checking a tree again costs what changed in it.

Two kinds of entry, each a file of its own:

- `files`: what the reader made of one loadgen detail log of 1 MB or more (its values and
  defects), keyed by the file's absolute path, size, mtime_ns, ctime_ns, device and inode. A user can set mtime
  back, never ctime: a file rewritten with its mtime restored is still a new file.
- `units`: a unit's output (engine.UnitOutput: its results, and its findings with their
  positions), keyed by the unit (root, division, submitter, system, the results it checks),
  the round file's digest and the command's hook, and stored with every read of the tree the
  unit made (`Tree.reads`: each path judged, with its kind, size, mtime_ns, ctime_ns and
  inode; each folder listed, with its names). It is used only when every one of those reads
  gives the same answer on the tree as it is now (`still_true`), so a file edited, renamed,
  deleted, added beside the others or given another mode makes the unit run again.

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

The entries are pickles: the cache folder is the user's own (it is made 0700), as mypy's and
pytest's are. Anyone who can write there can run code as the user; `--no-cache` reads none.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import os
import pickle
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from . import __version__
from .escaping import visible

ENV_DIR = "MLPERF_CHECK_CACHE_DIR"
ENV_MAX = "MLPERF_CHECK_CACHE_MAX_MB"
DEFAULT_MAX_MB = 512
MAGIC = b"mlperf-check cache 1\n"
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
    (its modules and round files: an edited checkout is another checker)."""
    if not _fingerprint:
        hashed = hashlib.blake2b(f"{__version__}\0{sys.version}\0{LAYOUT}".encode(), digest_size=8)
        top = os.path.dirname(os.path.abspath(__file__))
        rules = os.path.join(os.path.dirname(top), "rules")
        for base in (top, rules):
            for folder, folders, names in os.walk(base):
                folders[:] = sorted(name for name in folders if name != "__pycache__")
                for name in sorted(names):
                    if name.endswith((".py", ".yaml", ".json")):
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

    def get(self, kind: str, key: tuple[Any, ...]) -> Any:
        """The value stored for `key`, or None (none, corrupt or foreign: it is written again)."""
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
        try:
            if raw[: len(MAGIC)] != MAGIC or raw[len(MAGIC) : head] != name:
                raise ValueError("not an entry of this key")
            stored, value = pickle.loads(raw[head:])  # noqa: S301 - the user's own folder (module docstring)
            if stored != key:
                raise ValueError("another key")
        except Exception:  # noqa: BLE001 - any broken entry is a miss
            self.corrupt += 1
            note("corrupt", f"entries in {self.folder} were corrupt or foreign; they were ignored and written again")
            return None
        return value

    def put(self, kind: str, key: tuple[Any, ...], value: Any) -> None:
        """Store `value` for `key`, atomically; a folder that cannot be written is said once."""
        if "write" in _notes:
            return  # it failed once this run: no more tries
        path, name = self._path(kind, key)
        try:
            data = MAGIC + name + pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
            return  # a value that cannot be stored (a command's hook gave one): not cached
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
    newest: int = max(entry.mtime, entry.ctime)
    grain = 2_000_000_000 if newest % 1_000_000_000 == 0 else 50_000_000
    return newest < before - grain


# --- files: what a reader made of one file ----------------------------------------------------
_files: list[Store] = []  # the store of this process (a worker's, or the checking one's)


def use(folder: str | None) -> None:
    """The cache folder this process reads files through (engine._setup), or None."""
    _files[:] = [Store(folder)] if folder else []


# A smaller log is read again rather than kept: reading one costs about 2 ms a MB, and an
# entry about 1 ms to write and 0.5 ms to read (the v5.1 round's detail logs, one core).
MIN_FILE_BYTES = 1 << 20


def file_key(kind: str, path: str, entry: Any) -> tuple[Any, ...] | None:
    """The key of a file's entry: its absolute path and everything its stat says of it; None
    without a cache, or for a file cheaper to read again (MIN_FILE_BYTES)."""
    if not _files or entry.size < MIN_FILE_BYTES:
        return None
    return (kind, path, entry.size, entry.mtime, entry.ctime, entry.dev, entry.ino)


def file_get(key: tuple[Any, ...] | None) -> Any:
    return _files[0].get("files", key) if key is not None and _files else None


def file_put(key: tuple[Any, ...] | None, value: Any, entry: Any, before: int) -> None:
    """Store what a reader made of a file it began to read at `before` (unless racy)."""
    if key is not None and _files and settled(entry, before):
        _files[0].put("files", key, value)


# --- units: a unit's output and the reads it made ------------------------------------------
def still_true(tree: Any, reads: Iterable[tuple[Any, ...]]) -> bool:
    """Whether every read a unit made (Tree.reads) gives the same answer on `tree` now. A
    walk its reader left early is compared as far as it went."""
    try:
        return _still_true(tree, reads)
    except (TypeError, ValueError, AttributeError):  # not reads this version records: a miss
        return False


def _still_true(tree: Any, reads: Iterable[tuple[Any, ...]]) -> bool:
    for read in reads:
        kind, rel, seen = read
        if kind == "entry":
            if tree.entry(rel) != seen:
                return False
        elif kind == "subdirs":
            if tuple(tree.subdirs(rel)) != seen:
                return False
        elif kind == "listdir":
            if tuple(entry.rel.rpartition("/")[2] for entry in tree.listdir(rel)) != seen:
                return False
        elif kind == "walk":
            now = tree.walk(rel)
            for step in seen:  # None: the walk ended there
                there = next(now, None)
                if (there if there is None else (there[0], tuple(there[1]))) != step:
                    return False
        else:
            return False
    return True


def unique(reads: Iterable[tuple[Any, ...]]) -> tuple[tuple[Any, ...], ...]:
    """The reads, each once, in order (a walk's steps frozen)."""
    frozen = ((kind, rel, tuple(seen) if kind == "walk" else seen) for kind, rel, seen in reads)
    return tuple(dict.fromkeys(frozen))


class Units:
    """The outputs of the units of one check that the tree still gives (engine.check)."""

    def __init__(self, folder: str, root: str, round_name: str, hook: str) -> None:
        self.store = Store(folder)
        self.base = (root, round_name, round_digest(round_name), hook, rules_digest())
        self.started = time.time_ns()  # before any unit of the check read the tree

    def _key(self, unit: tuple[Any, ...]) -> tuple[Any, ...]:
        return (*self.base, *unit)

    def take(self, units: list[Any], tree: Any, name: Any) -> tuple[list[Any], list[Any]]:
        """(outputs still true of the tree, units to run); `name(unit)` is a unit's key."""
        outputs, left = [], []
        for unit in units:
            stored = self.store.get("units", self._key(name(unit)))
            if isinstance(stored, tuple) and len(stored) == 2 and still_true(tree, stored[0]):
                outputs.append(stored[1])
            else:
                left.append(unit)
        return outputs, left

    def keep(self, outputs: Iterable[Any]) -> None:
        """Store each output that ran, with the reads it made (UnitOutput.reads); stored, it
        took no time."""
        for output in outputs:
            if output.reads is None:
                continue
            reads, output.reads = output.reads, None
            if not all(
                kind != "entry" or seen.kind != "file" or settled(seen, self.started) for kind, _, seen in reads
            ):
                continue  # a file changed as it was read: the next run reads it again
            stored = dataclasses.replace(output, seconds=0.0, phases={}, notes={})
            self.store.put("units", self._key(output.unit), (reads, stored))
        if self.store.written:
            prune(self.store.folder)


def finish(kept: Units | None, outputs: Iterable[Any]) -> None:
    """After a check's units ran: store their outputs (with `kept`), and say once what the
    cache had to say, in this process or in the workers (UnitOutput.notes)."""
    outputs = list(outputs)
    notes = take_notes()
    for output in outputs:
        for kind, message in output.notes.items():
            notes.setdefault(kind, message)
    if kept is not None:
        kept.keep(outputs)
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
    except ValueError:
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
