"""The plots: compare's deviations per comparable group, throughput against interactivity for
the token benchmarks, and --across-rounds' ratios, drawn as SVG by this module from plain data
(no matplotlib: the report's process stays as light as the check, issue 34).

A page stacks one panel per round, model and scenario (per model and scenario across rounds),
each titled so, at most PER_PAGE rows in all. A row's label holds the count per node, the
accelerator (or processor) and the nodes, then the reference value in its units, wrapped,
never cut: the margins are computed from the labels' lengths (at EM of a character, wider than
the fonts named), so every text lies inside the page. The legend sits below the axes and a
row's outliers are named right of the axes, beside that row, so neither covers a point nor
another name. Every drawn text is escaped as the HTML pages escape it (`escaping.markup_text`: `visible`,
then markupsafe), and every text, panel and legend is kept as a `Box`, which tests check for
cuts and overlaps. Nothing here computes a figure: what a plot shows is what the text and JSON
outputs say.

`deviations` takes compare's groups as `Comparison.each` gives them (a group's record and its
members' records); `throughput` the same groups (each group one series); `rounds` takes
--across-rounds' series; `images` and `throughput_images` give data: URIs for an HTML page."""

from __future__ import annotations

import base64
import math
import os
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .. import errors
from ..escaping import markup_text, visible
from ..output import write_file
from ..settings import UsageError
from . import table as published

if TYPE_CHECKING:
    from .across import Series

PER_PAGE = 30
PANELS_PER_PAGE = 6  # throughput against interactivity: charts a page
FORMATS = {"svg": "image/svg+xml"}  # by the file's extension
LABEL_WIDTH = 44  # characters of a row's label per line
NOTE_WIDTH = 40  # characters of a row's outlier list per line
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
EM = 0.62  # a character's advance, in em: DejaVu Sans averages 0.55 on such labels, Arial 0.5
LINE = 1.3  # a line's height, in em
SIZE = 11  # px: labels, ticks, legend
SMALL = 10  # px: outlier lists, bar ratios
TITLE_SIZE = 12  # px: a panel's title
HEADING_SIZE = 13  # px: the page's heading
AXES_WIDTH = 640  # px
CHART_HEIGHT = 240  # px: a chart of throughput against interactivity
COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
BLUE, RED, GREEN, ORANGE, GREY = "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#808080"
Group = tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]
Entry = tuple[str, Callable[["Canvas", float, float], None]]  # a legend's text and its sample


class Limits(Protocol):
    """compare's options the deviation plot draws: the tolerance and the outlier threshold."""

    @property
    def tolerance(self) -> float: ...
    @property
    def outlier(self) -> float: ...


# --- files ---------------------------------------------------------------------------------
def image_format(path: str, parameter: str = "plot") -> str:
    """svg, by the extension of `path` (SVG for a device or pipe such as /dev/stdout);
    another extension, none, or a folder is a usage error (a path ending in "/" would
    otherwise be written as a file without it)."""
    option = errors.option(parameter)  # --plot, or the API's plot
    if not os.path.basename(path) or path.endswith((os.sep, "/")) or os.path.isdir(path):
        raise UsageError(f"{option} {path}: give a file, e.g. {os.path.join(path, 'plot.svg')}, not a folder")
    extension = os.path.splitext(os.path.basename(path))[1].lower().lstrip(".")
    if not extension:
        if path.startswith("/dev/") or (os.path.exists(path) and not os.path.isfile(path)):  # /dev/stdout, a pipe
            return "svg"
        raise UsageError(f"{option} {path}: a plot is an .svg file: give its extension")
    if extension not in FORMATS:
        said = " (drawn as SVG, which any browser shows and converts)" if extension == "png" else ""
        raise UsageError(f"{option} {path}: a plot is an .svg file{said}, not .{extension}")
    return extension


def page_path(path: str, number: int, part: str = "") -> str:
    """Where page `number` goes: `path` for the first, then `<stem>-<number><extension>`;
    a `part` ("interactivity") goes in `<stem>-<part>[-<number>]<extension>`."""
    stem, extension = os.path.splitext(path)
    stem += f"-{part}" if part else ""
    if number == 1:
        return stem + extension
    return f"{stem}-{number}{extension}"


