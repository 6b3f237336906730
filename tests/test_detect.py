"""Which round a tree is, without --round: seeds first, then the layout, else the newest round."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.detect import HEAD_BYTES, Evidence, ResultEvidence, decide, detect, detect_result, read_head
from checker.facts import LoadgenVersions, VersionRange
from checker.rounds import is_profile, load_round, real_rounds
from helpers import ENDPOINTS, EXAMPLE, OFFLINE, REAL, SINGLE, copy_real_result, real_data, set_mllog, tree_digest

runner = CliRunner()
SHARED = REAL.parent
HINT = "demo-mlp-99 is a benchmark of the profile demo-v6.1 only: give --round demo-v6.1 to use it"
V51_SEEDS = load_round("v5.1").seeds.named()
SEED_KEYS = ("qsl_rng_seed", "sample_index_rng_seed", "schedule_rng_seed")
V51_RESULT = "closed/Lenovo/results/SE100_RTX2000E_Ada_16GBx1_TRT/3d-unet-99/Offline"
V60_RESULT = "closed/Krai/results/h200_n1-kissv/wan-2.2-t2v-a14b/offline"
LAYOUT = "the layout (src/ in 1 of 1 submitter folder) fits v6.0, v6.1"
EXAMPLE_LINE = (
    f"round v6.1 (detected: the seeds of 2 of 2 results are v6.1's; {LAYOUT}; loadgen 6.0.x in 2, builds of v6.1; "
    f"{HINT})"
)
ENDPOINTS_LINE = (
    "round v6.1 (detected: the seeds of 2 of 2 results are v6.1's (2 of them in Endpoints config.yaml); the layout "
    "(src/ in 1 of 1 submitter folder; 2 Endpoints results) fits v6.1)"
)


def _shared(name: str) -> Path:
    return real_data(SHARED / name)


def _perf_log(root: Path, location: str) -> Path:
    return root / location / "performance" / "run_1" / "mlperf_log_detail.txt"


def _set_seeds(log: Path, seeds: dict[str, int]) -> None:
    for name in SEED_KEYS:
        set_mllog(log, f"effective_{name}", seeds[name])


# --- round files ---------------------------------------------------------------------------
def test_profiles_are_not_real_rounds() -> None:
    assert real_rounds() == ["v5.1", "v6.0", "v6.1"]
    assert is_profile("demo-v6.1") and not is_profile("v6.1")
    assert load_round("demo-v6.1").is_profile and not load_round("v5.1").is_profile


def test_real_rounds_have_distinct_seeds() -> None:
    """detect relies on it: a result's seeds name at most one real round."""
    seeds = [tuple(sorted(load_round(name).seeds.named().items())) for name in real_rounds()]
    assert len(set(seeds)) == len(seeds)


# --- the real published trees --------------------------------------------------------------
@pytest.mark.real
@pytest.mark.full
def test_real_v51_is_v51() -> None:
    found = detect(str(_shared("v5.1")))
    # The four without seeds are the rgat results whose main log MISSING.txt lists (4 MiB or
    # more); builds of loadgen 4.1 and 5.0 ran with the v5.1 seeds: the round file's loadgen_versions
    # lists them.
    assert found.line == (
        "round v5.1 (detected: the seeds of 133 of 137 results are v5.1's; 4 have no readable seeds; the layout "
        "(code/, compliance/, measurements/ in 9 of 9 submitter folders) fits v5.1; loadgen 5.1.x in 74, 5.0.x in "
        "53, 4.1.x in 6, builds of v5.1)"
    )


@pytest.mark.real
@pytest.mark.full
def test_real_v60_is_v60() -> None:
    found = detect(str(_shared("v6.0")))
    assert found.line == (
        "round v6.0 (detected: the seeds of 70 of 71 results are v6.0's; 1 has no readable seeds; the layout (src/ "
        "in 7 of 7 submitter folders) fits v6.0, v6.1; loadgen 6.0.x in 70, builds of v6.0)"
    )


@pytest.mark.real
def test_real_v61_endpoints_results_are_v61() -> None:
    found = detect(str(_shared("v6.1")))
    assert found.line == ENDPOINTS_LINE


