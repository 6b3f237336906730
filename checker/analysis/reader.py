"""Results tables as the analyses read them: bounded, labelled and typed.

compare, claims and followup read results tables (a round's published file: a JSON list of
rows or an object keyed "0", "1", ...; or the CSV of `table`) and submission trees (checked
first; each valid result is a table row). One reader serves them all:

- Bounds. A file is read only when it is a regular file of at most MAX_TABLE_BYTES (a FIFO
  or a larger file is refused before anything is read), parsed only when it holds at most
  MAX_TABLE_CELLS values (its commas, counted before parsing, bound them), and its rows are
  looked at only when there are at most MAX_TABLE_ROWS and it nests no deeper than
  parsers.MAX_DEPTH. The largest published table (v5.1: 2.2 MB, 1,448 rows, 50,397 commas)
  is a tenth of each or less, and whatever a file holds, reading it peaks below 200 MB
  (about 125 MB for the costliest shape at the caps; tests/test_analysis_inputs.py).
- Shape. What is not a results table (not UTF-8, not JSON, not a list of objects, a CSV line
  with more or fewer cells than its header) is a TableError (a usage error, exit 2) that
  names the file and the row.
- Types. Every column the analysis computes with is declared once, in COLUMNS: its kind and
  its range. A row whose value breaks its column's declaration (a wrong type, NaN, an
  infinity, a negative or absurd number) is left out, with a `LeftOut` that names the file,
  the row and the column (a warning); the other rows are used.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import yamlsafe
from ..parsers import MAX_DEPTH, nests_deeper, number
from ..settings import UsageError

MAX_TABLE_BYTES = 16 * 1024 * 1024
MAX_TABLE_CELLS = 500_000
MAX_TABLE_ROWS = 50_000
ROUND_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_INDEX_KEY = re.compile(r"[0-9]{1,9}")


class TableError(UsageError):
    """A file that is not a results table this reader takes; the message names it."""


# --- the declaration ---------------------------------------------------------------------
@dataclass(frozen=True)
class Column:
    """The declared type of one column of a results-table row (v5.1/v6.0 key names).

    kind: `name` (non-empty text), `text` (a text, a number or empty; not a list or an
    object), `round` (a round's name: letters, digits, `.`, `_`, `-`), `count` (a whole
    number, also written 8.0 or "8"), `number` (a finite number). `low` and `high` bound a
    count or a number (inclusive); `positive` asks for a number above 0. A column that is not
    `required` may be absent, null or empty."""

    key: str
    kind: str
    required: bool = False
    low: float | None = None
    high: float | None = None
    positive: bool = False

    def problem(self, row: dict[str, Any]) -> str | None:
        """What is wrong with this column of `row`, or None."""
        value = row.get(self.key)
        if value is None or value == "":
            return f"no {self.key}" if self.required else None
        wrong = getattr(self, f"_{self.kind}")(value)
        return f"{self.key} is {shown(value)}, {wrong}" if wrong else None

    def _name(self, value: Any) -> str | None:
        return None if isinstance(value, str) and value.strip() else "not a name"

    def _text(self, value: Any) -> str | None:
        return "not a value" if isinstance(value, (dict, list)) else None

    def _round(self, value: Any) -> str | None:
        return None if isinstance(value, str) and ROUND_NAME.fullmatch(value) else "not a round's name"

    def _count(self, value: Any) -> str | None:
        if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value.strip()) < 16:
            value = int(value)
        whole = (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
        if whole and self.low <= value <= self.high:
            return None
        return f"not a whole number from {self.low:g} to {self.high:g}"

    def _flag(self, value: Any) -> str | None:
        return None if isinstance(value, bool) else "not true or false"

    def _number(self, value: Any) -> str | None:
        if number(value) is not None and not (isinstance(value, float) and math.isnan(value)):
            above = value > 0 if self.positive else self.low is None or value >= self.low
            if above and value <= self.high:
                return None
        return f"not a {'positive ' if self.positive else ''}number of at most {self.high:g}"


# What compare, claims and followup compute with. The ranges are far beyond any published
# row (v5.1 to v6.1: results 0.0138 to 5.75e6, power 27.5 to 10,442, at most 72 nodes, 16
# accelerators per node, 20 processors per node) and far below what breaks arithmetic.
COLUMNS = (
    Column("Category", "name", required=True),
    Column("Model", "name", required=True),
    Column("Scenario", "name", required=True),
    Column("Submitter", "name", required=True),
    Column("Performance_Units", "name", required=True),
    Column("Performance_Result", "number", required=True, positive=True, high=1e12),
    Column("Power_Result", "number", positive=True, high=1e9),
    Column("tpot_p99_ns", "number", positive=True, high=1e12),  # a tree's rows: the measured p99 TPOT
    Column("Nodes", "count", low=1, high=100_000),
    Column("a#", "count", low=0, high=100_000),
    Column("p#", "count", low=0, high=100_000),
    Column("version", "round"),
    *(Column(key, "text") for key in ("Accelerator", "Processor", "Location", "System", "Platform", "Availability")),
)


# The columns a results table has in its header (a CSV's first line, the keys of a JSON table's
# rows): the required ones, and those the hardware key is made of. A table without one is not a
# results table (a missing Accelerator would make every system CPU-only, a missing
# Performance_Result would leave every row out), said once, naming the column.
HEADER = (*(column.key for column in COLUMNS if column.required), "Accelerator", "a#")
NUMERIC = {column.key for column in COLUMNS if column.kind in ("number", "count")}


def missing_columns(path: str, keys: set[str]) -> None:
    """A TableError naming the HEADER columns that `keys` (a table's header) lacks."""
    missing = [key for key in HEADER if key not in keys]
    if missing:
        raise TableError(
            f"{path} is not a results table: it has no {', '.join(missing)} column"
            f"{'s' if len(missing) > 1 else ''} (a results table has {', '.join(HEADER)})"
        )


def shown(value: Any) -> str:
    """A value as a message names it: JSON's words for JSON's types, long text cut."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int) and abs(value) >= 10**15:
        return f"a {len(str(abs(value)))}-digit number"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def problem(row: dict[str, Any]) -> tuple[str, str] | None:
    """(column, what is wrong) for the first column of `row` that breaks COLUMNS, or None."""
    for column in COLUMNS:
        wrong = column.problem(row)
        if wrong:
            return column.key, wrong
    return None


# --- what a reader gives ---------------------------------------------------------------------
@dataclass(frozen=True)
class LeftOut:
    """A row left out because a column breaks its declaration."""

    source: str
    label: str  # `row 3`, `row "2"`, `line 4`, or the result's location
    column: str
    problem: str

    def message(self) -> str:
        return f"{self.source}: {self.label}: {self.problem}; the row is left out"


@dataclass
class Table:
    """The rows of one input, typed; `labelled` as written, each with its label."""

    source: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    labelled: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    results: int | None = None  # a tree: how many results it holds
    invalid: int = 0  # a tree: how many of them are invalid (not rows)
    labels: list[str] = field(default_factory=list)  # where each of `rows` is: `row 3`, `line 4`, a location

    def positions(self) -> list[str]:
        """Where each row is, as a warning names it: `t.json row 3`, `tree: closed/...`."""
        labels = (
            self.labels if len(self.labels) == len(self.rows) else [f"row {n}" for n in range(1, len(self.rows) + 1)]
        )
        return [
            f"{self.source} {label}" if label.startswith(("row ", "line ")) else f"{self.source}: {label}"
            for label in labels
        ]

    def empty_reason(self) -> str | None:
        """Why this input gives no row to compute with, or None when it gives some."""
        if self.rows:
            return None
        if self.results is not None:
            return f"{self.source}: no valid result ({self.invalid} of {self.results} invalid; `mlperf-check check` says why)"
        if self.left_out:
            count = len(self.left_out)
            return f"{self.source}: every row is left out ({count} row{'s' if count > 1 else ''})"
        return f"{self.source}: the table holds no rows"


def typed(source: str, labelled: list[tuple[str, dict[str, Any]]]) -> tuple[list[int], list[LeftOut]]:
    """The indexes of the rows whose columns keep their declarations, and a LeftOut for each other."""
    kept, left_out = [], []
    for index, (label, row) in enumerate(labelled):
        wrong = problem(row)
        if wrong is None:
            kept.append(index)
        else:
            left_out.append(LeftOut(source, label, *wrong))
    return kept, left_out


# --- files -----------------------------------------------------------------------------------
def _text_of(path: str) -> str:
    """The text of a table file, within the byte and cell caps; TableError otherwise."""
    try:
        text = yamlsafe.read_regular(path, MAX_TABLE_BYTES, what="")
    except yamlsafe.YamlError as error:
        raise TableError(str(error)) from None
    cells = text.count(",") + (text.count("\n") if path.endswith(".csv") else 0) + 1
    if cells > MAX_TABLE_CELLS:
        raise TableError(f"{path} holds more than {MAX_TABLE_CELLS} values; a results table holds far fewer")
    return text


def _csv_records(path: str, text: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        records = [(reader.line_num, record) for record in reader]
    except csv.Error as error:
        raise TableError(f"{path} is not a readable CSV table: line {reader.line_num + 1}: {error}") from None
    if not records:
        return [], []
    header = records[0][1]
    found = []
    for line, record in records[1:]:
        if not record:
            continue
        if len(record) != len(header):
            raise TableError(f"{path}: line {line}: {len(record)} cells, but the header has {len(header)}")
        found.append((f"line {line}", record))
    return header, found


def _few(path: str, records: list[Any] | dict[str, Any]) -> None:
    if len(records) > MAX_TABLE_ROWS:
        raise TableError(f"{path} holds {len(records)} rows, more than the {MAX_TABLE_ROWS} a results table may hold")


def _json_rows(path: str, text: str) -> tuple[str, list[tuple[str, Any]]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise TableError(f"{path} is not JSON: {error.msg} (line {error.lineno}, column {error.colno})") from None
    except RecursionError:
        data = None
    if isinstance(data, (list, dict)):
        _few(path, data)
    if data is None or nests_deeper(data):
        raise TableError(f"{path} nests lists or objects more than {MAX_DEPTH} deep; a results table is a list of rows")
    if isinstance(data, dict) and all(isinstance(key, str) and _INDEX_KEY.fullmatch(key) for key in data):
        return "index", [(f'row "{key}"', data[key]) for key in sorted(data, key=int)]
    if isinstance(data, list):
        return "list", [(f"row {number}", row) for number, row in enumerate(data, 1)]
    raise TableError(f'{path} is not a results table (a JSON list of rows, or an object keyed "0", "1", ...)')


def read_table(path: str) -> Table:
    """The rows of a results table file, typed, with the v5.1/v6.0 key names (a power row of
    v6.1's format merged into its performance row). TableError for a file that is not one."""
    from .published.load import TEXT_KEYS, _format_of, _typed, merged

    text = _text_of(path)
    header: list[str] = []
    if path.endswith(".csv"):
        header, records = _csv_records(path, text)
        _few(path, records)
        fmt = _format_of(set(header), None)
        text_keys = {fmt.key(k) for k in TEXT_KEYS} if fmt is not None else set(TEXT_KEYS)
        written = [
            (
                label,
                {
                    k: (v if k in text_keys else _typed(v))
                    for k, v in zip(header, record, strict=True)
                    if v != "" or k in text_keys
                },
            )
            for label, record in records
        ]
    else:
        shape, written = _json_rows(path, text)
        for label, row in written:
            if not isinstance(row, dict):
                raise TableError(f"{path}: {label} is {shown(row)}, not an object of keys and values")
        fmt = _format_of({key for _, row in written for key in row}, shape)
        # A number written as text ("8840.42") is read as a CSV cell is: the same value.
        numeric = {fmt.key(k) for k in NUMERIC} if fmt is not None else NUMERIC
        written = [
            (label, {k: _typed(v) if k in numeric and isinstance(v, str) else v for k, v in row.items()})
            for label, row in written
        ]
    labelled = [(label, {fmt.fact(k): v for k, v in row.items()} if fmt else dict(row)) for label, row in written]
    if labelled:
        header = header if path.endswith(".csv") else [key for _, row in written for key in row]
        missing_columns(path, {fmt.fact(key) if fmt else key for key in header})
    kept, left_out = typed(path, labelled)
    rows, starts = merged([written[i][1] for i in kept], fmt)
    return Table(
        source=path,
        rows=rows,
        labelled=[labelled[i] for i in kept],
        left_out=left_out,
        labels=[labelled[kept[i]][0] for i in starts],
    )


def load_table(path: str) -> list[dict[str, Any]]:
    """The typed rows of a results table file (`read_table(path).rows`); TableError for a
    file that is not one."""
    return read_table(path).rows


def table_of(
    path: str, round_name: str | None, jobs: int | None = None, with_description: bool = False
) -> list[dict[str, Any]]:
    """The valid rows of a submission tree (checked with the round), or the rows of a table
    file. `with_description` adds the system-description fields that explain differences
    between systems (framework, software stack, host processor, memory, cooling, notes) to
    tree rows."""
    from ..engine import check
    from ..rounds import newest_round
    from .published import publish, table_row, valid_rows

    if not os.path.isdir(path):
        return load_table(path)
    report = check(path, round_name or newest_round(), jobs=jobs, collect=table_row)
    return publish(valid_rows(report), None, None, report.round.name, with_description)


def rows_of(
    path: str,
    round_name: str | None,
    with_description: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Table:
    """The typed rows of a table file, or the valid rows of a submission tree (checked with
    the round, reporting to `progress` as engine.check does; labelled by their location).
    Raises NoResults for a tree without results and TableError for a file that is not a table."""
    from ..engine import check
    from ..rounds import newest_round
    from .published import NoResults, publish, table_row, valid_rows

    if not os.path.isdir(path):
        return read_table(path)
    report = check(path, round_name or newest_round(), progress=progress, collect=table_row)
    if not report.results:
        raise NoResults(path, report.round)
    rows = publish(valid_rows(report), None, None, report.round.name, with_description)
    labelled = [(str(row.get("Location") or "a result"), row) for row in rows]
    kept, left_out = typed(path, labelled)
    return Table(
        source=path,
        rows=[rows[i] for i in kept],
        left_out=left_out,
        results=len(report.results),
        invalid=sum(1 for r in report.results if not r.valid),
        labels=[labelled[i][0] for i in kept],
    )


LEFT_OUT_SHOWN = 10  # rows left out of a table that are named one by one


def left_out_lines(source: str, left_out: list[LeftOut]) -> list[str]:
    """The warnings for the rows of `source` left out: the first LEFT_OUT_SHOWN named one by
    one, then how many more. The command line prints them and the API warns them, alike."""
    lines = [row.message() for row in left_out[:LEFT_OUT_SHOWN]]
    if len(left_out) > LEFT_OUT_SHOWN:
        lines.append(f"{source}: {len(left_out) - LEFT_OUT_SHOWN} more rows left out (the same way or another)")
    return lines
