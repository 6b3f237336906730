"""One analysis core, whichever door (issue 31): a table file through the command line and the
same rows as a DataFrame through the API are typed by the same declarations, so they keep the
same rows and say the same rows are left out (inf, 1e15, NaN, zero, negative, text in a
number, extra columns of any name)."""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import mlperf_check
from checker.analysis.selection import DIVISIONS
from checker.analysis.table import COLUMNS as FRAME_COLUMNS
from checker.cli import app

runner = CliRunner()

# What a result may be, degenerate ones included: each with whether the reader keeps it.
RESULTS: list[tuple[Any, bool]] = [
    (100.0, True),
    (103.5, True),
    (97.25, True),
    ("101.5", True),  # a number written as text reads as the number
    (math.inf, False),
    (-math.inf, False),
    (1e15, False),  # beyond the 1e12 the declaration allows
    (math.nan, False),
    (0.0, False),
    (-5.0, False),
    ("fast", False),
]


def _row(number: int, result: Any, scenario: str = "Offline", accelerator: str = "NVIDIA H100-SXM-80GB") -> dict:
    system = f"sys{number}"
    return {
        "Category": "closed",
        "Model": "llama2-70b-99",
        "Scenario": scenario,
        "Submitter": f"Org{number % 3}",
        "Performance_Units": "Tokens/s",
        "Performance_Result": result,
        "Accelerator": accelerator,
        "a#": 8,
        "Nodes": 1,
        "version": "v6.0",
        "Platform": system,
        "System": system,
        "Availability": "available",
        "Location": f"closed/Org{number % 3}/results/{system}/llama2-70b-99/{scenario}",
    }


def _cli_compare(path: Path, *args: str) -> tuple[int, dict | None, list[str]]:
    done = runner.invoke(app, ["compare", str(path), "-f", "json", "--no-progress", *args], prog_name="mlperf-check")
    warned = [line for line in done.stderr.splitlines() if "left out" in line]
    return done.exit_code, json.loads(done.stdout) if done.exit_code == 0 else None, warned


