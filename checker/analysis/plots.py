"""The plots: compare's deviations per comparable group and --across-rounds' ratios, drawn
with matplotlib (the `plot` extra) from plain data.

A page stacks one panel per round, model and scenario (per model and scenario across rounds),
each titled so, at most PER_PAGE rows in all. A row's label holds the count per node, the
accelerator (or processor) and the nodes, then the reference value in its units, wrapped,
never cut: the margins are computed from the labels' lengths, so the page is drawn once. The
legend sits below the axes and a row's outliers are named right of the axes, beside that row,
so neither covers a point nor another name. The file's extension chooses PNG or SVG.
Nothing here computes a figure: what a plot shows is what the text and JSON outputs say.

`deviations` takes compare's groups as `Comparison.each` gives them (a group's record and its
members' records); `rounds` takes --across-rounds' series; `images` draws data: URIs for an
HTML page, and `Painter` draws them in a child process for the report."""

from __future__ import annotations

import base64
import contextlib
import io
import os
import secrets
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..output import save_figure
from ..reporters.common import visible
from ..settings import UsageError, missing_extra
from . import OUTLIER, TOLERANCE

if TYPE_CHECKING:
    from .across import Series

PER_PAGE = 30
FORMATS = {"png": "image/png", "svg": "image/svg+xml"}  # by the file's extension
DPI = 110
LABEL_WIDTH = 44  # characters of a row's label per line
NOTE_WIDTH = 40  # characters of a row's outlier list per line
STYLE: dict[str, Any] = {
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],  # bundled with matplotlib: the same glyphs everywhere
    "font.size": 8,
    "svg.hashsalt": "mlperf-check",  # the same ids in the SVG every time
    "svg.fonttype": "path",  # the glyphs in the file: no font needed to show it
}
Group = tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]


class Limits(Protocol):
    """compare's options the deviation plot draws: the tolerance and the outlier threshold."""

    @property
    def tolerance(self) -> float: ...
    @property
    def outlier(self) -> float: ...


# --- files ---------------------------------------------------------------------------------
def image_format(path: str, option: str = "--plot") -> str:
    """png or svg, by the extension of `path` (PNG for a device or pipe such as /dev/stdout);
    another extension, none, or a folder is a usage error (a path ending in "/" would
    otherwise be written as a file without it)."""
    if not os.path.basename(path) or path.endswith((os.sep, "/")) or os.path.isdir(path):
        raise UsageError(f"{option} {path}: give a file, e.g. {os.path.join(path, 'plot.png')}, not a folder")
    extension = os.path.splitext(os.path.basename(path))[1].lower().lstrip(".")
    if not extension:
        if path.startswith("/dev/") or (os.path.exists(path) and not os.path.isfile(path)):  # /dev/stdout, a pipe
            return "png"
        raise UsageError(f"{option} {path}: a plot is a .png or .svg file: give its extension")
    if extension not in FORMATS:
        raise UsageError(f"{option} {path}: a plot is a .png or .svg file, not .{extension}")
    return extension


def page_path(path: str, number: int) -> str:
    """Where page `number` goes: `path` for the first, then `<stem>-<number><extension>`."""
    if number == 1:
        return path
    stem, extension = os.path.splitext(path)
    return f"{stem}-{number}{extension}"


def save(figure: Any, path: str, number: int) -> str:
    """Write page `number` of a plot (its format by the extension of `path`) and close it.
    Returns the file written."""
    import matplotlib.pyplot as plt

    kind = image_format(path)
    target = page_path(path, number)
    save_figure(figure, target, format=kind, dpi=DPI, metadata=_METADATA[kind])  # margins computed: one rendering
    plt.close(figure)
    return target


_METADATA: dict[str, dict[str, Any]] = {"svg": {"Date": None}, "png": {"Software": None}}  # the same bytes each time


def uri(figure: Any, kind: str = "svg") -> str:
    """A figure as a data: URI (drawn in memory), closed."""
    import matplotlib
    import matplotlib.pyplot as plt

    drawn = io.BytesIO()
    # In a page, text stays text (selectable, a quarter of the size, 25% faster), in
    # 'DejaVu Sans', else the browser's sans-serif: the margins leave room for a wider one.
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        save_figure(figure, drawn, format=kind, dpi=DPI, metadata=_METADATA[kind])
    plt.close(figure)
    return f"data:{FORMATS[kind]};base64," + base64.b64encode(drawn.getvalue()).decode("ascii")


