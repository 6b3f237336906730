"""One escaping for every name any output shows (issue 33): a folder named with a newline, a
carriage return, an escape sequence, quotes, `<>&`, U+FFFE/U+FFFF or a byte that is not UTF-8
is, in every format, parseable, one record per finding, and no line that is not ours. The
names go in at each folder level of a result (submitter, system, benchmark), checked through
every format; and prepare's change list writes them as check's text does."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.reporters import csv_report, github_report, json_report, junit_report, sarif_report, text_report
from helpers import EXAMPLE, fixed, run

HOSTILE = ["\n", "\r", "\x1b[31m", '"', "'", "<", ">", "&", "\ufffe", "\uffff", "\udcff", "\u202e", "x", ":", ","]
NAMES = st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=12).map(lambda parts: "n" + "".join(parts))
LEVELS = ["submitter", "system", "benchmark"]
WRITERS = {
    "text": text_report.write,
    "json": json_report.write,
    "csv": csv_report.write,
    "github": github_report.write,
    "sarif": sarif_report.write,
    "junit": junit_report.write,
}


def _hostile_tree(root: Path, level: str, name: str) -> str:
    """The example with one folder level renamed `name`: the path of a result under it."""
    shutil.copytree(EXAMPLE, root, symlinks=True)
    sub = root / "closed" / "MLCheckDemo"
    if level == "submitter":
        target = root / "closed" / name
        os.rename(sub, target)
        return f"closed/{name}"
    if level == "system":
        os.rename(sub / "results" / "cpu-1x-numpy", sub / "results" / name)
        os.rename(sub / "systems" / "cpu-1x-numpy.json", sub / "systems" / f"{name}.json")
        return f"closed/MLCheckDemo/results/{name}"
    os.rename(sub / "results" / "cpu-1x-numpy" / "demo-mlp-99", sub / "results" / "cpu-1x-numpy" / name)
    return f"closed/MLCheckDemo/results/cpu-1x-numpy/{name}"


def _written(form: str, report) -> str:
    out = io.StringIO()
    WRITERS[form](report, out)
    return out.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=6, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(name=NAMES)
def test_hostile_names_in_every_format(tmp_path_factory, level: str, name: str) -> None:
    root = tmp_path_factory.mktemp("hostile") / "tree"
    _hostile_tree(root, level, name)
    report = fixed(run(root, "demo-v6.1"))
    findings = [f for f in report.findings if not f.waived]
    outputs = {form: _written(form, report) for form in WRITERS}
    for form, text in outputs.items():
        assert "\x1b" not in text and "\r" not in text and "\ufffe" not in text and "\uffff" not in text, form
        text.encode("utf-8")  # no lone surrogate
    json.loads(outputs["json"])
    sarif = json.loads(outputs["sarif"])
    distinct = {(f.code, f.path, f.pointer, f.message) for f in findings}  # a shared finding is one record
    assert len(sarif["runs"][0]["results"]) == len(distinct)
    ET.fromstring(outputs["junit"].encode("utf-8"))  # XML 1.0 that parses
    rows = list(csv.DictReader(io.StringIO(outputs["csv"])))
    assert len(rows) >= len(distinct)
    raw = [
        line
        for line in outputs["text"].splitlines()
        if "\n" in name and name.split("\n")[-1] and line.startswith(name.split("\n")[-1])
    ]
    assert raw == [], raw  # the part of the name after a newline never starts a line of its own


def test_xml_cannot_hold_u_fffe_and_the_junit_output_says_so(tmp_path: Path, capsys) -> None:
    root = tmp_path / "tree"
    _hostile_tree(root, "system", "cpu\ufffe\uffff")
    report = fixed(run(root, "demo-v6.1"))
    text = _written("junit", report)
    ET.fromstring(text.encode("utf-8"))
    assert "\\ufffe" in text and "\\uffff" in text
    comment = text.splitlines()[1]
    assert comment.startswith("<!-- mlperf-check: ") and "characters that XML 1.0 cannot hold" in comment
    assert "JUnit XML:" in capsys.readouterr().err


def test_prepares_change_list_forges_no_line(tmp_path: Path) -> None:
    """issue 33: a folder named `x\\nremoved        forged-result: forged` printed raw made a
    fake "removed" line in prepare's change list."""
    from checker.commands.prepare import _line
    from checker.commands.prepare_tree import Change

    forged = "x\nremoved        forged-result: forged"
    line = _line(Change("removed", f"closed/A/results/{forged}", "STR001 broken\r\x1b[2K"))
    assert line.splitlines() == [line]
    assert line == "removed        closed/A/results/x\\nremoved        forged-result: forged: STR001 broken\\r\\x1b[2K"
