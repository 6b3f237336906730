"""The plots of compare, --across-rounds and the report (checker/analysis/plots.py, issue 25
"plots a reader trusts", issue 31 item 5, issue 34 item 4): SVG of our own, no matplotlib. A
label holds the accelerator, its count and the nodes and is never cut; the legend and the
outliers' names cover no data and no other name; the title names the round, model and
scenario and the axes their units; a throughput-against-interactivity series is one
comparable group; every name is escaped. The layout is checked on the drawing's own boxes over
generated groups, in headless Chromium on the browser's boxes, and the rendered pages of a
small real case against committed baselines (fixtures/plots/)."""

from __future__ import annotations

import base64
import itertools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from checker.analysis import plots
from checker.analysis.compare import Options
from checker.analysis.table import GROUP_KEY
from checker.reporters.common import visible
from checker.settings import UsageError
from helpers import EXAMPLE, REAL_V60, ROOT, cli, real_data

FIXTURES = ROOT / "fixtures" / "plots"
COMPARE = FIXTURES / "compare-v6.1.json"
ACROSS = [FIXTURES / "across-v6.0.json", FIXTURES / "across-v6.1.json"]
REBASE = os.environ.get("MLPERF_CHECK_REBASE_PLOTS") == "1"
SVG = "{http://www.w3.org/2000/svg}"


# --- files and names -----------------------------------------------------------------------
@pytest.mark.parametrize("path", ["a.svg", "a.SVG", "out/a.svg", "/dev/stdout"])
def test_the_extension_is_svg(path: str) -> None:
    assert plots.image_format(path) == "svg"


@pytest.mark.parametrize(
    "path, said",
    [
        ("plot", "a plot is an .svg file: give its extension"),
        ("dir/", "give a file, e.g. dir/plot.svg, not a folder"),
        (".", "give a file, e.g. ./plot.svg, not a folder"),
        ("a.png", "a plot is an .svg file (drawn as SVG, which any browser shows and converts), not .png"),
    ],
)
def test_a_folder_no_extension_or_png_is_a_usage_error(path: str, said: str) -> None:
    """attack25 P5: `--plot dir/` wrote a file named dir, `--plot x` a file named x. A PNG
    needed matplotlib; the plots are SVG of the project's own now (issue 34)."""
    with pytest.raises(UsageError) as raised:
        plots.image_format(path)
    assert str(raised.value) == f"--plot {path}: {said}"


@pytest.mark.parametrize("path, extension", [("a.jpg", "jpg"), ("a.pdf", "pdf"), ("v6.1/a.svg.gz", "gz")])
def test_another_extension_is_a_usage_error(path: str, extension: str) -> None:
    with pytest.raises(UsageError) as raised:
        plots.image_format(path)
    assert str(raised.value) == f"--plot {path}: a plot is an .svg file, not .{extension}"


def test_an_unknown_extension_exits_2_before_anything_is_read_or_written(tmp_path: Path) -> None:
    done = cli("compare", str(tmp_path / "missing.json"), "--plot", str(tmp_path / "a.jpg"), "-o", str(tmp_path / "o"))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"error: --plot {tmp_path}/a.jpg: a plot is an .svg file, not .jpg\n"
    assert list(tmp_path.iterdir()) == []


def test_pages_after_the_first_keep_the_extension() -> None:
    assert [plots.page_path("out/a.b.svg", n) for n in (1, 2, 10)] == ["out/a.b.svg", "out/a.b-2.svg", "out/a.b-10.svg"]
    assert plots.page_path("plot", 3) == "plot-3"
    assert [plots.page_path("a.svg", n, "interactivity") for n in (1, 2)] == [
        "a-interactivity.svg",
        "a-interactivity-2.svg",
    ]


def test_a_label_holds_the_count_the_accelerator_and_the_nodes() -> None:
    assert plots.hardware(4, "NVIDIA GB300", 18) == "4x NVIDIA GB300, 18 nodes"
    assert plots.hardware(8, "AMD Instinct MI355X 288GB HBM3e", 1) == "8x AMD Instinct MI355X 288GB HBM3e, 1 node"


