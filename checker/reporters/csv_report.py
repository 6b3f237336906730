"""CSV output: one row per finding, with the verdict of its result. Every cell is `visible`:
one record per line, no byte a UTF-8 file cannot hold, no control character."""

from __future__ import annotations

from typing import TextIO

from ..findings import Report
from .common import csv_text, visible

COLUMNS = ["location", "valid", "code", "name", "severity", "path", "pointer", "message", "observed", "expected",
           "waived"]


def write(report: Report, out: TextIO) -> None:
    verdicts = {r.location: r.valid for r in report.results}
    rows = []
    for finding in report.findings:
        row = finding.to_dict()
        row["valid"] = verdicts.get(finding.location, "")
        rows.append({column: _cell(row[column]) for column in COLUMNS if row.get(column) is not None})
    with_findings = {f.location for f in report.findings}
    rows += [{"location": visible(r.location), "valid": r.valid} for r in report.results if r.location not in with_findings]
    out.write(csv_text(rows, COLUMNS))


def _cell(value: object) -> object:
    if isinstance(value, (bool, int, float)):
        return value
    return visible(value if isinstance(value, str) else str(value))