@pytest.mark.real
@pytest.mark.full
def test_a_tree_mixing_v51_and_v60_names_both(tmp_path: Path) -> None:
    _shared("v5.1")
    v60 = _shared("v6.0")
    copy_real_result(tmp_path, V51_RESULT)
    division, submitter, _, system, _, _ = V60_RESULT.split("/")
    shutil.copytree(v60 / V60_RESULT, tmp_path / V60_RESULT)
    (tmp_path / division / submitter / "systems").mkdir(parents=True)
    shutil.copyfile(
        v60 / division / submitter / "systems" / f"{system}.json",
        tmp_path / division / submitter / "systems" / f"{system}.json",
    )
    message = (
        f"the tree mixes rounds: v5.1 (1 result, e.g. {V51_RESULT}), v6.0 (1 result, e.g. {V60_RESULT}); give --round"
    )
    found = detect(str(tmp_path))
    assert (found.round, found.reason, found.line) == (None, message, message)

    done = runner.invoke(app, ["check", str(tmp_path), "-f", "json", "-j", "1"])
    assert done.exit_code == 2
    assert done.stdout == ""
    assert " ".join(done.stderr.split()) == f"error: {message}"
    done = runner.invoke(app, ["check", str(tmp_path), "--round", "v5.1", "-f", "json", "-j", "1"])
    assert done.exit_code == 1 and json.loads(done.stdout)["round"] == "v5.1"  # --round still decides


@pytest.mark.real
@pytest.mark.full
def test_check_real_v51_without_round() -> None:
    real = _shared("v5.1")
    done = runner.invoke(app, ["check", str(real), "-f", "json", "-j", "2"])
    assert done.exit_code == 1
    data = json.loads(done.stdout)  # the detection line is not on stdout
    assert data["round"] == "v5.1"
    assert (data["summary"]["valid"], data["summary"]["results"]) == (131, 137)
    assert done.stderr.splitlines()[0] == (
        "round v5.1 (detected: the seeds of 133 of 137 results are v5.1's; 4 have no readable seeds; the layout "
        "(code/, compliance/, measurements/ in 9 of 9 submitter folders) fits v5.1; loadgen 5.1.x in 74, 5.0.x in "
        "53, 4.1.x in 6, builds of v5.1)"
    )


@pytest.mark.real
@pytest.mark.full
def test_v51_layout_without_logs(tmp_path: Path) -> None:
    _shared("v5.1")
    copy_real_result(tmp_path, V51_RESULT)
    _perf_log(tmp_path, V51_RESULT).unlink()
    assert detect(str(tmp_path)).line == (
        "round v5.1 (detected from the layout, weaker evidence than seeds: the layout (code/, compliance/, "
        "measurements/ in 1 of 1 submitter folder) fits v5.1; no result carries a round's seeds: "
        "1 has no readable seeds)"
    )


# v4.1's seeds: loadgen/mlperf.conf at a536cd2b ("Update for v4.1: Add new seeds", 2024-06-20),
# whose loadgen logged its version as "4.0 @ <rev>" (version_generator.py there).
V41_SEEDS = {
    "qsl_rng_seed": 3066443479025735752,
    "sample_index_rng_seed": 10688027786191513374,
    "schedule_rng_seed": 14962580496156340209,
}


def _every_log(root: Path, seeds: dict[str, int], version: str | None = None) -> int:
    """Give every loadgen detail log under root (main, compliance and accuracy runs) these
    seeds, and this loadgen_version when given, as an old or another round's loadgen writes
    them; how many logs."""
    logs = sorted(root.rglob("mlperf_log_detail.txt"))
    for log in logs:
        _set_seeds(log, seeds)
        if version is not None:
            set_mllog(log, "loadgen_version", version)
    return len(logs)


@pytest.mark.real
def test_a_v60_tree_with_v51_seeds_is_v60_with_rng001_on_each_log(tmp_path: Path) -> None:
    """Issue 21: real v6.0 results whose logs all carry the v5.1 seeds (an old loadgen) are
    detected as v6.0, which their layout and loadgen builds fit. The seeds are the finding
    (RNG001 on every main and compliance performance log), and the layout is not: no STR001,
    STR005 or STR006 error, as v5.1 would give."""
    v60 = _shared("v6.0")
    for folder in ("closed/Krai", "open/Krai"):
        shutil.copytree(v60 / folder, tmp_path / folder, symlinks=True)
    assert _every_log(tmp_path, V51_SEEDS) == 14
    done = runner.invoke(app, ["check", str(tmp_path), "-f", "json", "-j", "1"])
    assert done.exit_code == 1
    assert done.stderr.splitlines()[0] == (
        "round v6.0 (detected from the layout and the loadgen builds, over the seeds: the layout (src/ in 2 of 2 "
        "submitter folders) fits v6.0, v6.1; loadgen 6.0.x in 6, builds of v6.0; the seeds of 6 of 6 results are "
        "v5.1's, which the layout does not fit: RNG001 reports them)"
    )
    report = json.loads(done.stdout)
    assert report["round"] == "v6.0"
    closed = "closed/Krai/results/h200_n1-kissv/wan-2.2-t2v-a14b"
    runs = [f"{closed}/{s}/{run}" for s in ("offline", "singlestream") for run in ("performance", "TEST04/performance")]
    runs += [f"{r['location']}/performance" for r in report["results"] if r["division"] == "open"]
    assert sorted(f["path"] for f in report["findings"] if f["severity"] == "error") == sorted(
        f"{run}/run_1/mlperf_log_detail.txt" for run in runs
    )
    assert {f["code"] for f in report["findings"] if f["severity"] == "error"} == {"RNG001"}
    assert [(f["code"], f["severity"]) for f in report["findings"] if f["code"].startswith("STR")] == [
        ("STR006", "warning")  # as in the published slice: closed/Krai has no calibration document
    ]
    assert report["summary"]["results"] == 6 and report["summary"]["valid"] == 0


