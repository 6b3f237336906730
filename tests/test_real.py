"""The real published slices (v5.1, v6.0, v6.1 under MLPERF_CHECK_REAL, read-only): every published
result is valid, except those whose files MISSING.txt lists, and the table reproduces the
published rows of the valid ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from checker.commands.table import TableFormat, render, table_row, valid_rows
from checker.engine import Report
from helpers import REAL_ROOT, TABLES_ROOT, misplaced, real_data, real_report, run, tree_digest

pytestmark = pytest.mark.real

# Files loadgen may write but no round requires; a result that lacks only these stays valid.
OPTIONAL = ("mlperf_log_trace.json", "mlperf_log_accuracy.json.full", "vbench.log", "scores.json")


def _slice(round_name: str) -> Path:
    return real_data(REAL_ROOT / round_name)


def _missing_by_result(real: Path) -> dict[str, list[str]]:
    """MISSING.txt, grouped by the result folder each file belongs to (v5.1 keeps compliance
    and measurements beside results/, under the same <system>/<benchmark>/<scenario>)."""
    grouped: dict[str, list[str]] = {}
    for line in (real / "MISSING.txt").read_text().splitlines():
        parts = line.strip().split("/")
        if len(parts) < 7 or parts[2] not in ("results", "compliance", "measurements") or parts[-1] in OPTIONAL:
            continue
        location = "/".join(parts[:2] + ["results"] + parts[3:6])
        grouped.setdefault(location, []).append(line.strip())
    return grouped


def _published(real: Path, round_name: str) -> list[dict]:
    path = real / "summary_results.json"
    if path.is_file():
        return json.loads(path.read_text())
    table = json.loads(real_data(TABLES_ROOT / "v6.1" / "summary.json").read_text())
    submitters = {p.name for division in real.iterdir() if division.is_dir() for p in division.iterdir()}
    return [row for row in table.values() if row["Organization"] in submitters]


def _location(row: dict) -> str:
    """The scenario folder of a published row, whatever the round's Location format."""
    return row["Location"].removeprefix("./").removesuffix("/performance/run_1")


# The published results that cannot be valid here, each because a file MISSING.txt lists is
# absent, with the finding that names the file.
INVALID = {  # location -> the codes of its errors
    "v5.1": {
        "closed/Intel/results/1-node-2S-GNR_128C/rgat/Offline": "FIL001",  # detail logs over 4 MiB
        "closed/Lenovo/results/SR780a_V3_B200SXMx8_TRT/llama3.1-405b/Offline": "PWR001",  # ptd_logs.txt
        "closed/Lenovo/results/SR780a_V3_B200SXMx8_TRT/llama3.1-405b/Server": "PWR001",
        "closed/Lenovo/results/SR780a_V3_B200SXMx8_TRT/rgat/Offline": "FIL001 PWR001",  # and ranging/
        "closed/Lenovo/results/ThinkSystem_SR650_V4_GNR_86C/rgat/Offline": "FIL001",
        "closed/NVIDIA/results/B200-SXM-180GBx8_TRT/rgat/Offline": "FIL001",
    },
    "v6.0": {
        "closed/Lenovo/results/1-node-2S-GNR_86C/rgat/Offline": "FIL001",  # detail logs over 4 MiB
    },
    "v6.1": {
        # The published folders hold a README.md that could not be had.
        "closed/Atlas_Inference/results/DGX_Spark_GB10/qwen3.6-27b/SingleStream": "MSR001",
        "closed/Atlas_Inference/results/Strix_Halo/qwen3.6-27b/SingleStream": "MSR001",
    },
}
COUNTS = {"v5.1": 137, "v6.0": 71, "v6.1": 2}

# Published results with a real defect that the round accepted, and the warnings that say so.
ACCEPTED = {
    "v5.1": {
        # accuracy/mlperf_log_detail.txt is a TEST01 performance-mode run that read audit.config.
        "closed/AMD/results/8xMI325X_2xEPYC_9575F_2/llama2-70b-99.9/Offline": {"ACC007"},
        "closed/AMD/results/8xMI325X_2xEPYC_9575F_2/llama2-70b-99/Offline": {"ACC007"},
        "closed/Lenovo/results/ThinkSystem_SR650_V4_GNR_86C/retinanet/Offline": {"ACC007"},
        "closed/Lenovo/results/ThinkSystem_SR650_V4_GNR_86C/retinanet/Server": {"ACC007"},
    },
    "v6.0": {
        # TEST01 holds resnet50 logs; verify_performance.txt made from them says TEST PASS.
        "closed/Lenovo/results/SE455I_V3_TRT/3d-unet-99/Offline": {"CMP005"},
        "closed/Lenovo/results/SE455I_V3_TRT/3d-unet-99.9/Offline": {"CMP005"},
        # The TEST07 run's harness passed seeds 0; the round judged TEST07 by its verify file.
        "closed/RedHat/results/8xB200-LLM-D-Openshift/gpt-oss-120b/Offline": {"RNG001"},
        # An open TEST04 run logged "Multiple conf files are used" (compliance is optional there).
        "open/AMD/results/8xMI355X_2xEPYC_9597F/wan-2.2-t2v-a14b/SingleStream": {"PRF012"},
    },
    "v6.1": {},
}


