"""Reading published tables back: the bundled rounds' formats, a table's rows with the
v5.1/v6.0 key names (`normalise`), and the rows of a checked tree as a round publishes them
(`publish`), which compare and followup read. checker/analysis/reader.py reads the files."""

from __future__ import annotations

from typing import Any

from ...model import no_results_reason
from ...rounds import Round, RoundError, available_rounds, load_round
from ...settings import UsageError
from .collect import DESCRIPTION_FIELDS
from .format import TableFormat, in_order, rendered


def formats() -> list[TableFormat]:
    """The table formats of the bundled rounds (one per distinct `table:` block)."""
    found: list[TableFormat] = []
    for name in available_rounds():
        try:
            fmt = TableFormat.of(load_round(name))
        except RoundError:
            continue
        if fmt is not None and all(fmt.table != other.table for other in found):
            found.append(fmt)
    return found


def _format_of(keys: set[str], shape: str | None) -> TableFormat | None:
    """The bundled format whose keys a table's rows use most."""
    candidates = [f for f in formats() if shape is None or f.shape == shape]
    scored = [(len(keys & set(f.all_keys())), -i, f) for i, f in enumerate(candidates)]
    return max(scored, key=lambda s: s[:2])[2] if scored else None


def normalise(rows: list[dict[str, Any]], fmt: TableFormat | None) -> list[dict[str, Any]]:
    """Rows of a round's format with the v5.1/v6.0 key names: published keys renamed to their
    facts, and a separate power row merged into its performance row."""
    return merged(rows, fmt)[0]


def merged(rows: list[dict[str, Any]], fmt: TableFormat | None) -> tuple[list[dict[str, Any]], list[int]]:
    """`normalise`'s rows, and for each the index in `rows` of the row it was made from (a
    power row merged into its performance row makes none)."""
    if fmt is None:
        return rows, list(range(len(rows)))
    power_row, power_units = fmt.power.row, set(fmt.power.units)
    units, location = fmt.key("Performance_Units"), fmt.key("Location")
    out: list[dict[str, Any]] = []
    starts: list[int] = []
    for index, row in enumerate(rows):
        if power_row and row.get(units) in power_units and out and out[-1].get("Location") == row.get(location):
            out[-1].update({fact: row.get(key) for key, fact in power_row.items()})
            continue
        named = {fmt.fact(key): value for key, value in row.items()}
        if "p#" not in named and isinstance(named.get("host_processors_per_node"), int):
            named["p#"] = named["host_processors_per_node"]  # generate_final_report.py: p# = host_processors_per_node
        out.append(named)
        starts.append(index)
    return out, starts


def _typed(value: str) -> Any:
    """A CSV cell back to the published table's type: int, float, bool or text."""
    if value in ("True", "False"):
        return value == "True"
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value


TEXT_KEYS = ("host_processor_core_count", "Notes", "System", "Accelerator", "Processor", "Software")


def publish(
    rows: list[dict[str, Any]],
    base: str | None,
    first_id: int | None,
    round_name: str,
    with_description: bool = False,
    as_written: bool = True,
) -> list[dict[str, Any]]:
    """The rows as `round_name` publishes them (order, values), with the v5.1/v6.0 key names:
    what compare and followup read. With `base` and `first_id`, the publication keys too
    where the round's table has them; `as_written` as `render` says."""
    fmt = TableFormat.of(load_round(round_name))
    if fmt is None:
        raise RoundError(f"round {round_name} has no `table:` block")
    pairs = in_order(rows, fmt)  # each row's published values, made once
    ordered = [row for _, row in pairs]
    canonical = normalise(rendered(pairs, fmt, base, first_id, as_written), fmt)  # one row per result again
    for published, row in zip(canonical, ordered, strict=True):
        if row.get("tpot_p99_ns") is not None:  # measured, never published: the interactivity figure
            published["tpot_p99_ns"] = row["tpot_p99_ns"]
        if with_description:
            published.update({name: row[name] for name in DESCRIPTION_FIELDS if name in row})
    return canonical


class NoResults(UsageError):
    """A submission tree without a single result."""

    def __init__(self, path: str, round: Round) -> None:
        super().__init__(no_results_reason(path, round))
        self.path, self.round = path, round
