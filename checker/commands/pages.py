"""Plots in pages: compare and --across-rounds draw PER_PAGE rows a page, one PNG each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..output import save_figure

PER_PAGE = 30


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
