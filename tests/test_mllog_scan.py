"""The compiled scanner of detail logs (checker/parsers/_mllog_scan.c, optional) against the
pure-Python reading it short-cuts (MLPERF_CHECK_PURE=1, or no compiler at install): the same
LoadgenLog (every field: values and their types, last values, lines, columns, errors,
warnings, line count) and the same defects, for every real detail log, for those logs
corrupted where the reader takes its short cuts, for random and hand-made logs in any block
size; and the same JSON of a whole check. Skipped, saying why, when the scanner was not
built: then there is one reading only."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from test_mllog_fast import (
    OTHER_SHAPES,
    VALUE_TEXTS,
    _example_lines,
    _record,
    _typed,
    _variants,
    for_random_logs,
    for_value_logs,
)

from checker.parsers import mllog
from checker.parsers.mllog import BLOCK, KEEP_BUDGET, MAX_DEFECTS, MAX_RECORD, Wanted, parse_mllog
from checker.parsers.typed import KINDS, declaration
from helpers import REAL_ROOT, ROOT, real_data

try:
    from checker.parsers._mllog_scan import flat as FLAT
    from checker.parsers._mllog_scan import scan as SCAN
except ImportError:  # pragma: no cover - an install without a C compiler
    SCAN = FLAT = None

pytestmark = pytest.mark.skipif(
    SCAN is None, reason="the C scanner checker/parsers/_mllog_scan.c was not built (no compiler at install)"
)
MiB = 1024 * 1024


def _whole(result) -> tuple:
    log, defects = result
    return log, _typed(log.values), _typed(log.last), defects


def _read(data: bytes, scan, block: int, wanted: Wanted) -> tuple:
    saved, judged = mllog._scan, mllog._JUDGED
    mllog._scan, mllog._JUDGED = scan, {}
    try:
        cold = _whole(parse_mllog(io.BytesIO(data), wanted, block=block))
        warm = _whole(parse_mllog(io.BytesIO(data), wanted, block=block))  # every head judged already
    finally:
        mllog._scan, mllog._JUDGED = saved, judged
    assert warm == cold
    return cold


def _equal(data: bytes, where="", blocks=(BLOCK, 4093), wanted=mllog.is_wanted) -> tuple:
    """The compiled reading of `data` equals the pure one, in whole blocks and in small ones."""
    for block in blocks:
        compiled = _read(data, SCAN, block, wanted)
        assert compiled == _read(data, None, block, wanted), (where, block)
    return compiled


def test_the_reader_uses_the_scanner_unless_told_not_to() -> None:
    """Built, it is what `check` reads with; MLPERF_CHECK_PURE=1 makes the reading pure."""
    assert mllog._scan is (None if os.environ.get("MLPERF_CHECK_PURE") == "1" else SCAN)
    code = "from checker.parsers import mllog; print(mllog._scan is None)"
    for pure, none in (("1", "True"), ("0", "False")):
        env = {**os.environ, "MLPERF_CHECK_PURE": pure}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert done.stdout.strip() == none


def _scan(data: bytes, at: int, heads: dict, number: int = 0, kept: int = 0, budget: int = KEEP_BUDGET) -> tuple:
    """`scan` over data[at:] with a fresh LoadgenLog's dicts: what it returns, and what it kept
    (values, last, lines, columns, last_cost)."""
    dicts: tuple[dict, ...] = ({}, {}, {}, {}, {})
    return SCAN(data, at, len(data), heads, number, kept, budget, *dicts), dicts


def test_the_scanner_passes_over_unwanted_records_and_stops_at_the_others() -> None:
    """What `scan` hands back: where the first line it does not pass over starts, the lines
    before it, the bytes kept, its newline, and for a wanted record it does not keep its key
    and its value's span (start -1 when the record is not in the shape `_usual` reads)."""
    unwanted = b':::MLLOG {"key": "noise", "value": 1, "metadata": {"is_error": false}}\n'
    wanted = b':::MLLOG {"key": "result_x", "value": 2, "metadata": {"is_error": false}}\n'
    heads = {
        unwanted[: unwanted.index(b'"', 19)]: ("noise", False),
        wanted[: wanted.index(b'"', 19)]: ("result_x", True),
    }
    cost = len(wanted) - 1
    data = unwanted * 3 + wanted + unwanted
    assert _scan(data, 0, heads, 10, 5) == (
        (len(data), 15, 5 + cost, len(data) - 1, None, -1, -1),
        ({"result_x": 2}, {"result_x": 2}, {"result_x": 14}, {"result_x": wanted.index(b"2") + 1}, {"result_x": 0}),
    )
    at = 3 * len(unwanted)
    value = at + wanted.index(b"2")
    stopped = (at, 13, 5, at + len(wanted) - 1, "result_x", value, value + 1)
    assert _scan(data, 0, heads, 10, 5, budget=4 + cost) == (stopped, ({}, {}, {}, {}, {}))  # no room left
    for value_text in (b"[2]", b"1e400", b'"\\n"', b'"caf\xc3\xa9"', b"18446744073709551616", b"1e19"):
        edited = data.replace(b'"value": 2', b'"value": ' + value_text)
        end = value + len(value_text)
        assert _scan(edited, 0, heads, 10, 5) == (
            (at, 13, 5, at + len(wanted) + len(value_text) - 2, "result_x", value, end),
            ({}, {}, {}, {}, {}),
        ), value_text
    spaced = wanted.replace(b"2", b" 2")
    assert _scan(spaced, 0, heads) == ((0, 0, 0, len(spaced) - 1, "result_x", -1, -1), ({}, {}, {}, {}, {}))
    flagged = unwanted.replace(b"false", b"true")
    for other in (
        flagged,
        flagged.replace(b'"is_error"', b'"is_warning"'),
        unwanted.replace(b"1", b"\x00"),
        unwanted.replace(b"}}", b"} "),
        b"\n",
        b"junk\n",
        b':::MLLOG {"key": "unjudged", "value": 1}\n',
    ):
        data = unwanted + other + unwanted
        assert _scan(data, 0, heads)[0] == (len(unwanted), 1, 0, len(unwanted) + len(other) - 1, None, -1, -1)
    for passed in (  # `": true` that is no flag: in the value, before the metadata, another field's
        unwanted.replace(b'"value": 1', b'"value": true'),
        unwanted.replace(b'"value": 1', b'"value": "\\"is_error\\": true"'),
        unwanted.replace(b'"is_error": false', b'"is_error": false, "other": true'),
    ):
        data = unwanted + passed + unwanted
        assert _scan(data, 0, heads)[0] == (len(data), 3, 0, len(data) - 1, None, -1, -1)
    with pytest.raises(ValueError):
        SCAN(b"x\n", 0, 3, heads, 0, 0, KEEP_BUDGET, {}, {}, {}, {}, {})


