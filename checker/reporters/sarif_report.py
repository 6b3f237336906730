"""SARIF 2.1.0 for code scanning: the rules from the registry, one result per finding."""

from __future__ import annotations

from typing import Any, TextIO

from .. import __version__
from ..findings import Report
from ..findings import Severity
from ..registry import RULES
from .common import line_of, repository_prefix, strict_json

SCHEMA = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def _rule(code: str) -> dict[str, Any]:
    rule = RULES[code]
    sections = rule.sections
    help_text = "\n\n".join(f"{part}: {sections[part].strip()}" for part in ("Why", "Fix", "Policy", "Example")
                            if sections.get(part, "").strip())
    return {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": sections.get("Why", rule.summary).strip() or rule.summary},
        "help": {"text": help_text or rule.summary,
                 "markdown": "\n\n".join(f"**{part}:** {sections[part].strip()}" for part in ("Why", "Fix", "Policy")
                                         if sections.get(part, "").strip()) or rule.summary},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"scope": rule.scope},
    }


def document(report: Report) -> dict[str, Any]:
    prefix = repository_prefix(report.root)
    codes = sorted({f.code for f in report.findings} | set(RULES))
    index = {code: i for i, code in enumerate(codes)}
    results = []
    for finding in report.findings:
        location: dict[str, Any] = {"artifactLocation": {"uri": prefix + finding.path}}
        line = line_of(finding.pointer)
        if line is not None:
            location["region"] = {"startLine": line}
        result: dict[str, Any] = {
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": LEVELS[finding.severity],
            "message": {"text": finding.message + (f" [{finding.pointer}]" if finding.pointer and line is None else "")},
            "locations": [{"physicalLocation": location}],
            "partialFingerprints": {"mlperfCheck/v1": f"{finding.code}:{finding.path}:{finding.pointer or ''}"},
        }
        if finding.waived:
            result["suppressions"] = [{"kind": "external", "justification": finding.waived}]
        results.append(result)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "mlperf-check", "version": __version__,
                                "informationUri": "https://github.com/mlcommons/inference_policies",
                                "rules": [_rule(code) for code in codes]}},
            "results": results,
            "properties": {"round": report.round.name},
        }],
    }


def write(report: Report, out: TextIO) -> None:
    out.write(strict_json(document(report), indent=2) + "\n")
