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
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
import xmlschema
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from checker import escaping
from checker.reporters import csv_report, github_report, json_report, junit_report, sarif_report, text_report
from helpers import EXAMPLE, ROOT, cli, fixed, run, table_row, write_table

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


# --- the one escaping (checker/escaping.py), over any text ---------------------------------
# Every piece a hostile name is made of: the line breaks (with the ones str.splitlines and some
# viewers read), an escape sequence, quotes, what Markdown, HTML, CSV, workflow commands and
# XML read, the noncharacters XML 1.0 cannot hold, a byte that is not UTF-8 (as os.fsdecode
# gives it) and the bidirectional override.
PIECES = [
    *"\n\r\t\x00\x1b\x7f\x85\u2028\u2029\x1c",
    "\x1b[31m",
    "\x1b]8;;http://x\x07",
    *"\"'<>&|`*_[]()#!~\\:,%;",
    "<b>",
    "<!--",
    "<script>",
    "&amp;",
    "%0A",
    "``",
    "\ufffe",
    "\uffff",
    "\udcff",
    "\udc80",
    "\ud800",
    "\u202e",
    "日",
    "x",
    " ",
]
TEXT = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=16).map("".join)
UNSAFE_SEEN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")
MARKDOWN = MarkdownIt("commonmark").enable("table")


