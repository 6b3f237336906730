"""The audit page (`mlperf-check report`) and `compare --format html`.

The real v5.1 slice is copied once per module, checked (the baseline), corrupted in four ways
(a missing log, an accuracy below its gate, a system description, a submitter folder) with
one warning fixed, and reported on against the baseline. The HTML is parsed here for exact
contents, then rendered in headless Chromium (Debian's, driven by Playwright) for the
filters, the baseline section and a screenshot; without a Chromium those tests are skipped
and say why.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from test_real import INVALID
from typer.testing import CliRunner

from checker.analysis.compare import Options, comparison
from checker.analysis.table import INTERACTIVITY
from checker.cli import app
from checker.commands import report as audit
from checker.commands.table import publish
from checker.registry import RULES
from checker.reporters import json_report
from helpers import EXAMPLE, OFFLINE, REAL, ROOT, SUBMISSION, children, real_data, run, tree_digest

runner = CliRunner()

AMD = "closed/AMD/results/8xMI300X_2xEPYC_9575F/mixtral-8x7b/Offline"
INTEL = "closed/Intel/results/1-node-2S-GNR_128C/whisper/Offline"
REDHAT = "closed/RedHat/results/IBM_Cloud_gx3-48x240x2l40s_vLLM/llama3.1-8b"
STAGE = "closed/The_Stage/results/h100_x8/stable-diffusion-xl"
REDHAT_SYSTEM = "closed/RedHat/systems/IBM_Cloud_gx3-48x240x2l40s_vLLM.json"
XE8640 = "closed/RedHat/systems/XE8640_4xH100_vLLM.json"
# What the corruption makes invalid, and the one error (code, where it is) that does it.
NEWLY_INVALID = {
    AMD: ("FIL001", "the result"),
    INTEL: ("ACC002", "the result"),
    f"{REDHAT}/Offline": ("AVL001", "its system description"),
    f"{REDHAT}/Server": ("AVL001", "its system description"),
    f"{STAGE}/offline": ("STR006", "its submitter folder"),
    f"{STAGE}/server": ("STR006", "its submitter folder"),
}
NEW_FINDINGS = [  # in the report's order: system and submitter findings first
    ("AVL001", REDHAT_SYSTEM),
    ("STR007", "closed/The_Stage/documentation"),
    ("STR006", "closed/The_Stage/documentation/calibration.md"),
    ("STR007", f"{STAGE}/offline/accuracy/notes"),
    ("FIL001", f"{AMD}/performance/run_1/mlperf_log_detail.txt"),
    ("ACC002", f"{INTEL}/accuracy/accuracy.txt"),
]
GONE_FINDINGS = [("SYS010", XE8640)]


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{path}: {old!r} is not there once; the corruption is stale"
    path.write_text(text.replace(old, new))


def corrupt(tree: Path) -> None:
    (tree / AMD / "performance/run_1/mlperf_log_detail.txt").unlink()
    _replace(tree / INTEL / "accuracy/accuracy.txt", "accuracy=97.88576267638467%", "accuracy=90.0%")
    _replace(
        tree / REDHAT_SYSTEM,
        '"status"                            : "available"',
        '"status"                            : "someday"',
    )
    (tree / "closed/The_Stage/documentation/calibration.md").unlink()  # and documentation/ is empty
    (tree / STAGE / "offline/accuracy/notes").mkdir()  # a warning about that result alone
    # And one warning fixed: the name says 4 accelerators, now the description does too.
    _replace(tree / XE8640, '"accelerators_per_node"             : "1"', '"accelerators_per_node"             : "4"')


# --- reading the HTML without a browser -----------------------------------------------------
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    def __init__(self, tag: str, attrs: dict[str, str | None], parent: Node | None) -> None:
        self.tag, self.attrs, self.parent, self.children = tag, attrs, parent, []

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self) -> Iterator[Node]:
        for child in self.children:
            if isinstance(child, Node):
                yield child
                yield from child.iter()

    def all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[Node]:
        return [
            n
            for n in self.iter()
            if (tag is None or n.tag == tag)
            and (cls is None or cls in (n.attrs.get("class") or "").split())
            and all(n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]

    def one(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> Node:
        found = self.all(tag, cls, **attrs)
        assert len(found) == 1, (tag, cls, attrs, len(found))
        return found[0]

    def by_id(self, name: str) -> Node:
        return self.one(id=name)


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs), self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_endtag(self, tag: str) -> None:
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent
        assert node is not self.root, f"</{tag}> closes nothing"
        self.current = node.parent

    def handle_data(self, data: str) -> None:
        self.current.children.append(data)


def parse(html: str) -> Node:
    parser = _Parser()
    parser.feed(html)
    parser.close()
    assert parser.current is parser.root, f"<{parser.current.tag}> is never closed"
    return parser.root


def cells(row: Node) -> list[str]:
    return [" ".join(td.text().split()) for td in row.all("td")]


def body_rows(table: Node) -> list[Node]:
    return table.one("tbody").all("tr")


def counts(container: Node) -> dict[str, int]:
    return {card.attrs["data-count"]: int(card.one("span", "n").text()) for card in container.all(cls="card")}


def findings_of(table: Node) -> list[tuple[str, str]]:
    return [(row.one("code", "code").text(), row.one("td", "file").text()) for row in body_rows(table)]


# --- the real slice, corrupted ----------------------------------------------------------------
@pytest.fixture(scope="module")
def v51(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    real_data(REAL)
    base = tmp_path_factory.mktemp("v51")
    tree = base / "v5.1"
    shutil.copytree(REAL, tree, symlinks=True)
    clean = run(tree, "v5.1", jobs=2)
    baseline = base / "baseline.json"
    with open(baseline, "w", encoding="utf-8") as handle:
        json_report.write(clean, handle)
    corrupt(tree)
    before = tree_digest(tree)
    page = base / "audit.html"
    done = runner.invoke(app, ["report", str(tree), "--baseline", str(baseline), "-o", str(page), "-j", "2"])
    assert tree_digest(tree) == before, "report wrote into the checked tree"
    bad = run(tree, "v5.1", jobs=2, collect=audit.collect)
    return SimpleNamespace(
        tree=tree,
        clean=clean,
        bad=bad,
        baseline=baseline,
        page=page,
        done=done,
        html=page.read_text(encoding="utf-8"),
        dom=parse(page.read_text(encoding="utf-8")),
    )


@pytest.mark.real
@pytest.mark.full
def test_exit_code_and_the_line_on_stderr(v51: SimpleNamespace) -> None:
    assert v51.done.exit_code == 1, v51.done.output
    assert v51.done.stderr.splitlines()[-1] == (
        f"{v51.page}: 137 results, 12 invalid; since {v51.baseline}: 6 became invalid, 0 became valid"
    )
    assert not [p for p in v51.page.parent.iterdir() if p.name.startswith(".audit.html")]  # no temporary left


@pytest.mark.real
@pytest.mark.full
def test_the_top_counts_and_the_table_per_submitter(v51: SimpleNamespace) -> None:
    dom = v51.dom
    assert dom.one("h1").text() == "Audit of round v5.1"
    assert counts(dom.by_id("counts")) == {
        "results": 137,
        "valid": 125,
        "invalid": 12,
        "error": 15,
        "warning": 13,  # 2 FIL020 (Intel, Lenovo: a key given twice in a measurements file)
        "note": 22,  # PRF017: user.conf (16) and mlperf.conf (6) settings the runs did not use
    }
    rows = [cells(r) for r in body_rows(dom.by_id("submitters"))]
    assert rows == [  # division, submitter, results, valid, invalid, errors, warnings, notes
        ["closed", "AMD", "20", "19", "1", "1", "3", "3"],
        ["closed", "CoreWeave", "2", "2", "0", "0", "0", "1"],
        ["closed", "Intel", "18", "16", "2", "3", "1", "0"],
        ["closed", "Lenovo", "34", "30", "4", "7", "5", "5"],
        ["closed", "NVIDIA", "33", "32", "1", "2", "0", "4"],
        ["closed", "RedHat", "4", "2", "2", "1", "0", "4"],
        ["closed", "The_Stage", "2", "0", "2", "1", "2", "3"],
        ["open", "AMD", "4", "4", "0", "0", "0", "2"],
        ["open", "Krai", "20", "20", "0", "0", "2", "0"],
    ]
    assert dom.by_id("checked").text().endswith(" UTC")


@pytest.mark.real
@pytest.mark.full
def test_one_entry_per_invalid_result_with_every_error_that_invalidates_it(v51: SimpleNamespace) -> None:
    entries = {e.one("h3").text(): e for e in v51.dom.by_id("invalid-list").all("article", "entry")}
    assert sorted(entries) == sorted(set(INVALID["v5.1"]) | set(NEWLY_INVALID))
    for location, (code, scope) in NEWLY_INVALID.items():
        table = entries[location].all("table")[0]
        assert [(r.one("code").text(), cells(r)[2]) for r in body_rows(table)] == [(code, scope)], location
        assert cells(body_rows(table)[0])[-1] == RULES[code].sections["Fix"].strip()
    for location, codes in INVALID["v5.1"].items():  # the published ones keep their own errors
        table = entries[location].all("table")[0]
        assert {r.one("code").text() for r in body_rows(table)} == set(codes.split())
    redhat = body_rows(entries[f"{REDHAT}/Offline"].all("table")[0])[0]
    assert cells(redhat)[3:6] == [
        "`status` is `someday`: the availability category: available, preview or rdi; "
        "no close name; choose `available`, `preview` or `rdi`",
        REDHAT_SYSTEM,
        "/status",
    ]
    # Warnings and notes collapsed under their result: the empty folder in The_Stage's offline
    # result and two mlperf.conf settings its run did not use (its empty documentation/ folder
    # is about no result: listed with all findings only).
    stage = entries[f"{STAGE}/offline"]
    details = stage.one("details", "others")
    assert details.one("summary").text() == "1 warning, 2 notes"
    conf = STAGE.replace("/results/", "/measurements/") + "/offline/mlperf.conf"  # its Offline defaults, unused
    assert findings_of(details.one("table")) == [
        ("PRF017", conf),
        ("PRF017", conf),
        ("STR007", f"{STAGE}/offline/accuracy/notes"),
    ]
    assert not entries[AMD].all("details")
    server = entries[f"{STAGE}/server"].one("details", "others")
    assert details.one("summary").text() != server.one("summary").text() == "1 note"
    assert findings_of(server.one("table")) == [("PRF017", conf.replace("/offline/", "/server/"))]
    assert entries[AMD].attrs["data-code"] == "FIL001" and entries[AMD].attrs["data-submitter"] == "AMD"
    assert entries[f"{STAGE}/server"].attrs["data-severity"] == "error note"
    assert entries[f"{STAGE}/offline"].attrs["data-severity"] == "error note warning"


@pytest.mark.real
@pytest.mark.full
def test_the_baseline_section_lists_the_changes(v51: SimpleNamespace) -> None:
    section = v51.dom.by_id("baseline")
    assert counts(section.by_id("changes")) == {
        "became-invalid": 6,
        "became-valid": 0,
        "new-results": 0,
        "gone-results": 0,
        "new-findings": 6,
        "gone-findings": 1,
        "unchanged-findings": 44,
    }
    became = [cells(r) for r in body_rows(section.by_id("became-invalid"))]
    assert [row[0] for row in became] == sorted(NEWLY_INVALID)
    assert [(row[6], row[7]) for row in became] == [("invalid", NEWLY_INVALID[loc][0]) for loc in sorted(NEWLY_INVALID)]
    links = [a.attrs["href"] for a in section.by_id("became-invalid").all("a")]
    assert all(v51.dom.by_id(link[1:]).tag == "article" for link in links) and len(links) == 6
    for empty in ("became-valid", "new-results", "gone-results"):
        assert section.by_id(empty).text() == "None."
    assert findings_of(section.by_id("new-findings")) == NEW_FINDINGS
    assert findings_of(section.by_id("gone-findings")) == GONE_FINDINGS
    assert len(body_rows(section.by_id("unchanged-findings"))) == 44
    assert section.by_id("baseline-name").text() == str(v51.baseline)


@pytest.mark.real
@pytest.mark.full
def test_the_other_way_round_the_results_became_valid(v51: SimpleNamespace) -> None:
    """The corrupted check as the baseline of the clean one."""
    doc = json.loads(json.dumps(json_report.document(v51.bad)))
    section = parse(audit.page(v51.clean, doc, "bad.json")).by_id("baseline")
    assert counts(section.by_id("changes")) == {
        "became-invalid": 0,
        "became-valid": 6,
        "new-results": 0,
        "gone-results": 0,
        "new-findings": 1,
        "gone-findings": 6,
        "unchanged-findings": 44,
    }
    assert [cells(r)[0] for r in body_rows(section.by_id("became-valid"))] == sorted(NEWLY_INVALID)
    assert findings_of(section.by_id("new-findings")) == GONE_FINDINGS
    assert findings_of(section.by_id("gone-findings")) == NEW_FINDINGS


@pytest.mark.real
@pytest.mark.full
def test_provenance_section(v51: SimpleNamespace) -> None:
    section = v51.dom.by_id("provenance")
    verdicts = section.by_id("verdicts")
    assert [th.text() for th in verdicts.all("th")] == ["descends", "predates", "unknown-commit", "no-git-rev"]
    assert cells(body_rows(verdicts)[0]) == ["121", "6", "5", "0"]  # the AMD result without its log: not judged
    assert "132 results judged, 5 without a loadgen_version" in " ".join(
        section.by_id("provenance-summary").text().split()
    )
    rows = [cells(r) for r in body_rows(section.by_id("provenance-list"))]
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
        (
            "closed/AMD/results/8xMI325x_2xEPYC-9655/stable-diffusion-xl/Offline",
            "5.0.24",
            "547aec56ae",
            "unknown-commit",
        )
    ] + [
        (f"closed/{system}/{benchmark}/{scenario}", "4.1", "379ee5345a", "predates")
        for system in ("Intel/results/1-node-2S-GNR_128C", "Lenovo/results/ThinkSystem_SR650_V4_GNR_86C")
        for benchmark in (("dlrm-v2-99.9", "dlrm-v2-99") if system.startswith("Intel") else ("dlrm-v2-99.9",))
        for scenario in ("Offline", "Server")
    ] + [
        (f"closed/RedHat/results/{system}/llama3.1-8b/{scenario}", "5.1.0", rev, "unknown-commit")
        for system, rev in (("IBM_Cloud_gx3-48x240x2l40s_vLLM", "ff0eb0aaeb"), ("XE8640_4xH100_vLLM", "a61df8bff1"))
        for scenario in ("Offline", "Server")
    ]


@pytest.mark.real
@pytest.mark.full
def test_variance_section_with_the_plot(v51: SimpleNamespace) -> None:
    section = v51.dom.by_id("variance")
    rows = publish([r.collected["row"] for r in v51.bad.results if r.valid], None, None, "v5.1", with_description=True)
    groups = comparison(rows, Options()).groups
    table = section.one("table", "groups")
    assert len(body_rows(table)) == len(groups) == 10
    whisper = [cells(r) for r in body_rows(table) if cells(r)[0] == "v5.1 whisper Offline, 8x NVIDIA B200-SXM-180GB"]
    assert whisper == [
        [
            "v5.1 whisper Offline, 8x NVIDIA B200-SXM-180GB",
            "median",
            "44365.8",
            "Samples/s",
            "3",
            "2",
            "1.2%",
            "1.5%",
            "2.2%",
            "1.5%",
            "within 4%",
            "0",
            "0",
        ]
    ]
    members = section.all("table", "members")
    assert sum(len(body_rows(t)) for t in members) == groups["n"].sum()
    images = section.all("img", "plot")
    assert len(images) == 1
    uri = images[0].attrs["src"]
    assert uri.startswith("data:image/svg+xml;base64,")  # drawn faster than a PNG, and sharp at any zoom
    assert base64.b64decode(uri.split(",", 1)[1]).startswith(b"<?xml")


@pytest.mark.real
@pytest.mark.full
def test_the_page_is_self_contained(v51: SimpleNamespace) -> None:
    dom = v51.dom
    assert not dom.all("link") and all("src" not in s.attrs for s in dom.all("script"))
    assert all(img.attrs["src"].startswith("data:") for img in dom.all("img"))
    assert [n.attrs.get("href", "")[:1] for n in dom.all("a")] == ["#"] * len(dom.all("a"))
    assert "hidden" in dom.by_id("filters").attrs  # shown by the script; without it, nothing is hidden
    assert not [n for n in dom.iter() if "hidden" in n.attrs and n.attrs.get("id") != "filters"]


@pytest.mark.real
@pytest.mark.full
@pytest.mark.parametrize("child", [True, False])
def test_the_variance_computed_aside_is_the_one_computed_here(v51: SimpleNamespace, child: bool, monkeypatch) -> None:
    """report computes the variance (compare, on pandas) in one child process started before
    the check, so its own process imports no pandas; the section is the one computed in this
    process. Without a child process (a sandbox without semaphores) it is computed here."""
    if not child:
        monkeypatch.setattr("concurrent.futures.ProcessPoolExecutor.__init__", _no_semaphores)
    here = audit.variance(v51.bad)
    with audit.Aside() as aside:
        assert (aside._pool is not None) == child
        assert aside.variance(v51.bad)() == here
    assert (len(here["plots"]), len(here["interactivity"]), len(here["groups"])) == (1, 1, 10)


@pytest.mark.real
@pytest.mark.full
@pytest.mark.parametrize("with_baseline", [True, False])
def test_the_page_rendered_around_the_variance_is_the_page_rendered_whole(
    v51: SimpleNamespace, with_baseline: bool
) -> None:
    """With a child, the page is rendered while the child computes the variance, with a
    marker in place of the section's body (templates/_variance.html.j2), which then goes in:
    the same bytes as the page rendered in one piece, and no marker is left."""
    import datetime

    checked = datetime.datetime(2026, 7, 1, 12, 0, 0, tzinfo=datetime.UTC)
    baseline = audit.load_baseline(str(v51.baseline)) if with_baseline else None
    whole = audit.audit(v51.bad, str(v51.tree), baseline, "baseline.json", checked)
    with audit.Aside() as aside:
        around = audit.audit(v51.bad, str(v51.tree), baseline, "baseline.json", checked, aside=aside)
    assert around == whole
    assert "the variance section," not in around and whole.count('<section id="variance">') == 1
    assert "No comparable group" not in whole and whole.count("<svg") + whole.count("data:image/svg") >= 1


@pytest.mark.real
@pytest.mark.full
def test_a_page_that_places_no_marker_is_rendered_whole(v51: SimpleNamespace, monkeypatch) -> None:
    """Were the page's template to leave the marker out, the page is rendered again, whole,
    with the variance the child computed: the same bytes, never a section put at the end."""
    import datetime

    checked = datetime.datetime(2026, 7, 1, 12, 0, 0, tzinfo=datetime.UTC)
    whole = audit.audit(v51.bad, str(v51.tree), None, "", checked)
    real = audit.page

    def unmarked(*args: Any, **kwargs: Any) -> str:
        return real(*args[:6], **kwargs)  # every argument but the marker

    monkeypatch.setattr(audit, "page", unmarked)
    with audit.Aside() as aside:
        assert audit.audit(v51.bad, str(v51.tree), None, "", checked, aside=aside) == whole


def _no_semaphores(*args: Any, **kwargs: Any) -> None:
    raise OSError(38, "Function not implemented")


@pytest.mark.real
@pytest.mark.full
def test_throughput_against_interactivity_where_the_logs_hold_tpot(v51: SimpleNamespace) -> None:
    """The token groups whose runs measured TPOT (Server, Interactive) are a chart each, one
    series per comparable group; the section defines the figure."""
    section = v51.dom.by_id("variance")
    assert section.by_id("interactivity").text() == "Throughput and interactivity"
    assert INTERACTIVITY in v51.html.replace("&#39;", "'")
    charts = section.all("img", "chart")
    assert len(charts) == 1
    svg = base64.b64decode(charts[0].attrs["src"].split(",", 1)[1]).decode()
    titles = re.findall(r'<text class="title"[^>]*><tspan[^>]*>([^<]*)</tspan>', svg)
    assert titles == [
        "v5.1 llama2-70b-99 Server (Tokens/s)",
        "v5.1 llama2-70b-99.9 Server (Tokens/s)",
        "v5.1 llama3.1-405b Interactive (Tokens/s)",
        "v5.1 llama3.1-8b Server (Tokens/s)",
    ]
    assert svg.count('class="point"') == 8


# --- in a real browser ----------------------------------------------------------------------


SHOWN = """selector => Array.from(document.querySelectorAll(selector))
    .filter(element => element.offsetParent !== null).map(element => element.textContent.trim())"""


def _open(chromium: Any, page_file: Path, **options: Any) -> tuple[Any, Any, list[str]]:
    context = chromium.new_context(viewport={"width": 1400, "height": 900}, **options)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(page_file.as_uri())
    return context, page, requests


@pytest.mark.real
@pytest.mark.full
def test_in_chromium_the_rows_are_there_and_the_filters_hide_rows(
    v51: SimpleNamespace, chromium: Any, tmp_path: Path
) -> None:
    context, page, requests = _open(chromium, v51.page)
    try:
        invalid = sorted(set(INVALID["v5.1"]) | set(NEWLY_INVALID))
        assert page.locator("#filters").is_visible()
        assert sorted(page.evaluate(SHOWN, "#invalid-list > article h3")) == invalid
        assert page.evaluate(SHOWN, "#became-invalid tbody td.location") == sorted(NEWLY_INVALID)
        assert page.evaluate(SHOWN, "#new-findings tbody td.file") == [path for _, path in NEW_FINDINGS]

        page.select_option("select[name=submitter]", "RedHat")
        assert page.evaluate(SHOWN, "#invalid-list > article h3") == [f"{REDHAT}/Offline", f"{REDHAT}/Server"]
        assert page.locator("[data-shown=invalid-list]").text_content() == "(2 of 12 shown)"
        assert page.evaluate(SHOWN, "#became-invalid tbody td.location") == [f"{REDHAT}/Offline", f"{REDHAT}/Server"]
        assert page.evaluate(SHOWN, "#submitters tbody td:nth-child(2)") == ["RedHat"]
        assert page.evaluate(SHOWN, "#gone-findings tbody td.file") == [XE8640]
        page.screenshot(path=str(tmp_path / "audit-redhat.png"))

        page.select_option("select[name=code]", "FIL001")  # RedHat has none
        assert page.evaluate(SHOWN, "#invalid-list > article h3") == []
        assert page.locator("[data-shown=invalid-list]").text_content() == "(0 of 12 shown)"

        page.click("#filters button[type=reset]")
        page.wait_for_function("document.querySelector('[data-shown=invalid-list]').textContent === ''")
        assert len(page.evaluate(SHOWN, "#invalid-list > article h3")) == 12

        page.select_option("select[name=code]", "STR006")
        assert page.evaluate(SHOWN, "#invalid-list > article h3") == [f"{STAGE}/offline", f"{STAGE}/server"]
        page.select_option("select[name=code]", "")
        page.select_option("select[name=severity]", "note")  # PRF017's notes: three invalid results have some
        assert page.evaluate(SHOWN, "#invalid-list > article h3") == [
            "closed/RedHat/results/IBM_Cloud_gx3-48x240x2l40s_vLLM/llama3.1-8b/Server",
            f"{STAGE}/offline",
            f"{STAGE}/server",
        ]
        assert len(page.evaluate(SHOWN, "#all-findings tbody tr")) == 22
        page.select_option("select[name=severity]", "")
        page.select_option("select[name=division]", "open")
        assert page.evaluate(SHOWN, "#submitters tbody td:nth-child(2)") == ["AMD", "Krai"]
        assert page.evaluate(SHOWN, "#invalid-list > article h3") == []
        assert [u.split(":", 1)[0] for u in requests] == ["file"]  # the page and nothing else: the plot is inline
        assert page.evaluate("document.querySelector('#variance img.plot').naturalWidth") > 500
        assert page.evaluate("document.querySelector('#variance img.chart').naturalWidth") > 500

        page.select_option("select[name=division]", "")
        shot = tmp_path / "audit.png"  # a test artefact in pytest's tmp_path, never in git
        page.screenshot(path=str(shot), full_page=True)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        context.close()


@pytest.mark.real
@pytest.mark.full
def test_in_chromium_without_javascript_everything_is_shown(v51: SimpleNamespace, chromium: Any) -> None:
    context, page, _ = _open(chromium, v51.page, java_script_enabled=False)
    try:
        assert not page.locator("#filters").is_visible()
        assert len(page.evaluate(SHOWN, "#invalid-list > article h3")) == 12
    finally:
        context.close()


# --- the command line on the bundled example ------------------------------------------------
def test_a_clean_tree_exits_0_and_its_own_baseline_changes_nothing(example: Path, tmp_path: Path) -> None:
    baseline = tmp_path / "base.json"
    assert (
        runner.invoke(app, ["check", str(example), "--round", "demo-v6.1", "-o", str(baseline), "-j", "1"]).exit_code
        == 0
    )
    out = tmp_path / "audit.html"
    done = runner.invoke(
        app, ["report", str(example), "--round", "demo-v6.1", "--baseline", str(baseline), "-o", str(out), "-j", "1"]
    )
    assert done.exit_code == 0, done.output
    dom = parse(out.read_text())
    assert counts(dom.by_id("counts")) == {"results": 2, "valid": 2, "invalid": 0, "error": 0, "warning": 0, "note": 0}
    assert " ".join(dom.by_id("invalid").one("p").text().split()) == "No result is invalid."
    assert counts(dom.by_id("changes"))["unchanged-findings"] == 0
    assert dom.by_id("variance").one("p", "muted").text() == "No comparable group has results from enough submitters."


def test_an_invalid_result_exits_1(example: Path, tmp_path: Path) -> None:
    (example / OFFLINE / "performance/run_1/mlperf_log_summary.txt").unlink()
    out = tmp_path / "audit.html"
    done = runner.invoke(app, ["report", str(example), "--round", "demo-v6.1", "-o", str(out), "-j", "1"])
    assert done.exit_code == 1, done.output
    entries = parse(out.read_text()).by_id("invalid-list").all("article")
    assert [e.one("h3").text() for e in entries] == [OFFLINE]
    assert done.stderr.splitlines()[-1] == f"{out}: 2 results, 1 invalid"


def _check_json(round_name: str) -> dict:
    return {"schema_version": 1, "round": round_name, "results": [], "findings": []}


@pytest.mark.parametrize(
    "content, says",
    [
        ("{", "is not JSON: Expecting property name enclosed in double quotes (line 1, column 2)"),
        (
            "[1, 2]",
            "is not the JSON of `mlperf-check check` (schemas/findings.schema.json): at the top: [1, 2] is not "
            "of type 'object'",
        ),
        (
            json.dumps({"schema_version": 1, "round": "demo-v6.1", "results": [{"location": "x"}], "findings": []}),
            "is not the JSON of `mlperf-check check` (schemas/findings.schema.json): at /results/0: 'division' is a "
            "required property",
        ),
        (
            '{"schema_version": 1, "round": "demo-v6.1", "results": [], "findings": [], "x": NaN}',
            "is not strict JSON: NaN is not JSON",
        ),
        (
            json.dumps(_check_json("v5.1")),
            "is a check of round v5.1, not of demo-v6.1; give the JSON of an earlier check of the same round",
        ),
        (b"\xff\xfe", "is not UTF-8 text (bad byte at offset 0)"),
    ],
)
def test_a_bad_baseline_is_a_usage_error_naming_the_file(
    example: Path, tmp_path: Path, content: Any, says: str
) -> None:
    baseline = tmp_path / "previous.json"
    baseline.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = tmp_path / "audit.html"
    done = runner.invoke(
        app, ["report", str(example), "--round", "demo-v6.1", "--baseline", str(baseline), "-o", str(out)]
    )
    assert done.exit_code == 2
    assert done.stderr == f"error: --baseline {baseline} {says}\n"
    assert not out.exists()


def test_an_error_on_no_result_exits_1_as_check_does(example: Path, tmp_path: Path) -> None:
    """A submitter folder that is a symlink out of the tree invalidates no result, but it is
    an error: report exits 1, as check does, and the page counts it."""
    (example / "closed" / "Elsewhere").symlink_to(tmp_path)
    out = tmp_path / "audit.html"
    done = runner.invoke(app, ["report", str(example), "--round", "demo-v6.1", "-o", str(out), "-j", "1"])
    assert done.exit_code == 1, done.output
    assert counts(parse(out.read_text()).by_id("counts")) == {
        "results": 2,
        "valid": 2,
        "invalid": 0,
        "error": 1,
        "warning": 0,
        "note": 0,
    }
    assert runner.invoke(app, ["check", str(example), "--round", "demo-v6.1", "-q", "-j", "1"]).exit_code == 1


def test_usage_errors_before_any_work(example: Path, tmp_path: Path) -> None:
    folder = tmp_path / "folder.json"
    folder.mkdir()
    done = runner.invoke(app, ["report", str(example), "--baseline", str(folder), "-o", str(tmp_path / "a.html")])
    assert (done.exit_code, done.stderr) == (2, f"error: --baseline {folder} is not a regular file\n")
    missing = tmp_path / "nope.json"
    done = runner.invoke(app, ["report", str(example), "--baseline", str(missing), "-o", str(tmp_path / "a.html")])
    assert (done.exit_code, done.stderr) == (2, f"error: --baseline cannot read {missing}: No such file or directory\n")
    done = runner.invoke(app, ["report", str(example), "-o", str(tmp_path / "no" / "a.html")])
    assert (done.exit_code, done.stderr) == (
        2,
        f"error: -o {tmp_path / 'no' / 'a.html'}: the folder {tmp_path / 'no'} does not exist\n",
    )
    assert runner.invoke(app, ["report", str(example)]).exit_code == 2  # -o is required
    done = runner.invoke(app, ["report", str(tmp_path / "absent"), "-o", str(tmp_path / "a.html")])
    assert (done.exit_code, done.stderr) == (2, f"error: {tmp_path / 'absent'} is not a folder\n")


def test_folder_names_are_shown_escaped(example: Path, tmp_path: Path) -> None:
    """A system description named with an escape sequence, markup and a byte that is not UTF-8."""
    systems = os.fsencode(example / SUBMISSION / "systems")
    shutil.copyfile(os.path.join(systems, b"cpu-1x-numpy.json"), os.path.join(systems, b"evil\x1b[31m<i>x\xff.json"))
    before = tree_digest(example)
    out = tmp_path / "audit.html"
    done = runner.invoke(app, ["report", str(example), "--round", "demo-v6.1", "-o", str(out), "-j", "1"])
    assert done.exit_code == 0, done.output
    assert tree_digest(example) == before
    raw = out.read_bytes()
    raw.decode("utf-8")  # strict UTF-8
    assert b"\x1b" not in raw and b"<i>" not in raw
    shown = f"{SUBMISSION}/systems/evil\\x1b[31m<i>x\\xff.json"
    files = [td.text() for td in parse(raw.decode()).by_id("all-findings").all("td", "file")]
    assert shown in files
    assert b"evil\\x1b[31m&lt;i&gt;x\\xff.json" in raw


# --- compare --format html ------------------------------------------------------------------
def _row(submitter: str, value: float, **more: Any) -> dict:
    row = {
        "Category": "closed",
        "Model": "resnet",
        "Scenario": "Offline",
        "Nodes": 1,
        "Accelerator": "",
        "a#": "",
        "Processor": "Intel Xeon 6980P",
        "p#": 2,
        "Submitter": submitter,
        "System": f"{submitter} box",
        "Performance_Result": value,
        "Performance_Units": "Samples/s",
        "Location": f"closed/{submitter}/x",
        "Software": "OpenVINO 2024",
    }
    row.update(more)
    return row


def test_compare_html_shows_percentages_units_members_and_outlier_reasons(tmp_path: Path) -> None:
    table = tmp_path / "table.json"
    rows = [_row("A", 100.0), _row("B", 110.0), _row("C", 98.0), _row("Evil<b>\x1b", 200.0, Software="PyTorch")]
    for row in rows:
        row["version"] = "v6.0"
    table.write_text(json.dumps(rows))
    out = tmp_path / "compare.html"
    done = runner.invoke(app, ["compare", str(table), "--format", "html", "-o", str(out)])
    assert done.exit_code == 0, done.output
    html = out.read_text()
    dom = parse(html)
    assert cells(body_rows(dom.one("table", "groups"))[0]) == [
        "v6.0 resnet Offline, 2x Intel Xeon 6980P",
        "median",
        "105",
        "Samples/s",
        "4",
        "4",
        "26.7%",
        "5.7%",
        "90.5%",
        "33.4%",
        "OUTSIDE 4%",
        "4",
        "1",
    ]
    assert dom.one("p", "partners").text() == (
        "4 results against their median: mean |dev| 26.67%, median 5.71%, max 90.48%; beyond 4%: "
        "Evil<b>\\x1b +90.48%, C -6.67%, A -4.76%, B +4.76%"
    )
    members = dom.one("table", "members")
    assert [th.text() for th in members.all("th")][3] == "performance (Samples/s)"
    assert [cells(r) for r in body_rows(members)] == [
        ["A", "A box", "closed/A/x", "100", "-4.8%", "beyond 4%"],
        ["B", "B box", "closed/B/x", "110", "+4.8%", "beyond 4%"],
        ["C", "C box", "closed/C/x", "98", "-6.7%", "beyond 4%"],
        [
            "Evil<b>\\x1b",
            "Evil<b>\\x1b box",
            "closed/Evil<b>\\x1b/x",
            "200",
            "+90.5%",
            "beyond 4%, outlier: Software: 'PyTorch' (most: 'OpenVINO 2024')",
        ],
    ]
    assert "True" not in html and "False" not in html and "\x1b" not in html
    # The same look as the audit page: one style sheet.
    page = audit.page(run(EXAMPLE, "demo-v6.1"))
    assert dom.one("style").text() == parse(page).one("style").text()


def test_a_usage_error_of_report_at_any_step_stops_its_child(tmp_path: Path) -> None:
    """report starts its child (the variance's) as its invocation starts: a usage error at
    any later step (an -o that cannot be written or names no page, a baseline that is no
    JSON or of another round, an unknown round, a tree without results) is exit 2 with one
    line, and leaves no child process behind, running or unwaited for."""
    (tmp_path / "empty" / "closed").mkdir(parents=True)
    (tmp_path / "bad.json").write_text("{not json")
    other = tmp_path / "v51.json"
    other.write_text(json.dumps({"round": "v5.1", "tool": {"name": "mlperf-check"}, "results": [], "findings": []}))
    page = str(tmp_path / "page.html")
    cases = [
        [str(EXAMPLE), "-o", str(tmp_path / "no" / "page.html")],
        [str(EXAMPLE), "-o", str(tmp_path / "page.yaml")],
        [str(EXAMPLE), "--baseline", str(tmp_path / "bad.json"), "-o", page],
        [str(EXAMPLE), "--baseline", str(other), "-o", page],
        [str(EXAMPLE), "--round", "v9.9", "-o", page],
        [str(tmp_path / "empty"), "-o", page],
    ]
    before = children()
    for args in cases:
        done = runner.invoke(app, ["report", *args, "--no-progress"])
        assert (done.exit_code, done.stderr.count("error:")) == (2, 1), (args, done.stderr)
        assert children() - before == set(), args
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "empty", "v51.json"]


@pytest.mark.real
@pytest.mark.full
@pytest.mark.parametrize("when", ["before the variance", "during the variance"])
def test_a_child_killed_gives_the_same_variance(v51: SimpleNamespace, when: str) -> None:
    """The report's child killed (SIGKILL) while the check runs or while it computes the
    variance: the section is computed in this process instead, the same."""
    import signal

    here = audit.variance(v51.bad)
    with audit.Aside() as aside:
        (child,) = aside._pool._processes.values()
        if when == "before the variance":
            os.kill(child.pid, signal.SIGKILL)
            child.join(timeout=60)
        pending = aside.variance(v51.bad)
        if when == "during the variance":
            os.kill(child.pid, signal.SIGKILL)
        assert pending() == here
    assert not child.is_alive()


def test_a_stray_file_beside_the_templates_changes_no_page(tmp_path: Path) -> None:
    """report compiles the templates while its child computes the variance (html.prepare):
    a file of the templates' folder that is no template the page uses (an editor's swap
    file, a template that does not compile) changes nothing, as before that warm-up, when
    the page read only its own templates (it was an internal error, exit 3)."""
    import subprocess
    import sys

    package = tmp_path / "site" / "checker"
    shutil.copytree(ROOT / "checker", package, ignore=shutil.ignore_patterns("__pycache__"))
    for data in ("rules", "schemas"):  # an install maps them into the package (pyproject.toml)
        if not (package / data).exists():
            shutil.copytree(ROOT / data, package / data)
    templates = package / "commands" / "templates"
    (templates / ".report.html.j2.swp").write_bytes(b"\xff\xfe{% bad")
    (templates / "unused.html.j2").write_text("{% if %}")
    pages = []
    for where in (str(tmp_path / "site"), ""):
        page = tmp_path / f"page{len(pages)}.html"
        env = {**os.environ, "PYTHONPATH": where, "MLPERF_CHECK_CACHE_DIR": str(tmp_path / "cache")}
        imported = subprocess.run(
            [sys.executable, "-c", "import checker; print(checker.__file__)"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        assert imported.stdout.startswith(where or str(ROOT)), imported.stdout
        done = subprocess.run(
            [sys.executable, "-m", "checker", "report", str(EXAMPLE), "-o", str(page), "--no-progress"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            cwd=tmp_path,
        )
        assert done.returncode == 1, done.stderr
        pages.append(re.sub(r'<time id="checked">[^<]*</time>', "", page.read_text()))
    assert pages[0] == pages[1]
