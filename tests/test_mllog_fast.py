"""The reader of detail logs (`parse_mllog`, what `check` uses) against the reference reading
(tests/mllog_reference.py, every line in plain Python): the same LoadgenLog (values, last
values, lines, errors, warnings, line count) and the same defects, for every real log of v5.1
and v6.0, for those logs corrupted where the reader takes its short cuts (flags and wanted
keys in the middle, cut tails, lines in other shapes), and for random logs; with the same
caps, in linear time and flat memory. Then the contract: every loadgen key a rule, the model
or a round file reads is declared (schemas/loadgen_log.schema.json), so decoded and typed."""

from __future__ import annotations

import ast
import io
import json
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from mllog_reference import reference_mllog

from checker.parsers import mllog
from checker.parsers.mllog import BLOCK, MAX_DEFECTS, MAX_KEY_CACHE, MAX_RECORD, Wanted, parse_mllog
from helpers import EXAMPLE, OFFLINE, REAL_V60, ROOT, reading_cost

MiB = 1024 * 1024
LOG = f"{OFFLINE}/performance/run_1/mlperf_log_detail.txt"


def _reading(result) -> tuple:
    log, defects = result
    return (
        log.values,
        log.last,
        log.lines,
        log.line_count,
        [(r.key, r.value, r.line) for r in log.errors],
        [(r.key, r.value, r.line) for r in log.warnings],
        defects,
    )


def _typed(value):
    """A value with the type of every number in it: 1 and 1.0 (and True) are told apart."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


def _same(data: bytes, where="", blocks=(BLOCK, 4093), wanted=mllog.is_wanted) -> tuple:
    """The reader's reading of `data` equals the reference's, in whole blocks and in odd small
    ones (lines cut everywhere), the type of every value included. Returns the reading."""
    reference = _reading(reference_mllog(io.BytesIO(data), wanted))
    for block in blocks:
        fast = _reading(parse_mllog(io.BytesIO(data), wanted, block=block))
        assert fast == reference, (where, block)
        assert _typed(fast[:2]) == _typed(reference[:2]), (where, block)
    return reference


def _example_lines(rel: str = LOG) -> list[bytes]:
    return (EXAMPLE / rel).read_bytes().splitlines(keepends=True)


def _record(key: str, value, is_error: bool = False, is_warning: bool = False, **extra) -> bytes:
    """One record in loadgen's own shape (as loadgen and tests/helpers.add_mllog write it)."""
    record = {
        "key": key,
        "value": value,
        "time_ms": 1.5,
        "namespace": "mlperf::logging",
        "event_type": "POINT_IN_TIME",
        "metadata": {
            "is_error": is_error,
            "is_warning": is_warning,
            "file": "loadgen.cc",
            "line_no": 7,
            "pid": 11,
            "tid": 13,
        },
    }
    record.update(extra)
    return b":::MLLOG " + json.dumps(record).encode() + b"\n"


# --- real logs ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def real_logs(real: Path) -> list[tuple[Path, bytes]]:
    if not REAL_V60.is_dir():
        pytest.skip("../shared/real/v6.0 is not present")
    paths = sorted(real.rglob("mlperf_log_detail.txt")) + sorted(REAL_V60.rglob("mlperf_log_detail.txt"))
    return [(path, path.read_bytes()) for path in paths]


@pytest.mark.real
@pytest.mark.full
def test_every_real_detail_log_reads_as_the_reference(real_logs) -> None:
    """All 538 detail logs of the v5.1 and v6.0 slices: the whole LoadgenLog and the defects."""
    assert len(real_logs) == 538
    totals = {"values": 0, "errors": 0, "warnings": 0, "lines": 0}
    for path, data in real_logs:
        values, _, _, line_count, errors, warnings, defects = _same(data, path)
        assert defects == [], path
        totals["values"] += len(values)
        totals["errors"] += len(errors)
        totals["warnings"] += len(warnings)
        totals["lines"] += line_count
    # 3,728 of the values are the requested_ settings PRF017 reads
    assert totals == {"values": 32228, "errors": 188, "warnings": 204, "lines": 76160}


def _middle(lines: list[bytes]) -> range:
    """Where loadgen writes its bulk: after the settings (the last `effective_` record of
    the head) and before the results (the first `result_` record of the tail)."""
    keys = [line[18 : line.find(b'"', 18)] for line in lines]
    head = max((n for n, k in enumerate(keys) if k.startswith(b"effective_")), default=0) + 1
    tail = min((n for n, k in enumerate(keys) if k.startswith(b"result_")), default=len(lines))
    return range(head, max(head + 1, tail))


