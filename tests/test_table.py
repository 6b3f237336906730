"""The published results table, per round: built from the tree, compared with the published rows
field for field (keys, order, types and values), and read back by load_table."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from checker.analysis.reader import load_table
from checker.cli import app
from checker.commands.table import (
    TableFormat,
    dumps,
    normalise,
    publish,
    published_numbers,
    render,
    table_row,
    to_csv,
    valid_rows,
)
from checker.rounds import load_round
from helpers import ENDPOINTS, EXAMPLE, REAL_ROOT, TABLES_ROOT, cli, real_data, real_report, run, tree_digest

PUBLICATION = ("ID", "Details", "Code", "ColorKey")
# Fields of the published v6.1 summary.json that the stored copy leaves out (shared/tables/README.md).
LEFT_OUT_OF_COPY = ("framework", "operating_system", "notes", "PrivateID")
WHOLE_TABLES = {"v5.1": "v5.1/summary_results.json", "v6.0": "v6.0/summary_results.json", "v6.1": "v6.1/summary.json"}


def _slice(round_name: str) -> Path:
    return real_data(REAL_ROOT / round_name)


def _whole(round_name: str) -> list[dict]:
    path = real_data(TABLES_ROOT / WHOLE_TABLES[round_name])
    data = json.loads(path.read_text())
    return list(data.values()) if isinstance(data, dict) else data


def _missing_locations(real: Path) -> set[str]:
    """Result folders that hold (or should hold) a file listed in MISSING.txt."""
    locations = set()
    for line in (real / "MISSING.txt").read_text().splitlines():
        parts = line.strip().split("/")
        if (
            len(parts) >= 7
            and parts[2] in ("results", "compliance", "measurements")
            and parts[-1] != "mlperf_log_trace.json"
        ):
            locations.add("/".join(parts[:2] + ["results"] + parts[3:6]))
    return locations


def _without_logs(real: Path) -> set[str]:
    """Result folders whose performance or accuracy loadgen log MISSING.txt lists: they
    cannot be valid, and their rows have no metric to compare."""
    locations = set()
    for line in (real / "MISSING.txt").read_text().splitlines():
        parts = line.strip().split("/")
        if (
            parts[2:3] == ["results"]
            and parts[-1] == "mlperf_log_detail.txt"
            and (parts[6:] == ["performance", "run_1", "mlperf_log_detail.txt"] or parts[6:7] == ["accuracy"])
        ):
            locations.add("/".join(parts[:6]))
    return locations


def _published(round_name: str) -> list[dict]:
    """The published rows of the slice's submitters."""
    real = _slice(round_name)
    if (real / "summary_results.json").is_file():
        return json.loads((real / "summary_results.json").read_text())
    submitters = {
        p.name
        for division in real.iterdir()
        if division.name in ("closed", "open", "network")
        for p in division.iterdir()
    }
    return [row for row in _whole(round_name) if row["Organization"] in submitters]


# (round, Location, key) of published values the tree does not give yet, each for a reason
# outside the table format. Every other difference fails the test.
KNOWN_DIFFERENCES: set[tuple[str, str, str]] = set()  # (round, Location, key) expected to differ: none


def _differences(published: dict, built: dict, left_out: tuple[str, ...]) -> list[tuple[str, str]]:
    """(key, what) for each difference: values and their types exactly, and the key order."""
    found = []
    for key, value in published.items():
        if key in PUBLICATION:
            continue
        if key not in built:
            found.append((key, f"missing (published {value!r})"))
        elif type(built[key]) is not type(value) or built[key] != value:
            found.append(
                (key, f"{built[key]!r} ({type(built[key]).__name__}) != published {value!r} ({type(value).__name__})")
            )
    found += [(key, f"extra {built[key]!r}") for key in built if key not in published and key not in left_out]
    order = [key for key in published if key not in PUBLICATION and key in built]
    if [key for key in built if key in order] != order:
        found.append(("<order>", f"{list(built)} != published {list(published)}"))
    return found