def embedded(groups: Sequence[Group], limits: Limits) -> tuple[list[str], str]:
    """compare's deviation plot for an HTML page: its pages as SVG data: URIs, and why there
    are none ("" when there are, or when there is no group to draw)."""
    if not groups:
        return [], ""
    if not _have_matplotlib():
        return [], MISSING
    return images(groups, limits), ""


MISSING = missing_extra("matplotlib", "plot")


def _have_matplotlib() -> bool:
    """Whether the `plot` extra is installed, without importing it (0.2 s): the report's
    process leaves the import to its child."""
    import importlib.util

    try:
        return importlib.util.find_spec("matplotlib") is not None
    except ValueError:  # a module in sys.modules without a spec
        return "matplotlib" in sys.modules and sys.modules["matplotlib"] is not None


class Painter:
    """compare's deviation plot for the report, drawn in one child process: matplotlib's
    import (0.5 s of CPU) and its drawing (0.5 s a page) would cost the report more than the
    20% over check that issue 26 allows. Started before the check, the child imports
    matplotlib while the check runs; `later` gives the page marks to render in place of the
    images and sends the groups; `fill` puts the drawn images in place of the marks. Without
    a child process (a sandbox without semaphores), it draws in this one."""

    def __init__(self) -> None:
        self._pool: Any = None
        self._sent: list[tuple[list[str], Any, Sequence[Group], Limits]] = []

    def __enter__(self) -> Painter:
        from concurrent.futures import ProcessPoolExecutor

        from ..output import held
        from ..process import worker

        if _have_matplotlib():
            try:
                with held():  # forked with the signals held: the child sets its own (checker.process.worker)
                    self._pool = ProcessPoolExecutor(max_workers=1, initializer=worker)
                    self._pool.submit(_warm)
            except OSError:
                self._pool = None
        return self

    def __exit__(self, *stopped: object) -> None:
        if self._pool is None:
            return
        workers = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for child in workers:
            child.terminate()
        for child in workers:
            child.join(timeout=5)

    def later(self, groups: Sequence[Group], limits: Limits) -> tuple[list[str], str]:
        """As `embedded`, but marks in place of the images (`fill` replaces them)."""
        if not groups:
            return [], ""
        if not _have_matplotlib():
            return [], MISSING
        token = secrets.token_hex(12)
        marks = [f"mlperf-check-plot-{token}-{number}" for number in range(page_count(groups))]
        future = None
        if self._pool is not None:
            try:
                future = self._pool.submit(images, list(groups), limits)
            except (OSError, RuntimeError):  # a broken pool: drawn here instead
                future = None
        self._sent.append((marks, future, groups, limits))
        return marks, ""

    def fill(self, page: str) -> str:
        """`page` with each mark replaced by its drawn image."""
        from concurrent.futures.process import BrokenProcessPool

        for marks, future, groups, limits in self._sent:
            try:
                drawn = future.result() if future is not None else images(groups, limits)
            except BrokenProcessPool:
                drawn = images(groups, limits)
            for mark, image in zip(marks, drawn, strict=True):
                page = page.replace(mark, image)
        return page


def _warm() -> None:
    """The child's first task, while the check runs: import matplotlib and draw a small page
    (its fonts loaded, its caches filled: 0.2 s less for the first real page)."""
    with _style() as plt:
        group = {"round": "", "model": "", "scenario": "", "units": "", "hardware": "", "per_node": 1, "nodes": 1}
        group |= {"reference_submitter": None, "reference": 1.0, "mean_abs_dev": 0.0, "within_tolerance": True}
        member = {"role": "partner", "Submitter": "", "deviation": 0.1, "outlier": True}
        uri(deviation_page(plt, [("", [(group, [member])])], _Warm(), ""))


@dataclass(frozen=True)
class _Warm:
    tolerance: float = TOLERANCE
    outlier: float = OUTLIER