@given(st.text(st.sampled_from("ab -_/.()X0"), max_size=200), st.integers(8, 60))
def test_a_wrapped_label_keeps_every_character(text: str, width: int) -> None:
    """Wrapping only replaces spaces by line ends: nothing is cut, whatever the text."""
    lines = plots.wrapped(text, width).split("\n")
    assert all(len(line) <= width for line in lines) or lines == [text]
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_pages_hold_whole_panels_and_cut_only_a_panel_too_long() -> None:
    items = [("a", i) for i in range(3)] + [("b", i) for i in range(5)] + [("c", i) for i in range(11)]
    pages = plots.paged(items, lambda item: item[0], per_page=8)
    assert [[(title, len(rows)) for title, rows in page] for page in pages] == [
        [("a", 3), ("b", 5)],
        [("c, part 1 of 2", 8)],
        [("c, part 2 of 2", 3)],
    ]


def test_ticks_are_round_and_cover_the_range() -> None:
    assert plots.ticks(0, 1.12) == pytest.approx([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    assert plots.ticks(-47.5, 21.0) == [-40, -20, 0, 20]
    assert plots.ticks(0, 110_000) == [0, 20_000, 40_000, 60_000, 80_000, 100_000]
    assert [plots.tick_text(v, 0.2) for v in (0, 0.4)] == ["0.0", "0.4"]
    assert plots.tick_text(100_000, 20_000) == "100,000"


# --- the layout, on the drawing's boxes ----------------------------------------------------
def faults(canvas: plots.Canvas) -> list[str]:
    """What a reader could not trust in a drawn page: a text outside the canvas (cut), the
    legend over a panel, two labels, two outlier lists or two bars' ratios over each other, an
    outlier list or a title over a panel, a ratio outside its panel."""
    found = []
    for box in canvas.boxes:
        if box.x0 < 0 or box.y0 < 0 or box.x1 > canvas.width + 0.5 or box.y1 > canvas.height + 0.5:
            found.append(f"cut: {box.kind} {box.text!r} spans {box}, the canvas {canvas.width} x {canvas.height}")
    of = {kind: [b for b in canvas.boxes if b.kind == kind] for kind in {b.kind for b in canvas.boxes}}
    panels = of.get("panel", [])
    for kind in ("legend", "note", "title", "label", "heading", "subtitle", "xlabel", "tick", "ylabel"):
        found += [
            f"a {kind} covers panel {i}: {b.text!r}"
            for b in of.get(kind, [])
            for i, p in enumerate(panels)
            if b.overlaps(p)
        ]
    for kind in ("label", "note", "ratio", "legend", "title", "tick"):
        found += [
            f"{kind}s overlap: {a.text!r} {b.text!r}"
            for a, b in itertools.combinations(of.get(kind, []), 2)
            if a.overlaps(b)
        ]
    found += [
        f"a ratio outside its panel: {r.text!r}"
        for r in of.get("ratio", [])
        if not any(p.x0 <= r.x0 and r.x1 <= p.x1 and p.y0 <= r.y0 and r.y1 <= p.y1 + 2 for p in panels)
    ]
    return found


def _member(name: str, deviation: float, outlier: bool) -> dict[str, Any]:
    return {"role": "partner", "Submitter": name, "deviation": deviation, "outlier": outlier}


names = st.text(st.sampled_from("AbcdefghXYZ -_0123456789()"), min_size=1, max_size=70).map(str.strip).filter(bool)
groups = st.lists(
    st.tuples(
        names,
        st.integers(1, 16),
        st.integers(1, 144),
        st.lists(st.tuples(names, st.floats(-0.9, 3.0), st.booleans()), min_size=1, max_size=9),
    ),
    min_size=1,
    max_size=plots.PER_PAGE,
)


def _group(hardware: str, per_node: int, nodes: int, **more: Any) -> dict[str, Any]:
    group = {
        "round": "v6.1",
        "model": "m",
        "scenario": "Offline",
        "units": "Tokens/s",
        "kind": "accelerator",
        "hardware": hardware,
        "per_node": per_node,
        "nodes": nodes,
        "reference_submitter": None,
        "reference": 1234.5,
        "mean_abs_dev": 0.03,
        "within_tolerance": True,
    }
    return group | more


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(groups)
def test_no_label_is_cut_and_nothing_covers_data_or_a_name(drawn: list[Any]) -> None:
    """Over generated groups: long hardware names, many nodes, up to nine outliers a row with
    long names, a full page."""
    page = [
        (_group(hardware, per_node, nodes), [_member(n, d, o) for n, d, o in members])
        for hardware, per_node, nodes, members in drawn
    ]
    pages = plots.paged(page, lambda g: f"{g[0]['round']} {g[0]['model']} {g[0]['scenario']}")
    canvas = plots.deviation_page(pages[0], Options(), "v6.1: the deviations")
    assert faults(canvas) == []
    shown = [b.text for b in canvas.boxes if b.kind == "label"]
    assert ["".join(s.split()) for s in shown] == [
        "".join((plots.hardware(p, h, n) + " median 1,234.5 Tokens/s").split()) for h, p, n, _ in drawn
    ]
    ET.fromstring(canvas.svg().encode())  # well-formed XML


# --- the real case: the CLI's files, their titles, axes and bytes ---------------------------
@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    room = tmp_path_factory.mktemp("plots")
    for args in (
        ["compare", str(COMPARE), "--round", "v6.1", "--plot", str(room / "compare.svg")],
        ["compare", *map(str, ACROSS), "--across-rounds", "--plot", str(room / "across.svg")],
        ["compare", str(COMPARE), "--round", "v6.1", "-f", "html", "-o", str(room / "compare.html")],
    ):
        done = cli(*args, "-o", str(room / "out.txt")) if "-o" not in args else cli(*args)
        assert done.returncode == 0, done.stderr
    return room


@pytest.mark.slow
@pytest.mark.parametrize("name", ["compare.svg", "compare-interactivity.svg", "across.svg"])
def test_the_real_case_matches_its_baseline(drawn: Path, name: str) -> None:
    """The drawn page, byte for byte, against the committed one (the drawing is ours: no
    renderer's anti-aliasing to allow for). Look at a new baseline in a browser before
    committing it."""
    baseline = FIXTURES / name
    if REBASE or not baseline.exists():
        baseline.write_bytes((drawn / name).read_bytes())
        pytest.skip(f"wrote {baseline}: look at it, then commit it")
    assert (drawn / name).read_text() == baseline.read_text()


@pytest.mark.slow
def test_the_svg_is_one_page_of_well_formed_svg(drawn: Path) -> None:
    text = (drawn / "compare.svg").read_text()
    assert text.startswith("<?xml") and "</svg>" in text
    assert ET.fromstring(text.encode()).tag == f"{SVG}svg"
    assert not (drawn / "compare-2.svg").exists()
    said = (drawn / "compare-interactivity.svg").read_text()  # a table: no TPOT
    assert "the published tables do not publish TPOT (not published)" in said


def _compare_groups() -> list[Any]:
    from checker.analysis.compare import comparison
    from checker.commands.inputs import table_rows

    rows = table_rows(str(COMPARE), "v6.1", with_description=True, shown=False).rows
    return list(comparison(rows, Options()).each())


def _compare_page() -> Any:
    page = plots.paged(_compare_groups(), lambda g: f"{g[0]['round']} {g[0]['model']} {g[0]['scenario']}")
    assert len(page) == 1
    return page[0]


def test_the_real_page_says_what_it_shows() -> None:
    canvas = plots.deviation_page(_compare_page(), Options(), "v6.1: the deviations")
    assert faults(canvas) == []

    def texts(kind: str) -> list[str]:
        return [b.text for b in canvas.boxes if b.kind == kind]

    assert texts("title") == ["v6.1 deepseek-r1 Server", "v6.1 gpt-oss-120b Offline"]
    assert texts("label") == [
        "8x NVIDIA B300-SXM-270GB, 1 node\nmedian 60,745.5 Tokens/s",
        "8x AMD Instinct MI355X 288GB HBM3e, 1 node\nmedian 117,180 Tokens/s",
    ]
    assert texts("note") == ["VibeHPC -45%, GigaComputing +16.5%,\nGigaComputing +16.1%, ASUSTeK -10.2%"]
    assert texts("xlabel") == ["deviation from the group's reference (% of its Tokens/s), positive is better"]
    assert texts("subtitle") == [plots.ROWS_SAID]
    assert texts("legend") == [
        "outlier threshold ±10%",
        "tolerance 4% on the partners' mean |deviation|",
        "a partner's deviation",
        "an outlier (named right of the plot)",
        "partners' mean |deviation|, beyond tolerance",
        "partners' mean |deviation|, within tolerance",
    ]
    assert texts("tick") == ["-40%", "-20%", "0%", "20%"]  # under the last panel only: the panels share it


@pytest.mark.slow
def test_the_html_compare_page_embeds_its_plot_and_names_the_round(drawn: Path) -> None:
    page = (drawn / "compare.html").read_text()
    assert "<title>mlperf-check compare: comparable results, v6.1</title>" in page
    assert "<h1>Comparable results, v6.1</h1>" in page
    start = page.index('<img class="plot"')
    source = page[start:].split('src="', 1)[1].split('"', 1)[0]
    assert source.startswith("data:image/svg+xml;base64,")
    assert b"<svg" in base64.b64decode(source.split(",", 1)[1])
    assert page.count('<img class="plot"') == 1
    assert '<p class="notice" id="interactivity-missing">' + plots.NOT_MEASURED.replace("'", "&#39;") in page


def test_p4_the_mean_deviation_marker_is_hollow_so_no_partner_hides_under_it() -> None:
    svg = ET.fromstring(plots.deviation_page(_compare_page(), Options(), "v6.1").svg().encode())
    diamonds = [e for e in svg.iter(f"{SVG}path") if e.get("class") == "mean"]
    assert len(diamonds) == 2 and all(e.get("fill") == "none" for e in diamonds)


# --- hostile names ----------------------------------------------------------------------------
HOSTILE = ["\n", "\r", "\x1b[31m", '"', "'", "<", ">", "&", "\ufffe", "\uffff", "\udcff", "\u202e", "]]>", "x"]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=10).map(lambda parts: "n" + "".join(parts)))
def test_every_name_is_escaped_as_the_pages_escape_it(name: str) -> None:
    """A submitter, a hardware and a model named with markup, control characters, a byte that
    is not UTF-8: every page stays well-formed XML and shows the name as the pages do
    (`visible`), never raw."""
    group = _group(name, 8, 1, model=name, reference_submitter=name)
    member = _member(name, 0.4, True) | {"interactivity": 12.5, "Performance_Result": 1000.0}
    reference = {"role": "reference", "Submitter": name, "deviation": 0.0, "outlier": False}
    pages = [
        plots.deviation_page([(name, [(group, [reference, member])])], Options(), name),
        *plots.throughput_pages([(group, [member, reference | {"interactivity": 9.0, "Performance_Result": 900.0}])]),
    ]
    for canvas in pages:
        text = canvas.svg()
        text.encode("utf-8")  # no lone surrogate
        root = ET.fromstring(text.encode("utf-8"))
        shown = "".join(root.itertext())
        assert visible(name).replace("\n", "") in shown.replace("\n", "")
        assert "\x1b" not in text and "<n" not in text.replace("<svg", "")