class _Page(HTMLParser):
    """What an HTML parser reads of a page: its tags, comments and text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.comments: list[str] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append(tag)
        self._in_script = tag == "script"

    def handle_endtag(self, tag) -> None:
        self._in_script = False

    def handle_comment(self, data) -> None:
        self.comments.append(data)

    def handle_data(self, data) -> None:
        (self.scripts if self._in_script else self.text).append(data)


def _page(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    return page


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(text=TEXT, other=TEXT)
def test_each_escape_keeps_its_format_whole_for_any_text(text: str, other: str) -> None:
    """The invariants of checker/escaping.py, each the one its format needs: no character a
    terminal, XML 1.0 or a UTF-8 file cannot take raw; one line per record; a CSV record per
    line that reads back as written; a workflow command on one line; literal Markdown in a
    paragraph and in a table cell; HTML text with no tag or comment of its own."""
    shown = escaping.visible(text)
    assert not UNSAFE_SEEN.search(shown) and escaping.visible(shown) == shown  # idempotent
    shown.encode("utf-8")
    assert escaping.not_xml(shown) == 0
    escaping.printable(text).encode("utf-8", "strict")
    # text: one line per record
    assert escaping.text_lines([text, other]).split("\n") == [shown, escaping.visible(other), ""]
    assert escaping.one_line(text).splitlines() in ([], [escaping.one_line(text)])
    # CSV: one record per line, each cell as `visible` wrote it
    table = escaping.csv_text([{"a": text, "b": other}, {"a": 1, "b": None}], ["a", "b"])
    rows = list(csv.reader(io.StringIO(table)))
    assert rows == [["a", "b"], [shown, escaping.visible(other)], ["1", ""]]
    assert len(table.splitlines()) == len(rows)
    # a workflow command: one line, no property cut short
    command = f"::error file={escaping.annotation_property(text)}::{escaping.annotation_data(other)}"
    assert command.splitlines() == [command] and command.count("::") == 2 + escaping.annotation_data(other).count("::")
    assert "," not in escaping.annotation_property(text) and ":" not in escaping.annotation_property(text)
    # Markdown: a table of one row keeps its two cells, and no HTML of the text is read
    cell = escaping.markdown_text(text)
    code = escaping.markdown_code(other, cell=True)
    tokens = MARKDOWN.parse(f"| a | b |\n|---|---|\n| x{cell}x | {code} |\n")
    assert [t.type for t in tokens].count("td_open") == 2, (cell, code)
    assert not [t for t in tokens if t.type.startswith("html")]
    for t in tokens:
        for child in t.children or []:
            assert not child.type.startswith("html"), (cell, code)
    inline = [t for t in tokens if t.type == "inline"][-2:]
    assert inline[0].children is not None and "".join(c.content for c in inline[0].children) == f"x{shown}x"
    spans = [c.content for c in inline[1].children or [] if c.type == "code_inline"]
    assert spans == [escaping.visible(other)] or not other, (code, spans)  # the name, whole, as code
    # HTML: the autoescaped value is text, not markup
    from markupsafe import escape

    page = _page(f'<p>{escape(escaping.html_value(text))}</p><a title="{escape(escaping.html_value(other))}">x</a>')
    assert page.tags == ["p", "a"] and page.comments == [] and "".join(page.text) == shown + "x"


# --- every folder level x every command that shows names x every format ---------------------
# A name of every hostile piece a file system takes (255 bytes at most): a newline that would
# forge a "removed" line of prepare and a finding line of check, a carriage return, escape
# sequences, quotes, what Markdown, HTML and XML read, `|` and a backtick, U+FFFE/U+FFFF, a
# byte that is not UTF-8 (the lone surrogate os.fsdecode gives for 0xFF), the line separator.
FORGED = "removed        forged: x"
HOSTILE_NAME = f"n\n{FORGED}\r\x1b[2K\x1b[31m\"'<b>&amp;|`<!--\ufffe\uffff\udcff\u202e, :%0A#*_[x](y)\u2028z"
# A value of 4,000 characters: a JSON field shown in a message, and a path that deep.
LONG_VALUE = (HOSTILE_NAME.replace("\udcff", "\\xff") + "|" * 10) * 60
JUNIT_XSD = ROOT / "tests" / "data" / "junit-10.xsd"
MATRIX_LEVELS = ["division", "submitter", "system", "benchmark", "scenario", "file", "deep", "field"]
RESULT = "closed/MLCheckDemo/results/cpu-1x-numpy/demo-mlp-99"


def _level_tree(root: Path, level: str, name: str = HOSTILE_NAME) -> None:
    """The example with the hostile name at one level: a folder or file renamed, a stray one
    added, a path of more than 4,000 characters, or JSON values of 4,000."""
    shutil.copytree(EXAMPLE, root, symlinks=True)
    sub = root / "closed" / "MLCheckDemo"
    system = sub / "systems" / "cpu-1x-numpy.json"
    if level == "division":
        shutil.copytree(root / "closed", root / name)
    elif level == "submitter":
        os.rename(sub, root / "closed" / name)
        system = root / "closed" / name / "systems" / "cpu-1x-numpy.json"
        system.write_text(system.read_text().replace('"MLCheckDemo"', json.dumps(name)))
    elif level == "system":
        os.rename(sub / "results" / "cpu-1x-numpy", sub / "results" / name)
        os.rename(sub / "systems" / "cpu-1x-numpy.json", sub / "systems" / f"{name}.json")
    elif level == "benchmark":
        os.rename(root / RESULT, sub / "results" / "cpu-1x-numpy" / name)
    elif level == "scenario":
        os.rename(root / RESULT / "Offline", root / RESULT / name)
    elif level == "file":  # a backup copy: STR012 names it
        (root / RESULT / "Offline" / f"{name}.bak").write_text("x")
    elif level == "deep":
        folder = root / RESULT / "Offline"
        for _ in range(14):  # 14 names of 250 bytes: as deep as Linux's 4,096 bytes a path let it be
            folder = folder / (name + "d" * (250 - len(os.fsencode(name))))
        folder.mkdir(parents=True)
        (folder / f"{name}.bak").write_text("x")
        assert len(os.fsencode(folder.relative_to(root))) > 3500
    elif level == "field":
        data = json.loads(system.read_text())
        data.update(system_name=LONG_VALUE, host_processor_model_name=LONG_VALUE, status=name)
        system.write_text(json.dumps(data))  # ensure_ascii: the lone surrogate as \\udcff


def _level_table(path: Path, level: str) -> Path:
    """A results table whose rows carry the hostile name where the level puts it: in the
    Location at the level's place, and in the column that names it."""
    name = HOSTILE_NAME.replace("\udcff", "\\xff")  # a JSON table holds no lone surrogate
    parts = {
        "division": "closed",
        "submitter": "{s}",
        "system": "s1",
        "benchmark": "llama2-70b-99",
        "scenario": "Offline",
    }
    rows = []
    for index, (submitter, result) in enumerate((("A", 1000.0), ("B", 1010.0), ("C", 900.0))):
        columns = {"Submitter": submitter, "Performance_Result": result}
        where = dict(parts, submitter=submitter)
        if level in where:
            where[level] = f"{name}{index}" if level == "submitter" else name
        if level == "submitter":
            columns["Submitter"] = where["submitter"]
        elif level == "system":
            columns.update(System=name, Platform=name)
        elif level == "field":
            columns.update(Accelerator=LONG_VALUE, Processor=LONG_VALUE)
        tail = f"/{name}" if level == "file" else f"/{name}" * 60 if level == "deep" else ""  # 4,000 characters
        location = "./{division}/{submitter}/results/{system}/{benchmark}/{scenario}".format(**where) + tail
        rows.append(table_row(Location=location, **columns))
    return write_table(path, rows)