@contextlib.contextmanager
def _style() -> Iterator[Any]:
    """matplotlib on Agg with its default style and ours, whatever the user's matplotlibrc
    says: the same plot from the same data everywhere."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with matplotlib.style.context(["default", STYLE]):
        yield plt


# --- labels --------------------------------------------------------------------------------
def hardware(per_node: int, accelerator: str, nodes: int) -> str:
    """A row's hardware: the count per node, the accelerator (or processor), the nodes."""
    return f"{per_node}x {accelerator}, {nodes} node{'' if nodes == 1 else 's'}"


def wrapped(text: str, width: int = LABEL_WIDTH) -> str:
    """`text` in lines of at most `width` characters: a long label is wrapped, never cut; a
    control character shows as its escape (`visible`), as in the text outputs."""
    text = visible(text)
    return "\n".join(textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False)) or text


def _number(value: float) -> str:
    return f"{value:,.6g}" if abs(value) < 1e6 else f"{value:,.0f}"


def _percent(fraction: float) -> str:
    return f"{fraction * 100:+.3g}%"


def _lines(texts: Sequence[str]) -> int:
    return max((t.count("\n") + 1 for t in texts), default=1)


def _width(texts: Sequence[str], size: float = 7) -> float:
    """Inches the widest line of `texts` takes at `size` points: DejaVu Sans' widest
    letters are 0.9 em, its average about 0.6 em; 0.62 em a character is checked against the
    renderer by tests/test_plots.py."""
    longest = max((len(line) for t in texts for line in t.split("\n")), default=0)
    return longest * 0.62 * size / 72


# --- pages ---------------------------------------------------------------------------------
@dataclass
class Section:
    """One panel of a page: one round, model and scenario (or one model and scenario across
    rounds), its rows, their labels left of the axes and their notes right of them."""

    title: str
    rows: Sequence[Any]
    labels: list[str]
    notes: list[str]
    pitch: float = 0.0  # inches a row takes


def paged(
    items: Sequence[Any], key: Callable[[Any], str], per_page: int = PER_PAGE
) -> list[list[tuple[str, list[Any]]]]:
    """The items in pages of at most `per_page` rows, one panel per key, whole panels on a
    page where they fit; a key of more than `per_page` rows is cut into parts, its title
    saying "part i of n". Items of a key are together, as compare and --across-rounds sort them."""
    keyed: list[tuple[str, list[Any]]] = []
    for item in items:
        name = key(item)
        if not keyed or keyed[-1][0] != name:
            keyed.append((name, []))
        keyed[-1][1].append(item)
    parts = []
    for name, rows in keyed:
        cuts = [rows[i : i + per_page] for i in range(0, len(rows), per_page)]
        parts += [
            (name + (f", part {n} of {len(cuts)}" if len(cuts) > 1 else ""), cut) for n, cut in enumerate(cuts, 1)
        ]
    pages: list[list[tuple[str, list[Any]]]] = []
    for part in parts:
        if not pages or sum(len(rows) for _, rows in pages[-1]) + len(part[1]) > per_page:
            pages.append([])
        pages[-1].append(part)
    return pages


def _once() -> Callable[..., str | None]:
    """`label(said, drawn)`: `said` the first time something is drawn with it, else None (one
    legend entry each)."""
    used: set[str] = set()

    def label(said: str, drawn: Sequence[Any] = (None,)) -> str | None:
        if not drawn or said in used:
            return None
        used.add(said)
        return said

    return label


AXES_WIDTH = 7.0  # inches
TITLE = 0.32  # inches above a panel for its title
TICKS = 0.22  # inches under a panel for its own x tick labels
TOP = 0.4  # inches above the first panel for the page's title


