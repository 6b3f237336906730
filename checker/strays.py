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

from .tree import FileChanged, Kind, Tree

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
    verdict = _verdict(name, is_dir, folder.rpartition("/")[2], runs)
    return Stray(rel, *verdict) if verdict is not None else None


Verdict = tuple[str, str, str | None]  # a Stray's what, fix and copy_of


def _verdict(name: str, is_dir: bool, parent: str, runs: RunFolders | None) -> Verdict | None:
    """What the item `name` of a folder named `parent` is when it looks like a mistake, by its
    name: an artefact or a lock file, then a second run folder, then a backup or a copy."""
    early, copied = _named(name, is_dir)
    if early is not None:
        return early
    if is_dir and runs is not None and runs.is_other(parent, name):
        return (
            f"a second run folder beside {runs.name}, which is the only one the round reads",
            f"keep the run you submit in {runs.parent}/{runs.name} and delete {name}",
            None,
        )
    return copied


@functools.lru_cache(maxsize=1 << 12)
def _named(name: str, is_dir: bool) -> tuple[Verdict | None, Verdict | None]:
    """What a name says before a run folder is judged (an artefact, a lock or autosave file)
    and after (a backup or a copy). Once a name: a round's folders hold the same few names
    thousands of times."""
    if name in ARTEFACTS:
        return (ARTEFACTS[name], "delete it", None), None
    if name.startswith("._") and not is_dir:
        return ("a macOS resource-fork file", "delete it", None), None
    if name.startswith(".#") or (name.startswith("#") and name.endswith("#") and len(name) > 2):
        return ("an editor's lock or autosave file", "delete it", None), None
    if name.startswith("~$") and len(name) > 2 and not is_dir:
        return ("an office application's lock file", "close the document and delete it", None), None
    return None, _copied(name) if is_dir else _copy(name)


# What a name that `_named` judges a mistake holds: one of these first characters (`._`, `.#`,
# `#...#`, `~$`), a space or a parenthesis (every copy `_COPY` and `_COPY_OF` know), or, for a
# file, one of these ends (a backup, a patch's rejected hunks).
_MARKED_START = frozenset(".#~")
_MARKED_END = (*BACKUP_SUFFIXES, ".rej")


def _plain(name: str, is_dir: bool) -> bool:
    """Whether `_named` says nothing of `name` (neither verdict), known without its regular
    expressions: no artefact's name, no marked start, no space or parenthesis, and for a
    file no marked end."""
    return (
        name not in ARTEFACTS
        and (not name or name[0] not in _MARKED_START)
        and " " not in name
        and "(" not in name
        and (is_dir or not name.endswith(_MARKED_END))
    )


def _copy(name: str) -> tuple[str, str, str | None] | None:
    """What a file's name says it is: a patch's rejected hunks, or a backup or a second copy of
    a file: (what, fix, copy_of), or None."""
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

    def read(self, name: str, size: int) -> bool:
        """Whether a file named `name` of `size` bytes may be a second accuracy log, so that
        its first bytes are read: not loadgen's name nor one of the layout's, and as large as
        a copy the round's truncation would cut (or compressed)."""
        if name == self.name or name in self.named:
            return False
        return size >= self.min_bytes or name.endswith(COMPRESSED_NAMES)

    def stray(self, rel: str, size: int, head: Callable[[str], bytes | None]) -> Stray | None:
        """The Stray the file at `rel` is when it is a second accuracy log; `head` reads its
        first HEAD_BYTES bytes (None when it cannot be read)."""
        if not self.read(rel.rpartition("/")[2], size):
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
        if found and any(folder == top or folder.startswith(top + "/") for top in found):
            continue
        for kind, stray in strays_in(folder, items, runs, logs, head):
            if kind == "dir":
                found.append(stray.rel)
            yield stray


def strays_in(
    folder: str,
    items: list[Item],
    runs: RunFolders | None,
    logs: AccuracyLogs | None,
    head: Callable[[str], bytes | None] | None,
) -> Iterator[tuple[str, Stray]]:
    """(kind, Stray) of each item of one folder of a walk that is one (`stray_at`, item by
    item; a path is made only for an item that is one or whose first bytes are read)."""
    parent = folder.rpartition("/")[2]
    prefix = folder.strip("/") + "/" if folder.strip("/") else ""  # what join(folder, name) makes
    sniffed = (logs, head) if logs is not None and head is not None else None
    least = sniffed[0].min_bytes if sniffed is not None else 0
    runs_here = runs is not None and parent == runs.parent  # where a folder may be a second run folder
    for name, kind, size, _ in items:
        is_dir = kind == "dir"
        # `_plain` first: most names are none of the kinds, and say so without a call
        if not _plain(name, is_dir) or (is_dir and runs_here):
            verdict = _verdict(name, is_dir, parent, runs)
            if verdict is not None:
                yield kind, Stray(prefix + name, *verdict)
                continue
        if (
            sniffed is not None
            and kind == "file"
            and (size >= least or name.endswith(COMPRESSED_NAMES))  # `read`'s own test, first
            and sniffed[0].read(name, size)
        ):
            stray = sniffed[0].stray(prefix + name, size, sniffed[1])
            if stray is not None:
                yield kind, stray


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