# --- throughput against interactivity --------------------------------------------------------
tokens = st.lists(
    st.tuples(
        st.sampled_from(["v6.0", "v6.1"]),
        st.sampled_from(["llama2-70b-99", "gpt-oss-120b"]),
        st.sampled_from(["Server", "Interactive", "Offline"]),
        st.sampled_from(["Tokens/s", "Samples/s", "Latency (ms)"]),
        st.sampled_from(["NVIDIA B200", "AMD MI355X"]),
        st.sampled_from([4, 8]),
        st.lists(st.tuples(st.floats(1, 500) | st.none(), st.floats(1, 1e6)), min_size=1, max_size=5),
    ),
    max_size=20,
)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(tokens)
def test_a_series_is_one_comparable_group_and_a_chart_one_scenario(drawn: list[Any]) -> None:
    """Over generated groups: each series is exactly one group's members that have an
    interactivity figure, in throughput units; a chart never holds two scenarios, units,
    models or rounds; a page without any says why."""
    given_groups = []
    for round_name, model, scenario, units, hardware, per_node, members in drawn:
        group = _group(hardware, per_node, 1, round=round_name, model=model, scenario=scenario, units=units)
        given_groups.append(
            (
                group,
                [
                    {"role": "partner", "Submitter": f"S{i}", "Performance_Result": result}
                    | ({"interactivity": tps} if tps is not None else {})
                    for i, (tps, result) in enumerate(members)
                ],
            )
        )
    series = plots.series_of(given_groups)
    expected = [
        (g, [(m["interactivity"], m["Performance_Result"]) for m in ms if "interactivity" in m])
        for g, ms in given_groups
        if g["units"] == "Tokens/s"
    ]
    assert [(g, points) for _, g, points in series] == [(g, p) for g, p in expected if p]
    for title, group, _ in series:
        assert title == f"{group['round']} {group['model']} {group['scenario']} ({group['units']})"
    keys = [tuple(group[k] for k in GROUP_KEY) for _, group, _ in series]
    assert len(keys) == len({id(g) for _, g, _ in series})
    pages = plots.throughput_pages(given_groups)
    for canvas in pages:
        assert faults(canvas) == []
        titles = [b.text for b in canvas.boxes if b.kind == "title"]
        assert len(titles) == len(set(titles))  # one chart per round, model, scenario and unit
    if not any(p for _, p in expected):
        said = [b.text for b in pages[0].boxes if b.kind == "text"]
        assert said == [plots.NOT_MEASURED if expected else plots.NO_TOKENS]


