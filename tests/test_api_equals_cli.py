"""The API and the command line apply the same rules to their inputs (attack25, issue 25).

Every rule the command line applies to what it is given (each result once, a reference known
among the selected rows, filter values checked, a tolerance that is a fraction, a selection
that takes no row said, two rounds for --across-rounds) lives in the functions both call. So
for any option set, `mlperf_check.compare` and `mlperf-check compare` give the same groups,
or the same error: a ValueError with the command line's message, and exit 2."""

from __future__ import annotations

import csv
import json
import math
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import mlperf_check
from checker.analysis.reader import HEADER, NUMERIC
from checker.analysis.selection import Selection
from checker.analysis.table import fold, hardware_name, normalise, one_spelling
from checker.cli import app
from helpers import REAL_ROOT, TABLES_ROOT, real_data, table_row

runner = CliRunner()
MODELS = ("gpt-oss-120b", "llama3.1-8b")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real rows of two models from the v6.0 and v6.1 tables (their own formats), and a file
    repeating Dell_MangoBoost's v6.1 rows (A13's duplicates)."""
    folder = tmp_path_factory.mktemp("tables")
    v61 = json.loads(real_data(TABLES_ROOT / "v6.1" / "summary.json").read_text())
    v60 = json.loads(real_data(TABLES_ROOT / "v6.0" / "summary_results.json").read_text())
    kept61 = [row for row in v61.values() if row.get("Model") in MODELS or row.get("MlperfModel") in MODELS]
    kept60 = [row for row in v60 if row.get("Model") in MODELS]
    written = {
        "v6.1": {str(i): row for i, row in enumerate(kept61)},
        "v6.0": kept60,
        "dup": {str(i): row for i, row in enumerate(r for r in kept61 if r["Organization"] == "Dell_MangoBoost")},
    }
    paths = {}
    for name, data in written.items():
        paths[name] = folder / f"{name}.json"
        paths[name].write_text(json.dumps(data))
    return paths


def _cli(*args: str) -> tuple[int, str, str]:
    done = runner.invoke(app, [*args, "--no-progress"], prog_name="mlperf-check")
    return done.exit_code, done.stdout, done.stderr


def _api(function, *args, **kwargs):  # type: ignore[no-untyped-def]
    """(result, None) or (None, the ValueError's message)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return function(*args, **kwargs), None
        except ValueError as error:
            return None, str(error)


def _key(group: dict) -> tuple:
    return (group["round"], group["model"], group["scenario"], group["hardware"], group["per_node"], group["nodes"])


def _close(a: float | None, b: float | None) -> bool:
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return b is not None and a == pytest.approx(b, rel=1e-9, abs=1e-12)


NAMES = st.sampled_from(["AMD", "amd", "NVIDIA", "Dell_MangoBoost", "Nobody"])


@st.composite
def _options(draw: st.DrawFn) -> tuple[list[str], dict[str, list[str]], list[str], dict]:
    """(files, filters, CLI arguments, API keyword arguments) of one compare run."""
    files = draw(st.lists(st.sampled_from(["v6.1", "v6.0", "dup"]), min_size=1, max_size=3, unique=True))
    values = {
        "model": st.sampled_from(["gpt-oss-120b", "GPT-OSS-120B", "llama3_1-8b", "nosuch", ""]),
        "scenario": st.sampled_from(["Offline", "server", "nosuch", " "]),
        "submitter": NAMES,
        "accelerator": st.sampled_from(["B200", "b300", "MI355X", "H200", "nosuch", ""]),
        "division": st.sampled_from(["closed", "Closed", "OPEN", "network", "foo"]),
        "round": st.sampled_from(["v6.0", "V6.1", "v6.1"]),
    }
    filters = {
        key: draw(st.lists(strategy, min_size=1, max_size=2)) for key, strategy in values.items() if draw(st.booleans())
    }
    reference = draw(st.one_of(st.none(), NAMES))
    tolerance = draw(st.sampled_from([0.04, 0.1, 0.0, 2.0, -1.0, math.nan]))
    minimum = draw(st.sampled_from([1, 2, 3]))
    args = [f"--tolerance={tolerance}", "--min-submitters", str(minimum)]
    if reference is not None:
        args += ["--reference", f"submitter:{reference}"]
    for key, chosen in filters.items():
        for value in chosen:
            args.append(f"--{key}={value}")
    return files, filters, args, {"reference": reference, "tolerance": tolerance, "min_submitters": minimum}


@pytest.mark.real
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(options=_options())
def test_compare_gives_the_command_lines_groups_or_its_error(inputs: dict[str, Path], options: tuple) -> None:
    files, filters, args, keywords = options
    paths = [str(inputs[name]) for name in files]
    status, out, err = _cli("compare", *paths, *args, "-f", "json")
    frames = [mlperf_check.load_table(path) for path in paths]
    found, error = _api(mlperf_check.compare, frames, **keywords, **filters)
    if status == 2:  # the same refusal, the parameter named as each door names it (errors.option)
        assert error is not None, (args, err)
        said = err.rstrip("\n").splitlines()[-1].removeprefix("error: ")
        named = re.sub(r"^--([a-z-]+)", lambda m: m.group(1).replace("-", "_"), said)
        assert error in (said, named), (args, err, error)
        return
    assert (status, error) == (0, None), (args, err, error)
    listed = json.loads(out)
    groups = found.groups.to_dict("records")
    assert [_key(g) for g in listed["groups"]] == [_key(g) for g in groups]
    for cli_group, api_group in zip(listed["groups"], groups, strict=True):
        assert (cli_group["n"], cli_group["partners"]) == (api_group["n"], api_group["partners"])
        assert _close(cli_group["mean_abs_dev"], api_group["mean_abs_dev"])
    assert listed.get("notes", []) == found.notes == found.groups.attrs["notes"]


# --- exact regressions ---------------------------------------------------------------------------
@pytest.mark.real
def test_a13_duplicates_are_left_out_by_the_api_as_by_the_command_line(inputs: dict[str, Path]) -> None:
    table = mlperf_check.load_table(str(inputs["v6.1"]))
    dell = table[table["submitter"] == "Dell_MangoBoost"]
    with pytest.warns(UserWarning, match=r"^8 duplicate rows ignored \(the round, Location and Submitter"):
        found = mlperf_check.compare([table, dell], model="gpt-oss-120b", scenario="Offline", reference="AMD")
    status, out, _ = _cli(
        "compare", str(inputs["v6.1"]), str(inputs["dup"]), "--model", "gpt-oss-120b", "--scenario", "Offline",
        "--reference", "submitter:AMD", "-f", "json",
    )  # fmt: skip
    assert status == 0
    cli_groups = json.loads(out)["groups"]
    assert [(g["n"], g["partners"]) for g in cli_groups] == list(
        zip(found.groups.n, found.groups.partners, strict=True)
    )
    single = mlperf_check.compare(table, model="gpt-oss-120b", scenario="Offline", reference="AMD")
    assert found.groups["n"].tolist() == single.groups["n"].tolist()


@pytest.mark.real
def test_a1_a10_a4_a3_a11_a5_e2_filters_and_reference_are_checked_in_one_place(inputs: dict[str, Path]) -> None:
    v61 = str(inputs["v6.1"])
    table = mlperf_check.load_table(v61)
    upper = mlperf_check.compare(table, division="Closed")
    lower = mlperf_check.compare(table, division="closed")
    assert len(upper.groups) == len(lower.groups) > 0  # A1: case-blind in both
    assert json.loads(_cli("compare", v61, "--division", "Closed", "-f", "json")[1])["summary"]["groups"] == len(
        lower.groups
    )
    cases = [
        (
            {"submitter": "AMD", "reference": "NVIDIA"},
            ["--submitter", "AMD", "--reference", "submitter:NVIDIA"],
            "--reference submitter:NVIDIA: no closed result of submitter NVIDIA among the selected rows; "
            "their submitters are AMD",
        ),
        (
            {"model": "nosuch"},
            ["--model", "nosuch"],
            "no row matches the selection (model nosuch; division closed): no row has model nosuch; "
            "the model values are gpt-oss-120b, llama3.1-8b",
        ),
        ({"division": "foo"}, ["--division", "foo"], "--division foo: the divisions are closed, open, network"),
        ({"accelerator": " "}, ["--accelerator", " "], "--accelerator ' ': give a name, not a blank"),
        ({"submitter": ""}, ["--submitter", ""], "--submitter '': give a name, not a blank"),
        ({"tolerance": -1}, ["--tolerance", "-1"], "--tolerance -1: give a fraction, e.g. 0.04 for 4%"),
        ({"tolerance": math.nan}, ["--tolerance", "nan"], "--tolerance nan: give a fraction, e.g. 0.04 for 4%"),
    ]
    for keywords, args, message in cases:
        with pytest.raises(ValueError) as raised:
            mlperf_check.compare(table, **keywords)
        # the same message, the parameter named as each door names it: --reference, reference
        option = args[-2] if message.startswith("--") else ""
        assert str(raised.value) == message.replace(option, option.removeprefix("--"), 1)
        assert _cli("compare", v61, *args) == (2, "", f"error: {message}\n")
    with pytest.raises(ValueError, match=r"^tolerance 'abc': give a fraction"):
        mlperf_check.compare(table, tolerance="abc")  # E3
    with pytest.raises(TypeError, match=r"^model: give a name or a list of names, not None$"):
        mlperf_check.compare(table, model=[None])  # E3
    with pytest.raises(TypeError, match=r"^give DataFrames of load_table, not int$"):
        mlperf_check.compare([1, 2])  # E3
    with pytest.raises(TypeError, match=r"^reference 123: give a submitter's name or None$"):
        mlperf_check.compare(table, reference=123)


@pytest.mark.real
def test_a10_the_reference_is_known_in_the_divisions_compared() -> None:
    v51 = str(real_data(TABLES_ROOT / "v5.1" / "summary_results.json"))
    found = mlperf_check.compare(mlperf_check.load_table(v51), division="open", reference="Krai", min_submitters=1)
    status, out, _ = _cli(
        "compare", v51, "--division", "open", "--reference", "submitter:Krai", "--min-submitters", "1", "-f", "json"
    )
    assert (status, json.loads(out)["summary"]["groups"]) == (0, len(found.groups)) == (0, 13)


# --- one hardware whatever its case or marks (A12, A8) ---------------------------------------------
HARDWARE = st.text(alphabet="abcXYZ09 -", min_size=1, max_size=12).filter(lambda s: s.strip())


@given(name=HARDWARE, marks=st.lists(st.sampled_from(["(R)", "(TM)", "(r)", "®", "™"]), max_size=2))
def test_case_and_marks_never_split_one_hardware(name: str, marks: list[str]) -> None:
    variants = [name, name.upper(), name.lower(), name.swapcase(), " ".join(name.split()) + "".join(marks)]
    spelling = one_spelling(hardware_name(v) for v in variants)
    assert len(set(spelling.values())) == 1
    assert {fold(v) for v in variants} == {fold(name)}


def test_a8_case_variants_are_one_group_and_the_note_names_real_differences() -> None:
    rows = normalise(
        [
            {"Category": "closed", "Model": "llama2-70b-99", "Scenario": "Offline", "Submitter": s, "Accelerator": a}
            | {"Performance_Result": r, "Performance_Units": "Tokens/s", "a#": 8, "version": "v6.1"}
            for s, a, r in (
                ("A", "NVIDIA B300-SXM-270GB", 100.0),
                ("B", "NVIDIA B300-SXM-270GB", 110.0),
                ("C", "Nvidia B300-SXM-270GB", 90.0),
                ("D", "NVIDIA B300 (TM)", 95.0),
                ("E", "NVIDIA(R) B300", 96.0),
            )
        ]
    )
    from checker.analysis.table import frame

    found = mlperf_check.compare(frame(rows), accelerator="b300")
    assert found.groups[["hardware", "n"]].values.tolist() == [["NVIDIA B300", 2], ["NVIDIA B300-SXM-270GB", 3]]
    assert found.notes == ["accelerator 'b300' takes 2 different names: NVIDIA B300; NVIDIA B300-SXM-270GB"]
    assert Selection.of(accelerator="b300").notes(r.hardware for r in rows[:3]) == []


@pytest.mark.real
def test_a12_the_v5_1_xeon_joins_its_series_across_rounds() -> None:
    frames = [
        mlperf_check.load_table(str(real_data(TABLES_ROOT / name / file)))
        for name, file in (("v5.1", "summary_results.json"), ("v6.0", "summary_results.json"), ("v6.1", "summary.json"))
    ]
    found = mlperf_check.across_rounds(frames, accelerator="6980P", model="llama3.1-8b", scenario="Offline")
    intel = found[(found["submitter"] == "all") & (found["hardware"] == "Intel Xeon 6980P")]
    assert intel[["round", "result"]].values.tolist() == [["v5.1", 1232.89], ["v6.0", 1229.56], ["v6.1", 1916.74]]
    assert found.attrs["notes"] == []


# --- notes travel (A6) and the two-rounds rule (A9) ------------------------------------------------
def _two_round_frames() -> list[pd.DataFrame]:
    from checker.analysis.table import frame

    rows = [
        {"Category": "closed", "Model": "llama2-70b-99", "Scenario": "Offline", "Submitter": "A", "Accelerator": a}
        | {"Performance_Result": r, "Performance_Units": "Tokens/s", "a#": 8, "version": v, "Location": f"closed/A/{a}"}
        for a, r, v in (("NVIDIA H200-SXM-141GB", 100.0, "v5.1"), ("NVIDIA H200-SXM-141GB", 120.0, "v6.0"))
        + (("NVIDIA H200-NVL-141GB", 50.0, "v5.1"), ("NVIDIA H200-NVL-141GB", 60.0, "v6.0"))
    ]
    return [frame(normalise(rows))]


def test_a6_across_rounds_and_claims_frames_carry_the_notes() -> None:
    frames = _two_round_frames()
    found = mlperf_check.across_rounds(frames, accelerator="H200")
    note = "accelerator 'H200' takes 2 different names: NVIDIA H200-NVL-141GB; NVIDIA H200-SXM-141GB"
    assert found.attrs["notes"] == [note]
    spec = {"claims": [{"id": "a", "kind": "value", "expect": 1, "in": {"round": "v6.0"}}]}
    assert mlperf_check.claims(spec, frames, accelerator="H200").attrs["notes"] == [note]


def test_a9_across_rounds_needs_two_rounds_in_the_api_too() -> None:
    with pytest.raises(
        ValueError, match=r"^across_rounds needs results of two or more rounds; the rows selected hold v6\.0$"
    ):
        mlperf_check.across_rounds(_two_round_frames(), round="v6.0")


def test_e4_a_frame_given_for_another_round_is_refused() -> None:
    spec = {"claims": [{"id": "a", "kind": "value", "expect": 1, "in": {"round": "v6.0"}}]}
    with pytest.raises(ValueError, match=r"^tables\['v6\.1'\]: its rows are of round v5\.1, v6\.0, not v6\.1$"):
        mlperf_check.claims(spec, {"v6.1": _two_round_frames()[0]})


# --- load_table checks its input once (L1, L2, L3, L4, L5) and check() its path (E1, E3) ----------
def _write(path: Path, rows: list[dict], fmt: str) -> Path:
    if fmt == "json":
        path.write_text(json.dumps(rows))
    else:
        keys = list(dict.fromkeys(key for row in rows for key in row))
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, keys)
            writer.writeheader()
            writer.writerows(rows)
    return path


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(column=st.sampled_from(HEADER), fmt=st.sampled_from(["json", "csv"]))
def test_a_table_lacking_a_header_column_is_one_error_naming_it(tmp_path: Path, column: str, fmt: str) -> None:
    rows = [{k: v for k, v in table_row(Submitter=s).items() if k != column} for s in ("Acme", "Bolt")]
    path = _write(tmp_path / f"t.{fmt}", rows, fmt)
    message = f"{path} is not a results table: it has no {column} column (a results table has {', '.join(HEADER)})"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one error, not a warning per row
        with pytest.raises(ValueError) as raised:
            mlperf_check.load_table(str(path))
    assert str(raised.value) == message
    assert _cli("compare", str(path)) == (2, "", f"error: {message}\n")


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(column=st.sampled_from(sorted(NUMERIC)), value=st.integers(1, 64))
def test_a_number_written_as_text_in_json_reads_as_in_csv(tmp_path: Path, column: str, value: int) -> None:
    rows = [table_row(**{column: value}), table_row(Submitter="Bolt", **{column: str(value)})]
    path = _write(tmp_path / "t.json", rows, "json")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = mlperf_check.load_table(str(path))
    assert len(table) == 2
    assert table.drop(columns=["submitter"]).iloc[0].equals(table.drop(columns=["submitter"]).iloc[1])


