"""Paths given to `check` are read by one reader (check._place), whatever their kind: a root,
a division, submitter, system, benchmark or result folder, a file of each kind, a link to
any of them, a path through `..`, several overlapping paths, paths in two trees.

The properties, on a copy of the real v6.0 slice (it holds an invalid result, Lenovo's rgat
Offline, whose detail logs are missing):

- a narrowed check reports, for every result it checks, the whole check's verdict and
  findings, and checks at least every result a path holds or affects;
- a path that holds or affects a result is never said to affect none, and never gives
  "checked 0 results" with exit 0;
- a root among the paths checks its whole tree; paths in two trees are a usage error (exit 2);
- a waiver is judged unused (WVR001) only by a check that saw every finding it could match.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.engine import check
from checker.findings import Applying, Finding, Report, Severity
from checker.waivers import load_waivers
from checker.wording import counted
from helpers import REAL_ROOT, cli, real_data, real_report, slips

pytestmark = pytest.mark.real

LENOVO = "closed/Lenovo"
GNR = "1-node-2S-GNR_86C"
RGAT = f"{LENOVO}/results/{GNR}/rgat/Offline"  # the invalid result
AMD_SYSTEM = "closed/AMD/systems/87xMI355X_22xEPYC_9575F.json"

WAIVERS = """\
waivers:
  - code: FIL001
    path: "closed/Lenovo/results/1-node-2S-GNR_86C/*"
    reason: agreed with the working group
  - code: SYS
    reason: descriptions being fixed