# The v6.0 slice's Server results of comparable groups, and their published throughput
# (tables/v6.0/summary_results.json).
SERVER = [
    ("closed/AMD/results/8xMI355X_2xEPYC_9575F/llama2-70b-99/Server", 100282.0),
    ("closed/AMD/results/8xMI355X_2xEPYC_9575F/llama2-70b-99.9/Server", 100282.0),
    ("closed/Dell_MangoBoost/results/8xMI355X_2xEPYC_9965/llama2-70b-99/Server", 93272.4),
    ("closed/Dell_MangoBoost/results/8xMI355X_2xEPYC_9965/llama2-70b-99.9/Server", 93272.4),
]


def _logged_tpot(result: Path) -> int:
    """The p99 TPOT a result's detail log holds, read line by line here (not by the checker)."""
    import json

    for line in (result / "performance" / "run_1" / "mlperf_log_detail.txt").read_text().splitlines():
        if line.startswith(":::MLLOG "):
            record = json.loads(line.removeprefix(":::MLLOG "))
            if record["key"] == "result_time_per_output_token_99.00_percentile_ns":
                return int(record["value"])
    raise AssertionError(f"{result}: no TPOT")


@pytest.mark.real
@pytest.mark.full
@pytest.mark.slow
def test_the_interactivity_of_a_real_tree_is_1e9_over_its_p99_tpot(tmp_path: Path) -> None:
    """compare on the v6.0 slice (a tree: its logs hold TPOT): the Server groups are series,
    each point a result's published throughput and 1e9 / its p99 TPOT; the Offline groups,
    whose runs measure no token latencies, are none."""
    real_data(REAL_V60)
    plot = tmp_path / "v60.svg"
    done = cli("compare", str(REAL_V60), "--round", "v6.0", "--no-progress", "-f", "json", "--plot", str(plot))
    assert done.returncode == 0, done.stderr
    import json

    found = json.loads(done.stdout)
    assert found["interactivity"] == plots.INTERACTIVITY
    points = {
        m["Location"]: (round(m["interactivity"], 6), m["Performance_Result"])
        for g in found["groups"]
        for m in g["members"]
        if "interactivity" in m
    }
    assert points == {
        location: (round(1e9 / _logged_tpot(REAL_V60 / location), 6), value) for location, value in SERVER
    }
    assert {g["scenario"] for g in found["groups"] if not any("interactivity" in m for m in g["members"])} == {
        "Offline"
    }
    svg = (tmp_path / "v60-interactivity.svg").read_text()
    root = ET.fromstring(svg.encode())
    titles = [e for e in root.iter(f"{SVG}text") if e.get("class") == "title"]
    assert ["".join(t.itertext()) for t in titles] == [
        "v6.0 llama2-70b-99 Server (Tokens/s)",
        "v6.0 llama2-70b-99.9 Server (Tokens/s)",
    ]
    assert len([e for e in root.iter() if e.get("class") == "point"]) == 4