@pytest.mark.real
def test_a_v41_tree_is_a_usage_error_naming_the_known_rounds(tmp_path: Path) -> None:
    """Issue 21: a round this version does not know (v4.1: the v5.1 layout, v4.1's seeds, a
    loadgen 4.0 build) is never checked as the round its layout resembles."""
    real = _shared("v5.1")
    for folder in ("closed/RedHat", "closed/The_Stage"):
        shutil.copytree(real / folder, tmp_path / folder, symlinks=True)
    assert _every_log(tmp_path, V41_SEEDS, "4.0 @ a536cd2be1") == 16
    before = tree_digest(tmp_path)
    message = (
        "the tree fits no round this version knows (v5.1, v6.0, v6.1): 6 of 6 results carry seeds of no known "
        "round (e.g. closed/RedHat/results/IBM_Cloud_gx3-48x240x2l40s_vLLM/llama3.1-8b/Offline); the layout (code/, "
        "compliance/, measurements/ in 2 of 2 submitter folders) fits v5.1; loadgen 4.0.x in 6, builds of no round "
        "this version knows. Give its round file with --round path/to/round.yaml (mlperf-check rounds lists the "
        "known rounds)"
    )
    for command in (["check", str(tmp_path)], ["table", str(tmp_path)]):
        done = runner.invoke(app, command)
        assert (done.exit_code, done.stdout, " ".join(done.stderr.split())) == (2, "", f"error: {message}"), command
    assert tree_digest(tmp_path) == before
    done = runner.invoke(app, ["check", str(tmp_path), "--round", "v5.1", "-f", "json", "-j", "1"])
    assert done.exit_code == 1 and json.loads(done.stdout)["round"] == "v5.1"  # --round still decides


def test_seeds_of_no_known_round_are_a_usage_error(example: Path) -> None:
    _every_log(example, dict.fromkeys(SEED_KEYS, 7))
    done = runner.invoke(app, ["check", str(example)])
    assert done.exit_code == 2
    assert " ".join(done.stderr.split()) == (
        "error: the tree fits no round this version knows (v5.1, v6.0, v6.1): 2 of 2 results carry seeds of no "
        f"known round (e.g. {OFFLINE}); {LAYOUT}; loadgen 6.0.x in 2, builds of v6.1. Give its round file with "
        "--round path/to/round.yaml (mlperf-check rounds lists the known rounds)"
    )


def test_the_loadgen_builds_of_a_round_come_from_its_file() -> None:
    """decide() reads which builds ran a round from the round files: with v6.1's file also
    listing 6.0.10, a v6.x tree with v5.1 seeds built with 6.0.10 fits v6.0 and v6.1."""
    rounds = [load_round(name) for name in real_rounds()]
    result = ResultEvidence(
        "closed/X/results/s/llama2-70b-99/Offline",
        "llama2-70b-99",
        "loadgen",
        {f"effective_{k}": v for k, v in V51_SEEDS.items()},
        "6.0.x",
        (6, 0, 10),
    )
    evidence = Evidence([result], {"closed/X": frozenset({"results", "src", "systems"})})
    assert decide(evidence, rounds).round == "v6.0"
    v61 = rounds[-1]
    ranges = LoadgenVersions(source="a test", ranges=(VersionRange(from_="6.0.0", to="6.0.17"),))
    widened = decide(evidence, rounds[:-1] + [dataclasses.replace(v61, loadgen_versions=ranges)])
    assert (widened.round, widened.reason.endswith("give --round (v6.0 or v6.1)")) == (None, True)


