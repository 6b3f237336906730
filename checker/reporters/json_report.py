"""JSON output, described by schemas/findings.schema.json."""

from __future__ import annotations

import json
import math
from typing import Any, TextIO

from .. import __version__
from ..engine import Report

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


def _finite(value: Any) -> Any:
    """Strict JSON has no NaN or Infinity: such numbers are written as strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def write(report: Report, out: TextIO) -> None:
    json.dump(_finite(document(report)), out, indent=1, default=str, allow_nan=False)
    out.write("\n")