@pytest.mark.real
@pytest.mark.parametrize("round_name, compared", [("v5.1", 133), ("v6.0", 70), ("v6.1", 2)])
@pytest.mark.full
def test_table_reproduces_the_published_rows(round_name: str, compared: int) -> None:
    """Every published row of the slice, field for field in the round's format, from the rows
    of every result (valid or not: the validity rules are fixed apart)."""
    real = _slice(round_name)
    report = real_report(round_name)
    fmt = TableFormat.of(report.round)
    facts = [r.collected for r in report.results if r.collected]
    assert len(facts) == len(report.results)
    built = render(facts, fmt)
    location = fmt.key("Location")
    ours = {row[location]: row for row in built}
    assert len(ours) == len(built)
    unbuildable = {
        fmt.table.location.format(result=row["Location"], performance=row["_performance"])
        for row in facts
        if row["Location"] in _without_logs(real)
    }
    published = [row for row in _published(round_name) if row[location] not in unbuildable]
    assert len(published) == compared
    left_out = LEFT_OUT_OF_COPY if fmt.shape == "index" else ()
    problems = []
    for row in published:
        if row[location] not in ours:
            problems.append(f"{row[location]}: no row")
            continue
        problems += [
            f"{row[location]}: {key}: {what}"
            for key, what in _differences(row, ours[row[location]], left_out)
            if (round_name, row[location], key) not in KNOWN_DIFFERENCES
        ]
    # The rows come in the published order.
    order = [loc for loc in ours if loc in {row[location] for row in published}]
    if order != [row[location] for row in published]:
        problems.append("rows are not in the published order")
    assert not problems, "\n".join(problems[:30])


# --- the round files' table facts hold over the whole published tables --------------------


@pytest.mark.real
@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
def test_every_published_row_has_the_keys_of_the_round_file(round_name: str) -> None:
    fmt = TableFormat.of(load_round(round_name))
    left_out = LEFT_OUT_OF_COPY if fmt.shape == "index" else ()
    for row in _whole(round_name):
        power = fmt.key("Power_Result") in row
        assert list(row) == [k for k in fmt.all_keys(power=power) if k not in left_out], row


@pytest.mark.real
@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
def test_published_rows_follow_the_round_files_field_rules(round_name: str) -> None:
    """Submitter is the folder's name; Location, compliance, inferred (every Interactive row
    where the rule is scenario_differs), Total Accelerators and the model labels as the
    round file says."""
    fmt = TableFormat.of(load_round(round_name))
    key = fmt.key
    models = set(load_round(round_name).models)
    labels = fmt.table.model_labels
    assert set(labels) <= models
    for row in _whole(round_name):
        path = row[key("Location")].removeprefix("./")
        division, submitter = path.split("/")[:2]
        assert row[key("Submitter")] == submitter
        assert row[key("Category")] == division
        assert path.endswith("/performance/run_1") == ("{performance}" in fmt.table.location)
        assert row[key("Location")].startswith("./") == fmt.table.location.startswith("./")
        assert row["compliance"] == (division if isinstance(fmt.table.compliance, str) else fmt.table.compliance)
        if fmt.table.inferred.rule == "scenario_differs" and row[key("Scenario")] == "Interactive":
            assert row["inferred"] == 1
        if key("Total Accelerators") in fmt.keys:
            per_node = row[key("a#")] or 0
            assert row[key("Total Accelerators")] == row[key("Nodes")] * per_node
        assert row[key("Model")] in models or row[key("Model")] in labels.values()


@pytest.mark.real
def test_every_published_number_is_written_as_pandas_writes_it() -> None:
    """All 2,484 numbers of the three whole tables are fixed points of the formatting."""
    numbers = [
        value for name in WHOLE_TABLES for row in _whole(name) for value in row.values() if isinstance(value, float)
    ]
    assert len(numbers) == 2484
    assert published_numbers(numbers) == numbers


def test_numbers_are_written_as_the_published_tables_write_them() -> None:
    """pandas' encoder (DataFrame.to_json, double_precision=10), read back as generate_final_report.py
    does: at most ten decimals, and its own rules for large and tiny values, where round(x, 10)
    would differ (1.2345678901234568e+17, 4.16640737618667e-16)."""
    cases = {
        7.627155999999999: 7.627156,
        7058.989199685204: 7058.9891996852,
        3807.66351136147: 3807.6635113615,
        57.401991155000005: 57.401991155,
        0.5133949999999999: 0.513395,
        9514.402407704656: 9514.4024077047,
        0.1 + 0.2: 0.3,
        12510.0: 12510.0,
        -3.25: -3.25,
        9999999999999998.0: 9999999999999998.0,
        1.2345678901234568e17: 1.23456789e17,
        1e20: 1e20,
        5e-11: 1e-10,
        1.5e-12: 0.0,
        4.16640737618667e-16: 4.166407376e-16,
    }
    assert published_numbers(list(cases)) == list(cases.values())
    assert published_numbers([7.627155999999999], 3) == [7.627]
    assert published_numbers([]) == []