# --- the bundled examples -------------------------------------------------------------------
def test_demo_example_is_the_real_round_v61() -> None:
    """The example carries the v6.1 seeds; demo-v6.1 is a profile of v6.1 that relaxes its run
    lengths, so it is never chosen without --round, but the reason points at it."""
    assert detect(str(EXAMPLE)).line == EXAMPLE_LINE


def test_endpoints_example_is_v61() -> None:
    assert detect(str(ENDPOINTS)).line == ENDPOINTS_LINE


def test_detection_writes_nothing(example: Path) -> None:
    before = tree_digest(example)
    detect(str(example))
    detect_result(str(example / OFFLINE))
    assert tree_digest(example) == before


def test_only_main_performance_logs_count(example: Path) -> None:
    """Compliance and accuracy runs may carry other seeds; they are not evidence."""
    for location in (OFFLINE, SINGLE):
        _set_seeds(example / location / "TEST01" / "performance" / "run_1" / "mlperf_log_detail.txt", V51_SEEDS)
        _set_seeds(example / location / "accuracy" / "mlperf_log_detail.txt", V51_SEEDS)
    assert detect(str(example)).line == EXAMPLE_LINE


def test_seeds_of_no_round_are_ignored_but_counted(example: Path) -> None:
    _set_seeds(_perf_log(example, SINGLE), dict.fromkeys(SEED_KEYS, 0))
    assert detect(str(example)).line == (
        "round v6.1 (detected: the seeds of 1 of 2 results are v6.1's; 1 carries seeds of no known round "
        f"(ignored, e.g. {SINGLE}); {LAYOUT}; loadgen 6.0.x in 2, builds of v6.1; {HINT})"
    )


def test_two_rounds_of_seeds_is_a_usage_error(example: Path) -> None:
    _set_seeds(_perf_log(example, SINGLE), V51_SEEDS)
    message = f"the tree mixes rounds: v5.1 (1 result, e.g. {SINGLE}), v6.1 (1 result, e.g. {OFFLINE}); give --round"
    assert detect(str(example)).reason == message
    for command in (
        ["check", str(example)],
        ["table", str(example)],
        ["provenance", str(example)],
        ["compare", str(example)],
        ["followup", "--previous", str(example), "--current", str(EXAMPLE)],
    ):
        done = runner.invoke(app, command)
        assert done.exit_code == 2, command
        prefix = {"compare": f"{example}: ", "followup": "--previous: "}.get(command[0], "")
        assert " ".join(done.stderr.split()) == f"error: {prefix}{message}", command


def test_layout_and_loadgen_decide_over_seeds_they_contradict(example: Path) -> None:
    """v5.1 seeds in a v6.x layout, run with loadgen 6.0.17 (a build of v6.1 by the round
    files): the round the layout and the build fit, and the seeds are what is wrong."""
    for location in (OFFLINE, SINGLE):
        _set_seeds(_perf_log(example, location), V51_SEEDS)
    assert detect(str(example)).line == (
        f"round v6.1 (detected from the layout and the loadgen builds, over the seeds: {LAYOUT}; loadgen 6.0.x in "
        "2, builds of v6.1; the seeds of 2 of 2 results are v5.1's, which the layout does not fit: RNG001 reports "
        f"them; {HINT})"
    )


def test_seeds_the_layout_does_not_fit_and_no_build_decides_is_a_usage_error(example: Path) -> None:
    """Without a loadgen version, v5.1 seeds in a v6.x layout leave v6.0 and v6.1: the user chooses."""
    for location in (OFFLINE, SINGLE):
        _set_seeds(_perf_log(example, location), V51_SEEDS)
        set_mllog(_perf_log(example, location), "loadgen_version", "custom build")
    message = f"the evidence disagrees: the seeds of 2 of 2 results are v5.1's; {LAYOUT}; give --round (v6.0 or v6.1)"
    assert (detect(str(example)).round, detect(str(example)).reason) == (None, message)
    done = runner.invoke(app, ["check", str(example)])
    assert (done.exit_code, " ".join(done.stderr.split())) == (2, f"error: {message}")


def test_layout_decides_without_seeds(example: Path) -> None:
    for location in (OFFLINE, SINGLE):
        _perf_log(example, location).unlink()
    assert detect(str(example)).line == (
        f"round v6.1 (detected from the layout, weaker evidence than seeds: {LAYOUT}; v6.1, the newest of v6.0, "
        f"v6.1, is used; no result carries a round's seeds: 2 have no readable seeds; {HINT})"
    )


