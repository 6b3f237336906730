"""The Python API (mlperf_check) and the command line give the same numbers, and the filters
take what they say, the same way in both.

The API calls what the commands compute with; these tests hold them to it on the published
tables: every group's figures and every member's deviation of `compare`, every ratio of
`--across-rounds`, every measured figure of `claims`, the whole of `reproduce`, the verdicts
of `check`."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import mlperf_check
from checker.analysis.selection import Selection
from checker.analysis.table import COLUMNS, frame, normalise
from helpers import EXAMPLE, REAL_ROOT, TABLES_ROOT, cli, real_data

TABLE_FILES = {"v5.1": "summary_results.json", "v6.0": "summary_results.json", "v6.1": "summary.json"}


def _table_path(name: str) -> str:
    return str(real_data(TABLES_ROOT / name / TABLE_FILES[name]))


@pytest.fixture(scope="module")
def tables() -> dict[str, pd.DataFrame]:
    return {name: mlperf_check.load_table(_table_path(name)) for name in TABLE_FILES}


def _json(*args: str, status: int = 0) -> dict:
    done = cli(*args, "--format", "json")
    assert done.returncode == status, done.stdout + done.stderr
    return json.loads(done.stdout)


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)):
        return (a is None or math.isnan(a)) and (b is None or math.isnan(b))
    return a == pytest.approx(b, rel=1e-12, abs=1e-15)


# --- the package -------------------------------------------------------------------------------
def test_the_package_is_importable_as_installed() -> None:
    """`import mlperf_check` from anywhere (not the project's folder), as `pip install .` maps it."""
    done = subprocess.run(
        [sys.executable, "-c", "import mlperf_check; print(sorted(mlperf_check.__all__))"],
        cwd="/",
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(sorted(mlperf_check.__all__))
    assert "check" in mlperf_check.__all__ and "_table_path" not in dir(mlperf_check)


def test_check_gives_frames_of_the_report() -> None:
    report = mlperf_check.check(EXAMPLE)
    results = report.to_frame()
    assert report.round == "v6.1"
    assert list(results.columns) == [
        "round",
        "location",
        "division",
        "submitter",
        "system",
        "benchmark",
        "model",
        "scenario",
        "verdict",
        "metric",
        "units",
    ]
    assert results["location"].tolist() == [r.location for r in report.results]
    assert results["verdict"].tolist() == ["valid" if r.valid else "invalid" for r in report.results]
    findings = report.to_frame("findings")
    assert len(findings) == len(report.findings)
    assert findings["code"].tolist() == [f.code for f in report.findings]
    with pytest.raises(ValueError, match="results or findings"):
        report.to_frame("rows")


@pytest.mark.slow
def test_check_is_the_command_lines_check() -> None:
    report = mlperf_check.check(EXAMPLE)
    done = cli("check", str(EXAMPLE), "--format", "json")
    given = json.loads(done.stdout)
    assert [r["valid"] for r in given["results"]] == [r.valid for r in report.results]
    assert sorted(f["code"] for f in given["findings"]) == sorted(f.code for f in report.findings)


# --- tables ----------------------------------------------------------------------------------
@pytest.mark.real
def test_every_format_loads_into_the_canonical_columns(tables: dict[str, pd.DataFrame]) -> None:
    assert {name: t.shape for name, t in tables.items()} == {"v5.1": (1448, 23), "v6.0": (520, 23), "v6.1": (492, 23)}
    for name, table in tables.items():
        assert table.dtypes.astype(str).to_dict() == COLUMNS
        assert set(table["round"]) == {name}
        assert (table["accelerators"] == table["nodes"] * table["per_node"]).all()
    # v6.1's own names: its folder scenarios and model labels are the round's names.
    assert set(tables["v6.1"]["scenario"]) <= {"Offline", "Server", "SingleStream", "MultiStream", "Interactive"}
    assert "VLM" not in set(tables["v6.1"]["model"])


@pytest.mark.real
def test_load_table_takes_a_round_a_folder_and_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLPERF_CHECK_TABLES", str(real_data(TABLES_ROOT)))
    by_name = mlperf_check.load_table("v6.1")
    pd.testing.assert_frame_equal(by_name, mlperf_check.load_table(TABLES_ROOT / "v6.1"))
    pd.testing.assert_frame_equal(by_name, mlperf_check.load_table(_table_path("v6.1")))
    monkeypatch.delenv("MLPERF_CHECK_TABLES")
    with pytest.raises(ValueError, match="MLPERF_CHECK_TABLES"):
        mlperf_check.load_table("v6.1")


@pytest.mark.real
@pytest.mark.full
def test_a_checked_tree_loads_as_its_published_rows() -> None:
    """A submission tree's valid results are the published rows, with the same numbers (the
    one result of the v6.0 slice that is not valid here lacks files: MISSING.txt)."""
    slice_ = real_data(REAL_ROOT / "v6.0")
    tree = mlperf_check.load_table(slice_)
    published = mlperf_check.load_table(slice_ / "summary_results.json")
    assert (len(tree), len(published)) == (70, 71)
    assert set(tree["location"]) <= set(published["location"])
    both = tree.merge(published, on="location", suffixes=("", "_published"))
    assert len(both) == 70
    assert both["result"].tolist() == both["result_published"].tolist()
    assert (
        both[["model", "scenario", "units", "hardware"]].to_numpy()
        == both[["model_published", "scenario_published", "units_published", "hardware_published"]].to_numpy()
    ).all()


# --- the same numbers as the command line ----------------------------------------------------
@pytest.mark.real
@pytest.mark.parametrize(
    ("options", "kwargs"),
    [
        (["--reference", "submitter:AMD"], {"reference": "AMD"}),
        ([], {}),
        (
            ["--model", "llama3.1-8b", "--scenario", "Offline", "--accelerator", "H200"],
            {"model": "llama3.1-8b", "scenario": "Offline", "accelerator": "H200"},
        ),
    ],
)
def test_compare_gives_the_command_lines_numbers(
    tables: dict[str, pd.DataFrame], options: list[str], kwargs: dict[str, str]
) -> None:
    for name in ("v5.1", "v6.1"):
        given = _json("compare", _table_path(name), *options)
        members, groups = found = mlperf_check.compare(tables[name], **kwargs)
        assert len(groups) == len(given["groups"]) == given["summary"]["groups"]
        assert found.notes == given.get("notes", [])
        for (_, group), listed in zip(groups.iterrows(), given["groups"], strict=True):
            key = ("round", "model", "scenario", "units", "hardware", "per_node", "nodes")
            assert tuple(group[k] for k in key) == tuple(listed[k] for k in key)
            for figure in ("reference", "mean_abs_dev", "median_abs_dev", "max_abs_dev", "cv"):
                assert _same(group[figure], listed[figure]), figure
            assert (group["n"], group["partners"], bool(group["within_tolerance"])) == (
                listed["n"],
                listed["partners"],
                listed["within_tolerance"],
            )
            mine = members[members["group"] == group["group"]]
            assert [(m["location"], m["submitter"], m["role"]) for _, m in mine.iterrows()] == [
                (m["Location"], m["Submitter"], m["role"]) for m in listed["members"]
            ]
            for (_, m), theirs in zip(mine.iterrows(), listed["members"], strict=True):
                assert _same(m["deviation"], theirs["deviation"])
                assert _same(m["deviation_from_median"], theirs["deviation_from_median"])
                assert (bool(m["beyond_tolerance"]), bool(m["outlier"])) == (
                    theirs["beyond_tolerance"],
                    theirs["outlier"],
                )


@pytest.mark.real
def test_across_rounds_gives_the_command_lines_ratios(tables: dict[str, pd.DataFrame]) -> None:
    paths = [_table_path(name) for name in TABLE_FILES]
    given = _json("compare", *paths, "--across-rounds", "--model", "gpt-oss-120b")
    found = mlperf_check.across_rounds(tables.values(), scaling=True, model="gpt-oss-120b")
    theirs = [
        (s["hardware"], s["per_node"], s["nodes"], s["submitter"], name, r["location"], r["ratio"])
        for s in given["across_rounds"]
        for name, r in s["rounds"].items()
    ]
    mine = found[found["kind"] == "across_rounds"]
    assert len(theirs) == len(mine) > 0
    for (_, row), their in zip(mine.iterrows(), theirs, strict=True):
        assert (row["hardware"], row["per_node"], row["nodes"], row["submitter"], row["round"], row["location"]) == (
            their[:6]
        )
        assert _same(row["ratio"], their[6])
    efficiencies = [p["efficiency"] for s in given["scaling"] for p in s["points"]]
    assert found.loc[found["kind"] == "scaling", "ratio"].tolist() == pytest.approx(efficiencies, rel=1e-12)
    amd = found[(found["submitter"] == "AMD") & (found["scenario"] == "Offline") & (found["per_node"] == 8)]
    assert amd.loc[amd["kind"] == "across_rounds", "ratio"].round(3).tolist() == [1.0, 1.282]


CLAIMS = """claims:
- id: partners-within-4pct
  kind: spread
  expect: 0.04
  reference: submitter:AMD
  in: {round: v6.1, model: gpt-oss-120b, scenario: Offline, accelerator: MI355X, per_node: 8, nodes: 1}
- id: plus-28pct-since-last-round
  kind: speedup
  expect: 1.28
  from: {round: v6.0, model: gpt-oss-120b, scenario: Offline, accelerator: MI355X, per_node: 8, nodes: 1, submitter: AMD}
  to: {round: v6.1, model: gpt-oss-120b, scenario: Offline, accelerator: MI355X, per_node: 8, nodes: 1, submitter: AMD}
- id: h200-pooled
  kind: value
  expect: 1000
  at_least: true
  in: {round: v6.0, model: whisper, scenario: Offline, accelerator: H200}
"""


@pytest.mark.real
def test_claims_gives_the_command_lines_verdicts(tables: dict[str, pd.DataFrame], tmp_path: Path) -> None:
    spec = tmp_path / "claims.yaml"
    spec.write_text(CLAIMS, encoding="utf-8")
    args = [f"--table={name}={_table_path(name)}" for name in ("v6.0", "v6.1")]
    given = _json("claims", str(spec), *args, status=1)["claims"]
    found = mlperf_check.claims(spec, {name: tables[name] for name in ("v6.0", "v6.1")})
    assert (
        found["verdict"].tolist() == [c["verdict"] for c in given] == ["fails", "holds", "ambiguous"]
    )  # H200 spans groups (issue 31)
    for (_, row), theirs in zip(found.iterrows(), given, strict=True):
        assert _same(row["measured"], theirs["measured"])
        assert row["notes"] == theirs["notes"]
        assert row["rows"] == theirs["rows"]
    assert found.loc[0, "measured"] == pytest.approx(0.0407, abs=5e-5)
    # A claim's own accelerator that pools different names says so.
    assert any("different names" in note for note in found.loc[2, "notes"])
    # Filters narrow the rows: no v6.0 row is left for the claims of v6.0.
    narrowed = mlperf_check.claims(spec, tables.values(), round="v6.1")
    assert narrowed["verdict"].tolist() == ["fails", "no-data", "no-data"]
    cli_narrowed = _json("claims", str(spec), *args, "--round", "v6.1", status=1)
    assert [c["verdict"] for c in cli_narrowed["claims"]] == narrowed["verdict"].tolist()
    assert cli_narrowed["selection"] == {"round": ["v6.1"]}


@pytest.mark.real
@pytest.mark.full
def test_reproduce_gives_the_command_lines_json() -> None:
    real = real_data(REAL_ROOT / "v5.1")
    nvidia = real / "closed/NVIDIA/results/B200-SXM-180GBx8_TRT/llama2-70b-99/Offline"
    lenovo = real / "closed/Lenovo/results/SR680a_V3_B200SXMx8_TRT/llama2-70b-99/Offline"
    given = _json("reproduce", str(nvidia), str(lenovo), "--round", "v5.1")
    found = mlperf_check.reproduce(nvidia, lenovo)
    assert found.pop("failed") is False
    assert json.loads(json.dumps(found, default=str)) == given


# --- the filters -----------------------------------------------------------------------------
@pytest.mark.real
def test_each_filter_takes_exactly_the_rows_it_names(tables: dict[str, pd.DataFrame]) -> None:
    table = pd.concat(list(tables.values()), ignore_index=True)
    for key in ("scenario", "submitter", "round", "division", "model"):
        for value in sorted(set(table[key].dropna())):
            taken = Selection.of(**{key: value.upper()}).mask(table)
            named = table[key].str.lower() == value.lower()
            if key == "model":  # the round's name, or the submitter's
                named |= table["used_model"].str.lower().str.replace("_", ".") == value.lower().replace("_", ".")
            assert taken.tolist() == named.tolist(), (key, value)
    taken = Selection.of(accelerator="h200").mask(table)
    assert table.loc[taken, "hardware"].str.contains(r"\bH200").all()
    assert not table.loc[~taken, "hardware"].str.contains(r"\bH200").any()
    assert table.loc[~taken, "hardware"].str.contains("GH200").any()  # a part that starts a word
    assert sorted(set(table.loc[taken, "hardware"])) == [
        "NVIDIA H200-NVL-141GB",
        "NVIDIA H200-SXM-141GB",
        "NVIDIA H200-SXM-141GB + AMD Instinct MI350X 288GB HBM3e",
        "Virtualized NVIDIA H200-SXM-141GB",
    ]


def test_the_analyses_take_load_tables_frames_only() -> None:
    empty = frame([])
    with pytest.raises(ValueError, match="frame: no result rows to compare: nothing measured there"):
        mlperf_check.compare(empty)  # as the command line (issue 33): no verdict on nothing
    with pytest.raises(ValueError, match="needs results of two or more rounds; the rows selected hold none"):
        mlperf_check.across_rounds([empty, empty])  # A9: the command's rule
    with pytest.raises(ValueError, match="lacks round, division"):
        mlperf_check.compare(pd.DataFrame({"result": [1.0]}))
    with pytest.raises(ValueError, match="by names no column of the frame: colour"):
        mlperf_check.compare(empty, by=("model", "colour"))
    with pytest.raises(ValueError, match="no table given"):
        mlperf_check.across_rounds([])


def test_a_filter_that_pools_accelerator_names_says_so() -> None:
    rows = normalise(
        [
            {"Category": "closed", "Model": "llama2-70b-99", "Scenario": "Offline", "Submitter": s, "Accelerator": a}
            | {"Performance_Result": 100.0, "Performance_Units": "Tokens/s", "a#": 8, "version": "v5.1"}
            for s, a in (("A", "NVIDIA H200-NVL-141GB"), ("B", "NVIDIA H200-SXM-141GB"), ("C", "NVIDIA H100"))
        ]
    )
    selection = Selection.of(accelerator="H200")
    taken = selection.select(rows)
    assert [r.submitter for r in taken] == ["A", "B"]
    assert selection.notes(r.hardware for r in taken) == [
        "accelerator 'H200' takes 2 different names: NVIDIA H200-NVL-141GB; NVIDIA H200-SXM-141GB"
    ]
    assert Selection.of(accelerator="H200-NVL").notes(r.hardware for r in rows) == []
    assert frame(taken)["hardware"].tolist() == ["NVIDIA H200-NVL-141GB", "NVIDIA H200-SXM-141GB"]
    with pytest.raises(TypeError, match="unknown filter colour"):
        Selection.of(colour="red")


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FIXED = settings(
    max_examples=30, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)
_PUBLISHED: dict[str, pd.DataFrame] = {}


def _published() -> pd.DataFrame:
    """The three published tables in one frame, read once for every example."""
    if not _PUBLISHED:
        _PUBLISHED["all"] = pd.concat(
            [mlperf_check.load_table(_table_path(name)) for name in TABLE_FILES], ignore_index=True
        )
    return _PUBLISHED["all"]


@st.composite
def _filters(draw: st.DrawFn) -> dict[str, list[str]]:
    """Up to three filters, each one or two values a published row has (the accelerator: a word of one)."""
    table = _published()
    keys = draw(st.lists(st.sampled_from(["model", "scenario", "submitter", "accelerator", "round"]), max_size=3))
    chosen = {}
    for key in dict.fromkeys(keys):
        column = "hardware" if key == "accelerator" else key
        values = sorted(set(table[column].dropna()))
        picked = draw(st.lists(st.sampled_from(values), min_size=1, max_size=2, unique=True))
        chosen[key] = [value.split()[-1] if key == "accelerator" else value for value in picked]
    return chosen


@pytest.mark.real
@FIXED
@given(filters=_filters())
def test_every_analysis_keeps_to_its_filters(filters: dict[str, list[str]]) -> None:
    """Whatever the filters, compare's members, across_rounds' rows and the notes hold only
    rows the selection takes, and the selection is the AND of its filters."""
    table = _published()
    selection = Selection.of(**filters)
    taken = selection.mask(table)
    each = [Selection.of(**{key: values}).mask(table) for key, values in filters.items()]
    assert taken.tolist() == (pd.concat(each, axis=1).all(axis=1) if each else taken | True).tolist()
    locations = set(table.loc[taken, "location"] + "@" + table.loc[taken, "round"])
    closed = taken & (table["division"] == "closed")
    if not closed.any():  # the selection takes no row: both analyses say so (attack25 A3)
        for analysis in (mlperf_check.compare, mlperf_check.across_rounds):
            with pytest.raises(ValueError, match="^no row matches the selection"):
                analysis(table, **filters)
        return
    members, _ = found = mlperf_check.compare(table, **filters)
    assert set(members["location"] + "@" + members["round"]) <= locations
    names = set(table.loc[taken & (table["division"] == "closed"), "hardware"])
    for note in found.notes:
        assert set(note.split(": ", 1)[1].split("; ")) <= names
    if table.loc[closed, "round"].nunique() < 2:  # the command's rule (attack25 A9)
        with pytest.raises(ValueError, match="^across_rounds needs results of two or more rounds"):
            mlperf_check.across_rounds(table, scaling=True, **filters)
        return
    across = mlperf_check.across_rounds(table, scaling=True, **filters)
    assert set(across["location"] + "@" + across["round"]) <= locations
