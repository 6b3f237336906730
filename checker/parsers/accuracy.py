"""`accuracy.txt`: whatever the reference accuracy script printed, plus `hash=...`.

The round's checker reads it line by line with one regular expression per accuracy metric
(`accuracy_patterns` in the round file), anchored at the start of the line, and keeps the
first group as the value. The scripts print in many shapes (Python dicts with `np.int64(...)`
values, `'exact_match': 83.396` after a banner, `accuracy=72.540%`, JSON), so reading each
metric with the round's own pattern is what makes a file pass here exactly when it passed
there. Every match is kept, in order: the round fails a metric when any match misses its
target, and the results table prints the last one. Every value is of its declared type
(schemas/accuracy_txt.schema.json: a decimal number, not negative); one that is not is a
FIL012 defect naming the metric and its line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from . import Defect, once
from .typed import declaration, defect

_HASH = re.compile(r"^hash=([\w\d]+)$")


@dataclass(frozen=True)
class Match:
    printed: str  # the value as the script printed it (the table shows this)
    value: float  # the number it spells
    line: int
    column: int = 1  # where the printed value starts on its line


@dataclass
class AccuracyReport:
    matches: dict[str, list[Match]] = field(default_factory=dict)
    hash: str | None = None

    def found(self, metric: str) -> list[Match]:
        return self.matches.get(metric, [])

    def last(self, metric: str) -> Match | None:
        """The last match of the metric: what `printed` and `get` read, and where."""
        found = self.found(metric)
        return found[-1] if found else None

    def printed(self, metric: str) -> str | None:
        """The last value printed for the metric, as printed."""
        last = self.last(metric)
        return last.printed if last else None

    def get(self, metric: str) -> float | None:
        """The last value printed for the metric, as a number."""
        last = self.last(metric)
        return last.value if last else None

    @property
    def empty(self) -> bool:
        return not any(self.matches.values())


def _lines(text: str) -> list[str]:
    """Lines as Python's text mode reads them (universal newlines), each with its newline,
    because the round's patterns were written against such lines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.splitlines(keepends=True) if "\n" in text else [text]


def parse_accuracy(text: str, patterns: Mapping[str, str] | None = None) -> tuple[AccuracyReport, list[Defect]]:
    """Read every line with each metric's pattern (`re.match`), and the `hash=` line.

    Without patterns only the hash is read. An invalid pattern is the round file's fault;
    it is skipped (the round schema tests compile every pattern)."""
    return _parse_accuracy(text, tuple((patterns or {}).items()))


@once
def _parse_accuracy(text: str, patterns: tuple[tuple[str, str], ...]) -> tuple[AccuracyReport, list[Defect]]:
    compiled = {}
    for metric, pattern in patterns:
        try:
            compiled[metric] = re.compile(pattern)
        except re.error:
            continue
    report = AccuracyReport()
    declared = declaration("accuracy_txt")
    defects: list[Defect] = []
    for number, line in enumerate(_lines(text), 1):
        match = _HASH.match(line)
        if match:
            report.hash = match.group(1)
        for metric, regex in compiled.items():
            found = regex.match(line)
            if found and found.groups():
                printed = found.group(1) or ""  # a group that took no part reads as no number
                value, problem = declared.read_text(metric, printed)
                column = max(found.start(1), 0) + 1  # where the value is printed
                if problem is None:
                    report.matches.setdefault(metric, []).append(Match(printed, value, number, column))
                elif len(defects) < 20:
                    defects.append(defect(problem, line=number, column=column))
    return report, defects
