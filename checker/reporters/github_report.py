"""GitHub Actions: workflow-command annotations on the files that break rules, and every
finding in the job summary ($GITHUB_STEP_SUMMARY).

A finding about a system or a submission, or the same finding on several results, is
annotated and listed once, with the number of results it affects (`common.Distinct`). GitHub
shows at most 10 error and 10 warning annotations per step, so one finding per rule code comes
first, then the rest in order; the last line says where the others are: in the job summary
when one was written, else (outside Actions, with no $GITHUB_STEP_SUMMARY) in the other
formats. The summary holds a table per submitter, naming what makes each invalid result
invalid, and every finding; it stays under GitHub's 1 MiB limit (cut with a note). Text is
`visible`: a control character in a folder name or a message is shown, never sent to the
runner's log raw; in the summary every name is literal Markdown (markdown_text,
markdown_code): no `|` splits a cell, no backtick ends a code span, no HTML reaches the page."""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from typing import TextIO

from ..escaping import annotation_data, annotation_property, markdown_code, markdown_text
from ..findings import Distinct, Finding, Report, ResultRecord, Severity, Shown, shown_counts
from ..output import append_text
from .common import (
    fix_of,
    follows,
    in_workspace,
    place,
    pointer_shown,
    repository_base,
    visible,
)

ANNOTATIONS_PER_LEVEL = 10
SUMMARY_LIMIT = 1024 * 1024 - 16 * 1024  # GitHub's 1 MiB per step, less room for the cut note
COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def annotation(finding: Finding, prefix: str, suffix: str = "", base: str | None = None) -> str:
    """The workflow command of one finding; `suffix` (" (affects 3 results)") ends its message;
    `prefix` and `base` place its file in the repository (common.in_workspace)."""
    properties = [f"file={annotation_property(in_workspace(finding.path, prefix, base))}"]
    if finding.line is not None:
        properties.append(f"line={finding.line}")
        if finding.column is not None:
            properties.append(f"col={finding.column}")
    properties.append(f"title={annotation_property(f'{finding.code} {finding.name}')}")
    pointer = pointer_shown(finding)
    message = finding.message + follows(finding) + (f" [{pointer}]" if pointer else "") + suffix
    message += _help(finding)
    return f"::{COMMANDS[finding.severity]} {','.join(properties)}::{annotation_data(message)}"


def _help(finding: Finding) -> str:
    """The fix, on the annotation's last line: `help: ...` (none for a rule without one)."""
    fix = fix_of(finding)
    return f"\nhelp: {fix}" if fix else ""


def chosen(findings: list[Finding], limit: int = ANNOTATIONS_PER_LEVEL) -> list[Finding]:
    """Per severity, the first finding of each code, then the others in order, up to `limit`."""
    picked: list[Finding] = []
    for severity in Severity:
        level = [f for f in findings if f.severity is severity and not f.waived]
        firsts: dict[str, Finding] = {}
        for finding in level:
            firsts.setdefault(finding.code, finding)
        first = list(firsts.values())
        rest = [f for f in level if f not in first]
        picked += (first + rest)[:limit]
    return picked


def _caused_by(own: list[Finding], shared: list[Finding], submitter: str) -> str:
    """The `caused by` cell: own codes, then each shared cause as its code and file."""
    names = list(dict.fromkeys(f.code for f in own))
    for finding in shared:
        relative = finding.path[len(submitter) + 1 :] if finding.path.startswith(submitter + "/") else finding.path
        names.append(f"{finding.code} ({markdown_code(relative, cell=True)})")
    return ", ".join(dict.fromkeys(names))


def summary(report: Report, prefix: str, limit: int = SUMMARY_LIMIT, base: str | None = None) -> str:
    distinct = Distinct(report)
    valid = sum(1 for r in report.results if r.valid)
    counts = shown_counts(distinct.all)  # each finding listed below once
    parts = [
        f"## mlperf-check, round {markdown_text(report.round.name)}\n\n",
        f"**{valid} of {len(report.results)} results valid** - {counts['error']} errors, "
        f"{counts['warning']} warnings, {counts['note']} notes\n\n",
    ]
    by_submitter: dict[str, list[ResultRecord]] = defaultdict(list)
    for result in report.results:
        by_submitter["/".join(result.location.split("/")[:2])].append(result)
    for submitter, results in sorted(by_submitter.items()):
        parts.append(
            f"### {markdown_text(submitter)}\n\n| result | verdict | caused by | other findings |\n|---|---|---|---|\n"
        )
        for result in results:
            verdict = "valid" if result.valid else "**invalid**"
            relative = result.location[len(submitter) + 1 :]
            own, shared = distinct.causes(result)
            causes = set(map(id, own))
            others = " ".join(
                sorted({f.code for f in distinct.own.get(result.location, []) if not f.waived and id(f) not in causes})
            )
            cell = markdown_code(relative, cell=True)
            parts.append(f"| {cell} | {verdict} | {_caused_by(own, shared, submitter)} | {others} |\n")
        parts.append("\n")
    parts.append("### Findings\n\n")
    for shown in distinct.all:
        finding = shown.finding
        pointer = pointer_shown(finding)
        where = markdown_code(place(finding, prefix, base)) + (f" ({markdown_text(pointer)})" if pointer else "")
        waived = f" (waived: {markdown_text(finding.waived)})" if finding.waived else ""
        message = markdown_text(finding.message + follows(finding))
        parts.append(f"- {finding.severity.value} **{finding.code}** {where}: {message}{waived}{shown.suffix}\n")
    text, size = [], 0
    for index, part in enumerate(parts):
        size += len(part.encode())
        if size > limit:
            left = len(parts) - index
            text.append(
                f"\n_The summary stops here to stay under GitHub's 1 MiB limit; {left} more lines are in "
                f"the JSON report (`--format json:FILE`)._\n"
            )
            break
        text.append(part)
    return "".join(text)


def _append_summary(report: Report, prefix: str, base: str) -> bool:
    """Append the job summary to $GITHUB_STEP_SUMMARY; whether it was written."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return False
    try:
        append_text(target, summary(report, prefix, base=base))
    except OSError as error:  # the annotations are out; the summary is a courtesy
        print(
            visible(
                f"warning: cannot append the job summary to $GITHUB_STEP_SUMMARY ({target}): {error.strerror or error}"
            ),
            file=sys.stderr,
        )
        return False
    return True


def write(report: Report, out: TextIO) -> None:
    base, prefix = repository_base(report.root)
    distinct = Distinct(report)
    shown: dict[int, Shown] = {id(s.finding): s for s in distinct.all}
    findings = [s.finding for s in distinct.all]
    picked = chosen(findings)
    for finding in picked:
        out.write(annotation(finding, prefix, shown[id(finding)].suffix, base) + "\n")
    written = _append_summary(report, prefix, base)
    hidden = sum(1 for f in findings if not f.waived) - len(picked)
    if hidden > 0 and written:
        out.write(f"{hidden} more findings are in the job summary.\n")
    elif hidden > 0:
        why = "is not set" if not os.environ.get("GITHUB_STEP_SUMMARY") else "could not be written"
        out.write(
            f"{hidden} more findings are not annotated (at most {ANNOTATIONS_PER_LEVEL} per severity) and no job "
            f"summary was written ($GITHUB_STEP_SUMMARY {why}): run with --format text or --format json to see "
            f"every finding.\n"
        )
