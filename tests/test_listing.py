"""The compiled lister of a walk's folder (checker/_listing.c, optional) against the os.scandir
listing it short-cuts (`Tree._scanned`; MLPERF_CHECK_PURE=1, or no compiler at install): the
same items in the same order, the same entries of files and folders, the same folder stats
(for the cache's proofs) and the same folders left to list, for a tree of every kind of item
(files, folders, links inside, out of the root and nowhere, a FIFO, a name that is no UTF-8,
an empty folder, one that cannot be listed), and for a real submission. Skipped, saying why,
when the lister was not built: then there is one listing only.

And a path a walk's folder does not hold is judged missing from that listing, as an lstat
judges it: every path, odd ones too (`.`, `..`, empty parts, names too long to look up,
paths through a file or a link), has the same entry and real folders either way."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import pytest

from checker import cache
from checker import tree as tree_module
from checker.tree import Tree
from helpers import REAL_ROOT, real_data

compiled = pytest.mark.skipif(tree_module._lister is None, reason="the C lister (checker/_listing.c) is not built")


def _walked(root: Path, rel: str, lister: object) -> tuple[object, ...]:
    """Everything a recorded walk of `rel` leaves: its steps, the tree's entries, folder
    stats, real folders and unlistable folders."""
    saved = tree_module._lister
    tree_module._lister = lister  # type: ignore[assignment]
    try:
        tree = Tree(root)
        tree.reads = []
        steps = list(tree.walk(rel))
        # the proof of those reads (a start in the future: every file is settled), its steps
        # made plain from what the C lister held of them or from the entries
        proven = cache.proof(tree, cache.unique(tree.reads), time.time_ns() + 10**11)
        return (
            steps,
            tree.reads,
            sorted(tree._entries.items()),
            sorted(tree._folder_sigs.items()),
            sorted((k, v) for k, v in tree._real_dirs.items() if v is not None),
            sorted(tree.unlistable),
            proven,
        )
    finally:
        tree_module._lister = saved


def _both(root: Path, rel: str) -> None:
    compiled = _walked(root, rel, tree_module._lister)
    scanned = _walked(root, rel, None)
    assert compiled == scanned
    # the entries are Entry named tuples either way, with the same types of values
    assert [type(v) for _, e in compiled[2] for v in e] == [type(v) for _, e in scanned[2] for v in e]  # type: ignore[index]


@compiled
def test_every_kind_of_item_is_listed_as_scandir_lists_it(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub" / "a" / "empty").mkdir(parents=True)
    (root / "sub" / "b").mkdir()
    (root / "sub" / "a" / "log.json").write_bytes(b"[\n" + b'{ "seq_id" : 0 }\n' * 1000)
    (root / "sub" / "a" / "small.txt").write_text("x")
    (root / "sub" / "Zeta").write_text("upper case sorts first")
    (root / "sub" / "\u00e9t\u00e9.txt").write_text("non-ASCII")
    os.symlink("a", root / "sub" / "inside")
    os.symlink("/", root / "sub" / "outside")
    os.symlink("nowhere", root / "sub" / "broken")
    os.mkfifo(root / "sub" / "b" / "fifo")
    bad = os.fsencode(root / "sub" / "b") + b"/not-utf8-\xff"
    with open(bad, "wb") as handle:
        handle.write(b"y")
    locked = root / "sub" / "locked"
    locked.mkdir()
    (locked / "hidden").write_text("z")
    locked.chmod(0)
    try:
        _both(root, "sub")
        _both(root, "")
        _both(root, "sub/missing")
    finally:
        locked.chmod(0o755)


@compiled
def test_a_proof_of_a_walk_is_made_alike(tmp_path: Path) -> None:
    """The proof of a walk (cache.proof) is the same whether its steps were made plain from
    what the C lister held or from the entries: for plain folders, one with a link, and one
    whose file the tree judged before the walk at another size (the entry is the older one)."""
    root = tmp_path / "root"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "one.txt").write_text("1")
    (root / "a" / "b" / "two.txt").write_text("22")
    (root / "c").mkdir()
    os.symlink("../a", root / "c" / "up")
    (root / "c" / "three.txt").write_text("333")
    for lister in (tree_module._lister, None):
        assert _walked(root, "", lister)[6] is not None
    assert _walked(root, "", tree_module._lister) == _walked(root, "", None)
    # the C lister held the steps of the plain folders (not c/, which holds a link): its path
    # was taken, not the entries' loop, which gives the same proof
    for lister, held in ((tree_module._lister, ["", "a", "a/b"]), (None, [])):
        saved = tree_module._lister
        tree_module._lister = lister  # type: ignore[assignment]
        try:
            tree = Tree(root)
            tree.reads = []
            steps = dict(tree.walk(""))
            assert (
                sorted(
                    where
                    for where, items in steps.items()
                    for pinned in tree.held.values()
                    if pinned[0] == tuple(items)
                )
                == held
            )
            tree.drop_held()
            assert (tree.held, tree._fresh) == ({}, None)
        finally:
            tree_module._lister = saved
    grown, made = root / "a" / "one.txt", []
    for lister in (tree_module._lister, None):
        saved = tree_module._lister
        tree_module._lister = lister  # type: ignore[assignment]
        try:
            grown.write_text("1")
            tree = Tree(root)
            tree.reads = []
            tree.entry("a/one.txt")
            grown.write_text("1" * 10)
            list(tree.walk("a"))
            proven = cache.proof(tree, cache.unique(tree.reads), time.time_ns() + 10**11)
            assert proven is not None
            made.append((proven[0], proven[2], pickle.loads(proven[3])))  # all but the stats' digest
        finally:
            tree_module._lister = saved
    assert made[0] == made[1]
    groups, _, slow = made[0]
    # the step whose file the tree judged at another size is kept as it was (listed again)
    assert [read[:2] for read in slow] == [("step", "a")]
    assert groups == (("a", True, ("one.txt",)), ("a/b", True, ("two.txt",)))  # one.txt: its entry, read


@compiled
def test_an_unlistable_folder_is_one_for_both(tmp_path: Path) -> None:
    root = tmp_path / "root"
    deep = root / "sub"
    deep.mkdir(parents=True)
    # a path longer than PATH_MAX cannot be opened by name: FIL025's folder
    fd = os.open(deep, os.O_RDONLY)
    for _ in range(20):  # each made from the one above it: no path names them whole
        os.mkdir("d" * 250, dir_fd=fd)
        inner = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)
    compiled = _walked(root, "sub", tree_module._lister)
    assert compiled == _walked(root, "sub", None)
    assert compiled[5]  # type: ignore[index]  # some folder could not be listed


@compiled
def test_a_real_submission_is_listed_alike() -> None:
    root = real_data(REAL_ROOT / "v5.1")
    submitter = sorted(os.listdir(root / "closed"))[0]
    _both(root, f"closed/{submitter}")


def test_a_path_a_walked_folder_lacks_is_judged_as_an_lstat_judges_it(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub" / "a").mkdir(parents=True)
    (root / "sub" / "a" / "file.txt").write_text("x")
    os.symlink("a", root / "sub" / "link")
    paths = [
        "sub/a/missing.txt",
        "sub/none/deeper/still.txt",
        "sub/a/file.txt/under",
        "sub/link/file.txt",
        "sub/link/missing.txt",
        "sub/./a/file.txt",
        "sub/../sub/a/file.txt",
        "sub//a/file.txt",
        "sub/a/" + "n" * 300,
        "sub/" + "/".join(["d" * 60] * 80),
        "sub/a",
        "elsewhere/missing.txt",
    ]
    walked, fresh = Tree(root), Tree(root)
    list(walked.walk("sub"))
    for rel in paths:
        assert walked.entry(rel) == fresh.entry(rel), rel
    known = {k: v for k, v in walked._real_dirs.items() if k in fresh._real_dirs}
    assert known == fresh._real_dirs


def _listed_as(tmp_path: Path, imports: str, kinds: str) -> list[str]:
    """What listing a folder of one file with each of `kinds` (Python text, after `imports`)
    as the entry type prints, in a process of its own as a crash would end it: the
    TypeError's text up to " is ", or the entry's type and length."""
    (tmp_path / "f").write_text("x")
    code = (
        f"import gc, sys\n{imports}\nfrom checker._listing import listed\n"
        f"for kind in ({kinds}):\n"
        "    try:\n"
        "        entries = {}\n"
        "        listed(sys.argv[1], sys.argv[1] + '/', '', entries, kind, 'file', 'dir', [], {}, None)\n"
        "    except TypeError as error:\n"
        "        print(str(error).partition(' is ')[0])\n"
        "    else:\n"
        "        print(type(entries['f']).__name__, len(entries['f']))\n"
        "    entries.clear()\n"
        "    gc.collect()\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout.splitlines()


@compiled
def test_an_entry_type_that_is_no_tuple_is_refused(tmp_path: Path) -> None:
    """The lister makes entries as tuples of 9 items: a type with no room for them (int, dict)
    is a TypeError; a tuple subclass lists."""
    assert _listed_as(tmp_path, "", "int, dict, tuple") == ["entry_type: a subclass of tuple"] * 2 + ["tuple 9"]


@compiled
def test_a_tuple_type_tuple_new_refuses_is_refused(tmp_path: Path) -> None:
    """A tuple subclass with fields of its own (a struct sequence: os.stat_result frees more
    items than the 9 the lister makes) is refused as tuple.__new__ refuses it, a TypeError;
    a named tuple lists."""
    assert _listed_as(
        tmp_path, "import os, time\nfrom checker.tree import Entry", "os.stat_result, time.struct_time, Entry"
    ) == [
        "tuple.__new__(os.stat_result)",
        "tuple.__new__(time.struct_time)",
        "Entry 9",
    ]


@compiled
def test_a_walk_from_a_path_with_slashes_at_its_ends_is_proven_alike(tmp_path: Path) -> None:
    """A walk keys its files' entries by its folder stripped of its slashes (`_listed`'s
    prefix): the proof of a walk of `sub/` (or `/sub`) is the same whether the C lister held
    its steps or they are made plain from the entries, looked up by that key."""
    root = tmp_path / "root"
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "sub" / "a.txt").write_text("a")
    (root / "sub" / "deeper" / "b.txt").write_text("b")
    for rel in ("sub/", "/sub"):
        _both(root, rel)
    # `sub/` is a plain folder (`/sub` is none: its real path is not the root's joined with it)
    assert ("sub/", True, ("a.txt",)) in _walked(root, "sub/", None)[6][0]  # type: ignore[index]
