"""Small text formats: `mlperf_log_summary.txt`, `verify_*.txt`, `user.conf`/`mlperf.conf`."""

from __future__ import annotations

import datetime
import functools
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from . import Defect, once
from .typed import declaration, defect

_SUMMARY_LINE = re.compile(r"^\s*([^:=]+?)\s*:\s*(.*?)\s*$")


@dataclass
class Summary:
    """`mlperf_log_summary.txt`: the `name : value` lines, keyed by the name as printed
    (`fields`, text), and the lines the declaration types (schemas/loadgen_summary.schema.json),
    keyed by the name without leading asterisks, as their declared type (`values`)."""

    fields: dict[str, str] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)

    def get(self, name: str) -> Any:
        """A declared line's typed value, or None when the summary lacks it."""
        return self.values.get(name)

    def _text(self, name: str) -> str | None:
        """A line declared as text (a name), or None when the summary lacks it."""
        value = self.get(name)
        return value if isinstance(value, str) else None

    @property
    def validity(self) -> str | None:
        return self._text("Result is")

    @property
    def scenario(self) -> str | None:
        return self._text("Scenario")

    @property
    def mode(self) -> str | None:
        return self._text("Mode")


def _summary_lines(text: str) -> Iterator[tuple[int, int, str, str]]:
    """Each `name : value` line of a summary: its number, the column of its name, the name as
    printed and the value (one reading for parse_summary and summary_places)."""
    for number, line in enumerate(text.splitlines(), 1):
        match = _SUMMARY_LINE.match(line)
        if match and not line.startswith("="):
            yield number, match.start(1) + 1, match.group(1), match.group(2)


@once
def parse_summary(text: str) -> tuple[Summary, list[Defect]]:
    summary = Summary()
    lines: dict[str, int] = {}
    for number, _, name, value in _summary_lines(text):
        if name not in summary.fields:
            summary.fields[name] = value
            lines.setdefault(name.lstrip(" *").strip(), number)
    defects = [] if summary.fields else [Defect("LOG003", "holds no `name : value` lines")]
    summary.values, found = _typed_lines(
        summary.fields, "loadgen_summary", lines, lambda name: name.lstrip(" *").strip()
    )
    return summary, defects + found


def summary_places(text: str) -> dict[str, tuple[int, int]]:
    """Where the line parse_summary read for each name is (its line, the column of its name),
    by the name as printed and without leading asterisks: the first line of a name counts."""
    places: dict[str, tuple[int, int]] = {}
    for number, column, name, _ in _summary_lines(text):
        bare = name.lstrip(" *")
        places.setdefault(name, (number, column))
        places.setdefault(bare.strip(), (number, column + len(name) - len(bare)))
    return places


def _typed_lines(
    fields: dict[str, str], kind: str, lines: dict[str, int], named: Callable[[str], str] = str
) -> tuple[dict[str, Any], list[Defect]]:
    """The declared lines of a text file (typed.KINDS `kind`) as their declared types, the
    first line of a name counting, and a FIL012 defect for each that breaks its declaration."""
    declared = declaration(kind)
    values: dict[str, Any] = {}
    defects: list[Defect] = []
    seen: set[str] = set()
    for printed, text in fields.items():
        name = named(printed)
        if name in seen or not declared.declares(name):
            continue
        seen.add(name)
        value, problem = declared.read_text(name, text)
        if problem is None:
            values[name] = value
        else:
            defects.append(defect(problem, line=lines.get(name)))
    return values, defects


@dataclass
class VerifyOutcome:
    """A compliance `verify_*.txt`: its TEST PASS/FAIL line and its `name = value` or
    `name: value` lines, keyed by the lower-cased name; the checks the declaration names
    (schemas/compliance_verify.schema.json) are of their declared type."""

    passed: bool | None
    checks: dict[str, str] = field(default_factory=dict)


_VERDICT = re.compile(r"^\s*TEST\s+(PASS|FAIL)\s*$", re.IGNORECASE)
_CHECK = re.compile(r"^\s*([A-Za-z][^:=]*?)\s*[:=]\s*(.+?)\s*$")


def _verify_lines(text: str) -> Iterator[tuple[int, bool | None, re.Match[str] | None]]:
    """Each line of a verify file: its number, its verdict (a TEST PASS/FAIL line) or its
    `name = value` match (one reading for parse_verify and verify_places)."""
    for number, line in enumerate(text.splitlines(), 1):
        verdict = _VERDICT.match(line)
        if verdict:
            yield number, verdict.group(1).upper() == "PASS", None
        else:
            yield number, None, _CHECK.match(line)


@once
def parse_verify(text: str) -> tuple[VerifyOutcome, list[Defect]]:
    passed: bool | None = None
    checks: dict[str, str] = {}
    lines: dict[str, int] = {}
    for number, this, check in _verify_lines(text):
        if this is not None:
            # Several verdict lines: any FAIL wins.
            passed = this if passed is None else (passed and this)
            continue
        if check and check.group(1).lower() not in checks:
            checks[check.group(1).lower()] = check.group(2)
            lines[check.group(1).lower()] = number
    defects = [] if passed is not None or checks else [Defect("CMP001", "holds no TEST PASS or TEST FAIL line")]
    typed, found = _typed_lines(checks, "compliance_verify", lines)
    return VerifyOutcome(passed, {**checks, **typed}), defects + found


