"""Files that look like mistakes: what `check` warns about (STR012) and `prepare` leaves out.

Four kinds, known by the name (the last by the first bytes), so `check` and `prepare` judge a file alike:

- an operating system's or an editor's artefact (`.DS_Store`, `Thumbs.db`, `._name`,
  `name~`, `.name.swp`, `__MACOSX/`);
- a backup or a second copy of a file or folder (`name.bak`, `name.orig`, `name (1).json`,
  `name - Copy.txt`, `name copy.txt`, `name (copy).txt`, `run_1 (copy)/`), a patch's rejected
  hunks (`name.rej`), an office application's lock file (`~$name.docx`);
- a second accuracy log: a file whose first bytes are loadgen's accuracy log under another
  name than loadgen's (`accuracy_full.json`, `mlperf_log_accuracy.json.gz`,
  `mlperf_log_accuracy.json.full`): the round truncates only accuracy/mlperf_log_accuracy.json,
  so it would be uploaded whole. It is known by its content, read only for a file the round's
  truncation would cut (`prepare.truncation.done_below_bytes`, 10 KiB: a truncated copy is
  smaller), and for a compressed one (`.gz`, `.bz2`, `.xz`) of any size. A log under loadgen's own name is the output of a run wherever it lies (published
  results hold one in performance/run_1 and TEST06/), as the round's tools leave it;
- a run folder the round's layout does not use: `performance/run_2` beside the layout's
  `performance/run_1` (a folder named otherwise, such as `run_1_1`, is not a run folder of
  that pattern and is left alone: published results hold such folders).

Other files the layout does not name (README.md, summary.html, calibration documents) are not
strays: published result folders hold them."""

from __future__ import annotations

import bz2
import functools
import lzma
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .tree import FileChanged, Kind, Tree, join

if TYPE_CHECKING:
    from .rounds import Round

# Names an operating system or a file manager writes into every folder it shows.
ARTEFACTS = {
    ".DS_Store": "a macOS Finder file",
    ".localized": "a macOS Finder file",
    "Thumbs.db": "a Windows thumbnail cache",
    "ehthumbs.db": "a Windows thumbnail cache",
    "desktop.ini": "a Windows folder-settings file",
    "__MACOSX": "the resource-fork folder of a macOS zip archive",
    ".ipynb_checkpoints": "a Jupyter checkpoint folder",
    ".Trashes": "a macOS trash folder",
    ".Spotlight-V100": "a macOS search index",
    ".fseventsd": "a macOS file-event log",
}
# A suffix that marks a backup copy of the file named before it.
BACKUP_SUFFIXES = (".bak", ".orig", ".old", ".backup", ".save", ".tmp", ".swp", "~")
# A file manager's or a browser's second copy: `name (1).json`, `name - Copy.txt`, `name copy 2.txt`
# (Windows, macOS, browsers), `name (copy).txt`, `name (another copy).txt`, `name (3rd copy).txt`
# (GNOME Files), `Copy of name.txt` (not `name_copy.py`: code has such names).
_COPY = re.compile(
    r"^(?P<stem>.+?)(?: ?\(\d+\)| - [Cc]opy(?: \(\d+\))?| [Cc]opy(?: \d+)?"
    r"| \((?:another |\d+(?:st|nd|rd|th) )?copy(?: \d+)?\))(?P<ext>\.[^.]+)?$"
)
_COPY_OF = re.compile(r"^Copy (?:\(\d+\) )?of (?P<name>.+)$")


@dataclass(frozen=True)
class Stray:
    """One file or folder that looks like a mistake: `what` it is (a phrase), the file it is a
    copy of when it is one, and the fix."""

    rel: str
    what: str
    fix: str
    copy_of: str | None = None

    @property
    def message(self) -> str:
        return f"`{self.rel.rpartition('/')[2]}` is {self.what}, not part of the submission; prepare leaves it out"


@dataclass(frozen=True)
class RunFolders:
    """The layout's run folder: `parent/name` (performance/run_1), and the pattern of its siblings."""

    parent: str
    name: str

    @classmethod
    def of(cls, template: str) -> RunFolders:
        """From a layout template such as `{result}/performance/run_1`."""
        head, _, name = template.rpartition("/")
        return cls(head.rpartition("/")[2], name)

    def is_other(self, parent: str, name: str) -> bool:
        """Whether `parent/name` is a run folder of the layout's pattern that the layout does not use."""
        if parent != self.parent or name == self.name or not re.search(r"\d", self.name):
            return False
        return re.fullmatch(re.sub(r"\d+", r"\\d+", re.escape(self.name)), name) is not None