def _honest_text(out: str, what: str, tails: tuple[str, ...] = (FORGED,)) -> list[str]:
    """The invariants of every output: no character a terminal, XML or UTF-8 cannot take raw
    (a line break only as a record's end), and no line that the name's tail starts."""
    assert not UNSAFE_SEEN.search(out.replace("\n", "")), (what, UNSAFE_SEEN.findall(out))
    out.encode("utf-8")
    lines = out.splitlines()
    assert len(lines) == out.count("\n") + (not out.endswith("\n") and bool(out)), what  # no other line break
    assert not [line for line in lines if tails and line.lstrip().startswith(tails)], what
    return lines


def _honest(form: str, out: str, what: str, tails: tuple[str, ...] = (FORGED,)) -> Any:
    """`out` read by a real parser of its format, whole: what it read."""
    lines = _honest_text(out, what, tails)
    if form in ("json", "sarif"):
        return json.loads(out)
    if form == "csv":
        rows = list(csv.reader(io.StringIO(out)))
        assert len(rows) == len(lines) and len({len(row) for row in rows}) == 1, what  # a record per line
        return rows
    if form == "junit":
        xmlschema.XMLSchema(str(JUNIT_XSD)).validate(out)
        return ET.fromstring(out.encode("utf-8"))
    if form in ("markdown", "summary"):
        tokens = MARKDOWN.parse(out)
        inline = [c for t in tokens for c in t.children or []]
        assert {c.content for c in inline if c.type.startswith("html")} <= {"<br>"}, what  # ours, none of a name
        tables: list[list[int]] = []  # per table, the cells of each row
        for token in tokens:
            if token.type == "table_open":
                tables.append([])
            elif token.type == "tr_open":
                tables[-1].append(0)
            elif token.type in ("td_open", "th_open"):
                tables[-1][-1] += 1
        assert all(len(set(rows)) == 1 for rows in tables), (what, tables)  # every row of a table its cells
        return tokens
    if form == "html":
        page = _page(out)
        assert "b" not in page.tags and "!--" not in page.tags, what
        assert not [c for c in page.comments if FORGED in c], what
        assert not [s for s in page.scripts if FORGED in s], what  # no name inside a script
        return page
    if form == "github":
        assert all(line.startswith(("::error ", "::warning ", "::notice ")) or line[0].isdigit() for line in lines)
        return lines
    return lines


def _check_records(outputs: dict[str, str], summary: str) -> None:
    """check's formats, each one record per finding: as many SARIF results and concise lines
    as distinct findings, a CSV row per finding (and per result without one), a test case per
    result (and one per submitter), annotations of distinct findings only."""
    document = json.loads(outputs["json"])
    findings = document["findings"]
    distinct = {(f["code"], f["path"], f.get("pointer"), f["message"]) for f in findings}
    assert len(json.loads(outputs["sarif"])["runs"][0]["results"]) == len(distinct)
    assert len(outputs["concise"].splitlines()) == len(distinct) + 1  # and the summary line
    with_findings = {f.get("location") for f in findings}
    bare = [r for r in document["results"] if r["location"] not in with_findings]
    assert len(list(csv.DictReader(io.StringIO(outputs["csv"])))) == len(findings) + len(bare)
    suites = ET.fromstring(outputs["junit"].encode("utf-8"))
    submitters = {"/".join(r["location"].split("/")[:2]) for r in document["results"]}
    submitters |= {"/".join(f["path"].split("/")[:2]) for f in findings if not f.get("location")}
    assert len(suites.findall(".//testcase")) == len(document["results"]) + len(submitters)
    annotated = [line for line in outputs["github"].splitlines() if line.startswith("::")]
    assert len(annotated) == min(len(distinct), len(set(annotated)))
    tokens = MARKDOWN.parse(summary)
    assert sum(t.type == "tr_open" for t in tokens) == len(document["results"]) + len(
        submitters & {"/".join(r["location"].split("/")[:2]) for r in document["results"]}
    )  # a header row per table


