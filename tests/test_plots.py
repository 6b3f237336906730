"""The plots of compare and --across-rounds (checker/analysis/plots.py, issue 25 "plots a reader
trusts"): a label holds the accelerator, its count and the nodes and is never cut; the legend
and the outliers' names cover no data and no other name; the title names the round, model and
scenario and the axes their units; PNG or SVG by the extension; the HTML compare page embeds
its plot. The layout is checked on the renderer's own boxes, over generated groups, and the
rendered pages of a small real case against committed baselines (fixtures/plots/)."""

from __future__ import annotations

import base64
import itertools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from checker.analysis import plots
from checker.analysis.compare import Options
from checker.settings import UsageError
from helpers import EXAMPLE, ROOT, cli

FIXTURES = ROOT / "fixtures" / "plots"
COMPARE = FIXTURES / "compare-v6.1.json"
ACROSS = [FIXTURES / "across-v6.0.json", FIXTURES / "across-v6.1.json"]
REBASE = os.environ.get("MLPERF_CHECK_REBASE_PLOTS") == "1"


# --- files and names -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "path, kind",
    [("a.png", "png"), ("a.PNG", "png"), ("out/a.svg", "svg"), ("/dev/stdout", "png")],
)
def test_the_extension_chooses_png_or_svg(path: str, kind: str) -> None:
    assert plots.image_format(path) == kind


@pytest.mark.parametrize(
    "path, said",
    [
        ("plot", "a plot is a .png or .svg file: give its extension"),
        ("dir/", "give a file, e.g. dir/plot.png, not a folder"),
        (".", "give a file, e.g. ./plot.png, not a folder"),
    ],
)
def test_a_folder_or_no_extension_is_a_usage_error(path: str, said: str) -> None:
    """attack25 P5: `--plot dir/` wrote a PNG named dir, `--plot x` a PNG named x."""
    with pytest.raises(UsageError) as raised:
        plots.image_format(path)
    assert str(raised.value) == f"--plot {path}: {said}"


@pytest.mark.parametrize("path, extension", [("a.jpg", "jpg"), ("a.pdf", "pdf"), ("v6.1/a.png.gz", "gz")])
def test_another_extension_is_a_usage_error(path: str, extension: str) -> None:
    with pytest.raises(UsageError) as raised:
        plots.image_format(path)
    assert str(raised.value) == f"--plot {path}: a plot is a .png or .svg file, not .{extension}"


def test_an_unknown_extension_exits_2_before_anything_is_read_or_written(tmp_path: Path) -> None:
    done = cli("compare", str(tmp_path / "missing.json"), "--plot", str(tmp_path / "a.jpg"), "-o", str(tmp_path / "o"))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"error: --plot {tmp_path}/a.jpg: a plot is a .png or .svg file, not .jpg\n"
    assert list(tmp_path.iterdir()) == []


def test_pages_after_the_first_keep_the_extension() -> None:
    assert [plots.page_path("out/a.b.svg", n) for n in (1, 2, 10)] == ["out/a.b.svg", "out/a.b-2.svg", "out/a.b-10.svg"]
    assert plots.page_path("plot", 3) == "plot-3"


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


