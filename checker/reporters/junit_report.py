"""JUnit XML for GitLab and Jenkins: one test case per result, failed when it is invalid;
findings about a submission or a system as a whole form one test case per submitter. Text is
`visible` (XML 1.0 cannot hold most control characters, even escaped)."""

from __future__ import annotations

from collections import defaultdict
from typing import TextIO
from xml.etree import ElementTree as ET

from ..findings import Report
from ..findings import Finding, Severity
from .common import visible


def _lines(findings: list[Finding]) -> str:
    return "\n".join(visible(f"{f.severity.value} {f.code} {f.path}" + (f" [{f.pointer}]" if f.pointer else "")
                             + f": {f.message}") for f in findings)


def write(report: Report, out: TextIO) -> None:
    by_location: dict[str, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        if not finding.waived:
            by_location[finding.location].append(finding)
    suites = ET.Element("testsuites", name=visible(f"mlperf-check {report.round.name}"))
    grouped: dict[str, list] = defaultdict(list)
    for result in report.results:
        grouped["/".join(result.location.split("/")[:2])].append(result)
    general: dict[str, list[Finding]] = defaultdict(list)
    for finding in by_location.get("", []):
        general["/".join(finding.path.split("/")[:2])].append(finding)
    for submitter in sorted(set(grouped) | set(general)):
        results = grouped.get(submitter, [])
        suite = ET.SubElement(suites, "testsuite", name=visible(submitter))
        failures = 0
        cases = [(submitter, "submission and systems", general.get(submitter, []), None)]
        cases += [(r.location.rsplit("/", 2)[0], "/".join(r.location.split("/")[-2:]), by_location.get(r.location, []),
                   r.valid) for r in results]
        for classname, name, findings, valid in cases:
            case = ET.SubElement(suite, "testcase", classname=visible(classname), name=visible(name))
            errors = [f for f in findings if f.severity is Severity.ERROR]
            if (valid is False) or (valid is None and errors):
                failures += 1
                failure = ET.SubElement(case, "failure", type="invalid",
                                        message=visible(f"{len(errors)} error(s): "
                                                        f"{', '.join(sorted({f.code for f in errors}))}"))
                failure.text = _lines(errors)
            others = [f for f in findings if f.severity is not Severity.ERROR]
            if others:
                ET.SubElement(case, "system-out").text = _lines(others)
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(failures))
    ET.indent(suites)
    out.write('<?xml version="1.0" encoding="utf-8"?>\n')
    out.write(ET.tostring(suites, encoding="unicode"))
    out.write("\n")
