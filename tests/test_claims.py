"""Claims checked against the published tables (MLPERF_CHECK_TABLES; see helpers.py), each against a computation
written here independently from the raw published rows; and the same hardware across rounds."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest

from checker.analysis import across, claims
from checker.analysis.reader import load_table
from checker.analysis.table import normalise
from helpers import TABLES_ROOT as TABLES
from helpers import real_data

FILES = {"v5.1": "v5.1/summary_results.json", "v6.0": "v6.0/summary_results.json", "v6.1": "v6.1/summary.json"}

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def raw() -> dict[str, list[dict]]:
    """The published rows as published (v6.1 in its own key names), read with json alone."""
    real_data(TABLES)
    out = {}
    for name, rel in FILES.items():
        data = json.loads((TABLES / rel).read_text())
        out[name] = list(data.values()) if isinstance(data, dict) else data
    return out


@pytest.fixture(scope="module")
def rows() -> dict:
    real_data(TABLES)
    return {name: normalise(load_table(str(TABLES / rel))) for name, rel in FILES.items()}


def _mine(
    raw: list[dict],
    model: str,
    scenario: str,
    accelerator: str,
    per_node: int | None = None,
    nodes: int | None = None,
    division: str = "closed",
    whole: str | None = None,
) -> list[tuple[float, dict]]:
    """The independent selection: published keys of either format, read directly."""
    found = []
    for row in raw:
        get = lambda *keys, row=row: next((row[k] for k in keys if k in row), None)  # noqa: E731
        if division != "any" and get("Category", "Division") != division:
            continue
        if get("MlperfModel", "Model") != model and get("Model", "UsedModel") != model:
            continue
        if str(get("Scenario")).lower() != scenario.lower():
            continue
        name = str(get("Accelerator", "accelerator_model_name")).lower()
        if not re.search(r"(?<![a-z0-9])" + re.escape(accelerator.lower()), name):  # a part that starts a word
            continue
        if whole is not None and name.split(" (x")[0] != whole.lower():
            continue
        if per_node is not None and get("a#", "accelerators_per_node") != per_node:
            continue
        if nodes is not None and get("Nodes", "number_of_nodes") != nodes:
            continue
        found.append((float(get("Performance_Result", "Result")), row))
    return found


# AMD and its partners: gpt-oss-120b Offline on 8x MI355X, one node, in v6.1.
MI355X_OFFLINE = {
    "round": "v6.1",
    "model": "gpt-oss-120b",
    "scenario": "Offline",
    "accelerator": "MI355X",
    "per_node": 8,
    "nodes": 1,
}


def _check(claim: dict, rows: dict) -> claims.ClaimVerdict:
    return claims.assess(claim, rows)


def test_spread_partners_within_4_percent(raw, rows) -> None:
    selection = MI355X_OFFLINE
    verdict = _check({"id": "s", "kind": "spread", "expect": 0.04, "in": selection}, rows)
    values = [v for v, _ in _mine(raw["v6.1"], "gpt-oss-120b", "offline", "MI355X", 8, 1)]
    median = statistics.median(values)
    expected = sum(abs(v - median) / median for v in values) / len(values)
    assert len(values) == 8 and verdict.verdict == "holds"
    assert verdict.measured == pytest.approx(expected, rel=1e-12)
    assert verdict.detail["max"] == pytest.approx(max(abs(v - median) / median for v in values), rel=1e-12)
    assert len(verdict.rows) == 8


def test_a_spread_from_a_reference_submitter_is_over_its_partners(raw, rows) -> None:
    """Issue 21: "our partners are within 4% of us" is measured as compare --reference
    measures it: AMD's own row is not a partner; 4.07% fails, and the two beyond are named."""
    selection = MI355X_OFFLINE
    claim = {"id": "s", "kind": "spread", "expect": 0.04, "reference": "submitter:AMD", "in": selection}
    verdict = _check(claim, rows)
    found = _mine(raw["v6.1"], "gpt-oss-120b", "offline", "MI355X", 8, 1)
    (amd,) = [v for v, r in found if r["Organization"] == "AMD"]
    partners = [abs(v - amd) / amd for v, r in found if r["Organization"] != "AMD"]
    assert (verdict.verdict, len(partners)) == ("fails", 7)
    assert verdict.measured == pytest.approx(statistics.fmean(partners), rel=1e-12)
    assert verdict.measured == pytest.approx(0.040700060746359325, rel=1e-12)
    assert verdict.detail["max"] == pytest.approx(max(partners), rel=1e-12)
    assert verdict.detail["median_abs_dev"] == pytest.approx(statistics.median(partners), rel=1e-12)
    assert (verdict.detail["reference"], verdict.detail["partners"], verdict.detail["n"]) == (
        {"submitter": "AMD", "value": 121818.0},
        7,
        8,
    )
    assert verdict.notes[0] == (
        "7 partners of AMD: mean |dev| 4.07%, median 3.95%, max 5.36%; beyond 4%: "
        "Dell_MangoBoost (PowerEdge XE9785) -5.36%, Oracle -5.13%"
    )
    assert [(r["submitter"], r["role"]) for r in verdict.rows][:2] == [("AMD", "reference"), ("Dell", "partner")]
    # The same selection against its median: every row a partner, as compare's default.
    median = _check({**claim, "reference": "median"}, rows)
    middle = statistics.median(v for v, _ in found)
    assert median.verdict == "holds"
    assert median.measured == pytest.approx(statistics.fmean(abs(v - middle) / middle for v, _ in found), rel=1e-12)


