"""Issue 22, analysis inputs: the invariants of compare, claims, followup and report over any
input, stated as properties (hypothesis, a fixed seed and a small budget) and as the cases
that show each bound.

- A group never mixes rounds or units: compare's groups, claims' figures, across-rounds
  series and scaling, for any table of mixed rows.
- Every column the analysis computes with has one declared type (checker/analysis/reader.py
  COLUMNS): any value of any type is either within it or its row is left out with a warning
  naming the file, the row and the column; never computed with, never exit 3.
- Readers are bounded: any nesting depth, any size, any shape ends in exit 0 or 2 with a
  message; a 1 GB table is refused before it is read; the costliest table at the caps is
  read in bounded memory.
- An empty or all-invalid input (a table or a tree) gives exit 0 to 2 and says why, in
  every analysis command.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from typer.testing import CliRunner

from checker.analysis import across, claims
from checker.analysis import reader as inputs
from checker.analysis.compare import Options, comparison
from checker.analysis.table import normalise
from checker.cli import app
from helpers import EXAMPLE, table_row, write_table

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

runner = CliRunner()
FIXED = settings(
    max_examples=40, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)

UNITS = ("Tokens/s", "Samples/s", "Queries/s", "Latency (ms)")
ROUNDS = ("v6.0", "v6.1", "v5.1")


def _mixed_row(draw: st.DrawFn, number: int) -> dict:
    submitter = draw(st.sampled_from(["Acme", "Bolt", "Cray"]))
    return table_row(
        version=draw(st.sampled_from(ROUNDS)),
        Performance_Units=draw(st.sampled_from(UNITS)),
        Scenario=draw(st.sampled_from(["Offline", "Server"])),
        Model=draw(st.sampled_from(["llama2-70b-99", "resnet"])),
        Submitter=submitter,
        Location=f"./closed/{submitter}/results/s{number}/m/Offline",
        Platform=f"s{number}",
        Nodes=draw(st.sampled_from([1, 2])),
        Performance_Result=draw(st.floats(0.5, 2000.0)),
    )


@st.composite
def mixed_tables(draw: st.DrawFn) -> list[dict]:
    return [_mixed_row(draw, number) for number in range(draw(st.integers(0, 14)))]


# --- no group mixes rounds or units ----------------------------------------------------------
@FIXED
@given(rows=mixed_tables(), reference=st.sampled_from(["median", "submitter:Acme", "submitter:bolt"]))
def test_no_compare_group_mixes_rounds_or_units(rows: list[dict], reference: str) -> None:
    name = reference.partition(":")[2].lower()
    if rows and name and name not in {row["Submitter"].lower() for row in rows}:
        with pytest.raises(ValueError, match=f"^--reference {reference}: no closed result of submitter"):
            comparison(rows, Options(reference=reference))  # one rule for the API and the CLI
        return
    found = comparison(rows, Options(reference=reference))
    for group, members in found.members.groupby("group"):
        assert members["round"].nunique() == 1 and members["units"].nunique() == 1, group
    # Every comparable pair of rows of one round and unit is in the one group of its key.
    assert len(found.groups) == len(found.groups.drop_duplicates(["round", "units", "model", "scenario", "nodes"]))
    assert found.members["group"].isin(found.groups["group"]).all()


@FIXED
@given(
    rows=mixed_tables(),
    kind=st.sampled_from(["spread", "value", "speedup", "ratio", "scaling"]),
    narrow=st.sets(st.sampled_from(["model", "scenario", "submitter"])),
)
def test_no_claim_takes_a_figure_across_units(rows: list[dict], kind: str, narrow: set) -> None:
    tables: dict[str, list] = {}
    for row in normalise(rows):
        tables.setdefault(row.round, []).append(row)
    values = {"model": "resnet", "scenario": "Offline", "submitter": "Acme"}
    side = {key: values[key] for key in narrow}
    sides = (
        {"in": {"round": "v6.1", **side}}
        if kind in ("spread", "value")
        else {
            "from": {"round": "v6.0", **side},
            "to": {"round": "v6.1", **side},
        }
    )
    verdict = claims.assess({"id": "c", "kind": kind, "expect": 1.0, **sides}, tables)
    chosen = {name: claims.select(tables, selection) for name, selection in sides.items()}
    units = {name: {r.units for r in found} for name, found in chosen.items()}
    if any(len(u) > 1 for u in units.values()):
        empty = any(not u for u in units.values())
        assert (verdict.verdict, verdict.measured) == ("no-data" if empty else "ambiguous", None)
    if verdict.measured is not None:
        assert all(len(u) == 1 for u in units.values())
        assert len({next(iter(u)).startswith("Latency") for u in units.values()}) == 1
        assert len({r["units"] for r in verdict.rows}) <= (1 if kind in ("spread", "value") else 2)


@FIXED
@given(rows=mixed_tables(), pooled=st.booleans())
def test_across_rounds_and_scaling_never_mix_units_and_scaling_one_submitter(rows: list[dict], pooled: bool) -> None:
    normalised = normalise(rows)
    for series in across.across_rounds(normalised):
        assert {row.units for row in series.best.values()} == {series.units}
    for series in across.scaling(normalised, across_submitters=pooled):
        points = series.points.values()
        assert {row.round for row in points} == {series.round} and {row.units for row in points} == {series.units}
        if not pooled:
            assert {row.submitter for row in points} == {series.submitter}


# --- one declared type per column ------------------------------------------------------------
BAD = {
    "number": ["fast", True, None, [1], {"a": 1}, float("nan"), float("inf"), float("-inf"), -1.0, 0, 10**400, 1e13],
    "count": ["many", True, 1.5, -1, [1], float("inf"), float("nan"), 10**400, "9" * 400, 100_001],
    "name": [1, True, [1], {"a": 1}, "   "],
    "round": ["../rules/v6.1.yaml", "/etc/passwd", 6.1, ["v6.1"]],
    "text": [[1], {"a": 1}],
}


@pytest.mark.parametrize("column", inputs.COLUMNS, ids=lambda c: c.key)
def test_every_declared_column_refuses_what_it_does_not_declare(column: inputs.Column) -> None:
    for value in BAD[column.kind]:
        if value is None and not column.required:
            continue
        row = table_row(**{column.key: value})
        assert inputs.problem(row) is not None and inputs.problem(row)[0] == column.key, (column.key, value)
    assert inputs.problem(table_row()) is None


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


@pytest.mark.slow
@FIXED
@given(column=st.sampled_from([c.key for c in inputs.COLUMNS]), value=JSON_VALUES)
def test_any_value_in_any_column_is_used_only_within_its_declaration(tmp_path_factory, column: str, value) -> None:
    """The row is either kept (its value within the declaration, so every figure is finite)
    or left out with a warning that names the file, the row and the column; never exit 3."""
    folder = tmp_path_factory.mktemp("t")
    table = write_table(folder / "t.json", [table_row(**{column: value}), table_row(Submitter="Other")])
    done = runner.invoke(app, ["compare", str(table), "-f", "json"])
    assert done.exit_code == 0, done.output
    wrong = inputs.problem(json.loads(table.read_text())[0])
    if wrong:
        first = done.stderr.splitlines()[0]
        assert re.fullmatch(rf"warning: {re.escape(str(table))}: row 1: (no )?{re.escape(column)}[ ;].*", first)
        assert first.endswith("; the row is left out")
    else:
        assert "left out" not in done.stderr
        for group in json.loads(done.stdout)["groups"]:
            assert all(isinstance(group[k], float) and math.isfinite(group[k]) for k in ("reference", "cv"))


# --- readers are bounded -------------------------------------------------------------------------
def _nested(depth: int, kind: str) -> str:
    """A JSON text nested `depth` deep: lists, objects, or a list value inside one row."""
    if kind == "row":
        return '[{"Model":' + "[" * depth + "]" * depth + "}]"
    opening, closing = ("[", "]") if kind == "list" else ('{"a":', "}")
    return opening * depth + "1" + closing * depth


@pytest.mark.slow
@settings(max_examples=25, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(depth=st.integers(1, 120_000), kind=st.sampled_from(["list", "object", "row"]))
def test_any_nesting_depth_is_read_or_refused_never_a_crash(tmp_path_factory, depth: int, kind: str) -> None:
    folder = tmp_path_factory.mktemp("deep")
    table = folder / "t.json"
    table.write_text(_nested(depth, kind))
    claims_file = folder / "claims.yaml"
    claims_file.write_text("claims:\n- {id: a, kind: value, expect: 1, in: {round: v6.1}}\n")
    for args in (
        ["compare", str(table)],
        ["claims", str(claims_file), "--table", f"v6.1={table}"],
        ["followup", "--previous", str(table), "--current", str(table), "--current-round", "v6.1"],
    ):
        done = runner.invoke(app, args)
        assert done.exit_code in (0, 1, 2), (args, depth, kind, done.output)
        assert done.stderr, (args, depth, kind)  # it says why


@pytest.mark.slow
def test_a_json_nested_100000_deep_is_a_usage_error(tmp_path: Path) -> None:
    table = tmp_path / "t.json"
    table.write_text("[" * 100_000 + "]" * 100_000)
    done = subprocess.run(
        [sys.executable, "-m", "checker.cli", "compare", str(table)], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stderr) == (
        2,
        f"error: {table} nests lists or objects more than 64 deep; a results table is a list of rows\n",
    )


@pytest.mark.slow
@FIXED
@given(rows=st.integers(0, 40), cells=st.integers(0, 8), csv=st.booleans())
def test_any_size_is_read_within_the_caps_or_refused(tmp_path_factory, rows: int, cells: int, csv: bool) -> None:
    """With the caps shrunk (2,048 bytes, 120 values, 6 rows), tables of any size are read or
    are a usage error that names the cap; never exit 3."""
    folder = tmp_path_factory.mktemp("size")
    row = {**table_row(), **{f"extra{i}": "x" * 10 for i in range(cells)}}
    if csv:
        table = folder / "t.csv"
        header = list(row)
        table.write_text(
            "\n".join([",".join(header)] + [",".join(str(row[k]) for k in header) for _ in range(rows)]) + "\n"
        )
    else:
        table = write_table(folder / "t.json", [row] * rows)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(inputs, "MAX_TABLE_BYTES", 2048)
        patch.setattr(inputs, "MAX_TABLE_CELLS", 120)
        patch.setattr(inputs, "MAX_TABLE_ROWS", 6)
        done = runner.invoke(app, ["compare", str(table)])
    size = table.stat().st_size
    if size > 2048:
        assert (done.exit_code, done.stderr) == (2, f"error: {table} has {size} bytes, more than the 2048 read\n")
    elif done.exit_code == 2:
        assert done.stderr in (
            f"error: {table} holds more than 120 values; a results table holds far fewer\n",
            f"error: {table} holds {rows} rows, more than the 6 a results table may hold\n",
            # issue 33: no row, nothing measured: no verdict
            f"warning: {table}: the table holds no rows\n"
            f"error: {table}: no result rows to compare: nothing measured there\n",
        )
    else:
        assert (done.exit_code, rows <= 6) == (0, True), done.output


def test_a_1_gb_table_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """It peaked at 2.1 GB before being refused; the size is known before a byte is read."""
    table = tmp_path / "big.json"
    with open(table, "wb") as handle:
        handle.truncate(2**30)  # sparse: no disk is used
    tracemalloc.start()
    try:
        with pytest.raises(inputs.TableError, match=f"^{table} has 1073741824 bytes, more than the 16777216 read$"):
            inputs.read_table(str(table))
        assert tracemalloc.get_traced_memory()[1] < 1_000_000
    finally:
        tracemalloc.stop()
    fifo = tmp_path / "fifo.json"
    import os

    os.mkfifo(fifo)
    done = runner.invoke(app, ["compare", str(fifo)])
    assert (done.exit_code, done.stderr) == (2, f"error: {fifo} is not a regular file\n")


@pytest.mark.slow
@pytest.mark.parametrize(
    "shape,refused",
    [
        ('{"Model":1}', "holds 499999 rows, more than the 50000 a results table may hold"),
        (
            '{"Model":"x","Category":"closed","Scenario":"s","Submitter":"A","Performance_Units":"u",'
            '"Performance_Result":1,"Accelerator":"","a#":0}',
            None,
        ),
    ],
)
def test_the_costliest_tables_at_the_caps_are_read_in_bounded_memory(tmp_path: Path, shape: str, refused) -> None:
    """As many values as the cell cap lets in, in the shapes that cost most per byte: a
    one-key object per row (refused by the row cap after the parse), and the most rows the
    row cap keeps, each with every header column (inputs.HEADER). The process peaks below 200 MB."""
    per = shape.count(",") + 1
    count = min((inputs.MAX_TABLE_CELLS - 1) // per, inputs.MAX_TABLE_ROWS if refused is None else 10**9)
    table = tmp_path / "t.json"
    table.write_text("[" + ",".join([shape] * count) + "]")
    # VmHWM is this process's own peak: ru_maxrss would count the peak of pytest, which forked it
    script = (
        "import sys\n"
        "from checker.analysis import reader as inputs\n"
        "try:\n    print(len(inputs.read_table(sys.argv[1]).rows))\n"
        "except inputs.TableError as error:\n    print(error)\n"
        "print(next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(table)], capture_output=True, text=True, timeout=120)
    said, peak_kb = done.stdout.splitlines()
    assert said == (f"{table} {refused}" if refused else str(inputs.MAX_TABLE_ROWS))
    assert int(peak_kb) < 200_000


# --- empty and all-invalid inputs ----------------------------------------------------------------
@pytest.fixture(scope="module")
def all_invalid(tmp_path_factory) -> Path:
    """The bundled example with every summary log removed: two results, both invalid."""
    root = tmp_path_factory.mktemp("invalid") / "tree"
    shutil.copytree(EXAMPLE, root)
    for summary in root.rglob("mlperf_log_summary.txt"):
        summary.unlink()
    return root


def test_compare_and_report_on_a_tree_with_no_valid_result_say_why(all_invalid: Path, tmp_path: Path) -> None:
    """They gave exit 3 (KeyError: 'kind')."""
    done = runner.invoke(app, ["compare", str(all_invalid), "--round", "demo-v6.1", "--no-progress"])
    assert done.exit_code == 2  # issue 33: nothing measured, no verdict ("0 groups" before)
    assert done.stderr == (
        f"warning: {all_invalid}: no valid result (2 of 2 invalid; `mlperf-check check` says why)\n"
        f"error: {all_invalid}: no result rows to compare: nothing measured there\n"
    )
    assert done.stdout == ""
    page = tmp_path / "audit.html"
    done = runner.invoke(app, ["report", str(all_invalid), "--round", "demo-v6.1", "-o", str(page), "--no-progress"])
    assert done.exit_code == 1  # as check: two invalid results
    assert done.stderr == f"{page}: 2 results, 2 invalid\n"
    assert "No comparable group has results from enough submitters." in page.read_text()


BROKEN = st.sampled_from(
    [
        ("Model", None),
        ("Performance_Result", float("nan")),
        ("Performance_Result", -5),
        ("Performance_Result", "twelve"),  # "12" reads as 12, as in a CSV (attack25 L5)
        ("Nodes", 0),
        ("a#", 1e400),
        ("version", "../../etc/x.yaml"),
        ("Submitter", ["a"]),
        ("Performance_Units", ""),
        ("Power_Result", float("inf")),
    ]
)


@pytest.mark.slow
@FIXED
@given(breaks=st.lists(BROKEN, min_size=0, max_size=5))
def test_every_analysis_command_on_an_all_invalid_table_exits_0_to_2_and_says_why(tmp_path_factory, breaks) -> None:
    folder = tmp_path_factory.mktemp("invalid")
    table = write_table(
        folder / "t.json",
        [table_row(Availability="preview", **{key: value}) for key, value in breaks],
    )
    good = write_table(folder / "good.json", [table_row(version="v6.1")])
    claims_file = folder / "claims.yaml"
    claims_file.write_text(
        "claims:\n- {id: a, kind: spread, expect: 0.04, reference: 'submitter:Acme', in: {round: v6.0}}\n"
    )
    for args, codes in (
        (["compare", str(table)], (2,)),  # issue 33: nothing measured, no verdict
        (["compare", str(table), "--reference", "submitter:Acme", "-f", "csv"], (2,)),
        (["claims", str(claims_file), "--table", f"v6.0={table}"], (1,)),
        (["followup", "--previous", str(table), "--current", str(good)], (0,)),
    ):
        done = runner.invoke(app, args)
        assert done.exit_code in codes, (args, breaks, done.output)
        reason = "every row is left out" if breaks else "the table holds no rows"
        assert f"warning: {table}: {reason}" in done.stderr, (args, done.stderr)


def test_every_analysis_command_on_an_all_invalid_tree_exits_0_to_2_and_says_why(all_invalid: Path) -> None:
    claims_file = all_invalid.parent / "claims.yaml"
    claims_file.write_text("claims:\n- {id: a, kind: value, expect: 1, in: {round: v6.1}}\n")
    preview = write_table(all_invalid.parent / "preview.json", [table_row(Availability="preview")])
    reason = f"warning: {all_invalid}: no valid result"
    for args, code in (
        (["compare", str(all_invalid), "--round", "demo-v6.1", "-f", "json"], 2),  # nothing measured
        (["compare", str(all_invalid), "--round", "demo-v6.1", "--reference", "submitter:MLCheckDemo"], 2),
        (["claims", str(claims_file), "--table", f"v6.1={all_invalid}"], 1),
        (["followup", "--previous", str(preview), "--current", str(all_invalid), "--current-round", "demo-v6.1"], 0),
    ):
        done = runner.invoke(app, [*args, "--no-progress"])
        assert done.exit_code == code, (args, done.output)
        assert reason in done.stderr, (args, done.stderr)
