"""JSON output, described by schemas/findings.schema.json. Strict JSON: a non-finite number
is written as null (with a warning on stderr), text is `printable`.

`summary.findings` counts each distinct finding once however many results it affects
(Report.counts, as every format counts); `findings` lists each on each result it is on.

Each result's `caused_by` lists the positions (from 0) in `findings` of the findings that make
it invalid: the un-waived errors on the result, its system description or its submitter
folder (findings.Applying); it is empty for a valid result."""

from __future__ import annotations

from typing import Any

from .. import __version__
from ..findings import Report
from . import as_json

SCHEMA_VERSION = 1


def document(report: Report) -> dict[str, Any]:
    valid = sum(1 for r in report.results if r.valid)
    applying = report.applying()
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "mlperf-check", "version": __version__},
        "round": report.round.name,
        "summary": {
            "results": len(report.results),
            "valid": valid,
            "invalid": len(report.results) - valid,
            "findings": report.counts(),
        },
        "results": [dict(r.to_dict(), caused_by=applying.cause_positions(r)) for r in report.results],
        "findings": [f.to_dict() for f in report.findings],
    }


write = as_json(document, indent=1)  # the one JSON writer (reporters.as_json)
