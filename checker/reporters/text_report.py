"""Text for people, as ruff shows it: the problems first, each once, and a one-line summary.

The default view lists the errors about a system or a submission (or the same on several
results: a submitter's code folder each of its results needs) once, under "Submissions and
systems", with the number of results each affects; then each invalid result with the errors
that make it invalid, naming the shared ones on one line so every INVALID says why; then the
warnings and notes; then one line that counts the results and the findings shown, each
finding once however many results it affects. `full` adds under each finding the offending
line of its file with a caret under the place (when the finding knows its line) and a
`help:` line with the fix; `concise` writes one line per finding, `path:line:col: CODE
message`; `show_valid` lists the valid results too; `quiet` leaves the warnings out. Every
name and message is `visible`: no control character reaches the terminal raw."""

from __future__ import annotations

import codecs
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, TextIO

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from ..findings import Distinct, Finding, Report, ResultRecord, Shown, invalidates, shown_counts
from ..wording import counted
from .common import fix_of, follows, place, pointer_shown, visible

STYLES = {"error": "bold red", "warning": "yellow", "note": "cyan"}
SHARED = "Submissions and systems"
WARNINGS = "Warnings and notes"
VIEWS = ("default", "full", "concise")
ELLIPSIS = "…"


def _line(finding: Finding, suffix: str = "") -> Text:
    text = Text("  ")
    text.append(f"{finding.severity.value:<7}", style=STYLES[finding.severity.value])
    text.append(f" {finding.code} ", style="bold")
    text.append(visible(place(finding)), style="dim")
    if pointer := pointer_shown(finding):
        text.append(f" [{visible(pointer)}]", style="dim")
    text.append(f": {visible(finding.message)}")
    if finding.cause is not None:
        text.append(visible(follows(finding)), style="dim")
    if finding.waived:
        text.append(f" (waived: {visible(finding.waived)})", style="dim")
    text.append(suffix)
    return text


WINDOW = 120  # characters of a source line shown at most: a long line is cut around the column
_CHUNK = 1 << 16  # bytes read at a time


@dataclass(frozen=True)
class Excerpt:
    """What the full view shows of a finding's line: `text`, at most WINDOW characters of it
    around the column, `at`, the column's index in `text` (None: no column), and whether the
    line goes on to the left or right of what is shown (elided with `…`, as ruff and rustc do)."""

    text: str
    at: int | None
    left: bool
    right: bool