@pytest.mark.parametrize(
    "level",
    # two levels in the fast tier (a folder name that makes results invalid, a path of 3,500
    # bytes); every level in the slow one: about 2 s each, in this process
    [
        level if level in ("submitter", "deep") else pytest.param(level, marks=pytest.mark.slow)
        for level in MATRIX_LEVELS
    ],
)
def test_a_hostile_name_at_every_level_in_every_command_and_format(tmp_path: Path, level: str) -> None:
    """Issue 33, item 1's property: the hostile name at each level of a tree (or of a table's
    rows), through every command that shows names (check, table, provenance, prepare's change
    list, compare, claims, followup, reproduce, report, explain), in every format each writes:
    parsed by a real parser of the format, one record per finding or row, no line that is not
    ours."""
    root = tmp_path / "tree"
    _level_tree(root, level)
    summary_file = tmp_path / "summary.md"
    outputs: dict[str, str] = {}
    for form in ("text", "json", "csv", "github", "sarif", "junit"):
        env = {"GITHUB_STEP_SUMMARY": str(summary_file)} if form == "github" else {}
        done = cli("check", str(root), "-r", "demo-v6.1", "-f", form, "-j", "1", "--no-progress", env=env)
        assert done.returncode in (0, 1), (form, done.stderr)
        _honest_text(done.stderr, f"check {form} stderr")
        outputs[form] = done.stdout
        _honest(form, done.stdout, f"check {form}")
    for view in ("concise", "full"):
        done = cli("check", str(root), "-r", "demo-v6.1", "--output-format", view, "-j", "1", "--show-valid")
        outputs[view] = done.stdout
        _honest("text", done.stdout, f"check {view}")
    summary = summary_file.read_text()
    _honest("summary", summary, "job summary")
    _check_records(outputs, summary)
    runs = [
        *[(f"table {f}", f, ["table", str(root), "-r", "demo-v6.1", "-f", f, "-j", "1"]) for f in ("json", "csv")],
        *[
            (f"provenance {f}", f, ["provenance", str(root), "-r", "demo-v6.1", "-f", f])
            for f in ("text", "json", "csv")
        ],
        *[
            (
                f"prepare {f}",
                f,
                [
                    "prepare",
                    str(root),
                    "-r",
                    "demo-v6.1",
                    "--dry-run",
                    "-f",
                    f,
                    "-j",
                    "1",
                    "-o",
                    str(tmp_path / f"dest-{f}"),
                ],
            )
            for f in ("text", "json")
        ],
    ]
    table = _level_table(tmp_path / "table.json", level)
    claims = tmp_path / "claims.yaml"
    yaml_name = (
        HOSTILE_NAME.replace("\udcff", "\\xff").replace("\ufffe", "").replace("\uffff", "").replace("\x1b", "^[")
    )
    claims.write_text(
        yaml.safe_dump(
            {
                "claims": [
                    {
                        "id": "c1",
                        "kind": "spread",
                        "expect": 0.2,
                        "text": yaml_name,
                        "in": {"round": "v6.0", "model": "llama2-70b-99"},
                    }
                ]
            }
        )
    )
    runs += [(f"compare {f}", f, ["compare", str(table), "-f", f]) for f in ("text", "json", "csv", "html")]
    runs += [
        (f"claims {f}", f, ["claims", str(claims), "--table", f"v6.0={table}", "-f", f])
        for f in ("text", "json", "markdown")
    ]
    previous, current = tmp_path / "previous.json", tmp_path / "current.json"
    rows = json.loads(table.read_text())
    write_table(previous, [dict(row, Availability="preview", Model="llama3.1-8b") for row in rows])
    write_table(current, [dict(row, Model="llama3.1-8b", version="v6.1", Performance_Result=900.0) for row in rows])
    followup = ["followup", "--previous", str(previous), "--current", str(current)]
    followup += ["--previous-round", "v6.0", "--current-round", "v6.1"]
    runs += [(f"followup {f}", f, [*followup, "-f", f]) for f in ("text", "json", "csv")]
    results = json.loads(outputs["json"])["results"]
    if results:  # a reproduction of the example's result by the hostile tree's first
        original = EXAMPLE / RESULT / "Offline"
        runs += [
            (f"reproduce {f}", f, ["reproduce", str(original), str(root / results[0]["location"]), "-f", f])
            for f in ("text", "json")
        ]
    read = {}
    for what, form, args in runs:
        done = cli(*args)
        assert done.returncode in (0, 1), (what, done.stderr)
        _honest_text(done.stderr, f"{what} stderr")
        read[what] = _honest(form, done.stdout, what)
    report = tmp_path / "audit.html"
    done = cli("report", str(root), "-r", "demo-v6.1", "-o", str(report), "-j", "1")
    assert done.returncode in (0, 1), done.stderr
    _honest("html", report.read_text(), "report html")
    # one record per row: compare's CSV a row per member of the JSON's groups, claims one row
    members = sum(len(g["members"]) for g in read["compare json"]["groups"])
    assert len(read["compare csv"]) == members + 1 and members == 3
    assert len(read["claims json"]["claims"]) == 1
    assert len(read["followup csv"]) == len(read["followup json"]["results"]) + 1 == 4
    table_rows = read["table json"]
    assert len(read["table csv"]) == len(table_rows) + 1
    prepared = read["prepare json"]
    assert len(read["prepare text"]) == len(prepared["changes"]) + len(prepared.get("findings", [])) + 1
    done = cli("explain", HOSTILE_NAME)
    assert done.returncode == 2 and len(_honest_text(done.stderr, "explain")) == 1