# Value texts the scan reads itself (`plain` and `plain_mapping` in the C), each exactly as
# orjson reads it; every other text of VALUE_TEXTS it leaves to the Python reading.
PLAIN = [
    *(b"%d" % n for n in (0, 7, -12, 2**63 - 1, 2**63, -(2**63), 2**64 - 1, 10**18, 10**19)),
    *(b"1" * 18, b"1" * 19, b"1" * 20, b"-0"),
    *(b"-0.0", b"0.0", b"1.0", b"1E5", b"1e5", b"1e+5", b"2.5E-3", b"9.223372036854775e18"),
    *(b"2.2250738585072014e-308", b"0.30000000000000004", b"0.1", b"1e-7"),
    *(b"0.000000000000000000012345", b"1" * 16 + b".5"),
    *(b"true", b"false", b"null", b'""', b'"VALID"', b'"a b"', b'"\x7f"'),
]
PLAIN_MAPPINGS = [b"{}"]  # those of VALUE_TEXTS; MAPPING_TEXTS below has more


def test_the_scanner_reads_plain_values_as_orjson_and_leaves_the_rest() -> None:
    """Each of VALUE_TEXTS as the value of a wanted record: the scan keeps exactly the PLAIN
    ones, each with orjson's value and type, and stops at every other one with its span."""
    kept = []
    for text in VALUE_TEXTS:
        line = _record("result_x", "@").replace(b'"value": "@"', b'"value": ' + text)
        heads = {line[: line.index(b'"', 19)]: ("result_x", True)}
        (at, number, cost, *_), (values, last, *_) = _scan(line, 0, heads)
        if at == len(line):
            kept.append(text)
            assert _typed(values["result_x"]) == _typed(orjson.loads(text)) and last == values, text
            assert (number, cost) == (1, len(line) - 1)
        else:
            assert at == 0 and values == {}, text
    assert [t for t in kept if not t.startswith(b"{")] == PLAIN
    assert [t for t in kept if t.startswith(b"{")] == PLAIN_MAPPINGS


