"""Files that look like mistakes: what `check` warns about (STR012) and `prepare` leaves out.

Three kinds, each known by its name alone, so `check` and `prepare` judge a file alike:

- an operating system's or an editor's artefact (`.DS_Store`, `Thumbs.db`, `._name`,
  `name~`, `.name.swp`, `__MACOSX/`);
- a backup or a second copy of a file (`name.bak`, `name.orig`, `name (1).json`,
  `name - Copy.txt`, `name copy.txt`);
- a run folder the round's layout does not use: `performance/run_2` beside the layout's
  `performance/run_1` (a folder named otherwise, such as `run_1_1`, is not a run folder of
  that pattern and is left alone: published results hold such folders).

Other files the layout does not name (README.md, summary.html, calibration documents) are not
strays: published result folders hold them."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .tree import Kind, join

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
# A file manager's or a browser's second copy: `name (1).json`, `name - Copy.txt`, `name copy 2.txt`,
# `Copy of name.txt` (not `name_copy.py`: code has such names).
_COPY = re.compile(r"^(?P<stem>.+?)(?: ?\(\d+\)| - [Cc]opy(?: \(\d+\))?| [Cc]opy(?: \d+)?)(?P<ext>\.[^.]+)?$")
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
    if is_dir:
        if runs is not None and runs.is_other(folder.rpartition("/")[2], name):
            return Stray(
                rel,
                f"a second run folder beside {runs.name}, which is the only one the round reads",
                f"keep the run you submit in {runs.parent}/{runs.name} and delete {name}",
            )
        return None
    verdict = _copy(name)
    return Stray(rel, *verdict) if verdict is not None else None


@functools.lru_cache(maxsize=1 << 14)
def _copy(name: str) -> tuple[str, str, str | None] | None:
    """What a file's name says it is a backup or a second copy of: (what, fix, copy_of), or
    None. Once a name: a round's folders hold the same few names thousands of times."""
    if name.endswith(BACKUP_SUFFIXES):
        for suffix in BACKUP_SUFFIXES:
            original = name[: -len(suffix)]
            if name.endswith(suffix) and original.strip("."):
                if suffix == ".swp" and original.startswith("."):
                    return "an editor's swap file", "delete it", None
                return f"a backup copy of {original}", "delete it", original
    match = _COPY.match(name)
    if match is not None:
        original = match["stem"] + (match["ext"] or "")
        return f"a second copy of {original}", f"delete it, or put it in place of {original}", original
    copied = _COPY_OF.match(name)
    if copied is not None:
        original = copied["name"]
        return f"a second copy of {original}", f"delete it, or put it in place of {original}", original
    return None


Item = tuple[str, str, int, Kind | None]  # Tree.walk's


def strays(folders: Iterable[tuple[str, list[Item]]], runs: RunFolders | None = None) -> Iterator[Stray]:
    """The strays of a walk (Tree.walk: (folder, [(name, kind, size, link)])); nothing inside
    a stray folder is reported again."""
    found: list[str] = []
    for folder, items in folders:
        if any(folder == top or folder.startswith(top + "/") for top in found):
            continue
        for name, kind, _, _ in items:
            stray = classify(join(folder, name), kind == "dir", runs)
            if stray is not None:
                if kind == "dir":
                    found.append(stray.rel)
                yield stray