def save(canvas: Canvas, path: str, number: int, part: str = "") -> str:
    """Write page `number` of a plot (page_path) as SVG. Returns the file written."""
    image_format(path)
    target = page_path(path, number, part)
    write_file(target, canvas.svg(), errors.option("plot"))  # checker/output.py: the one writer
    return target


def uri(canvas: Canvas) -> str:
    """A page as a data: URI, for an HTML page that needs no other file."""
    return f"data:{FORMATS['svg']};base64," + base64.b64encode(canvas.svg().encode("utf-8")).decode("ascii")


# --- the drawing ---------------------------------------------------------------------------
def width_of(text: str, size: float = SIZE) -> float:
    """Pixels the widest line of `text` takes at `size` px (EM a character)."""
    return max((len(line) for line in text.split("\n")), default=0) * EM * size


def height_of(text: str, size: float = SIZE) -> float:
    return (text.count("\n") + 1) * LINE * size


@dataclass(frozen=True)
class Box:
    """Where a drawn thing lies: its kind (label, note, title, legend, panel, tick, ratio,
    heading, text), its text, and its corners in px."""

    kind: str
    text: str
    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: Box) -> bool:
        return self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


@dataclass
class Canvas:
    """An SVG page being drawn: its parts, in order, and the boxes of its texts and panels."""

    width: float
    height: float
    title: str = ""
    parts: list[str] = field(default_factory=list)
    boxes: list[Box] = field(default_factory=list)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float = SIZE,
        anchor: str = "start",
        kind: str = "text",
        colour: str = "#000",
    ) -> Box:
        """`text` (lines split at "\\n") with its top at y; `anchor` start, middle or end at x."""
        width, height = width_of(text, size), height_of(text, size)
        x0 = x - (width / 2 if anchor == "middle" else width if anchor == "end" else 0)
        lines = text.split("\n")
        spans = "".join(
            f'<tspan x="{_n(x)}" y="{_n(y + (i + 0.8) * LINE * size)}">{markup_text(line)}</tspan>'
            for i, line in enumerate(lines)
        )
        self.parts.append(
            f'<text class="{kind}" font-size="{_n(size)}" text-anchor="{anchor}" fill="{colour}">{spans}</text>'
        )
        box = Box(kind, text, x0, y, x0 + width, y + height)
        self.boxes.append(box)
        return box

    def line(
        self, x1: float, y1: float, x2: float, y2: float, colour: str = "#000", width: float = 1, dash: str = ""
    ) -> None:
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(
            f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{colour}" '
            f'stroke-width="{_n(width)}"{dashed}/>'
        )

    def rect(self, x: float, y: float, width: float, height: float, fill: str = "none", stroke: str = "") -> None:
        outline = f' stroke="{stroke}"' if stroke else ""
        self.parts.append(
            f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(max(width, 0))}" height="{_n(max(height, 0))}" '
            f'fill="{fill}"{outline}/>'
        )

    def marker(self, shape: str, x: float, y: float, colour: str, size: float = 4.5, kind: str = "") -> None:
        """A point: `o` a disc, `X` a cross, `D` a hollow diamond, `s` a square, `^` a triangle."""
        css = f' class="{kind}"' if kind else ""
        if shape == "o":
            self.parts.append(f'<circle{css} cx="{_n(x)}" cy="{_n(y)}" r="{_n(size)}" fill="{colour}"/>')
        elif shape == "X":
            d = size * 0.9
            self.parts.append(
                f'<path{css} d="M{_n(x - d)},{_n(y - d)}L{_n(x + d)},{_n(y + d)}M{_n(x - d)},{_n(y + d)}'
                f'L{_n(x + d)},{_n(y - d)}" stroke="{colour}" stroke-width="2.2" fill="none"/>'
            )
        elif shape == "D":
            d = size * 1.5
            self.parts.append(
                f'<path{css} d="M{_n(x)},{_n(y - d)}L{_n(x + d)},{_n(y)}L{_n(x)},{_n(y + d)}L{_n(x - d)},{_n(y)}Z" '
                f'stroke="{colour}" stroke-width="1.6" fill="none"/>'
            )
        elif shape == "s":
            self.parts.append(
                f'<rect{css} x="{_n(x - size)}" y="{_n(y - size)}" width="{_n(2 * size)}" height="{_n(2 * size)}" '
                f'fill="{colour}"/>'
            )
        else:  # "^"
            d = size * 1.2
            self.parts.append(
                f'<path{css} d="M{_n(x)},{_n(y - d)}L{_n(x + d)},{_n(y + d * 0.8)}L{_n(x - d)},{_n(y + d * 0.8)}Z" '
                f'fill="{colour}"/>'
            )

    def panel(self, x: float, y: float, width: float, height: float, text: str = "") -> Box:
        self.rect(x, y, width, height, "#fff", "#444")
        box = Box("panel", text, x, y, x + width, y + height)
        self.boxes.append(box)
        return box

    def svg(self) -> str:
        """The page: an SVG document of its own size, in FONT, titled, on white."""
        title = f"<title>{markup_text(self.title)}</title>" if self.title else ""
        return (
            '<?xml version="1.0" encoding="utf-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{math.ceil(self.width)}" '
            f'height="{math.ceil(self.height)}" viewBox="0 0 {math.ceil(self.width)} {math.ceil(self.height)}" '
            f'font-family="{FONT}">{title}<rect width="100%" height="100%" fill="#fff"/>\n'
            + "\n".join(self.parts)
            + "\n</svg>\n"
        )