"""


@dataclass(frozen=True)
class Kind:
    """A path given, as typed in the work folder: the tree it lies in ("tree", "other" or ""
    for none) and the prefixes of the result locations it holds or affects (at least)."""

    path: str
    tree: str
    affects: tuple[str, ...]


@dataclass(frozen=True)
class Work:
    folder: Path
    whole: Report
    waived: Report
    kinds: tuple[Kind, ...]


def _kinds(tree: Path, whole: Report) -> list[Kind]:
    """Every kind of path, from the tree's own results: each level, files of each kind, links
    to each, `..`, roots."""
    locations = sorted(r.location for r in whole.results)
    system = {r.location: r.system_key for r in whole.results}
    kinds = [
        Kind("tree", "tree", ("",)),
        Kind("./tree/", "tree", ("",)),
        Kind("tree/closed/..", "tree", ("",)),
        Kind("other", "other", ("",)),
        Kind("tree/README.md", "tree", ()),
        Kind("tree/summary_results.json", "tree", ()),
        Kind("tree/closed", "tree", ("closed/",)),
        Kind("tree/open", "tree", ("open/",)),
        Kind(f"tree/{LENOVO}", "tree", (f"{LENOVO}/",)),
        Kind(f"tree/{LENOVO}/README.md", "tree", (f"{LENOVO}/",)) if (tree / LENOVO / "README.md").exists() else None,
        Kind("L", "tree", (f"{LENOVO}/",)),
        Kind("L/..", "tree", ("closed/",)),
        Kind("L/results/..", "tree", (f"{LENOVO}/",)),
        Kind(f"L/results/{GNR}/rgat/Offline/user.conf", "tree", (RGAT,)),
        Kind("R", "tree", (RGAT,)),
        Kind("R/user.conf", "tree", (RGAT,)),
        Kind("R/performance/run_1", "tree", (RGAT,)),
        Kind("U", "tree", (RGAT,)),
        Kind("S", "tree", tuple(loc for loc in locations if system[loc] == system[RGAT])),
        Kind("notes.txt", "", ()),
    ]
    for location in locations[:: max(1, len(locations) // 6)] + [RGAT]:
        division, submitter, _, name, benchmark, _ = location.split("/")
        kinds += [
            Kind(f"tree/{location}", "tree", (location,)),
            Kind(f"tree/{location}/user.conf", "tree", (location,)),
            Kind(f"tree/{location}/../{location.rsplit('/', 1)[1]}", "tree", (location,)),
            Kind(f"tree/{location.rsplit('/', 1)[0]}", "tree", (location.rsplit("/", 1)[0] + "/",)),
            Kind(f"tree/{division}/{submitter}/results/{name}", "tree", (f"{division}/{submitter}/results/{name}/",)),
        ]
        json_path = tree / division / submitter / "systems" / f"{name}.json"
        if json_path.exists():
            same = tuple(loc for loc in locations if system[loc] == system[location])
            kinds.append(Kind(f"tree/{division}/{submitter}/systems/{name}.json", "tree", same))
    return [kind for kind in kinds if kind is not None]


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Work:
    # In a folder named like a division, beside links to a submitter folder (attack.md N12): a
    # link does not make it a division folder, nor its parent a tree.
    folder = tmp_path_factory.mktemp("given") / "open"
    folder.mkdir()
    tree, other = folder / "tree", folder / "other"
    shutil.copytree(real_data(REAL_ROOT / "v6.0"), tree, symlinks=True)
    shutil.copytree(real_data(REAL_ROOT / "v6.0") / "open/Krai", other / "open/Krai", symlinks=True)
    (folder / "L").symlink_to(f"tree/{LENOVO}")
    (folder / "R").symlink_to(f"tree/{RGAT}")
    (folder / "U").symlink_to(f"tree/{RGAT}/user.conf")
    (folder / "S").symlink_to(f"tree/{LENOVO}/systems/{GNR}.json")
    (folder / "notes.txt").write_text("not a submission\n")
    (folder / "w.yaml").write_text(WAIVERS)
    whole = check(str(tree), "v6.0", jobs=1)
    waived = check(str(tree), "v6.0", jobs=1, waivers=load_waivers(str(folder / "w.yaml")))
    return Work(folder, whole, waived, tuple(_kinds(tree, whole)))


def _narrowed(work: Work, *args: str) -> tuple[int, dict, str]:
    done = cli("check", *args, "--round", "v6.0", "-f", "json", "-j", "1", "--no-progress", cwd=work.folder)
    return done.returncode, (json.loads(done.stdout) if done.stdout else {}), done.stderr


def _assert_as_whole(document: dict, whole: Report) -> set[str]:
    """Each result the narrowed check reports has the whole check's verdict, and exactly the
    whole check's findings that apply to it; its findings are all the whole check's.
    The locations it reports."""
    verdicts = {r.location: r.valid for r in whole.results}
    records = {r.location: r for r in whole.results}
    shown = {(f.code, f.severity.value, f.path, f.pointer, f.message) for f in whole.findings}
    reported = {(f["code"], f["severity"], f["path"], f.get("pointer"), f["message"]) for f in document["findings"]}
    assert reported <= shown, sorted(reported - shown)
    applying = Applying(whole.results, whole.findings)
    for result in document["results"]:
        location = result["location"]
        assert result["valid"] is verdicts[location], location
        own = {(f.code, f.severity.value, f.path, f.pointer, f.message) for f in applying.of(records[location])}
        assert own <= reported, (location, sorted(own - reported))
    return {r["location"] for r in document["results"]}


def _affected(work: Work, kinds: list[Kind]) -> set[str]:
    locations = {r.location for r in work.whole.results}
    return {loc for kind in kinds for prefix in kind.affects for loc in locations if (loc + "/").startswith(prefix)}


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=st.data())
@pytest.mark.full
def test_every_kind_of_path_checks_what_it_affects_as_the_whole_check(work: Work, data: st.DataObject) -> None:
    kinds = data.draw(st.lists(st.sampled_from(work.kinds), min_size=1, max_size=3), label="paths")
    waivers = data.draw(st.booleans(), label="waivers")
    whole = work.waived if waivers else work.whole
    code, document, stderr = _narrowed(work, *[k.path for k in kinds], *(["--waivers", "w.yaml"] if waivers else []))
    trees = {kind.tree for kind in kinds if kind.tree}
    if len(trees) > 1:
        assert code == 2 and "the paths given lie in 2 trees" in stderr, stderr
        return
    if not any(kind.affects for kind in kinds):  # files in no submitter folder: nothing to check, and it says so
        assert code == 0 and not document and "checked 0 results" in stderr and "lie" in stderr, stderr
        return
    if trees == {"other"}:  # the second tree: checked as itself
        assert code in (0, 1) and document["results"], stderr
        return
    assert code in (0, 1), stderr
    reported = _assert_as_whole(document, whole)
    expected = _affected(work, kinds)
    assert expected <= reported, sorted(expected - reported)
    if any(kind.affects == ("",) for kind in kinds):  # a root among the paths: the whole tree
        assert reported == {r.location for r in whole.results}
    for kind in kinds:
        if kind.affects:
            assert f"{kind.path} lies in no" not in stderr and f"{kind.path}," not in stderr.partition("; ")[2]
    invalid = any(not r["valid"] for r in document["results"])
    assert code == (
        1 if invalid or any(f["severity"] == "error" and not f.get("waived") for f in document["findings"]) else 0
    )
    assert not any(f["code"] == "WVR001" for f in document["findings"])  # the whole check has none


@pytest.mark.full
def test_the_reviewers_cases(work: Work) -> None:
    """attack24 N2, N3, N4: a division folder among others, links to a submitter or result
    folder and files through them, two roots, a root with a file."""
    invalid = {r.location for r in work.whole.results if not r.valid}
    assert invalid == {RGAT}
    code, document, stderr = _narrowed(work, "tree/closed", "tree/open")
    assert code == 1 and len(document["results"]) == len(work.whole.results) == 71, stderr
    code, document, _ = _narrowed(work, "tree/closed", "tree/closed/Lenovo/results/SE100")
    assert code == 1 and len(document["results"]) == 64
    for path in (f"L/results/{GNR}/rgat/Offline/user.conf", "R/user.conf", "R", "U"):
        code, document, stderr = _narrowed(work, path)
        assert code == 1 and [r["location"] for r in document["results"]] == [RGAT], (path, stderr)
    code, document, _ = _narrowed(work, "L")
    assert code == 1 and len(document["results"]) == 24
    code, _, stderr = _narrowed(work, "tree", "other")
    assert code == 2 and "error: the paths given lie in 2 trees (other, tree): give those of one" in stderr
    code, document, _ = _narrowed(work, "tree", "tree")
    assert code == 1 and len(document["results"]) == 71
    code, document, _ = _narrowed(work, "tree", "tree/closed/Krai/README.md")
    assert code == 1 and len(document["results"]) == 71
    code, _, stderr = _narrowed(work, "notes.txt", ".")
    assert code == 2 and "no results under ." in stderr, stderr


@pytest.mark.full
def test_an_unused_waiver_is_judged_only_by_a_check_that_saw_every_finding_it_could_match(work: Work) -> None:
    """attack24 N1: narrowed to a system description, to a submitter folder, or to some codes,
    no WVR001 for waivers the whole check uses; a waiver that matches nothing anywhere is a
    note of the whole check."""
    assert not [f for f in work.waived.findings if f.code == "WVR001"]
    for args in (
        [f"tree/{AMD_SYSTEM}"],
        ["tree/closed/AMD"],
        ["tree", "--select", "PRF,ACC"],
        ["tree", "--ignore", "SYS001"],
    ):
        code, document, stderr = _narrowed(work, *args, "--waivers", "w.yaml")
        assert code in (0, 1) and document["results"], stderr
        assert [f for f in document["findings"] if f["code"] == "WVR001"] == [], args
    (work.folder / "unused.yaml").write_text("waivers:\n  - code: PRF004\n    path: 'closed/Nobody/*'\n    reason: x\n")
    _, document, _ = _narrowed(work, "tree", "--waivers", "unused.yaml")
    assert [(f["code"], f["message"]) for f in document["findings"] if f["code"] == "WVR001"] == [
        ("WVR001", "waiver 1 (PRF004 on closed/Nobody/*) matched no finding")
    ]
    _, document, _ = _narrowed(work, "tree/closed/Krai", "--waivers", "unused.yaml")
    assert [f for f in document["findings"] if f["code"] == "WVR001"] == []


@pytest.mark.full
def test_a_changed_configuration_alone_checks_the_tree_it_governs(tmp_path: Path) -> None:
    """attack24 N5: the pre-commit hook given only pyproject.toml, whose table changed, in a
    repository whose tree is submission/: the whole tree under it, not the repository's top
    (exit 2 "no results under ."); with two trees under it, a usage error naming them."""
    import git

    repo = tmp_path / "repo"
    shutil.copytree(real_data(REAL_ROOT / "v6.0") / "closed", repo / "submission/closed", symlinks=True)
    config = repo / "pyproject.toml"
    config.write_text('[tool.mlperf-check]\nround = "v6.0"\n')
    history = git.Repo.init(repo)
    with history.config_writer() as writer:
        writer.set_value("user", "name", "t").set_value("user", "email", "t@example.org")
    history.git.add(A=True)
    history.index.commit("the submission")
    config.write_text('[tool.mlperf-check]\nround = "v6.0"\nignore = ["STR010"]\n')
    history.git.add("pyproject.toml")
    done = cli("check", "pyproject.toml", "-f", "json", "-j", "1", "--no-progress", cwd=repo)
    assert done.returncode == 1, done.stderr
    assert len(json.loads(done.stdout)["results"]) == 64
    assert "pyproject.toml changes every verdict (waivers, [tool.mlperf-check]); checked the whole tree: 64" in (
        done.stderr
    )
    shutil.copytree(repo / "submission/closed/Krai", repo / "second/closed/Krai", symlinks=True)
    done = cli("check", "pyproject.toml", "-j", "1", "--no-progress", cwd=repo)
    assert done.returncode == 2
    assert "error: pyproject.toml governs 2 trees (second, submission) under .: give the folder" in done.stderr


@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
def test_no_message_of_a_real_slice_says_none_or_a_wrong_plural(round_name: str) -> None:
    """attack24 L7, over every finding of the real slices (tests/test_cases.py: of every case):
    a count says its noun in the right number (checker.wording.counted), no Python None."""
    assert slips(real_report(round_name).findings) == []


def test_a_count_says_its_noun_in_the_right_number() -> None:
    assert [counted(n, "node") for n in (0, 1, 2)] == ["0 nodes", "1 node", "2 nodes"]
    assert counted(1, "loadgen file") == "1 loadgen file" and counted(3, "analysis", "analyses") == "3 analyses"
    message = "the name `x` says 1 accelerators; the description has 8 per node on 1 node(s), this one is None"
    assert slips([Finding(code="SYS010", severity=Severity.WARNING, path="x.json", message=message)]) != []
