"""Loadgen `mlperf_log_detail.txt`: one `:::MLLOG {json}` record per line.

Logs can be hundreds of megabytes (sample-set dumps, per-query records), so the parser
streams the file in fixed blocks, reads every line's key without decoding the JSON, and
decodes only the records whose key is wanted or which loadgen flagged as an error or a
warning. Time is linear in the file's size and memory bounded whatever its shape: blank
lines are skipped in C, and once MAX_DEFECTS are listed so is every line that is not a
record; a line is held only up to MAX_LINE; a decoded record is at most MAX_RECORD bytes,
MAX_DEPTH deep, and what a log keeps is at most KEEP_BUDGET bytes of records.

There are two readings of one log, with one result. `parse_mllog`, the reference, visits
every line in Python. `scan_mllog`, which the checker uses, passes over in C what the
reference would ignore (runs of records in loadgen's own shape that no one wants, blank
lines, junk once defects are capped) and reads a wanted record of that shape in one match;
every other line goes through the reference's own per-line reader. Loadgen writes versions
and settings at the head, results at the tail and sample sets in the middle, but neither
reading relies on that: a wanted key or a flag anywhere is read. tests/test_mllog_fast.py
compares the two on every real log, corrupted and not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from . import MAX_DEPTH, Defect, Malformed, nests_deeper
from .typed import declaration, defect

PREFIXES = (b":::MLLOG ", b":::ENDPTS ")
KEY_HEAD = b'{"key": "'
ERROR_MARK = b'"is_error": true'
WARNING_MARK = b'"is_warning": true'
META_HEAD = b'"metadata": '
MAX_LINE = 16 * 1024 * 1024  # a longer line is skipped (FIL009), never held whole
MAX_DEFECTS = 20
BLOCK = 1024 * 1024  # what one read takes from the file
# Caps on what is decoded and kept, far above any real log's (v5.1 and v6.0: the longest
# wanted or flagged record has 9.4 KB, a log keeps at most 265 KB of them, nesting 2 deep).
MAX_RECORD = 1024 * 1024  # a wanted or flagged record longer than this is not decoded
KEEP_BUDGET = 4 * 1024 * 1024  # the bytes of records one log may keep (values, last, errors, warnings)
MAX_KEY_CACHE = 4096  # distinct keys whose verdict is remembered

# What the reader decodes: every key the declaration of a detail log types one by one
# (schemas/loadgen_log.schema.json `properties`, what the rules, the commands and the round
# files read), and every key of a declared family (`patternProperties`: a prefix). The
# families' keys are read by no one; listed keys under a family's prefix are wanted by it.
# tests/test_typed.py checks that each key read is declared.
LOADGEN_LOG = declaration("loadgen_log")
WANTED_PREFIXES = LOADGEN_LOG.prefixes
WANTED_KEYS = frozenset(key for key in LOADGEN_LOG.keys if not key.startswith(WANTED_PREFIXES))
_DECLARED = LOADGEN_LOG.keys  # the keys typed; a family's other keys are decoded, read by no one


class Wanted:
    """Which keys a reading decodes: those listed, and those that start with a listed prefix
    (ASCII names without quotes). Called with a key, says whether it is wanted; `scan_mllog`
    also matches it on raw bytes, to pass over runs of records no one wants in one match."""

    def __init__(self, keys, prefixes=()) -> None:
        self.keys, self.prefixes = frozenset(keys), tuple(prefixes)
        for name in (*self.keys, *self.prefixes):
            if not name.isascii() or '"' in name or "\\" in name:
                raise ValueError(f"a wanted key is plain ASCII: {name!r}")
        self._runs: re.Pattern[bytes] | None = None

    def __call__(self, key: str) -> bool:
        return key in self.keys or key.startswith(self.prefixes)

    @property
    def runs(self) -> re.Pattern[bytes]:
        """A run of lines in loadgen's own shape (`_CANON`) whose key is not wanted and whose
        flags are both false: lines `_Reading.line` ignores."""
        if self._runs is None:
            names = [re.escape(p.encode()) for p in self.prefixes] + [
                re.escape(k.encode()) + b'"' for k in sorted(self.keys)
            ]
            unwanted = b"(?!" + b"|".join(names) + b")" if names else b""
            self._runs = re.compile(b"(?:" + _canon(unwanted, b"false", b"false") + b")*+")
        return self._runs


is_wanted = Wanted(WANTED_KEYS, WANTED_PREFIXES)


def reads(*keys: str) -> frozenset[str]:
    """The loadgen keys a rule family reads, as it declares them (`LOADGEN_KEYS = reads(...)`);
    `prefix*` stands for keys made from a prefix (`effective_*`: the seeds' keys, which the
    round files name). A key read but not declared would be read untyped, or not decoded at
    all, so each must be declared one by one in schemas/loadgen_log.schema.json (a `prefix*`
    by a declared family): one that is not fails the import of the module that declares it.
    tests/test_mllog_fast.py checks that each declaration is what its module reads."""
    missing = [
        key
        for key in keys
        if not (key[:-1] in LOADGEN_LOG.prefixes if key.endswith("*") else LOADGEN_LOG.declares(key))
    ]
    if missing:
        raise ValueError(
            f"loadgen keys read but not declared (add them to schemas/{LOADGEN_LOG.name}): {', '.join(missing)}"
        )
    return frozenset(keys)


@dataclass
class Record:
    key: str
    value: Any
    line: int


@dataclass
class LoadgenLog:
    """The wanted keys of one detail log: first and last value of each, plus loadgen's
    own error and warning records. Once `typed`, a first value that breaks its declaration
    is in `malformed`, not in `values`, and reading it raises Malformed."""

    values: dict[str, Any] = field(default_factory=dict)
    last: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    errors: list[Record] = field(default_factory=list)
    warnings: list[Record] = field(default_factory=list)
    line_count: int = 0
    malformed: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        """The key's typed first value, `default` when the log lacks it; Malformed when its
        value broke its declaration (a FIL012 finding already)."""
        if key in self.malformed:
            raise Malformed(key)
        return self.values.get(key, default)

    def __contains__(self, key: str) -> bool:
        return key in self.values or key in self.malformed

    @property
    def scenario(self) -> str | None:
        return self.get("effective_scenario")

    @property
    def test_mode(self) -> str | None:
        return self.get("effective_test_mode")

    @property
    def audit_config(self) -> Record | None:
        """loadgen's warning that it applied an audit.config: the log is a compliance run."""
        return next((r for r in self.warnings if isinstance(r.value, str) and "audit.config" in r.value), None)