def test_flat_tells_values_that_need_no_walk() -> None:
    """`flat`: a scalar, or a list or mapping of scalars, without a float that is an integer
    past 64 bits (what `_orjson_value` looks for); anything else is left to the walks."""
    for value in (1, "a", None, True, 2.5, 2.0**62, float("inf"), float("nan"), [], {}, [1, "a"], {"a": 1.5}):
        assert FLAT(value) is True, value
    for value in (2.0**63, -(2.0**64), [2.0**63], {"a": 1e19}, [[1]], [{}], {"a": []}, (), [()], {"a": (1,)}):
        assert FLAT(value) is False, value


def test_generated_values_read_the_same() -> None:
    """Records in loadgen's shape whose values are any text (tests/test_mllog_fast.py
    value_texts), flagged or not, with CRLF ends or NULs, in any block size."""
    for_value_logs(lambda data, block, cut: _equal(data, blocks=(block,)), _example_lines()[:12])


def test_the_keep_budget_runs_out_the_same_on_every_record() -> None:
    """First and later values that the scan reads (plain) and that Python reads (escaped, a
    list), of wanted keys and flagged ones, with a keep budget that runs out on each of them,
    to the byte and one byte either side."""
    lines = [
        _record("result_a", 1),
        _record("result_b", "x"),
        _record("result_a", 22),
        _record("result_b", "y\n"),
        _record("result_a", [3]),
        _record("unread_c", "E", is_error=True),
        _record("result_a", 4444),
        _record("result_b", "zzzzzzzz"),
        _record("result_a", 555555),
    ]
    data, out_at = b"".join(lines), set()
    for cut in range(1, len(lines) + 1):
        reading = mllog._Reading(mllog.is_wanted)
        reading.feed(io.BytesIO(b"".join(lines[:cut])), BLOCK)
        for budget in (reading.kept - 1, reading.kept, reading.kept + 1):
            saved, mllog.KEEP_BUDGET = mllog.KEEP_BUDGET, budget
            try:
                *_, defects = _equal(data, (cut, budget), blocks=(BLOCK, 61))
            finally:
                mllog.KEEP_BUDGET = saved
            out_at.update(d.line for d in defects[:1])
    assert out_at == set(range(1, len(lines) + 1))  # the budget ran out on each record


def test_generated_values_read_the_same_at_any_keep_budget() -> None:
    """The same logs with a keep budget that runs out anywhere, to the byte or one byte off:
    on a first value, on a later one, on one the scan reads or one it leaves to Python."""

    def check(data: bytes, block: int, cut: tuple[int, int]) -> None:
        lines = data.splitlines(keepends=True)
        reading = mllog._Reading(mllog.is_wanted)  # what the lines before the cut keep, with room for all
        reading.feed(io.BytesIO(b"".join(lines[: cut[0] % (len(lines) + 1)])), BLOCK)
        budget = max(0, reading.kept + cut[1])
        saved, mllog.KEEP_BUDGET = mllog.KEEP_BUDGET, budget
        try:
            _equal(data, blocks=(block,))
        finally:
            mllog.KEEP_BUDGET = saved

    for_value_logs(check, [])