def _report(round_name: str) -> Report:
    return real_report(round_name)


@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
@pytest.mark.full
def test_every_published_result_is_found(round_name: str) -> None:
    real = _slice(round_name)
    published = {_location(row) for row in _published(real, round_name)}
    found = {r.location for r in _report(round_name).results}
    assert published <= found
    assert len(found) == COUNTS[round_name]


@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
@pytest.mark.full
def test_published_results_are_valid_unless_their_files_are_missing(round_name: str) -> None:
    real, report = _slice(round_name), _report(round_name)
    missing = _missing_by_result(real)
    invalid = {r.location: r for r in report.results if not r.valid}
    assert sorted(invalid) == sorted(INVALID[round_name])
    for location, code in INVALID[round_name].items():
        errors = [f for f in report.findings if f.location == location and f.severity.value == "error"]
        # Every error on it names a file MISSING.txt lists, or sits in a folder it lists.
        assert {f.code for f in errors} == set(code.split()), (location, [(f.code, f.path) for f in errors])
        assert all(
            f.path in missing[location] or any(m.startswith(f.path + "/") for m in missing[location]) for f in errors
        ), location
    for result in report.results:
        if result.location not in invalid:
            errors = [f for f in report.applying().of(result) if f.severity.value == "error"]
            assert not errors, (result.location, [(f.code, f.message) for f in errors])


@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
@pytest.mark.full
def test_defects_the_round_accepted_are_warnings(round_name: str) -> None:
    report = _report(round_name)
    for location, codes in ACCEPTED[round_name].items():
        result = next(r for r in report.results if r.location == location)
        warned = {f.code for f in report.findings if f.location == location and f.severity.value == "warning"}
        assert warned == codes and result.valid, location


@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
@pytest.mark.full
def test_the_table_of_the_valid_results_is_the_published_table(round_name: str) -> None:
    """The rows `table` writes (valid results only) are the published rows, field for field,
    less those of the results MISSING.txt makes invalid."""
    real, report = _slice(round_name), _report(round_name)
    fmt = TableFormat.of(report.round)
    built = {_location(row): row for row in render(valid_rows(report), fmt)}
    published = {
        _location(row): row for row in _published(real, round_name) if _location(row) not in INVALID[round_name]
    }
    assert sorted(built) == sorted(published)
    skip = {"ID", "Details", "Code", "ColorKey", "framework", "operating_system", "notes", "PrivateID"}
    for location, row in published.items():
        mine = {k: v for k, v in built[location].items() if k not in skip}
        theirs = {k: v for k, v in row.items() if k not in skip}
        assert mine == theirs, location
        assert [type(v) for v in mine.values()] == [type(theirs[k]) for k in mine], location


@pytest.mark.slow
@pytest.mark.full
def test_cli_subprocess_on_the_real_slice(tmp_path: Path) -> None:
    real = _slice("v5.1")
    before = tree_digest(real)
    out = tmp_path / "real.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "checker.cli",
            "check",
            str(real),
            "--round",
            "v5.1",
            "-f",
            "json",
            "-o",
            str(out),
            "-j",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1  # the six results with missing files
    summary = json.loads(out.read_text())["summary"]
    assert (summary["results"], summary["valid"], summary["invalid"]) == (137, 131, 6)
    assert tree_digest(real) == before


# --- the whole published tables: what other submitters of these rounds passed -------------

WHOLE = {"v5.1": "v5.1/summary_results.json", "v6.0": "v6.0/summary_results.json", "v6.1": "v6.1/summary.json"}


def _whole(round_name: str) -> list[dict]:
    from checker.analysis.reader import load_table

    return load_table(str(real_data(TABLES_ROOT / WHOLE[round_name])))


def _printed(accuracy: str) -> dict[str, float]:
    """`KEY: value  KEY2: value2` of a published Accuracy cell (the values the checker matched)."""
    pairs = [part.split(": ", 1) for part in accuracy.split("  ") if ": " in part]
    return {key.strip(): float(value) for key, value in pairs}


@pytest.mark.parametrize("round_name, rows, gated", [("v5.1", 1448, 609), ("v6.0", 520, 504), ("v6.1", 492, 402)])
def test_every_published_accuracy_meets_the_bounds_the_round_applied(round_name: str, rows: int, gated: int) -> None:
    """No published closed result misses an applied accuracy bound of the round file (else
    ACC002 would reject what the round accepted); the written policy's bounds may warn."""
    from checker.rounds import load_round

    round = load_round(round_name)
    table = _whole(round_name)
    assert len(table) == rows
    checked, misses = 0, []
    for row in table:
        model = round.canonical_model(row["UsedModel"])
        printed = _printed(row.get("Accuracy") or "")
        if row["Category"] not in round.accuracy_divisions or model is None or not printed:
            continue
        for gate in round.gates(model, round.scenario_name(row["Scenario"]) or row["Scenario"]):
            value = printed.get(gate.metric)
            if value is None:
                continue  # an Endpoints result prints its own score names
            low, high = gate.lower_bound, gate.upper_bound
            if (low is not None and value < low) or (high is not None and value > high):
                misses.append((row["Location"], gate.metric, value))
        checked += 1
    assert (checked, misses) == (gated, [])