def test_a_selection_in_two_units_is_ambiguous(rows) -> None:
    """Issue 22: no best and no spread is taken across units."""
    selection = {"round": "v6.1", "model": "wan-2.2-t2v-a14b", "accelerator": "MI355X"}
    for kind in ("value", "spread"):
        verdict = _check({"id": "u", "kind": kind, "expect": 1.0, "in": selection}, rows)
        assert (verdict.verdict, verdict.measured) == ("ambiguous", None)
        assert verdict.notes == [
            "the in selection takes rows in 2 units (Latency (s): 3 rows, Samples/s: 3 rows); a figure is never "
            "taken across units: name a scenario (or a model) that has one"
        ]
    side = {"round": "v6.1", "model": "wan-2.2-t2v-a14b", "accelerator": "MI355X", "submitter": "AMD"}
    verdict = _check(
        {
            "id": "r",
            "kind": "ratio",
            "expect": 1.0,
            "from": {**side, "scenario": "SingleStream"},
            "to": {**side, "scenario": "Offline"},
        },
        rows,
    )
    assert (verdict.verdict, verdict.notes) == (
        "ambiguous",
        ["from is in Latency (s) and to in Samples/s: a latency and a throughput are not compared"],
    )


def test_a_spread_claim_that_fails(raw, rows) -> None:
    selection = MI355X_OFFLINE
    verdict = _check({"id": "tight", "kind": "spread", "expect": 0.005, "in": selection}, rows)
    assert verdict.verdict == "fails" and verdict.measured > 0.005


def test_speedup_on_the_same_hardware_since_the_last_round(raw, rows) -> None:
    side = {"model": "gpt-oss-120b", "scenario": "Offline", "accelerator": "MI355X", "per_node": 8, "nodes": 1}
    verdict = _check(
        {
            "id": "up",
            "kind": "speedup",
            "expect": 1.28,
            "from": {"round": "v6.0", **side},
            "to": {"round": "v6.1", **side},
        },
        rows,
    )
    before = max(v for v, _ in _mine(raw["v6.0"], "gpt-oss-120b", "Offline", "MI355X", 8, 1))
    after = max(v for v, _ in _mine(raw["v6.1"], "gpt-oss-120b", "offline", "MI355X", 8, 1))
    assert verdict.measured == pytest.approx(after / before, rel=1e-12)
    assert (verdict.verdict, [r["round"] for r in verdict.rows]) == ("holds", ["v6.0", "v6.1"])
    assert verdict.notes == []  # both best rows: AMD, closed, available


def test_ratio_of_latencies_is_inverted(raw, rows) -> None:
    """A latency that halves is a 2x speedup: best = lowest latency, ratio = from / to."""
    side = {"model": "yolo-95", "scenario": "SingleStream", "accelerator": "GB10"}
    verdict = _check(
        {
            "id": "lat",
            "kind": "ratio",
            "expect": 44.1,
            "margin": 0.01,
            "from": {"round": "v6.0", **side},
            "to": {"round": "v6.1", **side},
        },
        rows,
    )
    before = min(v for v, _ in _mine(raw["v6.0"], "yolo-95", "SingleStream", "GB10"))
    after = min(v for v, _ in _mine(raw["v6.1"], "yolo-95", "singlestream", "GB10"))
    assert verdict.measured == pytest.approx(before / after, rel=1e-12)
    assert verdict.verdict == ("holds" if abs(before / after / 44.1 - 1) <= 0.01 else "fails")


