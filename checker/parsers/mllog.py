"""Loadgen `mlperf_log_detail.txt`: one `:::MLLOG {json}` record per line.

Logs can be hundreds of megabytes (sample-set dumps, per-query records), so the parser
streams the file, reads every line's key without decoding the JSON, and decodes only the
records whose key is wanted or which loadgen flagged as an error or a warning.
"""

from __future__ import annotations

import io
import itertools
import json
import os
from dataclasses import dataclass, field
from typing import IO, Any, Iterable

from . import MAX_DEPTH, Defect, nests_deeper

PREFIXES = (b":::MLLOG ", b":::ENDPTS ")
KEY_HEAD = b'{"key": "'
ERROR_MARK = b'"is_error": true'
WARNING_MARK = b'"is_warning": true'
META_HEAD = b'"metadata": '
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

    @property
    def audit_config(self) -> Record | None:
        """loadgen's warning that it applied an audit.config: the log is a compliance run."""
        return next((r for r in self.warnings if isinstance(r.value, str) and "audit.config" in r.value), None)


def _lines_of(stream: IO[bytes]) -> Iterable[tuple[bytes, bool]]:
    """Yield (line without its newline, complete) with lines capped at MAX_LINE bytes. An
    over-long line is yielded once, truncated, with complete=False, and the rest skipped."""
    while True:
        line = stream.readline(MAX_LINE)
        if not line:
            return
        if len(line) == MAX_LINE and not line.endswith(b"\n"):
            while True:
                rest = stream.readline(MAX_LINE)
                if not rest or rest.endswith(b"\n"):
                    break
            yield line[:200], False
            continue
        yield (line[:-1] if line.endswith(b"\n") else line), True


FAST_LIMIT = 64 * 1024 * 1024
_HEADS = tuple(p + KEY_HEAD for p in PREFIXES)


def parse_mllog(stream: IO[bytes], wanted=is_wanted) -> tuple[LoadgenLog, list[Defect]]:
    """Read the wanted records of a detail log. Logs up to FAST_LIMIT are read whole and
    split in C; larger ones line by line with capped line lengths. Both feed one reader."""
    try:
        size = os.fstat(stream.fileno()).st_size
    except (AttributeError, OSError, io.UnsupportedOperation):
        size = None
    # read() with no size reads exactly the file; read(n) would allocate n bytes first.
    head = stream.read() if size is not None and size <= FAST_LIMIT else stream.read(FAST_LIMIT + 1)
    if len(head) > FAST_LIMIT:
        return _records(_lines_of(_Chain(head, stream)), wanted, check_nul=True)
    lines = head.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return _records(((line, len(line) < MAX_LINE) for line in lines), wanted, check_nul=b"\x00" in head)


def _parse_lines(stream: IO[bytes], wanted=is_wanted) -> tuple[LoadgenLog, list[Defect]]:
    """The line-by-line reading of any stream (what parse_mllog does past FAST_LIMIT)."""
    return _records(_lines_of(stream), wanted, check_nul=True)


class _Chain(io.RawIOBase):
    """The bytes already read, then the rest of the stream."""

    def __init__(self, head: bytes, stream: IO[bytes]) -> None:
        self._parts = itertools.chain([head], iter(lambda: stream.read(1 << 20), b""))
        self._buffer = b""

    def readable(self) -> bool:
        return True

    def readinto(self, target) -> int:
        while not self._buffer:
            self._buffer = next(self._parts, None)
            if self._buffer is None:
                self._buffer = b""
                return 0
        size = min(len(target), len(self._buffer))
        target[:size] = self._buffer[:size]
        self._buffer = self._buffer[size:]
        return size


