"""Reporters turn a Report into words: text for people, JSON and CSV for tools."""

from __future__ import annotations

from typing import Callable, TextIO

from ..engine import Report
from . import csv_report, json_report, text_report

WRITERS: dict[str, Callable[[Report, TextIO], None]] = {
    "text": text_report.write,
    "json": json_report.write,
    "csv": csv_report.write,
}
