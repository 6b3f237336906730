"""Reporters turn what a command found into words: text for people; JSON, CSV, SARIF and
JUnit for tools; annotations and a job summary for GitHub Actions.

Every command names its formats the same way, as a `Formats`: format name -> writer of its
result to a stream. `choose` picks one from --format, else from the extension of -o, else
the command's default, so `-o report.json` writes JSON with every command."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from .common import visible_lines

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


class FormatError(ValueError):
    """A format the command does not write; the message lists those it does."""


@dataclass(frozen=True)
class Formats:
    writers: dict[str, Writer]
    default: str = "text"

    @property
    def names(self) -> list[str]:
        return list(self.writers)

    def choose(self, given: str | None, output: str | None = None) -> str:
        """--format when given; else the format -o's extension names (a format the command
        does not write is a FormatError: `rules -o x.csv` never writes text into x.csv); else
        the default."""
        if given is not None:
            if given not in self.writers:
                from ..suggest import closest

                close = closest(given, self.names)
                hint = f" (did you mean {close}?)" if close else ""
                raise FormatError(f"unknown format {given!r}; choose {_either(self.names)}{hint}")
            return given
        extension = os.path.splitext(output)[1].lower() if output not in (None, "-") else ""
        by_name = EXTENSIONS.get(extension)
        if by_name is not None and by_name not in self.writers:
            raise FormatError(
                f"-o {output}: {extension} names the {by_name} format, which this command does not write; "
                f"give --format {_either(self.names)}, or a file name ending in {_either(self._extensions())}"
            )
        return by_name if by_name in self.writers else self.default

    def _extensions(self) -> list[str]:
        return [extension for extension, name in EXTENSIONS.items() if name in self.writers]

    def write(self, name: str, out: TextIO, *found: Any) -> None:
        self.writers[name](*found, out)


def _either(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]


def as_data(render: Callable[..., str]) -> Writer:
    """A writer of `render`'s text as it is: a data format (JSON) that escapes for itself."""

    def write(*args: Any) -> None:
        *found, out = args
        out.write(render(*found))

    write.__name__ = render.__name__
    return write


def as_text(render: Callable[..., str]) -> Writer:
    """A writer of `render`'s text for people and spreadsheets: every line `visible`."""

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