# --- real logs ---------------------------------------------------------------------------
def _real_logs(real: Path) -> list[tuple[Path, bytes]]:
    """Every detail log of the real slices beside `real` (v5.1, v6.0, v6.1, or the subset's)."""
    return [(path, path.read_bytes()) for path in sorted(real.parent.rglob("mlperf_log_detail.txt"))]


@pytest.mark.real
def test_every_real_detail_log_reads_the_same_compiled_and_pure(real: Path) -> None:
    """Every detail log of the real slices (or of the committed subset), as it is and
    corrupted where the reader takes its short cuts."""
    rng = random.Random(34)
    logs = _real_logs(real)
    assert logs
    for path, data in logs:
        log, _, _, defects = _equal(data, path, blocks=(BLOCK, 65521))
        assert defects == [] and log.values, path
        for name, variant in _variants(data, rng).items():
            _equal(variant, (path, name), blocks=(BLOCK,))


def _check_json(root: Path, pure: str, cache: Path) -> str:
    env = {**os.environ, "MLPERF_CHECK_PURE": pure, "MLPERF_CHECK_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-m", "checker", "check", str(root), "--format", "json", "--no-cache"],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


@pytest.mark.real
@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
def test_a_whole_check_is_the_same_compiled_and_pure(round_name: str, tmp_path: Path) -> None:
    """The JSON of `check` on each real slice, byte for byte."""
    root = real_data(REAL_ROOT / round_name)
    compiled = _check_json(root, "0", tmp_path / "a")
    assert compiled.startswith("{") and '"results"' in compiled
    assert compiled == _check_json(root, "1", tmp_path / "b")


# --- made and random logs -------------------------------------------------------------------
@pytest.mark.parametrize("blocks", [(BLOCK,), (7, 61, 4093)])
def test_records_in_other_shapes_read_the_same(blocks) -> None:
    lines = _example_lines()
    data = b"".join(lines[:40] + OTHER_SHAPES + lines[40:] + OTHER_SHAPES[::-1])
    log, _, _, defects = _equal(data, blocks=blocks)
    assert log.line_count == len(lines) + 2 * len(OTHER_SHAPES) and len(defects) == MAX_DEFECTS + 1


def test_hand_corrupted_logs_read_the_same() -> None:
    """Line endings, cut lines, NULs, huge lines, non-UTF-8 bytes, a wanted plain function,
    the caps, lines cut by blocks."""
    lines = _example_lines()
    body = b"".join(lines)
    rng = random.Random(7)
    cases = {
        "crlf": body.replace(b"\n", b"\r\n"),
        "cr only": body.replace(b"\n", b"\r"),
        "no newline at the end": body.rstrip(b"\n"),
        "leading blank lines": b"\n\n \n" + body,
        "first line empty, last byte a brace": b"\n" + body.rstrip(b"\n"),
        "nul everywhere": body.replace(b"e", b"\x00", 40),
        "non-UTF-8": body.replace(b'"value": ', b'"value": "\xff\xfe", "v": ', 30),
        "a huge unwanted line": b"".join(lines[:30]) + _record("noise_big", "x" * (3 * MiB)) + b"".join(lines[30:]),
        "a huge wanted line": b"".join(lines[:30])
        + _record("result_big", "x" * (MAX_RECORD + 5))
        + b"".join(lines[30:]),
        "a flag past a long metadata": b"".join(lines[:30])
        + _record("noise_flag", "y" * 600, is_error=True)
        + b"".join(lines[30:]),
        "cut lines": b"".join(
            line[: rng.randrange(1, len(line))] + b"\n" if n % 3 else line for n, line in enumerate(lines)
        ),
        "keys 19 bytes in": b"".join(line.replace(b'{"key": "', b'{"key":"', 1) for line in lines),
        "ENDPTS heads": body.replace(b":::MLLOG ", b":::ENDPTS "),
        "many defects": b"junk\n" * (MAX_DEFECTS + 5) + body,
    }
    for name, data in cases.items():
        _equal(data, name, blocks=(BLOCK, 4093, 97, 5))
    data = b"".join(lines + OTHER_SHAPES)
    _equal(data, wanted=Wanted({"qsl_reported_total_count"}, ()))
    _equal(data, wanted=Wanted((), ()))
    _equal(data, wanted=lambda key: key.startswith("result_"))