def typed(log: LoadgenLog, defects: list[Defect]) -> tuple[LoadgenLog, list[Defect]]:
    """A decoded log with its declared types applied (schemas/loadgen_log.schema.json): each
    first value that breaks its key's declaration moves from `values` to `malformed` and is
    a FIL012 defect at its line, after the reading's own defects. Applied to what a reading
    decoded, never inside it."""
    values, found = log.values, []
    for key in sorted(_DECLARED.intersection(values), key=log.lines.__getitem__):  # in the log's order
        problem = LOADGEN_LOG.malformed(key, values[key])
        if problem is not None:
            log.malformed[key] = values.pop(key)
            found.append(defect(problem, line=log.lines[key], point=key))
    return log, defects + found


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


_HEADS = tuple(p + KEY_HEAD for p in PREFIXES)
_NEXT_HEAD = re.compile(b"\n(?:" + b"|".join(re.escape(h) for h in _HEADS) + b")")
_NOT_BLANK = re.compile(rb"[^ \t\n\r\x0b\x0c]")  # what bytes.strip() keeps


def parse_mllog(stream: IO[bytes], wanted=is_wanted, block: int = BLOCK) -> tuple[LoadgenLog, list[Defect]]:
    """Read the wanted records of a detail log from `stream`, `block` bytes at a time: every
    line through the one per-line reader. This is the reference reading; `scan_mllog` must
    give exactly what it gives (tests/test_mllog_fast.py)."""
    reading = _Reading(wanted)
    reading.feed(stream, block)
    return typed(*reading.finish())


