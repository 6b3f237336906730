"""`mlperf-check prepare`: a submission ready for upload, written into a new tree as the
round's own tools write it, and SRC never changed.

The truncation is held byte for byte to what the official truncate_accuracy_log.py wrote on
the same real input (fixtures/truncation/, made once, see its README). Removal, moves to open
and inference are held to exact change lists on copies of the real slices and the bundled
example, and inferred results to the published trees and tables they reproduce."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_table import PUBLICATION, _differences
from typer.testing import CliRunner

from checker.cli import app
from checker.commands.prepare import prepare
from checker.commands.table import TableFormat, render, table_row
from helpers import ENDPOINTS, EXAMPLE, OFFLINE, REAL_ROOT, ROOT, SINGLE, SUBMISSION, real_data, run, tree_digest

runner = CliRunner()
FIXTURES = ROOT / "fixtures" / "truncation"
AMD_SERVER = "closed/AMD/results/8xMI355X_2xEPYC_9575F/llama2-70b-99/Server"
LENOVO_SE100 = ("closed", "Lenovo", "SE100_RTX2000E_Ada_16GBx1_TRT", "resnet50")
GPT_OSS = "closed/Lenovo/results/SR680aV4/gpt-oss-120b"


# --- helpers ------------------------------------------------------------------------------


def pinned(root: Path) -> str:
    """The digest of a tree: every path with its kind and mode, each file's bytes, each link's
    target, and the list of folders (links never followed)."""
    digest = hashlib.sha256()
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in [".", *sorted(dirs + files)]:
            path = Path(folder) / name
            info = path.lstat()
            digest.update(os.fsencode(path.relative_to(root)) + b"\0" + str(info.st_mode).encode() + b"\0")
            if stat.S_ISLNK(info.st_mode):
                digest.update(os.fsencode(os.readlink(path)))
            elif stat.S_ISREG(info.st_mode):
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def writable(root: Path) -> Path:
    """Every folder and file of a copy writable by its owner (the real slices are read-only)."""
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, 0o644)
    return root


def copy_of(source: Path, target: Path, *parts: str) -> Path:
    """A writable copy of `source` (only its `parts`, when given)."""
    for part in parts or (".",):
        shutil.copytree(source / part, target / part, symlinks=True, dirs_exist_ok=True)
    return writable(target)


def unhash(path: Path) -> None:
    """accuracy.txt as it was before the round's truncation appended `\\nhash=<hex>\\n`."""
    data = path.read_bytes()
    before = re.sub(rb"\nhash=[0-9a-f]{64}\n\Z", b"", data)
    assert before != data, path
    path.write_bytes(before)


def full_log(root: Path, result: str) -> None:
    """Put back a full-size accuracy log: the same result's untruncated TEST06 log (real
    loadgen output), with the hash line off accuracy.txt."""
    shutil.copyfile(
        root / result / "TEST06/accuracy/mlperf_log_accuracy.json", root / result / "accuracy/mlperf_log_accuracy.json"
    )
    unhash(root / result / "accuracy/accuracy.txt")


def official_files(round_name: str) -> list[Path]:
    found = sorted(p.relative_to(FIXTURES / round_name) for p in (FIXTURES / round_name).rglob("*") if p.is_file())
    assert found, round_name
    return found


def assert_official(dest: Path, round_name: str) -> None:
    """DEST holds, byte for byte, what the official script wrote on the same input."""
    for rel in official_files(round_name):
        assert (dest / rel).read_bytes() == (FIXTURES / round_name / rel).read_bytes(), rel


def lines(text: str) -> list[str]:
    return text.splitlines()


def cli(*args: str) -> object:
    return runner.invoke(app, ["prepare", *args, "-j", "1"])


# --- truncation, byte for byte ------------------------------------------------------------


def test_truncation_is_the_official_scripts_on_the_example(tmp_path: Path) -> None:
    """The bundled example (real loadgen output) before truncation: its 7,207-byte logs become
    the official script's 8,199 bytes (first and last 4 KiB overlap), the hash appended."""
    src = copy_of(EXAMPLE, tmp_path / "src")
    for result in (OFFLINE, SINGLE):
        unhash(src / result / "accuracy/accuracy.txt")
    before = pinned(src)
    (tmp_path / "dest").mkdir()  # an empty DEST is as good as a new one
    done = cli(str(src), "-o", str(tmp_path / "dest"), "--round", "demo-v6.1")
    assert done.exit_code == 0, done.output
    assert lines(done.stdout) == [
        f"truncated      {OFFLINE}/accuracy/mlperf_log_accuracy.json: 7207 bytes, kept as its first 4096 and "
        "last 4096 (8199 bytes); its sha256 appended to accuracy.txt",
        f"truncated      {SINGLE}/accuracy/mlperf_log_accuracy.json: 7207 bytes, kept as its first 4096 and "
        "last 4096 (8199 bytes); its sha256 appended to accuracy.txt",
        "prepare: 2 accuracy logs truncated, 0 results removed, 0 moved to open, 0 inferred, 0 empty folders "
        f"removed; {tmp_path / 'dest'} holds 2 results, 2 valid, 0 errors (exit 0)",
    ]
    assert_official(tmp_path / "dest", "v6.1")
    assert pinned(src) == before