WHOLE = "AMD Instinct MI355X 288GB HBM3e"


def test_scaling_efficiency_per_accelerator(raw, rows) -> None:
    side = {"model": "llama2-70b-99", "scenario": "Offline", "accelerator": "MI355X"}
    verdict = _check(
        {
            "id": "scale",
            "kind": "scaling",
            "expect": 0.95,
            "at_least": True,
            # The whole name: "MI355X" alone also takes its Power Cap 1000 W variant, another group.
            "from": {"round": "v6.0", **side, "accelerator": WHOLE, "nodes": 1, "per_node": 8},
            "to": {"round": "v6.0", **side, "accelerators": 88},
        },
        rows,
    )
    one = max(v for v, _ in _mine(raw["v6.0"], "llama2-70b-99", "Offline", "MI355X", 8, 1, whole=WHOLE))
    cluster = [
        (v, r) for v, r in _mine(raw["v6.0"], "llama2-70b-99", "Offline", "MI355X") if r["Total Accelerators"] == 88
    ]
    many = max(v for v, _ in cluster)
    assert verdict.measured == pytest.approx((many / 88) / (one / 8), rel=1e-12)
    assert verdict.verdict == ("holds" if verdict.measured >= 0.95 * 0.99 else "fails")


def test_value_up_to_claim(raw, rows) -> None:
    selection = {"round": "v6.1", "model": "deepseek-r1", "scenario": "Offline", "accelerator": "B200"}
    top = max(v for v, _ in _mine(raw["v6.1"], "deepseek-r1", "offline", "B200"))
    verdict = _check({"id": "v", "kind": "value", "expect": top * 1.005, "at_least": True, "in": selection}, rows)
    assert verdict.measured == top and verdict.verdict == "holds"  # within the 1% margin below the claim


def test_a_claim_without_data(rows) -> None:
    verdict = _check(
        {
            "id": "none",
            "kind": "value",
            "expect": 1.0,
            "in": {"round": "v6.1", "model": "resnet", "scenario": "Offline", "accelerator": "NoSuchChip"},
        },
        rows,
    )
    assert (verdict.verdict, verdict.measured, verdict.notes) == (
        "no-data",
        None,
        ["no row of v6.1 matches the selection"],
    )


def test_best_rows_from_different_divisions_are_noted(raw, rows) -> None:
    side = {"model": "deepseek-r1", "scenario": "Offline", "accelerator": "B300", "nodes": 1, "division": "any"}
    verdict = _check(
        {
            "id": "div",
            "kind": "ratio",
            "expect": 1.0,
            "from": {"round": "v6.1", **side, "division": "open"},
            "to": {"round": "v6.1", **side, "division": "closed"},
        },
        rows,
    )
    divisions = [r["division"] for r in verdict.rows]
    assert divisions == ["open", "closed"]
    assert "the two sides' best rows come from different divisions: open, closed" in verdict.notes


def test_claims_file_errors_are_usage_errors(tmp_path: Path) -> None:
    bad = tmp_path / "claims.yaml"
    bad.write_text("claims:\n- {id: a, kind: speedup, expect: 2, in: {round: v6.1}}\n")
    with pytest.raises(claims.ClaimsError, match="needs from and to"):
        claims.load_claims(str(bad))
    bad.write_text("claims:\n- {id: a, kind: guess, expect: 2, in: {round: v6.1}}\n")
    with pytest.raises(claims.ClaimsError) as raised:
        claims.load_claims(str(bad))
    assert str(raised.value) == (
        f"{bad}:2: claims/0/kind: 'guess' is not one of ['spread', 'speedup', 'ratio', 'scaling', 'value'] "
        "(schemas/claims.schema.json)"
    )
    bad.write_text(
        "claims:\n- {id: a, kind: value, expect: 2, in: {round: v6.1}}\n- {id: a, kind: value, expect: 3, in: {round: v6.1}}\n"
    )
    with pytest.raises(claims.ClaimsError, match=f"^{bad}:3: claim id 'a' is used twice$"):
        claims.load_claims(str(bad))
    bad.write_text("claims:\n- {id: a, kind: value, expect: 2, reference: 'submitter:X', in: {round: v6.1}}\n")
    with pytest.raises(claims.ClaimsError, match="claim 'a' \\(value\\): only a spread claim has a reference"):
        claims.load_claims(str(bad))


