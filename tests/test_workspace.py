"""One workspace (checker/workspace.py, issue 30): which tree the paths given lie in, which part
they name, and where a command may write, answered once.

- Writes decided before work: for every pair (path given, path to write) drawn from a tree's
  folders, files, links, "", ".", its parents and siblings, `prepare` and `check -o` either
  exit 2 before any write, or leave the tree and its .git unchanged (names, types, modes,
  mtimes, contents) and write what they say where they say.
- Git is only read: in a repository whose submitter folder is a submodule, `--changed-since`
  gives each result the verdict of the whole check, and .git stays byte-identical.
- One limit on path length: what `check` cannot read and what `prepare` cannot copy are both
  FIL025.
- Every module reaches a tree through workspace.py (a static test)."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.workspace import locate, locate_result, within
from helpers import EXAMPLE, OFFLINE, ROOT, SUBMISSION, cli, full_digest

ROUND = ["--round", "demo-v6.1", "--no-progress"]


def git(cwd: Path, *args: str) -> str:
    environ = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    environ |= {"GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd)}
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=environ, check=True)
    return done.stdout


# --- the cases -------------------------------------------------------------------------
@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "T"
    shutil.copytree(EXAMPLE, root, symlinks=True)
    return root


@pytest.mark.parametrize(
    ("source", "destination", "message"),
    [
        (
            f"T/{SUBMISSION}",
            "T/closed/Upload",
            "-o T/closed/Upload: that is inside the checked submission ({T}/closed); write outside its division folders",
        ),
        (
            "T/closed",
            "T/open",
            "-o T/open: that is inside the checked submission ({T}/open); write outside its division folders",
        ),
        ("T", "", "-o '': an empty path (an unset variable?); give a new or empty folder"),
        ("T/closed", "", "-o '': an empty path (an unset variable?); give a new or empty folder"),
    ],
)
def test_prepare_refuses_a_dest_in_the_tree_found_above_what_was_given(
    tree: Path, source: str, destination: str, message: str
) -> None:
    before = full_digest(tree.parent)
    done = cli("prepare", source, "-o", destination, *ROUND, cwd=tree.parent)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == "error: " + message.format(T=tree.resolve())
    assert done.stdout == ""
    assert full_digest(tree.parent) == before


def test_every_output_option_refuses_an_empty_path(tree: Path) -> None:
    before = full_digest(tree.parent)
    done = cli("check", "T", "-o", "", *ROUND, cwd=tree.parent)
    assert (done.returncode, done.stderr.splitlines()[-1]) == (2, "error: -o needs a file name")
    done = cli("rerun", f"T/{OFFLINE}", "--builtin", "--workdir", "", "--round", "demo-v6.1", cwd=tree.parent)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "error: --workdir '': an empty path (an unset variable?); give a new or empty folder"
    )
    assert full_digest(tree.parent) == before


def test_check_output_may_not_make_a_division_of_the_tree(tree: Path) -> None:
    (tree / "open").mkdir()  # an empty division folder of the tree: still the tree's
    done = cli("check", f"T/{SUBMISSION}", "-o", "T/open/report.json", *ROUND, cwd=tree.parent)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        f"error: -o T/open/report.json: that is inside the checked submission ({tree.resolve()}/open); "
        "write outside its division folders"
    )
    assert os.listdir(tree / "open") == []


def test_prepare_refuses_a_dest_anywhere_in_the_tree_of_what_was_given(tree: Path) -> None:
    """A copy at the tree's root is a second tree inside it (attack on issue 30, item 1)."""
    for source in (f"T/{SUBMISSION}", "T/closed"):
        done = cli("prepare", source, "-o", "T/up", *ROUND, cwd=tree.parent)
        assert done.returncode == 2
        assert done.stderr.splitlines()[-1] == (
            f"error: -o T/up: it is inside the tree {tree.resolve()} that {source} lies in; give a folder outside it"
        )
    assert not (tree / "up").exists()


def test_a_tree_kept_inside_another_tree_protects_both(tree: Path) -> None:
    """A tree in another tree's folder: no output may enter the outer tree's division folders
    either (attack on issue 30, item 2)."""
    inner = tree / SUBMISSION / "documentation" / "N"
    shutil.copytree(EXAMPLE, inner, symlinks=True)
    before = full_digest(tree)
    target = f"T/{OFFLINE}/accuracy/accuracy.txt"
    done = cli("check", str(inner.relative_to(tree.parent)), "-f", f"text:{target}", *ROUND, cwd=tree.parent)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        f"error: --format text:{target}: that is inside the checked submission ({tree.resolve()}/closed); "
        "write outside its division folders"
    )
    done = cli("prepare", str(inner.relative_to(tree.parent)), "-o", "T/closed/pp", *ROUND, cwd=tree.parent)
    assert done.returncode == 2 and "inside the checked submission" in done.stderr
    assert full_digest(tree) == before
    assert locate(str(inner)).trees == (str(inner.resolve()), str(tree.resolve()))


