"""The reference reading of a loadgen detail log, for tests only: every line, one by one, in
the plainest Python. `checker.parsers.mllog.parse_mllog` must give exactly what this gives
(the LoadgenLog, the defects and their messages), on every real log and on logs corrupted
where its short cuts lie (tests/test_mllog_fast.py).

The semantics it states, line by line (CRs at a line's end are not part of it):
- a line holding a NUL is FIL004; a line longer than MAX_LINE is FIL009, skipped;
- a blank line is skipped; any other line that does not start with a record head
  (`:::MLLOG {"key": "` or `:::ENDPTS {"key": "`), or does not end with `}`, is LOG001;
- a record's key runs to the next quote; it is flagged when `"is_error": true` (else
  `"is_warning": true`) follows its last `"metadata": `;
- only a wanted or flagged record is decoded: at most MAX_RECORD bytes, valid UTF-8, its
  value JSON (json's reading) at most MAX_DEPTH deep, else LOG001; what a log keeps (first
  and last values, errors, warnings) is at most KEEP_BUDGET bytes, past that one LOG001;
- past MAX_DEFECTS defects, one more says the rest were not listed;
- a log without a record and without a defect is LOG002.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import IO, Any

from checker.parsers import MAX_DEPTH, Defect, nests_deeper
from checker.parsers.mllog import (
    ERROR_MARK,
    KEEP_BUDGET,
    KEY_HEAD,
    MAX_DEFECTS,
    MAX_LINE,
    MAX_RECORD,
    META_HEAD,
    PREFIXES,
    WARNING_MARK,
    LoadgenLog,
    Record,
    is_wanted,
    typed,
)

_HEADS = tuple(p + KEY_HEAD for p in PREFIXES)


def reference_mllog(stream: IO[bytes], wanted=is_wanted) -> tuple[LoadgenLog, list[Defect]]:
    reading = _Reading(wanted)
    for line, complete in _lines_of(stream):
        reading.number += 1
        if complete:
            reading.line(line, reading.number)
        else:
            reading.defect(
                "FIL009",
                reading.number,
                lambda: f"line {reading.number} is longer than {MAX_LINE // (1024 * 1024)} MiB and was skipped",
            )
    return typed(*reading.finish())  # the declared types, applied after any reading as the reader applies them


def _lines_of(stream: IO[bytes]) -> Iterable[tuple[bytes, bool]]:
    """(line without its newline, complete), lines capped at MAX_LINE bytes: an over-long line
    is yielded once, cut, with complete=False, and the rest of it skipped."""
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


class _Reading:
    def __init__(self, wanted) -> None:
        self.wanted = wanted
        self.log = LoadgenLog()
        self.defects: list[Defect] = []
        self.seen_records = 0
        self.number = 0
        self.kept = 0  # bytes of the records kept
        self.costs: dict[str, tuple[int, int]] = {}  # a wanted key's first and latest later record's bytes
        self.over_budget = False

    def line(self, line: bytes, number: int) -> None:
        line = line.rstrip(b"\r")
        if b"\x00" in line:
            self.defect("FIL004", number, lambda: f"line {number} holds binary data (NUL bytes)")
            return
        if not line.startswith(_HEADS):
            if line.strip():
                kind = "is a truncated or malformed record" if line.startswith(PREFIXES) else "is not a loadgen record"
                self.defect("LOG001", number, lambda: f"line {number} {kind}: {_show(line)}")
            return
        if not line.endswith(b"}"):
            self.defect("LOG001", number, lambda: f"line {number} is a truncated or malformed record: {_show(line)}")
            return
        brace = line.index(b"{")
        end = line.find(b'"', brace + len(KEY_HEAD))
        key = (line[brace + len(KEY_HEAD) : end] if end > 0 else b"").decode("utf-8", "replace")
        self.seen_records += 1
        is_wanted_key = self.wanted(key)
        meta = max(line.rfind(META_HEAD), brace)
        is_error = line.find(ERROR_MARK, meta) >= 0
        is_warning = not is_error and line.find(WARNING_MARK, meta) >= 0
        if not (is_wanted_key or is_error or is_warning):
            return
        problem, value = None, None
        if len(line) > MAX_RECORD:
            problem = f"is a {_name(key)} record of {len(line)} bytes, more than the {MAX_RECORD} a record may have"
        else:
            try:
                value = _value(line[brace:])
                if nests_deeper(value):
                    problem = f"nests its {_name(key)} value more than {MAX_DEPTH} deep"
            except RecursionError:
                problem = f"nests its {_name(key)} value more than {MAX_DEPTH} deep"
            except (ValueError, KeyError, TypeError):
                problem = f"is not valid JSON: {_show(line)}"
        if problem is not None:
            ending = "" if problem.startswith("is not valid JSON") else "; it was not read"
            self.defect("LOG001", number, lambda: f"line {number} {problem}{ending}")
            return
        # The value's column: just past the first `"value": ` after the key, in characters.
        found = line.find(b'"value": ', end) if end > 0 else -1
        column = len(line[: found + 9].decode("utf-8", "replace")) + 1 if found >= 0 else None
        self.keep(key, value, number, len(line), is_wanted_key, is_error, is_warning, column)

    def keep(self, key, value, number, cost, is_wanted_key, is_error, is_warning, column=None) -> None:
        """What a log keeps costs its records' bytes: each flagged record, and each wanted key's
        first record and its latest later one. A record that would take the total past
        KEEP_BUDGET is not kept (and said once)."""
        before = self.costs.get(key, (0, 0)) if is_wanted_key else (0, 0)
        after = ((cost, 0) if key not in self.costs else (before[0], cost)) if is_wanted_key else (0, 0)
        total = self.kept - sum(before) + sum(after) + (cost if is_error or is_warning else 0)
        if total > KEEP_BUDGET:
            said, self.over_budget = self.over_budget, True
            passed = f"line {number}: the records this log keeps pass {KEEP_BUDGET} bytes"
            if not said:
                self.defect("LOG001", number, lambda: passed + "; this one and later ones past that were not read")
            return
        self.kept = total
        if is_error:
            self.log.errors.append(Record(key, value, number, column))
        elif is_warning:
            self.log.warnings.append(Record(key, value, number, column))
        if is_wanted_key:
            self.costs[key] = after
            self.log.values.setdefault(key, value)
            self.log.lines.setdefault(key, number)
            self.log.columns.setdefault(key, column)
            self.log.last[key] = value

    def defect(self, code: str, line: int, message) -> None:
        """MAX_DEFECTS are listed, then one says the others were not."""
        listed = len(self.defects)
        if listed <= MAX_DEFECTS:
            text = message() if listed < MAX_DEFECTS else "more defects in this log were not listed"
            self.defects.append(Defect(code, text, line=line))

    def finish(self) -> tuple[LoadgenLog, list[Defect]]:
        self.log.line_count = self.number
        if self.seen_records == 0 and not self.defects:
            self.defects.append(Defect("LOG002", "holds no loadgen records", line=None))
        return self.log, self.defects


def _value(body: bytes) -> Any:
    """The value of a record: decoded from its `"value": ` when a field follows it, else the
    whole record's `value`."""
    text = body.decode("utf-8")
    at = text.find('"value": ')
    if at > 0:
        value, end = json.JSONDecoder().raw_decode(text, at + len('"value": '))
        if text.startswith(', "', end):
            return value
    return json.loads(text)["value"]


def _show(line: bytes, width: int = 80) -> str:
    text = line[: width * 4 + 4].decode("utf-8", "replace")
    return text if len(text) <= width else text[:width] + "..."


def _name(key: str, width: int = 80) -> str:
    shown = json.dumps(key if len(key) <= width else key[:width], ensure_ascii=False)[1:-1]
    return f"`{shown}`" + ("..." if len(key) > width else "")