@pytest.mark.slow
def test_a_hostile_name_through_real_processes_and_pipes(tmp_path: Path) -> None:
    """The same through the real interpreter's stdout and stderr (bytes, strict UTF-8): the
    outputs of the commands that write text and data, for a hostile submitter folder."""
    import subprocess
    import sys

    root = tmp_path / "tree"
    _level_tree(root, "submitter")
    table = _level_table(tmp_path / "table.json", "submitter")
    command = [sys.executable, "-m", "checker"]
    runs = [
        ("text", ["check", str(root), "-r", "demo-v6.1", "-j", "1"]),
        ("json", ["check", str(root), "-r", "demo-v6.1", "-j", "1", "-f", "json"]),
        ("junit", ["check", str(root), "-r", "demo-v6.1", "-j", "1", "-f", "junit"]),
        ("text", ["provenance", str(root), "-r", "demo-v6.1"]),
        ("text", ["prepare", str(root), "-r", "demo-v6.1", "--dry-run", "-j", "1", "-o", str(tmp_path / "dest")]),
        ("text", ["compare", str(table)]),
        ("csv", ["compare", str(table), "-f", "csv"]),
    ]
    for form, args in runs:
        done = subprocess.run([*command, *args], capture_output=True, env=dict(os.environ, NO_COLOR="1"), timeout=120)
        assert done.returncode in (0, 1), (args, done.stderr)
        _honest(form, done.stdout.decode("utf-8", "strict"), " ".join(args[:1] + [form]))
        _honest_text(done.stderr.decode("utf-8", "strict"), " ".join(args[:1] + ["stderr"]))