# --- the formats on the bundled examples ---------------------------------------------------


def _facts(root: Path, round_name: str) -> list[dict]:
    report = run(root, round_name, collect=table_row)
    return valid_rows(report)


def test_the_example_in_the_v61_format() -> None:
    """demo-v6.1 extends v6.1: its table is v6.1's summary.json, one object per row."""
    fmt = TableFormat.of(load_round("demo-v6.1"))
    rows = render(_facts(EXAMPLE, "demo-v6.1"), fmt)
    assert [r["Scenario"] for r in rows] == ["Offline", "SingleStream"]
    assert rows[0] == {
        "Organization": "MLCheckDemo",
        "Availability": "available",
        "Division": "closed",
        "SystemType": "edge",
        "SystemName": "Demo CPU box (1x numpy)",
        "Platform": "cpu-1x-numpy",
        "Model": "demo-mlp-99",
        "MlperfModel": "demo-mlp-99",
        "Scenario": "Offline",
        "Result": rows[0]["Result"],
        "Units": "Samples/s",
        "Accuracy": "acc: 89.062",
        "number_of_nodes": 1,
        "host_processor_model_name": "Any x86-64 or aarch64 CPU",
        "host_processors_per_node": 1,
        "host_processor_core_count": "2",
        "accelerator_model_name": None,  # "N/A" is what pandas reads as missing
        "accelerators_per_node": 0,
        "total_accelerators": 0,
        "Location": "./closed/MLCheckDemo/results/cpu-1x-numpy/demo-mlp-99/Offline/performance/run_1",
        "framework": "numpy",
        "operating_system": "Linux",
        "notes": "Generated by fixtures/generate.py with checker/commands/harness.py",
        "compliance": "closed",
        "errors": 0,
        "version": "demo-v6.1",
        "inferred": 0,
        "has_power": False,
        "weight_data_types": "int8",
        "design_power_watts": None,
        "PrivateID": None,
    }
    assert isinstance(rows[0]["Result"], float)
    text = dumps(rows, fmt)
    assert list(json.loads(text)) == ["0", "1"]


def test_the_example_in_the_v51_and_v60_formats() -> None:
    """The same facts, written as v5.1 and v6.0 write them."""
    facts = _facts(EXAMPLE, "demo-v6.1")
    v51 = render(facts, TableFormat.of(load_round("v5.1")))[0]
    v60 = render(facts, TableFormat.of(load_round("v6.0")))[0]
    assert (v51["Location"], v51["compliance"], v51["Accelerator"], v51["a#"], v51["p#"]) == (
        "closed/MLCheckDemo/results/cpu-1x-numpy/demo-mlp-99/Offline",
        1,
        "",
        "",
        1,
    )
    assert "Total Accelerators" not in v51
    assert (v60["Location"], v60["compliance"], v60["Total Accelerators"]) == (
        "./closed/MLCheckDemo/results/cpu-1x-numpy/demo-mlp-99/Offline/performance/run_1",
        "closed",
        0,
    )
    assert v60["Unique ID (e.g. for Audit)"] == "edge/closed/MLCheckDemo/cpu-1x-numpy"
    assert not set(PUBLICATION) & set(v51) | set(PUBLICATION) & set(v60)
    published = render(facts, TableFormat.of(load_round("v6.0")), "https://example.org/tree/main", 7)
    assert [(r["ID"], r["Code"], r["ColorKey"]) for r in published] == [
        ("6.0-0007", "https://example.org/tree/main/closed/MLCheckDemo/src", "availableMLCheckDemo")
    ] * 2
    assert list(published[0])[:2] == ["ID", "Submitter"]


