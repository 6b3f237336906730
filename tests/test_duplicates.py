"""Duplicate rows (issues 31 and 33): two rows of one result (the same round, Location and
Submitter) count once. When they give the same result that is a counted note; when their
results differ, a warning names both rows (where they are in the input) and both values, the
command line's and the API's alike, and the first row is the one kept."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import mlperf_check
from checker.analysis.table import CONFLICTS_SHOWN
from checker.cli import app

runner = CliRunner()
SUBMITTERS = ("Acme", "Bolt", "Cray")


def _row(submitter: str, system: int, result: float) -> dict[str, Any]:
    name = f"sys{system}"
    return {
        "Category": "closed",
        "Model": "llama2-70b-99",
        "Scenario": "Offline",
        "Submitter": submitter,
        "Performance_Units": "Tokens/s",
        "Performance_Result": result,
        "Accelerator": "NVIDIA H100-SXM-80GB",
        "a#": 8,
        "Nodes": 1,
        "version": "v6.0",
        "Platform": name,
        "System": name,
        "Availability": "available",
        "Location": f"closed/{submitter}/results/{name}/llama2-70b-99/Offline",
    }


def _expected(rows: list[dict[str, Any]]) -> tuple[int, list[tuple[int, int, float, float]], list[int]]:
    """Said independently of the tool: the identical duplicates, the conflicts (first row,
    other row, their results; rows counted from 0) and the rows kept."""
    first: dict[str, int] = {}
    identical, conflicts, kept = 0, [], []
    for index, row in enumerate(rows):
        earlier = first.setdefault(row["Location"], index)
        if earlier == index:
            kept.append(index)
        elif rows[earlier]["Performance_Result"] == row["Performance_Result"]:
            identical += 1
        else:
            conflicts.append((earlier, index, rows[earlier]["Performance_Result"], row["Performance_Result"]))
    return identical, conflicts, kept


CONFLICT = re.compile(
    r"^conflicting duplicate rows: (.+) row (\d+) and \1 row (\d+) are both (\S+) of (\S+) in round v6.0, "
    r"with results (\S+) and (\S+); the first is kept, the other ignored$"
)


def _conflicts(lines: list[str], base: int) -> list[tuple[int, int, float, float]]:
    found = []
    for line in lines:
        match = CONFLICT.match(line)
        if match:
            found.append((int(match[2]) - base, int(match[3]) - base, float(match[6]), float(match[7])))
    return found


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(SUBMITTERS), st.integers(0, 2), st.sampled_from([100.0, 104.0, 250.5, 100.00000000001])
        ),
        min_size=1,
        max_size=10,
    )
)
def test_conflicting_duplicates_name_both_rows_and_values_through_both_doors(
    tmp_path: Path, drawn: list[tuple[str, int, float]]
) -> None:
    rows = [_row(*item) for item in drawn]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(rows))
    identical, conflicts, kept = _expected(rows)

    done = runner.invoke(app, ["compare", str(path), "-f", "json", "--no-progress"], prog_name="mlperf-check")
    assert done.exit_code == 0, done.output
    said = [line.removeprefix("warning: ") for line in done.stderr.splitlines()]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = mlperf_check.load_table(path)
        members, _ = mlperf_check.compare(frame, min_submitters=1)
    warned = [str(w.message) for w in caught]

    # The command line: rows counted from 1 (a file's `row N`); the API: the frame's index.
    assert _conflicts(said, 1) == conflicts[:CONFLICTS_SHOWN]
    assert _conflicts(warned, 0) == conflicts[:CONFLICTS_SHOWN]
    note = [f"{identical} duplicate row{'s' if identical > 1 else ''} ignored"] if identical else []
    assert [line.partition(" (")[0] for line in said if "duplicate row" in line and "conflicting" not in line] == note
    # The same warnings, but for where a row is said to be.
    assert [re.sub(r"\S+ row (\d+)", lambda m: f"row {int(m[1]) - 1}", line) for line in said] == [
        re.sub(r"frame row (\d+)", r"row \1", line) for line in warned
    ]
    # The first of each is kept, by both doors.
    assert sorted(members["result"]) == sorted(rows[i]["Performance_Result"] for i in kept)


def test_a_conflicting_duplicate_in_a_second_table_names_both_files(tmp_path: Path) -> None:
    first = tmp_path / "a.json"
    first.write_text(json.dumps([_row("Acme", 0, 100.0), _row("Bolt", 0, 101.0)]))
    second = tmp_path / "b.json"
    second.write_text(json.dumps([_row("Bolt", 1, 99.0), _row("Acme", 0, 120.0)]))
    done = runner.invoke(
        app, ["compare", str(first), str(second), "-f", "json", "--no-progress"], prog_name="mlperf-check"
    )
    assert done.exit_code == 0, done.output
    assert done.stderr == (
        f"warning: conflicting duplicate rows: {first} row 1 and {second} row 2 are both "
        "closed/Acme/results/sys0/llama2-70b-99/Offline of Acme in round v6.0, with results 100 and 120; "
        "the first is kept, the other ignored\n"
    )
    assert [m["Performance_Result"] for m in json.loads(done.stdout)["groups"][0]["members"]] == [100.0, 101.0, 99.0]


def test_claims_name_conflicting_duplicates_as_compare_does(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps([_row("Acme", 0, 100.0), _row("Bolt", 0, 101.0), _row("Acme", 0, 130.0)]))
    claim = {"id": "v", "kind": "value", "expect": 100.0, "in": {"round": "v6.0", "submitter": "Acme"}}
    spec = tmp_path / "c.json"
    spec.write_text(json.dumps({"claims": [claim]}))
    done = runner.invoke(
        app, ["claims", str(spec), f"--table=v6.0={path}", "-f", "json", "--no-progress"], prog_name="mlperf-check"
    )
    assert done.stderr == (
        f"warning: conflicting duplicate rows: {path} row 1 and {path} row 3 are both "
        "closed/Acme/results/sys0/llama2-70b-99/Offline of Acme in round v6.0, with results 100 and 130; "
        "the first is kept, the other ignored\n"
    )
    assert json.loads(done.stdout)["claims"][0]["measured"] == 100.0
    with pytest.warns(UserWarning, match=r"^conflicting duplicate rows: tables\['v6.0'\]: frame row 0 and "):
        mlperf_check.claims([claim], {"v6.0": mlperf_check.load_table(path)})


def test_across_rounds_names_conflicting_duplicates_as_compare_does(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    earlier = [dict(_row("Acme", 0, 90.0), version="v5.1"), dict(_row("Bolt", 1, 80.0), version="v5.1")]
    path.write_text(json.dumps([*earlier, _row("Acme", 0, 100.0), _row("Bolt", 1, 101.0), _row("Acme", 0, 130.0)]))
    done = runner.invoke(
        app, ["compare", str(path), "--across-rounds", "-f", "json", "--no-progress"], prog_name="mlperf-check"
    )
    said = [line.removeprefix("warning: ") for line in done.stderr.splitlines()]
    assert said == [
        f"conflicting duplicate rows: {path} row 3 and {path} row 5 are both "
        "closed/Acme/results/sys0/llama2-70b-99/Offline of Acme in round v6.0, with results 100 and 130; "
        "the first is kept, the other ignored"
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mlperf_check.across_rounds(mlperf_check.load_table(path))
    assert [str(w.message) for w in caught] == [
        said[0].replace(f"{path} row 3", "frame row 2").replace(f"{path} row 5", "frame row 4")
    ]
