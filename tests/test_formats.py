"""Another format recognised (issue 32, item 9): a folder that holds no MLPerf Inference results
but is laid out as another MLPerf submission (rules/formats.yaml: an Endpoints v1.0 rolling
submission, a Training one) is exit 2 naming what it looks like and the tool that checks it,
in every command that reads a tree and in the API (a ValueError); a folder of no known layout
says so. The trees are made from real files: the published v6.1 Endpoints results and
descriptions, rearranged into the other layout in a tmp folder."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from checker import api
from checker.formats import formats, survey
from checker.workspace import other_format
from helpers import REAL_ROOT, REAL_V60, cli, full_digest, real_data

V61 = REAL_ROOT / "v6.1"
ATLAS = V61 / "closed" / "Atlas_Inference"
SYSTEMS = ("DGX_Spark_GB10", "Strix_Halo")
MODEL = "qwen3.6-27b"
ENDPOINTS_TOOL = "endpoints-submission-cli check-submission {root} (pip install endpoints-submission-cli)"


def _endpoints_tree(base: Path) -> Path:
    """An Endpoints v1.0 rolling submission, <organization>/<submission_id>/results/<system>/
    <model>/r<N>/, each point folder holding the real v6.1 result's config.yaml,
    result_summary.json and accuracy_results.json and its system's description as
    system_desc.json; the organization folder is returned."""
    real_data(ATLAS)
    org = base / "Atlas_Inference"
    for system in SYSTEMS:
        source = ATLAS / "results" / system / MODEL / "SingleStream"
        for point in ("r1", "r8"):
            folder = org / "sub-0001" / "results" / system / MODEL / point
            folder.mkdir(parents=True)
            shutil.copy(source / "config.yaml", folder)
            shutil.copy(source / "performance" / "result_summary.json", folder)
            shutil.copy(source / "accuracy" / "accuracy_results.json", folder)
            shutil.copy(ATLAS / "systems" / f"{system}.json", folder / "system_desc.json")
    (org / "sub-0001" / "src" / "impl").mkdir(parents=True)
    shutil.copy(ATLAS / "src" / "GB10" / "PLACEHOLDER", org / "sub-0001" / "src" / "impl" / "README.md")
    return org


def _training_tree(base: Path) -> Path:
    """An MLPerf Training submission, <submitter>/results/<system>/<benchmark>/result_<n>.txt
    (a real loadgen detail log, of the same :::MLLOG lines), with systems/<system>.json."""
    log = real_data(REAL_V60) / "open/Krai/results/h200_n1-kissv/wan-2.2-t2v-a14b/singlestream/performance/run_1"
    submitter = base / "Krai"
    folder = submitter / "results" / "h200_n1-kissv" / "llama2_70b_lora"
    folder.mkdir(parents=True)
    for n in range(2):
        shutil.copy(log / "mlperf_log_detail.txt", folder / f"result_{n}.txt")
    (submitter / "systems").mkdir()
    shutil.copy(ATLAS / "systems" / "Strix_Halo.json", submitter / "systems" / "h200_n1-kissv.json")
    return submitter


def _endpoints_reason(given: str, example: str, root: str) -> str:
    return (
        f"no results under {given}: it looks like an MLPerf Endpoints v1.0 rolling submission (results/<system>/"
        f"<model>/r<N>/ point folders, such as {example}), which mlperf-check does not check: check it with "
        f"`endpoints-submission-cli check-submission {root}` (pip install endpoints-submission-cli)"
    )


# Every command that reads a tree, as the command line gives it the tree (and where it writes).
COMMANDS = [
    ("check", "{p}"),
    ("check", "{p}", "--round", "v6.1"),
    ("table", "{p}"),
    ("table", "{p}", "--round", "v6.1"),
    ("report", "{p}", "-o", "{out}.html"),
    ("compare", "{p}"),
    ("provenance", "{p}"),
    ("prepare", "{p}", "-o", "{out}"),
    ("prepare", "{p}", "-o", "{out}", "--round", "v6.1"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(a for a in c if "{" not in a))
def test_every_command_names_an_endpoints_tree_and_its_tool(tmp_path: Path, command: tuple[str, ...]) -> None:
    base = tmp_path / "tree"
    _endpoints_tree(base)
    out = tmp_path / "out"
    before = full_digest(base)
    done = cli(*(part.format(p=".", out=out) for part in command), "--no-progress", cwd=base)
    example = f"Atlas_Inference/sub-0001/results/{SYSTEMS[0]}/{MODEL}/r1/accuracy_results.json"
    assert done.returncode == 2, done.stderr
    said = ".: " if command[0] == "compare" else ""  # compare names the tree each reason is of
    assert done.stderr.splitlines() == ["error: " + said + _endpoints_reason(".", example, "Atlas_Inference")]
    assert done.stdout == ""
    assert full_digest(base) == before
    assert not list(tmp_path.glob("out*"))  # nothing written


@pytest.mark.parametrize(
    "given",
    [
        ".",
        "Atlas_Inference",
        "Atlas_Inference/sub-0001",
        "Atlas_Inference/sub-0001/results",
        f"Atlas_Inference/sub-0001/results/{SYSTEMS[1]}",
        f"Atlas_Inference/sub-0001/results/{SYSTEMS[1]}/{MODEL}",
        f"Atlas_Inference/sub-0001/results/{SYSTEMS[1]}/{MODEL}/r8",
    ],
)
def test_any_folder_of_an_endpoints_tree_names_the_organization_folder(tmp_path: Path, given: str) -> None:
    """Above the organization or anywhere down to one point folder: the same format, and the
    folder the tool takes (the organization's, as shown from here)."""
    base = tmp_path / "tree"
    _endpoints_tree(base)
    done = cli("check", given, "--no-progress", cwd=base)
    first = next(p for p in sorted((base / given).rglob("*.json")) if p.parent.name.startswith("r"))
    example = str(first.relative_to(base))
    assert (done.returncode, done.stderr.splitlines()) == (
        2,
        ["error: " + _endpoints_reason(given, example, "Atlas_Inference")],
    )


def test_the_api_raises_the_same_reason(tmp_path: Path) -> None:
    org = _endpoints_tree(tmp_path)
    example = f"{org}/sub-0001/results/{SYSTEMS[0]}/{MODEL}/r1/accuracy_results.json"
    reason = _endpoints_reason(str(org), example, str(org))
    for round_name in (None, "v6.1"):
        with pytest.raises(ValueError) as raised:
            api.check(org, round_name)
        assert str(raised.value) == reason


def test_a_training_tree_names_its_package_checker(tmp_path: Path) -> None:
    _training_tree(tmp_path)
    done = cli("check", "Krai", "--no-progress", cwd=tmp_path)
    assert (done.returncode, done.stderr.splitlines()) == (
        2,
        [
            "error: no results under Krai: it looks like an MLPerf Training submission (results/<system>/<benchmark>/"
            "result_<n>.txt logs, such as Krai/results/h200_n1-kissv/llama2_70b_lora/result_0.txt), which mlperf-check "
            "does not check: check it with `python3 -m mlperf_logging.package_checker Krai training <ruleset>` "
            "(pip install mlperf-logging)"
        ],
    )


def test_every_format_is_told_from_every_folder_of_its_tree(tmp_path: Path) -> None:
    """Property over every format of rules/formats.yaml: from the folder above its tool's root
    down to the deepest folder, the survey names that format and the same root."""
    built = {
        "an MLPerf Endpoints v1.0 rolling submission": _endpoints_tree,
        "an MLPerf Training submission": _training_tree,
    }
    assert sorted(f.name for f in formats()) == sorted(built)
    for one in formats():
        base = tmp_path / re.sub(r"\W+", "-", one.name)
        root = built[one.name](base)
        deepest = max((p for p in root.rglob("*") if p.is_dir()), key=lambda p: len(p.parts))
        folder = deepest
        while True:
            seen = survey(str(folder))
            assert (seen.format, seen.root) == (one, str(root)), folder
            if folder == base:
                break
            folder = folder.parent


def test_known_layouts_and_bare_folders_keep_their_reasons(tmp_path: Path) -> None:
    """An empty folder, one with a stray file, a submitter folder and a result folder copied
    alone: the folder to give, as before; a folder of code: of no known layout."""
    real_data(ATLAS)
    (tmp_path / "empty").mkdir()
    (tmp_path / "stray").mkdir()
    (tmp_path / "stray" / "notes.txt").write_text("x\n")
    shutil.copytree(ATLAS, tmp_path / "sub")
    shutil.copytree(ATLAS / "results" / "Strix_Halo" / MODEL / "SingleStream", tmp_path / "result")
    (tmp_path / "code" / "pkg").mkdir(parents=True)
    (tmp_path / "code" / "pkg" / "a.py").write_text("x = 1\n")
    give = "give the folder that holds closed/, open/ or network/"
    for given in ("empty", "stray", "sub", "sub/results", "result"):
        done = cli("check", given, "--no-progress", cwd=tmp_path)
        assert (done.returncode, done.stderr.splitlines()[-1]) == (2, f"error: no results under {given}: {give}")
        assert other_format(str(tmp_path / given)) is None
    done = cli("check", "code", "--no-progress", cwd=tmp_path)
    assert (done.returncode, done.stderr.splitlines()[-1]) == (
        2,
        "error: no results under code: its folders are laid out as no format this version knows (no file in them "
        f"is one an MLPerf Inference run writes): {give}",
    )


def test_the_real_v61_tree_with_endpoints_results_is_a_known_layout() -> None:
    real_data(V61)
    assert other_format(str(V61)) is None
    report = api.check(V61, "v6.1", jobs=1)
    assert (len(report.results), sum(r.valid for r in report.results)) == (2, 0)