def scan_mllog(stream: IO[bytes], wanted=is_wanted, block: int = BLOCK) -> tuple[LoadgenLog, list[Defect]]:
    """What `parse_mllog` reads, with fewer lines visited in Python: a record in loadgen's
    own shape is read by one regular expression, and a record no one wants is passed over
    without being decoded (the `_Scan` docstring says when a line may be passed over)."""
    reading = _Scan(wanted)
    reading.feed(stream, block)
    return typed(*reading.finish())


def _parse_lines(stream: IO[bytes], wanted=is_wanted) -> tuple[LoadgenLog, list[Defect]]:
    """The plain reading: every line, one by one, through the same per-line reader. The
    streamed reading must give exactly what this gives (tests/test_parsers.py)."""
    reading = _Reading(wanted)
    for line, complete in _lines_of(stream):
        reading.number += 1
        if complete:
            reading.line(line, reading.number, True)
        else:
            reading.too_long(reading.number)
    return typed(*reading.finish())


class _Reading:
    """The reading of one log: lines in, LoadgenLog and defects out. The per-line work is
    kept small: the key is read without decoding the record, and only wanted or flagged
    records are decoded, their value alone."""

    def __init__(self, wanted) -> None:
        self.wanted = wanted
        self.log = LoadgenLog()
        self.defects: list[Defect] = []
        self.decided: dict[bytes, tuple[str, bool]] = {}
        self.seen_records = 0
        self.number = 0  # lines read so far
        self.kept = 0  # bytes of the records kept
        self.last_cost: dict[str, int] = {}
        self.over_budget = False
        self.max_line = MAX_LINE

    @property
    def capped(self) -> bool:
        """Whether no more defects are listed: only records matter from here on."""
        return len(self.defects) > MAX_DEFECTS

    # --- the stream ------------------------------------------------------------------
    def feed(self, stream: IO[bytes], block: int) -> None:
        """Every line of the stream, read `block` bytes at a time. A line cut by a block's
        end is carried over, in parts, up to max_line bytes; past that it is skipped up to
        its newline without being held."""
        block = max(1, min(block, self.max_line))  # so a line that fits in a block is never too long
        parts: list[bytes] = []  # the start of a line that the previous blocks did not end
        held = 0  # bytes in parts
        skipping = False  # inside an over-long line, already reported
        while True:
            chunk = stream.read(block)
            if not chunk:
                break
            start = 0
            if skipping:
                newline = chunk.find(b"\n")
                if newline < 0:
                    continue
                skipping, start = False, newline + 1
            newline = chunk.find(b"\n", start)
            if newline < 0:  # the line goes on past this block
                parts.append(chunk[start:] if start else chunk)
                held += len(chunk) - start
                if held >= self.max_line:
                    self.number += 1
                    self.too_long(self.number)
                    parts, held, skipping = [], 0, True
                continue
            if parts:  # the carried line ends in this block
                self.number += 1
                if held + newline - start >= self.max_line:
                    self.too_long(self.number)
                else:
                    parts.append(chunk[start:newline])
                    line = b"".join(parts)
                    self.line(line, self.number, b"\x00" in line)
                parts, held, start = [], 0, newline + 1
            end = chunk.rfind(b"\n") + 1
            if end > start:
                self.lines(chunk, start, end)
            if end < len(chunk):
                parts, held = [chunk[end:]], len(chunk) - end
                if held >= self.max_line:
                    self.number += 1
                    self.too_long(self.number)
                    parts, held, skipping = [], 0, True
        if parts:  # a last line without a newline
            self.number += 1
            line = b"".join(parts)
            self.line(line, self.number, b"\x00" in line)

    def lines(self, data: bytes, start: int, end: int) -> None:
        """The complete lines of data[start:end] (end just past a newline). Blank lines are
        counted in C and never visited; once defects are capped, neither is any line that is
        not a record."""
        nul = data.find(b"\x00", start, end) >= 0
        at = start
        while at < end:
            if data.startswith(_HEADS, at):  # a record: most lines of a real log
                found = at
                self.number += 1
            else:
                if self.capped:  # the next record; the line at `at` is not one
                    match = _NEXT_HEAD.search(data, at, end)
                    found = -1 if match is None else match.start() + 1
                else:  # the start of the next line that is not blank
                    match = _NOT_BLANK.search(data, at, end)
                    found = -1 if match is None else (data.rfind(b"\n", at, match.start()) + 1 or at)
                if found < 0:
                    self.number += data.count(b"\n", at, end)
                    return
                self.number += data.count(b"\n", at, found) + 1
            stop = data.find(b"\n", found, end)
            self.line(data[found:stop], self.number, nul)
            at = stop + 1

    # --- one line --------------------------------------------------------------------
    def too_long(self, number: int) -> None:
        self.defect(
            "FIL009",
            number,
            lambda: f"line {number} is longer than {self.max_line // (1024 * 1024)} MiB and was skipped",
        )

    def line(self, line: bytes, number: int, nul: bool) -> None:
        """One complete line, without its newline."""
        if line.endswith(b"\r"):
            line = line.rstrip(b"\r")
        if nul and b"\x00" in line:
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
        raw_key = line[brace + len(KEY_HEAD) : end] if end > 0 else b""
        self.seen_records += 1
        known = self.decided.get(raw_key)
        if known is None:
            key = raw_key.decode("utf-8", "replace")
            known = (key, self.wanted(key))
            if len(self.decided) < MAX_KEY_CACHE and len(raw_key) <= 256:
                self.decided[raw_key] = known
        key, is_wanted_key = known
        # The flags live in the metadata at the end of the record; a string value cannot
        # hold them (its quotes are escaped), so only the tail is searched.
        meta = max(line.rfind(META_HEAD), brace)
        is_error = line.find(ERROR_MARK, meta) >= 0
        is_warning = not is_error and line.find(WARNING_MARK, meta) >= 0
        if not (is_wanted_key or is_error or is_warning):
            return
        if len(line) > MAX_RECORD:
            self.defect(
                "LOG001",
                number,
                lambda: (
                    f"line {number} is a {_name(key)} record of {len(line)} bytes, more "
                    f"than the {MAX_RECORD} a record may have; it was not read"
                ),
            )
            return
        try:
            value = _value(line[brace:])
            deep = nests_deeper(value)
        except (ValueError, KeyError, TypeError):
            self.defect("LOG001", number, lambda: f"line {number} is not valid JSON: {_show(line)}")
            return
        except RecursionError:
            deep = True
        if deep:
            self.defect(
                "LOG001",
                number,
                lambda: f"line {number} nests its {_name(key)} value more than {MAX_DEPTH} deep; it was not read",
            )
            return
        self.keep(key, value, number, len(line), is_wanted_key, is_error, is_warning)

    def keep(
        self, key: str, value: Any, number: int, cost: int, is_wanted_key: bool, is_error: bool, is_warning: bool
    ) -> None:
        log = self.log
        first = is_wanted_key and key not in log.values
        added = cost if is_error or is_warning else 0
        if is_wanted_key:  # a first value is kept for good; a later one replaces the last value
            added += cost if first else cost - self.last_cost[key]
        if self.kept + added > KEEP_BUDGET:
            if not self.over_budget:
                self.over_budget = True
                self.defect(
                    "LOG001",
                    number,
                    lambda: (
                        f"line {number}: the records this log keeps pass {KEEP_BUDGET} "
                        "bytes; this one and later ones past that were not read"
                    ),
                )
            return
        self.kept += added
        if is_error:
            log.errors.append(Record(key, value, number))
        elif is_warning:
            log.warnings.append(Record(key, value, number))
        if is_wanted_key:
            if first:
                log.values[key] = value
                log.lines[key] = number
                self.last_cost[key] = 0  # the first value is the last one too, counted once
            else:
                self.last_cost[key] = cost
            log.last[key] = value

    def defect(self, code: str, line: int, message) -> None:
        """A defect, its message made only while defects are still listed."""
        if len(self.defects) < MAX_DEFECTS:
            self.defects.append(Defect(code, message(), line=line))
        elif len(self.defects) == MAX_DEFECTS:
            self.defects.append(Defect(code, "more defects in this log were not listed", line=line))

    def finish(self) -> tuple[LoadgenLog, list[Defect]]:
        self.log.line_count = self.number
        if self.seen_records == 0 and not self.defects:
            self.defects.append(Defect("LOG002", "holds no loadgen records", line=None))
        return self.log, self.defects


