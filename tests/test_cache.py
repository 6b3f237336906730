"""The cache (checker/cache.py): a cached check finds what a check without it finds, with
the same results and positions, whatever was edited in between; a cache folder that cannot
be used (read-only, full, corrupt, inside the tree) or is shared by runs at once leaves the
check right, and the run says so once."""

from __future__ import annotations

import contextlib
import os
import pickle
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker import cache
from checker.findings import Report
from helpers import EXAMPLE, run

SUBMITTER = "MLCheckDemo"


def _tree(target: Path) -> Path:
    """The example with a second submitter beside the first: an edit of one leaves the
    other's units as they were (each submission's units are cached on their own)."""
    shutil.copytree(EXAMPLE, target, symlinks=True)
    shutil.copytree(target / "closed" / SUBMITTER, target / "closed" / "OtherDemo", symlinks=True)
    time.sleep(0.1)  # past the timestamp grain (cache.settled): files this new are not kept
    return target


@contextlib.contextmanager
def _cache(folder: str | None) -> Iterator[None]:
    cache.configure(folder, enabled=folder is not None)
    try:
        yield
    finally:
        cache.configure_default()  # back to the environment's (conftest: the test's own folder)


@contextlib.contextmanager
def _every_log_kept() -> Iterator[None]:
    """The example's logs are small: kept all the same, so that their entries are tested."""
    least, cache.MIN_FILE_BYTES = cache.MIN_FILE_BYTES, 0
    try:
        yield
    finally:
        cache.MIN_FILE_BYTES = least


def _seen(report: Report) -> tuple[str, str]:
    """What a check found, with every position, and each result's record."""
    return repr(report.findings), repr(report.results)


def _check(root: Path, folder: str | None) -> Report:
    with _cache(folder):
        return run(root)


# --- the property ------------------------------------------------------------------------
EDITS = ("flip", "append", "truncate", "touch", "chmod", "rename", "delete", "empty", "add", "link", "mkdir", "relink")

edits = st.lists(
    st.tuples(
        st.sampled_from(EDITS),
        st.integers(min_value=0, max_value=10_000),  # which file (modulo how many there are)
        st.integers(min_value=0, max_value=10_000),  # where in it, or which mode
        st.booleans(),  # put the mtime back after the edit
    ),
    min_size=1,
    max_size=4,
)


def _edit(root: Path, edit: tuple[str, int, int, bool]) -> None:
    kind, which, where, keep_mtime = edit
    files = sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    if not files:
        return
    path = files[which % len(files)]
    before = path.stat()
    if kind == "chmod":
        path.chmod((0o600, 0o644, 0o755, 0o400)[where % 4])
    elif kind == "rename":
        path.rename(path.with_name(path.name + ".moved"))
        return
    elif kind == "delete":
        path.unlink()
        return
    elif kind in ("add", "link", "mkdir", "relink"):
        _beside(root, path, kind, files[where % len(files)], keep_mtime)
        return
    elif kind == "touch":
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        return
    else:
        data = path.read_bytes()
        if kind == "flip" and data:  # the same size, another byte
            at = where % len(data)
            data = data[:at] + bytes([(data[at] + 1 - 48) % 10 + 48 if 48 <= data[at] < 58 else 48]) + data[at + 1 :]
        elif kind == "append":
            data += b'\n:::MLLOG {"key": "extra", "value": 1}\n' if where % 2 else b"\nmore\n"
        elif kind == "truncate":
            data = data[: where % (len(data) + 1)]
        elif kind == "empty":
            data = b""
        path.write_bytes(data)
    if keep_mtime:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _relink(root: Path, folder: Path, keep_mtime: bool) -> None:
    """The folder moved beside itself, a link to it in its place: every file as it was."""
    if folder == root:
        return
    above = folder.parent.stat()
    folder.rename(folder.with_name(folder.name + ".moved"))
    folder.symlink_to(folder.name + ".moved")
    if keep_mtime:
        os.utime(folder.parent, ns=(above.st_atime_ns, above.st_mtime_ns))


