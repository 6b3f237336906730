"""Typed facts (issue 22): every value a rule or a command reads from a checked file has one
declared type and range, per key, in a JSON Schema per kind of file (schemas/, read by
checker/parsers/typed.py), and the same declaration decides what the log reader decodes.

- The declarations: valid JSON Schemas, read here exactly as the jsonschema package reads
  them (with a JSON number finite), on random values.
- Every key read is declared: for each kind of file, the keys the rules, the commands and
  the round files read (tests/test_mllog_fast.py does the loadgen keys from the source).
- For every declared key, any bad value of any type, put into a real file copied from the
  slices, is a finding that names the file and the key, the result is never valid, and
  nothing crashes (hypothesis, fixed seed, a few values per key; the keys enumerated from
  the declarations themselves, so a new key is covered when it is declared).
- A 400-digit integer never makes a command end with an internal error.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from checker.parsers import Defect, typed
from checker.parsers.accuracy import parse_accuracy
from checker.parsers.mllog import LOADGEN_LOG, WANTED_KEYS, WANTED_PREFIXES, parse_mllog
from checker.parsers.text import parse_summary, parse_verify
from checker.rounds import available_rounds, load_round
from helpers import (
    EXAMPLE,
    OFFLINE,
    REAL,
    REAL_ROOT,
    SINGLE,
    SUBMISSION,
    add_mllog,
    cli,
    copy_real_result,
    real_data,
    run,
    set_mllog,
)

FEW = settings(
    max_examples=4,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)

# --- bad values --------------------------------------------------------------------------
# Of every JSON type, and the ones no JSON holds but Python's decoder reads (NaN, Infinity):
# negative, huge (400 digits, past 2^64), long text, nested lists and objects.
SPECIAL = [
    float("nan"),
    float("inf"),
    float("-inf"),
    -1,
    -0.5,
    10**400,
    -(10**400),
    2**64,
    1.0e300,
    0.5,
    "",
    "5",
    "false",
    "NaN",
    "x" * 100_000,
    True,
    False,
    None,
    [],
    [1, 2],
    [[[["deep"]]]],
    {},
    {"a": {"b": [1]}},
]
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
JSON_VALUES = st.one_of(
    st.sampled_from(SPECIAL),
    _scalars,
    st.lists(_scalars, max_size=3),
    st.dictionaries(st.text(max_size=4), _scalars, max_size=3),
)
# Text for the lines of text files: no line breaks of any kind (str.splitlines splits on them).
_LINE = st.characters(blacklist_categories=("Cc", "Zl", "Zp", "Cs"), blacklist_characters="\x85\x1c\x1d\x1e")
TEXTS = st.one_of(
    st.sampled_from(
        ["nan", "NaN", "inf", "-inf", "Infinity", "-5", "-0.5", "1e999", "9" * 400, "1" * 5000, "fast", "", "true"]
        + ["null", "[1]", "{}", "1.2.3", "0x10", "1_000", "x" * 300, "Skipped!", "yes"]
    ),
    st.text(alphabet=_LINE, max_size=20),
)


def _bad(declaration: typed.Declaration, key: str, value) -> bool:
    return declaration.malformed(key, value) is not None


# --- the declarations themselves ---------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(typed.KINDS))
def test_every_declaration_is_a_json_schema_this_reading_reads(kind: str) -> None:
    schema = typed.schema(kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    declaration = typed.declaration(kind)
    assert declaration.name == typed.KINDS[kind] and schema["$id"].endswith(typed.KINDS[kind])
    assert declaration.keys or schema.get("additionalProperties") not in (None, True)


def test_a_keyword_the_reading_does_not_read_is_refused() -> None:
    with pytest.raises(typed.SchemaError, match="keywords this reading does not read: oneOf"):
        typed.Declaration("x", {"properties": {"a": {"oneOf": [{"type": "string"}]}}})
    with pytest.raises(typed.SchemaError, match="not one of this schema's \\$defs"):
        typed.Declaration("x", {"properties": {"a": {"$ref": "#/$defs/none"}}})
    with pytest.raises(typed.SchemaError, match="literal prefix"):
        typed.Declaration("x", {"patternProperties": {"a.*b": True}})


def _finite_types() -> jsonschema.TypeChecker:
    """jsonschema's types with a JSON number finite (RFC 8259 has no NaN or Infinity)."""
    base = jsonschema.Draft202012Validator.TYPE_CHECKER

    def finite(name: str):
        return lambda checker, value: (
            base.is_type(value, name) and (not isinstance(value, float) or math.isfinite(value))
        )

    return base.redefine_many({"number": finite("number"), "integer": finite("integer")})


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(typed.KINDS))
def test_the_reading_agrees_with_jsonschema(kind: str) -> None:
    """Each kind's whole schema, on random objects of its declared keys: malformed here
    exactly when jsonschema (with finite numbers) finds the object invalid."""
    declaration = typed.declaration(kind)
    validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=_finite_types())(
        typed.schema(kind)
    )
    keys = sorted(declaration.keys) + [f"{p}other" for p in declaration.prefixes] + ["undeclared"]

    @settings(max_examples=150, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(st.dictionaries(st.sampled_from(keys), st.one_of(JSON_VALUES, st.just(0), st.just("VALID")), max_size=3))
    def agree(document: dict) -> None:
        ours = [(p.path, p.value) for p in declaration.problems(document)]
        assert (ours == []) == validator.is_valid(document), (document, ours)

    agree()


def test_messages_name_the_key_the_value_and_what_it_must_be() -> None:
    log = typed.declaration("loadgen_log")
    cases = [
        ("num_errors", "5", 'num_errors is "5", not a whole number from 0 to 9223372036854775807'),
        ("early_stopping_met", "false", 'early_stopping_met is "false", not a boolean (true or false)'),
        (
            "result_samples_per_second",
            float("nan"),
            "result_samples_per_second is NaN, not a number from 0 to 9223372036854775807",
        ),
        ("num_errors", 10**400, "num_errors is a 401-digit integer, not a whole number from 0 to 9223372036854775807"),
        (
            "loadgen_git_status_message",
            [" M a.cc"],
            "loadgen_git_status_message is a list of 1 item, not a string of at most 1048576 characters",
        ),
        (
            "effective_target_latency_percentile",
            99,
            "effective_target_latency_percentile is 99, not a number from 0 to 1",
        ),
    ]
    for key, value, text in cases:
        assert typed.message("", log.malformed(key, value)) == text
    assert typed.shown("x" * 100) == '"' + "x" * 60 + '..." (100 characters)'


def test_text_spells_a_number_only_in_decimals() -> None:
    read = typed.from_text
    assert [read(t, "number") for t in ("12", " 26.29 ", "-5", "1e3", "1e999")] == [12, 26.29, -5, 1000.0, math.inf]
    assert [read(t, "number") for t in ("nan", "inf", "1_000", "0x10", "", "1.2.3")] == [
        "nan",
        "inf",
        "1_000",
        "0x10",
        "",
        "1.2.3",
    ]
    assert read("9" * 5000, "integer") == "9" * 5000  # past MAX_DIGITS: never given to int()
    assert read("26.29", "string") == "26.29"


# --- the reader decodes what is declared -------------------------------------------------
def test_the_reader_decodes_what_the_declaration_names() -> None:
    assert WANTED_PREFIXES == LOADGEN_LOG.prefixes == ("effective_", "result_", "early_stopping_")
    assert {k for k in LOADGEN_LOG.keys if not k.startswith(WANTED_PREFIXES)} == WANTED_KEYS
    assert "num_errors" in WANTED_KEYS and "result_validity" not in WANTED_KEYS  # under a family


def test_a_malformed_value_is_never_handed_on() -> None:
    from checker.parsers import Malformed

    lines = (EXAMPLE / OFFLINE / "performance/run_1/mlperf_log_detail.txt").read_bytes().splitlines(keepends=True)
    bad = [line.replace(b'"value": 0,', b'"value": "5",') if b'"num_errors"' in line else line for line in lines]
    import io

    log, defects = parse_mllog(io.BytesIO(b"".join(bad)))
    assert defects == [
        Defect(
            "FIL012",
            'line 90: num_errors is "5", not a whole number from 0 to 9223372036854775807',
            line=90,
            pointer="num_errors",
        )
    ]
    assert "num_errors" in log and "num_errors" not in log.values and log.lines["num_errors"] == 90
    with pytest.raises(Malformed):
        log.get("num_errors")


# --- every key read is declared, per kind of file ----------------------------------------
def _rounds():
    return [load_round(name) for name in available_rounds()]


def _leaves(kind: str) -> set[str]:
    return set(typed.declaration(kind).leaves)


def test_every_summary_line_read_is_declared() -> None:
    """The lines a round's compliance checks read from summaries (`fields`), and the ones the
    Summary reads itself (Result is, Scenario, Mode)."""
    named = {"Result is", "Scenario", "Mode"}
    for round in _rounds():
        for spec in round.compliance.tests.values() if round.compliance else ():
            check = spec.performance_check
            if check is not None and check.reads == "summary":
                named.update(f for metric in check.metric.values() for f in metric.fields)
    assert {"Samples per second", "Early stopping 90th percentile estimate"} <= named
    assert named <= typed.declaration("loadgen_summary").keys


def test_every_verify_check_read_is_declared() -> None:
    named = {
        c
        for round in _rounds()
        for spec in (round.compliance.tests.values() if round.compliance else ())
        for c in spec.checks
    }
    assert "first token check pass" in named and named <= typed.declaration("compliance_verify").keys


def test_every_endpoints_field_read_is_declared() -> None:
    """result_summary.json: the fields the rules and the model read, and every round's
    headline metric keys; config.yaml: the seed keys and the table's scenario key."""
    root = Path(__file__).parent.parent
    source = "".join(
        p.read_text() for p in [root / "rules" / "endpoints.py", *(root / "checker" / "model").glob("*.py")]
    )
    literal = set(re.findall(r'(?:summary|endpoints_summary)\.get\("([^"]+)"\)', source))
    literal |= {f"{block}.early_stopping_percentiles.99.0" for block in ("ttft", "tpot", "latency")}  # p99(block)
    assert {"n_samples_failed", "duration_ns", "output_sequence_lengths.avg"} <= literal
    metrics = {
        m.key for r in _rounds() if r.endpoints for sets in r.endpoints.metric_sets.values() for m in sets.values()
    }
    assert {"qps", "tps", "latency.avg"} <= metrics
    assert literal | metrics <= _leaves("endpoints_summary")
    config = set(re.findall(r'endpoints_config\.get\("([^"]+)"\)', source))
    for round in _rounds():
        config |= set(round.endpoints.seed_keys.values()) if round.endpoints else set()
        key = round.table.inferred.endpoints if round.table else None
        config |= {key} if key else set()
    assert {"settings.runtime.min_duration_ms", "settings.runtime.scheduler_random_seed", "type"} <= config
    assert config <= _leaves("endpoints_config")


def test_every_place_an_endpoints_score_is_read_is_declared() -> None:
    """EndpointsAccuracy reads a gate's metric at the top level, in an entry, in its score
    and in its breakdown: a number at each of those places is typed, whatever its name."""
    schema = typed.schema("endpoints_accuracy")
    entry = schema["$defs"]["entry"]
    member = {"$ref": "#/$defs/member"}
    assert schema["additionalProperties"] == member and entry["additionalProperties"] == member
    assert entry["properties"]["score"]["additionalProperties"] == member
    assert entry["properties"]["breakdown"]["additionalProperties"] == member
    assert {"total_samples", "unit_samples", "response_counts", "dataset_type"} <= set(entry["properties"])


def test_every_count_of_a_system_description_is_bounded() -> None:
    """The system description's counts are typed by its own schema: whole numbers of at most
    seven digits (parsers/counts.py reads the same bound)."""
    from checker.parsers.counts import MAX_COUNT, MAX_DIGITS, whole

    for round in _rounds():
        properties = round.system_schema["properties"]
        for name in round.system_description.numeric:
            integer, text = properties[name]["anyOf"]
            assert integer["maximum"] == MAX_COUNT and f"{{1,{MAX_DIGITS}}}" in text["pattern"]
    assert whole("9999999") == 9999999 and whole("1" * 5000) is None and whole(10**400) is None


# --- any bad value of a declared key is a finding ----------------------------------------
OFFLINE_REAL = "closed/Lenovo/results/SE100_RTX2000E_Ada_16GBx1_TRT/resnet50/Offline"
TEST06_REAL = "closed/NVIDIA/results/B200-SXM-180GBx8_TRT/llama2-70b-99.9/Interactive"
ENDPOINTS_REAL = "closed/Atlas_Inference/results/Strix_Halo/qwen3.6-27b/SingleStream"
IGNORED = ["STR003", "MSR001"]  # one result of a system, and the v6.1 slice keeps no README


def _real_copy(tmp_path_factory, location: str, source: Path, name: str) -> Path:
    root = tmp_path_factory.mktemp(name)
    copy_real_result(root, location, real_data(source))
    return root


def _verdict(root: Path, round_name: str, location: str):
    report = run(root, round_name, ignore=IGNORED)
    internal = [f.message for f in report.findings if f.code == "INT001"]
    assert internal == []
    return {r.location: r.valid for r in report.results}[location], report.findings


def _found_when(root: Path, round_name: str, location: str, path: Path, edit) -> set[tuple]:
    """What the check finds, as (code, severity, path, pointer), once `edit()` has corrupted
    `path` of the real copy at `root`: with no internal error and the result not valid. The
    file is as it was afterwards, whatever happens."""
    original = path.read_bytes()
    try:
        edit()
        valid, findings = _verdict(root, round_name, location)
        assert valid is False
        return {(f.code, f.severity.value, f.path, f.pointer) for f in findings}
    finally:
        path.write_bytes(original)


@pytest.fixture(scope="module")
def offline_real(tmp_path_factory) -> Path:
    root = _real_copy(tmp_path_factory, OFFLINE_REAL, REAL, "offline")
    assert _verdict(root, "v5.1", OFFLINE_REAL)[0] is True
    return root


@pytest.mark.real
@pytest.mark.parametrize("key", sorted(LOADGEN_LOG.keys))
def test_any_bad_value_of_a_declared_log_key_is_a_finding(offline_real: Path, key: str) -> None:
    """The real performance log of a valid v5.1 result, one declared key set (or added) to a
    bad value: FIL012 at that log and key, the result not valid, no internal error."""
    rel = f"{OFFLINE_REAL}/performance/run_1/mlperf_log_detail.txt"
    log = offline_real / rel
    present = f'"key": "{key}"'.encode() in log.read_bytes()

    @FEW
    @given(JSON_VALUES)
    def bad_value(value) -> None:
        assume(_bad(LOADGEN_LOG, key, value))
        edit = set_mllog if present else add_mllog
        found = _found_when(offline_real, "v5.1", OFFLINE_REAL, log, lambda: edit(log, key, value))
        assert ("FIL012", "error", rel, key) in found

    bad_value()


def _set_line(text: str, name: str, value: str) -> str:
    """A summary with its first `name : ...` line set to `value`, or the line added."""
    pattern = re.compile(rf"^(\s*\*?\s*{re.escape(name)}\s*:).*$", re.MULTILINE)
    if pattern.search(text):
        return pattern.sub(lambda m: f"{m.group(1)} {value}", text, count=1)
    return text + f"{name} : {value}\n"


@pytest.mark.real
@pytest.mark.parametrize("name", sorted(typed.declaration("loadgen_summary").keys))
def test_any_bad_value_of_a_declared_summary_line_is_a_finding(offline_real: Path, name: str) -> None:
    """The TEST04 summary of a valid v5.1 result (CMP005 reads it), one declared line set to
    bad text: FIL012 at that summary and line, the result not valid."""
    compliance = OFFLINE_REAL.replace("/results/", "/compliance/", 1)
    rel = f"{compliance}/TEST04/performance/run_1/mlperf_log_summary.txt"
    path = offline_real / rel
    original = path.read_text()
    declaration = typed.declaration("loadgen_summary")

    @FEW
    @given(TEXTS)
    def bad_text(text: str) -> None:
        assume(declaration.read_text(name, text.strip())[1] is not None)
        corrupted = _set_line(original, name, text)
        assert [d.pointer for d in parse_summary(corrupted)[1] if d.code == "FIL012"] == [name]
        found = _found_when(offline_real, "v5.1", OFFLINE_REAL, path, lambda: path.write_text(corrupted))
        assert ("FIL012", "error", rel, name) in found

    bad_text()


@pytest.mark.real
def test_any_bad_accuracy_value_is_a_finding_or_not_read(offline_real: Path) -> None:
    """accuracy.txt's value of the model's metric, as bad text: FIL012 at the metric where
    the round's pattern reads it, else the metric is missing; never valid."""
    rel = f"{OFFLINE_REAL}/accuracy/accuracy.txt"
    path = offline_real / rel
    original = path.read_text()
    printed = re.search(r"accuracy=([\d.]+)", original).group(1)

    patterns = load_round("v5.1").accuracy_patterns_of("resnet", "Offline")

    @settings(max_examples=12, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(st.one_of(TEXTS, st.sampled_from(["1.2.3", "..", "9" * 30, "9" * 400, "1" * 5000])))
    def bad_text(text: str) -> None:
        assume(typed.declaration("accuracy_txt").read_text("acc", text)[1] is not None)
        corrupted = original.replace(f"accuracy={printed}", f"accuracy={text}", 1)
        read = any(d.code == "FIL012" for d in parse_accuracy(corrupted, patterns)[1])
        found = _found_when(offline_real, "v5.1", OFFLINE_REAL, path, lambda: path.write_text(corrupted))
        if read:
            assert ("FIL012", "error", rel, "acc") in found
        else:  # the pattern reads no value (ACC001), or a part of it, held to the gate (ACC002)
            assert {code for code, severity, at, _ in found if at == rel and severity == "error"} & {"ACC001", "ACC002"}

    bad_text()


@pytest.mark.real
@pytest.mark.parametrize("check", sorted(typed.declaration("compliance_verify").keys))
def test_any_bad_verify_check_is_a_finding(tmp_path_factory, check: str) -> None:
    root = _real_copy(tmp_path_factory, TEST06_REAL, REAL, "test06")
    compliance = TEST06_REAL.replace("/results/", "/compliance/", 1)
    rel = f"{compliance}/TEST06/verify_accuracy.txt"
    path = root / rel
    original = path.read_text()
    assert _verdict(root, "v5.1", TEST06_REAL)[0] is True

    @FEW
    @given(TEXTS)
    def bad_text(text: str) -> None:
        assume(":" not in text and "=" not in text)
        assume(typed.declaration("compliance_verify").read_text(check, text.strip())[1] is not None)
        pattern = re.compile(rf"^({re.escape(check)}\s*:).*$", re.MULTILINE | re.IGNORECASE)
        corrupted = pattern.sub(lambda m: f"{m.group(1)} {text}", original, count=1)
        assert [d.pointer for d in parse_verify(corrupted)[1]] == [check]
        found = _found_when(root, "v5.1", TEST06_REAL, path, lambda: path.write_text(corrupted))
        assert ("FIL012", "error", rel, check) in found

    bad_text()


POWER_REAL = "closed/Lenovo/results/SR680a_V3_B200SXMx8_TRT/whisper/Offline"


@pytest.mark.real
@pytest.mark.full
def test_any_bad_watts_of_a_power_sample_is_a_finding(tmp_path_factory) -> None:
    """A real v5.1 power result's spl.txt, one sample's watts as bad text: FIL012 at that
    line, the power metric not made of it, the result not valid."""
    root = _real_copy(tmp_path_factory, POWER_REAL, REAL, "power")
    rel = f"{POWER_REAL}/performance/run_1/spl.txt"
    path = root / rel
    original = path.read_text()
    assert _verdict(root, "v5.1", POWER_REAL)[0] is True
    first = original.splitlines()[0].split(",")

    @FEW
    @given(TEXTS)
    def bad_text(text: str) -> None:
        assume("," not in text and typed.declaration("power_samples").read_text("Watts", text)[1] is not None)
        corrupted = original.replace(",".join(first), ",".join([*first[:3], text, *first[4:]]), 1)
        found = _found_when(root, "v5.1", POWER_REAL, path, lambda: path.write_text(corrupted))
        assert ("FIL012", "error", rel, "Watts") in found

    bad_text()


def _put(data: dict, path: tuple, value) -> None:
    """Set `value` at a path of keys and indexes, making the objects on the way."""
    node = data
    for step in path[:-1]:
        if isinstance(step, int):
            node = node[step]
        else:
            if not isinstance(node.get(step), (dict, list)):
                node[step] = {}
            node = node[step]
    node[path[-1]] = value


def _places(declaration: typed.Declaration, schema: dict, path: tuple = ()) -> list[tuple]:
    """Every place a declaration types a value: each declared field (into objects and the
    first item of lists), and a new member where `additionalProperties` types any."""
    schema = declaration._resolve(schema)
    found = []
    for key, sub in schema.get("properties", {}).items():
        sub = declaration._resolve(sub)
        found.append((*path, key))
        if "properties" in sub or isinstance(sub.get("additionalProperties"), dict):
            found += _places(declaration, sub, (*path, key))
        if "items" in sub:
            found += _places(declaration, declaration._resolve(sub["items"]), (*path, key, 0))
    if isinstance(schema.get("additionalProperties"), dict):
        found.append((*path, "injected_score"))
    return found


ENDPOINTS_FILES = {
    "endpoints_summary": "performance/result_summary.json",
    "endpoints_config": "config.yaml",
    "endpoints_accuracy": "accuracy/accuracy_results.json",
}
ENDPOINTS_PLACES = [
    (kind, place)
    for kind in ENDPOINTS_FILES
    for place in _places(typed.declaration(kind), typed.schema(kind))
    if kind == "endpoints_accuracy" or ".".join(map(str, place)) in typed.declaration(kind).leaves
]


@pytest.fixture(scope="module")
def endpoints_real(tmp_path_factory) -> Path:
    root = _real_copy(tmp_path_factory, ENDPOINTS_REAL, REAL_ROOT / "v6.1", "endpoints")
    assert _verdict(root, "v6.1", ENDPOINTS_REAL)[0] is True
    return root


@pytest.mark.real
@pytest.mark.parametrize(
    "kind,place", ENDPOINTS_PLACES, ids=lambda p: "/".join(map(str, p)) if isinstance(p, tuple) else p
)
def test_any_bad_value_of_a_declared_endpoints_field_is_a_finding(endpoints_real: Path, kind: str, place) -> None:
    """A real v6.1 Endpoints result (its README is not in the slice: MSR001 is not selected),
    one declared field set to a bad value: FIL012 at that file and field (its dotted path, or
    in accuracy_results.json its JSON pointer), the result not valid."""
    rel = f"{ENDPOINTS_REAL}/{ENDPOINTS_FILES[kind]}"
    path = endpoints_real / rel
    original = path.read_text()
    load, dump = (yaml.safe_load, yaml.safe_dump) if rel.endswith(".yaml") else (json.loads, json.dumps)
    declaration = typed.declaration(kind)
    dotted = ".".join(map(str, place))

    @FEW
    @given(JSON_VALUES)
    def bad_value(value) -> None:
        if kind == "endpoints_accuracy":
            assume(list(declaration.problems(_with(load(original), place, value))) != [])
        else:
            assume(next(iter(declaration.leaves[dotted](value, (dotted,))), None) is not None)
        corrupted = dump(_with(load(original), place, value))
        found = _found_when(endpoints_real, "v6.1", ENDPOINTS_REAL, path, lambda: path.write_text(corrupted))
        if kind == "endpoints_accuracy":  # at the place, or inside the value put there
            assert any(c == "FIL012" and p == rel and at.startswith(typed.pointer(place)) for c, _, p, at in found)
        else:
            assert ("FIL012", "error", rel, dotted) in found, found

    bad_value()


def _with(data: dict, place: tuple, value) -> dict:
    _put(data, place, value)
    return data


SYSTEM_REAL = "closed/Lenovo/systems/SE100_RTX2000E_Ada_16GBx1_TRT.json"


@pytest.mark.real
@pytest.mark.parametrize("field", sorted(load_round("v5.1").system_description.numeric))
def test_any_bad_count_of_a_system_description_is_an_error(offline_real: Path, field: str) -> None:
    """A count of the real description, set to a bad value: SYS005 at its JSON pointer, an
    error, the result not valid. Text stays a warning in a count the round's tools never
    compute with (one count per part of a mixed system is text), unless it is absurd."""
    path = offline_real / SYSTEM_REAL
    original = path.read_text()
    integer = field in load_round("v5.1").system_description.integer

    @FEW
    @given(JSON_VALUES)
    def bad_value(value) -> None:
        assume(not (isinstance(value, float) and value.is_integer() and 0 <= value <= 9999999))
        assume(not (isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 9999999))
        assume(not (isinstance(value, str) and re.fullmatch(r"\s*[0-9]{1,7}\s*", value)))
        assume(integer or not isinstance(value, str) or re.fullmatch(r"\s*[0-9]+\s*", value))
        corrupted = json.dumps({**json.loads(original), field: value})
        found = _found_when(offline_real, "v5.1", OFFLINE_REAL, path, lambda: path.write_text(corrupted))
        assert ("SYS005", "error", SYSTEM_REAL, f"/{field}") in found

    bad_value()


# --- no command ends with an internal error on a 400-digit integer -----------------------
def _commands(root: Path, tmp_path: Path, names: tuple[str, ...]) -> None:
    """Each command on the tree ends with 0, 1 or 2, never 3, never an exception that escapes
    the command line and never a traceback. In this process: the commands are the point, not
    the interpreter's start (tests/test_reliability_cli.py runs real processes)."""
    claims = tmp_path / "claims.yaml"
    claims.write_text("claims:\n- {id: a, kind: value, expect: 2, in: {round: demo-v6.1}}\n")
    commands = {
        "reproduce": ["reproduce", str(EXAMPLE / OFFLINE), str(root / OFFLINE), "--round", "demo-v6.1", "-f", "json"],
        "provenance": ["provenance", str(root), "--round", "demo-v6.1"],
        "check": ["check", str(root), "--round", "demo-v6.1", "-f", "json"],
        "report": ["report", str(root), "--round", "demo-v6.1", "-o", str(tmp_path / "page.html")],
        "compare": ["compare", str(root), "--round", "demo-v6.1"],
        "claims": ["claims", str(claims), "--table", f"demo-v6.1={root}"],
        "table": ["table", str(root), "--round", "demo-v6.1"],
    }
    for name in names:
        done = cli(*commands[name])  # an exception that escapes the command line fails here
        assert done.returncode in (0, 1, 2), (name, done.returncode, done.stderr[-2000:])
        assert "Traceback" not in done.stdout + done.stderr, name


def test_a_400_digit_metric_never_crashes_a_command(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    shutil.copytree(EXAMPLE, root, symlinks=True)
    set_mllog(root / OFFLINE / "performance/run_1/mlperf_log_detail.txt", "result_samples_per_second", 10**400)
    report = run(root)
    assert [(f.code, f.pointer) for f in report.findings] == [("FIL012", "result_samples_per_second")]
    assert [r.valid for r in report.results] == [False, True] and report.results[0].metric is None
    _commands(root, tmp_path, ("check", "report", "compare", "claims", "table", "reproduce", "provenance"))


def test_commands_read_a_malformed_setting_as_absent(tmp_path: Path) -> None:
    """reproduce compares a setting not of its declared type as None (its errors say why);
    provenance does not judge a build whose git status is not text."""
    from typer.testing import CliRunner

    from checker.cli import app

    root = tmp_path / "tree"
    shutil.copytree(EXAMPLE, root, symlinks=True)
    log = root / OFFLINE / "performance/run_1/mlperf_log_detail.txt"
    set_mllog(log, "effective_target_latency_ns", [1])
    set_mllog(log, "loadgen_git_status_message", [" M loadgen.cc"])
    runner = CliRunner()
    done = runner.invoke(
        app, ["reproduce", str(EXAMPLE / OFFLINE), str(root / OFFLINE), "--round", "demo-v6.1", "-f", "json"]
    )
    assert done.exit_code == 1, done.output
    reproduction = json.loads(done.stdout)
    assert reproduction["mismatched_settings"] == [
        {"setting": "effective_target_latency_ns", "original": 0, "reproduction": None}
    ]
    assert [e.split(":")[0] for e in reproduction["reproduction_errors"]] == [
        f"FIL012 {OFFLINE}/performance/run_1/mlperf_log_detail.txt"
    ] * 2
    done = runner.invoke(app, ["provenance", str(root), "--round", "demo-v6.1", "-f", "json"])
    assert done.exit_code == 0, done.output
    assert [v["location"] for v in json.loads(done.stdout)["results"]] == [SINGLE]


@pytest.mark.parametrize("count", [10**400, "1" * 5000], ids=["400-digit-integer", "5000-digit-string"])
def test_an_absurd_node_count_never_crashes_a_command(tmp_path: Path, count) -> None:
    """Every result of the system is invalid then; report and compare on a tree without a
    valid result are the analysis commands' own case (issue 22, Analysis)."""
    root = tmp_path / "tree"
    shutil.copytree(EXAMPLE, root, symlinks=True)
    system = root / SUBMISSION / "systems/cpu-1x-numpy.json"
    system.write_text(json.dumps({**json.loads(system.read_text()), "number_of_nodes": count}))
    report = run(root)
    assert [(f.code, f.severity.value, f.pointer) for f in report.findings] == [("SYS005", "error", "/number_of_nodes")]
    assert len(report.findings[0].message) < 300  # the value is shown short
    assert report.findings[0].message.endswith("; no count has more than 7 digits")
    assert [r.valid for r in report.results] == [False, False]
    _commands(root, tmp_path, ("check", "claims", "table"))
