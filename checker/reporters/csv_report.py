"""CSV output: one row per finding, with the verdict of its result. Every cell is `visible`:
one record per line, no byte a UTF-8 file cannot hold, no control character."""

from __future__ import annotations

import csv
from typing import TextIO

from ..engine import Report
from .common import visible

COLUMNS = ["location", "valid", "code", "name", "severity", "path", "pointer", "message", "observed", "expected",
           "waived"]


def write(report: Report, out: TextIO) -> None:
    verdicts = {r.location: r.valid for r in report.results}
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for finding in report.findings:
        row = finding.to_dict()
        row["valid"] = verdicts.get(finding.location, "")
        writer.writerow(["" if row.get(column) is None else _cell(row.get(column)) for column in COLUMNS])
    with_findings = {f.location for f in report.findings}
    for result in report.results:
        if result.location not in with_findings:
            writer.writerow([visible(result.location), result.valid] + [""] * (len(COLUMNS) - 2))


def _cell(value: object) -> object:
    if isinstance(value, (bool, int, float)):
        return value
    return visible(value if isinstance(value, str) else str(value))