@pytest.mark.slow
def test_the_audit_page_of_a_hostile_name_in_chromium(tmp_path: Path, chromium: Any) -> None:
    """The audit page of a hostile submitter folder in the real Chromium: no element of the
    name's `<b>`, the name shown as text where the result is named, and the submitter filter
    finds its rows by the name as the page wrote it."""
    root = tmp_path / "tree"
    _level_tree(root, "division")  # a hostile division folder: its submitter's results are findings
    os.rename(root / "closed" / "MLCheckDemo", root / "closed" / HOSTILE_NAME)  # and an invalid submitter
    page_file = tmp_path / "audit.html"
    done = cli("report", str(root), "-r", "demo-v6.1", "-o", str(page_file), "-j", "1")
    assert done.returncode == 1, done.stderr
    shown = escaping.visible(HOSTILE_NAME)
    page = chromium.new_page()
    try:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(page_file.as_uri())
        assert page.evaluate("document.querySelectorAll('body b').length") == 0
        assert page.evaluate("document.querySelectorAll('script').length") == 1  # the page's own
        titles = page.evaluate(
            "Array.from(document.querySelectorAll('#invalid-list > article h3')).map(h => h.textContent)"
        )
        assert titles and all(title.startswith(f"closed/{shown}/") for title in titles), titles
        page.select_option("select[name=submitter]", shown)
        visible = page.evaluate(
            "Array.from(document.querySelectorAll('#invalid-list > article')).filter(a => !a.hidden).length"
        )
        assert visible == len(titles)
        assert errors == []
    finally:
        page.close()


# Names a file system takes: no `/` or NUL, not `.` or `..`, at most 255 bytes.
FOLDER_NAMES = (
    st.lists(
        st.sampled_from([p for p in PIECES if p not in ("\x00", "\ud800") and "/" not in p]), min_size=1, max_size=12
    )
    .map(lambda parts: "n" + "".join(parts))
    .filter(lambda name: len(os.fsencode(name)) <= 250)  # and ".bak" for the file level
)


@pytest.mark.slow
@pytest.mark.parametrize("level", ["division", "submitter", "system", "benchmark", "scenario", "file"])
@settings(max_examples=5, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(name=FOLDER_NAMES)
def test_any_hostile_folder_name_in_every_format_of_check(tmp_path_factory, level: str, name: str) -> None:
    """Generated names at each folder level, through check's writers in this process: every
    format parsed whole, one record per finding, and no part of the name after a line break
    starts a line: the name is shown whole, escaped, on one line of the text and CSV."""
    root = tmp_path_factory.mktemp("hostile") / "tree"
    _level_tree(root, level, name)
    report = fixed(run(root, "demo-v6.1"))
    outputs = {form: _written(form, report) for form in WRITERS}
    for form, text in outputs.items():
        _honest(form, text, f"{level} {form}", tails=())
    distinct = {(f.code, f.path, f.pointer, f.message) for f in report.findings if not f.waived}
    assert len(json.loads(outputs["sarif"])["runs"][0]["results"]) == len(distinct)
    bare = [r for r in report.results if r.location not in {f.location for f in report.findings}]
    assert len(list(csv.DictReader(io.StringIO(outputs["csv"])))) == len(report.findings) + len(bare)
    document = json.loads(outputs["json"])
    said = [f["path"] for f in document["findings"]] + [r["location"] for r in document["results"]]
    said += [f["message"] for f in document["findings"]]
    # the name, read back as written (a folder beside the divisions is no part of the check)
    assert any(escaping.printable(name) in text for text in said) or level == "division"
    if level != "division":
        listed = io.StringIO()
        text_report.write(report, listed, color="never", show_valid=True)  # every result named
        _honest("text", listed.getvalue(), f"{level} text --show-valid", tails=())
        assert escaping.visible(name) in listed.getvalue()
        assert escaping.visible(name).replace('"', '""') in outputs["csv"]


def test_not_xml_counts_every_character_outside_xmls_char_production() -> None:
    """Every code point, against XML 1.0's Char production as the specification writes it."""

    def allowed(code: int) -> bool:
        return code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000

    text = "".join(map(chr, range(0x110000)))  # each code point at its own index
    outside = [code for code in range(0x110000) if not allowed(code)]
    assert [found.start() for found in escaping._NOT_XML.finditer(text)] == outside
    assert escaping.not_xml(text) == len(outside) == 2079
