"""Reporters turn a Report into words: text for people; JSON, CSV, SARIF and JUnit for tools;
annotations and a job summary for GitHub Actions."""

from __future__ import annotations

from typing import Callable, TextIO

from ..engine import Report
from . import csv_report, github_report, json_report, junit_report, sarif_report, text_report

WRITERS: dict[str, Callable[[Report, TextIO], None]] = {
    "text": text_report.write,
    "json": json_report.write,
    "csv": csv_report.write,
    "github": github_report.write,
    "sarif": sarif_report.write,
    "junit": junit_report.write,
}
