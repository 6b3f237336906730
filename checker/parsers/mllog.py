"""Loadgen `mlperf_log_detail.txt`: one `:::MLLOG {json}` record per line.

A log runs to megabytes (a sample set of a megabyte on one line, records for every second of
a run), and the rules read a few dozen of its keys. So a record is decoded only when its key
is wanted or loadgen flagged it as an error or a warning, and any other line costs a few C
calls: find its newline, look its head (`:::MLLOG {"key": "<key>`) up among the heads already
judged, and look for `": true` after its key (both flags end so; in a long line, after its
last `"metadata": `). A long line no one wants costs the newline search and little more. A wanted record in loadgen's usual
shape (a scalar value, then `, "`) has its value decoded alone, by orjson. Every other line,
and the first of each key, is read whole by `_Reading._line`, which the short cuts agree
with; tests/mllog_reference.py states the same reading line by line, and
tests/test_mllog_fast.py compares the two on every real log, corrupted and not. Where the
package was built with a C compiler, the loop over the lines is `_mllog_scan.scan`'s
(`_Reading._scanned`), one call for a run of lines: it passes over the lines `_line` would
pass over, keeps the wanted records whose value is a plain scalar (one it reads exactly as
orjson reads it) as `_value_at` keeps them, and those whose value is a mapping of plain
strings as `_line` keeps them, and stops at every other line, which is read here; tests/test_mllog_scan.py compares both readings.

The file is read in blocks of BLOCK bytes (a real log fits in one), so memory is bounded
whatever its shape: a line cut by a block's end is held up to MAX_LINE bytes, past that it
is skipped; runs of blank lines are passed over in C, and once MAX_DEFECTS are listed so is
every line that is not a record; a decoded record is at most MAX_RECORD bytes, MAX_DEPTH
deep, and what a log keeps is at most KEEP_BUDGET bytes of records. Time is linear in the
file's size.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from . import MAX_DEPTH, Defect, Malformed, nests_deeper
from .typed import declaration, defect

# The compiled scanner of `_Reading._lines` (checker/parsers/_mllog_scan.c), built when the
# package is installed with a C compiler; without it, or with MLPERF_CHECK_PURE=1, the
# reading is pure Python, and the same.
_Scan = Callable[
    [
        bytes,
        int,
        int,
        dict[bytes, tuple[str, bool]],
        int,
        int,
        int,
        dict[str, Any],
        dict[str, Any],
        dict[str, int],
        dict[str, int | None],
        dict[str, int],
    ],
    tuple[int, int, int, int, str | None, int, int],
]
_scan: _Scan | None
_flat: Callable[[Any], bool] | None  # `_mllog_scan.flat`, which spares `_line` its walks of a flat value
_suspects: Callable[[dict[str, Any], dict[str, Any]], list[str]] | None  # `typed`'s first pass
if os.environ.get("MLPERF_CHECK_PURE") == "1":
    _scan = _flat = _suspects = None
else:
    try:
        from ._mllog_scan import flat as _flat
        from ._mllog_scan import scan as _scan
    except ImportError:
        _scan = _flat = None
    try:  # a build from before `suspects` still scans
        from ._mllog_scan import suspects as _suspects
    except ImportError:
        _suspects = None

PREFIXES = (b":::MLLOG ", b":::ENDPTS ")
KEY_HEAD = b'{"key": "'
ERROR_MARK = b'"is_error": true'
WARNING_MARK = b'"is_warning": true'
META_HEAD = b'"metadata": '
MAX_LINE = 16 * 1024 * 1024  # a longer line is skipped (FIL009), never held whole
MAX_DEFECTS = 20
BLOCK = 4 * 1024 * 1024  # what one read takes from the file: a whole real log (v5.1's largest has 2.6 MB)
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


def scanned() -> bool:
    """Whether logs are read with the C scanner (built, and MLPERF_CHECK_PURE not 1)."""
    return _scan is not None


def _anything(value: Any) -> bool:
    return True


def _whole_check(value: Any) -> bool:
    return False


# Each declared key's one test for its usual value (typed.Check.simple), which `typed` asks
# first: a value it accepts meets the declaration; any other is asked of the whole check.
_SIMPLE: dict[str, Callable[[Any], bool]] = {
    key: LOADGEN_LOG.checks[key].simple or _whole_check for key in LOADGEN_LOG.keys
}
# The same tests for `_mllog_scan.suspects`: each predicate's `spec` where it has one (typed._fast),
# which the C pass judges itself, else the predicate, which it calls.
_TESTS: dict[str, Any] = {key: getattr(test, "spec", test) for key, test in _SIMPLE.items()}


class Stream(Protocol):
    """What the reader reads from: a binary file, or a descriptor read with os.read."""

    def read(self, size: int, /) -> bytes: ...


class Wanted:
    """Which keys a reading decodes: those listed, and those that start with a listed prefix
    (ASCII names without quotes). Called with a key, says whether it is wanted."""

    def __init__(self, keys: Iterable[str], prefixes: Iterable[str] = ()) -> None:
        self.keys, self.prefixes = frozenset(keys), tuple(prefixes)
        for name in (*self.keys, *self.prefixes):
            if not name.isascii() or '"' in name or "\\" in name:
                raise ValueError(f"a wanted key is plain ASCII: {name!r}")

    def __call__(self, key: str) -> bool:
        return key in self.keys or key.startswith(self.prefixes)


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
    column: int | None = None  # of its value, in characters from 1 (None: no `"value": ` after its key)


@dataclass
class LoadgenLog:
    """The wanted keys of one detail log: first and last value of each, plus loadgen's
    own error and warning records. Once `typed`, a first value that breaks its declaration
    is in `malformed`, not in `values`, and reading it raises Malformed."""

    values: dict[str, Any] = field(default_factory=dict)
    last: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    columns: dict[str, int | None] = field(default_factory=dict)  # the column of each first value (Record.column)
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
        scenario: str | None = self.get("effective_scenario")  # typed by the declaration: text
        return scenario

    @property
    def test_mode(self) -> str | None:
        mode: str | None = self.get("effective_test_mode")  # typed by the declaration: text
        return mode

    @property
    def audit_config(self) -> Record | None:
        """loadgen's warning that it applied an audit.config: the log is a compliance run."""
        return next((r for r in self.warnings if isinstance(r.value, str) and "audit.config" in r.value), None)


