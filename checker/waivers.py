"""Waivers: agreed exceptions, each with a reason.

A waivers file is YAML:

    waivers:
      - code: PRF004                      # a code or a family prefix
        path: closed/Acme/results/sys1/*  # optional glob on the finding's path or location
        reason: "Approved by the WG on 2026-07-20 (issue 123)"

A waived finding stays in the output, marked with its waiver's reason, and no longer counts
against validity or the exit code. A waiver that matched nothing becomes a note.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from . import yamlsafe
from .findings import Finding, Severity
from .registry import RULES


class WaiverError(Exception):
    """A waivers file that cannot be used (exit code 2)."""


@dataclass(frozen=True)
class Waiver:
    code: str
    reason: str
    path: str = "*"
    origin: str = ""
    index: int = 0

    def matches(self, finding: Finding) -> bool:
        if not finding.code.startswith(self.code):
            return False
        return any(fnmatch.fnmatchcase(target, self.path) for target in (finding.path, finding.location) if target)


def load_waivers(path: str) -> list[Waiver]:
    try:
        document = yamlsafe.load_file(path, what="waivers file")
    except yamlsafe.YamlError as error:
        raise WaiverError(str(error)) from None
    entries = document.get("waivers") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise WaiverError(f"waivers file {path} needs a top-level `waivers:` list")
    waivers = []
    for index, entry in enumerate(entries):
        where = f"{path}: waiver {index + 1}"
        if not isinstance(entry, dict):
            raise WaiverError(f"{where} is not a mapping")
        code, reason = entry.get("code"), entry.get("reason")
        if not isinstance(code, str) or not code.strip():
            raise WaiverError(f"{where} has no `code`")
        if not isinstance(reason, str) or not reason.strip():
            raise WaiverError(f"{where} ({code}) has no `reason`; every waiver needs one")
        pattern = entry.get("path", "*")
        if not isinstance(pattern, str):
            raise WaiverError(f"{where} ({code}): `path` must be a string")
        waivers.append(Waiver(code.strip().upper(), reason.strip(), pattern.strip("/") or "*", path, index + 1))
    return waivers


def apply_waivers(findings: list[Finding], waivers: list[Waiver]) -> list[Finding]:
    used: set[int] = set()
    out: list[Finding] = []
    for finding in findings:
        for number, waiver in enumerate(waivers):
            if waiver.matches(finding):
                finding = finding.with_(waived=waiver.reason)
                used.add(number)
                break
        out.append(finding)
    unused = RULES["WVR001"]
    for number, waiver in enumerate(waivers):
        if number not in used:
            out.append(
                Finding(
                    code=unused.code,
                    severity=Severity.NOTE,
                    path=waiver.origin,
                    message=f"waiver {waiver.index} ({waiver.code} on {waiver.path}) matched no finding",
                    pointer=f"waivers/{waiver.index - 1}",
                    name=unused.name,
                )
            )
    return out
