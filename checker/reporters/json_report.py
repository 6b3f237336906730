"""JSON output, described by schemas/findings.schema.json. Strict JSON: a non-finite number
is written as null (with a warning on stderr), text is `printable`."""

from __future__ import annotations

from typing import Any, TextIO

from .. import __version__
from ..findings import Report
from .common import strict_json

SCHEMA_VERSION = 1


def document(report: Report) -> dict[str, Any]:
    valid = sum(1 for r in report.results if r.valid)
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
        "results": [r.to_dict() for r in report.results],
        "findings": [f.to_dict() for f in report.findings],
    }


def write(report: Report, out: TextIO) -> None:
    out.write(strict_json(document(report), indent=1, default=str) + "\n")