def _left_out_rows(lines: list[str]) -> list[str]:
    """The rows the warnings name (`row 3` of a file, `row 2` of a frame: a file counts from 1)."""
    return sorted(match.group(1) for line in lines if (match := re.search(r": row (\d+): ", line)))


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    st.lists(st.sampled_from(RESULTS), min_size=2, max_size=8),
    st.one_of(
        st.sampled_from(["value", "role", "group", "Submitter", "Model", "deviation", "outlier", "n", "folded"]),
        st.text(min_size=1, max_size=12).filter(lambda name: name not in FRAME_COLUMNS),  # any name
    ),
)
def test_a_frame_keeps_and_leaves_out_the_rows_its_file_does(
    tmp_path: Path, results: list[tuple[Any, bool]], extra: str
) -> None:
    rows = [_row(number, result) for number, (result, _) in enumerate(results)]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(rows))  # inf and NaN as JSON's Infinity and NaN, which Python reads
    clean = [_row(number, 100.0) for number in range(len(rows))]
    clean_path = tmp_path / "clean.json"
    clean_path.write_text(json.dumps(clean))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = mlperf_check.load_table(clean_path)
    frame["result"] = pd.Series([result for result, _ in results], dtype=object)
    frame[extra] = "anything"  # an extra column of any name is not the analysis's

    status, listed, said = _cli_compare(path, "--min-submitters", "1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            found: Any = mlperf_check.compare(frame, min_submitters=1)
            error = None
        except ValueError as raised:
            found, error = None, str(raised)
    warned = [str(w.message) for w in caught if "left out" in str(w.message)]

    kept = [row["Location"] for row, (_, keeps) in zip(rows, results, strict=True) if keeps]
    assert [int(n) - 1 for n in _left_out_rows(said)] == sorted(n for n, (_, keeps) in enumerate(results) if not keeps)
    assert [int(n) for n in _left_out_rows(warned)] == sorted(n for n, (_, keeps) in enumerate(results) if not keeps)
    if status != 0:
        assert error is not None
        return
    assert error is None and listed is not None
    cli = sorted(m["Location"] for g in listed["groups"] for m in g["members"])
    api = sorted(found.members["location"])
    assert cli == api == sorted(kept)
    for cli_group, api_group in zip(listed["groups"], found.groups.to_dict("records"), strict=True):
        assert cli_group["mean_abs_dev"] == pytest.approx(api_group["mean_abs_dev"], nan_ok=True)
        assert cli_group["cv"] == pytest.approx(api_group["cv"], nan_ok=True)


def test_the_issues_degenerate_frame_is_typed_as_its_file(tmp_path: Path) -> None:
    """inf (compare's mean |dev| inf), 1e15 (compared), NaN, 0 and negative (dropped silently):
    each is now left out of a frame with the warning a file's row gets."""
    file = tmp_path / "t.json"
    file.write_text(json.dumps([_row(n, 100.0 + n) for n in range(7)]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = mlperf_check.load_table(file)
    frame.loc[2:6, "result"] = [math.inf, 1e15, math.nan, 0.0, -5.0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        members, groups = mlperf_check.compare(frame, min_submitters=1)
    assert [str(w.message) for w in caught] == [
        "frame: row 2: result is Infinity, not a positive number of at most 1e+12; the row is left out",
        "frame: row 3: result is 1000000000000000.0, not a positive number of at most 1e+12; the row is left out",
        "frame: row 4: result is NaN, not a positive number of at most 1e+12; the row is left out",
        "frame: row 5: result is 0.0, not a positive number of at most 1e+12; the row is left out",
        "frame: row 6: result is -5.0, not a positive number of at most 1e+12; the row is left out",
    ]
    assert len(members) == 2 and math.isfinite(groups["mean_abs_dev"].iloc[0])


# --- every parameter checked once: ValueError or TypeError naming it -----------------------------
WRONG: Any = st.one_of(
    st.integers(-10, 10),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    st.none(),
    st.lists(st.integers(), max_size=2),
    st.booleans(),
)


def _a_name(value: Any) -> bool:
    return value is None or value == [] or (isinstance(value, str) and bool(value.strip()))


def _a_division(value: Any) -> bool:
    return value is None or value == [] or (isinstance(value, str) and value.strip().lower() in DIVISIONS)


# (function, parameter, whether a value is right): a value that is not right must be refused.
PARAMETERS = {
    ("check", "strict"): lambda v: isinstance(v, bool),
    ("check", "jobs"): lambda v: v is None or (type(v) is int and v >= 0),
    ("check", "round"): lambda v: v is None,  # None: detected (the missing tree is then refused)
    ("compare", "tolerance"): lambda v: type(v) in (int, float) and 0 <= v <= 1,
    ("compare", "outlier"): lambda v: type(v) in (int, float) and 0 <= v <= 1,
    ("compare", "min_submitters"): lambda v: type(v) is int and v >= 1,
    ("compare", "by"): lambda v: isinstance(v, list) and not v,
    ("compare", "reference"): lambda v: v is None,
    ("across_rounds", "scaling"): lambda v: isinstance(v, bool),
    ("across_rounds", "across_submitters"): lambda v: isinstance(v, bool),
    ("claims", "spec"): lambda v: False,
    ("reproduce", "tolerance"): lambda v: v is None or (type(v) in (int, float) and 0 <= v <= 1),
    ("load_table", "round"): lambda v: v is None,
    ("across_rounds", "plot"): lambda v: v is None or (isinstance(v, str) and v.endswith(".svg")),
    # the filters: None or [] (any), a name that is not blank; a division of the three
    **{
        (function, key): (_a_division if key == "division" else _a_name)
        for function in ("compare", "across_rounds", "claims")
        for key in ("model", "scenario", "submitter", "accelerator", "round", "division")
    },
}


def _call(function: str, parameter: str, value: Any, table: pd.DataFrame) -> None:
    if function == "check":
        mlperf_check.check("/nonexistent-tree", **{parameter: value})
    elif function == "compare":
        mlperf_check.compare(table, **{parameter: value})
    elif function == "across_rounds":
        mlperf_check.across_rounds([table], **{parameter: value})
    elif function == "claims" and parameter != "spec":
        claim = {"id": "c", "kind": "value", "expect": 1, "in": {"round": "v6.0"}}
        mlperf_check.claims([claim], table, **{parameter: value})
    elif function == "claims":
        mlperf_check.claims(value, table)
    elif function == "reproduce":
        mlperf_check.reproduce("/nonexistent-a", "/nonexistent-b", round="v6.0", **{parameter: value})
    else:
        mlperf_check.load_table("/nonexistent.json", **{parameter: value})


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    path = tmp_path_factory.mktemp("small") / "t.json"
    path.write_text(json.dumps([_row(n, 100.0 + n) for n in range(4)]))
    return mlperf_check.load_table(path)


@pytest.mark.parametrize(("function", "parameter"), list(PARAMETERS))
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(value=WRONG)
def test_every_wrong_parameter_is_refused_naming_it(
    small: pd.DataFrame, function: str, parameter: str, value: Any
) -> None:
    if PARAMETERS[function, parameter](value):
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((TypeError, ValueError)) as raised:
            _call(function, parameter, value, small)
    message = str(raised.value)
    if (function, parameter) == ("check", "round") and isinstance(value, str):
        return  # a text round is a name: the missing tree is refused first, naming the path
    if (function, parameter) == ("load_table", "round") and isinstance(value, str):
        assert message.startswith(f"round {value!r}: not a round this version knows")
        return
    if (function, parameter) == ("claims", "spec") and isinstance(value, str):
        # a text is a claims file's path: one that cannot be read ("cannot read claims file x:
        # ...") or is no file ("claims file / is not a regular file"), the one family of messages
        assert re.match(r"(cannot read )?claims file ", message), message
        return
    if (function, parameter) == ("claims", "spec") and value == []:
        assert message.startswith("spec:2: claims: [] should be non-empty")  # the spec, and the place in it
        return
    if (function, parameter) == ("compare", "by") and isinstance(value, list):
        assert message.startswith("by ") or "by names no column" in message
        return
    # the API's name of it (errors.option), never the command line's `--min-submitters`
    assert message.startswith((f"{parameter} ", f"{parameter}: ")), message


def test_the_issues_wrong_parameters() -> None:
    """check(strict="no") turned strict mode on, jobs=-1 was taken, select="PRV" was P, R, V,
    by="model" named the columns m, o, d, e, l, round=5 and claims(123) ended in TypeErrors
    about iterables."""
    tree = "/work/shared/real/v6.1"
    with pytest.raises(TypeError, match=r"^strict 'no': give True or False$"):
        mlperf_check.check(tree, strict="no")
    with pytest.raises(ValueError, match=r"^jobs -1: give a whole number, 0 or more \(0: every core\)$"):
        mlperf_check.check(tree, jobs=-1)
    with pytest.raises(TypeError, match=r"^round 5: give a path or a name$"):
        mlperf_check.check(tree, round=5)
    with pytest.raises(TypeError, match=r"^by 'model': give a list of column names, e.g. \('model',\)$"):
        mlperf_check.compare(pd.DataFrame(), by="model")
    with pytest.raises(TypeError, match=r"^spec 123: give a claims file"):
        mlperf_check.claims(123, pd.DataFrame())
    with pytest.raises(ValueError, match=r"^cannot read claims file a\\x00b: a path holds no NUL character$"):
        mlperf_check.claims("a\x00b", pd.DataFrame())  # it was os.open's "embedded null byte"
    with pytest.raises(ValueError, match=r"^tolerance 5: give a fraction, e.g. 0.05 for 5%$"):
        mlperf_check.reproduce(tree, tree, tolerance=5)
    with pytest.raises(ValueError, match=r"^select BOGUS: unknown code, prefix or rule name; "):
        mlperf_check.check(tree, select="BOGUS")
    from checker.settings import UsageError, WrongType

    assert issubclass(WrongType, UsageError) and issubclass(WrongType, TypeError) and issubclass(UsageError, ValueError)


# Each parameter both doors have, given a wrong value through each: (command line, API call).
# The command line names it as its option (`--min-submitters 0`), the API as its keyword
# (`min_submitters 0`): errors.option, the one place that decides, per door.
DOORS: dict[str, tuple[list[str], Any]] = {
    "select": (["check", "{tree}", "--select", "BOGUS"], lambda t, f: mlperf_check.check(t, select="BOGUS")),
    "ignore": (["check", "{tree}", "--ignore", "BOGUS"], lambda t, f: mlperf_check.check(t, ignore="BOGUS")),
    "jobs": (["check", "{tree}", "--jobs", "-1"], lambda t, f: mlperf_check.check(t, jobs=-1)),
    "tolerance": (["compare", "{table}", "--tolerance", "5"], lambda t, f: mlperf_check.compare(f, tolerance=5)),
    "outlier": (["compare", "{table}", "--outlier", "2"], lambda t, f: mlperf_check.compare(f, outlier=2)),
    "min_submitters": (
        ["compare", "{table}", "--min-submitters", "0"],
        lambda t, f: mlperf_check.compare(f, min_submitters=0),
    ),
    "reference": (
        ["compare", "{table}", "--reference", "submitter:Nobody"],
        lambda t, f: mlperf_check.compare(f, reference="submitter:Nobody"),
    ),
    "division": (["compare", "{table}", "--division", "x"], lambda t, f: mlperf_check.compare(f, division="x")),
    "model": (["compare", "{table}", "--model", " "], lambda t, f: mlperf_check.compare(f, model=" ")),
    "across_rounds": (["compare", "{table}", "--across-rounds"], lambda t, f: mlperf_check.across_rounds(f)),
    "plot": (
        ["compare", "{table}", "--across-rounds", "--plot", "x.png"],
        lambda t, f: mlperf_check.across_rounds(f, plot="x.png"),  # one round: --plot is checked first
    ),
    "reproduce tolerance": (
        ["reproduce", "{tree}", "{tree}", "--tolerance", "5"],
        lambda t, f: mlperf_check.reproduce(t, t, tolerance=5),
    ),
}


@pytest.mark.parametrize("parameter", list(DOORS))
def test_each_door_names_a_parameter_its_own_way(small: pd.DataFrame, tmp_path: Path, parameter: str) -> None:
    """`check(select="BOGUS")` said `--select BOGUS`, the command line's name: the same message
    through both doors, each naming the parameter as it is given there."""
    tree, table = "/work/shared/real/v6.1", tmp_path / "t.json"
    table.write_text(json.dumps([_row(n, 100.0 + n) for n in range(4)]))
    args, call = DOORS[parameter]
    done = runner.invoke(
        app, [a.format(tree=tree, table=table) for a in args], prog_name="mlperf-check", catch_exceptions=False
    )
    keyword = parameter.split()[-1]
    option = "--" + keyword.replace("_", "-")
    assert done.exit_code == 2, done.output
    said = done.output.strip().splitlines()[-1].removeprefix("error: ")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((TypeError, ValueError)) as raised:
            call(tree, small)
    message = str(raised.value)
    assert said.startswith(option + " ") or said.startswith(option + ":"), said
    assert message.startswith(keyword + " ") or message.startswith(keyword + ":"), message
    assert said.removeprefix(option) == message.removeprefix(keyword) or parameter == "reference", (said, message)


# --- one comparable-group key, whichever analysis: properties over generated tables ---------------
HARDWARE = ["NVIDIA H100-SXM-80GB", "Nvidia H100-SXM-80GB", "NVIDIA GH100", "NVIDIA H100-NVL-94GB", "AMD MI300X"]
SCENARIOS = {"Offline": "Tokens/s", "Server": "Tokens/s", "SingleStream": "Latency (ms)"}


@st.composite
def tables(draw: Any) -> list[dict]:
    count = draw(st.integers(2, 14))
    rows = []
    for number in range(count):
        scenario = draw(st.sampled_from(sorted(SCENARIOS)))
        system = f"sys{number}"
        submitter = draw(st.sampled_from(["Alpha", "Beta", "Gamma", "Delta"]))
        rows.append(
            {
                "Category": "closed",
                "Model": draw(st.sampled_from(["llama2-70b-99", "mixtral-8x7b"])),
                "Scenario": scenario,
                "Submitter": submitter,
                "Performance_Units": SCENARIOS[scenario],
                "Performance_Result": draw(st.floats(50, 150)),
                "Accelerator": draw(st.sampled_from(HARDWARE)),
                "a#": draw(st.sampled_from([4, 8])),
                "Nodes": draw(st.sampled_from([1, 2])),
                "version": draw(st.sampled_from(["v5.1", "v6.0"])),
                "Platform": system,
                "System": system,
                "Availability": "available",
                "Location": f"closed/{submitter}/results/{system}/m/{scenario}",
            }
        )
    return rows


FILTER_VALUES = {
    "model": ["llama2-70b-99", "MIXTRAL-8X7B"],
    "scenario": ["offline", "Server"],
    "submitter": ["alpha", "Beta"],
    "accelerator": ["H100", "NVIDIA H100-SXM-80GB", "MI300X"],
    "round": ["v5.1", "V6.0"],
}
filter_sets = st.dictionaries(st.sampled_from(sorted(FILTER_VALUES)), st.just(None), max_size=3).flatmap(
    lambda keys: st.fixed_dictionaries({key: st.sampled_from(FILTER_VALUES[key]) for key in keys})
)


def _frame_of(rows: list[dict], folder: Path) -> tuple[Path, pd.DataFrame]:
    path = folder / "t.json"
    path.write_text(json.dumps(rows))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return path, mlperf_check.load_table(path)


def _compared(frame: pd.DataFrame, *args: Any, **keywords: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return mlperf_check.compare(frame, *args, **keywords)
        except ValueError as error:
            return str(error)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(rows=tables(), filters=filter_sets)
def test_no_group_spans_two_scenarios_units_rounds_or_hardware(tmp_path: Path, rows: list[dict], filters: dict) -> None:
    from checker.analysis.table import GROUP_KEY, fold

    assert tuple(key for key in GROUP_KEY if key not in ("round", "units")) == mlperf_check.BY
    _, frame = _frame_of(rows, tmp_path)
    found = _compared(frame, min_submitters=1, **filters)
    if isinstance(found, str):
        assert found.startswith("no row matches the selection")
        return
    members = found.members.assign(folded=found.members["hardware"].map(fold))
    for _, group in members.groupby("group"):
        for column in ("round", "model", "scenario", "units", "kind", "folded", "per_node", "nodes"):
            assert group[column].nunique(dropna=False) == 1, (column, group[column].tolist())


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(rows=tables(), reference=st.sampled_from(["Alpha", "Beta", None]), scenario=st.booleans())
def test_a_spread_claim_is_compares_group_or_ambiguous(
    tmp_path: Path, rows: list[dict], reference: str | None, scenario: bool
) -> None:
    """For each of compare's groups, the spread claim that selects it (by its key) measures its
    mean |deviation|, number for number; the same claim without its scenario is ambiguous when
    its rows span several groups."""
    _, frame = _frame_of(rows, tmp_path)
    found = _compared(frame, reference, min_submitters=1)
    if isinstance(found, str):  # the reference has no row: compare refuses it (the claims say no data)
        assert "no closed result of submitter" in found
        return
    for group in found.groups.to_dict("records"):
        side = {
            "round": group["round"],
            "model": group["model"],
            "accelerator": group["hardware"],
            "per_node": int(group["per_node"]),
            "nodes": int(group["nodes"]),
            **({"scenario": group["scenario"]} if scenario else {}),
        }
        claim = {"id": "s", "kind": "spread", "expect": 0.04, "in": side}
        if reference is not None:
            claim["reference"] = f"submitter:{reference}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            judged = mlperf_check.claims([claim], frame).iloc[0]
        spans = frame[
            (frame["round"] == side["round"])
            & (frame["model"] == side["model"])
            & (frame["hardware"].str.casefold() == group["hardware"].casefold())
            & (frame["per_node"] == side["per_node"])
            & (frame["nodes"] == side["nodes"])
            & ((frame["scenario"] == group["scenario"]) if scenario else True)
        ][["scenario", "units"]].drop_duplicates()
        if len(spans) > 1:
            assert judged["verdict"] == "ambiguous"
            continue
        if group["partners"] == 0:
            assert judged["measured"] is None or judged["measured"] != judged["measured"]
            continue
        assert judged["measured"] == pytest.approx(group["mean_abs_dev"], rel=1e-12)
        # partner for partner: the same rows, roles and deviations as compare's members
        members = found.members[found.members["group"] == group["group"]]
        assert sorted((r["location"], r["role"]) for r in judged["rows"]) == sorted(
            zip(members["location"], members["role"], strict=True)
        )
        deviations = dict(zip(members["location"], members["deviation"], strict=True))
        for r in judged["rows"]:
            if r["role"] == "partner":
                assert r["deviation"] == pytest.approx(deviations[r["location"]], rel=1e-12)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(rows=tables(), filters=filter_sets, fmt=st.sampled_from(["json", "csv"]))
def test_compare_through_the_api_is_compare_through_the_command_line(
    tmp_path: Path, rows: list[dict], filters: dict, fmt: str
) -> None:
    """Every filter key, and the JSON and CSV formats: the same groups, or the same refusal."""
    path, frame = _frame_of(rows, tmp_path)
    args = [f"--{key}={value}" for key, value in filters.items()]
    done = runner.invoke(
        app,
        ["compare", str(path), "-f", fmt, "--min-submitters", "1", "--no-progress", *args],
        prog_name="mlperf-check",
    )
    found = _compared(frame, min_submitters=1, **filters)
    if isinstance(found, str):
        assert done.exit_code == 2 and done.stderr.endswith(f"error: {found}\n")
        return
    assert done.exit_code == 0, done.stderr
    if fmt == "json":
        listed = json.loads(done.stdout)["groups"]
        cli = [(g["round"], g["model"], g["scenario"], g["hardware"], g["n"], round(g["cv"], 9)) for g in listed]
    else:
        import csv
        import io

        records = list(csv.DictReader(io.StringIO(done.stdout)))
        seen: dict = {}
        for r in records:
            seen.setdefault(r["group"], (r["round"], r["model"], r["scenario"], r["hardware"], int(r["n"])))
        cli = list(seen.values())
    api = [
        (g["round"], g["model"], g["scenario"], g["hardware"], g["n"], round(g["cv"], 9))
        for g in found.groups.to_dict("records")
    ]
    assert cli == (api if fmt == "json" else [a[:5] for a in api])


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.lists(st.sampled_from(RESULTS), min_size=2, max_size=6), st.booleans())
def test_claims_on_a_frame_are_claims_on_its_file(tmp_path: Path, results: list[tuple[Any, bool]], twice: bool) -> None:
    """claims: the same rows kept and left out, the same duplicates left out, the same verdict."""
    rows = [_row(number, result) for number, (result, _) in enumerate(results)]
    rows += rows[:1] if twice else []  # a duplicate row: left out by both doors, with a warning
    path = tmp_path / "t.json"
    path.write_text(json.dumps(rows))
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps([_row(number, 100.0) for number in range(len(rows))]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = mlperf_check.load_table(clean)
    frame["result"] = pd.Series([row["Performance_Result"] for row in rows], dtype=object)
    frame.loc[len(results) :, "location"] = frame.loc[0, "location"]  # the duplicate's location and system
    frame.loc[len(results) :, "platform"] = frame.loc[0, "platform"]
    frame.loc[len(results) :, "submitter"] = frame.loc[0, "submitter"]
    frame["value"] = -1.0  # an extra column named as compare's own
    claim = {"id": "v", "kind": "value", "expect": 100.0, "in": {"round": "v6.0", "model": "llama2-70b-99"}}
    spec = tmp_path / "c.json"
    spec.write_text(json.dumps({"claims": [claim]}))
    done = runner.invoke(
        app, ["claims", str(spec), f"--table=v6.0={path}", "-f", "json", "--no-progress"], prog_name="mlperf-check"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        judged = mlperf_check.claims([claim], {"v6.0": frame}).iloc[0]
    cli = json.loads(done.stdout)["claims"][0]
    assert (cli["verdict"], cli["measured"]) == (judged["verdict"], judged["measured"])
    assert cli["rows"] == judged["rows"]
    said = [line for line in done.stderr.splitlines() if "left out" in line or "duplicate" in line]
    warned = [str(w.message) for w in caught if "left out" in str(w.message) or "duplicate" in str(w.message)]
    assert [int(n) - 1 for n in _left_out_rows(said)] == [int(n) for n in _left_out_rows(warned)]
    duplicates = [line.removeprefix("warning: ") for line in said if "duplicate" in line]
    assert duplicates == [line for line in warned if "duplicate" in line]
    assert len(duplicates) == (1 if twice and results[0][1] else 0)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    reference=st.one_of(
        st.sampled_from(["median", "", " ", "submitter:", "Org1", "submitter:Org1", "org2", "submitter:Nobody", "a:b"]),
        st.text(alphabet="Org12:su bmitedan", max_size=12),
    )
)
def test_a_reference_is_read_one_way_through_both_doors(tmp_path: Path, reference: str) -> None:
    """compare --reference took only median or submitter:NAME, the API also NAME alone (and
    "a:b" as a name): one reading (analysis.compare.reference_name) for both, the same groups
    or the same refusal, each naming the parameter its own way."""
    path, frame = _frame_of([_row(n, 100.0 + n) for n in range(6)], tmp_path)
    done = runner.invoke(
        app, ["compare", str(path), "-f", "json", "--no-progress", "--reference", reference], prog_name="mlperf-check"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            found: Any = mlperf_check.compare(frame, reference=reference)
        except ValueError as error:
            found = str(error)
    if isinstance(found, str):
        assert done.exit_code == 2, done.stdout
        assert found.startswith("reference ") and done.stderr == f"error: --{found}\n"
        return
    assert done.exit_code == 0, done.stderr
    listed = json.loads(done.stdout)["groups"]
    assert [g["reference_submitter"] for g in listed] == [
        r if isinstance(r, str) else None for r in found.groups["reference_submitter"]
    ]


def test_a_claim_of_a_round_without_a_table_is_refused_through_both_doors(tmp_path: Path) -> None:
    """The command line refused a claim of a round it was given no table for (exit 2); the API
    judged it no-data, as if the round had no such row."""
    path, frame = _frame_of([_row(n, 100.0 + n) for n in range(4)], tmp_path)
    spec = tmp_path / "c.yaml"
    spec.write_text("claims:\n- id: c\n  kind: value\n  expect: 1\n  in: {round: v6.1, model: llama2-70b-99}\n")
    done = runner.invoke(app, ["claims", str(spec), f"--table=v6.0={path}", "--no-progress"], prog_name="mlperf-check")
    assert done.exit_code == 2 and done.stderr == f"error: {spec}: claims select rounds without a --table: v6.1\n"
    for tables in ({"v6.0": frame}, {"v6.0": str(path)}, frame, [frame]):
        with pytest.raises(
            ValueError, match=rf"^{re.escape(str(spec))}: claims select rounds without a table in tables: v6\.1$"
        ):
            mlperf_check.claims(spec, tables)


@pytest.mark.parametrize("name", ["a:b:c", "x:smile:y", "Org:a:"])
def test_an_error_line_says_the_message_as_it_is(tmp_path: Path, name: str) -> None:
    """rich read `:a:` in `--reference submitter:a:b` as an emoji code and printed 🅰: the
    error line is the message, byte for byte, whatever it names."""
    missing = tmp_path / name
    done = runner.invoke(app, ["check", str(missing)], prog_name="mlperf-check")
    assert done.exit_code == 2 and done.stderr == f"error: {missing}: no such file or folder\n"


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    rows=tables(),
    filters=filter_sets,
    kind=st.sampled_from(["value", "spread"]),
    side=st.fixed_dictionaries(
        {"round": st.sampled_from(["v5.1", "v6.0"])},
        optional={
            "model": st.sampled_from(["llama2-70b-99", "mixtral-8x7b"]),
            "scenario": st.sampled_from(sorted(SCENARIOS)),
            "accelerator": st.sampled_from(["H100", "GH100", "MI300X"]),
            "nodes": st.sampled_from([1, 2]),
        },
    ),
)
def test_no_claim_rests_on_two_scenarios_units_rounds_or_hardware(
    tmp_path: Path, rows: list[dict], filters: dict, kind: str, side: dict
) -> None:
    """A claim that is judged (holds or fails) rests on rows of one comparable group; a
    selection that spans several is ambiguous, and says so."""
    from checker.analysis.table import fold

    _, frame = _frame_of(rows, tmp_path)
    claim = {"id": "c", "kind": kind, "expect": 0.04 if kind == "spread" else 100.0, "in": side}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            judged = mlperf_check.claims([claim], frame, **filters).iloc[0]
        except ValueError as error:
            assert str(error).startswith(("no row matches the selection", "spec: claims select rounds without")), error
            return
    if judged["verdict"] not in ("holds", "fails"):
        return
    taken = frame[frame["location"].isin([r["location"] for r in judged["rows"]])]
    assert len(taken) >= 1
    keys = taken.assign(folded=taken["hardware"].map(fold))
    for column in ("round", "model", "scenario", "units", "folded", "per_node", "nodes"):
        assert keys[column].nunique(dropna=False) == 1, (column, keys[column].tolist())


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(rows=tables(), filters=filter_sets.filter(lambda f: "round" not in f), scaling=st.booleans())
def test_no_series_spans_two_scenarios_units_or_hardware(
    tmp_path: Path, rows: list[dict], filters: dict, scaling: bool
) -> None:
    """--across-rounds' series: one benchmark, scenario, unit and hardware each, one row per
    round; a scaling series one hardware, one unit and one round."""
    from checker.analysis.table import fold

    _, frame = _frame_of(rows, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            found = mlperf_check.across_rounds(frame, scaling=scaling, **filters)
        except ValueError as error:
            assert str(error).startswith(("no row matches the selection", "across_rounds needs")), error
            return
    if not len(found):
        return
    found = found.assign(folded=found["hardware"].map(fold))
    # each point is a row of the table of the series' own benchmark, scenario, unit and hardware
    by_place = frame.assign(folded=frame["hardware"].map(fold)).set_index(["round", "location"])
    for point in found.to_dict("records"):
        row = by_place.loc[(point["round"], point["location"])]
        row = row.iloc[0] if isinstance(row, pd.DataFrame) else row
        for column in ("model", "scenario", "units", "folded", "per_node"):
            assert row[column] == point[column], (column, row[column], point[column])
    key = ["kind", "model", "scenario", "folded", "per_node", "submitter"]
    for _, series in found[found["kind"] == "across_rounds"].groupby(key + ["nodes"], dropna=False):
        assert series["units"].nunique(dropna=False) == 1
        assert series["round"].is_unique, series["round"].tolist()
    for _, series in found[found["kind"] != "across_rounds"].groupby(key + ["round"], dropna=False):
        assert series["units"].nunique(dropna=False) == 1