def _beside(root: Path, path: Path, kind: str, other: Path, keep_mtime: bool) -> None:
    """A new name beside `path` (a file, a link to `other` inside the tree, a folder): its
    folder's listing changes. Or ("relink") its folder moved beside itself, linked in its place."""
    if kind == "relink":
        _relink(root, path.parent, keep_mtime)
        return
    beside = path.parent / f"{kind}-{other.name}"
    if beside.exists() or beside.is_symlink():
        return
    folder = path.parent.stat()
    if kind == "add":
        beside.write_bytes(b"added\n")
    elif kind == "link":
        beside.symlink_to(os.path.relpath(other, path.parent))
    else:
        beside.mkdir()
    if keep_mtime:  # the folder's mtime put back: its ctime still says it changed
        os.utime(path.parent, ns=(folder.st_atime_ns, folder.st_mtime_ns))


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits)
def test_a_cached_check_equals_one_without_the_cache(sequence: list[tuple[str, int, int, bool]]) -> None:
    with tempfile.TemporaryDirectory() as work, _every_log_kept():
        root, folder = _tree(Path(work) / "tree"), str(Path(work) / "cache")
        assert _seen(_check(root, folder)) == _seen(_check(root, None))
        for edit in sequence:
            _edit(root, edit)
            cached = _check(root, folder)
            assert _seen(cached) == _seen(_check(root, None)), edit
            assert _seen(_check(root, folder)) == _seen(cached), edit  # and again, from what it kept


def test_an_unchanged_tree_runs_no_unit_and_an_edit_runs_its_submissions(tmp_path: Path) -> None:
    root, folder = _tree(tmp_path / "tree"), str(tmp_path / "cache")
    cold = _check(root, folder)
    warm = _check(root, folder)
    assert _seen(warm) == _seen(cold)
    assert warm.seconds == {f"closed/{SUBMITTER}": 0.0, "closed/OtherDemo": 0.0}  # each output from the cache
    summary = root / "closed" / "OtherDemo" / "systems" / "cpu-1x-numpy.json"
    summary.write_text(summary.read_text().replace('"', '"', 1) + "\n")
    edited = _check(root, folder)
    assert edited.seconds[f"closed/{SUBMITTER}"] == 0.0
    assert edited.seconds["closed/OtherDemo"] > 0.0  # it ran: its system file changed
    assert _seen(edited) == _seen(_check(root, None))


def test_proofs_split_between_two_processes_give_what_one_gives(tmp_path: Path, monkeypatch) -> None:
    """With jobs > 1 a forked process proves the later submissions' units (cache._fork): the
    outputs are those of a run without the cache, an edit in either half runs its units, and
    a process that cannot be forked leaves every proof to this one."""
    root, folder = _tree(tmp_path / "tree"), str(tmp_path / "cache")
    monkeypatch.setattr(cache, "SPLIT_BYTES", 0)  # the example's entries are small: split all the same
    monkeypatch.setattr(threading, "active_count", lambda: 1)  # (a test runner's own threads aside)
    forked: list[tuple[int, int] | None] = []
    fork = cache._fork
    monkeypatch.setattr(cache, "_fork", lambda work: forked.append(fork(work)) or forked[-1])
    assert cache._split([[(None, None, b"x")], [(None, None, b"x")]], 2) == 1  # one submission each
    assert cache._split([[(None, None, b"x")], [(None, None, b"x")]], 1) == 2  # one job: all here
    with _cache(folder):
        cold = run(root, jobs=2)
        warm = run(root, jobs=2)
        assert forked and all(forked)  # the other submission proven in a forked process
        assert warm.seconds == {f"closed/{SUBMITTER}": 0.0, "closed/OtherDemo": 0.0}
        assert _seen(warm) == _seen(cold) == _seen(_check(root, None))
        for edited in (root / "closed" / SUBMITTER / "systems", root / "closed" / "OtherDemo" / "systems"):
            system = next(edited.glob("*.json"))
            system.write_text(system.read_text() + "\n")
            again = run(root, jobs=2)
            assert again.seconds[str(edited.parent.relative_to(root))] > 0.0  # it ran: its system file changed
            assert _seen(again) == _seen(_check(root, None))
        time.sleep(0.1)  # past the timestamp grain: the edited files are kept now
        run(root, jobs=2)
        monkeypatch.setattr(os, "fork", _no_fork)
        unforked = run(root, jobs=2)
        assert unforked.seconds == {f"closed/{SUBMITTER}": 0.0, "closed/OtherDemo": 0.0}
        assert _seen(unforked) == _seen(_check(root, None))