def source_line(root: str, finding: Finding, window: int = WINDOW) -> Excerpt | None:
    """The part of line `finding.line` of the finding's file that the full view shows: lines
    end at `\n` only (as the parsers and checker.locate count them: a lone `\r` is text), and
    at most `window` characters around the column are kept, so a line of any length is read
    in bounded memory. None when the finding knows no line, the file has no such line or
    cannot be read."""
    if finding.line is None or finding.line < 1:
        return None
    column = None if finding.column is None else max(finding.column - 1, 0)
    start = 0 if column is None else max(column - window // 2, 0)
    try:
        with open(os.path.join(root, finding.path), "rb") as file:
            rest = _skip_lines(file, finding.line - 1)
            if rest is None:
                return None
            return _excerpt(file, rest, start, window, column)
    except OSError:
        return None


def _skip_lines(file: BinaryIO, count: int) -> bytes | None:
    """Read past `count` lines (`\n`-ended); what was read of the next one, None at the end."""
    data = b""
    while count:
        data = file.read(_CHUNK)
        if not data:
            return None
        at = -1
        while count and (at := data.find(b"\n", at + 1)) >= 0:
            count -= 1
        if not count:
            return data[at + 1 :]
    return data


def _excerpt(file: BinaryIO, data: bytes, start: int, window: int, column: int | None) -> Excerpt | None:
    """Characters [start, start + window) of the line that begins with `data` and goes on in
    `file`: decoded as UTF-8 (a bad byte is U+FFFD) a chunk at a time, the rest never kept.
    None when the file ends before the line begins."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    kept, seen, read = "", 0, False
    while True:
        if not data:
            data = file.read(_CHUNK)
        read = read or bool(data)
        end = data.find(b"\n")
        ended = end >= 0 or not data  # the end of the line, or of the file
        text = decoder.decode(data[:end] if end >= 0 else data, final=ended)
        # two characters past the window: whether the line goes on (not only a `\r\n` end)
        kept += text[max(start - seen, 0) : max(start + window + 2 - seen, 0)]
        seen += len(text)
        if ended or seen > start + window + 1:
            break
        data = b""
    if not read:
        return None
    if ended and kept.endswith("\r") and start + len(kept) == seen:  # a `\r\n` line end
        kept, seen = kept[:-1], seen - 1
    at = None if column is None else min(column - start, len(kept))
    return Excerpt(kept[:window], at, start > 0, seen > start + window)


def _details(root: str, finding: Finding) -> list[Text]:
    """The full view's lines under a finding: its source line with a caret, and `help:`."""
    lines = []
    source = source_line(root, finding)
    if source is not None:
        number = str(finding.line)
        pad = " " * (len(number) + 4)
        lines.append(Text(f"{pad}|", style="dim"))
        shown = Text(f"    {number} | ", style="dim")
        left = ELLIPSIS if source.left else ""
        shown.append(left + visible(source.text) + (ELLIPSIS if source.right else ""))
        lines.append(shown)
        if source.at is not None:
            # the caret goes under the column as a terminal shows the line: escapes widen a
            # control character, and a wide character (CJK, most emoji) takes two cells
            at = cell_len(left + visible(source.text[: source.at]))
            lines.append(Text(f"{pad}| " + " " * at + "^", style="bold red"))
    help_text = fix_of(finding)
    if help_text:
        lines.append(Text(f"    help: {visible(help_text)}", style="cyan"))
    return lines


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
    """(code, name, severity, count) of the findings that are not waived, each distinct
    finding once (as the report shows it), the most frequent first (then by code): what
    --statistics prints, as ruff's does."""
    counts = Counter(
        (s.finding.code, s.finding.name, s.finding.severity.value) for s in Distinct(report).all if not s.finding.waived
    )
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


def _writer(console: Console, lines: list[str]) -> Callable[[Text], None]:
    if console.color_system is None and not console.legacy_windows:
        # No escape sequence to write: rich would write each line's text as it is (every part
        # is `visible`, so no tab to expand, and soft wrap cuts nothing). One write of them
        # all: rich's print of a line costs more than the line.
        def show(line: Text) -> None:
            lines.append(line.plain + "\n")

        return show
    return console.print


def render(
    report: Report,
    console: Console,
    quiet: bool = False,
    statistics: bool = False,
    view: str = "default",
    show_valid: bool = False,
) -> None:
    """The report in `view` (default, full or concise), then the summary line. `quiet`: no
    warnings or notes; `statistics`: a count per code in place of the findings; `show_valid`:
    the valid results too."""
    if statistics:
        _statistics(report, console)
        console.print(summary(report, Distinct(report).all))
        return
    lines: list[str] = []
    show = _writer(console, lines)
    distinct = Distinct(report)
    shown = [s for s in distinct.all if not quiet or invalidates(s.finding)]
    if view == "concise":
        for one in sorted(shown, key=lambda s: (s.finding.path, s.finding.line or 0, s.finding.column or 0)):
            show(_concise(one))
    else:
        _problems(report, distinct, shown, show, full=view == "full", show_valid=show_valid)
    console.file.write("".join(lines))
    console.print(summary(report, shown, len(distinct.all) - len(shown)))


def _concise(shown: Shown) -> Text:
    finding = shown.finding
    text = Text(visible(place(finding)) + ": ", style="dim")
    text.append(finding.code, style=STYLES[finding.severity.value])
    text.append(f" {visible(finding.message)}")
    if finding.cause is not None:
        text.append(visible(follows(finding)), style="dim")
    if pointer := pointer_shown(finding):
        text.append(f" [{visible(pointer)}]", style="dim")
    if finding.waived:
        text.append(f" (waived: {visible(finding.waived)})", style="dim")
    text.append(shown.suffix)
    return text


def _problems(
    report: Report,
    distinct: Distinct,
    shown: list[Shown],
    show: Callable[[Text], None],
    full: bool,
    show_valid: bool,
) -> None:
    """The errors about no one result, the invalid results (and the valid ones when
    `show_valid`) with the errors that invalidate each, then the warnings and notes."""

    def finding(one: Finding, suffix: str = "") -> None:
        show(_line(one, suffix))
        if full:
            for line in _details(report.root, one):
                show(line)

    first, under_result = _errors(report, shown)
    _section(SHARED, first, show, finding)
    for result in report.results:
        if not result.valid or show_valid:
            show(_header(result))
            for own in distinct.own.get(result.location, []):
                if id(own) in under_result:
                    finding(own)
            own_causes, shared_causes = distinct.causes(result)
            if shared_causes:
                show(_invalidated_by(shared_causes, also=bool(own_causes)))
    _section(WARNINGS, [s for s in shown if not invalidates(s.finding)], show, finding)


def _section(
    title: str, found: list[Shown], show: Callable[[Text], None], finding: Callable[[Finding, str], None]
) -> None:
    """A titled list of findings, each with its `affects` suffix; nothing when there is none."""
    if found:
        show(Text(title, style="bold underline"))
        for one in found:
            finding(one.finding, one.suffix)


def _errors(report: Report, shown: list[Shown]) -> tuple[list[Shown], set[int]]:
    """(the errors listed before the results: about no one result, or on several; the ids of
    those listed under their invalid result)."""
    invalid = {r.location for r in report.results if not r.valid}
    under_result = {
        id(s.finding) for s in shown if not s.shared and invalidates(s.finding) and s.finding.location in invalid
    }
    return [s for s in shown if invalidates(s.finding) and id(s.finding) not in under_result], under_result


def _header(result: ResultRecord) -> Text:
    """`location  INVALID  522.247 Samples/s`."""
    verdict = Text("valid", style="green") if result.valid else Text("INVALID", style="bold red")
    header = Text(f"{visible(result.location)}  ")
    header.append(verdict)
    if result.metric:
        header.append(f"  {result.metric['value']:.6g} {visible(str(result.metric['units']))}", style="dim")
    return header


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary(report: Report, shown: list[Shown], hidden: int = 0) -> Text:
    """`mlperf-check, round v6.0: 71 results, 70 valid, 1 invalid; 2 errors, 21 warnings,
    2 notes`: the results, and the findings shown counted once each (a finding on several
    results, `affects N results`, is one); waived findings and those -q hides are named
    apart (`hidden`: how many -q left out)."""
    counts = shown_counts(shown)
    waived = sum(1 for s in shown if s.finding.waived)
    valid = sum(1 for r in report.results if r.valid)
    found = [_plural(counts["error"], "error")]
    if not hidden:
        found += [_plural(counts["warning"], "warning"), _plural(counts["note"], "note")]
    if waived:
        found.append(f"{waived} waived")
    text = Text(f"mlperf-check, round {visible(report.round.name)}: ", style="bold")
    text.append(f"{_plural(len(report.results), 'result')}, {valid} valid, ")
    text.append(f"{len(report.results) - valid} invalid", style="bold red" if valid < len(report.results) else "")
    text.append("; " + ", ".join(found))
    if hidden:
        text.append(f" ({counted(hidden, 'warning or note', 'warnings and notes')} not shown: -q)")
    return text


def colours(color: str = "auto") -> dict[str, Any]:
    """rich Console options for --color: `never` writes no escape sequence, `always` writes
    them to any file (NO_COLOR aside), `auto` only to a terminal and not under NO_COLOR."""
    if color == "never" or (color == "auto" and os.environ.get("NO_COLOR")):
        return {"color_system": None}
    if color == "always":
        return {"force_terminal": True, "color_system": "standard", "no_color": False}
    return {}


def write(
    report: Report,
    out: TextIO,
    quiet: bool = False,
    statistics: bool = False,
    color: str = "auto",
    view: str = "default",
    show_valid: bool = False,
) -> None:
    console = Console(file=out, width=200, soft_wrap=True, **colours(color))
    render(report, console, quiet, statistics, view, show_valid)
