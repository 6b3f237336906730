"""The GitHub job summary is literal Markdown whatever the names (attack24 F3): rendered by a
CommonMark parser with GitHub's tables (markdown-it-py), each table row keeps its four cells,
each name reads back as written, and no HTML of a name reaches the page."""

from __future__ import annotations

import html
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from checker.findings import Finding, Report, ResultRecord, Severity, judge
from checker.reporters import github_report
from checker.reporters.common import visible
from checker.rounds import load_round

MARKDOWN = MarkdownIt("commonmark").enable("table")
NAME = (
    st.lists(st.sampled_from([*"ab|`<>&*_[]()#!~\\ x", "<img src=x>", "``", "\x1b", "日"]), min_size=1, max_size=8)
    .map("".join)
    .filter(lambda t: t.strip() == t and t not in (".", ".."))
)


def _report(system: str, message: str) -> Report:
    location = f"closed/A/results/{system}/b/Offline"
    record = ResultRecord(
        location, "closed", "A", system, "b", "Offline", "b", f"closed/A/systems/{system}", "closed/A"
    )
    findings = [
        Finding(
            "AVL001",
            Severity.ERROR,
            f"closed/A/systems/{system}.json",
            message,
            pointer="/status",
            subject=f"closed/A/systems/{system}",
        ),
        Finding("ACC002", Severity.ERROR, f"{location}/accuracy.txt", message, location=location),
    ]
    report = Report(round=load_round("demo-v6.1"), root="/nonexistent-root", results=[record], findings=findings)
    judge(report.results, report.findings)
    return report


def _check(system: str, message: str) -> str:
    page = MARKDOWN.render(github_report.summary(_report(system, message), ""))
    rows = re.findall(r"<tr>(.*?)</tr>", page, flags=re.S)
    assert rows and all(row.count("<td>") + row.count("<th>") == 4 for row in rows), page
    assert "<img" not in page.replace("&lt;img", "")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert f"results/{visible(system)}/b/Offline" in text  # the name as written, in its cell
    assert visible(message) in text
    return page


@settings(max_examples=150, deadline=None)
@given(system=NAME, message=NAME)
def test_every_name_is_literal_in_the_job_summary(system: str, message: str) -> None:
    _check(system, message)


def test_a_pipe_a_backtick_and_html_in_a_system_name() -> None:
    """attack24 F3: ``a|b`<img src=x>`` split the cell, closed the code span and reached the
    page as HTML."""
    page = _check("a|b`<img src=x>", "`status` is 'availble'")
    assert "<td><code>results/a|b`&lt;img src=x&gt;/b/Offline</code></td>" in page