def ticks(low: float, high: float, count: int = 6) -> list[float]:
    """Round tick values from `low` to `high` (about `count`): steps of 1, 2 or 5 x 10^n."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else []
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9) * step
    found = []
    value = first
    while value <= high + step * 1e-9:
        found.append(0.0 if abs(value) < step * 1e-9 else value)
        value = first + len(found) * step
    return found


def tick_text(value: float, step: float) -> str:
    """A tick's label: as many decimals as its step needs, thousands separated."""
    decimals = max(0, -math.floor(math.log10(step))) if step > 0 else 0
    return f"{value:,.{decimals}f}"


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


# --- pages ---------------------------------------------------------------------------------
@dataclass
class Section:
    """One panel of a page: one round, model and scenario (or one model and scenario across
    rounds), its rows, their labels left of the axes and their notes right of them."""

    title: str
    rows: Sequence[Any]
    labels: list[str]
    notes: list[str]
    pitch: float = 0.0  # px a row takes


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


@dataclass
class Layout:
    """A page of stacked panels: where each panel lies, and the x scale of each."""

    canvas: Canvas
    left: float
    panels: list[Box]
    bottom: float  # px below the last panel's tick labels

    def x(self, panel: int, value: float, low: float, high: float) -> float:
        box = self.panels[panel]
        return box.x0 + (value - low) / (high - low) * (box.x1 - box.x0) if high > low else box.x0


def _heading(canvas: Canvas, heading: str, subtitle: str, x: float, width: float) -> float:
    """The page's heading and a line under it, wrapped to `width` px; returns the y below them."""
    y = 8.0
    for text, size, kind in ((heading, HEADING_SIZE, "heading"), (subtitle, SIZE, "subtitle")):
        if text:
            text = wrapped(text, max(20, int(width / (EM * size))))
            canvas.text(x, y, text, size, kind=kind)
            y += height_of(text, size) + 4
    return y + 4


def _stacked(
    sections: Sequence[Section],
    heading: str,
    subtitle: str,
    xlabel: str,
    legend_entries: int,
    shared: bool = True,
    columns: int = 2,
) -> Layout:
    """A page with one panel per section, stacked, at margins computed from the labels'
    lengths: the labels left, the notes right, the x axis label and the legend (in
    `columns`) below. The panels share the x axis (its tick labels under the last one) or,
    not `shared`, each has its own tick labels."""
    labels = [label for s in sections for label in s.labels]
    notes = [note for s in sections for note in s.notes if note]
    left = 12 + max((width_of(label) for label in labels), default=0) + 10
    right = (width_of("\n".join(notes), SMALL) + 20) if notes else 24
    width = max(left + AXES_WIDTH + right, 480)
    titles = max((width_of(s.title, TITLE_SIZE) for s in sections), default=0)
    width = max(width, left + titles + 12)
    canvas = Canvas(width, 0, heading)
    top = _heading(canvas, heading, subtitle, 12, width - 24)
    panels = []
    tick_room = LINE * SIZE + 6
    for section in sections:
        canvas.text(left, top, section.title, TITLE_SIZE, kind="title")
        top += LINE * TITLE_SIZE + 2
        height = section.pitch * max(1, len(section.rows))
        panels.append(canvas.panel(left, top, AXES_WIDTH, height, section.title))
        top += height + (tick_room if not shared else 0) + 8
    if shared:
        top += tick_room
    canvas.text(left + AXES_WIDTH / 2, top, xlabel, SIZE, anchor="middle", kind="xlabel")
    top += LINE * SIZE + 10
    rows = math.ceil(legend_entries / columns) if legend_entries else 0
    return Layout(canvas, left, panels, top + rows * (LINE * SIZE + 2) + 12)


