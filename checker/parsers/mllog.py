"""Loadgen `mlperf_log_detail.txt`: one `:::MLLOG {json}` record per line.

Logs can be hundreds of megabytes (sample-set dumps, per-query records), so the parser
streams the file, reads every line's key without decoding the JSON, and decodes only the
records whose key is wanted or which loadgen flagged as an error or a warning.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import IO, Any, Iterable

from . import Defect

PREFIXES = (b":::MLLOG ", b":::ENDPTS ")
KEY_HEAD = b'{"key": "'
ERROR_MARK = b'"is_error": true'
WARNING_MARK = b'"is_warning": true'
MAX_LINE = 16 * 1024 * 1024
MAX_DEFECTS = 20

# What the rules read. A key is wanted when it is listed or starts with a listed prefix.
WANTED_KEYS = frozenset(
    {
        "loadgen_version",
        "loadgen_git_commit_date",
        "loadgen_git_status_message",
        "loadgen_file_sha1",
        "test_datetime",
        "sut_name",
        "qsl_reported_total_count",
        "qsl_reported_performance_count",
        "power_begin",
        "power_end",
        "num_errors",
        "requested_use_token_latencies",
        "requested_server_ttft_latency",
        "requested_server_tpot_latency",
    }
)
WANTED_PREFIXES = ("effective_", "result_", "early_stopping_")


def is_wanted(key: str) -> bool:
    return key in WANTED_KEYS or key.startswith(WANTED_PREFIXES)


@dataclass
class Record:
    key: str
    value: Any
    line: int


@dataclass
class LoadgenLog:
    """The wanted keys of one detail log: first and last value of each, plus loadgen's
    own error and warning records."""

    values: dict[str, Any] = field(default_factory=dict)
    last: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    errors: list[Record] = field(default_factory=list)
    warnings: list[Record] = field(default_factory=list)
    line_count: int = 0

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    def __contains__(self, key: str) -> bool:
        return key in self.values

    @property
    def scenario(self) -> str | None:
        return self.values.get("effective_scenario")

    @property
    def test_mode(self) -> str | None:
        return self.values.get("effective_test_mode")


def _read_lines(stream: IO[bytes]) -> Iterable[tuple[int, bytes, bool]]:
    """Yield (line number, line, complete) with lines capped at MAX_LINE bytes. An
    over-long line is yielded once, truncated, with complete=False, and the rest skipped."""
    number = 0
    while True:
        line = stream.readline(MAX_LINE)
        if not line:
            return
        number += 1
        if len(line) == MAX_LINE and not line.endswith(b"\n"):
            while True:
                rest = stream.readline(MAX_LINE)
                if not rest or rest.endswith(b"\n"):
                    break
            yield number, line[:200], False
            continue
        yield number, line, True


def parse_mllog(stream: IO[bytes], wanted=is_wanted) -> tuple[LoadgenLog, list[Defect]]:
    log = LoadgenLog()
    defects: list[Defect] = []

    def defect(code: str, message: str, line: int) -> None:
        if len(defects) < MAX_DEFECTS:
            defects.append(Defect(code, message, line=line))
        elif len(defects) == MAX_DEFECTS:
            defects.append(Defect(code, "more defects in this log were not listed", line=line))

    seen_records = 0
    for number, raw, complete in _read_lines(stream):
        log.line_count = number
        line = raw.rstrip(b"\r\n")
        if not line.strip():
            continue
        if not complete:
            defect("FIL009", f"line {number} is longer than {MAX_LINE // (1024 * 1024)} MiB and was skipped", number)
            continue
        if b"\x00" in line:
            defect("FIL004", f"line {number} holds binary data (NUL bytes)", number)
            continue
        prefix = next((p for p in PREFIXES if line.startswith(p)), None)
        if prefix is None:
            defect("LOG001", f"line {number} is not a loadgen record: {_show(line)}", number)
            continue
        body = line[len(prefix):]
        if not body.startswith(KEY_HEAD) or not body.endswith(b"}"):
            defect("LOG001", f"line {number} is a truncated or malformed record: {_show(line)}", number)
            continue
        end = body.find(b'"', len(KEY_HEAD))
        key = body[len(KEY_HEAD):end].decode("utf-8", "replace") if end > 0 else ""
        is_error = ERROR_MARK in body
        is_warning = WARNING_MARK in body
        seen_records += 1
        if not (is_error or is_warning or wanted(key)):
            continue
        try:
            record = json.loads(body)
            value = record["value"]
        except (ValueError, KeyError, TypeError):
            defect("LOG001", f"line {number} is not valid JSON: {_show(line)}", number)
            continue
        if is_error:
            log.errors.append(Record(key, value, number))
        elif is_warning:
            log.warnings.append(Record(key, value, number))
        if wanted(key):
            if key not in log.values:
                log.values[key] = value
                log.lines[key] = number
            log.last[key] = value
    if seen_records == 0 and not defects:
        defects.append(Defect("LOG002", "holds no loadgen records", line=None))
    return log, defects


def _show(line: bytes, width: int = 80) -> str:
    text = line.decode("utf-8", "replace")
    return text if len(text) <= width else text[:width] + "..."
