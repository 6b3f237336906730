"""Seed-release provenance against a real git repository built with gitpython, and the
bundled table on the real v5.1 and v6.0 slices."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import git
import pytest
import yaml

from checker.commands.provenance import to_csv, to_text
from checker.provenance import RepositorySource, TableSource, build_of, judge_build
from checker.rounds import load_round
from helpers import EXAMPLE, OFFLINE, REAL_V60, SINGLE, cli, copy_real_result, real_data, run, set_mllog

LOG = f"{OFFLINE}/performance/run_1/mlperf_log_detail.txt"
LOGS = [LOG, f"{SINGLE}/performance/run_1/mlperf_log_detail.txt"]
# A wheel built in loadgen/ (`pip wheel .`): loadgen logs the SHA-1 of every file there, and git
# has no such file at any commit.
WHEEL = "/mlperf_loadgen-6.0.2-cp312-cp312-linux_x86_64.whl"
# Real v6.0 results: a PyPI build of loadgen (every git field "NA"), and a git build whose
# loadgen/ held three built Python modules when it was built.
NA_BUILD = "closed/Lenovo/results/SR675iV3/whisper/Offline"
BUILT_MODULES = "closed/RedHat/results/8xH200_whisper/whisper/Offline"
MODULES = [
    "/mlperf_loadgen.cpython-310-x86_64-linux-gnu.so",
    "/mlperf_loadgen.cpython-312-x86_64-linux-gnu.so",
    "/mlperf_loadgen.cpython-39-x86_64-linux-gnu.so",
]


def _commit(repo: git.Repo, files: dict[str, str], message: str, date: str) -> str:
    root = Path(repo.working_tree_dir)
    for name, text in files.items():
        path = root / "loadgen" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        repo.index.add([str(path)])
    stamp = date.replace("+00:00", "")  # gitpython takes ISO 8601 without the offset (UTC)
    return repo.index.commit(message, author_date=stamp, commit_date=stamp).hexsha


@pytest.fixture(scope="module")
def inference(tmp_path_factory) -> dict:
    """A small mlcommons/inference: a commit before the seed release, the seed release, two
    commits after it (one after the deadline), and a branch that never merged."""
    root = tmp_path_factory.mktemp("inference")
    repo = git.Repo.init(root, initial_branch="master")
    revs = {}
    revs["old"] = _commit(
        repo,
        {"loadgen.cc": "int v = 1;\n", "VERSION.txt": "6.0.1\n", "mlperf.conf": "seed = 1\n"},
        "loadgen 6.0.1",
        "2026-05-01T10:00:00+00:00",
    )
    revs["seed"] = _commit(repo, {"mlperf.conf": "seed = 2\n"}, "Add random seeds", "2026-07-02T10:00:00+00:00")
    revs["after"] = _commit(
        repo, {"loadgen.cc": "int v = 2;\n", "VERSION.txt": "6.0.2\n"}, "loadgen 6.0.2", "2026-07-10T10:00:00+00:00"
    )
    revs["late"] = _commit(repo, {"loadgen.cc": "int v = 3;\n"}, "after the deadline", "2026-08-10T10:00:00+00:00")
    fork = repo.create_head("never-merged", revs["old"])
    fork.checkout()
    revs["fork"] = _commit(repo, {"loadgen.cc": "int v = 99;\n"}, "a fork", "2026-07-15T10:00:00+00:00")
    repo.heads.master.checkout()
    sums = {}
    for name, sha in revs.items():
        tree = repo.commit(sha).tree / "loadgen"
        sums[name] = {
            "/" + b.path[len("loadgen/") :]: hashlib.sha1(b.data_stream.read()).hexdigest()
            for b in tree.traverse()
            if b.type == "blob"
        }
    round_file = root.parent / "test-round.yaml"
    round_file.write_text(
        yaml.safe_dump(
            {
                "extends": "demo-v6.1",
                "round": "demo-v6.1",
                "seed_release": {
                    "commit": revs["seed"],
                    "date": "2026-07-02",
                    "deadline": "2026-07-31",
                    "source": "the test repository's seed release",
                },
            }
        )
    )
    return {"path": str(root), "revs": revs, "sums": sums, "round": str(round_file)}


def _submission(tmp_path: Path, version: str, sums: dict | None = None, status: str | None = None) -> Path:
    """The bundled example with its real loadgen logs rewritten to claim another build."""
    target = tmp_path / "submission"
    shutil.copytree(EXAMPLE, target, symlinks=True)
    for rel in LOGS:
        log = target / rel
        set_mllog(log, "loadgen_version", version)
        if sums is not None:
            set_mllog(log, "loadgen_file_sha1", sums)
        if status is not None:
            set_mllog(log, "loadgen_git_status_message", status)
    return target


def _prv(report) -> list[tuple[str, str, str]]:
    return [(f.code, f.severity.value, f.path) for f in report.findings if f.code.startswith("PRV")]


def _real_v60(tmp_path: Path, location: str) -> Path:
    real_data(REAL_V60)
    root = tmp_path / "submission"
    copy_real_result(root, location, REAL_V60)
    return root


def _parsed(path: Path):
    from checker.parsers.mllog import parse_mllog

    with open(path, "rb") as handle:
        return parse_mllog(handle)[0]


@pytest.mark.parametrize(
    "name,codes",
    [
        ("after", []),
        ("old", ["PRV003"]),
        ("fork", ["PRV003"]),
        ("late", ["PRV004"]),
    ],
)
def test_revs_judged_by_ancestry_and_date(inference: dict, tmp_path: Path, name: str, codes: list[str]) -> None:
    rev = inference["revs"][name]
    root = _submission(tmp_path, f"6.0.2 @ {rev[:10]}", inference["sums"][name])
    report = run(root, inference["round"], inference_repo=inference["path"])
    assert _prv(report) == [(code, "error", log) for log in LOGS for code in codes]
    assert {r.location: r.valid for r in report.results}[OFFLINE] is (not codes)


def test_unknown_rev(inference: dict, tmp_path: Path) -> None:
    root = _submission(tmp_path, "6.0.2 @ 0123456789", inference["sums"]["after"])
    assert _prv(run(root, inference["round"], inference_repo=inference["path"])) == [
        ("PRV002", "error", log) for log in LOGS
    ]


def test_modified_file_is_a_sha1_mismatch(inference: dict, tmp_path: Path) -> None:
    sums = dict(inference["sums"]["after"], **{"/loadgen.cc": hashlib.sha1(b"int v = 2; // faster\n").hexdigest()})
    root = _submission(tmp_path, f"6.0.2 @ {inference['revs']['after'][:10]}", sums)
    report = run(root, inference["round"], inference_repo=inference["path"])
    assert _prv(report) == [("PRV005", "error", log) for log in LOGS]
    assert [f.observed for f in report.findings if f.code == "PRV005"] == [["/loadgen.cc"]] * 2


@pytest.mark.slow
def test_modified_and_untracked_files_are_told_apart(inference: dict, tmp_path: Path) -> None:
    """A file git has at the rev with another content is modified; a file git does not have
    there at all (a built wheel) is untracked: a note beside the modified files' finding."""
    rev = inference["revs"]["after"]
    sums = dict(
        inference["sums"]["after"],
        **{
            "/loadgen.cc": hashlib.sha1(b"int v = 2; // faster\n").hexdigest(),
            WHEEL: hashlib.sha1(b"PK a wheel").hexdigest(),
        },
    )
    root = _submission(tmp_path, f"6.0.2 @ {rev[:10]}", sums)
    verdict = judge_build(
        OFFLINE, build_of(_parsed(root / LOG)), load_round(inference["round"]), RepositorySource(inference["path"])
    )
    assert (verdict.verdict, verdict.modified_files, verdict.untracked_files) == ("descends", ["/loadgen.cc"], [WHEEL])
    assert to_csv([verdict], load_round(inference["round"])).splitlines() == [
        "location,loadgen_version,rev,verdict,commit_date,modified_files,dirty,after_deadline,identified_as,source,"
        "untracked_files,reason",
        f"{OFFLINE},6.0.2,{rev[:10]},descends,2026-07-10T10:00:00+00:00,/loadgen.cc,False,False,,repository,{WHEEL},",
    ]
    assert (
        to_text([verdict], load_round(inference["round"])).splitlines()[1]
        == f"      1  descends        6.0.2 @ {rev[:10]}  2026-07-10  MLCheckDemo  [1 modified; 1 with untracked files]"
    )
    report = run(root, inference["round"], inference_repo=inference["path"])
    assert [(f.code, f.severity.value, f.path, f.pointer, f.observed, f.message) for f in report.findings] == [
        finding
        for log in LOGS
        for finding in [
            (
                "PRV005",
                "error",
                log,
                "loadgen_file_sha1",
                ["/loadgen.cc"],
                f"1 loadgen file differs from rev {rev[:10]}: /loadgen.cc",
            ),
            (
                "PRV005",
                "note",
                log,
                "loadgen_file_sha1",
                [WHEEL],
                f"1 loadgen file not in git at rev {rev[:10]} (untracked, e.g. built; not a modification): {WHEEL}",
            ),
        ]
    ]
    assert {r.location: r.valid for r in report.results} == {OFFLINE: False, SINGLE: False}
    done = cli(
        "provenance", str(root), "--round", inference["round"], "--inference-repo", inference["path"], "-f", "json"
    )
    assert done.returncode == 0, done.stderr
    results = {r["location"]: r for r in json.loads(done.stdout)["results"]}
    assert {k: results[OFFLINE][k] for k in ("modified_files", "untracked_files", "dirty")} == {
        "modified_files": ["/loadgen.cc"],
        "untracked_files": [WHEEL],
        "dirty": False,
    }