def test_a_folder_named_open_above_the_tree_is_no_tree(tmp_path: Path) -> None:
    """A home folder holding a folder named `open` (no submitter in it) protects nothing: a
    report beside a tree kept under it is written."""
    work = tmp_path / "open" / "proj"
    shutil.copytree(EXAMPLE, work / "T", symlinks=True)
    where = locate(str(work / "T"))
    assert where.trees == (str((work / "T").resolve()),)
    done = cli("check", "T", "-o", "report.json", *ROUND, cwd=work)
    assert done.returncode == 0, done.stderr
    assert json.loads((work / "report.json").read_text())["summary"]["results"] == 2


def test_the_workspace_of_each_level(tree: Path) -> None:
    real = str(tree.resolve())
    assert (locate(str(tree)).root, locate(str(tree)).part) == (str(tree), ())
    assert (locate(str(tree / "closed")).root, locate(str(tree / "closed")).part) == (real, ("closed",))
    one = locate(str(tree / SUBMISSION))
    assert (one.root, one.part, one.given) == (real, tuple(SUBMISSION.split("/")), None)
    result = locate(str(tree / OFFLINE))
    assert result.given is not None and result.given.inside == (OFFLINE,) and result.tree == real
    assert locate(str(tree)).areas == tuple(f"{real}/{d}" for d in ("closed", "network", "open"))
    assert locate_result(str(tree / OFFLINE), ("closed", "open"), "results") == (str(tree), OFFLINE)
    assert locate_result(str(tree / SUBMISSION), ("closed", "open"), "results") is None


# --- writes decided before work (property) ------------------------------------------------------
GIVEN = ["T", "T/closed", f"T/{SUBMISSION}", f"T/{OFFLINE}", "L", "L/..", "T/closed/.."]
WRITE = [
    "",
    ".",
    "..",
    "T",
    "T/closed",
    "T/open",
    "T/network/x",
    "T/closed/Upload",
    f"T/{SUBMISSION}/Upload",
    f"T/{OFFLINE}/x",
    "L/x",
    "D/x",
    "out",
    "T/upload",
    "sibling/new",
]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("writes")
    shutil.copytree(EXAMPLE, work / "T", symlinks=True)
    git(work / "T", "init", "-q")
    git(work / "T", "add", "-A")
    git(work / "T", "commit", "-q", "-m", "tree")
    (work / "L").symlink_to(work / "T" / SUBMISSION)  # a link to the submitter folder
    (work / "D").symlink_to(work / "T" / "closed")  # a link to the division folder
    (work / "sibling").mkdir()
    return work


def _clean(work: Path) -> None:
    """Remove what a command wrote beside the tree (never in it: that is asserted)."""
    for name in os.listdir(work):
        if name not in ("T", "L", "D", "sibling"):
            path = work / name
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    for name in os.listdir(work / "sibling"):
        shutil.rmtree(work / "sibling" / name)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(source=st.sampled_from(GIVEN), target=st.sampled_from(WRITE), command=st.sampled_from(["prepare", "check"]))
def test_a_write_is_refused_before_work_or_leaves_the_tree_as_it_was(
    base: Path, source: str, target: str, command: str
) -> None:
    tree = base / "T"
    before = full_digest(tree)
    areas = [str((tree / d).resolve()) for d in ("closed", "open", "network")]
    if command == "prepare":
        done = cli("prepare", source, "-o", target, *ROUND, cwd=base)
        written = target
    else:
        written = target + "/report.json" if target not in ("", "out") else target
        done = cli("check", source, "--format", "json", "-o", written, *ROUND, cwd=base)
    try:
        landing = os.path.realpath(base / written) if written else ""
        if done.returncode == 2:  # refused before any write: nothing anywhere
            assert done.stderr.splitlines()[-1].startswith("error: "), done.stderr
            assert full_digest(tree) == before, (command, source, target)
            assert sorted(os.listdir(base)) == ["D", "L", "T", "sibling"] and os.listdir(base / "sibling") == []
        else:
            assert done.returncode in (0, 1), done.stderr
            assert written and not any(within(landing, area) or within(area, landing) for area in areas)
            if command == "prepare":
                assert sorted(os.listdir(landing)) == ["closed"]
            else:
                assert json.loads(Path(landing).read_text())["summary"]["results"] >= 1
            # The submission and its .git as they were: a report may lie at the tree's root
            # (docs/submitter.md), beside its division folders, never in them.
            if within(landing, str(tree.resolve())):
                Path(landing).unlink() if Path(landing).is_file() else shutil.rmtree(landing)
            assert full_digest(tree) == before, (command, source, target)
    finally:
        _clean(base)


