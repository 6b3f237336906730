"""Waivers: agreed exceptions, each with a reason.

A waivers file is YAML:

    waivers:
      - code: PRF004                      # a code or a family prefix
        path: closed/Acme/results/sys1/*  # optional glob on the finding's path or location
        reason: "Approved by the WG on 2026-07-20 (issue 123)"

A waived finding stays in the output, marked with its waiver's reason, and no longer counts
against validity or the exit code. A waiver that matched nothing becomes a note. The file is
strict (checker.userfiles): an unknown key (`paht:`) or a key given twice is a usage error, so
a typo never widens a waiver to every finding of its code. INT001 (a rule that crashed) is
never waived: a waiver whose code covers it is a usage error.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from dataclasses import dataclass

from . import userfiles
from .errors import UsageError
from .findings import UNWAIVABLE, Finding, Severity
from .registry import RULES


class WaiverError(UsageError):
    """A waivers file that cannot be used (exit code 2)."""


@dataclass(frozen=True)
class Waiver:
    code: str
    reason: str
    path: str = "*"
    origin: str = ""
    index: int = 0

    def matches(self, finding: Finding) -> bool:
        if finding.code == UNWAIVABLE or not finding.code.startswith(self.code):
            return False
        return any(fnmatch.fnmatchcase(target, self.path) for target in (finding.path, finding.location) if target)


def load_waivers(path: str) -> list[Waiver]:
    """The waivers of a file (schemas/waivers.schema.json, read strictly by checker.userfiles);
    WaiverError names the file, the line and the key."""
    try:
        document = userfiles.load(path, "waivers.schema.json", "waivers file")
    except userfiles.UserFileError as error:
        raise WaiverError(str(error)) from None
    waivers = []
    for index, entry in enumerate(document.data["waivers"]):
        code = entry["code"].strip().upper()
        if UNWAIVABLE.startswith(code):
            raise WaiverError(
                str(
                    document.error(
                        ("waivers", index, "code"),
                        f"waiver {index + 1} ({code}) would waive {UNWAIVABLE}, which cannot be waived: a rule "
                        "that crashed gave no verdict to accept; report the crash instead",
                    )
                )
            )
        waivers.append(Waiver(code, entry["reason"].strip(), entry.get("path", "*").strip("/") or "*", path, index + 1))
    return waivers


def apply_waivers(
    findings: list[Finding],
    waivers: list[Waiver],
    root: str = ".",
    judged: Callable[[Waiver], bool] = lambda waiver: True,
) -> list[Finding]:
    """The findings, each marked with the first waiver that matches it, and a note (WVR001)
    for each waiver that matched none, of those `judged`: only a check that saw every
    finding a waiver could match (the whole tree, every code of the waiver selected) can say
    it matched nothing, so that a narrowed check says what the whole check says. The note is
    on the waivers file, its path relative to the checked `root` as every finding's when it
    lies in the tree, else absolute (never as given: the reporters would join it to the root)."""
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
        if number not in used and judged(waiver):
            out.append(
                Finding(
                    code=unused.code,
                    severity=Severity.NOTE,
                    path=_from_root(waiver.origin, root),
                    message=f"waiver {waiver.index} ({waiver.code} on {waiver.path}) matched no finding",
                    pointer=f"waivers/{waiver.index - 1}",
                    name=unused.name,
                )
            )
    return out


def _from_root(path: str, root: str) -> str:
    """`path` (relative to the current folder, or absolute) relative to `root`, POSIX style,
    when it lies in it; else absolute."""
    if not path:
        return path
    full, base = os.path.abspath(path), os.path.abspath(root)
    if full.startswith(base.rstrip(os.sep) + os.sep):
        return os.path.relpath(full, base).replace(os.sep, "/")
    return full
