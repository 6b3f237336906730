"""Throughput and interactivity of the token benchmarks (issue 31 item 5), from the real
slices' trees against the published tables: the throughput is the figure the round publishes,
number for number; the interactivity (tokens/s per user, 1e9 over the run's p99 TPOT) is read
from the logs where the run measured token latencies, and the published tables, which hold no
TPOT, give none ("not published")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from checker.analysis import table as published
from checker.analysis.published import TPOT_KEY, TableFormat, render, table_row
from checker.analysis.reader import read_table
from helpers import ENDPOINTS, REAL_ROOT, TABLES_ROOT, real_data, real_report, run

TABLES = {"v5.1": "v5.1/summary_results.json", "v6.0": "v6.0/summary_results.json", "v6.1": "v6.1/summary.json"}


def _published(round_name: str) -> dict[str, dict]:
    """The whole published table of a round, by its Location as the round writes it."""
    data = json.loads(real_data(TABLES_ROOT / TABLES[round_name]).read_text())
    rows = list(data.values()) if isinstance(data, dict) else data
    return {row["Location"]: row for row in rows}


def _logged(result: Path, key: str) -> float | None:
    """A key's value in a result's detail log, read line by line here (not by the checker)."""
    log = result / "performance" / "run_1" / "mlperf_log_detail.txt"
    if not log.is_file():
        return None
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith(":::MLLOG "):
            record = json.loads(line.removeprefix(":::MLLOG "))
            if record["key"] == key:
                return float(record["value"])
    return None


# (round, results in token units or of the Endpoints harness whose logs the slice holds, of
# them with a p99 TPOT in their logs)
CASES = [("v5.1", 96, 50), ("v6.0", 44, 24), ("v6.1", 2, 2)]


@pytest.mark.real
@pytest.mark.full
@pytest.mark.slow
@pytest.mark.parametrize("round_name, compared, with_tpot", CASES)
def test_the_throughput_is_the_published_one_and_the_interactivity_is_the_logs(
    round_name: str, compared: int, with_tpot: int
) -> None:
    report = real_report(round_name)
    fmt = TableFormat.of(report.round)
    assert fmt is not None
    table = _published(round_name)
    location, result, units = fmt.key("Location"), fmt.key("Performance_Result"), fmt.key("Performance_Units")
    facts = {row["Location"]: row for row in (r.collected for r in report.results) if row}
    rows = [row for row in render(list(facts.values()), fmt) if row[location] in table]
    endpoints = {r.location for r in report.results if (REAL_ROOT / round_name / r.location / "config.yaml").exists()}
    measurable = {where for where, row in facts.items() if row["Performance_Result"] is not None}  # logs in the slice
    tokens = [
        row
        for row in rows
        if published.location_of({"Location": row[location]}) in measurable
        and (row[units] == "Tokens/s" or published.location_of({"Location": row[location]}) in endpoints)
    ]
    assert len(tokens) == compared
    for row in tokens:
        assert (row[result], row[units]) == (table[row[location]][result], table[row[location]][units]), row[location]
    measured = 0
    for row in tokens:
        where = published.location_of({"Location": row[location]})
        tpot = facts[where]["tpot_p99_ns"]
        tree = REAL_ROOT / round_name / where
        if (tree / "performance" / "result_summary.json").is_file():
            expected = json.loads((tree / "performance" / "result_summary.json").read_text())["tpot"]["percentiles"]
            assert tpot == expected["99.0"]
        else:
            assert tpot == _logged(tree, TPOT_KEY)
        if tpot is not None:
            measured += 1
            scenario = facts[where]["Scenario"]
            assert scenario != "Offline", where  # Offline runs measure no token latencies
            normalised = published.normalise([facts[where]])[0]
            assert normalised.interactivity == 1e9 / tpot
    assert measured == with_tpot


@pytest.mark.real
@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
def test_a_published_table_has_no_interactivity_it_is_not_published(round_name: str) -> None:
    """The published tables hold no TPOT: not one of their rows has an interactivity figure,
    and nothing is made up in its place."""
    rows = published.normalise(read_table(str(real_data(TABLES_ROOT / TABLES[round_name]))).rows, round_name)
    assert rows and all(row.interactivity is None for row in rows)
    assert {row.units for row in rows} >= {"Tokens/s"}


def test_interactivity_is_1e9_over_the_p99_tpot_and_nothing_without_one() -> None:
    assert published.interactivity(40_000_000) == 25.0
    assert published.interactivity(161051159) == 1e9 / 161051159
    for nothing in (None, 0, -5, float("inf"), float("nan"), "40000000", True):
        assert published.interactivity(nothing) is None
    assert "p99 TPOT" in published.INTERACTIVITY and "not published" in published.INTERACTIVITY


def test_an_endpoints_run_gives_its_summarys_throughput_on_the_window_it_used(tmp_path: Path) -> None:
    """An Endpoints run's throughput is its summary's `tps` as the harness wrote it: on LoadGen's
    legacy window when the run sets `legacy_loadgen_window_duration_ns` (the figure the round
    publishes), never recomputed from `duration_ns`; its interactivity is 1e9 over
    tpot.percentiles["99.0"]. The fixture's summary, hand-edited as such a run writes it."""
    tree = tmp_path / "tree"
    shutil.copytree(ENDPOINTS, tree)
    where = "closed/EndpointsDemo/results/server-1x-demo/llama3.1-8b/Interactive"
    summary_path = tree / where / "performance" / "result_summary.json"
    summary = json.loads(summary_path.read_text())
    window = summary["duration_ns"] // 2
    summary |= {"legacy_loadgen_window_duration_ns": window, "tps": 4741.0}  # the tokens over the shorter window
    summary_path.write_text(json.dumps(summary, indent=2))
    report = run(tree, "v6.1", jobs=1, collect=table_row)
    facts = {r.location: r.collected for r in report.results}
    assert (facts[where]["Performance_Result"], facts[where]["Performance_Units"]) == (4741.0, "Tokens/s")
    assert facts[where]["tpot_p99_ns"] == 21500000.0
    assert published.normalise([facts[where]])[0].interactivity == 1e9 / 21500000.0
    offline = facts[where.replace("Interactive", "Offline")]
    assert (offline["Performance_Result"], offline["tpot_p99_ns"]) == (12510.0, 60000000.0)