@pytest.mark.real
def test_l1_l2_l5_the_reported_tables(tmp_path: Path) -> None:
    v51 = json.loads(real_data(TABLES_ROOT / "v5.1" / "summary_results.json").read_text())
    path = _write(
        tmp_path / "noacc.json", [{k: v for k, v in r.items() if k not in ("Accelerator", "a#")} for r in v51], "json"
    )
    with pytest.raises(ValueError, match=r"is not a results table: it has no Accelerator, a# columns \(a results"):
        mlperf_check.load_table(str(path))
    path = _write(
        tmp_path / "text.json", [{**r, "Performance_Result": str(r["Performance_Result"])} for r in v51], "json"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mlperf_check.load_table(str(path))["result"].tolist() == [float(r["Performance_Result"]) for r in v51]


def test_l3_a_round_unnamed_is_na_with_a_warning_and_an_unknown_round_is_refused(tmp_path: Path) -> None:
    rows = [{k: v for k, v in table_row(Submitter=s).items() if k != "version"} for s in ("Acme", "Bolt")]
    path = _write(tmp_path / "t.csv", rows, "csv")
    with pytest.warns(
        UserWarning, match=r"^.*t\.csv: 2 rows do not name their round \(no version column\): their round"
    ):
        table = mlperf_check.load_table(str(path))
    assert table["round"].isna().tolist() == [True, True]
    assert mlperf_check.load_table(str(path), round="v6.0")["round"].tolist() == ["v6.0", "v6.0"]
    status, _, err = _cli("compare", str(path), "-f", "json")
    assert (status, err) == (
        0,
        f"warning: {path}: 2 rows do not name their round (no version column): "
        f"their round is '(round of {path})'; give --round to name it\n",
    )
    with pytest.raises(ValueError, match=r"^round 'v9\.9': not a round this version knows \(v5\.1, v6\.0, "):
        mlperf_check.load_table(str(path), round="v9.9")


@pytest.mark.real
def test_l4_a_trees_invalid_results_are_said() -> None:
    tree = str(real_data(REAL_ROOT / "v6.1"))
    with pytest.warns(UserWarning, match=r"v6\.1: 2 invalid results left out \(`mlperf-check check` says why\)$"):
        assert mlperf_check.load_table(tree).shape == (0, 23)


def test_e1_e3_check_refuses_what_the_command_line_refuses(tmp_path: Path) -> None:
    cases = [
        (str(tmp_path / "nonexistent"), f"{tmp_path / 'nonexistent'}: no such file or folder"),
        (str(_write(tmp_path / "t.json", [table_row()], "json")), "not a folder; check takes a submission tree"),
    ]
    for path, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            mlperf_check.check(path)
    (tmp_path / "empty").mkdir()
    with (
        pytest.raises(ValueError, match=r"^no results under .*empty: give the folder that holds closed/"),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        mlperf_check.check(str(tmp_path / "empty"))
    with pytest.raises(ValueError, match=r"^unknown round 'v9\.9'; known rounds"):
        mlperf_check.check(str(tmp_path / "empty"), round="v9.9")
    with pytest.raises(ValueError, match=r"^unknown round 'v9\.9'; known rounds"):
        mlperf_check.reproduce(str(tmp_path / "empty"), str(tmp_path / "empty"), round="v9.9")
    status, _, err = _cli("check", str(tmp_path / "nonexistent"))
    assert (status, err) == (2, f"error: {tmp_path / 'nonexistent'}: no such file or folder\n")


@pytest.mark.real
def test_a2_round_is_a_repeatable_case_blind_filter(inputs: dict[str, Path]) -> None:
    paths = [str(inputs["v6.0"]), str(inputs["v6.1"])]
    frames = [mlperf_check.load_table(p) for p in paths]
    both = mlperf_check.compare(frames, round=["v6.0", "V6.1"])
    assert sorted(set(both.groups["round"])) == ["v6.0", "v6.1"]
    status, out, _ = _cli("compare", *paths, "--round", "v6.0", "--round", "V6.1", "-f", "json")
    listed = json.loads(out)
    assert (status, listed["selection"], len(listed["groups"])) == (0, {"round": ["v6.0", "v6.1"]}, len(both.groups))
    one = json.loads(_cli("compare", *paths, "--round", "V6.0", "-f", "json")[1])
    assert {g["round"] for g in one["groups"]} == {"v6.0"}


# --- notes in CSV (A7), the plot path (E3, P5) ------------------------------------------------------
@pytest.mark.real
def test_a7_csv_prints_the_notes_on_stderr(inputs: dict[str, Path]) -> None:
    v60, v61 = str(inputs["v6.0"]), str(inputs["v6.1"])
    found = mlperf_check.compare(mlperf_check.load_table(v61), accelerator="MI3")
    assert len(found.notes) == 1
    status, out, err = _cli("compare", v61, "--accelerator", "MI3", "-f", "csv")
    assert (status, err) == (0, f"note: {found.notes[0]}\n") and out.startswith("group,round,model")
    frames = [mlperf_check.load_table(p) for p in (v60, v61)]
    notes = mlperf_check.across_rounds(frames, accelerator="MI3").attrs["notes"]
    status, _, err = _cli("compare", v60, v61, "--across-rounds", "--accelerator", "MI3", "-f", "csv")
    assert (status, err) == (0, "".join(f"note: {note}\n" for note in notes))


def test_e3_p5_a_plot_path_is_checked_as_the_command_line_checks_it(tmp_path: Path) -> None:
    frames = _two_round_frames()
    for plot, message in (
        (tmp_path / "nodir" / "x.svg", f"plot {tmp_path / 'nodir' / 'x.svg'}: no folder {tmp_path / 'nodir'}"),
        (tmp_path / "x", f"plot {tmp_path / 'x'}: a plot is an .svg file: give its extension"),
        (f"{tmp_path}/", f"plot {tmp_path}/: give a file, e.g. {tmp_path}/plot.svg, not a folder"),
        (
            tmp_path / "x.png",
            f"plot {tmp_path / 'x.png'}: a plot is an .svg file (drawn as SVG, which any browser shows and converts), "
            "not .png",
        ),
    ):
        with pytest.raises(ValueError) as raised:
            mlperf_check.across_rounds(frames, plot=plot)
        assert str(raised.value) == message
    assert sorted(p.name for p in tmp_path.iterdir()) == []
