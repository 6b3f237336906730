"""The workspace of a run: which tree the paths given lie in, which part of it they name, the
results of a result folder given, and where no command may write. Every command, the API and
the engine reach a tree through `locate` (or `locate_result` for one result folder); every
output, `prepare`'s DEST and `rerun`'s work folder pass `Workspace.refuse` before anything is
written.

A path is read by one rule (`_place`): resolved as the file system resolves it (links, `..`)
up to the tree it lies in, then named from that tree's root. The tree is the nearest folder
above the path that holds a division folder (closed/, open/, network/: the divisions of every
round this version knows) holding a submitter folder (one with a results/ or systems/ folder),
so a folder named `open` further up (a clone inside /tmp/x/open/) is not taken for one.

The areas no write may enter are the division folders of that tree, there or not (`-o
T/open` for a tree T would make a division of it), and every folder that holds the tree (a
DEST of `''`, `.` or `..` would be built around it), links resolved."""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import UsageError

if TYPE_CHECKING:
    from .formats import Survey
    from .rounds import Round
    from .scope import Scope

# A path the file system cannot open by name (Linux's PATH_MAX counts the terminating NUL),
# and a folder depth no submission needs: both are one finding (FIL025), for what `check`
# reads and what `prepare` would write.
PATH_BYTES = 4095
NAME_BYTES = 255


class WorkspaceError(UsageError):
    """Paths that name no tree the run can work in, or a write the workspace refuses."""


@dataclass(frozen=True)
class Given:
    """Paths given inside a tree, relative to its root (POSIX): `inside`, those of them that
    are folders, `outside`, the paths given that lie in no division folder, and `deleted`,
    the files of the tree that the git index deletes."""

    inside: tuple[str, ...]
    folders: frozenset[str]
    outside: tuple[str, ...]
    deleted: tuple[str, ...] = ()  # files the index deletes, in the same tree (pre-commit never passes them)

    @property
    def count(self) -> int:
        return len(self.inside) + len(self.outside)


@dataclass(frozen=True)
class Workspace:
    """Where a run works. `path`: the folder to check, as given or as shown (relative to the
    current folder when inside it); `root`: the tree's root that findings are named from
    (`path` itself for a whole tree, the real parent of a division folder given, the real
    grandparent of a submitter folder); `part`: () for a whole tree, (division,) or
    (division, submitter) for the folder given; `given`: the paths given inside the tree when
    they name less than a part (None: the part, checked whole); `tree`: the real path of the
    tree's root, "" when the paths lie in no tree; `divisions`: the division folder names."""

    path: str
    root: str
    part: tuple[str, ...] = ()
    given: Given | None = None
    tree: str = ""
    divisions: frozenset[str] = field(default=frozenset())

    @property
    def trees(self) -> tuple[str, ...]:
        """The real roots of the tree and of every tree that holds it (a tree kept in another
        tree's folder: writing into the outer one changes it too), the nearest first."""
        if not self.tree:
            return ()
        found, current, marks_ = [self.tree], self.tree, marks()
        while (up := os.path.dirname(current)) != current:
            if _holds_tree(up, marks_):
                found.append(up)
            current = up
        return tuple(found)

    @property
    def areas(self) -> tuple[str, ...]:
        """The real folders no write may enter (module doc): the division folders of the tree
        and of every tree that holds it, or the folder given when it lies in no tree."""
        if not self.tree:
            return (os.path.realpath(self.path),) if os.path.isdir(self.path) else ()
        return tuple(os.path.join(root, division) for root in self.trees for division in sorted(self.divisions))

    def scope(self, round: Round) -> Scope | None:
        """The results the paths given affect (None: the part, whole). A file given may be
        new (pre-commit passes added files too); a folder given is there and names its own
        results; a deletion is one."""
        from .scope import scope_of

        given = self.given
        if given is None:
            return None
        statuses = {path: "M" if path in given.folders else "?" for path in given.inside}
        scope = scope_of(statuses | dict.fromkeys(given.deleted, "D"), round, given.folders)
        return dataclasses.replace(scope, outside=tuple(sorted(scope.outside + given.outside)))

    def refuse(self, path: str, option: str) -> None:
        """A WorkspaceError when writing to `path` (for `option`) could change the tree: it
        is empty, or, links resolved, it lies in one of the areas or holds one."""
        refuse_write(path, f"{option} {path}" if path else f"{option} ''", self.areas)


def refuse_write(path: str, label: str, areas: Iterable[str]) -> None:
    """`Workspace.refuse` against given areas (real paths); `label` names the path in the
    message as the command line gave it (`-o DEST`)."""
    if path == "":
        raise WorkspaceError(f"{label}: an empty path (an unset variable?); give the path to write")
    landing = os.path.realpath(path)
    for area in areas:
        if within(landing, area):
            raise WorkspaceError(
                f"{label}: that is inside the checked submission ({area}); write outside its division folders"
            )
        if within(area, landing):
            raise WorkspaceError(f"{label}: that folder holds the checked submission ({area}); write outside it")