def classify(rel: str, is_dir: bool, runs: RunFolders | None = None) -> Stray | None:
    """The Stray at `rel` (a path in the tree), or None when its name looks like no mistake."""
    folder, _, name = rel.rpartition("/")
    if name in ARTEFACTS:
        return Stray(rel, ARTEFACTS[name], "delete it")
    if name.startswith("._") and not is_dir:
        return Stray(rel, "a macOS resource-fork file", "delete it")
    if name.startswith(".#") or (name.startswith("#") and name.endswith("#") and len(name) > 2):
        return Stray(rel, "an editor's lock or autosave file", "delete it")
    if name.startswith("~$") and len(name) > 2 and not is_dir:
        return Stray(rel, "an office application's lock file", "close the document and delete it")
    if is_dir and runs is not None and runs.is_other(folder.rpartition("/")[2], name):
        return Stray(
            rel,
            f"a second run folder beside {runs.name}, which is the only one the round reads",
            f"keep the run you submit in {runs.parent}/{runs.name} and delete {name}",
        )
    verdict = _copied(name) if is_dir else _copy(name)
    return Stray(rel, *verdict) if verdict is not None else None


@functools.lru_cache(maxsize=1 << 14)
def _copy(name: str) -> tuple[str, str, str | None] | None:
    """What a file's name says it is: a patch's rejected hunks, or a backup or a second copy of
    a file: (what, fix, copy_of), or None. Once a name: a round's folders hold the same few
    names thousands of times."""
    if name.endswith(".rej") and name[:-4].strip("."):
        original = name[:-4]
        return f"the rejected hunks of a patch to {original}", f"apply them to {original} by hand, then delete it", None
    if name.endswith(BACKUP_SUFFIXES):
        for suffix in BACKUP_SUFFIXES:
            original = name[: -len(suffix)]
            if name.endswith(suffix) and original.strip("."):
                if suffix == ".swp" and original.startswith("."):
                    return "an editor's swap file", "delete it", None
                return f"a backup copy of {original}", "delete it", original
    return _copied(name)


@functools.lru_cache(maxsize=1 << 14)
def _copied(name: str) -> tuple[str, str, str | None] | None:
    """What a file manager's second copy of a file or folder is a copy of (`_COPY`, `_COPY_OF`):
    (what, fix, copy_of), or None."""
    match = _COPY.match(name)
    if match is not None:
        original = match["stem"] + (match["ext"] or "")
        return f"a second copy of {original}", f"delete it, or put it in place of {original}", original
    copied = _COPY_OF.match(name)
    if copied is not None:
        original = copied["name"]
        return f"a second copy of {original}", f"delete it, or put it in place of {original}", original
    return None


# The start of loadgen's accuracy log (logging.cc writes `[` then one `{ "seq_id" : N, "qsl_idx" :
# ...` object a line); JSON tools that rewrite it keep the list of objects and its keys.
_ACCURACY_LOG = re.compile(rb'\s*\[\s*\{[^}]*?"(?:seq_id|qsl_idx)"\s*:')
HEAD_BYTES = 4096  # of a file, what is read to know an accuracy log (and to undo a compression)
# A compressed copy, known by its magic bytes: what decompresses its first bytes.
_COMPRESSED: tuple[tuple[bytes, Callable[[], Callable[[bytes], bytes]]], ...] = (
    (b"\x1f\x8b", lambda: lambda data: zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, HEAD_BYTES)),
    (b"BZh", lambda: lambda data: bz2.BZ2Decompressor().decompress(data, HEAD_BYTES)),
    (b"\xfd7zXZ\x00", lambda: lambda data: lzma.LZMADecompressor().decompress(data, HEAD_BYTES)),
)


# A compressed file's size says nothing of what it holds: one of these names is read whatever its size.
COMPRESSED_NAMES = (".gz", ".bz2", ".xz")