def test_untracked_files_alone_fail_nothing(inference: dict, tmp_path: Path) -> None:
    rev = inference["revs"]["after"]
    root = _submission(tmp_path, f"6.0.2 @ {rev[:10]}", dict(inference["sums"]["after"], **{WHEEL: "0" * 40}))
    report = run(root, inference["round"], inference_repo=inference["path"], strict=True)
    assert [(f.code, f.severity.value, f.path, f.pointer, f.observed) for f in report.findings] == [
        ("PRV005", "note", log, "loadgen_file_sha1", [WHEEL]) for log in LOGS
    ]
    assert {r.location: r.valid for r in report.results} == {OFFLINE: True, SINGLE: True}


def test_dirty_status_needs_no_repository(tmp_path: Path) -> None:
    root = _submission(tmp_path, "6.0.17 @ d6147c7eb7", status=" M loadgen/loadgen.cc")
    assert _prv(run(root, "demo-v6.1")) == [("PRV001", "error", log) for log in LOGS]


def test_v51_and_v60_warn_and_strict_makes_errors(tmp_path: Path) -> None:
    assert {load_round(r).severity("PRV003").value for r in ("v5.1", "v6.0")} == {"warning"}
    assert load_round("v6.1").severity("PRV003") is None  # the rule's default: error
    root = _submission(tmp_path, "6.0.17 @ d6147c7eb7", status=" M loadgen/loadgen.cc")
    assert _prv(run(root, "v5.1", select=["PRV"])) == [("PRV001", "warning", log) for log in LOGS]
    report = run(root, "v5.1", select=["PRV"], strict=True)  # the v5.1 warning, raised by --strict
    assert _prv(report) == [("PRV001", "error", log) for log in LOGS]