def areas_of(path: str) -> tuple[str, ...]:
    """The areas no write may enter for a path a command reads (a tree, a part of one, a
    result folder): its workspace's."""
    try:
        return locate(path, deletions=False).areas
    except WorkspaceError:
        return (os.path.realpath(path),)


def within(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or lies under it (both real paths)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def too_long(base: str, rel: str) -> str | None:
    """Why the file `rel` under the real folder `base` cannot be opened by name, or None."""
    full = os.fsencode(os.path.join(base, rel))
    if len(full) > PATH_BYTES:
        return f"its path is {len(full)} bytes long, more than the {PATH_BYTES} a file system opens by name"
    longest = max((len(os.fsencode(name)) for name in rel.split("/")), default=0)
    if longest > NAME_BYTES:
        return f"a name in it is {longest} bytes long, more than the {NAME_BYTES} a file system holds"
    return None


# --- the marks of a tree ----------------------------------------------------------------
@dataclass(frozen=True)
class Marks:
    """What tells a tree, in any known round: the division folder names, and whether a folder
    holds a submitter folder (looked at once a run: the tree may change between runs)."""

    divisions: frozenset[str]
    holds: Callable[[str], bool]
    named: tuple[str, ...] = ("closed", "open", "network")  # the newest round's, in its order, for messages
    results_root: str = "results"


def marks() -> Marks:
    """The marks of every round this version knows (their layouts name the same folders),
    with a new look at the folders (`holds`) for each run."""
    divisions, inner, named, results_root = _layouts()
    holds = functools.cache(functools.partial(_holds_submitters, marks=inner))
    return Marks(divisions, holds, named, results_root)


@functools.cache
def _layouts() -> tuple[frozenset[str], frozenset[str], tuple[str, ...], str]:
    """The division folders and submitter marks of the bundled rounds (read once a process)."""
    from .rounds import available_rounds, load_round

    rounds = [load_round(name) for name in available_rounds()]
    divisions = frozenset(d for one in rounds for d in one.divisions)
    inner = frozenset(m for one in rounds for m in (one.results_root, "systems"))
    return divisions, inner, tuple(rounds[-1].divisions), rounds[-1].results_root


# --- locate -----------------------------------------------------------------------------
def locate(paths: Sequence[str] | str, deletions: bool = True) -> Workspace:
    """The workspace of the paths given (any number, any level, files, links, `..`). A root
    among them checks its whole tree; one division or submitter folder alone is that part,
    checked whole; other folders and files name the results they affect (`given`); a file in
    no tree affects none. With `deletions`, the files the git index deletes in that tree count
    as given (pre-commit never passes them). A path that is not there, a folder in no tree
    among others, and paths in two trees are WorkspaceErrors; one folder in no tree is its
    own workspace with no tree (the check says where to look)."""
    paths = [paths] if isinstance(paths, str) else list(paths)
    found = marks()
    places: list[tuple[str, Place | None]] = []
    for path in paths:
        if not os.path.lexists(path):
            raise WorkspaceError(f"{path}: no such file or folder")
        place = _place(path, found)
        if place is None and os.path.isdir(path):
            if len(paths) == 1:
                return Workspace(path, path, divisions=found.divisions)
            raise WorkspaceError(no_results_reason(path, found.named, found.results_root))
        places.append((path, place))
    roots = {place.root: _shown(place.root) for _, place in places if place is not None}
    if len(roots) > 1:
        raise WorkspaceError(
            f"the paths given lie in {len(roots)} trees ({', '.join(sorted(roots.values()))}): give those of one"
        )
    if len(places) == 1 and (place := places[0][1]) is not None and place.whole:
        return _whole(paths[0], place, found)
    if any(place is not None and place.rel == "" for _, place in places):
        root = next(iter(roots))
        return Workspace(roots[root], roots[root], tree=root, divisions=found.divisions)
    inside = tuple(place.rel for _, place in places if place is not None and not place.loose)
    folders = frozenset(place.rel for _, place in places if place is not None and place.folder and not place.loose)
    outside = tuple(path for path, place in places if place is None or place.loose)
    deleted = _deleted(roots, found) if deletions else []
    if not roots and deleted:
        roots = {deleted[0][0]: _shown(deleted[0][0])}
    chosen = next(iter(roots), None)
    gone = tuple(rel for root, rel in deleted if root == chosen)
    shown = roots[chosen] if chosen is not None else "."
    given = Given(inside, folders, outside, gone)
    return Workspace(shown, shown, given=given, tree=chosen or "", divisions=found.divisions)


def no_results_reason(path: str, divisions: Sequence[str], results_root: str) -> str:
    """Why a tree holds no results, naming the folder to give instead; for a tree laid out
    as another format (rules/formats.yaml), what it looks like and the tool that checks it;
    for folders of no known layout, that they are none."""
    divisions = list(divisions)
    holding = ", ".join(f"{d}/" for d in divisions[:-1]) + (" or " if len(divisions) > 1 else "") + f"{divisions[-1]}/"
    seen = _survey(path)
    other = other_format(path, seen)
    if other is not None:
        return other
    present = [d for d in divisions if os.path.isdir(os.path.join(path, d))]
    if present:
        return (
            f"no results under {path}: its {' and '.join(d + '/' for d in present)} "
            f"{'holds' if len(present) == 1 else 'hold'} no "
            f"<submitter>/{results_root}/<system>/<benchmark>/<scenario> folder"
        )
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    inside = [i for i, part in enumerate(parts) if part in divisions]
    if inside:
        root = os.sep.join(parts[: inside[-1]]) or os.sep
        shown = root if os.path.isabs(path) else os.path.relpath(root)
        return f"no results under {path}: give the folder that holds {holding} (here {shown}), not a folder inside it"
    if seen.folders and not seen.known:
        return (
            f"no results under {path}: its folders are laid out as no format this version knows (no file in "
            f"them is one an MLPerf Inference run writes): give the folder that holds {holding}"
        )
    return f"no results under {path}: give the folder that holds {holding}"


def other_format(path: str, seen: Survey | None = None) -> str | None:
    """For a folder that holds no results and is laid out as another format (rules/formats.yaml):
    what it looks like and the tool that checks it (the message of `no results`); else None.
    `seen`: the folder's survey, when it was made."""
    seen = seen if seen is not None else _survey(path)
    if seen.format is None:
        return None
    return (
        f"no results under {path}: it looks like {seen.format.name} ({seen.format.layout}, such as "
        f"{seen.example}), which mlperf-check does not check: check it with `{seen.tool}` "
        f"({seen.format.install})"
    )


def _survey(path: str) -> Survey:
    """What the folder holds (formats.survey), the files every known round's run writes told."""
    from .formats import survey

    return survey(path, _run_files())


@functools.cache
def _run_files() -> frozenset[str]:
    """The names of the files a run of any bundled round writes (loadgen's, the Endpoints harness's)."""
    from .rounds import available_rounds, load_round

    names: set[str] = set()
    for one in (load_round(name) for name in available_rounds()):
        files = one.layout.files
        names |= {files.detail_log, files.summary_log, files.accuracy_log, files.accuracy_report, files.user_conf}
        if one.layout.endpoints:
            ends = one.layout.endpoints
            names |= {name.rpartition("/")[2] for name in (ends.config, ends.accuracy, *ends.summary)}
    return frozenset(names)


def _whole(path: str, place: Place, found: Marks) -> Workspace:
    """One root, division or submitter folder given alone: checked whole, named as given."""
    if not place.rel:
        return Workspace(path, path, tree=place.root, divisions=found.divisions)
    return Workspace(path, place.root, tuple(place.rel.split("/")), tree=place.root, divisions=found.divisions)


def tree_under(folder: str, named: str) -> str:
    """The one tree at or under `folder` (the folder of a configuration or waivers file given
    with no path in a tree, which governs it), at most three folders down and none hidden; a
    WorkspaceError when there is none or several."""
    found_marks = marks()
    found, level = [], [folder]
    for _ in range(4):
        found = sorted({p.root for p in (_place(f, found_marks) for f in level) if p is not None and not p.rel})
        if found:
            break
        level = [e.path for f in level for e in _subfolders(f)]
    if len(found) != 1:
        where = f"{len(found)} trees ({', '.join(_shown(root) for root in found)})" if found else "no tree"
        raise WorkspaceError(
            f"{named} governs {where} under {_shown(folder)}: give the folder that holds closed/, open/ or network/"
        )
    return _shown(found[0])


def locate_result(path: str, divisions: Iterable[str], results_root: str) -> tuple[str, str] | None:
    """(checked root, location) of a `.../<division>/<submitter>/<results>/<system>/<benchmark>/<scenario>`
    folder, or None."""
    parts = os.path.abspath(path).split(os.sep)
    named = frozenset(divisions)
    for index in range(1, len(parts) - 5):
        if parts[index] in named and parts[index + 2] == results_root and len(parts) == index + 6:
            return os.sep.join(parts[:index]) or os.sep, "/".join(parts[index:])
    return None


def _subfolders(folder: str) -> list[os.DirEntry[str]]:
    """The folders in `folder` that are not hidden, links not followed."""
    try:
        with os.scandir(folder) as entries:
            return [e for e in entries if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")]
    except OSError:
        return []


@dataclass(frozen=True)
class Place:
    """Where a path given lies: the real path of its tree's root, and the path inside it
    (POSIX; "" for the root itself). `folder`: the path is a folder."""

    root: str
    rel: str
    folder: bool
    loose: bool = False  # beside the division folders (a README at the root): in the tree, in no part

    @property
    def whole(self) -> bool:
        """A root, a division or a submitter folder: checked whole when given alone."""
        if self.loose:
            return False
        return self.folder and len(self.rel.split("/")) <= 2 if self.rel else self.folder


def _place(path: str, found: Marks) -> Place | None:
    """Where `path` lies (`Place`), or None for a path in no tree. Links and `..` are resolved
    as the file system does (a link to a submitter folder, `link/..`) until the path enters a
    tree; inside it, names are the tree's own (a link in the tree is a file of it, as the
    check reads it). A folder that holds a division folder is itself a root."""
    parts = _resolved(path, found)
    real = os.sep.join(parts) or os.sep
    folder = os.path.isdir(real)
    if folder and _is_root(real, found):
        return Place(real, "", True)
    at = _division_at(parts, found)
    if at is not None:
        return Place(os.sep.join(parts[:at]) or os.sep, "/".join(parts[at:]), folder)
    for up in range(len(parts) - 1, 1, -1):  # a file beside the division folders is the tree's too
        above = os.sep.join(parts[:up])
        if _holds_tree(above, found):
            return None if folder else Place(above, "/".join(parts[up:]), folder, loose=True)
    return None


def _resolved(path: str, found: Marks) -> list[str]:
    """The parts of `path`, absolute: each name resolved as the file system resolves it (links,
    `..`) until the path lies in a tree; the names inside the tree as given."""
    # os.path.abspath would drop `link/..` by name; the file system goes up from the link's target.
    names = [name for name in os.path.join(os.getcwd(), path).split(os.sep) if name not in ("", ".")]
    current = os.sep
    for index, name in enumerate(names):
        current = os.path.realpath(os.path.join(current, name))
        parts = current.split(os.sep)
        if _division_at(parts, found) is not None:
            rest = os.path.normpath(os.sep.join([current, *names[index + 1 :]]))
            return rest.split(os.sep)
    return current.split(os.sep)


def _is_root(folder: str, found: Marks) -> bool:
    """Whether a folder is a submission root: it holds a division folder that holds a
    submitter folder, or, in no tree, any division folder (an empty tree, checked to say so)."""
    present = [os.path.join(folder, d) for d in found.divisions if os.path.isdir(os.path.join(folder, d))]
    if any(found.holds(d) for d in present):
        return True
    return bool(present) and _division_at(folder.split(os.sep), found) is None


def _holds_tree(folder: str, found: Marks) -> bool:
    """Whether a folder is the root of a tree with submitters (a folder that merely holds one
    named `open`, as a home folder may, is none)."""
    return any(found.holds(os.path.join(folder, d)) for d in found.divisions)


def _shown(root: str) -> str:
    """A tree's root as shown: relative to the current folder when inside it."""
    shown = os.path.relpath(root)
    return root if shown.startswith("..") else shown


def _deleted(roots: dict[str, str], found: Marks) -> list[tuple[str, str]]:
    """The files the index deletes (pre-commit passes only the files that stay), each as the
    real root of the tree it lay in and its path there (`_place`, from its folder, which is
    still there): in the tree of the paths given, else in one tree."""
    from .scope import staged_deletions

    deleted = []
    for name in staged_deletions(os.getcwd()):
        folder, base = os.path.split(name)
        place = _place(folder or ".", found)
        if place is not None and place.rel:
            deleted.append((place.root, f"{place.rel}/{base}"))
    if not roots and len({root for root, _ in deleted}) > 1:
        return []  # deletions in several trees and no path to choose one: each tree's own run checks them
    return deleted


def _division_at(parts: list[str], found: Marks) -> int | None:
    """Where the division folder is among the parts of an absolute path: the nearest folder
    above it that is named as a division and holds a submitter folder. Its folders, not its
    own name, tell a submission root (the parent of the division folder) from any other."""
    for at in range(len(parts) - 1, -1, -1):
        if parts[at] in found.divisions and found.holds(os.sep.join(parts[: at + 1]) or os.sep):
            return at
    return None


def _holds_submitters(folder: str, marks: frozenset[str]) -> bool:
    """Whether a folder holds a submitter folder: one with a results/ or systems/ folder. A link
    is no submitter folder (the check does not enter one that leaves the tree), so a link to a
    submitter folder beside a tree does not make its folder a division."""
    try:
        with os.scandir(folder) as entries:
            inner = [entry.path for entry in entries if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return False
    return any(os.path.isdir(os.path.join(path, mark)) for path in inner for mark in marks)
