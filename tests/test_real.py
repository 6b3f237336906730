"""The real published v5.1 slice (../shared/real/v5.1, read-only)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run, tree_digest

pytestmark = pytest.mark.real


# Files loadgen may write but no round requires; a result that lacks only these stays valid.
OPTIONAL = ("mlperf_log_trace.json",)


def _missing_by_result(real: Path) -> dict[str, list[str]]:
    """MISSING.txt, grouped by the result folder each file belongs to (v5.1 keeps compliance
    and measurements beside results, under the same <system>/<benchmark>/<scenario>)."""
    grouped: dict[str, list[str]] = {}
    for line in (real / "MISSING.txt").read_text().splitlines():
        parts = line.strip().split("/")
        if len(parts) < 7 or parts[2] not in ("results", "compliance", "measurements") or parts[-1] in OPTIONAL:
            continue
        location = "/".join(parts[:2] + ["results"] + parts[3:6])
        grouped.setdefault(location, []).append(line.strip())
    return grouped


# Published results with a real defect that the round accepted, and the warnings that say so
# (rules/v5.1.yaml `severities` makes them warnings for this round; they are errors from v6.1).
STRICTER = {
    # accuracy/mlperf_log_detail.txt is a TEST01 performance-mode run that read audit.config.
    "closed/AMD/results/8xMI325X_2xEPYC_9575F_2/llama2-70b-99.9/Offline": {"ACC007"},
    "closed/AMD/results/8xMI325X_2xEPYC_9575F_2/llama2-70b-99/Offline": {"ACC007"},
    "closed/Lenovo/results/ThinkSystem_SR650_V4_GNR_86C/retinanet/Offline": {"ACC007"},
    "closed/Lenovo/results/ThinkSystem_SR650_V4_GNR_86C/retinanet/Server": {"ACC007"},
}


@pytest.fixture(scope="module")
def report(real: Path):
    return run(real, "v5.1", jobs=2)


def test_every_published_result_is_found(real: Path, report) -> None:
    published = {row["Location"] for row in json.loads((real / "summary_results.json").read_text())}
    found = {r.location for r in report.results}
    assert published <= found
    assert len(found) == 137


def test_published_results_are_valid_unless_their_files_are_missing(real: Path, report) -> None:
    missing = _missing_by_result(real)
    for result in report.results:
        lost = missing.get(result.location, [])
        errors = [f for f in report.findings if f.location == result.location and f.severity.value == "error"]
        if lost:
            assert not result.valid, result.location
            # An error names a file that MISSING.txt lists: a missing log (FIL001) or a missing
            # power file (PWR001).
            assert any(f.code in ("FIL001", "PWR001") and f.path in lost for f in errors), result.location
        else:
            assert result.valid, (result.location, [(f.code, f.message) for f in errors])


def test_exactly_the_expected_results_are_invalid(report) -> None:
    invalid = sorted(r.location for r in report.results if not r.valid)
    assert invalid == sorted([
        "closed/Intel/results/1-node-2S-GNR_128C/rgat/Offline",
        "closed/Lenovo/results/SR780a_V3_B200SXMx8_TRT/llama3.1-405b/Offline",
        "closed/Lenovo/results/SR780a_V3_B200SXMx8_TRT/llama3.1-405b/Server",
        "closed/Lenovo/results/SR780a_V3_B200SXMx8_TRT/rgat/Offline",
        "closed/Lenovo/results/ThinkSystem_SR650_V4_GNR_86C/rgat/Offline",
        "closed/NVIDIA/results/B200-SXM-180GBx8_TRT/rgat/Offline",
    ])


def test_defects_the_round_accepted_are_warnings(report) -> None:
    for location, codes in STRICTER.items():
        warned = {f.code for f in report.findings if f.location == location and f.severity.value == "warning"}
        assert warned == codes, location


def test_metrics_match_the_published_table(real: Path, report) -> None:
    published = {row["Location"]: row for row in json.loads((real / "summary_results.json").read_text())}
    compared = 0
    for result in report.results:
        row = published.get(result.location)
        if row is None or result.metric is None:
            continue
        assert result.metric["value"] == pytest.approx(row["Performance_Result"], rel=1e-6), result.location
        assert result.metric["units"] == row["Performance_Units"], result.location
        compared += 1
    assert compared == 133


def test_cli_subprocess_on_the_real_slice(real: Path, tmp_path: Path) -> None:
    before = tree_digest(real)
    out = tmp_path / "real.json"
    done = subprocess.run([sys.executable, "-m", "checker.cli", "check", str(real), "--round", "v5.1",
                           "-f", "json", "-o", str(out), "-j", "2"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1  # the six results with missing files
    summary = json.loads(out.read_text())["summary"]
    assert (summary["results"], summary["valid"], summary["invalid"]) == (137, 131, 6)
    assert tree_digest(real) == before