def verify_places(text: str) -> dict[str, tuple[int, int]]:
    """Where the check parse_verify read for each name is (its line, the column of its name),
    by the name as printed and lower-cased: the first line of a name counts."""
    places: dict[str, tuple[int, int]] = {}
    for number, _, check in _verify_lines(text):
        if check:
            places.setdefault(check.group(1), (number, check.start(1) + 1))
            places.setdefault(check.group(1).lower(), (number, check.start(1) + 1))
    return places


# loadgen's words: what C++'s `>>` splits a line at (the ASCII white space of isspace).
_CONF_SPACE = re.compile(r"[ \t\v\f\r]+")
_OCTAL = re.compile(r"[+-]?0[0-7]*")
_HEX = re.compile(r"[+-]?0[xX].*")


class Conf(dict[str, str]):
    """The settings of a user.conf or mlperf.conf, `key -> value` as loadgen stores them; `refused`
    is the line where loadgen refuses the file (it then applies none of its settings), else None."""

    refused: int | None = None
    _by_setting: dict[str, list[tuple[str | None, str, str, str]]] | None = None

    def setting(self, setting: str) -> list[tuple[str | None, str, str, str]]:
        """(model, scenario, key, value) of each key that ends in `.setting`, in the file's order:
        `model.scenario.setting` (`model` may hold dots, or be empty), or `scenario.setting` with
        model None. The keys are read once a file."""
        if self._by_setting is None:
            self._by_setting = {}
            for key, value in self.items():
                head, dot, last = key.rpartition(".")
                if dot:
                    model, inner, scenario = head.rpartition(".")
                    self._by_setting.setdefault(last, []).append((model if inner else None, scenario, key, value))
        return self._by_setting.get(setting, [])


def conf_number(word: str) -> float | None:
    """The number loadgen reads from a user.conf or mlperf.conf value, None when it reads
    none: all of `word` read by strtoul (base 0: decimal, 0x hex, 0 octal) or strtod (a
    decimal or hex float, inf, nan; one too large for a double is inf, as strtod's HUGE_VAL).
    The one reading of a conf value: the parser's and PRF017's."""
    if "_" in word:  # Python's readers take digit separators; strtoul and strtod do not
        return None
    if _OCTAL.fullmatch(word):
        return float(int(word, 8))
    hexadecimal = _HEX.fullmatch(word) is not None  # strtod reads a hex float only after 0x
    readers: list[Callable[[str], float | int]] = [lambda w: int(w, 0), float]
    if hexadecimal:
        readers.append(float.fromhex)
    for read in readers:
        try:
            return float(read(word))
        except OverflowError:  # float.fromhex of a value past a double's range
            return math.copysign(math.inf, -1.0 if word.lstrip().startswith("-") else 1.0)
        except ValueError:
            continue
    return None


def _conf_number(word: str) -> bool:
    """Whether loadgen takes `word` as a value (conf_number)."""
    return conf_number(word) is not None


@dataclass(frozen=True)
class _ConfLine:
    number: int
    column: int  # of the line's first word
    key: str | None  # the setting it stores (None: none)
    value: str | None
    problem: str | None  # what loadgen makes of a line it reads no setting from, or refuses
    refuses: bool = False


def _conf_lines(text: str) -> Iterator[_ConfLine]:
    """Each line of a user.conf or mlperf.conf that holds a word, read as loadgen's
    TestSettings::FromConfig reads it (loadgen/test_settings_internal.cc): words split at white
    space; a `#` word before the value ends the line; the first word is the key, the second must
    be `=` and every word after it is a value (the last stands) that must be a number. Anything
    else makes loadgen refuse the whole file, which then sets nothing (`return -EINVAL` before
    any lookup); a key alone (`key=value`, one word) sets nothing, silently. Lines end at `\n`."""
    for number, line in enumerate(text.split("\n"), 1):
        words = [word for word in _CONF_SPACE.split(line.replace("\n", "")) if word]
        if not words:
            continue
        column = len(line) - len(line.lstrip(" \t\v\f\r")) + 1
        key, value, looking = words[0], None, 0
        problem, refuses = None, False
        for word in words:
            if word == "#" and looking != 2:
                break
            if looking == 2:
                if not _conf_number(word):
                    problem, refuses = _not_a_number(word), True
                    break
                value = word
                continue
            if looking == 1 and word != "=":
                problem, refuses = f"`{_short(word)}` follows the key where loadgen wants `=`", True
                break
            looking += 1
        if key.startswith("#") and not refuses:
            continue  # a comment, or a key no lookup names
        if looking == 1 and not refuses:
            problem = (
                f"`{_short(key)}` is one word to loadgen, which reads no setting from it: write `key = value`"
                if "=" in key
                else f"`{_short(key)}` is a key without `= value`; loadgen reads no setting from it"
            )
        yield _ConfLine(number, column, key if value is not None else None, value, problem, refuses)


