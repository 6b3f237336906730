"""`accuracy.txt`: whatever the reference accuracy script printed, plus `hash=...`.

The scripts print in several shapes: Python or JSON dict lines (`{'rouge1': 44.45, ...}`,
`Accuracy Results: {'FID_SCORE': '23.69'}`), `name=value%` pairs (`accuracy=76.064%,
good=38032`, `mAP=54.234%`, `AUC=80.23`), and `name = value` or `name: value` phrases
(`Accuracy: mean = 0.86114`, `Word Error Rate: 2.17%, accuracy=97.83%`). The parser collects
every numeric value under the name it was printed with; the round file says which name each
accuracy metric is read from.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

from . import Defect

_HASH = re.compile(r"^\s*hash\s*=\s*([0-9A-Za-z]+)\s*$")
_PAIR = re.compile(
    r"(?P<key>[A-Za-z_][\w./\-]*(?: [A-Za-z_][\w./\-]*)*)\s*[=:]\s*'?(?P<value>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)'?"
)
_MAX_DICT_CHARS = 1_000_000


@dataclass
class AccuracyReport:
    values: dict[str, float] = field(default_factory=dict)
    hash: str | None = None
    printed: dict[str, str] = field(default_factory=dict)  # each value as the script printed it

    def get(self, key: str) -> float | None:
        return self.values.get(key)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().rstrip("%"))
        except ValueError:
            return None
    return None


def _dict_values(text: str) -> dict[str, Any] | None:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start or end - start > _MAX_DICT_CHARS:
        return None
    body = text[start : end + 1]
    for load in (json.loads, ast.literal_eval):
        try:
            value = load(body)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, tuple[float, str]]:
    flat: dict[str, tuple[float, str]] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, name + "/"))
            continue
        number = _number(value)
        if number is not None:
            flat[name] = (number, str(value).strip().rstrip("%"))
    return flat


def parse_accuracy(text: str) -> tuple[AccuracyReport, list[Defect]]:
    report = AccuracyReport()
    for line in text.splitlines():
        match = _HASH.match(line)
        if match:
            report.hash = match.group(1)
            continue
        found: dict[str, tuple[float, str]] = {}
        if "{" in line:
            data = _dict_values(line)
            if data is not None:
                found = _flatten(data)
        if not found:
            for pair in _PAIR.finditer(line):
                number = _number(pair.group("value"))
                if number is not None:
                    found.setdefault(pair.group("key").strip(), (number, pair.group("value")))
        for key, (number, printed) in found.items():
            if key not in report.values:
                report.values[key] = number
                report.printed[key] = printed
    defects = [] if report.values else [Defect("ACC001", "holds no accuracy values")]
    return report, defects