@pytest.mark.slow
def test_na_build_identified_through_the_bundled_table() -> None:
    build = build_of(_parsed(EXAMPLE / LOG))
    na = type(build)(build.version, None, None, "NA", build.file_sha1, False)  # the same files, logged as "NA"
    verdict = judge_build(OFFLINE, na, load_round("v6.1"), TableSource())
    # a release at or after the seed release: it descends, and says how it was identified
    assert (verdict.verdict, verdict.identified_as, verdict.dirty, verdict.untracked_files) == (
        "descends",
        "6.0.17",
        False,
        [],
    )
    assert verdict.reason == (
        "no git revision logged (NA: a build outside a git checkout, such as the PyPI package); its loadgen "
        "files are release 6.0.17's, which descends from the seed release"
    )
    with_wheel = type(build)(build.version, None, None, "NA", dict(build.file_sha1, **{WHEEL: "0" * 40}), False)
    verdict = judge_build(OFFLINE, with_wheel, load_round("v6.1"), TableSource())
    assert (verdict.identified_as, verdict.modified_files, verdict.untracked_files) == ("6.0.17", [], [WHEEL])
    changed = type(build)(build.version, None, None, "NA", dict(build.file_sha1, **{"/loadgen.cc": "0" * 40}), False)
    unknown = judge_build(OFFLINE, changed, load_round("v6.1"), TableSource())
    assert (unknown.verdict, unknown.identified_as) == ("no-git-rev", None)
    assert unknown.reason == (
        "no git revision logged (NA: a build outside a git checkout, such as the PyPI package), and its loadgen "
        "files match no release in the bundled table"
    )
    # a release whose first commit is older than the seed release: still no-git-rev, and why
    table = {
        "releases": {"6.0.1": {"first": "0123456789", "loadgen": "tree"}},
        "revs": {"0123456789": {"date": "2025-12-01T00:00:00+00:00", "descends": ["v5.1"]}},
        "loadgen_trees": {"tree": dict(build.file_sha1)},
    }
    older = judge_build(OFFLINE, na, load_round("v6.1"), TableSource(table))
    assert (older.verdict, older.identified_as) == ("no-git-rev", "6.0.1")
    assert older.reason.endswith("its loadgen files are release 6.0.1's, which does not descend from the seed release")