def _variants(data: bytes, rng: random.Random) -> dict[str, bytes]:
    """The log corrupted where the fast reading takes short cuts: flags set in the middle
    (on a sample set, on a record in loadgen's shape, in a value before the metadata, on a
    record without metadata), wanted records moved and copied into the middle, the tail cut
    (inside a line and at a line's end), and middle lines in other shapes."""
    lines = data.splitlines(keepends=True)
    middle = _middle(lines)
    pick = lambda: rng.choice(middle)  # noqa: E731
    out: dict[str, bytes] = {}

    def edited(at: int, line: bytes) -> bytes:
        return b"".join(lines[:at] + [line] + lines[at + 1 :])

    at = pick()
    out["error flag in the middle"] = edited(at, lines[at].replace(b'"is_error": false', b'"is_error": true'))
    at = pick()
    out["warning flag in the middle"] = edited(at, lines[at].replace(b'"is_warning": false', b'"is_warning": true'))
    sets = [n for n in middle if b'"key": "loaded_qsl_set"' in lines[n]] or [pick()]
    at = rng.choice(sets)
    out["error flag on a sample set"] = edited(at, lines[at].replace(b'"is_error": false', b'"is_error": true'))
    out["a flag in a value, before the metadata"] = edited(
        at, lines[at].replace(b'"value": [', b'"value": ["is_error": true, [', 1)
    )
    out["a flag on a record without metadata"] = edited(
        at, lines[at].split(b', "metadata": ')[0].replace(b'"value": [', b'"value": ["is_warning": true, [', 1) + b"}\n"
    )
    wanted = [line for line in lines if mllog.is_wanted(line[18 : line.find(b'"', 18)].decode())]
    moved = rng.sample(wanted, min(5, len(wanted)))
    rest = [line for line in lines if line not in moved]
    at = _middle(rest).start
    out["wanted records moved to the middle"] = b"".join(rest[:at] + moved + rest[at:])
    at = pick()
    out["wanted records copied into the middle"] = b"".join(
        lines[:at] + [m.replace(b'"value": ', b'"value": 1, "was": ', 1) for m in moved] + lines[at:]
    )
    cut = rng.randrange(sum(map(len, lines[: min(middle.stop, len(lines) - 1)])), len(data))
    out["tail cut inside a line"] = data[:cut]
    out["tail cut at a line's end"] = b"".join(lines[: rng.randrange(middle.start, len(lines))])
    out["no newline at the end"] = data.rstrip(b"\n")
    shaped = list(lines)
    for at in rng.sample(middle, min(6, len(middle))):
        shaped[at] = rng.choice(
            [
                shaped[at].replace(b"\n", b"\r\n"),
                shaped[at].replace(b"\n", b"\r\r\n"),
                shaped[at].replace(b'", "value": ', b'",  "value": ', 1),
                shaped[at].replace(b"}}", b"} }"),
                shaped[at].replace(b":::MLLOG ", b":::ENDPTS "),
                shaped[at].replace(b'"file": "', b'"file": "\xc3\xa9'),
                shaped[at].replace(b'"is_warning": false', b'"is_warning": false, "is_error": true'),
                shaped[at].replace(b"e", b"\x00", 1),
                shaped[at][: len(shaped[at]) // 2] + b"\n",
                b"junk\n",
                b"  \n",
            ]
        )
    out["middle lines in other shapes"] = b"".join(shaped)
    return out


@pytest.mark.real
@pytest.mark.full
def test_real_logs_corrupted_where_the_fast_reading_takes_short_cuts(real_logs) -> None:
    """Every real log, each of its variants: the reading of the reference, defects included."""
    rng = random.Random(14)
    changed: dict[str, int] = {}
    for path, data in real_logs:
        original = _reading(reference_mllog(io.BytesIO(data)))
        for name, variant in _variants(data, rng).items():
            changed[name] = changed.get(name, 0) + (_same(variant, (path, name), blocks=(BLOCK,)) != original)
    # How many of the 538 logs each corruption changed: the variants are real changes, except
    # where none is meant. A flag in a value before the metadata is no flag (the 2 changed are
    # v6.0.9 TEST01 logs whose every record is flagged, so the edited value is kept); a
    # missing last newline changes nothing; a few records edited already carried the flag.
    assert changed == {
        "error flag in the middle": 536,
        "warning flag in the middle": 534,
        "error flag on a sample set": 536,
        "a flag in a value, before the metadata": 2,
        "a flag on a record without metadata": 538,
        "wanted records moved to the middle": 538,
        "wanted records copied into the middle": 538,
        "tail cut inside a line": 538,
        "tail cut at a line's end": 538,
        "no newline at the end": 0,
        "middle lines in other shapes": 511,
    }


# --- lines in loadgen's own shape and in others -------------------------------------------
NUMBERS = [0, -0, 7, -12, 2**64, 10**300, 1.5, -0.25, 1e-7, 6.02e23, 1e308]
TEXTS = ["", "VALID", "a b", "".join(chr(c) for c in range(32, 127) if chr(c) not in '"\\')]


def test_values_in_loadgen_shape_convert_as_the_json_decoder_converts_them() -> None:
    lines = _example_lines()
    values = NUMBERS + TEXTS + [True, False, None]
    body = [_record(f"result_v{n}", value) for n, value in enumerate(values)]
    # Numbers as written by hand: an exponent without a fraction, -0, a capital E.
    body += [
        b':::MLLOG {"key": "result_w%d", "value": %s, "time_ms": 2e-3, "namespace": "mlperf::logging", '
        b'"event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false, "file": "x", '
        b'"line_no": 1, "pid": 1, "tid": 1}}\n' % (n, text)
        for n, text in enumerate(
            [b"-0", b"1E5", b"2e+10", b"-3.25E-2", b"1e400", b"1" * 301, b"1" * 302, b"0.1", b"-0.0"]
        )
    ]
    values_, *_ = _same(b"".join(lines + body))
    assert [_typed(values_[f"result_v{n}"]) for n in range(len(values))] == [_typed(v) for v in values]
    assert [_typed(values_[f"result_w{n}"]) for n in range(9)] == [
        ("int", 0),
        ("float", 1e5),
        ("float", 2e10),
        ("float", -0.0325),
        ("float", float("inf")),
        ("int", int("1" * 301)),
        ("int", int("1" * 302)),
        ("float", 0.1),
        ("float", -0.0),
    ]


OTHER_SHAPES = [
    # Values the one-match reading leaves to the reference: escapes, non-ASCII, objects, lists, NaN.
    _record("result_escaped", 'line\nbreak "quoted" \\'),
    _record("result_unicode", "caf\u00e9"),
    _record("result_object", {"a": [1, 2]}),
    _record("result_list", [1, "2", None]),
    _record("result_nan", float("nan")),
    _record("result_inf", float("-inf")),
    # Records in other shapes: other spacing, order, namespace, prefix, metadata.
    _record("result_spaced", 1).replace(b'", "value"', b'",   "value"'),
    _record("result_ns", 2, namespace="other"),
    _record("result_event", 3, event_type="INTERVAL_START"),
    _record("result_first", 4).replace(b'{"key": "result_first", "value": 4', b'{"value": 4, "key": "result_first"'),
    _record("result_endpts", 5).replace(b":::MLLOG ", b":::ENDPTS "),
    _record("result_endpts_list", [5]).replace(b":::MLLOG ", b":::ENDPTS "),
    _record("unread_endpts", [5], is_warning=True).replace(b":::MLLOG ", b":::ENDPTS "),
    _record("result_twice", 6).replace(b'"value": 6', b'"value": 6, "value": 7'),
    _record("result_extra_meta", 8).replace(b'"tid": 13}', b'"tid": 13, "is_error": true}'),
    _record("result_no_meta", 9).split(b', "metadata"')[0] + b"}\n",
    _record("result_meta_in_value", {"metadata": {"is_error": True}}),
    _record("result_long_file", 10).replace(b'"file": "loadgen.cc"', b'"file": "' + b"f" * 5000 + b'"'),
    _record("result_crlf", 11).replace(b"\n", b"\r\n"),
    _record("result_crcr", 12).replace(b"\n", b"\r\r\n"),
    _record("result_cr_inside", 13).replace(b'"value": 13', b'"value": 13\r'),
    _record("r" * 300, 14),
    _record("result_" + "k" * 300, 15),
    _record("", 16),
    _record("result_\u00e9", 17),
    _record("result_bad_utf8", 18).replace(b"result_bad_utf8", b"result_bad_\xff"),
    _record("result_bad_utf8_value", "x").replace(b'"value": "x"', b'"value": "\xff"'),
    _record("result_nested", [[[1]]]),
    _record("result_deep", 1).replace(b'"value": 1', b'"value": ' + b"[" * 70 + b"]" * 70),
    _record("result_truncated", 19)[:-20] + b"\n",
    _record("result_no_brace", 20).replace(b"}}\n", b"}\n"),
    _record("result_trailing_space", 21).replace(b"}}\n", b"}} \n"),
    _record("result_nul", 22).replace(b"loadgen.cc", b"load\x00gen.cc"),
    # Flags on records no one wants, in loadgen's shape and not.
    _record("unread_error", "E", is_error=True),
    _record("unread_warning", "W", is_warning=True),
    _record("unread_both", "B", is_error=True, is_warning=True),
    _record("unread_list", [1], is_error=True),
    _record("unread_flag_in_value", '"is_error": true'),
    _record("unread_plain", 1),
    _record("error_uncommitted_loadgen_changes", "Loadgen built with uncommitted changes!", is_error=True),
    _record("warning_generic_message", "Found Audit Config file (audit.config)", is_warning=True),
    # Lines that are not records.
    b"junk\n",
    b"\n",
    b"   \t\n",
    b"\r\n",
    b"\x00\n",
    b":::MLLOG\n",
    b':::MLLOG {"key": "x\n',
    b':::OTHER {"key": "result_x", "value": 1}\n',
]


@pytest.mark.parametrize("blocks", [(BLOCK,), (7, 61, 4093)])
def test_records_in_other_shapes_read_as_the_reference(blocks) -> None:
    lines = _example_lines()
    data = b"".join(lines[:40] + OTHER_SHAPES + lines[40:] + OTHER_SHAPES[::-1])
    values, _, _, line_count, errors, warnings, defects = _same(data, blocks=blocks)
    assert line_count == len(lines) + 2 * len(OTHER_SHAPES)
    assert [
        values[k]
        for k in (
            "result_twice",
            "result_crcr",
            "result_no_meta",
            "result_unicode",
            "result_endpts",
            "result_endpts_list",
        )
    ] == [6, 12, 9, "caf\u00e9", 5, [5]]
    assert "result_first" not in values  # a record must start with its key: a malformed record
    assert [key for key, _, _ in errors][:5] == [
        "result_extra_meta",
        "unread_error",
        "unread_both",
        "unread_list",
        "error_uncommitted_loadgen_changes",
    ]
    assert [key for key, _, _ in warnings] == [
        "unread_endpts",
        "unread_warning",
        "warning_generic_message",
        "warning_generic_message",
        "unread_warning",
        "unread_endpts",
    ]
    assert [(d.code, d.line) for d in defects] == [
        ("LOG001", 50),
        ("LOG001", 66),
        ("LOG001", 67),
        ("LOG001", 69),
        ("LOG001", 70),
        ("LOG001", 72),
        ("FIL004", 73),
        ("LOG001", 82),
        ("FIL004", 86),
        ("LOG001", 87),
        ("LOG001", 88),
        ("LOG001", 89),
        ("LOG001", 140),
        ("LOG001", 141),
        ("LOG001", 142),
        ("FIL004", 143),
        ("LOG001", 147),
        ("FIL004", 156),
        ("LOG001", 157),
        ("LOG001", 159),
        ("LOG001", 160),
    ]


def test_flags_and_wanted_keys_anywhere_are_found() -> None:
    """A flag or a wanted key on any line, in loadgen's shape or not, in a long run of
    records no one wants: found on its line, as the reference finds it."""
    lines = _example_lines()
    filler = [
        line
        for line in lines
        if not mllog.is_wanted(line[18 : line.find(b'"', 18)].decode())
        and b'"is_error": false, "is_warning": false' in line
    ]
    rng = random.Random(3)
    for _ in range(40):
        body = [rng.choice(filler) for _ in range(300)]
        at = rng.randrange(len(body))
        body[at] = rng.choice(
            [
                body[at].replace(b'"is_error": false', b'"is_error": true'),
                body[at].replace(b'"is_warning": false', b'"is_warning": true'),
                _record("result_hidden", rng.random()),
                _record("num_errors", 1),
                _record("power_begin", "07-30-2025 18:24:11.047").replace(b"\n", b"\r\n"),
                _record("loadgen_version", "x \u00e9"),
            ]
        )
        data = b"".join(lines[:50] + body + lines[50:])
        reading = _same(data, blocks=(BLOCK, 4093, 97))
        assert reading != _reading(parse_mllog(io.BytesIO(b"".join(lines[:50] + lines[50:]))))


def test_a_wanted_plain_function_reads_as_the_reference() -> None:
    """`wanted` may be any function of the key (no runs passed over in one match then)."""
    data = b"".join(_example_lines() + OTHER_SHAPES)
    _same(data, wanted=lambda key: key.startswith("result_") or key == "unread_plain")
    _same(data, wanted=Wanted({"qsl_reported_total_count"}, ()))
    _same(data, wanted=Wanted((), ()))
    with pytest.raises(ValueError):
        Wanted({'a"b'})


def test_random_logs_read_as_the_reference() -> None:
    """Random logs made of the example's lines, OTHER_SHAPES and random edits of both, in
    random block sizes."""
    pool = _example_lines() + _example_lines(LOG.replace("Offline", "SingleStream")) + OTHER_SHAPES
    edits = ["keep", "cut", "crlf", "flag", "warn", "nul", "dup", "blank", "space", "byte"]
    for_random_logs(pool, edits, lambda data, block: _same(data, blocks=(block,)))


def for_random_logs(pool: list[bytes], edits: list[str], check: Callable[[bytes, int], None]) -> None:
    """`check(data, block)` for 200 logs of `pool`'s lines, each kept or edited one of the
    `edits` ways (edited_line), ending with a newline or not, and a block size of the reader
    (the generated-log property of both detail-log readers)."""
    pytest.importorskip("hypothesis")
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(
        max_examples=200, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
    )
    @given(
        st.lists(
            st.tuples(st.integers(0, len(pool) - 1), st.sampled_from(edits), st.integers(0, 10_000)),
            min_size=1,
            max_size=120,
        ),
        st.sampled_from([BLOCK, 4093, 257, 31, 5]),
        st.booleans(),
    )
    def run(picks: list[tuple[int, str, int]], block: int, last_newline: bool) -> None:
        data = b"".join(piece for n, how, where in picks for piece in edited_line(pool[n], how, where))
        check(data if last_newline else data.rstrip(b"\n"), block)

    run()


# Value texts where a reading of loadgen's shape can go wrong: numbers at the edges of 64 bits
# and of doubles, in every notation JSON has and some it has not; strings with escapes,
# control characters, non-ASCII, bad UTF-8, quotes, `, "`; the literals and near misses.
VALUE_TEXTS = [
    *(b"%d" % n for n in (0, 7, -12, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64, 10**18, 10**19)),
    *(b"1" * n for n in (18, 19, 20, 21, 301)),
    *(b"-0", b"00", b"01", b"-01", b"+1", b"0x10", b"1_0", b"1.", b".5", b"-", b"1e", b"1e+", b"--1"),
    *(b"-0.0", b"0.0", b"1.0", b"1E5", b"1e5", b"1e+5", b"2.5E-3", b"1e19", b"-1e19", b"9.223372036854776e18"),
    b"9.223372036854775e18",
    *(b"1e400", b"-1e400", b"1e0400", b"2.5e-400", b"4.9e-324", b"2.2250738585072014e-308", b"1e-310"),
    *(b"1.7976931348623157e308", b"1.7976931348623159e308", b"0.30000000000000004", b"0.1", b"1e-7"),
    *(b"123456789012345678.5", b"1.2345678901234567890", b"0.000000000000000000012345"),
    *(b"1" * 16 + b".5", b"1" * 17 + b".5"),
    *(b"NaN", b"Infinity", b"-Infinity", b"nan", b"inf"),
    *(b"true", b"false", b"null", b"tru", b"nulll", b"True", b"NULL"),
    *(b'""', b'"VALID"', b'"a b"', b'"\\n"', b'"a\\"b"', b'"\\u00e9"', b'"\\ud800"', b'"\\\\"', b'"a\\'),
    *(b'"caf\xc3\xa9"', b'"\xe2\x82\xac"', b'"\xff"', b'"\xed\xa0\x80"', b'"\xc3"', b'"a\tb"', b'"\x01"', b'"\x7f"'),
    *(b'"a"b"', b'"', b'"open', b'"a, "b"', b'"x": true', b"[1]", b"[]", b"{}", b'{"a": 1}', b"[[1]]", b"1 ", b" 1"),
]


def value_texts():
    """Value texts: VALUE_TEXTS, JSON's numbers and strings at random, and random bytes."""
    from hypothesis import strategies as st

    number = st.from_regex(rb"\A-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,24})?([eE][+-]?[0-9]{1,4})?\Z")
    return st.one_of(
        st.sampled_from(VALUE_TEXTS),
        number,
        st.integers(-(2**66), 2**66).map(lambda n: b"%d" % n),
        st.floats(allow_nan=False, allow_infinity=False).map(lambda f: repr(f).encode()),
        st.text(max_size=12).map(lambda t: json.dumps(t, ensure_ascii=False).encode("utf-8", "surrogatepass")),
        st.binary(min_size=1, max_size=8),
    )


def for_value_logs(check: Callable[[bytes, int, tuple[int, int]], None], prefix: list[bytes]) -> None:
    """`check(data, block, cut)` for 300 logs of `prefix` then records in loadgen's shape of
    a few wanted and unwanted keys (each key more than once: first and last values) with
    value_texts, some flagged, some with CRLF ends, some holding a NUL; `cut`, a line of the
    log (modulo its lines) and -1, 0 or 1: where a keep budget runs out. The generated-value
    property of both detail-log readers."""
    pytest.importorskip("hypothesis")
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    keys = ["result_a", "result_b", "effective_c", "early_stopping_d", "unread_e"]
    record = st.tuples(
        st.sampled_from(keys),
        value_texts(),
        st.sampled_from(["", "error", "warning"]),
        st.sampled_from(["\n"] * 6 + ["\r\n", "nul"]),
    )

    @settings(
        max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
    )
    @given(
        st.lists(record, min_size=2, max_size=40),
        st.sampled_from([BLOCK, 4093, 257, 31, 5]),
        st.tuples(st.integers(0, 40), st.sampled_from([-1, 0, 1])),
    )
    def run(records: list[tuple[str, bytes, str, str]], block: int, cut: tuple[int, int]) -> None:
        lines = []
        for key, text, flag, end in records:
            line = _record(key, "@", is_error=flag == "error", is_warning=flag == "warning")
            line = line.replace(b'"value": "@"', b'"value": ' + text)
            lines.append(
                line.replace(b"loadgen.cc", b"load\x00gen.cc") if end == "nul" else line.replace(b"\n", end.encode())
            )
        check(b"".join(prefix + lines), block, cut)

    run()


def test_generated_values_read_as_the_reference() -> None:
    """Records in loadgen's shape whose values are any text (value_texts), flagged or not, in
    any block size: the reader's reading is the reference's, the type of every value included."""
    prefix = _example_lines()[:12]
    for_value_logs(lambda data, block, cut: _same(data, blocks=(block,)), prefix)


# --- caps ---------------------------------------------------------------------------------
def test_the_caps_are_the_reference_caps() -> None:
    """MAX_RECORD, KEEP_BUDGET, MAX_DEFECTS, MAX_KEY_CACHE and MAX_LINE: the same defects on
    the same lines, and the same values kept."""
    lines = _example_lines()
    huge = _record("result_huge", "x" * (MAX_RECORD + 1))
    big = [_record(f"result_big_{n}", "y" * (MAX_RECORD // 2)) for n in range(12)]
    *_, defects = _same(b"".join(lines) + huge + b"".join(big), blocks=(BLOCK,))
    assert [(d.code, d.line) for d in defects] == [("LOG001", len(lines) + 1), ("LOG001", len(lines) + 9)]
    keys = b"".join(_record(f"result_k{n}", n) + _record(f"unread_k{n}", n) for n in range(MAX_KEY_CACHE + 50))
    values, *_ = _same(b"".join(lines) + keys, blocks=(BLOCK,))
    assert values[f"result_k{MAX_KEY_CACHE + 49}"] == MAX_KEY_CACHE + 49
    *_, defects = _same(b"junk\n" * 50 + b"".join(lines) + b"\x00\n" * 30, blocks=(BLOCK, 4093))
    assert [(d.code, d.line) for d in defects] == [("LOG001", n) for n in range(1, 22)]
    long_line = b"0123456789abcdef" * (mllog.MAX_LINE // 16 + 1)
    *_, defects = _same(b"".join(lines[:5]) + long_line + b"\n" + b"".join(lines[5:]), blocks=(BLOCK,))
    assert [(d.code, d.line) for d in defects] == [("FIL009", 6)]


def test_a_record_is_measured_without_the_crs_at_its_end() -> None:
    """What a record costs against MAX_RECORD and KEEP_BUDGET is its line without its newline
    and the CRs before it, as the reference measures it: records that fill the budget to the
    byte, with CRLF and CR CR LF ends, are all kept; one byte more is not."""
    lines = _example_lines()
    reading = mllog._Reading(mllog.is_wanted)
    reading.feed(io.BytesIO(b"".join(lines)), BLOCK)
    room = mllog.KEEP_BUDGET - reading.kept
    base = len(_record("result_fill_0", "")) - 1  # the cost of a record whose value is ""
    sizes = [room // 5 - base] * 4 + [room - 4 * (room // 5) - base]
    fill = [
        _record(f"result_fill_{n}", "y" * size).replace(b"\n", b"\r\n" if n % 2 else b"\r\r\n")
        for n, size in enumerate(sizes)
    ]
    values, *_, defects = _same(b"".join(lines + fill), blocks=(BLOCK,))
    assert defects == [] and [len(values[f"result_fill_{n}"]) for n in range(5)] == sizes
    values, *_, defects = _same(b"".join(lines + fill[:4]) + fill[4].replace(b'"y', b'"yy'), blocks=(BLOCK,))
    assert [(d.code, d.line) for d in defects] == [("LOG001", len(lines) + 5)] and "result_fill_4" not in values
    edge = len(_record("result_edge", "")) - 1
    exact = _record("result_edge", "z" * (MAX_RECORD - edge)).replace(b"\n", b"\r\r\n")
    *_, defects = _same(b"".join(lines) + exact + exact.replace(b'"z', b'"zz'), blocks=(BLOCK,))
    assert [(d.code, d.line) for d in defects] == [("LOG001", len(lines) + 2)]


# --- time and memory ----------------------------------------------------------------------
def _grow(path: Path, size: int, shape: str) -> None:
    """The example log grown to `size` bytes, as tests/test_reliability_io.py grows it:
    copies of its own unread records in its middle, 2-byte junk lines, or blank lines."""
    lines = _example_lines()
    with open(path, "wb") as handle:
        if shape == "records":
            filler = b"".join(
                line
                for line in lines
                if not mllog.is_wanted(line[18 : line.find(b'"', 18)].decode())
                and b'"is_error": false, "is_warning": false' in line
            )
            handle.writelines(lines[:45])
            for _ in range(size // len(filler)):
                handle.write(filler)
            handle.writelines(lines[45:])
        else:
            handle.writelines(lines)
            handle.write({"short": b"x\n", "blank": b"\n"}[shape] * (size // 2 if shape == "short" else size))


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["records", "short", "blank"])
def test_the_fast_reading_is_linear_in_work_and_flat_in_memory(tmp_path: Path, shape: str) -> None:
    small, large = tmp_path / "small.txt", tmp_path / "large.txt"
    _grow(small, 8 * MiB, shape)
    _grow(large, 32 * MiB, shape)
    small_cost, large_cost = (reading_cost(parse_mllog, path, buffering=0) for path in (small, large))
    for cost, path in ((small_cost, small), (large_cost, large)):  # each byte read once, a block at a time
        size = path.stat().st_size
        assert (cost.read_bytes, cost.reads) == (size, -(-size // BLOCK) + 1), (shape, cost)
    peak_small, peak_large = small_cost.peak, large_cost.peak
    assert peak_large < 4 * BLOCK and peak_large < peak_small + MiB, (peak_small, peak_large)


def test_records_no_one_wants_are_never_visited_one_by_one(tmp_path: Path, monkeypatch) -> None:
    """Work counted, not timed: growing the log with records no one wants adds no line that
    reaches `_Reading._line` (the whole reading of one line) and no kept record, but the lines
    that blocks cut; nor do blank lines, nor junk lines once the defects are capped."""
    visited: list[int] = []
    line = mllog._Reading._line
    monkeypatch.setattr(mllog._Reading, "_line", lambda self, *args: (visited.append(self.number), line(self, *args)))
    counts = {}
    for shape, size in (("records", 0), ("records", 4 * MiB), ("blank", 4 * MiB), ("short", 4 * MiB)):
        path = tmp_path / f"{shape}-{size}.txt"
        _grow(path, size, shape)
        monkeypatch.setattr(mllog, "_JUDGED", {})  # no key judged yet: each one's first line is read whole
        visited.clear()
        with open(path, "rb") as handle:
            log, _ = parse_mllog(handle, block=MiB)
        counts[shape, size] = (len(visited), len(log.values))
        assert log.line_count == path.read_bytes().count(b"\n")
    # The first line of each of the example's 89 keys (its one wanted record not in loadgen's
    # shape, loadgen_file_sha1, among them); then the lines that 1 MiB blocks cut (4 of
    # them), which `feed` joins and reads whole; then the junk lines up to the cap.
    keys = len({line[18 : line.find(b'"', 18)] for line in _example_lines()})
    assert keys == 89
    assert counts == {
        ("records", 0): (keys, 59),
        ("records", 4 * MiB): (keys + 4, 59),
        ("blank", 4 * MiB): (keys, 59),
        ("short", 4 * MiB): (keys + MAX_DEFECTS + 1, 59),
    }


# --- the contract: keys read are keys wanted ----------------------------------------------
RULES = ROOT / "rules"
CHECKER = ROOT / "checker"
# How a loadgen log is named where it is read: log, main, run, source (compliance.py), log_a,
# result.performance_log, self.accuracy_log, result.compliance_log(test) ...
LOG_NAMES = re.compile(
    r"^(?:log|log_[ab]|main|run|source)$|(?:^|\.)(?:performance|accuracy|compliance)_log(?:\(.*\))?$"
)
PROPERTIES = {"scenario": "effective_scenario", "test_mode": "effective_test_mode"}


def _strings(node: ast.AST, constants: dict[str, list[str]]) -> list[str] | None:
    """The strings an expression can be: a literal, a name bound to literal strings, an
    f-string's literal start (as `prefix*`), either branch of `a if c else b`; None when
    unknown."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return [node.values[0].value + "*"]
    if isinstance(node, ast.IfExp):
        both = (_strings(node.body, constants), _strings(node.orelse, constants))
        return both[0] + both[1] if None not in both else None
    return None


def _bindings(tree: ast.Module) -> dict[str, list[str]]:
    """Names bound to literal strings: module constants (FLAGS = ("a", "b")), names assigned
    a literal (key = "a" if c else "b"), and the targets of for loops over constants or over
    literal tuples ((name, key, limit) in (("TTFT", "k", "l"), ...))."""
    constants: dict[str, list[str]] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, (ast.Tuple, ast.List))
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.value.elts)
        ):
            constants[node.targets[0].id] = [e.value for e in node.value.elts]
    loops: dict[str, list[str]] = {}  # a name bound several times can be what any binding binds
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and not isinstance(node.value, (ast.Tuple, ast.List))
        ):
            strings = _strings(node.value, constants)
            if strings is not None:
                loops.setdefault(node.targets[0].id, []).extend(strings)
        if not isinstance(node, (ast.For, ast.comprehension)):
            continue
        if isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Name) and node.iter.id in constants:
            loops.setdefault(node.target.id, []).extend(constants[node.iter.id])
        elif isinstance(node.target, ast.Tuple) and isinstance(node.iter, (ast.Tuple, ast.List)):
            rows = [row.elts for row in node.iter.elts if isinstance(row, ast.Tuple)]
            for column, target in enumerate(node.target.elts):
                if isinstance(target, ast.Name):
                    cells = [row[column] for row in rows if column < len(row)]
                    if cells and all(isinstance(c, ast.Constant) and isinstance(c.value, str) for c in cells):
                        loops.setdefault(target.id, []).extend(c.value for c in cells)
    return {**constants, **loops}


def loadgen_reads(path: Path) -> set[str]:
    """Every loadgen key a module reads from a LoadgenLog, found in its source: `log.get(k)`,
    `k in log`, `_number(log, k)`, `log.scenario`, `log.test_mode` (on a log by its name, see
    LOG_NAMES), with k a literal or a name bound to literals."""
    tree = ast.parse(path.read_text())
    constants = _bindings(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        keys = None
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and LOG_NAMES.search(ast.unparse(node.func.value))
        ):
            keys = _strings(node.args[0], constants)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "_number"
            and len(node.args) == 2
        ):
            keys = _strings(node.args[1], constants)
        elif (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.In)
            and LOG_NAMES.search(ast.unparse(node.comparators[0]))
        ):
            keys = _strings(node.left, constants)
        elif isinstance(node, ast.Attribute) and node.attr in PROPERTIES and LOG_NAMES.search(ast.unparse(node.value)):
            keys = [PROPERTIES[node.attr]]
        found.update(keys or ())
    return found


def test_every_rule_family_declares_the_loadgen_keys_it_reads() -> None:
    """A rule family that reads a loadgen log names the keys it reads in LOADGEN_KEYS, which
    `mllog.reads` checks are wanted when the module is imported; the declaration is exactly
    what its source reads."""
    import importlib

    declared = {}
    for path in sorted(RULES.glob("*.py")):
        module = importlib.import_module(f"checker.rules.{path.stem}")
        reads = loadgen_reads(path)
        if reads or hasattr(module, "LOADGEN_KEYS"):
            declared[path.stem] = set(module.LOADGEN_KEYS)
            assert declared[path.stem] == reads, path
    assert sorted(declared) == ["accuracy", "compliance", "limits", "performance", "power", "runs", "seeds", "settings"]
    assert declared["seeds"] == {"effective_*"}
    with pytest.raises(ValueError, match="not declared .*loadgen_log.schema.json.*: requested_scenario, qsl_*"):
        mllog.reads("result_validity", "requested_scenario", "qsl_*")


def _declared(key: str) -> bool:
    """Whether a key read is declared one by one (schemas/loadgen_log.schema.json), or, for
    an f-string's start (`prefix*`), is a declared family; so it is decoded, and typed."""
    if key.endswith("*"):
        return key[:-1] in mllog.LOADGEN_LOG.prefixes
    return mllog.LOADGEN_LOG.declares(key) and mllog.is_wanted(key)


def test_every_loadgen_key_the_checker_reads_is_declared() -> None:
    """The model, provenance, reproduce, table and CLI read keys too: each one is declared,
    so decoded and typed (a key ending in * is an f-string's start: a declared family)."""
    reads = {
        path.relative_to(CHECKER).as_posix(): loadgen_reads(path)
        for path in sorted(CHECKER.rglob("*.py"))
        if loadgen_reads(path)
    }
    assert sorted(reads) == [
        "analysis/published/collect.py",
        "commands/reproduce.py",
        "model/metrics.py",
        "model/result.py",
        "provenance.py",
    ]
    for name, keys in reads.items():
        for key in keys:
            assert _declared(key), (name, key)


def test_the_static_scan_finds_reads() -> None:
    """The scan itself: it finds what a rule family reads (a literal, a loop over a constant,
    a loop over literal tuples, a membership test, a property)."""
    assert {
        "result_min_duration_met",
        "result_first_token_99.00_percentile_latency_ns",
        "effective_scenario",
        "requested_server_tpot_latency",
        "num_errors",
    } <= loadgen_reads(RULES / "performance.py") | loadgen_reads(RULES / "limits.py") | loadgen_reads(RULES / "runs.py")
    assert loadgen_reads(RULES / "accuracy.py") == {"effective_accuracy_sample_count", "qsl_reported_total_count"}
    assert loadgen_reads(RULES / "seeds.py") == {"effective_*"}


def round_file_loadgen_keys() -> set[str]:
    """The loadgen keys the round files name: the headline metric of every model and
    scenario, the inferred scenarios' keys, the compliance checks' keys, and the seeds."""
    from checker.rounds import available_rounds, load_round

    named: set[str] = set()
    for name in available_rounds():
        round = load_round(name)
        for model in round.models:
            for scenario in ("Offline", "Server", "Interactive", "SingleStream", "MultiStream"):
                metric = round.metric(model, scenario)
                if metric is not None:
                    named.add(metric.key)
        for rule in round.inferred_scenarios.rules if round.inferred_scenarios else ():
            named.update(k for k in (rule.key, rule.numerator_key) if k)
        for spec in round.compliance.tests.values() if round.compliance else ():
            check = spec.performance_check
            if check is not None and check.reads == "detail":
                named.update(m.key for m in check.metric.values() if m.key)
                named.update(k for keys in check.same.values() for k in keys)
                named.update(check.same_benchmark)
        named.update(f"effective_{seed}" for seed in round.seeds.named())
    return named


def test_every_loadgen_key_a_round_file_names_is_declared() -> None:
    """Round files name loadgen keys too: each is declared, so decoded and typed."""
    named = round_file_loadgen_keys()
    assert {
        "result_samples_per_second",
        "early_stopping_latency_ss",
        "effective_samples_per_query",
        "qsl_reported_total_count",
        "effective_qsl_rng_seed",
    } <= named
    assert sorted(key for key in named if not _declared(key)) == []


@pytest.mark.real
@pytest.mark.full
def test_every_key_asked_of_a_loadgen_log_in_real_checks_is_declared(real: Path, monkeypatch) -> None:
    """What the checks of the real v5.1 and v6.0 slices ask of their logs, recorded as they
    run (round files and variables included): every key is declared, so none reads as None
    for want of being decoded, and none is read untyped."""
    from checker.engine import check
    from checker.parsers.mllog import LoadgenLog

    asked: set[str] = set()
    get, contains = LoadgenLog.get, LoadgenLog.__contains__
    monkeypatch.setattr(LoadgenLog, "get", lambda self, key, default=None: (asked.add(key), get(self, key, default))[1])
    monkeypatch.setattr(LoadgenLog, "__contains__", lambda self, key: (asked.add(key), contains(self, key))[1])
    check(str(real), "v5.1", jobs=1)
    check(str(REAL_V60), "v6.0", jobs=1)
    assert sorted(key for key in asked if not _declared(key)) == []
    assert len(asked) == 55  # 14 of them the requested_ settings PRF017 reads


def edited_line(line: bytes, how: str, where: int) -> list[bytes]:
    """A log line edited one way (`how`, at byte `where`): what the generated-log properties
    of both detail-log readers (here and tests/test_mllog_scan.py) corrupt."""
    where %= max(1, len(line))
    return {
        "keep": [line],
        "cut": [line[:where] + b"\n"],
        "crlf": [line.replace(b"\n", b"\r\n")],
        "cr": [line.replace(b"\n", b"\r")],
        "flag": [line.replace(b'"is_error": false', b'"is_error": true')],
        "warn": [line.replace(b'"is_warning": false', b'"is_warning": true')],
        "nul": [line[:where] + b"\x00" + line[where:]],
        "dup": [line, line],
        "blank": [b"\n", line],
        "space": [line.replace(b": ", b":  ", 1)],
        "byte": [line[:where] + b"\xfe" + line[where + 1 :]],
    }[how]
