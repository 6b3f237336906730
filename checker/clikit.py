"""How mlperf-check uses typer: the app (new_app, run), the options several commands declare
alike, help without type tags, and values read without pydantic.

- Help: an option shows its metavar (FILE, N, CODES; a flag none), an argument its name; no
  `[default: ...]` for a flag, nor where the help already says it.
- Values: typer (0.2x) builds a pydantic TypeAdapter for every parameter of the command it
  runs, even one not given, and importing pydantic alone takes about 0.1 s, which `rules`,
  `rounds`, `explain` and `check --changed-since` would pay at every start. A value that is
  absent, a string, or a plain whole or decimal number needs none: it is read here, as the
  adapter would read it. Anything else (a value that is no number) goes to typer's own
  adapter, so its messages stay typer's. With a typer that builds no adapters this changes
  nothing."""

from __future__ import annotations

import contextlib
import re
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

_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_ANY = re.compile(".*", re.DOTALL)
_NONE = re.compile("(?!)")  # a flag's value is a bool already; text goes to typer
_PLAIN = {str: _ANY, int: _WHOLE, float: _DECIMAL, bool: _NONE}


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
def round_option(
    help: str = "Round name (e.g. v6.1) or round file; default: the config's round, else detected.",
) -> Any:
    return typer.Option(None, "--round", "-r", help=help)


FILTERS = {
    "model": "the round's name or the submitter's, e.g. llama2-70b-99",
    "scenario": "e.g. Offline",
    "submitter": "e.g. AMD",
    "accelerator": 'a part of its name that starts a word, e.g. MI355X; "H200" takes H200 NVL and H200-SXM, not GH200 (a note says so)',
    "round": "e.g. v6.1",
    "division": "closed, open or network",
}


def filter_option(name: str, default: str | None = None) -> Any:
    """--NAME: the rows of an analysis (compare, --across-rounds, claims) with this NAME; repeatable."""
    shown = f"; default: {default}" if default else ""
    return typer.Option(
        None, f"--{name}", help=f"Only the rows of this {name} ({FILTERS[name]}); repeatable, any of them{shown}."
    )


# The filters' options, made once: a list default is a function call ruff (B008) asks to make once.
MODEL, SCENARIO, SUBMITTER, ACCELERATOR, ROUND, DIVISION = (filter_option(name) for name in FILTERS)
CLOSED_DIVISION = filter_option("division", "closed")


def format_option(help: str) -> Any:
    return typer.Option(None, "--format", "-f", help=help)


def output_option(what: str = "report") -> Any:
    return typer.Option(None, "--output", "-o", help=f"File for the {what} (default stdout).")


def tree_argument() -> Any:
    return typer.Argument(..., help="Folder holding closed/, open/ or network/ submissions.")


def jobs_option() -> Any:
    return typer.Option(None, "--jobs", "-j", help="Worker processes (default: all cores).")


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


class _Plain:
    """The value of a parameter of type str, int, float or bool (or a list of them), read as
    typer's adapter reads it where that needs no adapter; typer's own reading otherwise."""

    def __init__(self, param: Any, kind: type, many: bool) -> None:
        self.param, self.kind, self.many = param, kind, many
        self._typer: Any = None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:
            return () if self.many else None
        items = value if self.many and isinstance(value, (list, tuple)) else None
        if items is not None and all(self._plain(item) for item in items):
            return [self._read(item) for item in items]
        if items is None and not self.many and self._plain(value):
            return self._read(value)
        if self._typer is None:
            from typer._coercion import build_runtime_param

            self._typer = build_runtime_param(self.param.type_descriptor)
        return self._typer.coerce(value, param=param, ctx=ctx)

    def _plain(self, item: Any) -> bool:
        """Whether `item` is of the type already (a default), or text the type reads as is."""
        if type(item) is self.kind:
            return True
        return isinstance(item, str) and _PLAIN[self.kind].fullmatch(item) is not None

    def _read(self, item: Any) -> Any:
        return item if type(item) is self.kind else self.kind(item)


def _light(param: Any) -> None:
    """Give a parameter of type str, int, float or bool (or a list of them) the reading above."""
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or getattr(param, "_runtime_param", ...) is not None:
        return  # a typer without runtime adapters, or one already built
    annotation = descriptor.annotation
    many = getattr(annotation, "__origin__", None) is list
    kind = annotation.__args__[0] if many else annotation
    info = descriptor.parameter_info
    constrained = any(getattr(info, name, None) is not None for name in ("min", "max", "parser", "click_type"))
    if kind in _PLAIN and not constrained and descriptor.file_annotation is None:
        param._runtime_param = _Plain(param, kind, many)


class _PlainHelp:
    """Every parameter `_plain` and `_light`, --help included (click adds it in get_params)."""

    def get_params(self, ctx: Any) -> list[Any]:
        params: list[Any] = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            _plain(param)
            _light(param)
        return params


def _given_once(ctx: Any, order: list[Any]) -> None:
    """A usage error (exit 2) for an option that takes one value given more than once: the
    last would silently replace the others (`-o a.sarif -o b.xml` wrote b.xml only)."""
    seen: set[int] = set()
    for param in order:
        if getattr(param, "param_type_name", "") != "option" or param.is_flag or param.multiple or param.count:
            continue
        if id(param) in seen:
            more = " (several outputs: --format FORMAT:FILE for each)" if param.name == "output" else ""
            raise typer.BadParameter(f"given more than once; it takes one value{more}", ctx=ctx, param=param)
        seen.add(id(param))


class Command(_PlainHelp, typer.core.TyperCommand):
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Parse as click does, once an option that takes one value is given at most once."""
        if args and not ctx.resilient_parsing:
            try:
                _, _, order = self.make_parser(ctx).parse_args(args=list(args))
            except Exception:  # noqa: BLE001 - click's own parse below says what is wrong
                order = []
            _given_once(ctx, order)
        return list(super().parse_args(ctx, args))


class Group(_PlainHelp, typer.core.TyperGroup):
    pass


def plain_commands(app: typer.Typer) -> None:
    """Every command of `app` a `Command` (one that names its own class keeps it)."""
    for info in app.registered_commands:
        if info.cls in (None, typer.core.TyperCommand):
            info.cls = Command


def new_app(help: str) -> typer.Typer:
    """The command line: plain help, -h, shell completion, --version/-V, and no traceback."""
    app = typer.Typer(
        cls=Group,
        add_completion=True,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
        no_args_is_help=True,
        help=help,
        context_settings={"help_option_names": ["-h", "--help"]},
    )

    @app.callback()
    def _options(
        version: bool = typer.Option(
            False, "--version", "-V", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ) -> None:
        pass

    return app


def _print_version(value: bool) -> None:
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