@pytest.mark.parametrize(
    "status,dirty",
    [
        ("", False),
        ("NA", False),  # no git: the PyPI package
        (" M loadgen.cc", True),
        ("M  bindings/python_api.cc\n M loadgen.cc\n", True),
        ("R  issue_query_controller.h -> query_controller.h", True),
        ("?? mlperf_loadgen.whl", False),  # untracked; `git status -uno` never shows it
        ("fatal: not a git repository", False),  # not the output of git status
    ],
)
def test_a_dirty_status_is_told_by_its_lines(status: str, dirty: bool) -> None:
    build = build_of(_parsed(EXAMPLE / LOG))
    assert type(build)(build.version, build.rev, None, status, {}, False).dirty is dirty


@pytest.mark.real
@pytest.mark.full
def test_real_pypi_build_logging_na_is_not_dirty(tmp_path: Path) -> None:
    root = _real_v60(tmp_path, NA_BUILD)
    log = f"{NA_BUILD}/performance/run_1/mlperf_log_detail.txt"
    build = build_of(_parsed(root / log))
    assert (build.version, build.rev, build.status, build.changes, build.dirty) == ("6.0.8", None, "NA", [], False)
    assert _prv(run(root, "v6.0", select=["PRV"])) == []


@pytest.mark.real
@pytest.mark.full
def test_real_log_with_a_dirty_status(tmp_path: Path) -> None:
    root = _real_v60(tmp_path, NA_BUILD)
    log = f"{NA_BUILD}/performance/run_1/mlperf_log_detail.txt"
    set_mllog(root / log, "loadgen_git_status_message", " M loadgen.cc\nM  bindings/python_api.cc")
    report = run(root, "v6.0", select=["PRV"])
    assert [(f.code, f.severity.value, f.path, f.pointer, f.message) for f in report.findings] == [
        (
            "PRV001",
            "warning",
            log,
            "loadgen_git_status_message",
            "loadgen was built from a modified checkout (git status ' M loadgen.cc\\nM  bindings/python_api.cc') "
            "(warning in v6.0: the round's checker does not check loadgen's provenance, and published results ran older, "
            "forked or modified builds)",
        )
    ]


@pytest.mark.real
@pytest.mark.full
def test_real_built_modules_are_untracked_not_modified(tmp_path: Path) -> None:
    """RedHat's v6.0 whisper loadgen (6.0.9 @ 4b4a3ffc89, status "") logs three built Python
    modules that git does not have at that rev: untracked, so a note and no failure."""
    root = _real_v60(tmp_path, BUILT_MODULES)
    log = f"{BUILT_MODULES}/performance/run_1/mlperf_log_detail.txt"
    verdict = judge_build(BUILT_MODULES, build_of(_parsed(root / log)), load_round("v6.0"), TableSource())
    assert (verdict.verdict, verdict.rev, verdict.dirty, verdict.modified_files, verdict.untracked_files) == (
        "descends",
        "4b4a3ffc89",
        False,
        [],
        MODULES,
    )


def test_cli_with_repository(inference: dict, tmp_path: Path) -> None:
    root = _submission(tmp_path, f"6.0.1 @ {inference['revs']['old'][:10]}", inference["sums"]["old"])
    done = cli(
        "provenance", str(root), "--round", inference["round"], "--inference-repo", inference["path"], "-f", "json"
    )
    assert done.returncode == 0, done.stderr
    results = {r["location"]: r for r in json.loads(done.stdout)["results"]}
    assert (results[OFFLINE]["verdict"], results[OFFLINE]["rev"]) == ("predates", inference["revs"]["old"][:10])
    assert results[OFFLINE]["commit_date"].startswith("2026-05-01")


