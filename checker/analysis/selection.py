"""The one selection: which rows of the typed table an analysis takes, by one matching rule.

Every filter of every door (compare, claims, followup, the report, and the Python API) is a
`Selection`; no analysis matches names any other way. The rule, per filter:

- model: the round's name for the model or the name the submitter used, case-blind, `_` and
  `.` alike ("llama3_1-8b" is "llama3.1-8b");
- scenario, submitter, round, division: the name, case-blind (a round this version knows in
  its own spelling: "V6.1" is v6.1);
- accelerator: a part of the hardware key (the accelerator without its count, or the
  processor of a CPU-only system) that starts a word, case-blind: "H200" takes
  "NVIDIA H200-NVL-141GB" and "NVIDIA H200-SXM-141GB", not "NVIDIA GH200 Grace Hopper";
  "B300" takes "NVIDIA B300-SXM-270GB", not "NVIDIA GB300". A value that is a whole hardware
  name of the table (trademark marks, spaces and case aside) takes that name only, so that
  "AMD Instinct MI355X 288GB HBM3e" does not also take "... (Power Cap 1000 W)". A filter that
  takes several hardware names says so (`pooled`, a note in every output).

Several values of one filter take any of them; several filters take the rows all of them
take. A filter value that no row can have (a blank, an unknown division) is a UsageError, and
a selection that takes no row of a table that has some says which filter took none.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import option
from ..rounds import available_rounds
from ..settings import UsageError, WrongType
from .table import Row, fold, frame, one_spelling

if TYPE_CHECKING:
    import pandas as pd

FILTERS = ("model", "scenario", "submitter", "accelerator", "round", "division")


DIVISIONS = ("closed", "open", "network")  # what --division takes (every round's divisions)


def _names(key: str, values: str | Iterable[str] | None) -> tuple[str, ...]:
    """A filter's values, checked: text that is not blank, and for division one of DIVISIONS
    (case-blind). TypeError for what is not text, UsageError (a ValueError) for a value no
    row can have: the CLI and the API refuse the same values with the same message."""
    if values is None:
        return ()
    if not isinstance(values, str):
        try:
            values = tuple(values)
        except TypeError:
            raise WrongType(f"{option(key)}: give a name or a list of names, not {values!r}", key) from None
    names = (values,) if isinstance(values, str) else values
    for value in names:
        if not isinstance(value, str):
            raise WrongType(f"{option(key)}: give a name or a list of names, not {value!r}", key)
        if not value.strip():
            raise UsageError(f"{option(key)} {value!r}: give a name, not a blank", key)
        if key == "division" and value.strip().lower() not in DIVISIONS:
            raise UsageError(f"{option('division')} {value}: the divisions are {', '.join(DIVISIONS)}", "division")
    if key == "round":
        return tuple(round_spelled(value) for value in names)
    return tuple(value.strip() for value in names)


def round_spelled(given: str) -> str:
    """A round this version knows, in its own spelling ("V6.1" is v6.1), else `given` as it is
    (stripped): the one reading of a round's name, for --round and every filter."""
    known = {name.lower(): name for name in available_rounds()}
    return known.get(given.strip().lower(), given.strip())