def _no_fork() -> int:
    raise OSError(11, "Resource temporarily unavailable")


def test_a_name_added_to_a_folder_with_its_mtime_put_back_is_seen(tmp_path: Path) -> None:
    """A unit's proof holds a folder it listed by its stat: a folder added there, with the
    folder's mtime set back to what it was, still changes the folder's ctime."""
    root, folder = _tree(tmp_path / "tree"), str(tmp_path / "cache")
    cold = _check(root, folder)
    results = next((root / "closed" / "OtherDemo" / "results").iterdir())
    before = results.stat()
    (results / "bogus").mkdir()  # a benchmark folder the round does not know: STR007
    os.utime(results, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert results.stat().st_mtime_ns == before.st_mtime_ns
    edited = _check(root, folder)
    assert edited.seconds["closed/OtherDemo"] > 0.0 and edited.seconds[f"closed/{SUBMITTER}"] == 0.0
    assert _seen(edited) == _seen(_check(root, None))
    assert _seen(edited) != _seen(cold)  # the file is a finding: the cache did not hide it


def test_a_folder_on_the_way_made_a_link_is_seen(tmp_path: Path) -> None:
    """A folder moved beside itself and linked in its place keeps every file's stat: the
    proof's folders on the way, each a folder and no link, say it changed."""
    root, folder = _tree(tmp_path / "tree"), str(tmp_path / "cache")
    _check(root, folder)
    systems = root / "closed" / "OtherDemo" / "systems"
    _relink(root, systems, keep_mtime=True)
    assert systems.is_symlink()
    edited = _check(root, folder)
    assert edited.seconds["closed/OtherDemo"] > 0.0 and edited.seconds[f"closed/{SUBMITTER}"] == 0.0
    assert _seen(edited) == _seen(_check(root, None))


def test_a_proof_keeps_what_it_cannot_make_plain(tmp_path: Path) -> None:
    """A unit's reads through a link are kept as they were and done again; a folder changed
    as it was read leaves the unit unstored."""
    from checker.tree import Tree

    root = _tree(tmp_path / "tree")
    target = root / "closed" / "OtherDemo" / "systems"
    (root / "closed" / "OtherDemo" / "linked").symlink_to("systems")
    time.sleep(0.1)  # past the timestamp grain: the folder that holds the link is settled
    tree = Tree(root)
    tree.reads = []
    tree.subdirs("closed/OtherDemo")
    tree.listdir("closed/OtherDemo/linked")
    tree.entry("closed/OtherDemo/linked/" + next(target.iterdir()).name)
    reads, tree.reads = cache.unique(tree.reads), None
    groups, _, folders, slow = cache.proof(tree, reads, time.time_ns())
    assert groups == (("closed/OtherDemo", True, ()),)  # the plain one, by its stat
    assert folders == ("closed",)  # the folder on its way, a folder
    assert [kind for kind, _, _ in pickle.loads(slow)] == ["entry", "listdir", "entry"]  # the link, and through it
    assert cache.proof(tree, reads, 0) is None  # every stat newer than a check started at 0


def test_no_cache_writes_nothing(tmp_path: Path) -> None:
    root, folder = _tree(tmp_path / "tree"), tmp_path / "cache"
    with _cache(None):
        run(root)
    assert not folder.exists()
    _check(root, str(folder))
    assert cache.info(str(folder))["this_version_entries"] > 0


def test_clean_and_info(tmp_path: Path) -> None:
    root, folder = _tree(tmp_path / "tree"), str(tmp_path / "cache")
    _check(root, folder)
    found = cache.info(folder)
    assert found["entries"] == found["this_version_entries"] > 0
    assert cache.clean(folder) == (found["entries"], found["bytes"])
    assert cache.info(folder)["entries"] == 0
    assert os.path.isdir(folder)  # the folder stays; its entries go


def test_the_bound_removes_the_oldest(tmp_path: Path) -> None:
    root, folder = _tree(tmp_path / "tree"), str(tmp_path / "cache")
    _check(root, folder)
    entries = cache.info(folder)["entries"]
    assert cache.prune(folder, most=0) > 0
    assert cache.info(folder)["entries"] == 0 < entries


def test_a_racy_file_is_not_kept() -> None:
    """A file changed within the timestamp grain of its reading could change again unseen."""
    from checker.tree import Entry, Kind

    now = 10**18 + 123
    assert not cache.settled(Entry("a", Kind.FILE, 1, mtime=now - 10, ctime=now - 10), now)
    assert cache.settled(Entry("a", Kind.FILE, 1, mtime=now - 10**9 + 1, ctime=now - 10**9 + 1), now)
    whole = 10**18  # a file system of whole seconds: two of them
    assert not cache.settled(Entry("a", Kind.FILE, 1, mtime=whole, ctime=whole), whole + 10**9)


def test_a_log_is_kept_from_a_size_that_depends_on_its_reader(tmp_path: Path) -> None:
    """A log the pure reader reads is kept from MIN_FILE_BYTES; one the C scanner reads (about
    four times faster) from SCANNED_TIMES that; none without a cache."""
    from checker.tree import Entry, Kind

    least, times = cache.MIN_FILE_BYTES, cache.SCANNED_TIMES
    assert (least, times) == (1 << 20, 4)

    def kept(size: int, scanned: bool) -> bool:
        return cache.file_key("mllog", "/x", Entry("x", Kind.FILE, size, mtime=1, ctime=1), scanned) is not None

    cache.use(str(tmp_path))
    try:
        assert [kept(size, False) for size in (least - 1, least)] == [False, True]
        assert [kept(size, True) for size in (least, times * least - 1, times * least)] == [False, False, True]
    finally:
        cache.use(None)
    assert not kept(times * least, True)


# --- folders that cannot be used, through the command line ------------------------------------
def _cli(*args: str, env: dict[str, str] | None = None, full: int | None = None) -> subprocess.CompletedProcess[str]:
    def limits() -> None:
        if full is not None:  # the file system fills after `full` bytes of any file written
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (full, full))

    return subprocess.run(
        [sys.executable, "-m", "checker", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1", **(env or {})},
        preexec_fn=limits,
    )


def _said(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("mlperf-check: cache:")]


def _json(root: Path, *options: str, **kwargs) -> tuple[str, list[str]]:
    done = _cli("check", str(root), "-f", "json", "-j", "2", *options, **kwargs)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout, _said(done.stderr)


@pytest.mark.slow
def test_corrupt_and_foreign_entries_are_ignored_and_written_again(tmp_path: Path) -> None:
    root, folder = _tree(tmp_path / "tree"), tmp_path / "cache"
    truth, said = _json(root, "--no-cache")
    assert said == []
    assert _json(root, "--cache-dir", str(folder)) == (truth, [])
    entries = sorted(p for p in folder.rglob("*") if p.is_file())
    assert entries
    for number, entry in enumerate(entries):
        data = entry.read_bytes()
        # broken three ways: garbage, cut short (the magic kept), another entry's bytes (foreign)
        entry.write_bytes((b"garbage", data[: len(data) // 2], entries[number - 1].read_bytes())[number % 3])
    found, said = _json(root, "--cache-dir", str(folder))
    assert found == truth
    assert len(said) == 1 and "corrupt or foreign" in said[0], said
    assert _json(root, "--cache-dir", str(folder)) == (truth, [])  # written again


@pytest.mark.slow
def test_a_full_cache_folder_leaves_the_check_right_and_says_so_once(tmp_path: Path) -> None:
    root, folder = _tree(tmp_path / "tree"), tmp_path / "cache"
    truth, _ = _json(root, "--no-cache")
    found, said = _json(root, "--cache-dir", str(folder), full=1024)  # an entry is larger
    assert found == truth
    assert len(said) == 1 and "cannot write" in said[0] and "not cached" in said[0], said


@pytest.mark.slow
def test_a_read_only_cache_folder_leaves_the_check_right_and_says_so_once(tmp_path: Path) -> None:
    root, folder = _tree(tmp_path / "tree"), tmp_path / "cache"
    folder.mkdir()
    truth, _ = _json(root, "--no-cache")
    if os.geteuid() == 0:  # root writes through modes: the folder made immutable instead
        if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
            pytest.skip("root, and no chattr +i here to make a folder read-only")
    else:
        folder.chmod(0o555)
    try:
        found, said = _json(root, "--cache-dir", str(folder))
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o755)
    assert found == truth
    assert len(said) == 1 and "cannot write" in said[0], said
    assert list(folder.iterdir()) == []


@pytest.mark.slow
def test_two_runs_at_once_share_a_folder(tmp_path: Path) -> None:
    root, folder = _tree(tmp_path / "tree"), tmp_path / "cache"
    truth, _ = _json(root, "--no-cache")
    command = [sys.executable, "-m", "checker", "check", str(root), "-f", "json", "-j", "2", "--cache-dir", str(folder)]
    env = {**os.environ, "NO_COLOR": "1"}
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for _ in "ab"]
    for done in runs:
        out, err = done.communicate(timeout=300)
        assert (out, _said(err)) == (truth, [])
    assert _json(root, "--cache-dir", str(folder)) == (truth, [])
    assert not [p for p in folder.rglob("*.tmp-*")]  # every entry whole, none left half-written


@pytest.mark.slow
def test_a_cache_folder_inside_the_tree_is_refused(tmp_path: Path) -> None:
    root = _tree(tmp_path / "tree")
    truth, _ = _json(root, "--no-cache")
    found, said = _json(root, "--cache-dir", str(root / "closed" / "cache"))
    assert found == truth
    assert len(said) == 1 and "inside the checked tree" in said[0], said
    assert not (root / "closed" / "cache").exists()


@pytest.mark.slow
def test_the_cache_command(tmp_path: Path) -> None:
    root, folder = _tree(tmp_path / "tree"), tmp_path / "cache"
    _json(root, "--cache-dir", str(folder))
    entries = cache.info(str(folder))["entries"]
    info = _cli("cache", "info", "--cache-dir", str(folder))
    assert info.returncode == 0 and f"entries: {entries} (" in info.stdout, info.stdout
    cleaned = _cli("cache", "clean", "--cache-dir", str(folder))
    assert cleaned.returncode == 0 and cleaned.stdout.startswith(f"removed {entries} entries ("), cleaned.stdout
    assert cache.info(str(folder))["entries"] == 0
    wrong = _cli("cache", "tidy")
    assert wrong.returncode == 2 and "unknown action" in wrong.stderr


@pytest.mark.slow
def test_a_cache_folder_that_is_a_file_leaves_the_check_right_and_says_so_once(tmp_path: Path) -> None:
    root, folder = _tree(tmp_path / "tree"), tmp_path / "cache"
    folder.write_text("not a folder\n")
    truth, _ = _json(root, "--no-cache")
    found, said = _json(root, "--cache-dir", str(folder))
    assert found == truth
    assert len(said) == 1 and "cannot write" in said[0], said
    assert folder.read_text() == "not a folder\n"


def test_a_rebuilt_module_or_the_pure_readers_are_another_checker(monkeypatch) -> None:
    """The fingerprint changes with a compiled module's stat (a rebuild) and with which
    compiled modules the process reads with (MLPERF_CHECK_PURE=1, a build that failed to
    import or predates them: none of the lister, the scanner or its `suspects`), so no entry
    made by one is read by the other."""
    from checker import tree as tree_module
    from checker.parsers import mllog

    _listing = pytest.importorskip("checker._listing", reason="the C lister is not built")
    if not (tree_module.compiled() and mllog.scanned() and mllog._suspects is not None):
        pytest.skip("the compiled modules are not in use (MLPERF_CHECK_PURE=1, or not built)")

    def made() -> str:
        cache._fingerprint.clear()
        return cache.fingerprint()

    try:
        before = made()
        others = []
        for module, name in ((tree_module, "_lister"), (mllog, "_scan"), (mllog, "_suspects")):
            with monkeypatch.context() as patched:
                patched.setattr(module, name, None)
                others.append(made())
        assert made() == before and len({before, *others}) == 4
        built, real = _listing.__file__, os.stat

        def rebuilt(path: object, *args: object, **kwargs: object) -> os.stat_result:  # its stat one ns later
            st = real(path, *args, **kwargs)  # type: ignore[arg-type]
            if os.fspath(path) != built:  # type: ignore[call-overload]
                return st
            return os.stat_result((*st[:8], st.st_mtime + 1, st.st_ctime), {"st_mtime_ns": st.st_mtime_ns + 1})

        monkeypatch.setattr(os, "stat", rebuilt)  # the file itself is left as it is (other workers read it)
        assert made() not in (before, *others)
        monkeypatch.setattr(os, "stat", real)
        assert made() == before
    finally:
        cache._fingerprint.clear()
