"""Parsers on real inputs (loadgen logs made by the harness, files from the v5.1 slice)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from checker.parsers.accuracy import parse_accuracy
from checker.parsers.mllog import parse_mllog
from checker.parsers.text import parse_conf, parse_summary, parse_verify
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
    line = (b':::MLLOG {"key": "error_runtime", "value": "Attempted to complete a sample twice.", "time_ms": 1.0, '
            b'"namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": true, '
            b'"is_warning": false, "file": "loadgen.cc", "line_no": 1, "pid": 1, "tid": 1}}\n')
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


@pytest.mark.parametrize("text,expected", [
    ("{'rouge1': 44.4542, 'rouge2': 22.0419, 'gen_len': 29579723, 'tokens_per_sample': 301.1}\n",
     {"rouge1": 44.4542, "rouge2": 22.0419, "gen_len": 29579723.0, "tokens_per_sample": 301.1}),
    ("Accuracy Results: {'FID_SCORE': '23.691320200021494', 'CLIP_SCORE': '31.80903629362583'}\n",
     {"FID_SCORE": 23.691320200021494, "CLIP_SCORE": 31.80903629362583}),
    ("accuracy=76.064%, good=38032, total=50000\n", {"accuracy": 76.064, "good": 38032.0, "total": 50000.0}),
    ("mAP=54.234%\n", {"mAP": 54.234}),
    ("AUC=80.23785974349185\n", {"AUC": 80.23785974349185}),
    ("Accuracy: mean = 0.86114, kidney = 0.9347, tumor = 0.7876\n", {"mean": 0.86114, "kidney": 0.9347, "tumor": 0.7876}),
    ("Word Error Rate: 2.1679339912635496%, accuracy=97.83206600873645%\n",
     {"Word Error Rate": 2.1679339912635496, "accuracy": 97.83206600873645}),
    ('{"exact_match": 83.6, "f1": 90.9}\n', {"exact_match": 83.6, "f1": 90.9}),
    ("metric/lifetime_ne/rating: 0.8671\n", {"metric/lifetime_ne/rating": 0.8671}),
])
def test_accuracy_formats(text: str, expected: dict) -> None:
    report, defects = parse_accuracy(text + "hash=abc123\n")
    assert defects == [] and report.hash == "abc123"
    assert report.values == expected


def test_accuracy_without_values_is_a_defect() -> None:
    report, defects = parse_accuracy("hash=abc\n")
    assert report.values == {} and [d.code for d in defects] == ["ACC001"]


def test_conf_lines() -> None:
    values, defects = parse_conf("# comment\n*.Offline.min_duration = 1000 # trailing\nbad line\n")
    assert values == {"*.Offline.min_duration": "1000"}
    assert [(d.code, d.line) for d in defects] == [("LOG004", 3)]


def test_every_real_accuracy_file_parses(real: Path) -> None:
    files = sorted(real.glob("*/*/results/*/*/*/accuracy/accuracy.txt"))
    assert len(files) == 137
    for path in files:
        report, defects = parse_accuracy(path.read_text(errors="replace"))
        assert defects == [] and report.hash, path


def test_endpoints_percentile_keys_hold_dots() -> None:
    from checker.parsers.endpoints import parse_result_summary

    summary, defects = parse_result_summary(
        '{"ttft": {"percentiles": {"99.0": 5.0, "99.9": 7.0}, "early_stopping_percentiles": {"99.0": null}}}')
    assert defects == []
    assert summary.p99("ttft") == (5.0, "ttft.percentiles.99.0")  # no early-stopping estimate: the plain p99
    assert summary.number("ttft.percentiles.99.9") == 7.0
    assert summary.p99("tpot") == (None, "tpot.percentiles.99.0")


def test_endpoints_accuracy_reads_breakdown_and_headline() -> None:
    from checker.parsers.endpoints import parse_accuracy_results

    report, defects = parse_accuracy_results(
        '{"accuracy_scores": [{"dataset_name": "d", "dataset_type": "accuracy", "score": 0.71, "unit_samples": 10,'
        ' "breakdown": {"rouge1": 43.1}}, {"dataset_name": "p", "dataset_type": "performance", "score": 1.0}]}')
    assert defects == []
    assert report.value("rouge1") == 43.1
    assert report.headline == 0.71  # the one accuracy dataset; the performance one is not a score
    assert report.total_samples == 10


def test_whole_file_and_line_by_line_readings_agree() -> None:
    """Split in memory or read line by line with capped lengths (logs past FAST_LIMIT), the
    same reader gives the same log for every real log of the example."""
    from checker.parsers.mllog import _parse_lines, parse_mllog
    from helpers import EXAMPLE

    logs = sorted(EXAMPLE.rglob("mlperf_log_detail.txt"))
    assert len(logs) == 6
    for path in logs:
        fast, fast_defects = parse_mllog(open(path, "rb"))
        slow, slow_defects = _parse_lines(open(path, "rb"))
        assert (fast.values, fast.last, fast.lines, fast.line_count) == (slow.values, slow.last, slow.lines,
                                                                         slow.line_count)
        assert [(r.key, r.value, r.line) for r in fast.errors + fast.warnings] == \
            [(r.key, r.value, r.line) for r in slow.errors + slow.warnings]
        assert fast_defects == slow_defects