@dataclass(frozen=True)
class Selection:
    """Which rows an analysis takes: each field is the values it accepts (any of them; none
    given takes every row). model: the round's name or the submitter's (case-blind, `_` and
    `.` alike); scenario, submitter, round, division: the name, case-blind; accelerator: a
    part of the hardware key (case-blind), so "H200" takes H200 NVL and H200-SXM alike, and
    `pooled` says so."""

    model: tuple[str, ...] = ()
    scenario: tuple[str, ...] = ()
    submitter: tuple[str, ...] = ()
    accelerator: tuple[str, ...] = ()
    round: tuple[str, ...] = ()
    division: tuple[str, ...] = ()

    @classmethod
    def of(cls, **given: str | Iterable[str] | None) -> Selection:
        """A selection from keyword arguments: a name or a list of names each, None for any."""
        unknown = sorted(set(given) - set(FILTERS))
        if unknown:
            raise WrongType(f"unknown filter {', '.join(unknown)}; the filters are {', '.join(FILTERS)}")
        return cls(**{key: _names(key, value) for key, value in given.items()})

    def __bool__(self) -> bool:
        return any(getattr(self, key) for key in FILTERS)

    def given(self) -> dict[str, list[str]]:
        """The filters given, for an output to show."""
        return {key: list(getattr(self, key)) for key in FILTERS if getattr(self, key)}

    def mask(self, table: pd.DataFrame) -> pd.Series:
        """Which rows of a frame of COLUMNS the selection takes (the one place it is decided)."""
        import pandas as pd

        def blind(column: str) -> pd.Series:
            return table[column].fillna("").astype(str).str.strip().str.lower()

        def any_of(column: str, wanted: tuple[str, ...], spelling: Callable[[str], str] = str.lower) -> pd.Series:
            return blind(column).map(spelling).isin({spelling(w.strip().lower()) for w in wanted})

        def dotted(text: str) -> str:
            return text.replace("_", ".")

        taken = pd.Series(True, index=table.index)
        if self.model:
            taken &= any_of("model", self.model, dotted) | any_of("used_model", self.model, dotted)
        for key in ("scenario", "submitter", "round", "division"):
            if getattr(self, key):
                taken &= any_of(key, getattr(self, key))
        if self.accelerator:
            hardware = table["hardware"].fillna("").astype(str).map(fold)
            names = set(hardware)
            taken &= functools.reduce(
                lambda a, b: a | b,
                (hardware.map(lambda key, w=wanted: _takes(w, key, names)) for wanted in self.accelerator),
            )
        return taken

    def taken(self, table: pd.DataFrame) -> pd.Series:
        """`mask`, or a UsageError (a ValueError) saying why when the filters take no row of a
        table that has some: no command ends on an empty selection without saying why."""
        taken = self.mask(table)
        if len(table) and not taken.any():
            raise UsageError(self.why_empty(table))
        return taken

    def why_empty(self, table: pd.DataFrame) -> str:
        """Which filter takes no row of `table`, and the values the table has for it."""
        given = "; ".join(f"{key} {', '.join(values)}" for key, values in self.given().items())
        for key in FILTERS:
            alone = Selection(**{key: getattr(self, key)})
            if getattr(self, key) and not alone.mask(table).any():
                column = "hardware" if key == "accelerator" else key
                values = sorted({str(v) for v in table[column].dropna()}, key=str.lower)
                shown = ", ".join(values[:12]) + (f", ... ({len(values)} in all)" if len(values) > 12 else "")
                return f"no row matches the selection ({given}): no row has {key} {', '.join(getattr(self, key))}; the {key} values are {shown}"
        return f"no row matches the selection ({given}) as a whole; each filter alone takes some rows"

    def select(self, rows: list[Row]) -> list[Row]:
        """The rows the selection takes, in their order."""
        if not self or not rows:
            return list(rows)
        taken = self.mask(frame(rows)).tolist()
        return [row for row, keep in zip(rows, taken, strict=True) if keep]

    def fields(self, notes: Sequence[str]) -> dict[str, Any]:
        """The filters given and the notes on what they took, for a JSON output: nothing without a filter."""
        return {"selection": self.given(), "notes": list(notes)} if self else {}

    def lines(self, notes: Sequence[str]) -> list[str]:
        """The filters given and the notes on what they took, for a text output: none without a filter."""
        if not self:
            return []
        given = "; ".join(f"{key} {', '.join(values)}" for key, values in self.given().items())
        return [f"Selection: {given}", *(f"note: {note}" for note in notes), ""]

    def notes(self, hardware: Iterable[str]) -> list[str]:
        """What a reader of the selected rows needs to know, given their `hardware` keys: an
        accelerator filter that takes different hardware names pools them."""
        keys = set(hardware)
        names = {fold(key) for key in keys}
        found = (
            pooled(wanted, [key for key in keys if _takes(wanted, fold(key), names)]) for wanted in self.accelerator
        )
        return [note for note in found if note]


def _takes(wanted: str, key: str, names: set[str]) -> bool:
    """Whether the accelerator filter `wanted` takes the hardware key `key` (folded: marks and
    spaces removed, case folded) among the folded `names` of the table: the whole name when
    `wanted` is one of them, else a part of it that starts a word."""
    whole = fold(wanted)
    if whole in names:
        return key == whole
    return bool(_part(wanted).search(key))


def _part(wanted: str) -> re.Pattern[str]:
    """An accelerator filter as it matches a hardware key in lower case: a part of it that
    starts a word ("h200" takes "nvidia h200-nvl-141gb", not "nvidia gh200 grace hopper")."""
    return re.compile(r"(?<![a-z0-9])" + re.escape(wanted.strip().lower()))


def pooled(wanted: str, names: Iterable[str]) -> str | None:
    """The note for an accelerator selection `wanted` that took rows of several hardware `names`."""
    distinct = sorted(set(one_spelling(names).values()), key=str.lower)
    if len(distinct) < 2:
        return None
    return f"accelerator {wanted!r} takes {len(distinct)} different names: {'; '.join(distinct)}"