# --- in a real browser: the drawing's boxes hold on the browser's own --------------------------


# Every text's box as the browser lays it out (transforms included), and the page's size.
BOXES = """() => { const svg = document.querySelector('svg'); const page = svg.getBoundingClientRect();
  return {width: page.width, height: page.height, texts: Array.from(svg.querySelectorAll('text')).map(t => {
    const b = t.getBoundingClientRect();
    return {kind: t.getAttribute('class'), text: t.textContent, x0: b.left - page.left, y0: b.top - page.top,
            x1: b.right - page.left, y1: b.bottom - page.top}; }),
  panels: Array.from(svg.querySelectorAll('rect[stroke]')).map(r => { const b = r.getBoundingClientRect();
    return [b.left - page.left, b.top - page.top, b.right - page.left, b.bottom - page.top]; })}; }"""


@pytest.mark.slow
def test_in_chromium_no_text_is_cut_and_none_covers_another(drawn: Path, chromium: Any) -> None:
    """The pages drawn from the real case, laid out by Chromium's own fonts: every text inside
    the page, no label, note, legend entry or tick over another or over a panel. The margins
    come from EM a character; the browser's glyphs must fit in them."""
    context = chromium.new_context(viewport={"width": 1600, "height": 1000})
    try:
        page = context.new_page()
        for name in ("compare.svg", "across.svg"):
            page.goto((drawn / name).as_uri())
            laid = page.evaluate(BOXES)
            problems = []
            for t in laid["texts"]:
                if t["x0"] < -0.5 or t["y0"] < -0.5 or t["x1"] > laid["width"] + 0.5 or t["y1"] > laid["height"] + 0.5:
                    problems.append(f"{name}: cut: {t['text']!r}")
                for p in laid["panels"]:
                    inside = t["x0"] < p[2] and p[0] < t["x1"] and t["y0"] < p[3] and p[1] < t["y1"]
                    if inside and t["kind"] in ("label", "note", "legend", "title", "tick", "xlabel"):
                        problems.append(f"{name}: {t['kind']} {t['text']!r} over a panel")
            for a, b in itertools.combinations([t for t in laid["texts"] if t["kind"] != "ratio"], 2):
                if (
                    a["x0"] < b["x1"] - 0.5
                    and b["x0"] < a["x1"] - 0.5
                    and a["y0"] < b["y1"] - 0.5
                    and b["y0"] < a["y1"] - 0.5
                ):
                    problems.append(f"{name}: {a['text']!r} over {b['text']!r}")
            assert problems == []
        page.goto((drawn / "compare.html").as_uri())
        assert page.evaluate("document.querySelector('img.plot').naturalWidth") > 500
    finally:
        context.close()


