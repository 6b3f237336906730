"""SARIF 2.1.0 for code scanning: the rules from the registry, one result per finding.

Each artifact location is a path relative to `SRCROOT` (`uriBaseId`), the repository root
(GITHUB_WORKSPACE, else the current folder; the checked root when it is not inside it), whose
file URI `originalUriBaseIds` gives. The one invocation says whether the check ran without an
internal error (`executionSuccessful`), when it started and ended (Report.checked_at and
elapsed), and lists each internal error (INT001) again as a tool execution notification that
names the rule that failed. Each distinct finding is one SARIF result however many results
of the submission it affects (`common.Distinct`, as every format counts them), with
`properties.affects` and the text's " (affects N results)"."""

from __future__ import annotations

import dataclasses
import datetime
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..findings import Distinct, Finding, Report, Severity
from ..registry import RULES
from . import as_json
from .common import follows, help_page, help_uri, in_workspace, pointer_shown, repository_base

SCHEMA = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}
BASE = "SRCROOT"
INTERNAL = "INT001"


def _rule(code: str) -> dict[str, Any]:
    rule = RULES[code]
    sections = rule.sections
    help_text = "\n\n".join(
        f"{part}: {sections[part].strip()}"
        for part in ("Why", "Fix", "Policy", "Example")
        if sections.get(part, "").strip()
    )
    uri = help_uri(code)
    if uri is None:  # no absolute URL of the page: its path in a checkout, said in the help
        help_text = (help_text or rule.summary) + f"\n\nDocumentation: {help_page(code)}"
    described: dict[str, Any] = {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": sections.get("Why", rule.summary).strip() or rule.summary},
        "help": {
            "text": help_text or rule.summary,
            "markdown": "\n\n".join(
                f"**{part}:** {sections[part].strip()}"
                for part in ("Why", "Fix", "Policy")
                if sections.get(part, "").strip()
            )
            or rule.summary,
        },
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"scope": rule.scope},
    }
    if uri is not None:
        described["helpUri"] = uri
    return described


def _utc(moment: datetime.datetime) -> str:
    """A SARIF date-time: UTC, milliseconds, "Z"."""
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _folder_uri(folder: str) -> str:
    """The file URI of a folder, ending in "/" as SARIF asks of a base (bytes that are not
    UTF-8 percent-encoded)."""
    uri = Path(folder).as_uri()
    return uri if uri.endswith("/") else uri + "/"


def uri_of(path: str) -> str:
    """A POSIX path relative to SRCROOT as a relative URI reference (SARIF 2.1.0 §3.10,
    RFC 3986): each segment's UTF-8 bytes percent-encoded but for the unreserved characters,
    so `%`, `#`, `?`, a space, or a `:` (which would make the first segment a scheme) stay
    part of the name; a byte that was not UTF-8 (os.fsdecode's surrogate) is that byte."""

    def encoded(segment: str) -> bytes:
        try:
            return segment.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate no file name decodes to
            return segment.encode("utf-8", "surrogatepass")

    return "/".join(quote(encoded(segment), safe="") for segment in path.split("/"))


def _location(finding: Finding, prefix: str, base: str | None = None) -> dict[str, Any]:
    """The finding's place: a URI relative to SRCROOT; an absolute file URI for a file outside
    the repository (a waivers file elsewhere)."""
    path = in_workspace(finding.path, prefix, base)
    artifact = {"uri": Path(path).as_uri()} if os.path.isabs(path) else {"uri": uri_of(path), "uriBaseId": BASE}
    location: dict[str, Any] = {"artifactLocation": artifact}
    if finding.line is not None:
        location["region"] = {"startLine": finding.line}
        if finding.column is not None:
            location["region"]["startColumn"] = finding.column
    return {"physicalLocation": location}


def _message(finding: Finding, suffix: str = "") -> dict[str, str]:
    """The finding's message (`suffix`: " (affects 3 results)"), and its own fix when it has
    one (the rule's is the rule's `help`)."""
    pointer = pointer_shown(finding)
    own = f"\nhelp: {finding.hint}" if finding.hint else ""
    return {"text": finding.message + follows(finding) + (f" [{pointer}]" if pointer else "") + suffix + own}


def _invocation(report: Report, index: dict[str, int], prefix: str, base: str | None = None) -> dict[str, Any]:
    internal = [f for f in report.findings if f.code == INTERNAL]
    invocation: dict[str, Any] = {"executionSuccessful": not internal}
    if report.checked_at is not None:
        invocation["startTimeUtc"] = _utc(report.checked_at)
        if report.elapsed is not None:
            invocation["endTimeUtc"] = _utc(report.checked_at + datetime.timedelta(seconds=report.elapsed))
    notifications = []
    for finding in internal:
        notification: dict[str, Any] = {
            "level": "error",
            "message": _message(finding),
            "locations": [_location(finding, prefix, base)],
            "descriptor": {"id": INTERNAL, "index": 0},
        }
        if finding.observed in index:
            notification["associatedRule"] = {"id": finding.observed, "index": index[finding.observed]}
        notifications.append(notification)
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return invocation


def document(report: Report) -> dict[str, Any]:
    base, prefix = repository_base(report.root)
    codes = sorted({f.code for f in report.findings} | set(RULES))
    index = {code: i for i, code in enumerate(codes)}
    results = []
    for shown in Distinct(report).all:  # each distinct finding once, as every format counts them
        finding = shown.finding
        result: dict[str, Any] = {
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": LEVELS[finding.severity],
            "message": _message(finding, shown.suffix),
            "locations": [_location(finding, prefix, base)],
            "partialFingerprints": {"mlperfCheck/v1": f"{finding.code}:{finding.path}:{finding.pointer or ''}"},
        }
        if shown.shared:
            result["properties"] = {"affects": shown.affects}
        if finding.cause is not None:  # the finding it follows from: where it is, and what
            cause = finding.cause
            related = _location(dataclasses.replace(finding, path=cause.path, line=None, column=None), prefix, base)
            related.update(id=0, message={"text": f"{cause.code} here: the finding this one follows from"})
            result["relatedLocations"] = [related]
            result.setdefault("properties", {})["cause"] = cause.to_dict()
        if finding.waived:
            result["suppressions"] = [{"kind": "external", "justification": finding.waived}]
        results.append(result)
    internal = RULES[INTERNAL]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "mlperf-check",
                        "version": __version__,
                        "informationUri": "https://github.com/mlcommons/inference_policies",
                        "rules": [_rule(code) for code in codes],
                        "notifications": [
                            {"id": INTERNAL, "name": internal.name, "shortDescription": {"text": internal.summary}}
                        ],
                    }
                },
                "originalUriBaseIds": {
                    BASE: {
                        "uri": _folder_uri(base),
                        "description": {
                            "text": "The repository root: GITHUB_WORKSPACE, else the "
                            "folder mlperf-check ran in (the checked folder "
                            "when it is outside it)."
                        },
                    }
                },
                "invocations": [_invocation(report, index, prefix, base)],
                "columnKind": "unicodeCodePoints",  # a finding's column counts characters (checker/locate.py)
                "results": results,
                "properties": {"round": report.round.name},
            }
        ],
    }


write = as_json(document)  # the one JSON writer (reporters.as_json)