# --- git is only read: submodules ---------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("change", ["delete-log", "edit-conf", "untracked", "nothing"])
def test_a_submitter_folder_that_is_a_submodule(tmp_path: Path, change: str) -> None:
    """The submitter folder is a submodule: a bump (or a change left in it) gives every result
    the verdict of the whole check, and the run writes nothing under .git."""
    inner = tmp_path / "inner"
    shutil.copytree(EXAMPLE / SUBMISSION, inner, symlinks=True)
    git(inner, "init", "-q")
    git(inner, "add", "-A")
    git(inner, "commit", "-q", "-m", "submitter")
    outer = tmp_path / "outer"
    shutil.copytree(
        EXAMPLE, outer, symlinks=True, ignore=lambda folder, names: ["MLCheckDemo"] if folder.endswith("closed") else []
    )
    git(outer, "init", "-q")
    git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), SUBMISSION)
    git(outer, "add", "-A")
    git(outer, "commit", "-q", "-m", "tree")
    module = outer / SUBMISSION
    log = module / "results/cpu-1x-numpy/demo-mlp-99/Offline/performance/run_1/mlperf_log_detail.txt"
    if change == "delete-log":
        log.unlink()
        git(module, "commit", "-q", "-am", "drop a log")
        git(outer, "commit", "-q", "-am", "bump")
    elif change == "edit-conf":
        conf = module / "results/cpu-1x-numpy/demo-mlp-99/Offline/user.conf"
        conf.write_text(conf.read_text() + "*.Offline.min_duration = 1\n")
    elif change == "untracked":
        (module / "results/cpu-1x-numpy/demo-mlp-99/Offline/extra.txt").write_text("x")
    else:
        git(outer, "commit", "-q", "--allow-empty", "-m", "nothing")
    # an index whose stat data is stale: a refreshing git would rewrite it
    os.utime(module / "systems", ns=(1, 1))
    before = full_digest(outer / ".git")
    whole = cli("check", ".", "--format", "json", *ROUND, cwd=outer)
    ref = "HEAD~1" if change in ("delete-log", "nothing") else "HEAD"  # a bump, or a change left in the submodule
    narrowed = cli("check", ".", "--changed-since", ref, "--format", "json", *ROUND, cwd=outer)
    assert full_digest(outer / ".git") == before
    verdicts = {r["location"]: r["valid"] for r in json.loads(whole.stdout)["results"]}
    checked = {r["location"]: r["valid"] for r in json.loads(narrowed.stdout)["results"]}
    if change == "nothing":
        assert (narrowed.returncode, checked) == (0, {})
        return
    assert checked == verdicts and narrowed.returncode == whole.returncode
    assert "lies in no" not in narrowed.stderr


# --- one limit on path length -------------------------------------------------------------------
@pytest.mark.slow
def test_a_tree_deeper_than_a_file_system_opens_by_name(tmp_path: Path) -> None:
    """`check` reports FIL025 for each file and folder it cannot open (not FIL011 or a valid
    verdict), and `prepare` refuses a DEST where what it copies would lie too deep."""
    deep = tmp_path
    with pytest.MonkeyPatch.context() as patch:
        for _ in range(19):  # os.makedirs would pass the whole path: one folder at a time
            patch.chdir(deep)
            os.mkdir("d" * 200)
            deep = Path("d" * 200)
        patch.chdir(deep)
        name = "t" * 150
        shutil.copytree(EXAMPLE, name, symlinks=True)
        here = Path(os.getcwd())
        done = cli("check", name, "--format", "json", *ROUND, cwd=here)
        report = json.loads(done.stdout)
        codes = {f["code"] for f in report["findings"]}
        assert done.returncode == 1 and "FIL025" in codes and "FIL011" not in codes
        assert all(
            "more than the 4095 a file system opens by name" in f["message"]
            for f in report["findings"]
            if f["code"] == "FIL025"
        )
        dest = "y" * 200
        done = cli("prepare", name, "-o", dest, *ROUND, cwd=here)
        assert done.returncode == 2
        assert "(FIL025: its path is" in done.stderr and "give a DEST with a shorter path" in done.stderr
        assert not os.path.lexists(dest)


# --- one door (static) --------------------------------------------------------------------------
def _modules() -> list[Path]:
    return sorted(p for folder in ("checker", "rules") for p in (ROOT / folder).rglob("*.py"))


def test_only_the_workspace_reads_a_tree_from_its_division_folders() -> None:
    """No module but checker/workspace.py tells a tree by its division folders on disk (an
    `os.path` call over a round's `divisions` or `results_root`), and `locate` names one
    function, workspace.locate."""
    offenders, locates = [], []
    for path in _modules():
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "locate":
                locates.append(rel)
            if rel == "checker/workspace.py" or not isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
                continue
            over = {n.attr for g in node.generators for n in ast.walk(g.iter) if isinstance(n, ast.Attribute)}
            calls = [
                n for n in ast.walk(node) if isinstance(n, ast.Attribute) and n.attr in ("isdir", "exists", "lexists")
            ]
            if over & {"divisions", "results_root"} and calls:
                offenders.append(f"{rel}:{node.lineno}")
    assert offenders == []
    assert locates == ["checker/workspace.py"]


def test_locate_judge_and_verdict_each_name_one_thing() -> None:
    """`locate` is the workspace's, `judge` the results' verdicts (findings.judge); no class is
    named bare `Verdict` (each verdict type says whose: BuildVerdict, ClaimVerdict, VerifyOutcome)."""
    defined: dict[str, list[str]] = {"locate": [], "judge": [], "Verdict": []}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in defined:
                defined[node.name].append(path.relative_to(ROOT).as_posix())
    assert defined == {"locate": ["checker/workspace.py"], "judge": ["checker/findings.py"], "Verdict": []}