class _Scan(_Reading):
    """The reading `scan_mllog` does: what `_Reading` reads, visiting fewer lines.

    `_Reading.line` ignores a line, keeping nothing and reporting nothing, when it is blank;
    or when it is a record (it starts with a record head, ends with `}` and holds no NUL) whose
    key is not wanted and whose metadata (from its last `"metadata": `) carries neither
    `"is_error": true` nor `"is_warning": true`; and, once defects are capped, when it is not
    a record. Here such lines are passed over without being decoded: in C where they come in
    runs (records in loadgen's own shape, blank lines, and lines that are not records once
    defects are capped), else with a few byte searches (`_unwanted_record`). A wanted or
    flagged record in loadgen's own shape (`_CANON`: a scalar value, the usual metadata) is
    read by one match, its value converted as the JSON decoder converts it. Every other line
    goes through `_Reading.line` itself. Loadgen writes the wanted keys at the head (versions,
    settings) and the tail (results), and the bulk (sample sets) in the middle, but nothing
    here relies on that: a wanted key, a flag or a malformed line anywhere is read as
    `_Reading` reads it."""

    def __init__(self, wanted) -> None:
        super().__init__(wanted)
        self.runs = wanted.runs.match if isinstance(wanted, Wanted) else None
        # Verdicts depend on the key and `wanted` only, so logs read with the same `wanted`
        # share them (as many as MAX_KEY_CACHE; a forged log cannot grow them further).
        if len(_VERDICTS) < 16 or wanted in _VERDICTS:
            self.decided = _VERDICTS.setdefault(wanted, {})

    def lines(self, data: bytes, start: int, end: int) -> None:
        find, canon, runs, decided = data.find, _CANON.match, self.runs, self.decided
        nul = find(b"\x00", start, end)  # the first NUL at or after `at`, or -1
        has_nul = nul >= 0
        number = self.number  # lines read so far; self.number again on the way out
        passed = False  # whether a record was passed over (counted in seen_records once)
        at = start
        while at < end:
            if data[at] == 58:  # ":": a record, most lines of a real log
                match = canon(data, at, end)  # in loadgen's shape; never holds a NUL
                if match is not None:
                    number += 1
                    raw, value, error, warning = match.groups()
                    known = decided.get(raw) or self._decide(raw)
                    at = match.end()
                    if known[1] or error == b"true" or warning == b"true":
                        is_error = error == b"true"
                        stop = at - 1  # the newline
                        while data[stop - 1] == 13:  # the line as _Reading.line measures it: no CRs at its end
                            stop -= 1
                        if stop - match.start() > MAX_RECORD:  # its defect is _Reading.line's to report
                            self.line(data[match.start() : stop], number, False)
                        else:
                            self.seen_records += 1
                            self.keep(
                                known[0],
                                _scalar(value),
                                number,
                                stop - match.start(),
                                known[1],
                                is_error,
                                not is_error and warning == b"true",
                            )
                        continue
                    passed = True
                    if runs is not None:  # the records no one wants that follow, in one match
                        stop = runs(data, at, end).end()
                        if stop > at:
                            number += data.count(b"\n", at, stop)
                            at = stop
                    continue
            if 0 <= nul < at:
                nul = find(b"\x00", at, end)
            first = data[at]
            if first != 58 or not data.startswith(_HEADS, at):
                if self.capped:  # the next record; the lines before it are not records
                    match = _NEXT_HEAD.search(data, at, end)
                    found = end if match is None else match.start() + 1
                    number += data.count(b"\n", at, found)
                    at = found
                    continue
                if first in _BLANK_BYTES:  # blank lines, up to the next line that is not blank
                    match = _NOT_BLANK.search(data, at, end)
                    found = end if match is None else data.rfind(b"\n", at, match.start()) + 1
                    if found > at:
                        number += data.count(b"\n", at, found)
                        at = found
                        continue
            stop = find(b"\n", at, end)
            number += 1
            if self._unwanted_record(data, at, stop, nul):
                passed = True
            else:
                self.line(data[at:stop], number, has_nul)
            at = stop + 1
        self.number = number
        if passed:
            self.seen_records += 1

    def _decide(self, raw: bytes) -> tuple[str, bool]:
        """A key's verdict, remembered as `_Reading.line` remembers it."""
        key = raw.decode("utf-8", "replace")
        known = (key, self.wanted(key))
        if len(self.decided) < MAX_KEY_CACHE and len(raw) <= 256:
            self.decided[raw] = known
        return known

    def _unwanted_record(self, data: bytes, at: int, stop: int, nul: int) -> bool:
        """Whether data[at:stop] is a record `_Reading.line` would ignore: no NUL, a record
        head, `}` at its end (before any CRs), a key not wanted, and no flag in its metadata.
        The same tests on the same bytes, without copying the line."""
        if at <= nul < stop:
            return False
        end = stop
        while end > at and data[end - 1] == 13:
            end -= 1
        if end == at or data[end - 1] != 125:  # "}"
            return False
        if data.startswith(_HEADS[0], at):
            brace = at + len(PREFIXES[0])
        elif data.startswith(_HEADS[1], at):
            brace = at + len(PREFIXES[1])
        else:
            return False
        quote = data.find(b'"', brace + len(KEY_HEAD), end)
        raw = data[brace + len(KEY_HEAD) : quote] if quote >= 0 else b""
        known = self.decided.get(raw) or self._decide(raw)
        if known[1]:
            return False
        meta = max(data.rfind(META_HEAD, at, end), brace)
        return data.find(ERROR_MARK, meta, end) < 0 and data.find(WARNING_MARK, meta, end) < 0


