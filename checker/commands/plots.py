"""The plots: compare's deviations per comparable group and --across-rounds' ratios, drawn
with matplotlib (the `plot` extra) from plain data, in pages of PER_PAGE rows, one PNG each.

`deviations` takes compare's groups as `Comparison.each` gives them (a group's record and its
members' records); `rounds` takes --across-rounds' series. Nothing here computes a figure:
what a plot shows is what the text and JSON outputs say."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..output import save_figure

if TYPE_CHECKING:
    from .across import Series

PER_PAGE = 30
Group = tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]


class Limits(Protocol):
    """compare's options the deviation plot draws: the tolerance and the outlier threshold."""

    @property
    def tolerance(self) -> float: ...
    @property
    def outlier(self) -> float: ...


def paged(rows: Sequence[Any], per_page: int = PER_PAGE) -> list[Sequence[Any]]:
    """The rows cut into pages; one empty page when there are none (the plot still says so)."""
    return [rows[i : i + per_page] for i in range(0, len(rows), per_page)] or [[]]


def save(figure: Any, path: str, number: int) -> str:
    """Write page `number` of a plot and close it: `path` for the first page, then
    `<stem>-<number>.png` beside it. Returns the file written."""
    import matplotlib.pyplot as plt

    stem = path[:-4] if path.lower().endswith(".png") else path
    figure.tight_layout()
    target = path if number == 1 else f"{stem}-{number}.png"
    save_figure(figure, target, dpi=110)
    plt.close(figure)
    return target


def _percent(fraction: float) -> str:
    return f"{fraction * 100:.4g}%"


def _hardware(group: Mapping[str, Any]) -> str:
    return f"{group['per_node']}x {group['hardware']}" + (f" x {group['nodes']} nodes" if group["nodes"] > 1 else "")


def deviations(groups: Sequence[Group], limits: Limits, path: str, title: str = "Comparable results") -> list[str]:
    """Each member's deviation per group, the group's mean |deviation| (what the tolerance
    bounds) and the outlier threshold, in pages of PER_PAGE groups: `path`, then
    `<stem>-2.png`, ...; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tolerance, outlier = limits.tolerance, limits.outlier
    pages = paged(groups)
    written = []
    for page_number, page in enumerate(pages, 1):
        figure, axes = plt.subplots(figsize=(10, max(2.5, 0.42 * len(page) + 1.6)))
        for side in (-1, 1):
            axes.axvline(
                side * outlier * 100,
                color="tab:red",
                linestyle="--",
                linewidth=0.8,
                label=f"outlier threshold ±{_percent(outlier)}" if side > 0 else None,
            )
        axes.axvline(
            tolerance * 100,
            color="tab:green",
            linewidth=1.2,
            label=f"tolerance {_percent(tolerance)} on the partners' mean |deviation|",
        )
        axes.axvline(0, color="grey", linewidth=0.8)
        for row, (group, members) in enumerate(page):
            partners = [m["deviation"] * 100 for m in members if m["role"] == "partner"]
            axes.scatter(
                partners,
                [row] * len(partners),
                s=18,
                color="tab:blue",
                zorder=3,
                label="a partner's deviation" if row == 0 else None,
            )
            if group["mean_abs_dev"] is not None:
                axes.scatter(
                    [group["mean_abs_dev"] * 100],
                    [row],
                    marker="D",
                    s=30,
                    zorder=4,
                    color="tab:green" if group["within_tolerance"] else "tab:orange",
                    label="partners' mean |deviation|" if row == 0 else None,
                )
            for member in members:
                if member["outlier"]:
                    axes.annotate(
                        member["Submitter"],
                        (member["deviation"] * 100, row),
                        textcoords="offset points",
                        xytext=(4, 4),
                        fontsize=7,
                        color="tab:red",
                    )
        axes.set_yticks(range(len(page)))
        axes.set_yticklabels(
            [f"{g['model']} {g['scenario']} {_hardware(g)}"[:70] for g, _ in page],
            fontsize=7,
        )
        axes.set_xlabel("deviation from the reference (%), positive is better")
        axes.set_title(title + (f", page {page_number} of {len(pages)}" if len(pages) > 1 else ""))
        axes.invert_yaxis()
        axes.legend(loc="lower right", fontsize=7)
        written.append(save(figure, path, page_number))
    return written


def rounds(series: Sequence[Series], path: str, title: str = "The same hardware across rounds") -> list[str]:
    """One bar group per hardware key and benchmark (all submitters), one bar per round: the
    ratio to the first round. Pages of PER_PAGE groups: `path`, then `<stem>-2.png`, ...;
    returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .across import _order

    overall = [s for s in series if s.submitter is None]
    names = sorted({name for s in overall for name in s.best}, key=_order)
    written = []
    pages = paged(overall)
    for number, page in enumerate(pages, 1):
        figure, axes = plt.subplots(figsize=(10, max(2.5, 0.32 * len(page) * max(1, len(names)) / 1.5 + 1.5)))
        width = 0.8 / max(1, len(names))
        for i, name in enumerate(names):
            values = [s.ratios().get(name, 0.0) for s in page]
            axes.barh([y + i * width for y in range(len(page))], values, height=width, label=name)
        axes.axvline(1.0, color="grey", linewidth=0.8)
        axes.set_yticks([y + width * (len(names) - 1) / 2 for y in range(len(page))])
        axes.set_yticklabels([f"{s.model} {s.scenario} {s.per_node}x {s.hardware[:40]}" for s in page], fontsize=7)
        axes.set_xlabel("best result against the first round (above 1 is faster)")
        axes.set_title(f"{title} ({', '.join(names)})" + (f", page {number} of {len(pages)}" if len(pages) > 1 else ""))
        axes.invert_yaxis()
        axes.legend(fontsize=7)
        written.append(save(figure, path, number))
    return written
