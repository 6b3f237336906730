"""Parsers on real inputs (loadgen logs made by the harness, files from the v5.1 slice)."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.parsers import Defect
from checker.parsers.accuracy import parse_accuracy
from checker.parsers.mllog import parse_mllog
from checker.parsers.text import conf_number, parse_conf, parse_summary, parse_verify
from helpers import EXAMPLE, OFFLINE, SINGLE


def _log(rel: str):
    with open(EXAMPLE / rel, "rb") as handle:
        return parse_mllog(handle)


def test_mllog_reads_wanted_keys_only() -> None:
    log, defects = _log(f"{OFFLINE}/performance/run_1/mlperf_log_detail.txt")
    assert defects == []
    assert log.scenario == "Offline" and log.test_mode == "PerformanceOnly"
    assert log.get("result_validity") == "VALID"
    assert log.get("effective_qsl_rng_seed") == 2085463073848966840
    assert "requested_scenario" not in log  # not wanted, never decoded
    assert log.errors == []


def test_mllog_keeps_loadgen_errors_and_warnings_with_line_numbers() -> None:
    data = (EXAMPLE / f"{SINGLE}/performance/run_1/mlperf_log_detail.txt").read_bytes()
    line = (
        b':::MLLOG {"key": "error_runtime", "value": "Attempted to complete a sample twice.", "time_ms": 1.0, '
        b'"namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": true, '
        b'"is_warning": false, "file": "loadgen.cc", "line_no": 1, "pid": 1, "tid": 1}}\n'
    )
    log, defects = parse_mllog(io.BytesIO(data + line))
    assert defects == []
    assert [(r.key, r.value) for r in log.errors] == [("error_runtime", "Attempted to complete a sample twice.")]
    assert log.errors[0].line == data.count(b"\n") + 1


def test_mllog_truncated_line_is_a_defect_not_an_exception() -> None:
    data = (EXAMPLE / f"{OFFLINE}/performance/run_1/mlperf_log_detail.txt").read_bytes()[:-30]
    log, defects = parse_mllog(io.BytesIO(data))
    assert [d.code for d in defects] == ["LOG001"]
    assert defects[0].line == data.count(b"\n") + 1
    assert log.get("result_validity") == "VALID"


def test_mllog_caps_defects() -> None:
    log, defects = parse_mllog(io.BytesIO(b"junk\n" * 50))
    assert len(defects) == 21 and defects[-1].message == "more defects in this log were not listed"


def test_summary_of_a_real_run() -> None:
    summary, defects = parse_summary((EXAMPLE / f"{SINGLE}/performance/run_1/mlperf_log_summary.txt").read_text())
    assert defects == []
    assert summary.validity == "VALID" and summary.scenario == "SingleStream" and summary.mode == "PerformanceOnly"


def test_verify_files() -> None:
    verdict, defects = parse_verify((EXAMPLE / f"{OFFLINE}/TEST01/verify_performance.txt").read_text())
    assert defects == [] and verdict.passed is True
    assert float(verdict.checks["reference score"]) > 500 and float(verdict.checks["test score"]) > 500
    failed, _ = parse_verify("num_perf_log_data_mismatch = 56\nTEST FAIL\n")
    assert failed.passed is False and failed.checks == {"num_perf_log_data_mismatch": "56"}
    test06, _ = parse_verify("First token check pass: Skipped\nEOS check pass: True\nTEST06 verification complete\n")
    assert test06.passed is None and test06.checks["eos check pass"] == "True"
    empty, defects = parse_verify("nothing here\n")
    assert empty.passed is None and [d.code for d in defects] == ["CMP001"]


def _patterns(round_name: str, *metrics: str) -> dict[str, str]:
    from checker.rounds import load_round

    table = load_round(round_name).accuracy_patterns
    return {metric: table[metric] for metric in metrics}


@pytest.mark.parametrize(
    "round_name,text,expected",
    [
        # Lines as the reference scripts print them, read with the round's own patterns.
        (
            "v6.0",
            "{'rouge1': 44.5433, 'rouge2': 22.1372, 'rougeL': 28.9134, 'rougeLsum': 42.1085, "
            "'gen_len': np.int64(27277346), 'gen_num': 24576, 'tokens_per_sample': 282.9}\n",
            {"ROUGE1": "44.5433", "ROUGE2": "22.1372", "ROUGEL": "28.9134", "TOKENS_PER_SAMPLE": "282.9"},
        ),
        ("v6.0", "Printing for submission_checker:\n\n'exact_match': 83.396\n", {"exact_match": "83.396"}),
        ("v6.0", '{"f1": 0.7890600786539296}\n', {"F1_HIERARCHICAL": "0.7890600786539296"}),
        ("v6.0", " 'vbench_score': 69.98\n", {"vbench_score": "69.98"}),
        (
            "v5.1",
            "Accuracy Results: {'FID_SCORE': '23.691320200021494', 'CLIP_SCORE': '31.80903629362583'}\n",
            {"FID_SCORE": "23.691320200021494", "CLIP_SCORE": "31.80903629362583"},
        ),
        ("v5.1", "accuracy=76.064%, good=38032, total=50000\n", {"acc": "76.064"}),
        ("v5.1", "mAP=54.234%\n", {"mAP": "54.234"}),
        ("v5.1", "AUC=80.23785974349185\n", {"AUC": "80.23785974349185"}),
        ("v5.1", "Accuracy: mean = 0.86114, kidney = 0.9347, tumor = 0.7876\n", {"DICE": "0.86114"}),
        (
            "v5.1",
            "Word Error Rate: 2.1679339912635496%, accuracy=97.83206600873645%\n",
            {"ACCURACY": "97.83206600873645"},
        ),
        ("v5.1", '{"exact_match": 83.6, "f1": 90.9}\n', {"F1": "90.9"}),
        ("v6.0", "WARNING:main:metric/lifetime_ne/rating: 0.8671\n", {"DLRM_NE": "0.8671"}),
    ],
)
def test_accuracy_lines_read_with_the_rounds_patterns(round_name: str, text: str, expected: dict) -> None:
    patterns = _patterns(round_name, *expected, "GEN_LEN")
    report, defects = parse_accuracy(text + "hash=abc123\n", patterns)
    assert defects == [] and report.hash == "abc123"
    assert {metric: report.printed(metric) for metric in expected} == expected
    assert report.printed("GEN_LEN") is None  # np.int64(...) and absent values are not read, as in the round


def test_every_match_is_kept_and_the_last_is_printed() -> None:
    patterns = _patterns("v6.0", "acc")
    report, _ = parse_accuracy("accuracy=76.100%\nnoise\naccuracy=75.000%\nhash=ab\n", patterns)
    assert [(m.printed, m.value, m.line, m.column) for m in report.found("acc")] == [
        ("76.100", 76.1, 1, 10),
        ("75.000", 75.0, 3, 10),
    ]
    assert (report.printed("acc"), report.get("acc")) == ("75.000", 75.0)


def test_accuracy_without_values() -> None:
    report, defects = parse_accuracy("hash=abc\n", _patterns("v6.0", "acc"))
    assert report.empty and report.hash == "abc" and defects == []
    odd, defects = parse_accuracy("accuracy=1.2.3%\n", _patterns("v6.0", "acc"))
    assert odd.found("acc") == []  # not a number: refused by its declaration
    assert defects == [
        Defect("FIL012", 'line 1: acc is "1.2.3", not a number from 0 to 1e+15', line=1, pointer="acc", column=10)
    ]


def test_conf_lines() -> None:
    values, defects = parse_conf("# comment\n*.Offline.min_duration = 1000\n\t*.Offline.min_query_count\t=\t9\r\n")
    assert values == {"*.Offline.min_duration": "1000", "*.Offline.min_query_count": "9"}
    assert values.refused is None and defects == []


@pytest.mark.parametrize(
    "line,stored,refused,problem",
    [
        # loadgen's FromConfig: a comment after the value is read as a value, and refuses the file
        ("k.S.x = 1 # tuned", {"k.S.x": "1"}, 1, "the comment `#` after the value"),
        ('k.S.x = "5"', {}, 1, 'the value `"5"` is not a number'),
        ("k.S.x: 5", {}, 1, "`5` follows the key where loadgen wants `=`"),
        ("k.S.x =5", {}, 1, "`=5` follows the key where loadgen wants `=`"),
        ("k.S.x=5", {}, None, "`k.S.x=5` is one word to loadgen, which reads no setting from it"),
        ("k.S.x = 0x10", {"k.S.x": "0x10"}, None, None),
        ("k.S.x = 010", {"k.S.x": "010"}, None, None),
        ("k.S.x = 1e3", {"k.S.x": "1e3"}, None, None),
        ("k.S.x = 1 2", {"k.S.x": "2"}, None, None),
        ("#k.S.x = 1", {}, None, None),
        ("k.S.x = 1_0", {}, 1, "the value `1_0` is not a number"),
    ],
)
def test_conf_lines_as_loadgen_reads_them(line: str, stored: dict, refused: int | None, problem: str | None) -> None:
    values, defects = parse_conf(line + "\n")
    assert (dict(values), values.refused) == (stored, refused)
    assert [d.message.partition(": ")[2].startswith(problem) for d in defects] == ([True] if problem else [])
    if refused:
        assert defects[0].message.endswith("so loadgen refuses this file and applies none of its settings")


@pytest.mark.real
@pytest.mark.full
def test_every_real_accuracy_file_parses(real: Path) -> None:
    files = sorted(real.glob("*/*/results/*/*/*/accuracy/accuracy.txt"))
    assert len(files) == 137
    from checker.rounds import load_round

    round = load_round("v5.1")
    for path in files:
        model = round.canonical_model(path.parts[-4]) or "llama2-70b-99.9"  # open names mapped by model_mapping.json
        report, defects = parse_accuracy(path.read_text(errors="replace"), round.accuracy_patterns_of(model, "Offline"))
        assert defects == [] and report.hash, path
        assert not report.empty, path


def test_endpoints_percentile_keys_hold_dots() -> None:
    from checker.parsers.endpoints import parse_result_summary

    summary, defects = parse_result_summary(
        '{"ttft": {"percentiles": {"99.0": 5.0, "99.9": 7.0}, "early_stopping_percentiles": {"99.0": null}}}'
    )
    assert defects == []
    # The round's checker reads only the early-stopping estimate: none here.
    assert summary.p99("ttft") == (None, "ttft.early_stopping_percentiles.99.0")
    assert summary.get("ttft.percentiles.99.9") == 7.0
    summary, _ = parse_result_summary('{"tpot": {"early_stopping_percentiles": {"99.0": 9.5}}}')
    assert summary.p99("tpot") == (9.5, "tpot.early_stopping_percentiles.99.0")


def test_endpoints_accuracy_reads_breakdown_and_headline() -> None:
    from checker.parsers.endpoints import parse_accuracy_results

    report, defects = parse_accuracy_results(
        '{"accuracy_scores": [{"dataset_name": "d", "dataset_type": "accuracy", "score": 0.71, "unit_samples": 10,'
        ' "breakdown": {"rouge1": 43.1}}, {"dataset_name": "p", "dataset_type": "performance", "score": 1.0}]}'
    )
    assert defects == []
    assert report.value("rouge1") == 43.1
    assert report.headline == 0.71  # the one accuracy dataset; the performance one is not a score
    assert report.total_samples == 10


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


def _agree(data: bytes, where) -> None:
    """Streamed in whole blocks and in odd small ones (lines cut everywhere), the reader reads
    what the reference reads line by line (tests/mllog_reference.py)."""
    from mllog_reference import reference_mllog

    plain = _reading(reference_mllog(io.BytesIO(data)))
    assert _reading(parse_mllog(io.BytesIO(data))) == plain, where
    assert _reading(parse_mllog(io.BytesIO(data), block=4093)) == plain, where


def test_whole_file_and_line_by_line_readings_agree() -> None:
    """Every real log of the example gives the same log from a file, streamed in any block
    size, and read line by line."""
    from helpers import EXAMPLE

    logs = sorted(EXAMPLE.rglob("mlperf_log_detail.txt"))
    assert len(logs) == 6
    for path in logs:
        data = path.read_bytes()
        _agree(data, path)
        with open(path, "rb") as handle:
            assert _reading(parse_mllog(handle)) == _reading(parse_mllog(io.BytesIO(data)))
        assert _reading(parse_mllog(io.BytesIO(data), block=7)) == _reading(parse_mllog(io.BytesIO(data)))


@pytest.mark.slow
@pytest.mark.real
@pytest.mark.full
def test_every_real_detail_log_reads_the_same_streamed_and_line_by_line(real: Path) -> None:
    """The rules' view of every real detail log of v5.1 and v6.0 (538 logs, up to 2.2 MB) is
    the same whatever the reading; and a corrupted copy of every tenth (junk, blank, cut and
    NUL lines, CRLF, a missing last newline) is too, defects included."""
    import random

    from helpers import REAL_V60, real_data

    logs = sorted(real.rglob("mlperf_log_detail.txt")) + sorted(real_data(REAL_V60).rglob("mlperf_log_detail.txt"))
    assert len(logs) == 538
    rng = random.Random(12)
    for number, path in enumerate(logs):
        data = path.read_bytes()
        _agree(data, path)
        if number % 10:
            continue
        lines = data.split(b"\n")
        for _ in range(rng.randint(1, 40)):
            at = rng.randrange(len(lines))
            edit = rng.randrange(6)
            if edit == 0:
                lines.insert(at, b"junk")
            elif edit == 1:
                lines.insert(at, rng.choice([b"", b"  \t ", b"\r"]))
            elif edit == 2:
                lines[at] = lines[at][: rng.randrange(len(lines[at]) + 1)]
            elif edit == 3:
                lines[at] += b"\r"
            elif edit == 4:
                lines[at] = lines[at].replace(b"e", b"\x00", 1)
            else:
                lines[at] = lines[at].replace(b"[", b"[" * 80, 1)
        corrupted = b"\n".join(lines)
        _agree(corrupted, path)
        _agree(corrupted.rstrip(b"\n"), path)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    word=st.one_of(
        st.text(alphabet="0123456789abcdefxXpP+-._einfatyINF", max_size=24),
        st.floats().map(float.hex),
        st.integers().map(hex),
        st.integers(min_value=0).map(lambda n: "0" + format(n, "o")),
        st.sampled_from(["0x1p99999", "-0x1p99999", "1e999", "0x" + "f" * 400, "abc", "1_0"]),
    )
)
def test_any_conf_value_is_read_as_loadgen_reads_it_or_not_at_all(word: str) -> None:
    """Every word a user.conf or mlperf.conf may hold is a number loadgen reads or none, never
    an exception (`0x1p99999` was an OverflowError, a traceback of the whole check): a hex float
    only after 0x (`abc` is no number to strtod), a value past a double's range inf, and the
    file's line a setting whatever its value."""
    value = conf_number(word)
    assert value is None or isinstance(value, float)
    values, defects = parse_conf(f"*.Offline.min_duration = {word}\n")
    assert values.get("*.Offline.min_duration", word) == word and set(values) <= {"*.Offline.min_duration"}
    assert all(defect.line == 1 for defect in defects)


def test_the_conf_numbers_of_each_base() -> None:
    assert [conf_number(w) for w in ("0x10", "-0X1.8p1", "010", "0", "70.0", "0x1p99999", "abc", "1_0", "0xg")] == [
        16.0,
        -3.0,
        8.0,
        0.0,
        70.0,
        math.inf,
        None,
        None,
        None,
    ]
