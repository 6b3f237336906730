"""JUnit XML for GitLab and Jenkins, valid against the Jenkins JUnit schema (junit-10.xsd,
tests/data/): one test suite per submitter folder, one test case per result, failed when the
result is invalid, and one test case, "submission and systems", for what is about a system or a
submission or is the same on several results (common.Distinct), each such finding once with the
number of results it affects.

A failed result's `<failure>` names every finding that makes it invalid (Report.causes): its
own in full, the shared ones by code, file and pointer. A case whose causes include an
internal error (INT001: a rule failed, so the verdict is not the rules') is an `<error>`
instead, counted in `errors`. `tests`, `failures`, `errors` and `skipped` (always 0) are
written on every suite and their sums on `<testsuites>`; `timestamp` is when the check started
(Report.checked_at), `time` the seconds it spent (Report.elapsed on `<testsuites>`, the
submitter's share, Report.seconds, on its suite). Text is `visible` (XML 1.0 cannot hold most
control characters, even escaped)."""

from __future__ import annotations

from collections import defaultdict
from typing import TextIO
from xml.etree import ElementTree as ET

from ..findings import Distinct, Finding, Report, ResultRecord, Shown, invalidates
from . import common
from .common import follows, place, pointer_shown, warn

SHARED_CASE = "submission and systems"
_REPLACED = [0]  # characters XML 1.0 cannot hold, written escaped by the current `write`


def visible(text: str, keep: str = "") -> str:
    """common.visible, counting what XML 1.0 could not have held (said once `write` ends)."""
    _REPLACED[0] += common.not_xml(text)
    return common.visible(text, keep)


def _where(finding: Finding) -> str:
    shown = pointer_shown(finding)
    pointer = f" [{shown}]" if shown else ""
    return f"{finding.severity.value} {finding.code} {place(finding)}{pointer}"


def _line(finding: Finding, suffix: str = "") -> str:
    return visible(f"{_where(finding)}: {finding.message}{follows(finding)}{suffix}")


def _reference(finding: Finding) -> str:
    """A shared cause under a result: what and where, its message being in the shared case."""
    return visible(f'{_where(finding)} (see "{SHARED_CASE}")')


def _outcome(case: ET.Element, causes: list[Finding], body: list[str]) -> str | None:
    """Add the failure (or, with an internal error among the causes, the error) of a case;
    which one, or None when nothing makes it fail."""
    if not causes:
        return None
    kind = "error" if any(f.code == "INT001" for f in causes) else "failure"
    element = ET.SubElement(
        case,
        kind,
        type="internal" if kind == "error" else "invalid",
        message=visible(f"{len(causes)} error(s): {', '.join(sorted({f.code for f in causes}))}"),
    )
    element.text = "\n".join(body)
    return kind


def _submitter(path: str) -> str:
    return "/".join(path.split("/")[:2])


def _shared_case(suite: ET.Element, submitter: str, shown: list[Shown]) -> str | None:
    """The submitter's case for the findings on no one result (its systems, its folders): it
    fails on those that invalidate results, and shows the others."""
    case = ET.SubElement(suite, "testcase", classname=visible(submitter), name=SHARED_CASE)
    errors = [s for s in shown if invalidates(s.finding)]
    kind = _outcome(case, [s.finding for s in errors], [_line(s.finding, s.suffix) for s in errors])
    others = [s for s in shown if not invalidates(s.finding)]
    if others:
        ET.SubElement(case, "system-out").text = "\n".join(_line(s.finding, s.suffix) for s in others)
    return kind


def _result_case(suite: ET.Element, result: ResultRecord, distinct: Distinct) -> str | None:
    """A result's case: it fails on its own errors and on the shared ones that apply to it."""
    case = ET.SubElement(
        suite,
        "testcase",
        classname=visible(result.location.rsplit("/", 2)[0]),
        name=visible("/".join(result.location.split("/")[-2:])),
    )
    own, shared_causes = distinct.causes(result)
    kind = _outcome(case, own + shared_causes, [_line(f) for f in own] + [_reference(f) for f in shared_causes])
    others = [f for f in distinct.own.get(result.location, []) if not f.waived and not invalidates(f)]
    if others:
        ET.SubElement(case, "system-out").text = "\n".join(_line(f) for f in others)
    return kind


def _close_suite(suite: ET.Element, kinds: list[str | None], report: Report, submitter: str) -> dict[str, int]:
    """Write a suite's counts and clock; return the counts."""
    counts = {"tests": len(kinds), "failures": kinds.count("failure"), "errors": kinds.count("error")}
    for name, value in counts.items():
        suite.set(name, str(value))
    suite.set("skipped", "0")
    if submitter in report.seconds:
        suite.set("time", f"{report.seconds[submitter]:.3f}")
    if report.checked_at is not None:
        suite.set("timestamp", report.checked_at.isoformat(timespec="seconds"))
    return counts


def write(report: Report, out: TextIO) -> None:
    _REPLACED[0] = 0
    distinct = Distinct(report)
    shared: dict[str, list[Shown]] = defaultdict(list)
    for shown in distinct.shared:
        if not shown.finding.waived:
            shared[_submitter(shown.finding.path)].append(shown)
    grouped: dict[str, list[ResultRecord]] = defaultdict(list)
    for result in report.results:
        grouped[_submitter(result.location)].append(result)
    suites = ET.Element("testsuites", name=visible(f"mlperf-check {report.round.name}"))
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for submitter in sorted(set(grouped) | set(shared)):
        suite = ET.SubElement(suites, "testsuite", name=visible(submitter))
        kinds = [_shared_case(suite, submitter, shared.get(submitter, []))]
        kinds += [_result_case(suite, result, distinct) for result in grouped.get(submitter, [])]
        for name, value in _close_suite(suite, kinds, report, submitter).items():
            totals[name] += value
    for name, value in totals.items():
        suites.set(name, str(value))
    if report.elapsed is not None:
        suites.set("time", f"{report.elapsed:.3f}")
    ET.indent(suites)
    replaced, _REPLACED[0] = _REPLACED[0], 0
    out.write('<?xml version="1.0" encoding="utf-8"?>\n')
    if replaced:
        said = (
            f"{replaced} character{'s' if replaced != 1 else ''} that XML 1.0 cannot hold written as \\uNNNN or \\xNN"
        )
        out.write(f"<!-- mlperf-check: {said} -->\n")
        warn(f"JUnit XML: {said}")
    out.write(ET.tostring(suites, encoding="unicode"))
    out.write("\n")
