"""Reporters turn what a command found into words: text for people; JSON, CSV, SARIF and
JUnit for tools; annotations and a job summary for GitHub Actions.

Every command names its formats the same way, as a `Formats`: format name -> writer of its
result to a stream. checker.settings picks one from --format, else from the extension of -o
(EXTENSIONS; one that names no format the command writes is a usage error), else the
command's default, so `-o report.json` writes JSON with every command."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from ..escaping import visible_lines

Writer = Callable[..., None]  # (what the command found, ..., out)

# -o FILE without --format: the file's extension names the format.
EXTENSIONS = {
    ".json": "json",
    ".csv": "csv",
    ".sarif": "sarif",
    ".xml": "junit",
    ".txt": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
}


@dataclass(frozen=True)
class Formats:
    writers: dict[str, Writer]
    default: str = "text"

    @property
    def names(self) -> list[str]:
        return list(self.writers)

    def write(self, name: str, out: TextIO, *found: Any) -> None:
        self.writers[name](*found, out)


def as_data(render: Callable[..., str]) -> Writer:
    """A writer of `render`'s text as it is: a data format (JSON) that escapes for itself."""

    def write(*args: Any) -> None:
        *found, out = args
        out.write(render(*found))

    write.__name__ = render.__name__
    return write


def json_text(data: Any, indent: int | None = 2) -> str:
    """The one JSON serialisation of what any command found: `data` (plain dicts, lists,
    numbers and text, keyed as the output names them) as strict JSON (a non-finite number is
    null, with one warning naming where; text printable; anything else as its str), `indent`
    spaces deep, one newline at the end."""
    from .common import strict_json

    return strict_json(data, indent=indent, default=str) + "\n"


def as_json(document: Callable[..., Any], indent: int | None = 2) -> Writer:
    """The writer of a command's JSON: `document(*found)`, the data the command found as its
    JSON names it, written by `json_text`. Every command's JSON format is one of these
    (`document` says which data it writes)."""

    def write(*args: Any) -> None:
        *found, out = args
        out.write(json_text(document(*found), indent))

    write.__name__ = document.__name__
    write.document = document  # type: ignore[attr-defined]
    return write


def as_text(render: Callable[..., str]) -> Writer:
    """A writer of `render`'s text for people and spreadsheets: every line `visible`. A net
    only: a render escapes its own records (checker.escaping.text_lines, csv_text), as a
    newline inside a name cannot be told from a line break once the text is joined."""

    def write(*args: Any) -> None:
        *found, out = args
        out.write(visible_lines(render(*found)))

    write.__name__ = render.__name__
    return write


@functools.cache
def check_formats() -> Formats:
    """check's formats: each writer makes its own text safe. Its writers are imported here,
    not with the package: a command that writes none of them (`rules`) does not load them."""
    from . import csv_report, github_report, json_report, junit_report, sarif_report, text_report

    return Formats(
        {
            "text": text_report.write,
            "json": json_report.write,
            "csv": csv_report.write,
            "github": github_report.write,
            "sarif": sarif_report.write,
            "junit": junit_report.write,
        }
    )


def __getattr__(name: str) -> Any:
    """CHECK (check's formats) and WRITERS (the name of 0.1's check writers, CHANGELOG.md)."""
    if name == "CHECK":
        return check_formats()
    if name == "WRITERS":
        return check_formats().writers
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