@pytest.mark.real
@pytest.mark.full
def test_truncation_is_the_official_scripts_on_a_real_v60_result(tmp_path: Path) -> None:
    """A real v6.0 result with a full-size accuracy log (204,580 bytes): the official v6.0
    script's cut and hash, byte for byte."""
    src = copy_of(real_data(REAL_ROOT / "v6.0"), tmp_path / "src", "closed/AMD")
    full_log(src, AMD_SERVER)
    before = pinned(src)
    prepared = prepare(str(src), str(tmp_path / "dest"), "v6.0", jobs=1)
    assert [(c.action, c.path, c.facts) for c in prepared.changes] == [
        (
            "truncated",
            f"{AMD_SERVER}/accuracy/mlperf_log_accuracy.json",
            {
                "bytes": 204580,
                "kept_bytes": 8199,
                "hash": "073a72fcfc17726c411687cfe78bac1501d7e3f35bc67a9a1c319130de11bc92",
                "report": f"{AMD_SERVER}/accuracy/accuracy.txt",
            },
        )
    ]
    assert prepared.exit_code == 0
    assert_official(tmp_path / "dest", "v6.0")
    assert pinned(src) == before


@pytest.mark.real
@pytest.mark.full
def test_truncation_is_the_official_scripts_on_a_real_v51_result(tmp_path: Path) -> None:
    """v5.1 also truncates the compliance TEST01 log of closed results, and writes a report for
    it where there is none."""
    division, submitter, system, benchmark = LENOVO_SE100
    real = real_data(REAL_ROOT / "v5.1") / division / submitter
    src = tmp_path / "src"
    base = src / division / submitter
    for part in ("results", "compliance", "measurements"):
        shutil.copytree(real / part / system / benchmark, base / part / system / benchmark)
    for part in (f"code/{benchmark}", "documentation", "systems"):
        shutil.copytree(real / part, base / part)
    writable(src)
    unhash(base / "results" / system / benchmark / "SingleStream/accuracy/accuracy.txt")
    (base / "compliance" / system / benchmark / "SingleStream/TEST01/accuracy/accuracy.txt").unlink()
    prepared = prepare(str(src), str(tmp_path / "dest"), "v5.1", jobs=1)
    assert [(c.action, c.path, c.reason.rpartition("; ")[2]) for c in prepared.changes] == [
        (
            "truncated",
            f"closed/Lenovo/results/{system}/resnet50/SingleStream/accuracy/mlperf_log_accuracy.json",
            "its sha256 appended to accuracy.txt",
        ),
        (
            "truncated",
            f"closed/Lenovo/compliance/{system}/resnet50/SingleStream/TEST01/accuracy/mlperf_log_accuracy.json",
            "its sha256 written to accuracy.txt",
        ),
    ]
    assert prepared.exit_code == 0
    assert_official(tmp_path / "dest", "v5.1")


# --- the run: a real v6.0 copy with one result broken and one full-size log -------


def _broken_v60(tmp_path: Path) -> Path:
    """A copy of the real v6.0 slice whose closed gpt-oss-120b Server result misses its
    accuracy target, and whose AMD llama2-70b-99 Server accuracy log is full size again."""
    src = copy_of(real_data(REAL_ROOT / "v6.0"), tmp_path / "src")
    report = src / GPT_OSS / "Server/accuracy/accuracy.txt"
    report.write_text(report.read_text().replace("'exact_match': 83.520", "'exact_match': 80.520"))
    full_log(src, AMD_SERVER)
    return src


LEFT_OUT = [
    "left out       MISSING.txt: not a division folder (closed, open, network)",
    "left out       README.md: not a division folder (closed, open, network)",
    "left out       summary_results.json: not a division folder (closed, open, network)",
]
TRUNCATED = (
    f"truncated      {AMD_SERVER}/accuracy/mlperf_log_accuracy.json: 204580 bytes, kept as its first 4096 and last "
    "4096 (8199 bytes); its sha256 appended to accuracy.txt"
)
RGAT = (
    "removed        closed/Lenovo/results/1-node-2S-GNR_86C/rgat/Offline: FIL001 accuracy detail log is missing; "
    "FIL001 performance detail log is missing"
)
TOO_LOW = "ACC002 exact_match 80.520 < 82.2987 (0.99 x reference 83.13 = 82.2987, round v6.0)"