def _row_texts(layout: Layout, sections: Sequence[Section]) -> None:
    """Each panel's rows: labels left (top to bottom), notes right, a faint line each."""
    canvas = layout.canvas
    for section, box in zip(sections, layout.panels, strict=True):
        for row, label in enumerate(section.labels):
            middle = box.y0 + (row + 0.5) * section.pitch
            canvas.line(box.x0, middle, box.x1, middle, "#ebebeb", 0.8)
            canvas.text(box.x0 - 8, middle - height_of(label) / 2, label, anchor="end", kind="label")
            canvas.line(box.x0 - 4, middle, box.x0, middle, "#444")
            note = section.notes[row] if row < len(section.notes) else ""
            if note:
                canvas.text(box.x1 + 8, middle - height_of(note, SMALL) / 2, note, SMALL, kind="note", colour=RED)


def _x_axis(layout: Layout, panel: int, low: float, high: float, percent: bool = False, prefix: str = "") -> None:
    """Tick marks and their labels under `panel`, and faint lines across it."""
    canvas, box = layout.canvas, layout.panels[panel]
    values = ticks(low, high)
    step = values[1] - values[0] if len(values) > 1 else 1.0
    for value in values:
        x = layout.x(panel, value, low, high)
        canvas.line(x, box.y1, x, box.y1 + 4, "#444")
        said = prefix + tick_text(value, step) + ("%" if percent else "")
        canvas.text(x, box.y1 + 5, said, SIZE, anchor="middle", kind="tick")