def test_an_endpoints_submission_in_the_v61_format() -> None:
    """Endpoints results: the effective scenario is config.yaml's `type` ("online",
    "offline"), so inferred is 1 on both rows, as in the published v6.1 table."""
    rows = render(_facts(ENDPOINTS, "v6.1"), TableFormat.of(load_round("v6.1")))
    assert [(r["Scenario"], r["Result"], r["Units"], r["inferred"]) for r in rows] == [
        ("Interactive", 2370.5, "Tokens/s", 1),
        ("Offline", 12510.0, "Tokens/s", 1),
    ]
    assert rows[0]["Accuracy"] == "43.12"  # the first accuracy_scores[].score, as the round's checker keeps it
    canonical = publish(_facts(ENDPOINTS, "v6.1"), None, None, "v6.1")
    assert [(r["Submitter"], r["Scenario"], r["Performance_Result"], r["p#"]) for r in canonical] == [
        ("EndpointsDemo", "Interactive", 2370.5, 1),
        ("EndpointsDemo", "Offline", 12510.0, 1),
    ]
    described = publish(_facts(ENDPOINTS, "v6.1"), None, None, "v6.1", with_description=True)
    assert [(r["Software"], r["framework"], r["Processor"], r["host_processor_model_name"]) for r in described] == [
        ("vLLM 0.11", "vLLM 0.11", "Any x86-64 or aarch64 CPU", "Any x86-64 or aarch64 CPU")
    ] * 2


def test_submitter_is_the_folder_name(example: Path) -> None:
    """Published 'Dell' where the description says 'DELL': the folder's name, in every round."""
    system = example / "closed" / "MLCheckDemo" / "systems" / "cpu-1x-numpy.json"
    system.write_text(system.read_text().replace('"submitter": "MLCheckDemo"', '"submitter": "MLCHECKDEMO"'))
    report = run(example, "demo-v6.1", collect=table_row)
    assert {r.collected["Submitter"] for r in report.results} == {"MLCheckDemo"}


def test_lower_case_scenario_folders_per_round(example: Path) -> None:
    """v6.0 capitalises the scenario and marks a lower-case folder inferred; v6.1 keeps the
    folder's name; v5.1 writes the round's spelling and infers only by its rules."""
    results = example / "closed" / "MLCheckDemo" / "results" / "cpu-1x-numpy" / "demo-mlp-99"
    (results / "Offline").rename(results / "offline")
    facts = [r.collected for r in run(example, "demo-v6.1", collect=table_row).results if r.collected]
    for round_name, scenario, inferred in (("v5.1", "Offline", 0), ("v6.0", "Offline", 1), ("v6.1", "offline", 1)):
        fmt = TableFormat.of(load_round(round_name))
        row = next(
            r for r in render(facts, fmt) if r[fmt.key("Location")].endswith(("offline", "offline/performance/run_1"))
        )
        assert (row["Scenario"], row["inferred"]) == (scenario, inferred), round_name


def _power_facts() -> list[dict]:
    row = dict(_facts(EXAMPLE, "demo-v6.1")[0])
    row.update(Power_Result=41.234567890123, Power_Units="Watts", has_power=True)
    return [row]


def test_a_power_result_per_round() -> None:
    """v5.1/v6.0: one row, Power_* before Performance_*; v6.1: a second row with the power
    metric as Result and Units. load_table merges it back."""
    v51 = render(_power_facts(), TableFormat.of(load_round("v5.1")))
    assert len(v51) == 1
    assert list(v51[0])[-4:] == ["Power_Result", "Power_Units", "Performance_Result", "Performance_Units"]
    assert (v51[0]["Power_Result"], v51[0]["has_power"]) == (41.2345678901, True)
    fmt = TableFormat.of(load_round("v6.1"))
    v61 = render(_power_facts(), fmt)
    assert [(r["Units"], r["has_power"]) for r in v61] == [("Samples/s", True), ("Watts", True)]
    assert v61[1]["Result"] == 41.2345678901
    back = normalise(json.loads(json.dumps(v61)), fmt)
    assert len(back) == 1
    assert (back[0]["Power_Result"], back[0]["Power_Units"], back[0]["Performance_Units"]) == (
        41.2345678901,
        "Watts",
        "Samples/s",
    )


# --- reading tables back ----------------------------------------------------------------


@pytest.mark.real
@pytest.mark.parametrize("round_name, count", [("v5.1", 1448), ("v6.0", 520), ("v6.1", 492)])
def test_load_table_reads_every_published_format(round_name: str, count: int) -> None:
    _whole(round_name)
    rows = load_table(str(real_data(TABLES_ROOT / WHOLE_TABLES[round_name])))
    assert len(rows) == count
    for row in rows:
        assert {
            "Submitter",
            "Category",
            "Model",
            "Scenario",
            "Nodes",
            "a#",
            "Accelerator",
            "Processor",
            "p#",
            "Platform",
            "Location",
            "Availability",
            "Performance_Result",
            "Performance_Units",
        } <= set(row)
    first = rows[0]
    if round_name == "v6.1":
        assert (
            first["Submitter"],
            first["Category"],
            first["UsedModel"],
            first["Model"],
            first["Nodes"],
            first["a#"],
            first["Total Accelerators"],
            first["p#"],
            first["Performance_Result"],
        ) == ("AMD", "closed", "dlrm-v3", "dlrm-v3", 1, 8, 8, 2, 10891.1)


