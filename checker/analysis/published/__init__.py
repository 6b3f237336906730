"""The published results table: what `mlperf-check table` writes and what the analyses read.

collect.py gathers the round-independent facts of one result once, in the worker that
checked it; format.py writes rows in a round's published format, as the round file's
`table:` block describes it; load.py reads published tables back into rows with the
v5.1/v6.0 key names (checker/analysis/reader.py reads the files)."""

from __future__ import annotations

from .collect import DESCRIPTION_FIELDS, TPOT_ENDPOINTS, TPOT_KEY, table_row, tpot_p99_ns, valid_rows
from .format import FORMATS, TableFormat, dumps, published_numbers, render, to_csv
from .load import TEXT_KEYS, NoResults, formats, normalise, publish

__all__ = [
    "DESCRIPTION_FIELDS",
    "FORMATS",
    "TEXT_KEYS",
    "TPOT_ENDPOINTS",
    "TPOT_KEY",
    "NoResults",
    "TableFormat",
    "dumps",
    "formats",
    "normalise",
    "publish",
    "published_numbers",
    "render",
    "table_row",
    "to_csv",
    "tpot_p99_ns",
    "valid_rows",
]