def test_random_logs_read_the_same() -> None:
    """Random logs made of the example's lines, OTHER_SHAPES and random edits of both, in
    random block sizes."""
    edits = ["keep", "cut", "crlf", "cr", "flag", "warn", "nul", "dup", "blank", "space", "byte"]
    for_random_logs(_example_lines() + OTHER_SHAPES, edits, lambda data, block: _equal(data, blocks=(block,)))


def test_suspects_are_the_keys_typed_would_check_whole() -> None:
    """`suspects` (typed's first pass, in C): for every declared key of a detail log and values
    at and past every edge its declaration draws (types, ranges, lengths, the floats that are
    and are not whole or finite), the keys the pure-Python pass lists, in the same order; and
    an undeclared key is never one."""
    from checker.parsers._mllog_scan import suspects

    edges = [
        None, True, False, 0, 1, -1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), 10**30, 0.0, -0.0, 0.5, 1.0,
        -1.0, 2.0**63, 2.0**64, 1e300, float("inf"), float("-inf"), float("nan"), 5e-324, "", "a", "x" * 256,
        "x" * 257, "é" * 256, "12-31-2025 23:59:59.5", "12-31-2025 23:59:59", "12-31-2025", [], [1], {}, {"a": "b"},
        {"a": 1}, (1,), {"a": "x" * 257}, {"a": None}, {str(i): "v" for i in range(100_001)},
    ]  # fmt: skip
    keys = sorted(mllog._SIMPLE) + ["undeclared_key"]
    for value in edges:
        values = {key: value for key in keys}
        pure = [key for key, v in values.items() if not mllog._SIMPLE.get(key, mllog._anything)(v)]
        assert suspects(values, mllog._TESTS) == pure, value
    rng = random.Random(34)
    for _ in range(200):
        values = {key: rng.choice(edges) for key in rng.sample(keys, rng.randrange(len(keys)))}
        pure = [key for key, v in values.items() if not mllog._SIMPLE.get(key, mllog._anything)(v)]
        assert suspects(values, mllog._TESTS) == pure
    for kind in KINDS:  # every spec any declaration gives (typed._fast, _uniform) means what its predicate does
        for key, check in declaration(kind).checks.items():
            test = getattr(check.simple, "spec", None)
            if test is not None:
                for value in edges:
                    assert suspects({key: value}, {key: test}) == ([] if check.simple(value) else [key]), (kind, key)


MAPPING_TEXTS = [
    "{}", '{"a": "b"}', '{"a": "b", "c": "d"}', '{"a": "b", "a": "c"}', '{"a":"b"}', '{"a": "b",  "c": "d"}',
    '{"a": "b\\n"}', '{"a": 1}', '{"a": {"b": "c"}}', '{ "a": "b"}', '{"a": "b" }', '{"": ""}', '{"a": "\u00e9"}',
    '{"a": "b",}', '{"a": "b"', '{"a" : "b"}', '{"a": "b"}}', '{"a": "\\"b"}', '{"a": "b\tc"}', '{"x.cc": "' + "f" * 40 + '"}',
]  # fmt: skip


