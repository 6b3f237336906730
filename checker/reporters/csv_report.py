"""CSV output: one row per finding, with the verdict of its result, and a row for each result
without a finding of its own; `line` and `column` (from 1) are where in `path` the finding
is, as JSON, SARIF and the text give them, empty when unknown. `caused_by`, on the rows of an invalid result, names what makes
it invalid (`CODE path; CODE path`), its system description's and submitter folder's errors
included. Every cell is `visible`: one record per line, no byte a UTF-8 file cannot hold, no
control character."""

from __future__ import annotations

from typing import TextIO

from ..findings import Report
from .common import csv_text

COLUMNS = [
    "location",
    "valid",
    "code",
    "name",
    "severity",
    "path",
    "pointer",
    "line",
    "column",
    "message",
    "observed",
    "expected",
    "waived",
    "caused_by",
]


def write(report: Report, out: TextIO) -> None:
    verdicts = {r.location: r.valid for r in report.results}
    caused_by = {
        r.location: "; ".join(dict.fromkeys(f"{f.code} {f.path}" for f in report.causes(r)))
        for r in report.results
        if not r.valid
    }
    rows = []
    for finding in report.findings:
        row = finding.to_dict()
        row["valid"] = verdicts.get(finding.location, "")
        row["caused_by"] = caused_by.get(finding.location) if finding.location else None
        rows.append({column: row[column] for column in COLUMNS if row.get(column) is not None})
    with_findings = {f.location for f in report.findings}
    rows += [
        {"location": r.location, "valid": r.valid, "caused_by": caused_by.get(r.location, "")}
        for r in report.results
        if r.location not in with_findings
    ]
    out.write(csv_text(rows, COLUMNS))  # every cell `visible` there, once
