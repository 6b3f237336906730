"""How mlperf-check uses typer: help without type tags, the options several commands
declare alike, and the command line's run.

- Help: an option shows its metavar (FILE, N, CODES; a flag none), an argument its name; no
  `[default: ...]` for a flag, nor where the help already says it.
- A failure outside every command (in typer itself) is still one line and exit 3."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import typer

from . import __version__

EXIT_INTERNAL = 3

# What --help shows in place of a value's type (typer prints `<str>`, `<list[str]>`): the
# parameter's name in capitals, or these; a flag shows nothing.
METAVARS = {
    "output": "FILE",
    "waivers": "FILE",
    "mapping": "FILE",
    "plot": "FILE",
    "jobs": "N",
    "min_submitters": "N",
    "first_id": "N",
    "select": "CODES",
    "ignore": "CODES",
    "inference_repo": "CLONE",
    "changed_since": "GIT_REF",
    "publish_base": "URL",
    "timeout": "SECONDS",
    "tolerance": "FRACTION",
    "outlier": "FRACTION",
    "table": "ROUND=PATH",
    "workdir": "DIR",
}


def _plain(param: Any) -> None:
    """A parameter's help without type tags: an option shows its metavar (a flag none), an
    argument its name; no `[default: ...]` for a flag, nor where the help already says it."""
    if param.metavar is None:
        if getattr(param, "is_flag", False) or getattr(param, "count", False):
            param.metavar = ""
        else:
            param.metavar = METAVARS.get(param.name or "", (param.name or "value").upper())
    if isinstance(param, typer.core.TyperArgument):
        param.display_type_rich = lambda ctx: None  # type: ignore[method-assign] # its name says what it is
    if getattr(param, "is_flag", False) or "default" in (getattr(param, "help", None) or "").lower():
        param.show_default = False


# --- options several commands declare alike ---------------------------------------------------
def whole(value: int | None) -> int | None:
    if value is not None and value < 0:
        raise typer.BadParameter(f"{value}: give 0 (all cores) or more")
    return value


def round_option(
    help: str = "Round name (e.g. v6.1) or round file; default: the config's round, else detected.",
) -> Any:
    return typer.Option(None, "--round", "-r", help=help)


def format_option(help: str) -> Any:
    return typer.Option(None, "--format", "-f", help=help)


def output_option(what: str = "report") -> Any:
    return typer.Option(None, "--output", "-o", help=f"File for the {what} (default stdout).")


def tree_argument() -> Any:
    return typer.Argument(..., help="Folder holding closed/, open/ or network/ submissions.")


def jobs_option() -> Any:
    return typer.Option(None, "--jobs", "-j", callback=whole, help="Worker processes (default: all cores).")


def progress_option() -> Any:
    return typer.Option(True, "--progress/--no-progress", help="Progress bar on a terminal (stderr).")


def tolerance_option() -> Any:
    return typer.Option(
        None,
        "--tolerance",
        help="More than this much worse is materially different (default: the round's audit threshold, 0.02).",
    )


WAIVERS = "YAML file of waivers, each with a reason."
CHECK_FORMATS = (
    "auto, text, json, csv, github, sarif or junit; FORMAT:FILE writes to a file. Repeatable. auto is github "
    "under GitHub Actions. Without it, -o FILE.json writes JSON (the extension decides)."
)
TEXT_JSON_CSV = "text, json or csv (default: -o's extension, else text)."


class _PlainHelp:
    """Every parameter `_plain`, --help included (click adds it in get_params)."""

    def get_params(self, ctx: Any) -> list[Any]:
        params: list[Any] = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            _plain(param)
        return params


class Command(_PlainHelp, typer.core.TyperCommand):
    pass


class Group(_PlainHelp, typer.core.TyperGroup):
    pass


def plain_commands(app: typer.Typer) -> None:
    """Every command of `app` a `Command` (one that names its own class keeps it)."""
    for info in app.registered_commands:
        if info.cls in (None, typer.core.TyperCommand):
            info.cls = Command


def print_version(value: bool) -> None:
    """--version: print it and exit."""
    if value:
        typer.echo(f"mlperf-check {__version__}")
        raise typer.Exit(0)


def run(app: typer.Typer) -> None:
    """Run the command line `app`: a failure outside every command (in typer itself) is still
    one line and exit 3."""
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr] # the writers escape; the last guard
    try:
        app()
    except Exception as error:  # noqa: BLE001 - one line, exit 3
        from .commands.common import one_line

        print(one_line(f"internal error: {type(error).__name__}: {error}"), file=sys.stderr)
        raise SystemExit(EXIT_INTERNAL) from None