def _figure(
    plt: Any, sections: Sequence[Section], heading: str, xlabel: str, ylabel: str, entries: int, shared: bool = True
) -> tuple[Any, list[Any]]:
    """A page's figure with one axes per section, stacked, at margins computed from the
    labels' lengths: the labels left, the notes right, the x axis label and the legend
    (`entries` of it, in two columns) below. The panels share the x axis (its tick labels
    under the last one) or, not `shared`, each has its own range and tick labels.
    Returns (figure, [axes])."""
    gap = TITLE + (0 if shared else TICKS)
    heights = [gap + s.pitch * len(s.rows) for s in sections]
    heading = wrapped(heading, int(AXES_WIDTH / _width(["x"], 9)))
    top_margin = TOP + 0.16 * heading.count("\n")
    bottom = 0.62 + 0.17 * ((entries + 1) // 2) + 0.1
    height = max(2.4, top_margin + sum(heights) + bottom)
    ylabel = wrapped(ylabel, max(12, int((height - 0.3) / _width(["x"], 8))))  # as long as the page is high
    left = _width([label for s in sections for label in s.labels]) + 0.35 + 0.15 * (ylabel.count("\n") + 1)
    notes = [note for s in sections for note in s.notes]
    right = _width(notes) + (0.45 if any(notes) else 0.2)
    width = left + AXES_WIDTH + right
    figure = plt.figure(figsize=(width, height))
    axes: list[Any] = []
    top = height - top_margin
    for section, panel in zip(sections, heights, strict=True):
        box = [left / width, (top - panel + gap - TITLE) / height, AXES_WIDTH / width, (panel - gap) / height]
        axes.append(figure.add_axes(box, sharex=axes[0] if axes and shared else None))
        axes[-1].text(
            0, 1, visible(section.title), transform=axes[-1].transAxes, va="bottom", fontsize=8
        )  # cheaper than set_title
        top -= panel
    figure.suptitle(
        heading, x=(left + AXES_WIDTH / 2) / width, y=1 - 0.12 / height, va="top", fontsize=9
    )  # over the axes
    figure.supylabel(ylabel, x=0.08 / width, fontsize=8)
    for panel in axes[:-1] if shared else ():
        panel.xaxis.set_visible(False)  # the last panel's tick labels serve all: 10 ms less a panel
    axes[-1].set_xlabel(xlabel)
    return figure, axes


def _legend(figure: Any, axes: Sequence[Any], columns: int = 2) -> None:
    """The legend below the x axis label, outside every axes: it covers no data."""
    handles, labels = [], []
    for panel in axes:
        for handle, label in zip(*panel.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    height, box = figure.get_figheight(), axes[-1].get_position()
    figure.legend(
        handles,
        labels,
        loc="upper center",
        bbox_to_anchor=((box.x0 + box.x1) / 2, 0.66 / height),
        ncols=columns,
        frameon=False,
        fontsize=7,
    )


def _rows(section: Section, panel: Any) -> None:
    """A panel's rows: labels left (top to bottom), notes right, a faint line each."""
    count = len(section.rows)
    panel.set_yticks(range(count), section.labels)
    panel.set_ylim(count - 0.5, -0.5)
    panel.tick_params(axis="y", labelsize=7)
    panel.grid(axis="y", color="0.92", linewidth=0.6)
    for row, note in enumerate(section.notes):
        if note:
            panel.annotate(
                note,
                (1, row),
                xycoords=panel.get_yaxis_transform(),
                xytext=(6, 0),
                textcoords="offset points",
                va="center",
                fontsize=7,
                color="tab:red",
                gid="outliers",
            )


def _empty(plt: Any, heading: str, said: str) -> Any:
    figure = plt.figure(figsize=(8, 1.6))
    figure.suptitle(heading, fontsize=9)
    figure.text(0.5, 0.45, said, ha="center", va="center")
    return figure


# --- compare -------------------------------------------------------------------------------
def deviations(groups: Sequence[Group], limits: Limits, path: str) -> list[str]:
    """Each member's deviation per group, the group's mean |deviation| (what the tolerance
    bounds) and the outlier threshold: a panel per round, model and scenario, in pages of
    PER_PAGE groups: `path`, then `<stem>-2<ext>`, ...; returns the files written."""
    with _style() as plt:
        return [save(figure, path, number) for number, figure in enumerate(_deviation_figures(plt, groups, limits), 1)]


def images(groups: Sequence[Group], limits: Limits, kind: str = "svg") -> list[str]:
    """The pages of `deviations` as data: URIs for an HTML page, drawn in memory."""
    with _style() as plt:
        return [uri(figure, kind) for figure in _deviation_figures(plt, groups, limits)]


def page_count(groups: Sequence[Group]) -> int:
    """How many pages `deviations` draws."""
    return len(paged(groups, _panel)) or 1


def _panel(group: Group) -> str:
    return f"{group[0]['round']} {group[0]['model']} {group[0]['scenario']}"


def _deviation_figures(plt: Any, groups: Sequence[Group], limits: Limits) -> Iterator[Any]:
    names = ", ".join(sorted({str(group["round"]) for group, _ in groups}))
    heading = f"{names or 'Compare'}: each result's deviation from its group's reference"
    if not groups:
        yield _empty(plt, heading, _no_group(limits))
        return
    pages = paged(groups, _panel)
    for number, page in enumerate(pages, 1):
        yield deviation_page(
            plt, page, limits, heading + (f", page {number} of {len(pages)}" if len(pages) > 1 else "")
        )


def _no_group(limits: Limits) -> str:
    """Why compare drew no group: no group of its divisions had results of enough submitters
    (a selection that takes no row stops compare before: published.Selection.taken)."""
    division = " or ".join(getattr(limits, "division", ()) or ("closed",))
    least = getattr(limits, "min_submitters", 2)
    return f"No comparable group has results from enough submitters ({least} or more, {division} division)."


def deviation_page(plt: Any, page: Sequence[tuple[str, list[Group]]], limits: Limits, heading: str) -> Any:
    """One page of `deviations`: a figure (not yet saved)."""
    sections = [
        Section(
            title,
            rows,
            [_group_label(group, members) for group, members in rows],
            [wrapped(_outliers(members), NOTE_WIDTH) for _, members in rows],
        )
        for title, rows in page
    ]
    for section in sections:
        section.pitch = 0.1 + 0.13 * _lines(section.labels + section.notes)
    units = sorted({str(group["units"]) for _, rows in page for group, _ in rows})
    figure, axes = _figure(
        plt,
        sections,
        heading,
        f"deviation from the group's reference ({_of(units)}), positive is better",
        "hardware: accelerators per node, nodes; the group's reference and its units",
        6,
    )
    once = _once()
    for section, panel in zip(sections, axes, strict=True):
        for side in (-1, 1):
            panel.axvline(
                side * limits.outlier * 100,
                color="tab:red",
                linestyle="--",
                linewidth=0.8,
                label=once(f"outlier threshold ±{limits.outlier * 100:.3g}%"),
            )
        panel.axvline(
            limits.tolerance * 100,
            color="tab:green",
            linewidth=1.2,
            label=once(f"tolerance {limits.tolerance * 100:.3g}% on the partners' mean |deviation|"),
        )
        panel.axvline(0, color="grey", linewidth=0.8)
        for outlying, colour, marker, said in (
            (False, "tab:blue", "o", "a partner's deviation"),
            (True, "tab:red", "X", "an outlier (named right of the plot)"),
        ):
            shown = [
                (m["deviation"] * 100, row)
                for row, (_, members) in enumerate(section.rows)
                for m in members
                if m["role"] == "partner" and bool(m["outlier"]) == outlying
            ]
            _scatter(panel, shown, s=22, marker=marker, color=colour, zorder=3, label=once(said, shown))
        for within, colour in ((True, "tab:green"), (False, "tab:orange")):
            shown = [
                (group["mean_abs_dev"] * 100, row)
                for row, (group, _) in enumerate(section.rows)
                if group["mean_abs_dev"] is not None and bool(group["within_tolerance"]) == within
            ]
            said = "partners' mean |deviation|, " + ("within tolerance" if within else "beyond tolerance")
            # Hollow and larger: a partner's dot at the same place (two partners at +-d around
            # their median) shows through it.
            _scatter(
                panel, shown, marker="D", s=60, zorder=4, facecolors="none", edgecolors=colour, linewidths=1.4,
                label=once(said, shown),
            )  # fmt: skip
        _rows(section, panel)
    _legend(figure, axes)
    return figure


def _of(units: Sequence[str]) -> str:
    """What a deviation is a percentage of: the one unit, or each row's."""
    return f"% of its {units[0]}" if len(units) == 1 else "% of its reference, in the units beside each row"


def _scatter(panel: Any, points: Sequence[tuple[float, int]], **style: Any) -> None:
    """One scatter call for a panel's points of one kind (a call per row costs 10 ms)."""
    if points:
        panel.scatter([x for x, _ in points], [y for _, y in points], **style)


def _group_label(group: Mapping[str, Any], members: Sequence[Mapping[str, Any]] = ()) -> str:
    """The hardware, then the reference: "8x AMD Instinct MI355X, 1 node / median 117,180 Tokens/s";
    a reference submitter's median when they have several results in the group (compare's
    definition), their result when one."""
    own = sum(1 for m in members if m["role"] == "reference")
    who = (
        f"{group['reference_submitter']}'s {'median' if own > 1 else 'result'}"
        if group["reference_submitter"]
        else "median"
    )
    reference = group["reference"]
    said = f"{_number(reference)} {group['units']}" if reference is not None else "none"
    return wrapped(hardware(group["per_node"], group["hardware"], group["nodes"])) + "\n" + wrapped(f"{who} {said}")


def _outliers(members: Sequence[Mapping[str, Any]]) -> str:
    """A row's outliers, as the right-hand column lists them: "Name +12.3%, Other -40%"."""
    found = sorted((m for m in members if m["outlier"]), key=lambda m: -abs(m["deviation"]))
    return ", ".join(f"{m['Submitter']} {_percent(m['deviation'])}" for m in found)


# --- across rounds -------------------------------------------------------------------------
def rounds(
    series: Sequence[Series], path: str, division: Sequence[str] = ("closed",), given: Sequence[str] = ()
) -> list[str]:
    """One bar group per hardware key (all submitters), one bar per round, labelled with the
    ratio to the first round: a panel per model and scenario, in pages of PER_PAGE keys:
    `path`, then `<stem>-2<ext>`, ...; returns the files written."""
    from .across import _order

    overall = [s for s in series if s.submitter is None]
    names = sorted({name for s in overall for name in s.best} or set(given), key=_order)
    which = " or ".join(division)
    heading = f"The same hardware across rounds ({', '.join(names)}), {which} division"
    with _style() as plt:
        if not overall:
            said = f"No hardware has {which} results in two or more rounds."
            return [save(_empty(plt, heading, said), path, 1)]
        pages = paged(overall, lambda s: f"{s.model} {s.scenario}")
        written = []
        for number, page in enumerate(pages, 1):
            said = heading + (f", page {number} of {len(pages)}" if len(pages) > 1 else "")
            written.append(save(rounds_page(plt, page, names, said, which), path, number))
        return written


def rounds_page(
    plt: Any, page: Sequence[tuple[str, list[Series]]], names: Sequence[str], heading: str, which: str = "closed"
) -> Any:
    """One page of `rounds`: a figure (not yet saved)."""
    sections = [Section(title, rows, [_series_label(s) for s in rows], []) for title, rows in page]
    bars = max(1, len(names))
    for section in sections:
        section.pitch = max(0.1 + 0.13 * _lines(section.labels), 0.15 * bars + 0.1)
    units = sorted({s.units for _, rows in page for s in rows})
    figure, axes = _figure(
        plt,
        sections,
        heading,
        f"best {which} result against the first round's (x; above 1 is faster)",
        f"hardware: accelerators per node, nodes; the first round's best in {', '.join(units)}",
        2 * len(names),  # one row of entries
        shared=False,  # one panel's x46 would flatten every other panel's x1.05
    )
    width = 0.8 / bars
    colours = plt.get_cmap("tab10")
    for section, panel in zip(sections, axes, strict=True):
        for i, round_name in enumerate(names):
            shown = [(y, s.ratios()[round_name]) for y, s in enumerate(section.rows) if round_name in s.best]
            values = [v for _, v in shown]
            drawn = panel.barh(
                [y - 0.4 + (i + 0.5) * width for y, _ in shown],
                values,
                height=width * 0.92,
                label=round_name,
                color=colours(i % 10),
            )
            panel.bar_label(drawn, labels=[f"x{v:.3f}" for v in values], padding=2, fontsize=6)
        panel.axvline(1.0, color="grey", linewidth=0.8)
        _rows(section, panel)
        panel.set_xlim(0, max(r for s in section.rows for r in s.ratios().values()) * 1.12)
    _legend(figure, axes, len(names))
    return figure


def _series_label(series: Series) -> str:
    from .across import _order

    first = min(series.best, key=_order)
    row = series.best[first]
    value = f"{_number(row.result)} {series.units}" if row.result is not None else "no value"
    return wrapped(hardware(series.per_node, series.hardware, series.nodes)) + "\n" + wrapped(f"{first}: {value}")