# --- what check and report pay for them: no matplotlib, and no pandas in report's process ----
PROBE = (
    "import sys\nfrom checker.cli import app\n"
    "try:\n    app(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
    "print(sorted(m for m in ('matplotlib', 'pandas', 'numpy') if m in sys.modules), file=sys.stderr)\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("command", ["check", "report"])
def test_neither_check_nor_reports_process_imports_matplotlib_pandas_or_numpy(command: str, tmp_path: Path) -> None:
    """report's own process stays as light as check's (issue 34): its plots are ours, and the
    variance (compare, on pandas) is computed in its child."""
    out = tmp_path / ("audit.html" if command == "report" else "check.json")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, command, str(EXAMPLE), "-j", "1", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stderr.splitlines()[-1] == "[]"
    if command == "report":
        assert out.read_text().rstrip().endswith("</html>")


# --- across rounds -------------------------------------------------------------------------
def _series(model: str, hardware: str, per_node: int, nodes: int, results: list[float]) -> Any:
    from checker.analysis.across import Series
    from checker.analysis.table import Row

    rounds = ["v5.1", "v6.0", "v6.1"][: len(results)]
    rows = {
        name: Row(
            name,
            "closed/A/results/s/m/Offline",
            "A",
            "closed",
            "available",
            "s",
            model,
            "Offline",
            value,
            "Tokens/s",
            "accelerator",
            hardware,
            per_node,
            nodes,
        )  # fmt: skip
        for name, value in zip(rounds, results, strict=True)
    }
    return Series(model, "Offline", hardware, per_node, nodes, "Tokens/s", None, rows)


@settings(max_examples=20, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["m", "a-much-longer-model-name-99.9"]),
            names,
            st.integers(1, 16),
            st.integers(1, 144),
            st.lists(st.floats(0.01, 1e7), min_size=2, max_size=3),
        ),
        min_size=1,
        max_size=plots.PER_PAGE,
    ).map(lambda drawn: sorted(drawn, key=lambda d: d[0]))
)
def test_no_round_label_is_cut_and_every_panel_has_its_range(drawn: list[Any]) -> None:
    """Each panel's own range: its highest ratio's bar and label inside it, its ticks from x0."""
    series = [_series(*d) for d in drawn]
    pages = plots.paged(series, lambda s: f"{s.model} {s.scenario}")
    canvas = plots.rounds_page(pages[0], ["v5.1", "v6.0", "v6.1"], "The same hardware across rounds")
    assert faults(canvas) == []
    ticks = [b.text for b in canvas.boxes if b.kind == "tick"]
    assert ticks.count("x0") + ticks.count("x0.0") + ticks.count("x0.00") == len(pages[0])
    ratios = [b.text for b in canvas.boxes if b.kind == "ratio"]
    assert ratios == [f"x{r:.3f}" for _, rows in pages[0] for s in rows for r in s.ratios().values()]


