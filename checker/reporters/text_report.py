"""Text for people: findings grouped by result, one line each, then a verdict and counts.

What is about a system or a submission, and what is the same on several results (a
submitter's code folder each of its results needs), is listed once under "Submissions and
systems" with the number of results it affects; an invalid result names those of them that
make it invalid on one line, so every INVALID says why. Every name and message is `visible`:
no control character reaches the terminal raw."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from typing import Any, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..findings import Finding, Report, Severity
from .common import Distinct, visible

STYLES = {"error": "bold red", "warning": "yellow", "note": "cyan"}
SHARED = "Submissions and systems"


def _line(finding: Finding, suffix: str = "") -> Text:
    text = Text("  ")
    text.append(f"{finding.severity.value:<7}", style=STYLES[finding.severity.value])
    text.append(f" {finding.code} ", style="bold")
    text.append(visible(finding.path), style="dim")
    if finding.pointer:
        text.append(f" [{visible(finding.pointer)}]", style="dim")
    text.append(f": {visible(finding.message)}")
    if finding.waived:
        text.append(f" (waived: {visible(finding.waived)})", style="dim")
    text.append(suffix)
    return text


def _invalidated_by(shared: list[Finding], also: bool) -> Text:
    """`  invalidated by SYS001, SYS002 closed/A/systems/s.json; STR005 closed/A/code/x (see ...)`:
    the shared causes of one result, their codes grouped by file."""
    by_path: dict[str, list[str]] = {}
    for finding in shared:
        codes = by_path.setdefault(finding.path, [])
        if finding.code not in codes:
            codes.append(finding.code)
    text = Text("  also invalidated by " if also else "  invalidated by ")
    for index, (path, codes) in enumerate(by_path.items()):
        if index:
            text.append("; ")
        text.append(", ".join(codes), style="bold")
        text.append(f" {visible(path)}", style="dim")
    text.append(f" (see {SHARED})")
    return text


def code_counts(report: Report) -> list[tuple[str, str, str, int]]:
    """(code, name, severity, count) of the findings that are not waived, the most frequent
    first (then by code): what --statistics prints, as ruff's does."""
    counts = Counter((f.code, f.name, f.severity.value) for f in report.findings if not f.waived)
    return sorted(
        ((code, name, severity, n) for (code, name, severity), n in counts.items()),
        key=lambda row: (-row[3], row[0], row[2]),
    )


def _statistics(report: Report, console: Console) -> None:
    rows = code_counts(report)
    width = max((len(visible(name)) for _, name, _, _ in rows), default=0)
    for code, name, severity, count in rows:
        line = Text(f"{count:>6}  ")
        line.append(code, style="bold")
        line.append(f"  {visible(name):<{width}}  ")
        line.append(severity, style=STYLES[severity])
        console.print(line)


def render(report: Report, console: Console, quiet: bool = False, statistics: bool = False) -> None:
    """Findings by result, then the counts. `quiet`: only the invalid results and their
    findings, and of the shared findings only the errors; `statistics`:
    a count per code in place of the findings."""
    if statistics:
        _statistics(report, console)
        _summary(report, console)
        return
    lines: list[str] = []
    show: Callable[[Text], None]
    if console.color_system is None and not console.legacy_windows:
        # No escape sequence to write: rich would write each line's text as it is (every part
        # is `visible`, so no tab to expand, and soft wrap cuts nothing). One write of them
        # all: rich's print of a line costs more than the line.
        def show(line: Text) -> None:
            lines.append(line.plain + "\n")
    else:
        show = console.print
    distinct = Distinct(report)
    shared = distinct.shared
    if quiet:
        shared = [s for s in shared if s.finding.severity is Severity.ERROR and not s.finding.waived]
    if shared:
        show(Text(SHARED, style="bold underline"))
        for shown in shared:
            show(_line(shown.finding, shown.suffix))
    for result in report.results:
        if quiet and result.valid:
            continue
        verdict = Text("valid", style="green") if result.valid else Text("INVALID", style="bold red")
        header = Text(f"{visible(result.location)}  ")
        header.append(verdict)
        if result.metric:
            header.append(f"  {result.metric['value']:.6g} {visible(str(result.metric['units']))}", style="dim")
        show(header)
        for finding in distinct.own.get(result.location, []):
            show(_line(finding))
        own, shared_causes = distinct.causes(result)
        if shared_causes:
            show(_invalidated_by(shared_causes, also=bool(own)))
    console.file.write("".join(lines))
    _summary(report, console)


def _summary(report: Report, console: Console) -> None:
    counts = report.counts()
    valid = sum(1 for r in report.results if r.valid)
    table = Table(title=f"mlperf-check, round {visible(report.round.name)}", show_header=True)
    for column in ("results", "valid", "invalid", "errors", "warnings", "notes"):
        table.add_column(column, justify="right")
    table.add_row(
        str(len(report.results)),
        str(valid),
        str(len(report.results) - valid),
        str(counts["error"]),
        str(counts["warning"]),
        str(counts["note"]),
    )
    console.print(table)


def colours(color: str = "auto") -> dict[str, Any]:
    """rich Console options for --color: `never` writes no escape sequence, `always` writes
    them to any file (NO_COLOR aside), `auto` only to a terminal and not under NO_COLOR."""
    if color == "never" or (color == "auto" and os.environ.get("NO_COLOR")):
        return {"color_system": None}
    if color == "always":
        return {"force_terminal": True, "color_system": "standard", "no_color": False}
    return {}


def write(report: Report, out: TextIO, quiet: bool = False, statistics: bool = False, color: str = "auto") -> None:
    render(report, Console(file=out, width=200, soft_wrap=True, **colours(color)), quiet, statistics)