# --- the layout, on the renderer's boxes ---------------------------------------------------
def faults(figure: Any) -> list[str]:
    """What a reader could not trust in a drawn page: a text outside the canvas (cut), the
    legend over a panel, two labels, two outlier lists or two bars' ratios over each other, an
    outlier list over a panel."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    found = []
    canvas = figure.bbox
    tight = figure.get_tightbbox(renderer).transformed(figure.dpi_scale_trans)
    if tight.x0 < -0.01 or tight.y0 < -0.01 or tight.x1 > canvas.width + 0.5 or tight.y1 > canvas.height + 0.5:
        found.append(f"cut: the drawing spans {tight.bounds}, the canvas {canvas.bounds}")
    panels = [a.get_window_extent(renderer) for a in figure.axes]
    legend = figure.legends[0].get_window_extent(renderer)
    found += [f"the legend covers panel {i}" for i, box in enumerate(panels) if legend.overlaps(box)]
    labels = [t for a in figure.axes for t in a.get_yticklabels() if t.get_text()]
    notes = [t for a in figure.axes for t in a.texts if t.get_gid() == "outliers"]
    ratios = [t for a in figure.axes for t in a.texts if isinstance(t, plots_annotation()) and t.get_gid() is None]
    for kind, texts in (("labels", labels), ("outlier lists", notes), ("ratios", ratios)):
        boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
        found += [
            f"{kind} overlap: {a!r} {b!r}" for (a, x), (b, y) in itertools.combinations(boxes, 2) if x.overlaps(y)
        ]
    found += [
        f"a note covers panel {i}: {t.get_text()!r}"
        for t in notes
        for i, box in enumerate(panels)
        if t.get_window_extent(renderer).overlaps(box)
    ]
    return found


def plots_annotation() -> type:
    from matplotlib.text import Annotation

    return Annotation


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


@pytest.mark.slow
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],  # a page takes a second: no shrinking
)
@given(groups)
def test_no_label_is_cut_and_nothing_covers_data_or_a_name(drawn: list[Any]) -> None:
    """Over generated groups: long hardware names, many nodes, up to nine outliers a row with
    long names, a full page."""
    page = [
        (
            {
                "round": "v6.1",
                "model": "m",
                "scenario": "Offline",
                "units": "Tokens/s",
                "hardware": hardware,
                "per_node": per_node,
                "nodes": nodes,
                "reference_submitter": None,
                "reference": 1234.5,
                "mean_abs_dev": 0.03,
                "within_tolerance": True,
            },
            [_member(n, d, o) for n, d, o in members],
        )
        for hardware, per_node, nodes, members in drawn
    ]
    pages = plots.paged(page, lambda g: f"{g[0]['round']} {g[0]['model']} {g[0]['scenario']}")
    with plots._style() as plt:
        figure = plots.deviation_page(plt, pages[0], Options(), "v6.1: the deviations")
        try:
            assert faults(figure) == []
            shown = [t.get_text() for a in figure.axes for t in a.get_yticklabels()]
            assert ["".join(s.split()) for s in shown] == [
                "".join((plots.hardware(p, h, n) + " median 1,234.5 Tokens/s").split()) for h, p, n, _ in drawn
            ]
        finally:
            plt.close(figure)


# --- the real case: the CLI's files, their titles, axes and pixels --------------------------
@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    room = tmp_path_factory.mktemp("plots")
    for args in (
        ["compare", str(COMPARE), "--round", "v6.1", "--plot", str(room / "compare.png")],
        ["compare", str(COMPARE), "--round", "v6.1", "--plot", str(room / "compare.svg")],
        ["compare", *map(str, ACROSS), "--across-rounds", "--plot", str(room / "across.png")],
        ["compare", str(COMPARE), "--round", "v6.1", "-f", "html", "-o", str(room / "compare.html")],
    ):
        done = cli(*args, "-o", str(room / "out.txt")) if "-o" not in args else cli(*args)
        assert done.returncode == 0, done.stderr
    return room


@pytest.mark.slow
@pytest.mark.parametrize("name", ["compare.png", "across.png"])
def test_the_real_case_matches_its_baseline(drawn: Path, name: str) -> None:
    """The rendered page against the committed one (matplotlib's own image comparison: an RMS
    tolerance for the anti-aliasing of another FreeType). Look at a new baseline before
    committing it."""
    from matplotlib.testing.compare import compare_images

    baseline = FIXTURES / name
    if REBASE or not baseline.exists():
        baseline.write_bytes((drawn / name).read_bytes())
        pytest.skip(f"wrote {baseline}: look at it, then commit it")
    assert compare_images(str(baseline), str(drawn / name), tol=6) is None


@pytest.mark.slow
def test_the_svg_is_an_svg_of_the_same_page(drawn: Path) -> None:
    text = (drawn / "compare.svg").read_text()
    assert text.startswith("<?xml") and "<svg" in text and "</svg>" in text
    assert (drawn / "compare.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (drawn / "compare-2.svg").exists()


def _compare_figure() -> Any:
    from checker.analysis.compare import comparison
    from checker.commands.inputs import table_rows

    rows = table_rows(str(COMPARE), "v6.1", with_description=True, shown=False).rows
    found = comparison(rows, Options())
    page = plots.paged(list(found.each()), lambda g: f"{g[0]['round']} {g[0]['model']} {g[0]['scenario']}")
    assert len(page) == 1
    return page[0]


@pytest.mark.slow
def test_the_real_page_says_what_it_shows() -> None:
    with plots._style() as plt:
        figure = plots.deviation_page(plt, _compare_figure(), Options(), "v6.1: the deviations")
        try:
            assert faults(figure) == []
            titles = [t.get_text() for a in figure.axes for t in a.texts if t.get_gid() != "outliers"]
            assert titles == ["v6.1 deepseek-r1 Server", "v6.1 gpt-oss-120b Offline"]
            assert [[t.get_text() for t in a.get_yticklabels()] for a in figure.axes] == [
                ["8x NVIDIA B300-SXM-270GB, 1 node\nmedian 60,745.5 Tokens/s"],
                ["8x AMD Instinct MI355X 288GB HBM3e, 1 node\nmedian 117,180 Tokens/s"],
            ]
            notes = [t.get_text() for a in figure.axes for t in a.texts if t.get_gid() == "outliers"]
            assert notes == ["VibeHPC -45%, GigaComputing +16.5%,\nGigaComputing +16.1%, ASUSTeK -10.2%"]
            assert figure.axes[-1].get_xlabel() == (
                "deviation from the group's reference (% of its Tokens/s), positive is better"
            )
            assert figure._supylabel.get_text() == (  # wrapped: no longer than the page is high
                "hardware: accelerators per node, nodes;\nthe group's reference and its units"
            )
            assert [t.get_text() for t in figure.legends[0].get_texts()] == [
                "outlier threshold ±10%",
                "tolerance 4% on the partners' mean |deviation|",
                "a partner's deviation",
                "an outlier (named right of the plot)",
                "partners' mean |deviation|, beyond tolerance",
                "partners' mean |deviation|, within tolerance",
            ]
        finally:
            plt.close(figure)


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


# --- what check pays for them: nothing --------------------------------------------------------
@pytest.mark.slow
def test_check_never_imports_matplotlib() -> None:
    probe = (
        "import sys\nfrom checker.cli import app\n"
        "try:\n    app(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('matplotlib')), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, "check", str(EXAMPLE), "-j", "1"], capture_output=True, text=True, timeout=120
    )
    assert done.stderr.splitlines()[-1] == "[]"


# --- the report's plot, drawn in a child process ----------------------------------------------
def _groups() -> list[Any]:
    from checker.analysis.compare import comparison
    from checker.commands.inputs import table_rows

    rows = table_rows(str(COMPARE), "v6.1", with_description=True, shown=False).rows
    return list(comparison(rows, Options()).each())


@pytest.mark.slow
@pytest.mark.parametrize("child", [True, False])
def test_the_painter_fills_its_marks_with_the_pages_drawn_here(child: bool, monkeypatch) -> None:
    """The report's plot drawn in a child process (started before the check, so matplotlib's
    import overlaps it) is the plot drawn in this process; without a child process (a sandbox
    without semaphores) it is drawn here."""
    groups = _groups()
    if not child:
        monkeypatch.setattr("concurrent.futures.ProcessPoolExecutor.__init__", _no_semaphores)
    with plots.Painter() as painter:
        marks, missing = painter.later(groups, Options())
        assert (len(marks), missing) == (1, "")
        page = f"<p>{marks[0]}</p>"
        assert painter.fill(page) == f"<p>{plots.images(groups, Options())[0]}</p>"
    assert plots.Painter().later([], Options()) == ([], "")


def _no_semaphores(*args: Any, **kwargs: Any) -> None:
    raise OSError(38, "Function not implemented")


@pytest.mark.slow
def test_the_report_process_leaves_matplotlib_to_its_child(tmp_path: Path) -> None:
    """report's own process never imports matplotlib (0.5 s): its child draws the plot."""
    probe = (
        "import sys\nfrom checker.cli import app\n"
        "try:\n    app(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('matplotlib')), file=sys.stderr)\n"
    )
    out = tmp_path / "audit.html"
    done = subprocess.run(
        [sys.executable, "-c", probe, "report", str(EXAMPLE), "-j", "1", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stderr.splitlines()[-1] == "[]"
    assert out.read_text().rstrip().endswith("</html>")


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


@pytest.mark.slow
@settings(max_examples=5, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate])
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
    series = [_series(*d) for d in drawn]
    pages = plots.paged(series, lambda s: f"{s.model} {s.scenario}")
    with plots._style() as plt:
        figure = plots.rounds_page(plt, pages[0], ["v5.1", "v6.0", "v6.1"], "The same hardware across rounds")
        try:
            assert faults(figure) == []
            for panel, (_, rows) in zip(figure.axes, pages[0], strict=True):
                highest = max(r for s in rows for r in s.ratios().values())
                assert panel.get_xlim() == pytest.approx((0, highest * 1.12))
        finally:
            plt.close(figure)


# --- attack25 P1, P2, P4 -----------------------------------------------------------------------
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
    assert "No hardware has open results in two or more rounds." in svg.replace("&#39;", "'")
    assert "(v6.0, v6.1), open division" in svg


@pytest.mark.slow
def test_p4_the_mean_deviation_marker_is_hollow_so_no_partner_hides_under_it() -> None:
    with plots._style() as plt:
        figure = plots.deviation_page(plt, _compare_figure(), Options(), "v6.1")
        try:
            diamonds = [c for axes in figure.axes for c in axes.collections if "mean |deviation|" in str(c.get_label())]
            assert diamonds and all(len(c.get_facecolors()) == 0 for c in diamonds)
        finally:
            plt.close(figure)


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
