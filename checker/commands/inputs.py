"""The command line's reading of the analyses' inputs: checker.analysis.reader reads each table
or tree; this says on stderr what it left out, with a progress bar while a tree is checked."""

from __future__ import annotations

import os

from ..analysis.reader import Table, left_out_lines, rows_of
from .common import progress, warn


def table_rows(path: str, name: str | None, with_description: bool = False, shown: bool = False) -> Table:
    """`rows_of`, with a tree without results or a file that is not a results
    table a usage error; a progress bar on a terminal while a tree is checked, when `shown`.
    A row left out (a column that breaks its declared type) is a warning naming the file,
    the row and the column, and an input that gives no row says why."""
    with progress(shown and os.path.isdir(path), f"checking {path}") as tick:
        found = rows_of(path, name, with_description, tick)  # a TableError, NoResults: UsageErrors
    for line in left_out_lines(path, found.left_out):
        warn(line)
    reason = found.empty_reason()
    if reason:
        warn(reason)
    return found