@pytest.mark.slow
@pytest.mark.real
@pytest.mark.full
def test_real_slice_from_the_bundled_table(real: Path) -> None:
    done = cli("provenance", str(real), "--round", "v5.1", "-f", "json")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["results"]
    counts: dict[str, int] = {}
    for result in results:
        counts[result["verdict"]] = counts.get(result["verdict"], 0) + 1
    assert counts == {"descends": 122, "predates": 6, "unknown-commit": 5}
    predates = {r["rev"] for r in results if r["verdict"] == "predates"}
    assert predates == {"379ee5345a"}
    assert not any(r["modified_files"] or r["untracked_files"] or r["dirty"] for r in results)
    text = cli("provenance", str(real), "--round", "v5.1").stdout
    assert "      6  predates        4.1 @ 379ee5345a  2024-07-24  Intel, Lenovo" in text


def test_bare_clone_without_a_config_file(inference: dict, tmp_path: Path) -> None:
    """A bare clone whose `config` is gone (as the shared mirror is) is still read: gitpython
    takes such a folder for a work tree's .git unless the git folder is named."""
    bare = tmp_path / "inference.git"
    git.Repo(inference["path"]).clone(str(bare), bare=True)
    (bare / "config").unlink()
    source = RepositorySource(str(bare))
    seed = inference["revs"]["seed"]
    commit = source.commit(inference["revs"]["after"][:10], load_round(inference["round"]))
    assert commit is not None and commit.sha == inference["revs"]["after"]
    assert source.commit("0123456789", load_round(inference["round"])) is None
    assert source.files(seed[:10], None) == inference["sums"]["seed"]


@pytest.mark.slow
@pytest.mark.real
@pytest.mark.full
def test_real_v60_slice_from_the_bundled_table() -> None:
    """v6.0: eight Lenovo results ran the PyPI loadgen 6.0.8 (every git field "NA"): not dirty.
    One RedHat result ran a loadgen whose folder held built modules: untracked, not modified."""
    real_data(REAL_V60)
    command = ["provenance", str(REAL_V60), "--round", "v6.0"]
    done = cli(*command, "-f", "json")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["results"]
    counts: dict[str, int] = {}
    for result in results:
        counts[result["verdict"]] = counts.get(result["verdict"], 0) + 1
    # the eight PyPI 6.0.8 builds are identified as a release after the seed release: they descend
    assert counts == {"descends": 66, "unknown-commit": 4}
    assert [r["location"] for r in results if r["dirty"] or r["modified_files"]] == []
    assert {r["location"]: r["untracked_files"] for r in results if r["untracked_files"]} == {BUILT_MODULES: MODULES}
    assert {r["identified_as"] for r in results if r["rev"] is None} == {"6.0.8"}
    text = cli(*command).stdout
    assert "      8  descends        6.0.8 @ NA          2026-01-28  Lenovo  [identified as 6.0.8]\n" in text
    # the exceptions first: the four builds of revs mlcommons/inference does not have
    assert [line.split()[1] for line in text.splitlines()[1:]][:3] == ["unknown-commit", "unknown-commit", "descends"]
    assert "      1  descends        6.0.9 @ 4b4a3ffc89  2026-02-06  RedHat  [1 with untracked files]\n" in text


def test_the_bundled_table_is_the_tools_own_rendering_of_itself() -> None:
    """rules/loadgen_releases.json is what checker.tools.releases writes for the data it
    holds (one member a line, its order kept, how it was made first), and TableSource reads
    that data: every commit, release and loadgen tree, the seed releases of every round."""
    from checker.rounds import real_rounds
    from checker.tools import releases

    text = (Path(__file__).parents[1] / "rules" / "loadgen_releases.json").read_text(encoding="utf-8")
    data = json.loads(text)
    assert next(iter(data)) == "generated" and data.pop("generated") == releases.GENERATED
    assert releases.rendered(data) == text
    source = TableSource()
    assert (source.revs, source.releases, source.trees) == (data["revs"], data["releases"], data["loadgen_trees"])
    assert set(data["seed_releases"]) == set(real_rounds())
    assert (len(source.revs), len(source.releases), len(source.trees)) == (546, 52, 121)