_VERDICTS: dict[Any, dict[bytes, tuple[str, bool]]] = {}  # wanted -> raw key -> (key, wanted)
_BLANK_BYTES = frozenset(b" \t\n\r\x0b\x0c")
# A record in loadgen's own shape, on one line: a plain key, a scalar value (a JSON number, a
# string of printable ASCII without escapes, true, false or null), and the usual metadata.
# Every part is printable ASCII without a NUL or a backslash, and no string holds a quote, so
# the line is valid UTF-8, its only `"metadata": ` is the last one, its only `"value": ` the
# first, and its flags are the two written here.
_STRING = rb'"[ !#-\[\]-~]*"'
_NUMBER = rb"-?(?:0|[1-9][0-9]{0,300})(?:\.[0-9]{1,300})?(?:[eE][-+]?[0-9]{1,300})?"


def _canon(key_check: bytes, error: bytes, warning: bytes) -> bytes:
    return (
        rb':::(?:MLLOG|ENDPTS) \{"key": "'
        + key_check
        + rb'([A-Za-z0-9_.]{1,256})", "value": ('
        + _NUMBER
        + rb"|"
        + _STRING
        + rb'|true|false|null), "time_ms": '
        + _NUMBER
        + rb', "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": \{"is_error": ('
        + error
        + rb'), "is_warning": ('
        + warning
        + rb'), "file": '
        + _STRING
        + rb', "line_no": [0-9]{1,20}, "pid": [0-9]{1,20}, "tid": [0-9]{1,20}\}\}\r*\n'
    )


_CANON = re.compile(_canon(b"", b"true|false", b"true|false"))
_SCALARS = {b"true": True, b"false": False, b"null": None}


def _scalar(text: bytes) -> Any:
    """A value `_CANON` matched, as json decodes it: a number with a fraction or an exponent
    is a float, else an int; a string (printable ASCII, no escapes) is its text."""
    first = text[0]
    if first == 34:  # '"'
        return text[1:-1].decode("ascii")
    if first >= 102:  # "f", "n", "t": a word `_CANON` matched whole
        return _SCALARS[text]
    if text.isdigit() or (first == 45 and text[1:].isdigit()):  # "-": no fraction, no exponent
        return int(text)
    return float(text)


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


def _show(line: bytes, width: int = 80) -> str:
    text = line[: width * 4 + 4].decode("utf-8", "replace")  # enough for `width` characters, and one more
    return text if len(text) <= width else text[:width] + "..."


def _name(key: str, width: int = 80) -> str:
    """A key as a message quotes it: repr, cut at `width` characters (a forged key can be long)."""
    return repr(key) if len(key) <= width else repr(key[:width]) + "..."