@pytest.mark.real
@pytest.mark.full
def test_a_broken_result_is_removed_and_a_full_log_truncated(tmp_path: Path) -> None:
    src = _broken_v60(tmp_path)
    before = pinned(src)
    dest = tmp_path / "dest"
    done = cli(str(src), "-o", str(dest))
    assert done.exit_code == 0, done.output
    assert lines(done.stdout) == [
        *LEFT_OUT,
        TRUNCATED,
        RGAT,
        f"removed        {GPT_OSS}/Offline: its benchmark goes with {GPT_OSS}/Server: {TOO_LOW}",
        f"removed        {GPT_OSS}/Server: {TOO_LOW}",
        "empty folder   closed/Lenovo/results/1-node-2S-GNR_86C/rgat: left empty",
        "prepare: 1 accuracy log truncated, 3 results removed, 0 moved to open, 0 inferred, 1 empty folder "
        f"removed; {dest} holds 68 results, 68 valid, 0 errors (exit 0)",
    ]
    assert pinned(src) == before
    assert not (dest / GPT_OSS).exists() and not (dest / "open/Lenovo").exists()
    assert_official(dest, "v6.0")  # the same input as the fixture's, inside a whole slice
    report = run(dest, "v6.0", jobs=2)
    assert (len(report.results), all(r.valid for r in report.results), report.has_errors) == (68, True, False)


@pytest.mark.real
@pytest.mark.full
def test_a_broken_benchmark_moves_to_open(tmp_path: Path) -> None:
    """--move-failed-to-open: the benchmark whose Server result missed its accuracy target moves
    to open, with its system description (division "open") and the submitter's src/."""
    src = _broken_v60(tmp_path)
    before = pinned(src)
    dest = tmp_path / "dest"
    done = cli(str(src), "-o", str(dest), "--move-failed-to-open")
    assert done.exit_code == 0, done.output
    moved = GPT_OSS.replace("closed/", "open/", 1)
    assert lines(done.stdout) == [
        *LEFT_OUT,
        TRUNCATED,
        RGAT,
        f"moved          {moved}/Offline (from {GPT_OSS}/Offline): its benchmark moves with {GPT_OSS}/Server: {TOO_LOW}",
        f"moved          {moved}/Server (from {GPT_OSS}/Server): {TOO_LOW}",
        "empty folder   closed/Lenovo/results/1-node-2S-GNR_86C/rgat: left empty",
        "prepare: 1 accuracy log truncated, 1 result removed, 2 moved to open, 0 inferred, 1 empty folder "
        f"removed; {dest} holds 70 results, 70 valid, 0 errors (exit 0)",
    ]
    assert pinned(src) == before
    assert pinned(dest / moved) == pinned(src / GPT_OSS)
    assert not (dest / GPT_OSS).exists()
    description = json.loads((dest / "open/Lenovo/systems/SR680aV4.json").read_text())
    original = json.loads((src / "closed/Lenovo/systems/SR680aV4.json").read_text())
    assert description == {**original, "division": "open"}
    assert sorted(p.name for p in (dest / "open/Lenovo/src").iterdir()) == sorted(
        p.name for p in (src / "closed/Lenovo/src").iterdir()
    )  # no src/gpt-oss-120b: the round's required src/ goes whole
    report = run(dest, "v6.0", jobs=2)
    assert sorted(r.location for r in report.results if r.division == "open" and r.submitter == "Lenovo") == [
        f"{moved}/Offline",
        f"{moved}/Server",
    ]
    assert all(r.valid for r in report.results) and not report.has_errors


# --- inference: the published trees and tables, again --------------------------------------

INFERRED = {
    "closed/Lenovo/results/SE100/resnet50/multistream": "closed/Lenovo/results/SE100/resnet50/SingleStream",
    "closed/Lenovo/results/SE100/resnet50/offline": "closed/Lenovo/results/SE100/resnet50/SingleStream",
    "closed/Dell_MangoBoost/results/8xMI355X_2xEPYC_9965/llama2-70b-99/Offline": (
        "closed/Dell_MangoBoost/results/8xMI355X_2xEPYC_9965/llama2-70b-99.9/Offline"
    ),
    "closed/Dell_MangoBoost/results/8xMI355X_2xEPYC_9965/llama2-70b-99/Server": (
        "closed/Dell_MangoBoost/results/8xMI355X_2xEPYC_9965/llama2-70b-99.9/Server"
    ),
}