def test_load_table_reads_the_csv_of_each_format(tmp_path: Path) -> None:
    facts = _power_facts()
    for round_name in ("v5.1", "v6.0", "v6.1"):
        fmt = TableFormat.of(load_round(round_name))
        out = tmp_path / f"{round_name}.csv"
        out.write_text(to_csv(render(facts, fmt), fmt.all_keys()))
        (row,) = load_table(str(out))
        assert (row["Submitter"], row["Scenario"], row["Power_Result"], row["Power_Units"]) == (
            "MLCheckDemo",
            "Offline",
            41.2345678901,
            "Watts",
        ), round_name
        assert (row["Nodes"], row["p#"], row["host_processor_core_count"]) == (1, 1, "2"), round_name
        json_out = tmp_path / fmt.table.file
        json_out.write_text(dumps(render(facts, fmt), fmt))
        (from_json,) = load_table(str(json_out))
        assert (from_json["Submitter"], from_json["Power_Result"]) == ("MLCheckDemo", 41.2345678901), round_name


def test_load_table_rejects_other_json(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"rows": []}')
    with pytest.raises(ValueError, match="not a results table"):
        load_table(str(path))


# --- the command ------------------------------------------------------------------------

runner = CliRunner()


def test_table_command_writes_the_rounds_format(tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    done = runner.invoke(app, ["table", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1", "-o", str(out)])
    assert done.exit_code == 0, done.output
    data = json.loads(out.read_text())
    assert list(data) == ["0", "1"]
    assert list(data["0"])[:3] == ["Organization", "Availability", "Division"]
    assert "2 rows in the demo-v6.1 table format (summary.json)" in done.output
    csv_out = tmp_path / "t.csv"
    done = runner.invoke(
        app, ["table", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1", "-f", "csv", "-o", str(csv_out)]
    )
    assert done.exit_code == 0, done.output
    header = next(csv.reader(io.StringIO(csv_out.read_text())))
    assert header == TableFormat.of(load_round("v6.1")).keys


def test_table_command_refuses_publication_keys_the_round_has_not() -> None:
    done = runner.invoke(
        app, ["table", str(EXAMPLE), "--round", "v6.1", "--publish-base", "https://x", "--first-id", "1"]
    )
    assert done.exit_code == 2
    assert "has no ID, Details, Code or ColorKey" in done.output


@pytest.mark.slow
@pytest.mark.real
@pytest.mark.full
def test_table_command_writes_json_and_csv(real: Path, tmp_path: Path) -> None:
    before = tree_digest(real)
    out_json, out_csv = tmp_path / "summary_results.json", tmp_path / "t.csv"
    base = "https://github.com/mlcommons/inference_results_v5.1/tree/main"
    for fmt, out in (("json", out_json), ("csv", out_csv)):
        done = cli(
            "table",
            str(real),
            "--round",
            "v5.1",
            "-f",
            fmt,
            "-o",
            str(out),
            "--publish-base",
            base,
            "--first-id",
            "1",
            "-j",
            "2",
        )
        assert done.returncode == 0, done.stderr
        assert "rows in the v5.1 table format (summary_results.json)" in done.stderr
    rows = json.loads(out_json.read_text())
    assert len(rows) == 131
    first = rows[0]
    assert list(first)[:4] == ["ID", "Submitter", "Availability", "Category"]
    assert (first["ID"], first["Location"]) == (
        "5.1-0001",
        "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive",
    )
    assert first["Details"] == f"{base}/closed/AMD/results/8xMI300X_2xEPYC_9575F"
    assert first["Code"] == f"{base}/closed/AMD/code"
    assert first["ColorKey"] == "availableAMD"
    table = list(csv.DictReader(io.StringIO(out_csv.read_text())))
    assert [r["Location"] for r in table] == [r["Location"] for r in rows]
    assert list(table[0]) == [k for k in TableFormat.of(load_round("v5.1")).all_keys() if any(k in r for r in rows)]
    assert load_table(str(out_csv))[0]["Performance_Result"] == rows[0]["Performance_Result"]
    assert load_table(str(out_json)) == rows
    assert tree_digest(real) == before


# --- the cached facts of a format, against what a row's render read before ----------------------
# The format's written facts and missing values are read once a format (TableFormat.written_facts,
# na_values) and render's keys once a render. `_rendered_as_before` is the render that read them
# once a row (as it was before that change): on any row values, the rows must be the same, key
# for key, value for value, in the same order, power rows and publication keys included.
def _as_published_per_row(fmt: TableFormat, row: dict) -> dict:
    publication = fmt.publication
    values = {fact: row.get(fact) for fact in [fmt.fact(key) for key in fmt.all_keys() if key not in publication]}
    values.update({fact: row.get(fact) for fact in fmt.power.row.values()})
    table = fmt.table
    values["Location"] = table.location.format(result=row["Location"], performance=row["_performance"])
    compliance = table.compliance
    values["compliance"] = compliance.format(division=row["Category"]) if isinstance(compliance, str) else compliance
    values["inferred"] = fmt.inferred_of(row)
    if table.scenario == "folder":
        values["Scenario"] = row["_scenario_folder"]
    values["Model"] = table.model_labels.get(row["Model"], row["Model"])
    na_values = set(table.na_values)
    for fact, value in values.items():
        if value is None or (isinstance(value, str) and value in na_values):
            values[fact] = fmt.blank
    for fix in table.fixes:
        fact = fmt.fact(fix.key)
        if type(values.get(fact)) is type(fix.value) and values[fact] == fix.value:
            values[fact] = fix.becomes
    return values


def _rendered_as_before(rows: list[dict], fmt: TableFormat, base: str | None, first_id: int | None) -> list[dict]:
    from checker.analysis.published.format import _publication

    def order(pair: tuple[dict, dict]) -> tuple[str, ...]:
        return tuple("" if pair[0].get(fmt.fact(k)) is None else str(pair[0].get(fmt.fact(k))) for k in fmt.table.order)

    numbers: dict[str, int] = {}
    out: list[dict] = []
    for values, row in sorted(((_as_published_per_row(fmt, row), row) for row in rows), key=order):
        if base is not None and first_id is not None and fmt.publication:
            unique = values["Unique ID (e.g. for Audit)"]
            numbers.setdefault(unique, first_id + len(numbers))
            values.update(_publication(fmt, values, base, numbers[unique]))
        has_power = row.get("Power_Result") is not None
        keys = [k for k in fmt.all_keys(power=has_power) if k not in fmt.publication or k in values]
        published = {key: values[fmt.fact(key)] for key in keys}
        out.append(published)
        if has_power and fmt.power.row:
            out.append({**published, **{key: values[fact] for key, fact in fmt.power.row.items()}})
    return out


def _cell_values(fmt: TableFormat):  # a strategy: what a row's fact may hold, the round's missing words too
    from hypothesis import strategies as st

    return st.one_of(
        st.none(),
        st.just(float("nan")),
        st.sampled_from(sorted(fmt.table.na_values) or [""]),
        st.sampled_from(["", "N/A", "available", "Ünïcødé ✓", "a,b", '"quoted"', "0", "True"]),
        st.integers(-(2**40), 2**40),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
        st.text(max_size=6),
    )


@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
def test_the_formats_cached_facts_render_as_reading_them_once_a_row(round_name: str) -> None:
    """Random values in every fact a row writes (None, NaN, the round's missing words, text,
    numbers, booleans), with or without power, with or without publication keys: render's
    rows are those of a render that reads the format's facts once a row."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    fmt = TableFormat.of(load_round(round_name))
    assert fmt is not None
    plain = _facts(EXAMPLE, "demo-v6.1")
    bases = [*plain, *_power_facts()]
    facts = sorted(set(fmt.written_facts) - {"Location", "Category", "Model"})

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(
        st.lists(
            st.tuples(st.sampled_from(range(len(bases))), st.dictionaries(st.sampled_from(facts), _cell_values(fmt))),
            min_size=1,
            max_size=5,
        ),
        st.booleans(),
    )
    def same(edits: list[tuple[int, dict]], published: bool) -> None:
        rows = [{**bases[at], **changed} for at, changed in edits]
        base, first = ("https://example.org/tree/main", 3) if published else (None, None)
        before = _rendered_as_before([dict(r) for r in rows], fmt, base, first)
        now = render([dict(r) for r in rows], fmt, base, first, as_written=False)
        assert repr(now) == repr(before)  # repr: NaN equals NaN, and 1 is not True

    same()
