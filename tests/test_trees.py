"""Trees (issue 22): one result per folder, as the round names it, and what a finding affects.

- Folders beside each other whose names differ only in case are STR011; of them, only the one
  the round names is a result (model.clashes, the one judgement discovery and the rule share),
  so the table never has two rows for one folder.
- A finding's "affects N results" is the number of results it applies to (findings.Applying,
  the rule that judges them): a finding on a path concerns the result it is part of, and an
  empty folder none, or the one it would have been.
- Round facts: MultiStream energy per query of a result inferred from SingleStream (the
  published number), and the scenarios a round defines for a benchmark."""

from __future__ import annotations

import copy
import io
import re
import shutil
import tarfile
from pathlib import Path

import pytest

from checker.commands.table import table_row, valid_rows
from checker.engine import load_all
from checker.findings import Distinct, Report, identity, judge
from checker.model import Result, System, discover, results_of, systems_of
from checker.model.metrics import power_metric
from checker.reporters import text_report
from checker.rounds import load_round
from checker.tree import Tree
from helpers import EXAMPLE, OFFLINE, RESULT, ROOT, SINGLE, SUBMISSION, run

SYSTEMS = f"{SUBMISSION}/results"


@pytest.fixture
def example(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(EXAMPLE, root, symlinks=True)
    return root


def _copy(root: Path, source: str, target: str) -> None:
    shutil.copytree(root / source, root / target, symlinks=True)


def _clashes(report: Report) -> list[tuple[str, int]]:
    return [(f.path, len(report.affected(f))) for f in report.findings if f.code == "STR011"]


# --- 1. one result per folder -----------------------------------------------------------------
CASES = {
    # name: (edits, STR011 as (path, results it affects), {location: valid})
    "scenario": (
        [("copy", OFFLINE, f"{RESULT}/offline")],
        [(f"{RESULT}/offline", 0)],
        {OFFLINE: True, SINGLE: True},
    ),
    "scenario-neither-named": (
        [("copy", OFFLINE, f"{RESULT}/OFFLINE"), ("rename", OFFLINE, f"{RESULT}/offline")],
        [(f"{RESULT}/OFFLINE", 1), (f"{RESULT}/offline", 1)],
        {f"{RESULT}/OFFLINE": False, SINGLE: True, f"{RESULT}/offline": False},
    ),
    "benchmark": (
        [("copy", RESULT, f"{SYSTEMS}/cpu-1x-numpy/Demo-MLP-99")],
        [(f"{SYSTEMS}/cpu-1x-numpy/Demo-MLP-99", 0)],
        {OFFLINE: True, SINGLE: True},
    ),
    "system-without-its-own-description": (
        [("copy", f"{SYSTEMS}/cpu-1x-numpy", f"{SYSTEMS}/CPU-1x-numpy")],
        [(f"{SYSTEMS}/CPU-1x-numpy", 0)],
        {OFFLINE: True, SINGLE: True},
    ),
    "fixed-names": (
        [
            ("copy", f"{SINGLE}/performance", f"{SINGLE}/Performance"),
            ("copy", f"{OFFLINE}/TEST01", f"{OFFLINE}/test01"),
        ],
        [(f"{OFFLINE}/test01", 0), (f"{SINGLE}/Performance", 0)],
        {OFFLINE: True, SINGLE: True},
    ),
    "division": (
        [("copy", "closed", "Closed")],
        [("Closed", 0)],
        {OFFLINE: True, SINGLE: True},
    ),
    "submitter": (
        [("copy", SUBMISSION, "closed/mlcheckdemo")],
        [(SUBMISSION, 2), ("closed/mlcheckdemo", 2)],
        {
            OFFLINE: False,
            SINGLE: False,
            OFFLINE.replace(SUBMISSION, "closed/mlcheckdemo"): False,
            SINGLE.replace(SUBMISSION, "closed/mlcheckdemo"): False,
        },
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_folders_that_differ_only_in_case_are_one_result_at_most(example: Path, name: str) -> None:
    edits, clashes, verdicts = CASES[name]
    for op, source, target in edits:
        _copy(example, source, target) if op == "copy" else (example / source).rename(example / target)
    report = run(example, select=["STR011"], collect=table_row)
    assert _clashes(report) == clashes
    assert {r.location: r.valid for r in report.results} == verdicts
    rows = [row["_scenario_folder"] for row in valid_rows(report)]
    assert len(rows) == sum(verdicts.values())  # one row per valid result, never two for one folder


def test_offline_and_offline_side_by_side_are_one_row_of_the_table(example: Path) -> None:
    _copy(example, OFFLINE, f"{RESULT}/offline")
    report = run(example, collect=table_row)
    assert [r.location for r in report.results] == [OFFLINE, SINGLE]
    assert sorted(row["Scenario"] for row in valid_rows(report)) == ["Offline", "SingleStream"]
    (clash,) = [f for f in report.findings if f.code == "STR011"]
    assert (clash.severity.value, clash.path, clash.expected) == ("error", f"{RESULT}/offline", "Offline")
    assert "(affects" not in _shown(report)[clash.path]


# --- 2. what a finding affects ----------------------------------------------------------------
def _shown(report: Report) -> dict[str, str]:
    """The text report's line of each finding shown once, by path (a warning's before an
    error's: the errors come first in the report)."""
    out = io.StringIO()
    text_report.write(report, out)
    lines = {}
    for line in out.getvalue().splitlines():
        match = re.match(r"^\s+(error|warning|note)\s+[A-Z]{3}\d{3} (\S+?):? ", line)
        if match and (match.group(2) not in lines or match.group(1) != "error"):
            lines[match.group(2)] = line
    return lines


def _in_results(path: str) -> bool:
    parts = path.split("/")
    return len(parts) > 3 and parts[2] == "results"


def _holds_or_holds_in(folder: str, path: str) -> bool:
    return folder == path or folder.startswith(path + "/") or path.startswith(folder + "/")


def assert_affects_what_it_touches(report: Report) -> None:
    """For every finding: the count the reporters show is the number of results it applies to,
    those are the results whose findings list it, and whose verdict it decides; a finding on a
    path in results/ touches no result but the ones that hold the path or lie in it."""
    applying = report.applying()
    for index, finding in enumerate(report.findings):
        affected = report.affected(finding)
        assert affected == [r for r in report.results if index in applying.positions(r)], finding
        if not finding.location and _in_results(finding.path):
            assert all(_holds_or_holds_in(r.location, finding.path) for r in affected), finding
        if finding.code == "STR007":  # an empty folder: none, or the one it would have been
            assert len(affected) <= 1, finding
        if finding.severity.value == "error" and not finding.waived:
            others = [f.with_(waived="test") if i == index else f for i, f in enumerate(report.findings)]
            records = [copy.copy(r) for r in report.results]
            judge(records, others)
            flipped = {r.location for r, before in zip(records, report.results, strict=True) if r.valid != before.valid}
            assert flipped <= {r.location for r in affected}, finding
            alone = {r.location for r in affected if applying.causes(r) == [finding]}
            assert alone <= flipped, finding
    distinct = Distinct(report)
    for shown in distinct.shared:
        same = [f for f in report.findings if identity(f) == identity(shown.finding)]
        touched = {r.location for f in same for r in report.affected(f)}
        assert shown.affects == len(touched), shown.finding
        suffix = f" (affects {len(touched)} result{'' if len(touched) == 1 else 's'})" if touched else ""
        assert shown.suffix == suffix


def test_an_empty_scenario_folder_affects_the_one_result_it_would_have_been(example: Path) -> None:
    (example / RESULT / "MultiStream").mkdir()
    (example / SYSTEMS / "cpu-1x-numpy" / "demo-mlp-98").mkdir()
    (example / OFFLINE / "accuracy" / "extra").mkdir()
    (example / SUBMISSION / "documentation" / "notes").mkdir()
    report = run(example)
    empty = {f.path: [r.location for r in report.affected(f)] for f in report.findings if f.code == "STR007"}
    assert empty == {
        f"{SUBMISSION}/documentation/notes": [],
        f"{SYSTEMS}/cpu-1x-numpy/demo-mlp-98": [],
        f"{OFFLINE}/accuracy/extra": [OFFLINE],
        f"{RESULT}/MultiStream": [f"{RESULT}/MultiStream"],
    }
    shown = _shown(report)
    assert shown[f"{RESULT}/MultiStream"].endswith("empty folder (affects 1 result)")
    assert shown[f"{SUBMISSION}/documentation/notes"].endswith("empty folder")
    assert_affects_what_it_touches(report)


EDITS = {
    "offline": lambda root: _copy(root, OFFLINE, f"{RESULT}/offline"),
    "OFFLINE": lambda root: _copy(root, OFFLINE, f"{RESULT}/OFFLINE"),
    "system-case": lambda root: _copy(root, f"{SYSTEMS}/cpu-1x-numpy", f"{SYSTEMS}/CPU-1x-numpy"),
    "system-description-case": lambda root: shutil.copyfile(
        root / SUBMISSION / "systems/cpu-1x-numpy.json", root / SUBMISSION / "systems/CPU-1x-numpy.json"
    ),
    "benchmark-case": lambda root: _copy(root, RESULT, f"{SYSTEMS}/cpu-1x-numpy/DEMO-mlp-99"),
    "performance-case": lambda root: _copy(root, f"{SINGLE}/performance", f"{SINGLE}/Performance"),
    "submitter-case": lambda root: _copy(root, SUBMISSION, "closed/MLCHECKDEMO"),
    "second-system": lambda root: _copy(root, f"{SYSTEMS}/cpu-1x-numpy", f"{SYSTEMS}/cpu-2x-numpy"),
    "empty-scenario": lambda root: (root / RESULT / "MultiStream").mkdir(exist_ok=True),
    "empty-benchmark": lambda root: (root / SYSTEMS / "cpu-1x-numpy" / "resnet").mkdir(exist_ok=True),
    "empty-system": lambda root: (root / SYSTEMS / "spare").mkdir(exist_ok=True),
    "empty-in-result": lambda root: (root / SINGLE / "accuracy" / "extra").mkdir(exist_ok=True),
    "empty-documentation": lambda root: (root / SUBMISSION / "documentation" / "notes").mkdir(exist_ok=True),
    "spare-description": lambda root: shutil.copyfile(
        root / SUBMISSION / "systems/cpu-1x-numpy.json", root / SUBMISSION / "systems/spare.json"
    ),
    "no-src-benchmark": lambda root: shutil.rmtree(root / SUBMISSION / "src" / "demo-mlp-99", ignore_errors=True),
    "no-calibration": lambda root: [p.unlink() for p in (root / SUBMISSION).rglob("calibration.*")],
    "broken-link": lambda root: (root / SUBMISSION / "documentation" / "gone.md").symlink_to(root / "nowhere"),
    "no-description": lambda root: (root / SUBMISSION / "systems/cpu-1x-numpy.json").unlink(missing_ok=True),
    "bad-accuracy": lambda root: (root / OFFLINE / "accuracy" / "accuracy.txt").write_text("accuracy=1.0%\nhash=00\n"),
}


@pytest.mark.slow
def test_every_finding_affects_the_results_it_touches(tmp_path: Path) -> None:
    """Any mix of folders that differ only in case, empty folders, spare or missing files: the
    count every reporter shows for a finding is the number of results it applies to, it applies
    to those it decides the verdict of, and no two valid results are one folder."""
    pytest.importorskip("hypothesis")
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=25, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(st.booleans(), min_size=len(EDITS), max_size=len(EDITS)))
    def mixed(chosen: list[bool]) -> None:
        names = [name for name, on in zip(EDITS, chosen, strict=True) if on]
        root = tmp_path / "case"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(EXAMPLE, root, symlinks=True)
        for name in EDITS:  # in their order: the copies before what removes their sources
            if name in names:
                EDITS[name](root)
        report = run(root, collect=table_row)
        assert not [f for f in report.findings if f.code == "INT001"], names
        assert_affects_what_it_touches(report)
        valid = [r.location.casefold() for r in report.results if r.valid]
        assert len(valid) == len(set(valid)), names
        rows = [row["_scenario_folder"] for row in valid_rows(report)]
        assert len(rows) == len(valid), names

    mixed()


# --- 3. round facts ---------------------------------------------------------------------------
MS_POWER = (
    "open/GATEOverflow/results/TRIGKEY_Mini_PC_Ryzen_5_5560-ctuning_cpp_tflite-cpu-tflite_vmaster-default_config/"
    "mobilenet-v1-precision_float-1.0-128"
)


def _published_power_result(root: Path, scenario: str) -> Result:
    folder = root / MS_POWER / scenario
    with tarfile.open(ROOT / "tests" / "data" / "v5.1-multistream-power.tar.gz") as archive:
        archive.extractall(folder, filter="data")
    (folder / "performance" / "power").mkdir()
    load_all()
    (submission,) = discover(Tree(root), load_round("v5.1"))
    (system,) = [s for s in systems_of(submission) if results_of(s)]
    (result,) = results_of(System(submission, system.name))
    return result


@pytest.mark.parametrize(
    "scenario,power",
    [
        # Published Power_Result 1241.1387806903 (10 digits): 8 SingleStream queries' energy.
        ("multistream", 1241.1387806902817),
        ("singlestream", 155.1423475862852),  # published 155.1423475863 for this run's own row
    ],
)
def test_multistream_energy_is_per_multistream_query_as_published(tmp_path: Path, scenario: str, power: float) -> None:
    result = _published_power_result(tmp_path, scenario)
    assert result.inferred_from == ("SingleStream" if scenario == "multistream" else None)
    assert power_metric(result) == {"value": power, "units": "millijoules"}


def test_the_inferred_multistream_energy_is_exactly_eight_singlestream_queries(tmp_path: Path) -> None:
    multi = (power_metric(_published_power_result(tmp_path / "a", "multistream")) or {})["value"]
    single = (power_metric(_published_power_result(tmp_path / "b", "singlestream")) or {})["value"]
    assert multi == 8 * single and round(multi, 10) == 1241.1387806903


def test_a_scenario_the_round_does_not_define_for_the_benchmark_is_no_row(example: Path) -> None:
    """demo-mlp-99 is defined in SingleStream and Offline only (as v5.1's pointpainting is in
    SingleStream only): a MultiStream folder of it is STR002 and no row of the table."""
    _copy(example, SINGLE, f"{RESULT}/MultiStream")
    report = run(example, select=["STR002"], collect=table_row)
    (problem,) = [f for f in report.findings if f.code == "STR002"]
    assert (problem.severity.value, problem.path) == ("error", f"{RESULT}/MultiStream")
    assert problem.message == (
        "demo-mlp-99 has no MultiStream scenario in demo-v6.1 (it has Offline, SingleStream); "
        "this is no result of the round"
    )
    assert sorted(row["Scenario"] for row in valid_rows(report)) == ["Offline", "SingleStream"]