def test_the_same_hardware_across_rounds(raw, rows) -> None:
    series = across.across_rounds([r for table in rows.values() for r in table])
    chosen = [
        s
        for s in series
        if (s.model, s.scenario, s.per_node, s.nodes, s.submitter) == ("gpt-oss-120b", "Offline", 8, 1, "AMD")
        and "MI355X" in s.hardware
    ]
    assert len(chosen) == 1
    ratios = chosen[0].ratios()
    before = max(v for v, r in _mine(raw["v6.0"], "gpt-oss-120b", "Offline", "MI355X", 8, 1) if r["Submitter"] == "AMD")
    after = max(
        v for v, r in _mine(raw["v6.1"], "gpt-oss-120b", "offline", "MI355X", 8, 1) if r["Organization"] == "AMD"
    )
    assert ratios == {"v6.0": 1.0, "v6.1": pytest.approx(after / before, rel=1e-12)}
    mixed = [s for s in series if "MI300X" in s.hardware and "MI325X" in s.hardware]
    assert mixed == []  # a mixed system is its own key: no two rounds share it


def test_scaling_series_across_node_counts(rows) -> None:
    found = [
        s
        for s in across.scaling(rows["v6.0"])
        if (s.model, s.scenario) == ("llama2-70b-99", "Offline") and "MI355X" in s.hardware
    ]
    assert len(found) == 1
    efficiency = found[0].efficiency()
    assert min(efficiency) == 8 and efficiency[8] == 1.0 and 88 in efficiency


def _cli(*args: str):
    from typer.testing import CliRunner

    from checker.cli import app

    return CliRunner().invoke(app, list(args))


def test_claims_command_exit_codes(tmp_path: Path) -> None:
    table = str(real_data(TABLES / FILES["v6.1"]))
    good = tmp_path / "good.yaml"
    good.write_text(
        "claims:\n- id: within\n  kind: spread\n  expect: 0.04\n"
        "  in: {round: v6.1, model: gpt-oss-120b, scenario: Offline, accelerator: MI355X, per_node: 8, nodes: 1}\n"
    )
    done = _cli("claims", str(good), "--table", f"v6.1={table}")
    assert done.exit_code == 0 and done.stdout.splitlines()[-1] == "1 claims: 1 hold, 0 fail, 0 no data, 0 ambiguous"
    tight = tmp_path / "tight.yaml"
    tight.write_text(good.read_text().replace("0.04", "0.001"))
    done = _cli("claims", str(tight), "--table", f"v6.1={table}", "-f", "json")
    assert done.exit_code == 1 and json.loads(done.stdout)["claims"][0]["verdict"] == "fails"
    done = _cli("claims", str(good), "--table", f"v6.0={TABLES / FILES['v6.1']}")
    assert done.exit_code == 2 and "its rows are of round v6.1, not v6.0" in " ".join(done.output.split())
    done = _cli("claims", str(good), "--table", f"v6.0={TABLES / FILES['v6.0']}")
    assert done.exit_code == 2 and "claims select rounds without a --table: v6.1" in " ".join(done.output.split())


def test_compare_reads_the_v61_table_and_across_rounds(tmp_path: Path) -> None:
    real_data(TABLES)
    done = _cli("compare", str(TABLES / FILES["v6.1"]), "-f", "json")
    assert done.exit_code == 0, done.output
    groups = json.loads(done.stdout)["groups"]
    assert {g["scenario"] for g in groups} <= {"Offline", "Server", "Interactive", "SingleStream", "MultiStream"}
    assert any(g["model"] == "qwen3-vl-235b-a22b" for g in groups)  # published as VLM
    tables = (str(TABLES / FILES["v6.0"]), str(TABLES / FILES["v6.1"]))
    # Two rounds' tables never pool: their groups are each table's own (they were 135 pooled).
    alone = [json.loads(_cli("compare", table, "-f", "json").stdout)["groups"] for table in tables]
    together = json.loads(_cli("compare", *tables, "-f", "json").stdout)["groups"]
    assert [len(groups) for groups in alone] == [80, 86] and together == alone[0] + alone[1]
    done = _cli("compare", *tables, "--across-rounds", "-f", "json", "--plot", str(tmp_path / "rounds.svg"))
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert len(data["across_rounds"]) == 215 and len(data["scaling"]) == 77  # one submitter's systems each
    assert all({p["submitter"] for p in s["points"]} == {s["submitter"]} for s in data["scaling"])
    assert (tmp_path / "rounds.svg").is_file() and (tmp_path / "rounds-4.svg").is_file()
    done = _cli("compare", *tables, "--across-rounds", "--scaling-across-submitters", "-f", "json")
    scaling = json.loads(done.stdout)["scaling"]
    assert len(scaling) == 80 and {s["submitter"] for s in scaling} == {"all"}
    done = _cli("compare", str(TABLES / FILES["v6.1"]), "--across-rounds")
    assert done.exit_code == 2 and "needs results of two or more rounds" in " ".join(done.output.split())


