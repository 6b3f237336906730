"""Text for people: findings grouped by result, one line each, then a verdict and counts.
Every name and message is `visible`: no control character reaches the terminal raw."""

from __future__ import annotations

from collections import defaultdict
from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..findings import Report
from ..findings import Finding
from .common import visible

STYLES = {"error": "bold red", "warning": "yellow", "note": "cyan"}


def _line(finding: Finding) -> Text:
    text = Text("  ")
    text.append(f"{finding.severity.value:<7}", style=STYLES[finding.severity.value])
    text.append(f" {finding.code} ", style="bold")
    text.append(visible(finding.path), style="dim")
    if finding.pointer:
        text.append(f" [{visible(finding.pointer)}]", style="dim")
    text.append(f": {visible(finding.message)}")
    if finding.waived:
        text.append(f" (waived: {visible(finding.waived)})", style="dim")
    return text


def render(report: Report, console: Console) -> None:
    by_location: dict[str, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        by_location[finding.location].append(finding)
    general = by_location.pop("", [])
    if general:
        console.print(Text("Submissions and systems", style="bold underline"))
        for finding in general:
            console.print(_line(finding))
    for result in report.results:
        verdict = Text("valid", style="green") if result.valid else Text("INVALID", style="bold red")
        header = Text(f"{visible(result.location)}  ")
        header.append(verdict)
        if result.metric:
            header.append(f"  {result.metric['value']:.6g} {visible(str(result.metric['units']))}", style="dim")
        console.print(header)
        for finding in by_location.get(result.location, []):
            console.print(_line(finding))
    counts = report.counts()
    valid = sum(1 for r in report.results if r.valid)
    table = Table(title=f"mlperf-check, round {visible(report.round.name)}", show_header=True)
    for column in ("results", "valid", "invalid", "errors", "warnings", "notes"):
        table.add_column(column, justify="right")
    table.add_row(str(len(report.results)), str(valid), str(len(report.results) - valid), str(counts["error"]),
                  str(counts["warning"]), str(counts["note"]))
    console.print(table)


def write(report: Report, out: TextIO) -> None:
    render(report, Console(file=out, width=200, soft_wrap=True))