def is_accuracy_log(head: bytes) -> bool:
    """Whether the first bytes of a file are loadgen's accuracy log, compressed (gzip, bzip2,
    xz) or not."""
    for magic, opener in _COMPRESSED:
        if head.startswith(magic):
            try:
                head = opener()(head)
            except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError):
                return False
            break
    return _ACCURACY_LOG.match(head) is not None


@dataclass(frozen=True)
class AccuracyLogs:
    """loadgen's name for its accuracy log (`name`) and the layout's folder of the one the
    round truncates (`folder`): a file of at least `min_bytes` under another name whose first
    bytes are one is a second accuracy log."""

    folder: str
    name: str
    min_bytes: int
    # The layout's other files (the detail and summary logs, spl.txt, ...): each is read and
    # judged by its own reader, so its first bytes are not read again here.
    named: frozenset[str] = frozenset()

    @classmethod
    def of(cls, round: Round) -> AccuracyLogs:
        """The round's: its layout's accuracy folder (`{result}/accuracy`) and log name; a file
        under the size its truncation leaves as it is (`prepare.truncation.done_below_bytes`)
        is not read (every file is, in a round without one)."""
        truncation = round.prepare.truncation if round.prepare is not None else None
        layout = round.layout
        files = layout.files
        named = (files.detail_log, files.summary_log, files.accuracy_report, files.power_samples, files.user_conf)
        return cls(
            layout.accuracy.rpartition("/")[2],
            files.accuracy_log,
            truncation.done_below_bytes if truncation is not None else 0,
            frozenset(n for n in (*named, files.mlperf_conf) if n),
        )

    def stray(self, rel: str, size: int, head: Callable[[str], bytes | None]) -> Stray | None:
        """The Stray the file at `rel` is when it is a second accuracy log; `head` reads its
        first HEAD_BYTES bytes (None when it cannot be read)."""
        name = rel.rpartition("/")[2]
        if name == self.name or name in self.named or (size < self.min_bytes and not name.endswith(COMPRESSED_NAMES)):
            return None
        first = head(rel)
        if first is None or not is_accuracy_log(first):
            return None
        return Stray(
            rel,
            f"a second accuracy log of {_size(size)} (the round truncates only {self.folder}/{self.name})",
            f"delete it, or put it in place of {self.folder}/{self.name}",
            self.name,
        )


def _size(size: int) -> str:
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{max(1, round(size / 2**10))} KiB"


def read_head(tree: Tree) -> Callable[[str], bytes | None]:
    """A reader of a file's first HEAD_BYTES bytes in `tree` (None when it is no regular file
    or cannot be read): the tree judges it first, so a cache sees the read."""

    def head(rel: str) -> bytes | None:
        entry = tree.entry(rel)
        if entry.kind is not Kind.FILE:
            return None
        try:
            fd = tree.open(entry)
        except (OSError, FileChanged):
            return None
        try:
            return os.read(fd, HEAD_BYTES)
        except OSError:
            return None
        finally:
            os.close(fd)

    return head


Item = tuple[str, str, int, Kind | None]  # Tree.walk's


def strays(
    folders: Iterable[tuple[str, list[Item]]],
    runs: RunFolders | None = None,
    logs: AccuracyLogs | None = None,
    head: Callable[[str], bytes | None] | None = None,
) -> Iterator[Stray]:
    """The strays of a walk (Tree.walk: (folder, [(name, kind, size, link)])); nothing inside
    a stray folder is reported again. With `logs` and `head`, second accuracy logs too."""
    found: list[str] = []
    for folder, items in folders:
        if any(folder == top or folder.startswith(top + "/") for top in found):
            continue
        for name, kind, size, _ in items:
            stray = stray_at(join(folder, name), kind, size, runs, logs, head)
            if stray is not None:
                if kind == "dir":
                    found.append(stray.rel)
                yield stray


def stray_at(
    rel: str,
    kind: str,
    size: int,
    runs: RunFolders | None,
    logs: AccuracyLogs | None,
    head: Callable[[str], bytes | None] | None,
) -> Stray | None:
    """The Stray at `rel` (one item of a walk), by its name, then by its content (a second
    accuracy log): `check` (STR012) and `prepare` judge each file by this one function."""
    stray = classify(rel, kind == "dir", runs)
    if stray is None and kind == "file" and logs is not None and head is not None:
        stray = logs.stray(rel, size, head)
    return stray
