"""What the commands share: one line for people on stderr, the round of a tree, the prelude of
a command on a submission tree, progress on a terminal, and writing through the one writer.

Every helper that cannot do what it is asked raises settings.UsageError (exit 2), whose
message names the file, the row or the folder to give instead. Imports are light: a command
that only lists something (`rules`, `rounds`) starts in a blink."""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..output import Plan, Target
from ..settings import Invocation, Settings, UsageError, config_of, one_of, output_format, round_file
from ..settings import missing_extra as missing_extra  # where the commands name it (checker.settings says it)

if TYPE_CHECKING:
    from rich.console import Console

    from ..reporters import Formats
    from ..rounds import Round
    from ..waivers import Waiver

OptionsT = TypeVar("OptionsT")
Tick = Callable[[int, int], None]


def one_line(message: str) -> str:
    """`message` on one line, every control character visible (checker.escaping.one_line)."""
    from ..escaping import one_line as on_one_line

    return on_one_line(message)


def say(message: str) -> None:
    """One line for people on stderr."""
    print(one_line(message), file=sys.stderr)


def warn(message: str) -> None:
    from ..reporters.common import warn as warning

    warning(message)


# --- the round --------------------------------------------------------------------------------
def load(name: str | None) -> Round:
    """The round file (a name or a path; the newest round by default), or a usage error."""
    from ..rounds import load_round, newest_round

    return load_round(newest_round() if name is None else name)  # "" is an unknown round, not the newest


def round_name(given: str | None, path: str, label: str = "", result: bool = False, quiet: bool = False) -> str:
    """--round when given. Without it, the round detected from the tree at `path` (a result
    folder when `result`): one line on stderr says which and why (unless `quiet`); a tree
    that mixes rounds is a usage error."""
    if given is not None:
        return given
    from ..detect import detect, detect_result

    found = (detect_result if result else detect)(path)
    if found.round is None:
        raise UsageError(label + found.reason)
    if not quiet:
        say(label + found.line)
    return found.round


def no_results(path: str, the_round: Round) -> UsageError:
    """The usage error of a tree that holds no results: it names the folder to give."""
    from ..model import no_results_reason

    return UsageError(no_results_reason(path, the_round))


def folder(path: str) -> None:
    if not os.path.isdir(path):
        raise UsageError(f"{path} is not a folder")


def on_tree(
    options: OptionsT,
    path: str,
    given: Mapping[str, Any],
    reads: Iterable[str | None] = (),
    quiet: bool = False,
) -> Invocation[OptionsT]:
    """The invocation of a command on the submission tree at `path`: the keys `given` (the
    command line's, None where it gives none) merged with the tree's configuration, which a
    line names; the round (detected when neither gives one, and said); and the outputs'
    plan, against what the command reads."""
    settings = Settings.of(config_of(path), given)
    if settings.said and not quiet:
        say(settings.said)
    name = round_name(settings.round, path, quiet=quiet)
    plan = Plan(reads=[*reads, settings.waivers, settings.path, round_file(settings.round)], trees=[path])
    return Invocation(options=options, settings=settings, round_name=name, round=load(name), plan=plan)


def waivers(path: str | None) -> tuple[Waiver, ...]:
    """The waivers of the file at `path` (none without one), or a usage error."""
    from ..waivers import load_waivers

    return tuple(load_waivers(path)) if path else ()


# --- formats and outputs ---------------------------------------------------------------------
def choose(formats: Formats, given: str | None, output: str | None) -> str:
    """The format to write: --format, else -o's extension, else the command's default; each
    checked where every command's is (settings.one_of, settings.output_format)."""
    from ..reporters import EXTENSIONS

    if given is not None:
        return one_of(given, formats.names, "--format")
    named = output_format(output, formats.names, EXTENSIONS)
    return formats.default if named == "auto" else named


def emit(plan: Plan, formats: Formats, name: str, target: Target | None, *found: Any) -> None:
    """Write what a command found in the format `name`, whole, to its target or stdout."""
    plan.write(target, lambda out: formats.write(name, out, *found))


def pages(plan: Plan, target: Target, draw: Callable[[str], list[str]]) -> None:
    """Write a plot's pages (checker.output), and say where when there are several."""
    written = plan.pages(target, draw)
    if len(written) > 1:
        say(f"{len(written)} pages: {', '.join(written)}")


# --- progress --------------------------------------------------------------------------------
def _progress_console() -> Console:
    """Where progress goes: stderr (a test gives a console that is a terminal)."""
    from rich.console import Console

    return Console(stderr=True, emoji=False)  # a path such as a:b:c is no emoji code


@contextlib.contextmanager
def progress(enabled: bool, what: str = "checking") -> Iterator[Tick | None]:
    """A transient progress bar on stderr when `enabled` and stderr is a terminal: yields the
    tick(done, total) that engine.check reports to, else None (nothing is printed)."""
    if not enabled:
        yield None
        return
    console = _progress_console()
    if not console.is_terminal:
        yield None
        return
    from rich.progress import Progress

    from ..escaping import visible

    with Progress(console=console, transient=True) as bar:
        task = bar.add_task(visible(what), total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


# --- one command, start to end -----------------------------------------------------------------
EXIT_USAGE, EXIT_INTERNAL = 2, 3
EXIT_PIPE = 128 + 13  # stdout closed by its reader: as a process ended by SIGPIPE


def call(name: str, given: Mapping[str, Any]) -> int:
    """Run the command `name` (the module checker.commands.`name`) on the command line's
    values `given`: its `CommandLine`, then its `invocation`, then its `run`; the exit code. It
    never ends silently: a usage error or an output that cannot be written is one line and
    2; stdout closed by its reader (`| head`) ends quietly, as SIGPIPE would; any other
    exception is one line and 3 (a traceback is no message)."""
    from ..output import PipeClosed, reader_gone

    try:
        module = importlib.import_module(f"{__package__}.{name}")
        return int(module.run(module.invocation(module.CommandLine(**given))))
    except UsageError as error:  # the one user error (checker.errors): RoundError, OutputError, ... too
        fail(str(error))
        return EXIT_USAGE
    except PipeClosed:
        return pipe_closed()
    except Exception as error:  # noqa: BLE001 - every exception is reported, in one line
        if isinstance(error, BrokenPipeError) and reader_gone():
            return pipe_closed()
        say(
            f"internal error: {type(error).__name__}: {error} (a bug: please report it with the command "
            "line; findings about the input are never this error)"
        )
        return EXIT_INTERNAL


def fail(message: str) -> None:
    """A usage error's line on stderr: `error: ...`."""
    from rich.console import Console
    from rich.markup import escape

    console = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)  # `:a:` is no emoji code
    console.print(f"[bold red]error:[/] {escape(one_line(message))}")


def pipe_closed() -> int:
    """stdout's reader has gone: nothing more can reach it; end quietly, as SIGPIPE would."""
    from ..output import quiet_stdout

    quiet_stdout()
    return EXIT_PIPE
