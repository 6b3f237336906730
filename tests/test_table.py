"""The published results table, built from the tree: parity with summary_results.json."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from checker.table import KEYS, load_table, publish
from helpers import run, tree_digest

PUBLICATION = ("ID", "Details", "Code", "ColorKey")


def _missing_locations(real: Path) -> set[str]:
    """Result folders that hold (or should hold) a file listed in MISSING.txt."""
    locations = set()
    for line in (real / "MISSING.txt").read_text().splitlines():
        parts = line.strip().split("/")
        if len(parts) >= 7 and parts[2] in ("results", "compliance", "measurements"):
            if parts[-1] != "mlperf_log_trace.json":
                locations.add("/".join(parts[:2] + ["results"] + parts[3:6]))
    return locations


def _differences(published: dict, built: dict) -> list[str]:
    found = []
    for key, value in published.items():
        if key in PUBLICATION:
            continue
        if key not in built:
            found.append(f"{key}: missing (published {value!r})")
            continue
        mine = built[key]
        if isinstance(value, float) and isinstance(mine, (int, float)) and not isinstance(mine, bool):
            if mine != pytest.approx(value, rel=1e-6):
                found.append(f"{key}: {mine!r} != published {value!r}")
        elif type(mine) is not type(value) or mine != value:
            found.append(f"{key}: {mine!r} ({type(mine).__name__}) != published {value!r} ({type(value).__name__})")
    found += [f"{key}: extra {built[key]!r}" for key in built if key not in published]
    return found


@pytest.mark.real
def test_table_matches_the_published_table_row_by_row(real: Path) -> None:
    report = run(real, "v5.1", jobs=2)
    built = {row["Location"]: row for row in publish([r.row for r in report.results if r.valid and r.row],
                                                       None, None, "v5.1")}
    published = json.loads((real / "summary_results.json").read_text())
    expected = {row["Location"]: row for row in published if row["Location"] not in _missing_locations(real)}
    assert len(expected) == 131
    problems = []
    for location, row in expected.items():
        if location not in built:
            problems.append(f"{location}: no row")
            continue
        problems += [f"{location}: {d}" for d in _differences(row, built[location])]
    problems += [f"{location}: extra row" for location in built if location not in expected]
    assert not problems, "\n".join(problems[:20])


@pytest.mark.real
def test_table_command_writes_json_and_csv(real: Path, tmp_path: Path) -> None:
    before = tree_digest(real)
    out_json, out_csv = tmp_path / "t.json", tmp_path / "t.csv"
    base = "https://github.com/mlcommons/inference_results_v5.1/tree/main"
    for fmt, out in (("json", out_json), ("csv", out_csv)):
        done = subprocess.run([sys.executable, "-m", "checker.cli", "table", str(real), "--round", "v5.1", "-f", fmt,
                               "-o", str(out), "--publish-base", base, "--first-id", "1", "-j", "2"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    rows = json.loads(out_json.read_text())
    assert len(rows) == 131
    first = rows[0]
    assert list(first)[:4] == ["ID", "Submitter", "Availability", "Category"]
    assert (first["ID"], first["Location"]) == ("5.1-0001", "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive")
    assert first["Details"] == f"{base}/closed/AMD/results/8xMI300X_2xEPYC_9575F"
    assert first["Code"] == f"{base}/closed/AMD/code"
    assert first["ColorKey"] == "availableAMD"
    table = list(csv.DictReader(io.StringIO(out_csv.read_text())))
    assert [r["Location"] for r in table] == [r["Location"] for r in rows]
    assert list(table[0]) == [k for k in KEYS if any(k in r for r in rows)]
    assert load_table(str(out_csv))[0]["Performance_Result"] == rows[0]["Performance_Result"]
    assert tree_digest(real) == before


def test_table_of_the_example_without_publication_keys(tmp_path: Path) -> None:
    from helpers import EXAMPLE

    report = run(EXAMPLE, "demo-v6.1")
    rows = publish([r.row for r in report.results if r.valid], None, None, "demo-v6.1", "src")
    assert [r["Scenario"] for r in rows] == ["Offline", "SingleStream"]
    offline = rows[0]
    assert not set(PUBLICATION) & set(offline)
    assert offline["Accuracy"] == "acc: 89.062"
    assert (offline["Suite"], offline["Nodes"], offline["a#"], offline["Accelerator"], offline["p#"]) == ("edge", 1, "", "", 1)
    assert offline["Unique ID (e.g. for Audit)"] == "edge/closed/MLCheckDemo/cpu-1x-numpy"
    assert (offline["inferred"], offline["compliance"], offline["has_power"], offline["weight_data_types"]) == (0, 1, False, "int8")


def test_table_of_an_endpoints_submission() -> None:
    from helpers import ENDPOINTS

    report = run(ENDPOINTS, "v6.1")
    rows = publish([r.row for r in report.results if r.valid], None, None, "v6.1", "src")
    assert [(r["Scenario"], r["Performance_Result"], r["Performance_Units"]) for r in rows] == [
        ("Interactive", 2370.5, "Tokens/s"), ("Offline", 12510.0, "Tokens/s")]
    assert rows[0]["Accuracy"] == "ROUGE1: 43.12  ROUGE2: 20.31  ROUGEL: 30.05  GEN_LEN: 8204113"