def test_the_head_of_a_log_gives_its_seeds_and_loadgen_version() -> None:
    keys = frozenset({"loadgen_version", "effective_qsl_rng_seed", "effective_schedule_rng_seed", "no_such_key"})
    assert read_head(str(_perf_log(EXAMPLE, OFFLINE)), keys) == {
        "loadgen_version": "6.0.17 @ d6147c7eb7",
        "effective_qsl_rng_seed": 2085463073848966840,
        "effective_schedule_rng_seed": 16159082839903944936,
    }


def test_unreadable_logs_are_no_evidence(example: Path) -> None:
    """A FIFO is never opened, garbage and a folder give nothing, and seeds after the head
    are not looked for: each is no evidence, and nothing stops the others."""
    offline, single = _perf_log(example, OFFLINE), _perf_log(example, SINGLE)
    lines = offline.read_text().splitlines(keepends=True)
    filler = lines[0] * (HEAD_BYTES // len(lines[0]) + 1)  # the seeds now lie past the head
    offline.write_text(filler + "".join(lines))
    single.unlink()
    os.mkfifo(single)
    assert detect(str(example)).line == (
        f"round v6.1 (detected from the layout and the loadgen builds, weaker evidence than seeds: {LAYOUT}; "
        "loadgen 6.0.x in 1, builds of v6.1; no result carries a round's seeds: 2 have no readable seeds; "
        f"{HINT})"
    )
    single.unlink()
    single.write_bytes(b'\x00\xff:::MLLOG {"key": "effective_qsl_rng_seed", "value": \n' * 3)
    offline.unlink()
    offline.mkdir()
    found = detect(str(example))
    assert found.round == "v6.1" and "2 have no readable seeds" in found.reason


def test_tree_without_results_falls_back_to_the_newest_round(tmp_path: Path) -> None:
    assert detect(str(tmp_path)).line == (
        "round v6.1 (not detected: no results found; the layout fits no round; the newest round is used)"
    )
    (tmp_path / "closed" / "Acme" / "results" / "sys" / "resnet" / "Offline").mkdir(parents=True)
    assert detect(str(tmp_path)).line == (
        "round v6.1 (not detected: no result carries a round's seeds: 1 has no readable seeds; the layout fits no "
        "round; the newest round is used)"
    )


def test_submitter_folders_laid_out_for_different_rounds_are_a_usage_error(example: Path) -> None:
    """Without seeds, one folder laid out for v5.1 and one for v6.x: no round fits the tree."""
    for location in (OFFLINE, SINGLE):
        _perf_log(example, location).unlink()
    shutil.copytree(example / "closed" / "MLCheckDemo", example / "closed" / "Other")
    shutil.move(example / "closed" / "Other" / "src", example / "closed" / "Other" / "code")
    message = (
        "the layout fits no single round (code/, src/ in 2 of 2 submitter folders); no result carries a round's "
        "seeds: 4 have no readable seeds; give --round"
    )
    assert (detect(str(example)).round, detect(str(example)).line) == (None, message)
    done = runner.invoke(app, ["check", str(example)])
    assert (done.exit_code, " ".join(done.stderr.split())) == (2, f"error: {message}")


# --- the command line -----------------------------------------------------------------------
def test_explicit_round_prints_no_detection() -> None:
    done = runner.invoke(app, ["check", str(EXAMPLE), "--round", "demo-v6.1", "-f", "json", "-j", "1"])
    assert done.exit_code == 0
    assert json.loads(done.stdout)["round"] == "demo-v6.1"
    assert "detected" not in done.stderr


def test_csv_stdout_stays_clean() -> None:
    done = runner.invoke(app, ["check", str(EXAMPLE), "-f", "csv", "-j", "1"])
    assert done.exit_code == 1
    assert done.stdout.splitlines()[0].startswith("location,valid,code,name,severity,path")
    assert done.stderr.splitlines()[0] == EXAMPLE_LINE


def test_reproduce_detects_from_the_original() -> None:
    done = runner.invoke(app, ["reproduce", str(EXAMPLE / OFFLINE), str(EXAMPLE / OFFLINE), "-f", "json"])
    assert done.stderr.splitlines()[0] == (
        f"round v6.1 (detected: the seeds of 1 of 1 results are v6.1's; {LAYOUT}; loadgen 6.0.x in 1, builds of "
        f"v6.1; {HINT})"
    )
    assert json.loads(done.stdout)["original"] == OFFLINE