# --- issue 31: a claim never pools comparable groups, and one accelerator rule ------------------
B300 = {"round": "v6.0", "model": "llama2-70b-99", "accelerator": "B300", "per_node": 8, "nodes": 1}


def test_a_spread_over_several_scenarios_is_ambiguous_and_names_the_groups(rows) -> None:
    """Before: 13.19% over Offline, Server and Interactive rows pooled in one group."""
    claim = {"id": "s", "kind": "spread", "expect": 0.04, "reference": "submitter:Cisco", "in": B300}
    verdict = _check(claim, rows)
    assert (verdict.verdict, verdict.measured) == ("ambiguous", None)
    assert verdict.notes == [
        "the in selection spans 3 comparable groups (v6.0 llama2-70b-99 Offline, 8x NVIDIA B300-SXM-270GB "
        "(Tokens/s): 5 rows; v6.0 llama2-70b-99 Server, 8x NVIDIA B300-SXM-270GB (Tokens/s): 5 rows; v6.0 "
        "llama2-70b-99 Interactive, 8x NVIDIA B300-SXM-270GB (Tokens/s): 2 rows); a claim never pools groups: "
        "name the scenario, per_node or nodes (or the accelerator) of one"
    ]


def test_a_spread_of_one_group_is_compares_group(rows) -> None:
    """The spread claim and compare --reference on the same selection: number for number."""
    import mlperf_check

    claim = {"id": "s", "kind": "spread", "expect": 0.04, "reference": "submitter:Cisco"}
    verdict = _check({**claim, "in": {**B300, "scenario": "Offline"}}, rows)
    frame = mlperf_check.load_table(TABLES / "v6.0" / "summary_results.json")
    members, groups = mlperf_check.compare(
        frame, "submitter:Cisco", round="v6.0", model="llama2-70b-99", scenario="Offline", accelerator="B300"
    )
    (group,) = groups[(groups["per_node"] == 8) & (groups["nodes"] == 1)].to_dict("records")
    assert verdict.measured == pytest.approx(0.04823511621878511, rel=1e-12)
    assert verdict.measured == group["mean_abs_dev"]
    assert (verdict.detail["max"], verdict.detail["partners"]) == (group["max_abs_dev"], group["partners"])
    partners = members[(members["group"] == group["group"]) & (members["role"] == "partner")]
    assert sorted(r["deviation"] for r in verdict.rows if r["role"] == "partner") == sorted(partners["deviation"])


def test_a_value_claim_names_the_row_it_took_and_b300_is_not_gb300(rows) -> None:
    """Before: "B300" took NVIDIA GB300 (a 72-GPU system, 1,126,850 Tokens/s), unsaid."""
    side = {"round": "v6.0", "model": "llama2-70b-99", "accelerator": "B300", "scenario": "Offline"}
    verdict = _check({"id": "v", "kind": "value", "expect": 115730.0, "in": side}, rows)
    where = "closed/Cisco/results/C880A_M8_B300_288GBx8_TRT/llama2-70b-99/Offline"
    why = "the highest Tokens/s of the 5 rows of v6.0 llama2-70b-99 Offline, 8x NVIDIA B300-SXM-270GB (Tokens/s)"
    assert (verdict.verdict, verdict.measured) == ("holds", 115730.0)
    assert verdict.detail["took"] == [
        {"side": "in", "location": where, "submitter": "Cisco", "result": 115730.0, "why": why}
    ]
    assert verdict.notes == [f"took {where} (Cisco): {why}"]
    pooled = {key: value for key, value in side.items() if key != "scenario"}
    no_scenario = _check({"id": "v", "kind": "value", "expect": 1.0, "in": pooled}, rows)
    assert no_scenario.verdict == "ambiguous"  # Offline, Server, Interactive: never the best of them all
    assert no_scenario.notes[0].startswith("the in selection spans ")