def _records(lines: Iterable[tuple[bytes, bool]], wanted, check_nul: bool) -> tuple[LoadgenLog, list[Defect]]:
    """The one reading of a log's lines (without newlines; `complete` is False for a line
    cut at MAX_LINE), with the per-line work kept small: the key is read without decoding
    the record, and only wanted or flagged records are decoded, their value alone."""
    log = LoadgenLog()
    defects: list[Defect] = []
    decided: dict[bytes, tuple[str, bool]] = {}
    seen_records = 0
    number = 0
    values, last, where = log.values, log.last, log.lines
    for number, (line, complete) in enumerate(lines, 1):
        if not complete:
            _defect(defects, "FIL009", f"line {number} is longer than {MAX_LINE // (1024 * 1024)} MiB and was skipped",
                    number)
            continue
        if line.endswith(b"\r"):
            line = line.rstrip(b"\r")
        if check_nul and b"\x00" in line:
            _defect(defects, "FIL004", f"line {number} holds binary data (NUL bytes)", number)
            continue
        if not line.startswith(_HEADS):
            if line.strip():
                kind = "is a truncated or malformed record" if line.startswith(PREFIXES) else "is not a loadgen record"
                _defect(defects, "LOG001", f"line {number} {kind}: {_show(line)}", number)
            continue
        if not line.endswith(b"}"):
            _defect(defects, "LOG001", f"line {number} is a truncated or malformed record: {_show(line)}", number)
            continue
        brace = line.index(b"{")
        end = line.find(b'"', brace + len(KEY_HEAD))
        raw_key = line[brace + len(KEY_HEAD):end] if end > 0 else b""
        seen_records += 1
        known = decided.get(raw_key)
        if known is None:
            key = raw_key.decode("utf-8", "replace")
            known = decided[raw_key] = (key, wanted(key))
        key, is_wanted_key = known
        # The flags live in the metadata at the end of the record; a string value cannot
        # hold them (its quotes are escaped), so only the tail is searched.
        meta = max(line.rfind(META_HEAD), brace)
        is_error = line.find(ERROR_MARK, meta) >= 0
        is_warning = not is_error and line.find(WARNING_MARK, meta) >= 0
        if not (is_wanted_key or is_error or is_warning):
            continue
        try:
            value = _value(line[brace:])
            deep = nests_deeper(value)
        except (ValueError, KeyError, TypeError):
            _defect(defects, "LOG001", f"line {number} is not valid JSON: {_show(line)}", number)
            continue
        except RecursionError:
            deep = True
        if deep:
            _defect(defects, "LOG001",
                    f"line {number} nests its {key!r} value more than {MAX_DEPTH} deep; it was not read", number)
            continue
        if is_error:
            log.errors.append(Record(key, value, number))
        elif is_warning:
            log.warnings.append(Record(key, value, number))
        if is_wanted_key:
            if key not in values:
                values[key] = value
                where[key] = number
            last[key] = value
    log.line_count = number
    if seen_records == 0 and not defects:
        defects.append(Defect("LOG002", "holds no loadgen records", line=None))
    return log, defects


_DECODER = json.JSONDecoder()
_VALUE_HEAD = '"value": '


def _value(body: bytes) -> Any:
    """A record's value. Only the value is decoded when the record has loadgen's usual shape
    (`{"key": "...", "value": <json>, "time_ms": ...}`): the metadata after it is not needed."""
    text = body.decode("utf-8")
    at = text.find(_VALUE_HEAD)
    if at > 0:
        value, end = _DECODER.raw_decode(text, at + len(_VALUE_HEAD))
        if text.startswith(', "', end):
            return value
    return json.loads(text)["value"]


def _defect(defects: list[Defect], code: str, message: str, line: int) -> None:
    if len(defects) < MAX_DEFECTS:
        defects.append(Defect(code, message, line=line))
    elif len(defects) == MAX_DEFECTS:
        defects.append(Defect(code, "more defects in this log were not listed", line=line))


def _show(line: bytes, width: int = 80) -> str:
    text = line.decode("utf-8", "replace")
    return text if len(text) <= width else text[:width] + "..."