def _not_a_number(word: str) -> str:
    if word.startswith("#"):
        return f"the comment `{_short(word)}` after the value, which loadgen reads as a value that is not a number"
    return f"the value `{_short(word)}` is not a number"


def _short(word: str) -> str:
    return word if len(word) <= 60 else word[:57] + "..."


@once
def parse_conf(text: str) -> tuple[Conf, list[Defect]]:
    """The settings loadgen stores from `model.scenario.key = value` lines (a key set twice has
    its last value), and a LOG004 for each line it reads no setting from; where it refuses the
    file, `refused` is set and the defect says that loadgen applies none of the file."""
    values = Conf()
    defects: list[Defect] = []
    for line in _conf_lines(text):
        if line.refuses and values.refused is None:
            values.refused = line.number
            message = (
                f"line {line.number}: {line.problem}, so loadgen refuses this file and applies none of its settings"
            )
            defects.append(Defect("LOG004", message, line=line.number, column=line.column))
        elif line.problem is not None:
            defects.append(
                Defect("LOG004", f"line {line.number}: {line.problem}", line=line.number, column=line.column)
            )
        if line.key is not None and line.value is not None:
            values[line.key] = line.value
    return values, defects


def conf_places(text: str) -> dict[str, tuple[int, int]]:
    """Where the setting parse_conf read for each key is (its line, the column of its key):
    the last line that sets it, as its value is the last."""
    return {line.key: (line.number, line.column) for line in _conf_lines(text) if line.key is not None}


def _stamp(text: str) -> float | None:
    """`MM-DD-YYYY HH:MM:SS.fff` (loadgen's power_begin and PTDaemon's spl.txt) -> seconds.

    Only differences between stamps are used, so the epoch is irrelevant; parsed by slicing,
    because spl.txt has a line per second of a run that can last hours, and the minute
    (`_minute`) read once for the sixty lines that share it."""
    base = _minute(text[:16])
    if base is None:
        return None
    try:
        second = float(text[17:])
    except ValueError:
        return None
    return base + second


@functools.lru_cache(maxsize=1024)
def _minute(text: str) -> float | None:
    """Seconds of `MM-DD-YYYY HH:MM` from a fixed origin, summed as `_stamp` sums them (so
    that adding the seconds gives the same float); None when not a date and time."""
    days = _days(text[:10])
    if days is None:
        return None
    try:
        hour, minute = int(text[11:13]), int(text[14:16])
    except ValueError:
        return None
    return days * 86400.0 + hour * 3600 + minute * 60


@functools.lru_cache(maxsize=64)
def _days(date: str) -> int | None:
    """Days of `MM-DD-YYYY` from a fixed origin (proleptic Gregorian, as date.toordinal)."""
    try:
        return datetime.date(int(date[6:10]), int(date[0:2]), int(date[3:5])).toordinal()
    except (ValueError, IndexError):
        return None


def parse_timestamp(text: object) -> float | None:
    return _stamp(text.strip()) if isinstance(text, str) else None


def timestamp_microseconds(text: object) -> int | None:
    """A `MM-DD-YYYY HH:MM:SS.ffffff` stamp as whole microseconds from `_stamp`'s origin: exact,
    where `_stamp`'s float seconds from year 1 are off by microseconds. A window's length in
    seconds is then `(end - begin) / 10**6`, what the round's checker gets from datetime
    (`(power_end - power_begin).total_seconds()`, strptime's %f)."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    days = _days(text[:10])
    whole, _, fraction = text[17:].partition(".")
    try:
        hour, minute, second = int(text[11:13]), int(text[14:16]), int(whole)
    except ValueError:
        return None
    if days is None or len(fraction) > 6 or (fraction and not fraction.isdigit()):
        return None
    return ((days * 86400 + hour * 3600 + minute * 60 + second) * 10**6) + int(fraction.ljust(6, "0"))


def parse_spl(text: str) -> tuple[list[tuple[float, float]], list[Defect]]:
    """PTDaemon `spl.txt`: `Time,<stamp>,Watts,<w>,...` lines -> [(seconds, watts)]."""
    samples: list[tuple[float, float]] = []
    read_watts = declaration("power_samples").text_reader("Watts")
    malformed: list[Defect] = []
    for number, line in enumerate(text.splitlines(), 1):
        parts = line.split(",", 4)
        if len(parts) < 4 or parts[0] != "Time" or parts[2] != "Watts":
            continue  # not a sample line
        stamp = _stamp(parts[1])
        watts, problem = read_watts(parts[3])
        if problem is not None:
            if len(malformed) < 20:  # the first few say it; one is enough to refuse the samples
                malformed.append(defect(problem, line=number))
            continue
        if stamp is not None:
            samples.append((stamp, watts))
    defects = [] if samples or malformed else [Defect("PWR002", "holds no `Time,...,Watts,...` samples")]
    return samples, defects + malformed