def _without_inferred(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the real v6.0 slice without the results its submitters' preprocess inferred
    (they are byte-identical copies of the results they come from)."""
    real = real_data(REAL_ROOT / "v6.0")
    for target, source in INFERRED.items():
        assert tree_digest(real / target) == tree_digest(real / source), target
    src = copy_of(real, tmp_path / "src")
    for target in (
        "closed/Lenovo/results/SE100/resnet50/multistream",
        "closed/Lenovo/results/SE100/resnet50/offline",
        "closed/Dell_MangoBoost/results/8xMI355X_2xEPYC_9965/llama2-70b-99",
    ):
        shutil.rmtree(src / target)
    return real, src


@pytest.mark.real
@pytest.mark.full
def test_inferred_results_are_the_published_ones(tmp_path: Path) -> None:
    """SingleStream gives MultiStream and Offline on an edge system, -99.9 gives -99: the
    inferred folders are byte for byte the published ones, and `table` writes their rows,
    `inferred` included, as the published table does."""
    real, src = _without_inferred(tmp_path)
    dest = tmp_path / "dest"
    prepared = prepare(str(src), str(dest), "v6.0", jobs=2)
    inferred = {c.path: c.source for c in prepared.changes if c.action == "inferred"}
    assert inferred == INFERRED
    assert [c.action for c in prepared.changes if c.action not in ("left out", "inferred")] == [
        "removed",
        "empty folder",
    ]
    assert prepared.exit_code == 0
    for target, source in INFERRED.items():
        assert tree_digest(dest / target) == tree_digest(real / target), target  # the published bytes
        assert pinned(dest / target) == pinned(dest / source), target  # and modes
    report = run(dest, "v6.0", jobs=2, collect=table_row)
    fmt = TableFormat.of(report.round)
    rows = {row["Location"]: row for row in render([r.collected for r in report.results if r.valid], fmt)}
    published = {row["Location"]: row for row in json.loads((real / "summary_results.json").read_text())}
    for target in INFERRED:
        location = f"./{target}/performance/run_1"
        assert not _differences(published[location], rows[location], ()), location
    assert {target: rows[f"./{target}/performance/run_1"]["inferred"] for target in INFERRED} == {
        "closed/Lenovo/results/SE100/resnet50/multistream": 1,
        "closed/Lenovo/results/SE100/resnet50/offline": 1,
        "closed/Dell_MangoBoost/results/8xMI355X_2xEPYC_9965/llama2-70b-99/Offline": 0,
        "closed/Dell_MangoBoost/results/8xMI355X_2xEPYC_9965/llama2-70b-99/Server": 0,
    }
    assert all(key not in rows[next(iter(rows))] for key in PUBLICATION)


@pytest.mark.real
@pytest.mark.full
def test_no_infer_infers_nothing(tmp_path: Path) -> None:
    """--no-infer: the SingleStream result that needed its inferred MultiStream and Offline
    results fails for want of them, and goes."""
    _, src = _without_inferred(tmp_path)
    dest = tmp_path / "dest"
    done = cli(str(src), "-o", str(dest), "--no-infer")
    assert done.exit_code == 0, done.output
    assert lines(done.stdout)[3:] == [
        RGAT,
        "empty folder   closed/Lenovo/results/1-node-2S-GNR_86C/rgat: left empty",
        "removed        closed/Lenovo/results/SE100/resnet50/SingleStream: STR003 resnet on system type edge lacks "
        "MultiStream, Offline (has SingleStream)",
        "prepare: 0 accuracy logs truncated, 2 results removed, 0 moved to open, 0 inferred, 1 empty folder "
        f"removed; {dest} holds 65 results, 65 valid, 0 errors (exit 0)",
    ]
    assert not (dest / "closed/Dell_MangoBoost/results/8xMI355X_2xEPYC_9965/llama2-70b-99").exists()


# --- the bundled example: removal, moves, inference, and what cannot be read ---------------

RESULT = f"{SUBMISSION}/results/cpu-1x-numpy/demo-mlp-99"
ACC_SINGLE = "ACC002 acc 50.000 < 88.1719 (0.99 x reference 89.0625 = 88.1719, round demo-v6.1)"


def _example_with_low_accuracy(tmp_path: Path, result: str) -> Path:
    src = copy_of(EXAMPLE, tmp_path / "src")
    report = src / result / "accuracy/accuracy.txt"
    report.write_text(report.read_text().replace("accuracy=89.062%", "accuracy=50.000%"))
    return src


def test_a_failing_offline_result_is_inferred_from_singlestream(tmp_path: Path) -> None:
    """A failing Offline result goes alone ("it can be inferred"), and the round's preprocess
    infers it from SingleStream, into the lower-case folder the published trees have."""
    src = _example_with_low_accuracy(tmp_path, OFFLINE)
    done = cli(str(src), "-o", str(tmp_path / "dest"), "--round", "demo-v6.1", "-f", "json")
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["changes"] == [
        {
            "action": "removed",
            "path": OFFLINE,
            "reason": ACC_SINGLE.replace("SingleStream", "Offline"),
            "codes": ["ACC002"],
        },
        {
            "action": "inferred",
            "path": f"{RESULT}/offline",
            "source": SINGLE,
            "reason": "the round's preprocess infers Offline from a SingleStream result where no Offline or "
            "MultiStream result is",
        },
    ]
    assert data["check"] == {
        "exit": 0,
        "results": 2,
        "valid": 2,
        "findings": {"error": 0, "warning": 0, "note": 1},
        "invalid": [],
        "errors": [],
    }
    assert (data["counts"]["removed"], data["counts"]["inferred"], data["exit"]) == (1, 1, 0)
    assert tree_digest(tmp_path / "dest" / RESULT / "offline") == tree_digest(src / SINGLE)
    report = run(tmp_path / "dest", collect=table_row)
    rows = render([r.collected for r in report.results], TableFormat.of(report.round))
    assert [(row["Scenario"], row["inferred"]) for row in rows] == [("SingleStream", 0), ("offline", 1)]


def test_a_failing_benchmark_is_removed_or_moved_to_open(tmp_path: Path) -> None:
    """A failing SingleStream result takes its benchmark with it: both results are removed, or
    with --move-failed-to-open both move to open with the code and the system description."""
    src = _example_with_low_accuracy(tmp_path, SINGLE)
    before = pinned(src)
    removed = cli(str(src), "-o", str(tmp_path / "removed"), "--round", "demo-v6.1")
    assert removed.exit_code == 1, removed.output  # no result is left
    assert lines(removed.stdout) == [
        f"removed        {OFFLINE}: its benchmark goes with {SINGLE}: {ACC_SINGLE}",
        f"removed        {SINGLE}: {ACC_SINGLE}",
        f"empty folder   {SUBMISSION}/results: left empty",
        f"empty folder   {SUBMISSION}/results/cpu-1x-numpy: left empty",
        "prepare: 0 accuracy logs truncated, 2 results removed, 0 moved to open, 0 inferred, 2 empty folders "
        f"removed; {tmp_path / 'removed'} holds no result (exit 1)",
    ]
    moved = cli(str(src), "-o", str(tmp_path / "moved"), "--round", "demo-v6.1", "--move-failed-to-open")
    assert moved.exit_code == 0, moved.output
    open_result = RESULT.replace("closed/", "open/", 1)
    assert lines(moved.stdout)[:2] == [
        f"moved          {open_result}/Offline (from {OFFLINE}): its benchmark moves with {SINGLE}: {ACC_SINGLE}",
        f"moved          {open_result}/SingleStream (from {SINGLE}): {ACC_SINGLE}",
    ]
    dest = tmp_path / "moved"
    assert sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file() and "results" not in p.parts) == [
        f"{SUBMISSION}/documentation/calibration.md",
        f"{SUBMISSION}/src/demo-mlp-99/README.md",
        f"{SUBMISSION}/systems/cpu-1x-numpy.json",
        "open/MLCheckDemo/src/demo-mlp-99/README.md",
        "open/MLCheckDemo/systems/cpu-1x-numpy.json",
    ]
    assert pinned(dest / open_result) == pinned(src / RESULT)
    description = (dest / "open/MLCheckDemo/systems/cpu-1x-numpy.json").read_text()
    original = json.loads((src / SUBMISSION / "systems/cpu-1x-numpy.json").read_text())
    assert description == json.dumps({**original, "division": "open"}, indent=2)  # as json.dump writes it
    assert pinned(src) == before


def test_what_cannot_be_read_is_a_finding_and_never_followed(tmp_path: Path) -> None:
    """An accuracy log that is a FIFO cannot be hashed whole: a finding, and its result is not
    copied. A link out of SRC is never followed, a link inside it is (the upload holds no
    links), and a link to its own folder is a loop, not followed."""
    src = copy_of(EXAMPLE, tmp_path / "src")
    fifo = src / SINGLE / "accuracy/mlperf_log_accuracy.json"
    fifo.unlink()
    os.mkfifo(fifo)
    (tmp_path / "outside.txt").write_text("outside\n")
    code = src / SUBMISSION / "src/demo-mlp-99"
    (code / "out.txt").symlink_to(tmp_path / "outside.txt")
    (code / "in.md").symlink_to("README.md")
    (code / "loop").symlink_to("../demo-mlp-99")
    before = pinned(src)
    done = cli(str(src), "-o", str(tmp_path / "dest"), "--round", "demo-v6.1")
    assert done.exit_code == 1, done.output
    unreadable = (
        "FIL011 accuracy log is not a regular file or folder; the round's truncation reads it whole, so the "
        "result is not copied"
    )
    assert lines(done.stdout) == [
        f"removed        {OFFLINE}: its benchmark goes with {SINGLE}: {unreadable}",
        f"removed        {SINGLE}: {unreadable}",
        f"empty folder   {SUBMISSION}/results: left empty",
        f"empty folder   {SUBMISSION}/results/cpu-1x-numpy: left empty",
        f"error          FIL011 {SUBMISSION}/src/demo-mlp-99/loop: is a symlink to a folder that holds it (a loop); "
        "it was not followed",
        f"error          FIL006 {SUBMISSION}/src/demo-mlp-99/out.txt: file is a symlink that leaves the source "
        "folder; it was not copied",
        f"error          {unreadable.replace('FIL011 ', f'FIL011 {SINGLE}/accuracy/mlperf_log_accuracy.json: ')}",
        "prepare: 0 accuracy logs truncated, 2 results removed, 0 moved to open, 0 inferred, 2 empty folders "
        f"removed; 3 files could not be read; {tmp_path / 'dest'} holds no result (exit 1)",
    ]
    copied = tmp_path / "dest" / SUBMISSION / "src/demo-mlp-99"
    assert sorted(p.name for p in copied.iterdir()) == ["README.md", "in.md"]
    assert not (copied / "in.md").is_symlink() and (copied / "in.md").read_bytes() == (code / "README.md").read_bytes()
    assert pinned(src) == before


def test_an_endpoints_submission_is_left_as_the_round_leaves_it(tmp_path: Path) -> None:
    """Endpoints results have no loadgen accuracy log: nothing of them is truncated."""
    src = copy_of(ENDPOINTS, tmp_path / "src")
    prepared = prepare(str(src), str(tmp_path / "dest"), "v6.1", jobs=1)
    assert [c.action for c in prepared.changes if c.action in ("truncated", "hashed", "not truncated")] == []
    for path in src.rglob("*"):
        if path.is_file() and "results" in path.parts and (tmp_path / "dest" / path.relative_to(src)).exists():
            assert (tmp_path / "dest" / path.relative_to(src)).read_bytes() == path.read_bytes()


def test_dry_run_prints_the_change_list_and_writes_nothing(tmp_path: Path) -> None:
    src = _example_with_low_accuracy(tmp_path, OFFLINE)
    before = pinned(src)
    real = cli(str(src), "-o", str(tmp_path / "real"), "--round", "demo-v6.1")
    dry = cli(str(src), "-o", str(tmp_path / "dest"), "--round", "demo-v6.1", "--dry-run")
    assert dry.exit_code == real.exit_code == 0, dry.output
    assert lines(dry.stdout)[:-1] == lines(real.stdout)[:-1]
    assert lines(dry.stdout)[-1] == (
        "prepare --dry-run: 0 accuracy logs truncated, 1 result removed, 0 moved to open, 1 inferred, 0 empty "
        f"folders removed; nothing written; {tmp_path / 'dest'} would hold 2 results, 2 valid, 0 errors (exit 0)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real", "src"]  # no DEST, no stage left beside it
    assert pinned(src) == before


def test_strays_are_left_out_and_listed(tmp_path: Path) -> None:
    """The issue's strays (checker/strays.py, STR012): a `.DS_Store`, a backup of a system
    description and of a detail log, an untruncated second copy of an accuracy log and a second
    run folder are each left out of DEST and listed once (nothing inside run_2 again); the
    README beside a result is copied."""
    src = copy_of(EXAMPLE, tmp_path / "src")
    strays = {
        f"{SUBMISSION}/.DS_Store": "a macOS Finder file",
        f"{SUBMISSION}/systems/cpu-1x-numpy.json.bak": "a backup copy of cpu-1x-numpy.json",
        f"{OFFLINE}/accuracy/mlperf_log_accuracy (1).json": "a second copy of mlperf_log_accuracy.json",
        f"{OFFLINE}/performance/run_1/mlperf_log_detail.txt.bak": "a backup copy of mlperf_log_detail.txt",
        f"{OFFLINE}/performance/run_2": "a second run folder beside run_1, which is the only one the round reads",
        # known by its content, whatever its name and folder (attack on issue 32's item 1)
        f"{OFFLINE}/accuracy/accuracy_untruncated.json": "a second accuracy log of 704 KiB (the round truncates "
        "only accuracy/mlperf_log_accuracy.json)",
        f"{OFFLINE}/mlperf_log_accuracy.json.gz": "a second accuracy log of 5 KiB (the round truncates only "
        "accuracy/mlperf_log_accuracy.json)",
        f"{OFFLINE}/performance/run_1 (copy)": "a second copy of run_1",
        f"{SUBMISSION}/documentation/~$notes.docx": "an office application's lock file",
        f"{OFFLINE}/user.conf.rej": "the rejected hunks of a patch to user.conf",
    }
    full = (src / OFFLINE / "accuracy/mlperf_log_accuracy.json").read_bytes() * 100
    for rel in strays:
        if rel.endswith(("run_2", "(copy)")):
            shutil.copytree(src / OFFLINE / "performance/run_1", src / rel)
        elif rel.endswith(".gz"):
            (src / rel).write_bytes(gzip.compress(full, mtime=0))
        else:
            (src / rel).write_bytes(full if "accuracy" in rel else b"{}\n")
    (src / OFFLINE / "README.md").write_text("How this result was run.\n")
    before = pinned(src)
    dest = tmp_path / "dest"
    done = cli(str(src), "-o", str(dest), "--round", "demo-v6.1")
    assert done.exit_code == 0, done.output
    assert [line for line in lines(done.stdout) if line.startswith("left out")] == [
        f"left out       {rel}: {what}, not part of the submission" for rel, what in sorted(strays.items())
    ]
    for rel in strays:
        assert not (dest / rel).exists(), rel
    assert (dest / OFFLINE / "README.md").read_text() == "How this result was run.\n"
    assert max(path.stat().st_size for path in dest.rglob("mlperf_log_accuracy*")) <= 8199 < len(full)
    assert pinned(src) == before


# --- usage errors ----------------------------------------------------------------------------


def test_usage_errors(tmp_path: Path) -> None:
    src = copy_of(EXAMPLE, tmp_path / "src")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    (tmp_path / "file").write_text("x")
    (tmp_path / "nothing").mkdir()
    cases = {
        (
            str(src),
            "-o",
            str(src / "out"),
        ): f"-o {src / 'out'}: it is inside {src}; give a folder outside the submission",
        (str(src), "-o", str(src)): f"-o {src}: it is inside {src}; give a folder outside the submission",
        (
            str(src),
            "-o",
            str(tmp_path / "full"),
        ): f"-o {tmp_path / 'full'}: the folder is not empty; give a new or empty folder",
        (
            str(src),
            "-o",
            str(tmp_path / "file"),
        ): f"-o {tmp_path / 'file'}: it exists and is not a folder; give a new or empty folder",
        (
            str(src),
            "-o",
            str(tmp_path / "no" / "dest"),
        ): f"-o {tmp_path / 'no' / 'dest'}: the folder {tmp_path / 'no'} does not exist",
        (
            str(tmp_path / "nothing"),
            "-o",
            str(tmp_path / "d"),
        ): f"no results under {tmp_path / 'nothing'}: give the folder that holds closed/, open/ or network/",
        (str(tmp_path / "missing"), "-o", str(tmp_path / "d")): f"{tmp_path / 'missing'} is not a folder",
        (
            str(src),
            "-o",
            str(tmp_path / "d"),
            "--submitter",
            "Other",
        ): f"--submitter Other: {src} has no Other folder in closed, open, network",
        (
            str(src),
            "-o",
            str(tmp_path / "d"),
            "-f",
            "yaml",
        ): "--format yaml: unknown format; no close name; choose `text` or `json`",
    }
    before = pinned(tmp_path)
    for args, message in cases.items():
        done = cli(*args, "--round", "demo-v6.1")
        assert done.exit_code == 2, (args, done.output)
        assert " ".join(done.stderr.split()) == f"error: {message}", args
    assert pinned(tmp_path) == before


# --- interrupted: neither a stage nor half a DEST is left -----------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupted_prepare_leaves_nothing(tmp_path: Path, signum: int) -> None:
    src = copy_of(EXAMPLE, tmp_path / "src")
    with open(src / SINGLE / "accuracy/mlperf_log_accuracy.json", "r+b") as log:
        log.truncate(1 << 30)  # a full-size log, sparse: reading and hashing it takes a while
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "checker",
            "prepare",
            str(src),
            "-o",
            str(tmp_path / "dest"),
            "--round",
            "demo-v6.1",
            "-j",
            "1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not any(p.name.startswith(".dest.prepare-") for p in tmp_path.iterdir()):
        assert process.poll() is None and time.monotonic() < deadline, "prepare ended before it was interrupted"
        time.sleep(0.01)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


# --- the invariant, over corrupted copies of a real slice -----------------------------------

KRAI = ("closed/Krai", "open/Krai")
DAMAGE = ("keep", "remove", "performance", "accuracy", "full log", "no report")


def _damage(root: Path, location: str, how: str) -> None:
    """Corrupt a real result as a submitter's tree goes wrong."""
    result = root / location
    if how == "remove":
        shutil.rmtree(result)
    elif how == "performance":
        detail = result / "performance/run_1/mlperf_log_detail.txt"
        detail.write_bytes(detail.read_bytes()[: detail.stat().st_size // 2])
    elif how == "accuracy":
        report = result / "accuracy/accuracy.txt"
        report.write_bytes(re.sub(rb"\d+\.\d+", b"1.0", report.read_bytes(), count=1))
    elif how == "full log":  # an untruncated log: the real one with the detail log after it
        log = result / "accuracy/mlperf_log_accuracy.json"
        log.write_bytes(log.read_bytes() + (result / "accuracy/mlperf_log_detail.txt").read_bytes())
    elif how == "no report":
        (result / "accuracy/accuracy.txt").unlink()


@pytest.mark.real
@settings(max_examples=6, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(
    damage=st.lists(st.sampled_from(DAMAGE), min_size=6, max_size=6),
    move=st.booleans(),
    infer=st.booleans(),
)
def test_src_is_unchanged_and_dest_checks_as_reported(damage: list[str], move: bool, infer: bool) -> None:
    """For any results removed or corrupted in a copy of a real slice: SRC's digest is the same
    after prepare, and a check of DEST gives the verdict prepare reports."""
    real = real_data(REAL_ROOT / "v6.0")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        src = copy_of(real, work / "src", *KRAI)
        locations = sorted(
            str(p.relative_to(src)) for part in KRAI for p in (src / part / "results").glob("*/*/*") if p.is_dir()
        )
        assert len(locations) == 6
        for location, how in zip(locations, damage, strict=True):
            _damage(src, location, how)
        before = pinned(src)
        prepared = prepare(str(src), str(work / "dest"), "v6.0", move=move, infer=infer, jobs=1)
        assert pinned(src) == before
        report = run(work / "dest", "v6.0")
        if not report.results:
            assert prepared.check_exit == 2 and prepared.exit_code == 1
        else:
            verdict = 3 if any(f.code == "INT001" for f in report.findings) else int(report.has_errors)
            assert prepared.check_exit == verdict
            assert [(r.location, r.valid) for r in report.results] == [
                (r.location, r.valid) for r in prepared.report.results
            ]


# --- the real slices -------------------------------------------------------------------------


@pytest.mark.real
@pytest.mark.parametrize(
    "round_name, counts, results, exit_code",
    [
        # v5.1: 4 rgat Offline results miss their logs (MISSING.txt); 2 power results miss
        # ptd_logs.txt and keep their performance result; dlrm-v2-99 comes from dlrm-v2-99.9.
        ("v5.1", {"removed": 4, "power removed": 2, "inferred": 2, "empty folder": 11}, 135, 0),
        ("v6.0", {"removed": 1, "empty folder": 1}, 70, 0),
        # v6.1: both Endpoints results lack their README.md: nothing is left.
        ("v6.1", {"removed": 2, "empty folder": 3}, 0, 1),
    ],
)
@pytest.mark.full
def test_the_real_slices(tmp_path: Path, round_name: str, counts: dict, results: int, exit_code: int) -> None:
    real = real_data(REAL_ROOT / round_name)
    prepared = prepare(str(real), str(tmp_path / "dest"), round_name, jobs=2)
    assert {k: v for k, v in prepared.counts().items() if v} == counts
    assert (len(prepared.report.results), prepared.exit_code) == (results, exit_code)
    assert all(r.valid for r in prepared.report.results)
    if round_name == "v5.1":
        power = tmp_path / "dest/closed/Lenovo/results/SR780a_V3_B200SXMx8_TRT/llama3.1-405b/Offline/performance"
        assert sorted(p.name for p in power.iterdir()) == ["run_1"]
        assert not (power / "run_1/spl.txt").exists()