# --- attack25 P1, P2, P3 ---------------------------------------------------------------------
def test_p1_a_reference_submitters_several_results_are_their_median() -> None:
    group = {"reference_submitter": "Supermicro", "reference": 60119.9, "units": "Tokens/s"}
    group |= {"per_node": 8, "hardware": "NVIDIA B200", "nodes": 1}
    three = [{"role": "reference"}] * 3 + [{"role": "partner"}]
    assert plots._group_label(group, three).endswith("Supermicro's median 60,119.9 Tokens/s")
    assert plots._group_label(group, three[2:]).endswith("Supermicro's result 60,119.9 Tokens/s")


def test_p2_the_across_rounds_text_and_plot_name_the_division(tmp_path: Path) -> None:
    from checker.analysis.across import to_text
    from checker.analysis.selection import Selection

    text = to_text([], [], Selection.of(division="open"))
    assert "Across rounds: the best open result per round on the same hardware" in text
    written = plots.rounds([], str(tmp_path / "e.svg"), ("open",), ["v6.0", "v6.1"])
    svg = Path(written[0]).read_text()
    assert "No hardware has open results in two or more rounds." in svg
    assert "(v6.0, v6.1), open division" in svg


def test_p3_an_empty_plot_says_why(tmp_path: Path) -> None:
    """A selection that takes no row stops compare with its reason (exit 2, nothing written);
    a plot with no group names the minimum of submitters and the divisions."""
    table = tmp_path / "t.json"
    table.write_text('[{"Submitter": "A", "Category": "closed", "Model": "m", "Scenario": "Offline",'
                     ' "Performance_Result": 1, "Performance_Units": "Tokens/s", "Accelerator": "X", "a#": 1,'
                     ' "version": "v6.1"}]')  # fmt: skip
    done = cli("compare", str(table), "--model", "nosuch", "--plot", str(tmp_path / "e.svg"))
    assert (done.returncode, done.stderr) == (
        2,
        "error: no row matches the selection (model nosuch; division closed): no row has model nosuch; "
        "the model values are m\n",
    )
    assert not (tmp_path / "e.svg").exists()
    done = cli(
        "compare", str(table), "--division", "closed", "--plot", str(tmp_path / "e.svg"), "-o", str(tmp_path / "o")
    )
    assert done.returncode == 0, done.stderr
    said = (tmp_path / "e.svg").read_text()
    assert "No comparable group has results from enough submitters (2 or more, closed division)." in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.svg", "o", "t.json"]  # no group: no interactivity page