@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
def test_every_published_name_maps_to_its_published_model(round_name: str) -> None:
    """The round's name lookup (exact, mapping, guesses) gives the published Model for every
    published row, except open-division names that only a submitter's model_mapping.json maps."""
    from checker.rounds import load_round

    round = load_round(round_name)
    labels = round.table.model_labels if round.table else {}
    unmapped = set()
    for row in _whole(round_name):
        model = round.canonical_model(row["UsedModel"])
        if model is None:
            assert row["Category"] == "open", row["Location"]
            unmapped.add(row["UsedModel"])
            continue
        assert labels.get(model, model) == row["Model"] or model == row["Model"], row["Location"]
    assert (
        unmapped
        == {
            "v5.1": {
                "llama3_1-70b-fp8_dyn",
                "llama3_1-70b-fp8_pre",
                "llama3_1-70b-fp8_trtllm",
                "llama3_1-405b_finetuned",
                "llama3_1-405b_pruned",
                "llama2-70b-fp8_quark",
            },
            "v6.0": {"llama3_1-70b-fp8_dyn"},
            "v6.1": set(),
        }[round_name]
    )


@pytest.mark.parametrize("round_name, systems", [("v5.1", 291), ("v6.0", 240), ("v6.1", 234)])
def test_every_published_system_has_the_scenarios_the_round_requires(round_name: str, systems: int) -> None:
    from checker.rounds import load_round

    round = load_round(round_name)
    scenarios: dict[tuple, set] = {}
    suites: dict[tuple, str] = {}
    for row in _whole(round_name):
        if row["Category"] not in round.compliance_divisions:
            continue
        key = (row["Submitter"], row["Platform"], round.canonical_model(row["UsedModel"]))
        scenarios.setdefault(key, set()).add(round.scenario_name(row["Scenario"]))
        suites[key] = row["Suite"].replace(" ", "")
    assert len(scenarios) == systems
    for key, present in scenarios.items():
        rules = round.scenario_rules(key[2], suites[key])
        assert rules is not None, key
        assert all(s in present for s in rules.required), (key, present)
        assert not rules.one_of or present & set(rules.one_of), (key, present)


def test_the_v61_rows_once_the_files_missing_txt_lists_are_there(tmp_path: Path) -> None:
    """The two published v6.1 results lack only their README.md (MISSING.txt); with one in
    place they are valid and `table` writes the two published rows, field for field."""
    import shutil

    real = _slice("v6.1")
    root = tmp_path / "v6.1"
    shutil.copytree(real, root)
    for line in (real / "MISSING.txt").read_text().splitlines():
        if line.strip().endswith("README.md"):
            (root / line.strip()).write_text("How to run.\n")
    report = run(root, "v6.1", jobs=1, collect=table_row)
    assert [r.valid for r in report.results] == [True, True]
    fmt = TableFormat.of(report.round)
    built = {_location(row): row for row in render(valid_rows(report), fmt)}
    published = {_location(row): row for row in _published(real, "v6.1")}
    assert sorted(built) == sorted(published) and len(built) == 2
    for location, row in published.items():
        assert {k: v for k, v in built[location].items() if k in row} == row, location


def test_inference_is_allowed_where_each_round_allowed_it() -> None:
    from checker.rounds import load_round

    v51, v60 = load_round("v5.1"), load_round("v6.0")
    # v5.1's checker lets any system infer; its rules say edge only (a warning).
    assert [v51.inference_allowed(t) for t in ("edge", "datacenter", "datacenter,edge")] == [True, True, True]
    assert [v51.inference_allowed(t, policy=True) for t in ("edge", "datacenter", "datacenter,edge")] == [
        True,
        False,
        False,
    ]
    # v6.x: "edge" in the system type.
    assert [v60.inference_allowed(t) for t in ("edge", "datacenter", "datacenter,edge", "edge,datacenter")] == [
        True,
        False,
        True,
        True,
    ]


@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
@pytest.mark.full
def test_every_finding_placed_is_at_what_it_names(round_name: str) -> None:
    """On real submissions too, a finding's line and column are the record its log's parser
    read, the member, key or line its pointer names (helpers.misplaced)."""
    report = _report(round_name)
    placed = [f for f in report.findings if f.line is not None]
    assert [(f.code, f.path, f.pointer, why) for f in placed if (why := misplaced(report.root, f))] == []
    assert len(placed) == PLACED[round_name]


# Findings with a line: every one with a pointer (PRF017: 22 of v5.1, 16 of v6.0, 6 and 2 of them
# in mlperf.conf; FIL020: 2 of v5.1 and 1 of v6.0, each a measurements file that gives
# `weight_transformations` twice).
PLACED = {"v5.1": 34, "v6.0": 27, "v6.1": 0}