def _legend(
    layout: Layout, entries: Sequence[tuple[str, Callable[[Canvas, float, float], None]]], columns: int
) -> None:
    """The legend below the x axis label, outside every panel: it covers no data."""
    canvas = layout.canvas
    top = layout.bottom - math.ceil(len(entries) / columns) * (LINE * SIZE + 2) - 12
    column_width = max((width_of(text) for text, _ in entries), default=0) + 34
    x0 = layout.left + max(0.0, (AXES_WIDTH - column_width * columns) / 2)
    for index, (text, draw) in enumerate(entries):
        x = x0 + (index % columns) * column_width
        y = top + (index // columns) * (LINE * SIZE + 2)
        draw(canvas, x + 10, y + LINE * SIZE / 2)
        canvas.text(x + 24, y, text, SIZE, kind="legend")
    canvas.width = max(canvas.width, x0 + column_width * columns + 12)
    canvas.height = layout.bottom


def _empty(heading: str, said: str) -> Canvas:
    canvas = Canvas(max(640, width_of(said) + 40, width_of(heading, HEADING_SIZE) + 40), 0, heading)
    top = _heading(canvas, heading, "", 20, canvas.width - 40)
    canvas.text(canvas.width / 2, top + 16, said, SIZE, anchor="middle", kind="text")
    canvas.height = top + 16 + LINE * SIZE + 24
    return canvas


# --- compare -------------------------------------------------------------------------------
def deviations(groups: Sequence[Group], limits: Limits, path: str) -> list[str]:
    """Each member's deviation per group, the group's mean |deviation| (what the tolerance
    bounds) and the outlier threshold: a panel per round, model and scenario, in pages of
    PER_PAGE groups: `path`, then `<stem>-2<ext>`, ...; returns the files written."""
    return [save(canvas, path, number) for number, canvas in enumerate(_deviation_pages(groups, limits), 1)]


def images(groups: Sequence[Group], limits: Limits) -> list[str]:
    """The pages of `deviations` as data: URIs for an HTML page."""
    return [uri(canvas) for canvas in _deviation_pages(groups, limits)]


def page_count(groups: Sequence[Group]) -> int:
    """How many pages `deviations` draws."""
    return len(paged(groups, _panel)) or 1


def _panel(group: Group) -> str:
    return f"{group[0]['round']} {group[0]['model']} {group[0]['scenario']}"


def _deviation_pages(groups: Sequence[Group], limits: Limits) -> list[Canvas]:
    names = ", ".join(sorted({str(group["round"]) for group, _ in groups}))
    heading = f"{names or 'Compare'}: each result's deviation from its group's reference"
    if not groups:
        return [_empty(heading, _no_group(limits))]
    pages = paged(groups, _panel)
    return [
        deviation_page(page, limits, heading + (f", page {number} of {len(pages)}" if len(pages) > 1 else ""))
        for number, page in enumerate(pages, 1)
    ]


def _no_group(limits: Limits) -> str:
    """Why compare drew no group: no group of its divisions had results of enough submitters
    (a selection that takes no row stops compare before: published.Selection.taken)."""
    division = " or ".join(getattr(limits, "division", ()) or ("closed",))
    least = getattr(limits, "min_submitters", 2)
    return f"No comparable group has results from enough submitters ({least} or more, {division} division)."


ROWS_SAID = "Rows: the hardware (accelerators per node, nodes), the group's reference and its units."


def deviation_page(page: Sequence[tuple[str, list[Group]]], limits: Limits, heading: str) -> Canvas:
    """One page of `deviations`."""
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
        section.pitch = 8 + LINE * SIZE * max(_lines(section.labels), _lines(section.notes))
    units = sorted({str(group["units"]) for _, rows in page for group, _ in rows})
    xlabel = f"deviation from the group's reference ({_of(units)}), positive is better"
    points = [
        m["deviation"] * 100
        for _, rows in page
        for _, members in rows
        for m in members
        if m["role"] == "partner" and _finite(m.get("deviation"))
    ]
    points += [g["mean_abs_dev"] * 100 for _, rows in page for g, _ in rows if _finite(g.get("mean_abs_dev"))]
    points += [-limits.outlier * 100, limits.outlier * 100, limits.tolerance * 100, 0.0]
    low, high = min(points), max(points)
    pad = (high - low) * 0.06 or 1.0
    low, high = low - pad, high + pad
    outlier, tolerance = limits.outlier * 100, limits.tolerance * 100
    entries = _deviation_legend(page, outlier, tolerance)
    layout = _stacked(sections, heading, ROWS_SAID, xlabel, len(entries))
    canvas = layout.canvas
    _row_texts(layout, sections)
    for index, section in enumerate(sections):
        box = layout.panels[index]

        def at(value: float, index: int = index) -> float:
            return layout.x(index, value, low, high)

        canvas.line(at(0), box.y0, at(0), box.y1, GREY, 0.8)
        for side in (-1, 1):
            canvas.line(at(side * outlier), box.y0, at(side * outlier), box.y1, RED, 1.0, "4 3")
        canvas.line(at(tolerance), box.y0, at(tolerance), box.y1, GREEN, 1.4)
        for row, (group, members) in enumerate(section.rows):
            middle = box.y0 + (row + 0.5) * section.pitch
            for m in members:
                if m["role"] == "partner" and _finite(m.get("deviation")):
                    outlying = bool(m["outlier"])
                    kind = "outlier" if outlying else "partner"
                    canvas.marker(
                        "X" if outlying else "o", at(m["deviation"] * 100), middle, RED if outlying else BLUE, kind=kind
                    )
            if _finite(group.get("mean_abs_dev")):
                colour = GREEN if group["within_tolerance"] else ORANGE
                # Hollow and larger: a partner's dot at the same place shows through it.
                canvas.marker("D", at(group["mean_abs_dev"] * 100), middle, colour, kind="mean")
    _x_axis(layout, len(sections) - 1, low, high, percent=True)
    _legend(layout, entries, 2)
    return canvas


def _deviation_legend(page: Sequence[tuple[str, list[Group]]], outlier: float, tolerance: float) -> list[Entry]:
    """The legend of a deviation page: the lines, and each kind of point the page draws."""
    entries: list[Entry] = [
        (f"outlier threshold ±{outlier:.3g}%", lambda c, x, y: c.line(x - 8, y, x + 8, y, RED, 1.2, "4 3")),
        (
            f"tolerance {tolerance:.3g}% on the partners' mean |deviation|",
            lambda c, x, y: c.line(x - 8, y, x + 8, y, GREEN, 1.6),
        ),
    ]
    drawn = {
        (outlying, within)
        for _, rows in page
        for group, members in rows
        for outlying, within in [(bool(m["outlier"]), None) for m in members if m["role"] == "partner"]
        + ([(None, bool(group["within_tolerance"]))] if _finite(group.get("mean_abs_dev")) else [])
    }
    if (False, None) in drawn:
        entries.append(("a partner's deviation", lambda c, x, y: c.marker("o", x, y, BLUE)))
    if (True, None) in drawn:
        entries.append(("an outlier (named right of the plot)", lambda c, x, y: c.marker("X", x, y, RED)))
    if (None, False) in drawn:
        entries.append(("partners' mean |deviation|, beyond tolerance", lambda c, x, y: c.marker("D", x, y, ORANGE)))
    if (None, True) in drawn:
        entries.append(("partners' mean |deviation|, within tolerance", lambda c, x, y: c.marker("D", x, y, GREEN)))
    return entries


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _of(units: Sequence[str]) -> str:
    """What a deviation is a percentage of: the one unit, or each row's."""
    return f"% of its {units[0]}" if len(units) == 1 else "% of its reference, in the units beside each row"


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


# --- throughput against interactivity --------------------------------------------------------
SHAPES = ("o", "s", "^", "D")


def token_groups(groups: Sequence[Group]) -> list[Group]:
    """The groups of a throughput in tokens (Tokens/s): those a throughput-against-
    interactivity plot is about, whether or not their rows have an interactivity figure."""
    return [(g, m) for g, m in groups if str(g["units"]).startswith("Tokens")]


def series_of(groups: Sequence[Group]) -> list[tuple[str, Mapping[str, Any], list[tuple[float, float]]]]:
    """One series per comparable group (table.GROUP_KEY: a series never spans a round, model,
    scenario, unit or hardware): (its chart's title, the group, its (interactivity,
    throughput) points), the groups whose members have an interactivity figure only."""
    found = []
    for group, members in token_groups(groups):
        points = [
            (float(m["interactivity"]), float(m["Performance_Result"]))
            for m in members
            if _finite(m.get("interactivity")) and _finite(m.get("Performance_Result"))
        ]
        if points:
            found.append((f"{group['round']} {group['model']} {group['scenario']} ({group['units']})", group, points))
    return found


NOT_MEASURED = (
    "No result here has an interactivity figure: the published tables do not publish TPOT (not published). "
    "Compare a submission tree: its Server and Interactive logs hold the p99 TPOT."
)
NO_TOKENS = "No comparable group here is a token benchmark (Tokens/s): no interactivity to plot."


def throughput(groups: Sequence[Group], path: str) -> list[str]:
    """Throughput against interactivity (tokens/s per user, published.INTERACTIVITY), one
    chart per round, model, scenario and unit and one series per comparable group, in pages
    of PANELS_PER_PAGE charts: `<stem>-interactivity<ext>`, then `-interactivity-2`, ...;
    returns the files written."""
    return [save(canvas, path, number, "interactivity") for number, canvas in enumerate(throughput_pages(groups), 1)]


def throughput_images(groups: Sequence[Group]) -> tuple[list[str], str]:
    """The pages of `throughput` as data: URIs, and why there are none ("" when there are;
    the reason when no group is a token benchmark or none has an interactivity figure)."""
    if not token_groups(groups):
        return [], NO_TOKENS
    if not series_of(groups):
        return [], NOT_MEASURED
    return [uri(canvas) for canvas in throughput_pages(groups)], ""


def throughput_pages(groups: Sequence[Group]) -> list[Canvas]:
    names = ", ".join(sorted({str(group["round"]) for group, _ in groups}))
    heading = f"{names or 'Compare'}: throughput against interactivity, one series per comparable group"
    series = series_of(groups)
    if not series:
        return [_empty(heading, NOT_MEASURED if token_groups(groups) else NO_TOKENS)]
    charts: list[tuple[str, list[tuple[Mapping[str, Any], list[tuple[float, float]]]]]] = []
    for title, group, points in series:
        if not charts or charts[-1][0] != title:
            charts.append((title, []))
        charts[-1][1].append((group, points))
    pages = [charts[i : i + PANELS_PER_PAGE] for i in range(0, len(charts), PANELS_PER_PAGE)]
    return [
        throughput_page(page, heading + (f", page {number} of {len(pages)}" if len(pages) > 1 else ""))
        for number, page in enumerate(pages, 1)
    ]


def _scale(
    points: Sequence[tuple[float, float]],
) -> tuple[float, float, list[tuple[float, str]], list[tuple[float, str]]]:
    """A chart's ranges, from 0 to 10% above its highest point, and its ticks with their labels."""
    xhigh = max(x for x, _ in points) * 1.1
    yhigh = max(y for _, y in points) * 1.1

    def labelled(values: list[float]) -> list[tuple[float, str]]:
        step = values[1] - values[0] if len(values) > 1 else 1.0
        return [(value, tick_text(value, step)) for value in values]

    return xhigh, yhigh, labelled(ticks(0, xhigh)), labelled(ticks(0, yhigh))


def _series_name(group: Mapping[str, Any]) -> str:
    return wrapped(hardware(group["per_node"], group["hardware"], group["nodes"]), LABEL_WIDTH)


def throughput_page(
    charts: Sequence[tuple[str, Sequence[tuple[Mapping[str, Any], list[tuple[float, float]]]]]], heading: str
) -> Canvas:
    """One page of `throughput`: a chart per title, each series a colour and a shape, its
    legend right of the chart."""
    names = [_series_name(group) for _, rows in charts for group, _ in rows]
    scales = [_scale([p for _, points in rows for p in points]) for _, rows in charts]
    yticks = [text for scale in scales for _, text in scale[3]]
    left = 12 + max((width_of(t) for t in yticks), default=0) + 10 + LINE * SIZE + 6
    legend_width = max((width_of(n) for n in names), default=0) + 40
    width = left + AXES_WIDTH + legend_width + 12
    canvas = Canvas(width, 0, heading)
    said = "Each point a result: x its interactivity (1e9 / its p99 TPOT in ns), y its published throughput."
    top = _heading(canvas, heading, said, 12, width - 24)
    for (title, rows), (xhigh, yhigh, xvalues, yvalues) in zip(charts, scales, strict=True):
        canvas.text(left, top, title, TITLE_SIZE, kind="title")
        top += LINE * TITLE_SIZE + 2
        legend_height = sum(height_of(_series_name(group)) + 4 for group, _ in rows)
        height = max(CHART_HEIGHT, legend_height + 8)
        box = canvas.panel(left, top, AXES_WIDTH, height, title)

        def at(x: float, y: float, box: Box = box, xhigh: float = xhigh, yhigh: float = yhigh) -> tuple[float, float]:
            return box.x0 + x / xhigh * (box.x1 - box.x0), box.y1 - y / yhigh * (box.y1 - box.y0)

        for value, said in xvalues:
            x, _ = at(value, 0)
            canvas.line(x, box.y0, x, box.y1, "#ebebeb", 0.8)
            canvas.line(x, box.y1, x, box.y1 + 4, "#444")
            canvas.text(x, box.y1 + 8, said, SIZE, anchor="middle", kind="tick")
        for value, said in yvalues:
            _, y = at(0, value)
            canvas.line(box.x0, y, box.x1, y, "#ebebeb", 0.8)
            canvas.line(box.x0 - 4, y, box.x0, y, "#444")
            canvas.text(box.x0 - 6, y - LINE * SIZE / 2, said, SIZE, anchor="end", kind="tick")
        ylabel, middle = f"throughput ({rows[0][0]['units']})", (box.y0 + box.y1) / 2
        canvas.parts.append(
            f'<text class="ylabel" font-size="{SIZE}" text-anchor="middle" '
            f'transform="translate({_n(20)},{_n(middle)}) rotate(-90)">{markup_text(ylabel)}</text>'
        )
        half = width_of(ylabel) / 2
        canvas.boxes.append(
            Box("ylabel", ylabel, 20 - LINE * SIZE * 0.8, middle - half, 20 + LINE * SIZE * 0.2, middle + half)
        )
        legend_y = box.y0 + 4
        for index, (group, points) in enumerate(rows):
            colour, shape = COLOURS[index % len(COLOURS)], SHAPES[(index // len(COLOURS)) % len(SHAPES)]
            for x, y in points:
                canvas.marker(shape, *at(x, y), colour, kind="point")
            name = _series_name(group)
            canvas.marker(shape, box.x1 + 18, legend_y + LINE * SIZE / 2, colour)
            canvas.text(box.x1 + 30, legend_y, name, SIZE, kind="legend")
            legend_y += height_of(name) + 4
        top = box.y1 + LINE * SIZE + 8
        canvas.text(
            left + AXES_WIDTH / 2, top, "interactivity (tokens/s per user)", SIZE, anchor="middle", kind="xlabel"
        )
        top += LINE * SIZE + 14
    canvas.height = top + 4
    return canvas


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
    if not overall:
        said = f"No hardware has {which} results in two or more rounds."
        return [save(_empty(heading, said), path, 1)]
    pages = paged(overall, lambda s: f"{s.model} {s.scenario}")
    written = []
    for number, page in enumerate(pages, 1):
        said = heading + (f", page {number} of {len(pages)}" if len(pages) > 1 else "")
        written.append(save(rounds_page(page, names, said, which), path, number))
    return written


def rounds_page(
    page: Sequence[tuple[str, list[Series]]], names: Sequence[str], heading: str, which: str = "closed"
) -> Canvas:
    """One page of `rounds`; each panel has its own range (one panel's x46 would flatten
    every other panel's x1.05)."""
    sections = [Section(title, rows, [_series_label(s) for s in rows], []) for title, rows in page]
    bars = max(1, len(names))
    for section in sections:
        section.pitch = max(8 + LINE * SIZE * _lines(section.labels), 16 * bars + 8)
    units = sorted({s.units for _, rows in page for s in rows})
    entries: list[Entry] = [(name, _swatch(COLOURS[i % len(COLOURS)])) for i, name in enumerate(names)]
    subtitle = f"Rows: the hardware (accelerators per node, nodes); the first round's best in {', '.join(units)}."
    xlabel = f"best {which} result against the first round's (x; above 1 is faster)"
    layout = _stacked(sections, heading, subtitle, xlabel, len(entries), shared=False, columns=max(1, len(names)))
    canvas = layout.canvas
    _row_texts(layout, sections)
    band = 0.8 / bars
    for index, section in enumerate(sections):
        box = layout.panels[index]
        shown = [r for s in section.rows for r in s.ratios().values()]
        # 12% beyond the highest ratio, more where a bar's label needs the room to end inside.
        high = max(
            [max(shown) * 1.12] + [r * AXES_WIDTH / (AXES_WIDTH - 6 - width_of(f"x{r:.3f}", SMALL)) for r in shown]
        )
        for row, s in enumerate(section.rows):
            ratios = s.ratios()
            for i, round_name in enumerate(names):
                if round_name not in s.best:
                    continue
                value = ratios[round_name]
                y = box.y0 + (row + 0.1 + i * band) * section.pitch
                end = layout.x(index, value, 0, high)
                canvas.rect(box.x0, y, end - box.x0, band * section.pitch * 0.92, COLOURS[i % len(COLOURS)])
                said = f"x{value:.3f}"
                canvas.text(end + 3, y + band * section.pitch * 0.46 - LINE * SMALL / 2, said, SMALL, kind="ratio")
        one = layout.x(index, 1.0, 0, high)
        canvas.line(one, box.y0, one, box.y1, GREY, 0.8)
        _x_axis(layout, index, 0, high, prefix="x")
    _legend(layout, entries, max(1, len(names)))
    return canvas


def _swatch(colour: str) -> Callable[[Canvas, float, float], None]:
    """A legend's sample of a bar's colour."""

    def draw(canvas: Canvas, x: float, y: float) -> None:
        canvas.rect(x - 7, y - 5, 14, 10, colour)

    return draw


def _series_label(series: Series) -> str:
    from .across import _order

    first = min(series.best, key=_order)
    row = series.best[first]
    value = f"{_number(row.result)} {series.units}" if row.result is not None else "no value"
    return wrapped(hardware(series.per_node, series.hardware, series.nodes)) + "\n" + wrapped(f"{first}: {value}")


# The definition the interactivity plot draws (for the pages and the docs).
INTERACTIVITY = published.INTERACTIVITY