def test_mappings_of_strings_read_the_same() -> None:
    """A wanted record whose value is a mapping (loadgen_file_sha1's file names to SHA-1s,
    which the scan keeps when it is one of plain strings in loadgen's spacing): every shape
    near that one, as a first and a later value, flagged or not, cut by blocks, with a keep
    budget that runs out on it, reads as the pure reading reads it."""
    head = b':::MLLOG {"key": "loadgen_file_sha1", "value": '
    tail = b', "time_ms": 1.5, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": %s, "file": "x.cc", "line_no": 7, "pid": 1, "tid": 2}}\n'
    for text in MAPPING_TEXTS:
        for warning in (b"false", b"true"):
            line = head + text.encode() + tail % warning
            data = _record("effective_scenario", "Offline") + line + _record("result_a", 1) + line + line[:-1]
            _equal(data, text, blocks=(BLOCK, 97, 4093))
            saved = mllog.KEEP_BUDGET
            try:
                for budget in (len(line) - 1, len(line), 2 * len(line) + 60):
                    mllog.KEEP_BUDGET = budget
                    _equal(data, (text, budget), blocks=(BLOCK,))
            finally:
                mllog.KEEP_BUDGET = saved


HOSTILE = r"""
import sys
from checker.parsers._mllog_scan import scan, suspects

def said(call):
    try:
        call()
    except Exception as error:
        print(type(error).__name__)
    else:
        print("returned")

deep = (5, None)
for _ in range(200_000):
    deep = (4, None, deep)
nested = value = {}
for _ in range(200_000):
    value["a"] = {}
    value = value["a"]
said(lambda: suspects({"k": nested}, {"k": deep}))

def growing(item):
    grown["more" + str(len(grown))] = 1
    return True
grown = {"a": 1, "b": 2}
said(lambda: suspects({"k": grown}, {"k": (4, None, growing)}))
values = {"a": 1, "b": 2}
said(lambda: suspects(values, {"a": lambda v: values.setdefault("c", 3) and True}))

line = b':::MLLOG {"key": "result_x", "value": 2, "metadata": {"is_error": false}}\n'
heads = {line[: line.index(b'"', 19)]: ("".join(["result", "_x"]), True)}

class Clears:
    def __del__(self):
        heads.clear()

last, last_cost = {"result_x": Clears()}, {"result_x": 0}
print(scan(line * 3, 0, len(line) * 3, heads, 0, 0, 10**6, {}, last, {}, {}, last_cost)[:5])
print(len(heads), last)
"""


def test_hostile_inputs_raise_or_read_rather_than_crash() -> None:
    """In a process of its own, as a crash would end it: a spec nested 200,000 deep is a
    RecursionError, not a C stack overflow; a predicate that grows the dict being walked is
    Python's own RuntimeError; and a value whose `__del__` empties `heads` while `scan` keeps a
    value leaves the scan reading on with the verdict it holds, not with a freed one."""
    done = subprocess.run([sys.executable, "-c", HOSTILE], capture_output=True, text=True, timeout=120, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    cost = len(b':::MLLOG {"key": "result_x", "value": 2, "metadata": {"is_error": false}}')
    assert done.stdout.splitlines() == [
        "RecursionError",
        "RuntimeError",
        "RuntimeError",
        f"({3 * (cost + 1)}, 3, {cost}, {3 * (cost + 1) - 1}, None)",
        "0 {'result_x': 2}",
    ]


EMPTIED = r"""
from checker.parsers._mllog_scan import suspects

values, kept = {}, []

class Empties(str):
    # a key whose __eq__, called as `tests` is looked up, empties `values` (freeing the key
    # and the value the loop has) and fills the freed memory
    def __hash__(self):
        return str.__hash__(self)

    def __eq__(self, other):
        values.clear()
        kept.append([bytearray(b"\0" * 8 + b"\xff" * 40) for _ in range(1000)])
        return str.__eq__(self, other)

for _ in range(20):
    values[Empties("a")] = [1.5] * 3
    try:
        print(suspects(values, {"a": (0,)}))
    except RuntimeError as error:
        print(error)
"""


def test_a_key_that_empties_the_values_as_it_is_looked_up_is_no_crash() -> None:
    """In a process of its own, as a crash would end it: `suspects` holds the key and value it
    judges while it looks the key's test up (which runs the key's __eq__), and a dict emptied
    so is Python's own RuntimeError, not a read of a freed key."""
    done = subprocess.run([sys.executable, "-c", EMPTIED], capture_output=True, text=True, timeout=120, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == ["dictionary changed size during iteration"] * 20