def typed(log: LoadgenLog, defects: list[Defect]) -> tuple[LoadgenLog, list[Defect]]:
    """A decoded log with its declared types applied (schemas/loadgen_log.schema.json): each
    first value that breaks its key's declaration moves from `values` to `malformed` and is
    a FIL012 defect at its line, after the reading's own defects. Applied to what a reading
    decoded, never inside it."""
    values, found, simple = log.values, [], _SIMPLE.get
    if _suspects is not None:
        suspects = _suspects(values, _TESTS)
    else:
        suspects = [key for key, value in values.items() if not simple(key, _anything)(value)]
    for key in sorted(suspects, key=log.lines.__getitem__):  # in the log's order
        problem = LOADGEN_LOG.malformed(key, values[key])
        if problem is not None:
            log.malformed[key] = values.pop(key)
            found.append(defect(problem, line=log.lines[key], point=key))
    return log, defects + found


def parse_mllog(stream: Stream, wanted: Wanted = is_wanted, block: int = BLOCK) -> tuple[LoadgenLog, list[Defect]]:
    """The wanted and the flagged records of a detail log, read from `stream` `block` bytes at
    a time, with the defects of its lines (the module docstring says how)."""
    reading = _Reading(wanted)
    reading.feed(stream, block)
    return typed(*reading.finish())


