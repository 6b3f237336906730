"""Preview follow-up on the real CoreWeave preview results (closed/CoreWeave in the slice)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.analysis.followup import follow_up
from checker.analysis.reader import table_of
from helpers import cli

pytestmark = pytest.mark.real

PREVIEW = "closed/CoreWeave/results/GB300-NVL8-CoreWeave_TRT/deepseek-r1"


@pytest.fixture(scope="module")
def previous(real: Path) -> list[dict]:
    """The real slice, checked and tabled: its preview rows are CoreWeave's deepseek-r1."""
    rows = table_of(str(real), "v5.1", jobs=2)
    assert sorted(r["Location"] for r in rows if r["Availability"] == "preview") == [
        f"{PREVIEW}/Offline",
        f"{PREVIEW}/Server",
    ]
    return rows


def _successor(previous: list[dict], scale: dict[str, float], model: str | None = None) -> list[dict]:
    """The next round's table: CoreWeave's preview rows come back Available, with each
    scenario's performance scaled (a scenario absent from `scale` is not submitted)."""
    rows = []
    for row in previous:
        if row["Availability"] != "preview" or row["Scenario"] not in scale:
            continue
        row = dict(
            row,
            Availability="available",
            version="v6.1",
            Location=row["Location"].replace("GB300-NVL8-CoreWeave_TRT", "GB300-NVL8-CoreWeave_TRT_v61"),
            Platform="GB300-NVL8-CoreWeave_TRT_v61",
        )
        row["Performance_Result"] = row["Performance_Result"] * scale[row["Scenario"]]
        if model:
            row["Model"] = model
        rows.append(row)
    return rows


@pytest.mark.full
def test_followed_within_two_percent(previous: list[dict]) -> None:
    report = follow_up(previous, _successor(previous, {"Offline": 1.05, "Server": 0.99}))
    assert [(o.scenario, o.status, o.delta) for o in report.outcomes] == [
        ("Offline", "followed", 0.05),
        ("Server", "followed", -0.01),
    ]
    assert report.systems[0]["matched_by"] == "same submitter, accelerator, accelerator count and node count"
    assert not report.failed


@pytest.mark.full
def test_degraded_by_three_percent(previous: list[dict]) -> None:
    report = follow_up(previous, _successor(previous, {"Offline": 1.0, "Server": 0.97}))
    assert [(o.scenario, o.status, o.delta) for o in report.outcomes] == [
        ("Offline", "followed", 0.0),
        ("Server", "degraded", -0.03),
    ]
    assert report.failed


@pytest.mark.full
def test_missing_scenario(previous: list[dict]) -> None:
    report = follow_up(previous, _successor(previous, {"Offline": 1.0}))
    assert [(o.scenario, o.status) for o in report.outcomes] == [("Offline", "followed"), ("Server", "missing")]
    assert report.failed


@pytest.mark.full
def test_benchmark_retired(previous: list[dict]) -> None:
    # The next round replaced deepseek-r1; the current table has no such model, and v9.9 has no round file.
    current = [dict(r, version="v9.9") for r in _successor(previous, {"Offline": 1.0, "Server": 1.0}, "deepseek-r2")]
    report = follow_up(previous, current)
    assert [(o.scenario, o.status) for o in report.outcomes] == [
        ("Offline", "not-comparable"),
        ("Server", "not-comparable"),
    ]
    assert not report.failed


@pytest.mark.slow
@pytest.mark.full
def test_mapping_file_and_cli(previous: list[dict], tmp_path: Path) -> None:
    current = _successor(previous, {"Offline": 0.9, "Server": 1.0})
    for row in current:  # another accelerator name: only the mapping file can match it
        row["Accelerator"] = "NVIDIA GB300 (renamed)"
    (tmp_path / "prev.json").write_text(json.dumps(previous))
    (tmp_path / "cur.json").write_text(json.dumps(current))
    (tmp_path / "map.yaml").write_text("closed/CoreWeave/GB300-NVL8-CoreWeave_TRT: GB300-NVL8-CoreWeave_TRT_v61\n")
    done = cli(
        "followup",
        "--previous",
        str(tmp_path / "prev.json"),
        "--current",
        str(tmp_path / "cur.json"),
        "--mapping",
        str(tmp_path / "map.yaml"),
        "-f",
        "json",
    )
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert data["summary"] == {"followed": 1, "degraded": 1, "missing": 0, "not-comparable": 0}
    assert data["results"][0]["matched_by"] == "mapping file (GB300-NVL8-CoreWeave_TRT_v61)"
    done = cli(
        "followup", "--previous", str(tmp_path / "prev.json"), "--current", str(tmp_path / "cur.json"), "-f", "csv"
    )
    assert done.returncode == 1
    assert done.stdout.splitlines()[1].startswith(f"{PREVIEW}/Offline,deepseek-r1,Offline,missing,")


@pytest.mark.slow
def test_bad_mapping_file_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text("[]")
    (tmp_path / "map.yaml").write_text("a: [b\n")
    done = cli(
        "followup",
        "--previous",
        str(tmp_path / "t.json"),
        "--current",
        str(tmp_path / "t.json"),
        "--mapping",
        str(tmp_path / "map.yaml"),
    )
    assert done.returncode == 2
    assert "is not valid YAML" in done.stderr


@pytest.mark.real
def test_v60_previews_followed_in_the_published_v61_table() -> None:
    """The published v6.0 Preview system returns Available in v6.1 under the same system
    folder, its accelerator spelt another way; v6.1's lower-case scenarios and own model
    names are read in the round's spelling."""
    from checker.analysis.followup import follow_up
    from checker.analysis.reader import load_table
    from helpers import TABLES_ROOT, real_data

    tables = real_data(TABLES_ROOT)
    result = follow_up(
        load_table(str(tables / "v6.0" / "summary_results.json")),
        load_table(str(tables / "v6.1" / "summary.json")),
        current_round="v6.1",
    )
    assert result.systems == [
        {
            "preview": "closed/Intel/1-node-4x-BMG-B70",
            "successors": ["closed/Intel/1-node-4x-BMG-B70"],
            "matched_by": "the same system (division, submitter and system folder)",
        }
    ]
    assert [(o.model, o.scenario, o.status) for o in result.outcomes] == [
        ("gpt-oss-120b", "Offline", "followed"),
        ("gpt-oss-120b", "Server", "followed"),
        ("llama2-70b-99", "Offline", "not-comparable"),
        ("llama2-70b-99", "Server", "not-comparable"),
        ("llama2-70b-99.9", "Offline", "followed"),
        ("llama2-70b-99.9", "Server", "followed"),
        ("llama3.1-8b", "Offline", "followed"),
        ("llama3.1-8b", "Server", "followed"),
        ("whisper", "Offline", "followed"),
    ]
    # Issue 31: a not-comparable outcome says why (before: the status alone), and what the
    # round has in its place (rules/v6.1.yaml `successors`).
    assert [o.reason for o in result.outcomes if o.status == "not-comparable"] == [
        "llama2-70b-99 is not a benchmark of round v6.1; in its place the round has llama2-70b-99.9 "
        "(another benchmark): nothing to follow it up with"
    ] * 2
    assert all(o.reason is None for o in result.outcomes if o.status == "followed")
