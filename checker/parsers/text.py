"""Small text formats: `mlperf_log_summary.txt`, `verify_*.txt`, `user.conf`/`mlperf.conf`."""

from __future__ import annotations

import datetime
import functools
import re
from dataclasses import dataclass, field

from . import Defect

_SUMMARY_LINE = re.compile(r"^\s*([^:=]+?)\s*:\s*(.*?)\s*$")


@dataclass
class Summary:
    """`mlperf_log_summary.txt`: the `name : value` lines, keyed by the name as printed."""

    fields: dict[str, str] = field(default_factory=dict)

    @property
    def validity(self) -> str | None:
        return self.fields.get("Result is")

    @property
    def scenario(self) -> str | None:
        return self.fields.get("Scenario")

    @property
    def mode(self) -> str | None:
        return self.fields.get("Mode")


def parse_summary(text: str) -> tuple[Summary, list[Defect]]:
    summary = Summary()
    for line in text.splitlines():
        match = _SUMMARY_LINE.match(line)
        if match and not line.startswith("="):
            summary.fields.setdefault(match.group(1), match.group(2))
    defects = [] if summary.fields else [Defect("LOG003", "holds no `name : value` lines")]
    return summary, defects


@dataclass
class Verdict:
    """A compliance `verify_*.txt`: its TEST PASS/FAIL line and its `name = value` or
    `name: value` lines, keyed by the lower-cased name."""

    passed: bool | None
    checks: dict[str, str] = field(default_factory=dict)


_VERDICT = re.compile(r"^\s*TEST\s+(PASS|FAIL)\s*$", re.IGNORECASE)
_CHECK = re.compile(r"^\s*([A-Za-z][^:=]*?)\s*[:=]\s*(.+?)\s*$")


def parse_verify(text: str) -> tuple[Verdict, list[Defect]]:
    passed: bool | None = None
    checks: dict[str, str] = {}
    for line in text.splitlines():
        match = _VERDICT.match(line)
        if match:
            # Several verdict lines: any FAIL wins.
            this = match.group(1).upper() == "PASS"
            passed = this if passed is None else (passed and this)
            continue
        check = _CHECK.match(line)
        if check:
            checks.setdefault(check.group(1).lower(), check.group(2))
    defects = [] if passed is not None or checks else [Defect("CMP001", "holds no TEST PASS or TEST FAIL line")]
    return Verdict(passed, checks), defects


_CONF_LINE = re.compile(r"^\s*([^#=\s][^=]*?)\s*=\s*(.*?)\s*$")


def parse_conf(text: str) -> tuple[dict[str, str], list[Defect]]:
    """`model.scenario.key = value` lines; comments start with #."""
    values: dict[str, str] = {}
    defects: list[Defect] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.split("#", 1)[0].strip()
        if not stripped:
            continue
        match = _CONF_LINE.match(stripped)
        if not match:
            defects.append(Defect("LOG004", f"line {number} is not `key = value`: {stripped[:80]}", line=number))
            continue
        values[match.group(1)] = match.group(2)
    return values, defects


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
    bad = 0
    for line in text.splitlines():
        parts = line.split(",", 4)
        if len(parts) < 4 or parts[0] != "Time" or parts[2] != "Watts":
            if line.strip():
                bad += 1
            continue
        stamp = _stamp(parts[1])
        try:
            watts = float(parts[3])
        except ValueError:
            stamp = None
        if stamp is None:
            bad += 1
            continue
        samples.append((stamp, watts))
    defects = [] if samples else [Defect("PWR002", "holds no `Time,...,Watts,...` samples")]
    return samples, defects