_HEADS = tuple(p + KEY_HEAD for p in PREFIXES)
_AFTER_KEY = b'", "value": '  # what follows a key in loadgen's shape
_FLAG = b'": true'  # how both flags end
_SHORT = 512  # a line's tail past its key that is searched whole for a flag; a longer one from its metadata
_NEXT_HEAD = re.compile(b"\n(?:" + b"|".join(re.escape(h) for h in _HEADS) + b")")
_NOT_BLANK = re.compile(rb"[^ \t\n\r\x0b\x0c]")  # what bytes.strip() keeps
_BLANK = frozenset(b" \t\n\r\x0b\x0c")
_JSON_SPACE = frozenset(b" \t\n\r")
_NESTED = (list, dict)
# Line heads (`:::MLLOG {"key": "<key>`, up to the key's closing quote) already judged, per
# `wanted`: the key and whether it is wanted. The logs a process reads share them (the keys
# of a round are a few hundred); at most 16 `wanted`s and MAX_KEY_CACHE heads each.
_JUDGED: dict[Any, dict[bytes, tuple[str, bool]]] = {}


class _Reading:
    """The reading of one log: blocks in, LoadgenLog and defects out."""

    def __init__(self, wanted: Wanted) -> None:
        self.wanted = wanted
        self.log = LoadgenLog()
        self.defects: list[Defect] = []
        self.number = 0  # lines read so far
        self.blank = 0  # blank lines among them
        self.kept = 0  # bytes of the records kept
        self.last_cost: dict[str, int] = {}
        self.over_budget = False
        self.heads = _JUDGED.setdefault(wanted, {}) if wanted in _JUDGED or len(_JUDGED) < 16 else {}

    @property
    def capped(self) -> bool:
        """Whether no more defects are listed: only records matter from here on."""
        return len(self.defects) > MAX_DEFECTS

    def feed(self, stream: Stream, block: int) -> None:
        """Every line of the stream, read `block` bytes at a time. A line cut by a block's end
        is carried over, in parts, up to MAX_LINE bytes; past that it is skipped up to its
        newline without being held."""
        block = max(1, min(block, MAX_LINE))  # so a line that fits in a block is never too long
        parts: list[bytes] = []  # the start of a line that the previous blocks did not end
        held = 0  # bytes in parts
        skipping = False  # inside an over-long line, already reported
        lines = self._lines if _scan is None else self._scanned
        while chunk := stream.read(block):
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
                if held >= MAX_LINE:
                    self._too_long()
                    parts, held, skipping = [], 0, True
                continue
            if parts:  # the carried line ends in this block
                if held + newline - start >= MAX_LINE:
                    self._too_long()
                else:
                    parts.append(chunk[start:newline])
                    self._joined(b"".join(parts))
                parts, held, start = [], 0, newline + 1
            end = chunk.rfind(b"\n") + 1
            if end > start:
                lines(chunk, start, end)
            if end < len(chunk):
                parts, held = [chunk[end:]], len(chunk) - end
                if held >= MAX_LINE:
                    self._too_long()
                    parts, held, skipping = [], 0, True
        if parts:  # a last line without a newline
            self._joined(b"".join(parts))

    def _lines(self, data: bytes, at: int, end: int) -> None:
        """The complete lines of data[at:end] (end just past a newline). A record of a key
        already judged that ends with `}`, holds no NUL and has no `": true` after its key
        (after its last `"metadata": ` when it is long), so no flag, is passed over here when
        its key is not wanted, and read by `_usual` when it is; every other line goes to
        `_other`."""
        find, index, rfind, get = data.find, data.index, data.rfind, self.heads.get
        nul = find(b"\x00", at, end) % (end + 1)  # the next NUL, or `end` when there is none
        number = self.number
        while at < end:
            stop = find(b"\n", at)
            number += 1
            if stop < nul and data[stop - 1] == 125:  # "}"
                try:
                    quote = index(b'"', at + 19, stop)  # ends the key, just past either head
                except ValueError:
                    quote = at
                known = get(data[at:quote])
                if (
                    known is not None
                    and find(_FLAG, quote if stop - quote < _SHORT else max(rfind(META_HEAD, quote, stop), quote), stop)
                    < 0
                    and (not known[1] or self._usual(data, at, quote, stop, known[0], number))
                ):
                    at = stop + 1
                    continue
            self.number = number - 1
            at = self._other(data, at, stop, end)
            number = self.number
            if nul < at:
                nul = find(b"\x00", at, end) % (end + 1)
        self.number = number

    def _scanned(self, data: bytes, at: int, end: int) -> None:
        """`_lines` with its pass over the lines done in C (`_mllog_scan.scan`, which passes
        over exactly the lines `_lines` passes over, keeps the wanted records whose value is a
        plain scalar as `_value_at` keeps them, and stops at the others, telling `_usual`'s
        shape of a wanted record: its value's span); each line it stops at is read here as
        `_lines` reads it."""
        heads, number, value_at, scan = self.heads, self.number, self._value_at, _scan
        if scan is None:
            return self._lines(data, at, end)
        log, last_cost = self.log, self.last_cost
        values, last, lines, columns = log.values, log.last, log.lines, log.columns
        while at < end:
            at, number, self.kept, stop, key, start, value_end = scan(
                data, at, end, heads, number, self.kept, KEEP_BUDGET, values, last, lines, columns, last_cost
            )
            if at >= end:
                break
            number += 1
            if key is not None and start >= 0 and value_at(data, at, start, value_end, stop, key, number):
                at = stop + 1
                continue
            self.number = number - 1
            at = self._other(data, at, stop, end)
            number = self.number
        self.number = number

    def _usual(self, data: bytes, at: int, quote: int, stop: int, key: str, number: int) -> bool:
        """Keep the wanted record data[at:stop] (in loadgen's shape up to its key, not flagged)
        when its value is a scalar between `"value": ` and the next `, "` (no space around
        it) and the rest of it is ASCII, as `_line` would; else False, and `_line` reads it.
        orjson reads the value; a value it may read otherwise than json (an integer past 64
        bits, which it makes a float) is left to `_line` too."""
        start = quote + len(_AFTER_KEY)
        end = data.find(b', "', start, stop)
        if (
            end <= start
            or data[start] in _JSON_SPACE
            or data[end - 1] in _JSON_SPACE
            or not data.startswith(_AFTER_KEY, quote)
            or stop - at > MAX_RECORD
            or not data[end:stop].isascii()
        ):
            return False
        return self._value_at(data, at, start, end, stop, key, number)

    def _value_at(self, data: bytes, at: int, start: int, end: int, stop: int, key: str, number: int) -> bool:
        """`_usual` past the shape of the record: its value data[start:end], read by orjson."""
        try:
            value = _loads(data[start:end])
        except _JSONDecodeError:
            return False
        if value.__class__ in _NESTED or (value.__class__ is float and value.is_integer() and abs(value) >= 2**63):
            return False  # a list or mapping is read whole, by `_line`; an integer past 64 bits too
        last = self.last_cost.get(key)
        if last is not None and self.kept + stop - at - last <= KEEP_BUDGET:  # a later value of a kept key
            self.kept += stop - at - last
            self.last_cost[key] = stop - at
            self.log.last[key] = value
        else:
            head = data[at:start]
            column = (start - at if head.isascii() else len(head.decode("utf-8", "replace"))) + 1
            self.keep(key, value, number, stop - at, True, False, False, column)
        return True

    def _other(self, data: bytes, at: int, stop: int, end: int) -> int:
        """The line data[at:stop], which `_lines` does not pass over, read by `_line`; or, in
        C, the run of blank lines it starts, or once defects are capped, the lines up to the
        next record. `number` counts the lines before it. Returns where the next line starts."""
        if data[at] in _BLANK:
            match = _NOT_BLANK.search(data, at, end)
            found = end if match is None else data.rfind(b"\n", at, match.start()) + 1
            if found > at:
                blank = data.count(b"\n", at, found)
                self.number += blank
                self.blank += blank
                return found
        elif self.capped and not data.startswith(_HEADS, at):
            match = _NEXT_HEAD.search(data, at, end)
            found = end if match is None else match.start() + 1
            self.number += data.count(b"\n", at, found)
            return found
        self.number += 1
        self._line(data, at, stop)
        return stop + 1

    def _joined(self, line: bytes) -> None:
        """A line that blocks cut, joined."""
        self.number += 1
        self._line(line, 0, len(line))

    def _too_long(self) -> None:
        self.number += 1
        number = self.number
        self.defect(
            "FIL009", number, lambda: f"line {number} is longer than {MAX_LINE // (1024 * 1024)} MiB and was skipped"
        )

    def _line(self, data: bytes, at: int, stop: int) -> None:
        """The line data[at:stop] (without its newline), line `number`, read whole: the
        reading every other one is a short cut of (tests/mllog_reference.py states it)."""
        number = self.number
        while stop > at and data[stop - 1] == 13:  # CRs at its end are not part of it
            stop -= 1

        def show() -> str:  # only when a defect is listed
            return _show(data[at : min(stop, at + 324)])

        if data.find(b"\x00", at, stop) >= 0:
            self.defect("FIL004", number, lambda: f"line {number} holds binary data (NUL bytes)")
            return
        if not data.startswith(_HEADS, at):
            if _NOT_BLANK.search(data, at, stop) is None:
                self.blank += 1
                return
            kind = "is a truncated or malformed record" if data.startswith(PREFIXES, at) else "is not a loadgen record"
            self.defect("LOG001", number, lambda: f"line {number} {kind}: {show()}")
            return
        if data[stop - 1] != 125:  # "}"
            self.defect("LOG001", number, lambda: f"line {number} is a truncated or malformed record: {show()}")
            return
        brace = data.index(b"{", at)
        key, is_wanted_key = self._judge(data, at, brace + len(KEY_HEAD), stop)
        meta = max(data.rfind(META_HEAD, at, stop), brace)
        is_error = data.find(ERROR_MARK, meta, stop) >= 0
        is_warning = not is_error and data.find(WARNING_MARK, meta, stop) >= 0
        if not (is_wanted_key or is_error or is_warning):
            return
        if stop - at > MAX_RECORD:
            self.defect(
                "LOG001",
                number,
                lambda: (
                    f"line {number} is a {_name(key)} record of {stop - at} bytes, more "
                    f"than the {MAX_RECORD} a record may have; it was not read"
                ),
            )
            return
        try:
            value = _value(data[brace:stop])
            deep = not (_flat is not None and _flat(value)) and nests_deeper(value)
        except (ValueError, KeyError, TypeError):
            self.defect("LOG001", number, lambda: f"line {number} is not valid JSON: {show()}")
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
        self.keep(key, value, number, stop - at, is_wanted_key, is_error, is_warning, _value_column(data, at, stop))

    def _judge(self, data: bytes, at: int, key_at: int, stop: int) -> tuple[str, bool]:
        """The key of the record at `at` (up to the next quote, or empty) and whether it is
        wanted; remembered by its head when the key is a plain one (ASCII, at most 256 bytes),
        for `_lines`."""
        quote = data.find(b'"', key_at, stop)
        if quote <= key_at:  # no key, or an empty one
            return "", bool(self.wanted(""))
        head = data[at:quote]
        known = self.heads.get(head)
        if known is None:
            key = data[key_at:quote].decode("utf-8", "replace")
            known = (key, bool(self.wanted(key)))
            if quote - key_at <= 256 and head.isascii() and len(self.heads) < MAX_KEY_CACHE:
                self.heads[head] = known
        return known

    def keep(
        self,
        key: str,
        value: Any,
        number: int,
        cost: int,
        is_wanted_key: bool,
        is_error: bool,
        is_warning: bool,
        column: int | None = None,
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
            log.errors.append(Record(key, value, number, column))
        elif is_warning:
            log.warnings.append(Record(key, value, number, column))
        if is_wanted_key:
            if first:
                log.values[key] = value
                log.lines[key] = number
                log.columns[key] = column
                self.last_cost[key] = 0  # the first value is the last one too, counted once
            else:
                self.last_cost[key] = cost
            log.last[key] = value

    def defect(self, code: str, line: int, message: Callable[[], str]) -> None:
        """A defect, its message made only while defects are still listed."""
        if len(self.defects) < MAX_DEFECTS:
            self.defects.append(Defect(code, message(), line=line))
        elif len(self.defects) == MAX_DEFECTS:
            self.defects.append(Defect(code, "more defects in this log were not listed", line=line))

    def finish(self) -> tuple[LoadgenLog, list[Defect]]:
        self.log.line_count = self.number
        if self.number == self.blank and not self.defects:
            self.defects.append(Defect("LOG002", "holds no loadgen records", line=None))
        return self.log, self.defects


_VALUE = b'"value": '


def _value_column(data: bytes, at: int, stop: int) -> int | None:
    """The column (in characters, from 1) of the value of the record data[at:stop]: just
    past the first `"value": ` after its key; None when there is none."""
    head = data.find(KEY_HEAD, at, stop)
    quote = data.find(b'"', head + len(KEY_HEAD), stop) if head >= 0 else -1
    value = data.find(_VALUE, quote, stop) if quote >= 0 else -1
    if value < 0:
        return None
    before = data[at : value + len(_VALUE)]
    return (len(before) if before.isascii() else len(before.decode("utf-8", "replace"))) + 1


_UNREAD = object()
_DECODER = json.JSONDecoder()
_loads, _JSONDecodeError = orjson.loads, orjson.JSONDecodeError


def _orjson_value(data: bytes, start: int, end: int) -> Any:
    """The JSON value that is exactly data[start:end] (no space around it), read by orjson;
    _UNREAD when it is not one, or when orjson may have read it otherwise than json: a
    number past 64 bits (orjson makes an integer of them a float)."""
    if end <= start or data[start] in _JSON_SPACE or data[end - 1] in _JSON_SPACE:
        return _UNREAD
    try:
        value = _loads(data[start:end])
    except _JSONDecodeError:
        return _UNREAD
    if _flat is not None and _flat(value):  # nothing for the walk to find
        return value
    stack = [value]
    while stack:
        item = stack.pop()
        if item.__class__ is float and item.is_integer() and abs(item) >= 2**63:
            return _UNREAD
        if item.__class__ in _NESTED:
            stack.extend(item.values() if item.__class__ is dict else item)
    return value


def _value(body: bytes) -> Any:
    """A record's value, `body` being the record from its `{`: the JSON value after its first
    `"value": ` when a field follows it, else the whole record's `value`. The UTF-8 of the
    whole record is checked first; the value is read by orjson where it reads what json
    reads (`_orjson_value`), else by json."""
    text = body.decode("utf-8")
    at = body.find(b'"value": ')
    if at > 0:
        start = at + len('"value": ')
        value = _orjson_value(body, start, body.find(b', "', start))
        if value is not _UNREAD:
            return value
        at = text.find('"value": ')
        value, end = _DECODER.raw_decode(text, at + len('"value": '))
        if text.startswith(', "', end):
            return value
    return json.loads(text)["value"]


def _show(line: bytes, width: int = 80) -> str:
    text = line[: width * 4 + 4].decode("utf-8", "replace")  # enough for `width` characters, and one more
    return text if len(text) <= width else text[:width] + "..."


def _name(key: str, width: int = 80) -> str:
    """A key as a message quotes it: in backticks, escaped as JSON escapes it (a forged key can
    hold control characters), cut at `width` characters (a forged key can be long)."""
    shown = json.dumps(key if len(key) <= width else key[:width], ensure_ascii=False)[1:-1]
    return f"`{shown}`" + ("..." if len(key) > width else "")
