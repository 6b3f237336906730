"""The `mlperf-check` command line.

Every command ends by saying why: a report, or one line on stderr. Usage and configuration
errors (exit 2) are one line that names the file, the row or the folder to give instead; an
unexpected exception is one line and exit 3; a closed stdout (`| head`) ends quietly. Output
files are written whole or not at all (a temporary file in the same folder, then
os.replace), and what people read is `visible` (no control character reaches a terminal)."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from . import __version__
from .commands import TIMEOUT as RERUN_TIMEOUT
from .config import Config, ConfigError
from .config import find as find_config
from .registry import SelectionError, check_codes
from .reporters.common import visible, warn
from .rounds import Round, RoundError, available_rounds, load_round, newest_round

if TYPE_CHECKING:
    from .engine import Report
    from .output import Plan, Target
    from .reporters import Formats

# The engine, the model and the reporters are imported where a command uses them, so that
# `check --changed-since` has git walking the tree (scope.Changes) before they load.

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_PIPE = 128 + 13  # stdout closed by its reader: as a process ended by SIGPIPE

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
        param.display_type_rich = lambda ctx: None  # its name says what it is
    if getattr(param, "is_flag", False) or "default" in (getattr(param, "help", None) or "").lower():
        param.show_default = False


class _PlainHelp:
    """Every parameter `_plain`, --help included (click adds it in get_params)."""

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            _plain(param)
        return params


class _Command(_PlainHelp, typer.core.TyperCommand):
    pass


class _Group(_PlainHelp, typer.core.TyperGroup):
    pass


app = typer.Typer(
    cls=_Group,
    add_completion=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help="Check MLPerf Inference submissions against their round's rules.",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"mlperf-check {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _options(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    pass


def _one_line(message: str) -> str:
    return visible(" ".join(part.strip() for part in str(message).splitlines() if part.strip()))


def _fail(message: str) -> NoReturn:
    Console(stderr=True, highlight=False, soft_wrap=True).print(f"[bold red]error:[/] {escape(_one_line(message))}")
    raise typer.Exit(EXIT_USAGE)


def _say(message: str) -> None:
    """One line for people on stderr."""
    print(_one_line(message), file=sys.stderr)


def _split(values: list[str] | None) -> list[str]:
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def _plan(reads: Iterable[str | None] = (), trees: Iterable[str | None] = ()) -> Plan:
    """The outputs of a command, checked before any work against what it reads (checker.output)."""
    from .output import Plan

    return Plan(reads, trees)


def _round_file(name: str | None) -> str | None:
    """`--round` (or the config's round) when it is a file a command reads, else None."""
    from .rounds import is_path

    return name if name and is_path(name) else None


def _targets(
    plan: Plan, formats: list[str], output: str | None, config: Config | None = None, tree: str | None = None
) -> list[tuple[str, Target | None]]:
    """`--format json:out.json --format text` -> [(json, out.json), (text, stdout)]. Without
    --format, `-o out.json` writes JSON (the extension decides), else the `auto` format; with
    --format FMT:FILE for every format, `-o FILE` is one output more, its format named the same
    way (as pytest writes --junitxml beside its other reports). `config` is where the formats
    came from when no option named them; its FILEs are then relative to it, and confined when
    it is inside the checked `tree`."""
    from .reporters import CHECK, EXTENSIONS

    def by_extension(path: str) -> str:
        named = EXTENSIONS.get(os.path.splitext(path)[1].lower())
        return named if named in CHECK.writers else "auto"  # .md, .html: not check's, so auto

    if not formats and output is not None:
        formats = [by_extension(output)]
    chosen = formats or ["auto"]
    automatic = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    chosen = [automatic + f[len("auto") :] if f == "auto" or f.startswith("auto:") else f for f in chosen]
    named: list[tuple[str, str | None, str]] = []  # (format, file or None for stdout, the option that named it)
    for item in chosen:
        name, _, path = item.partition(":")
        if name not in CHECK.writers:
            _fail(f"unknown format {name!r}; choose from {', '.join(CHECK.names)}")
        named.append((name, path or None, f"--format {name}:"))
    unnamed = [t for t in named if t[1] is None]
    if output is not None:
        if len(unnamed) > 1:
            _fail("-o names one file, but several formats have no file of their own")
        if unnamed:
            named = [(name, output, "-o") if path is None else (name, path, option) for name, path, option in named]
        else:
            named.append((automatic if by_extension(output) == "auto" else by_extension(output), output, "-o"))
    elif len(unnamed) > 1:
        _fail("several formats would write to stdout; give each a file (--format json:out.json)")
    base = config.folder if config is not None else None
    confined = base is not None and tree is not None and _inside_tree(base, tree)
    targets = []
    for name, path, option in named:
        if config is not None:
            targets.append((name, plan.add(path, f"{config.label('format')} {name}:", base, confined)))
        else:
            targets.append((name, plan.add(path, option)))
    return targets


def _inside_tree(folder: str, tree: str) -> bool:
    """Whether `folder` (a configuration file's) is the checked `tree` or inside it, or holds
    the division folder `tree` is in (a submitter folder was given)."""
    from .output import submission_areas

    real = os.path.realpath(folder)
    roots = {os.path.realpath(tree)} | {os.path.dirname(area) for area in submission_areas(tree)}
    return any(real == root or real.startswith(root + os.sep) for root in roots)


def _round_name(given: str | None, path: str, label: str = "", result: bool = False, quiet: bool = False) -> str:
    """--round when given. Without it, the round detected from the tree at `path` (a result
    folder when `result`): one line on stderr says which and why (unless `quiet`); a tree
    that mixes rounds is a usage error."""
    if given is not None:
        return given
    from .detect import detect, detect_result

    found = (detect_result if result else detect)(path)
    if found.round is None:
        _fail(label + found.reason)
    if not quiet:
        _say(label + found.line)
    return found.round


def _round_or_fail(name: str | None) -> Round:
    """The round file (a name or a path; the newest round by default), or a usage error."""
    try:
        return load_round(newest_round() if name is None else name)  # "" is an unknown round, not the newest
    except RoundError as error:
        _fail(str(error))


def _no_results(path: str, the_round: Round) -> NoReturn:
    """The usage error of a tree that holds no results: it names the folder to give."""
    from .model import no_results_reason

    _fail(no_results_reason(path, the_round))


def _table_rows(path: str, round_name: str | None, with_description: bool = False, progress: bool = False) -> Any:
    """commands.inputs.rows_of, with a tree without results or a file that is not a results
    table a usage error; a progress bar on a terminal while a tree is checked, when
    `progress`. A row left out (a column that breaks its declared type) is a warning naming
    the file, the row and the column, and an input that gives no row says why."""
    from .commands.inputs import rows_of

    try:
        with _progress(progress and os.path.isdir(path), f"checking {path}") as tick:
            found = rows_of(path, round_name, with_description, tick)
    except ValueError as error:  # NoResults too: its message is no_results_reason's
        _fail(str(error))
    for left_out in found.left_out[:LEFT_OUT_SHOWN]:
        warn(left_out.message())
    if len(found.left_out) > LEFT_OUT_SHOWN:
        warn(f"{path}: {len(found.left_out) - LEFT_OUT_SHOWN} more rows left out (the same way or another)")
    reason = found.empty_reason()
    if reason:
        warn(reason)
    return found


LEFT_OUT_SHOWN = 10


def _format(formats: Formats, given: str | None, output: str | None) -> str:
    """The format to write: --format, else -o's extension, else the command's default."""
    from .reporters import FormatError

    try:
        return formats.choose(given, output)
    except FormatError as error:
        _fail(str(error))


def _fraction(value: float | None, option: str) -> None:
    """A usage error unless `value` is a fraction (0 to 1): 4 meant as 4% would make every
    group within tolerance, and no result an outlier."""
    if value is None or 0 <= value <= 1:
        return
    example = f"{value / 100:g} for {value:g}%" if 1 < value <= 100 else "0.04 for 4%"
    _fail(f"{option} {value:g}: give a fraction, e.g. {example}")


def _emit(plan: Plan, formats: Formats, name: str, target: Target | None, *found: Any) -> None:
    """Write what a command found in the format `name`, whole, to its target or stdout."""
    plan.write(target, lambda out: formats.write(name, out, *found))


def _config(path: str) -> Config:
    """The configuration of the tree at `path` ([tool.mlperf-check] of the nearest
    pyproject.toml), or a usage error naming the file and the key."""
    try:
        return find_config(path)
    except ConfigError as error:
        _fail(str(error))


class _Settings:
    """Option values, each the command line's when given, else the configuration's; `said`
    tells on stderr, once, which configuration file a value came from."""

    def __init__(self, config: Config, quiet: bool = False) -> None:
        self.config, self.quiet, self.taken = config, quiet, False

    def pick(self, key: str, given: Any) -> Any:
        if given is not None and given != []:
            return given
        value = self.config.get(key)
        if value is not None:
            self.taken = True
        return value if value is not None else given

    def said(self) -> None:
        if self.taken and not self.quiet:
            _say(f"config: {self.config.path}")
            self.taken = False


def _progress_console() -> Console:
    """Where progress goes: stderr (a test gives a console that is a terminal)."""
    return Console(stderr=True)


@contextlib.contextmanager
def _progress(enabled: bool, what: str = "checking") -> Iterator[Callable[[int, int], None] | None]:
    """A transient progress bar on stderr when `enabled` and stderr is a terminal: yields the
    tick(done, total) that engine.check reports to, else None (nothing is printed)."""
    console = _progress_console()
    if not enabled or not console.is_terminal:
        yield None
        return
    from rich.progress import Progress

    with Progress(console=console, transient=True) as bar:
        task = bar.add_task(visible(what), total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def _check_formats(quiet: bool, statistics: bool, color: str) -> Formats:
    """check's formats, with the text report as -q, --statistics and --color ask."""
    from .reporters import CHECK, Formats, text_report

    return Formats(
        {**CHECK.writers, "text": functools.partial(text_report.write, quiet=quiet, statistics=statistics, color=color)}
    )


def _progress_option() -> Any:
    return typer.Option(True, "--progress/--no-progress", help="Progress bar on a terminal (stderr).")


def _whole(value: int | None) -> int | None:
    if value is not None and value < 0:
        raise typer.BadParameter(f"{value}: give 0 (all cores) or more")
    return value


def _jobs_option() -> Any:
    return typer.Option(None, "--jobs", "-j", callback=_whole, help="Worker processes (default: all cores).")


@app.command()
def check(
    paths: list[str] = typer.Argument(
        ...,
        metavar="PATH",
        help="Folder holding closed/, open/ or network/ submissions; or files inside one: "
        "the results they affect (as pre-commit passes them).",
    ),
    round: str | None = typer.Option(
        None, "--round", "-r", help="Round name (e.g. v6.1) or round file; default: the config's round, else detected."
    ),
    format: list[str] | None = typer.Option(
        None,
        "--format",
        "-f",
        help="auto, text, json, csv, github, sarif or junit; FORMAT:FILE writes to a "
        "file. Repeatable. auto is github under GitHub Actions. "
        "Without it, -o FILE.json writes JSON (the extension decides).",
    ),
    output: str | None = typer.Option(None, "--output", "-o", help="File for the output (default stdout)."),
    select: list[str] | None = typer.Option(None, "--select", help="Only these codes or prefixes (PRF,RNG001)."),
    ignore: list[str] | None = typer.Option(None, "--ignore", help="Skip these codes or prefixes."),
    waivers: str | None = typer.Option(None, "--waivers", help="YAML file of waivers, each with a reason."),
    jobs: int | None = _jobs_option(),
    progress: bool = _progress_option(),
    inference_repo: str | None = typer.Option(
        None, "--inference-repo", help="Clone of mlcommons/inference: runs the loadgen provenance rules."
    ),
    strict: bool = typer.Option(False, "--strict", help="Treat every warning as an error."),
    changed_since: str | None = typer.Option(
        None, "--changed-since", help="Git ref: check only the results changed since it."
    ),
    quiet: bool = typer.Option(
        False,
        "--quiet",
        "-q",
        help="Text report: only invalid results and their findings, then the counts; no informational lines on stderr.",
    ),
    statistics: bool = typer.Option(
        False,
        "--statistics",
        help="Text report: a count per code (count, code, name, severity) in place of the findings.",
    ),
    exit_zero: bool = typer.Option(
        False,
        "--exit-zero",
        help="Exit 0 even when errors are found (still 2 for a usage error and 3 for an internal one).",
    ),
    color: str = typer.Option(
        "auto",
        "--color",
        metavar="auto|always|never",
        help="Colour in the text report: auto (a terminal, and NO_COLOR unset), always or never.",
    ),
) -> None:
    """Check a submission tree and print a verdict per result.

    Given files (or several paths) inside a tree, check every result they affect, each as a
    whole check of the tree judges it. Options not given come from [tool.mlperf-check] in
    the nearest pyproject.toml (round, select, ignore, waivers, jobs, format)."""
    path, given = _given(paths)
    if given is not None and not given.inside:
        _say(_narrowed_line(None, None, given, 0))
        raise typer.Exit(EXIT_OK)
    if color not in ("auto", "always", "never"):
        _fail(f"--color {color}: choose auto, always or never")
    changes = None
    if changed_since:  # git lists the changes while the round and the rules load
        from .scope import Changes

        if given is not None:
            _fail("--changed-since takes one folder, not files: give the folder that holds closed/, open/ or network/")
        changes = _EARLY.pop((path, changed_since), None) or Changes(path, changed_since)
    from .engine import check as run_check
    from .engine import load_all
    from .model import holds_results
    from .reporters import CHECK
    from .waivers import WaiverError, load_waivers

    settings = _Settings(_config(path), quiet)
    config = settings.config
    load_all()
    try:
        check_codes(_split(select), "--select")
        check_codes(_split(ignore), "--ignore")
        if not select:
            check_codes(config.get("select") or [], config.label("select"))
        if not ignore:
            check_codes(config.get("ignore") or [], config.label("ignore"))
    except SelectionError as error:
        _fail(str(error))
    select, ignore = settings.pick("select", _split(select)), settings.pick("ignore", _split(ignore))
    waivers, jobs = settings.pick("waivers", waivers), settings.pick("jobs", jobs)
    round = settings.pick("round", round)
    from_config = not format and output is None and bool(config.get("format"))
    if from_config:  # -o or --format replaces them
        unknown = [
            item.partition(":")[0]
            for item in config.get("format")
            if item.partition(":")[0] not in ("auto", *CHECK.names)
        ]
        if unknown:
            _fail(
                f"{config.label('format')}: unknown format {unknown[0]!r}; choose from auto, {', '.join(CHECK.names)}"
            )
        format = settings.pick("format", format)
    settings.said()
    if inference_repo is not None:
        _repository_or_fail(inference_repo)
    round_name = _round_name(round, path, quiet=quiet)
    the_round = _round_or_fail(round_name)
    try:
        waiver_list = load_waivers(waivers) if waivers else []
    except WaiverError as error:
        _fail(str(error))
    plan = _plan(reads=[waivers, config.path, _round_file(round), inference_repo], trees=[path])
    targets = _targets(plan, list(format or []), output, config if from_config else None, path)
    scope = _scope(changes, given, path, the_round)
    with _progress(progress) as tick:
        report = run_check(
            path,
            round_name,
            select,
            ignore,
            jobs or None,
            waiver_list,
            tick,
            inference_repo=inference_repo,
            strict=strict,
            scope=scope,
        )

    formats = _check_formats(quiet, statistics, color)
    if scope is not None and not quiet:
        _say(_narrowed_line(scope, changed_since, given, len(report.results)))
    if not report.results and (scope is None or not holds_results(path, the_round)) and not report.has_errors:
        if report.findings:
            formats.write("text", sys.stderr, report)  # what was found explains, but it is no check of results
        _no_results(path, the_round)
    # A tree whose submitters cannot be entered (links out of it) has no results, but its
    # errors say why: exit 1 with the report, as for any error.
    if not any(name == "text" for name, _ in targets):
        # Data goes to stdout or files; people still get the text report on stderr.
        formats.write("text", sys.stderr, report)
    for name, target in targets:
        _emit(plan, formats, name, target, report)
    code = exit_code(report)
    raise typer.Exit(EXIT_OK if exit_zero and code == EXIT_FINDINGS else code)


def _scope(changes: Any, given: _Given | None, path: str, the_round: Round) -> Any:
    """The Scope of a narrowed check: git's changes since the ref, or the paths given; None
    for a whole check."""
    from .model import locate
    from .scope import scope_of

    if changes is not None:
        try:
            # git names the changes relative to PATH; the scope names them from the root
            # the engine checks (PATH's parent or grandparent for a division or submitter folder)
            named = "".join(part + "/" for part in locate(path, the_round)[1])
            return scope_of({named + name: how for name, how in changes.statuses().items()}, the_round)
        except ValueError as error:
            _fail(str(error))
    if given is None:
        return None
    scope = scope_of(given.inside, the_round, given.folders)
    return dataclasses.replace(scope, outside=tuple(sorted(scope.outside + given.outside)))


@dataclasses.dataclass(frozen=True)
class _Given:
    """Paths given to `check` inside a tree, relative to its root (POSIX): `inside`, those of
    them that are folders, and `outside`, the paths given that lie in no division folder."""

    inside: tuple[str, ...]
    folders: frozenset[str]
    outside: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.inside) + len(self.outside)


def _given(paths: list[str]) -> tuple[str, _Given | None]:
    """The folder to check, and the paths given inside it (None when one folder is given:
    a tree, a division or a submitter folder, checked whole). A path lies in the tree
    above its division folder (closed/, open/, network/: any known round's); a path that is
    not there, and paths in two trees, are usage errors."""
    if len(paths) == 1 and os.path.isdir(paths[0]):
        return paths[0], None
    from .rounds import available_rounds

    divisions = {d for name in available_rounds() for d in _round_or_fail(name).divisions}
    here = os.getcwd().rstrip(os.sep).split(os.sep)
    roots: dict[str, str] = {}
    inside, folders, outside = [], set(), []
    for path in paths:
        if not os.path.lexists(path):
            _fail(f"{path}: no such file or folder")
        parts = os.path.abspath(path).split(os.sep)
        at = _division_at(parts, here, divisions)
        if at is None:
            outside.append(path)
            continue
        root = os.sep.join(parts[:at]) or os.sep
        shown = os.path.relpath(root)
        roots.setdefault(os.path.realpath(root), root if shown.startswith("..") else shown)
        inside.append("/".join(parts[at:]))
        if os.path.isdir(path):
            folders.add(inside[-1])
    if len(roots) > 1:
        _fail(f"the paths given lie in {len(roots)} trees ({', '.join(sorted(roots.values()))}): give those of one")
    return next(iter(roots.values()), "."), _Given(tuple(inside), frozenset(folders), tuple(outside))


def _division_at(parts: list[str], here: list[str], divisions: set[str]) -> int | None:
    """Where the division folder is among the parts of an absolute path: the outermost below
    the current folder `here` (pre-commit names files from the repository's root), else the
    innermost above it; for a path elsewhere, the outermost."""
    found = [i for i, part in enumerate(parts) if part in divisions]
    if parts[: len(here)] != here:
        return found[0] if found else None
    below = [i for i in found if i >= len(here)]
    above = [i for i in found if i < len(here)]
    return below[0] if below else above[-1] if above else None


def _narrowed_line(scope: Any, changed_since: str | None, given: _Given | None, checked: int) -> str:
    """What a narrowed check read and checked, and which paths affect no result."""
    if given is not None:
        line = f"{given.count} {'file' if given.count == 1 else 'files'} given; checked {checked} results"
    else:
        line = f"--changed-since {changed_since}: {scope.changed} changed files; checked {checked} results"
    outside = scope.outside if scope is not None else given.outside
    if outside:
        one = len(outside) == 1
        named = ", ".join(outside[:3]) + (f" and {len(outside) - 3} more" if len(outside) > 3 else "")
        line += (
            f"; {named} {'lies' if one else 'lie'} in no <division>/<submitter> folder and "
            f"{'affects' if one else 'affect'} no result"
        )
    return line


def exit_code(report: Report) -> int:
    """3 when a rule failed (INT001), 1 when an error is found, else 0."""
    if any(f.code == "INT001" for f in report.findings):
        return EXIT_INTERNAL
    return EXIT_FINDINGS if report.has_errors else EXIT_OK


@app.command()
def prepare(
    path: str = typer.Argument(
        ..., metavar="SRC", help="The submission: the folder holding closed/, open/ or network/."
    ),
    output: str = typer.Option(
        ..., "--output", "-o", metavar="DEST", help="A new or empty folder outside SRC for the prepared tree."
    ),
    round: str | None = typer.Option(
        None, "--round", "-r", help="Round name (e.g. v6.1) or round file; default: the config's round, else detected."
    ),
    submitter: str | None = typer.Option(None, "--submitter", metavar="ORG", help="Only this submitter's folders."),
    move_failed_to_open: bool = typer.Option(
        False,
        "--move-failed-to-open",
        help="Move a failing closed or network benchmark to open instead of removing it.",
    ),
    no_infer: bool = typer.Option(False, "--no-infer", help="Infer no result (scenarios, -99 from -99.9)."),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the change list; leave nothing written (its work folder beside DEST goes)."
    ),
    format: str = typer.Option("text", "--format", "-f", help="The change list: text or json (stdout)."),
    jobs: int | None = _jobs_option(),
    progress: bool = _progress_option(),
) -> None:
    """Write SRC ready for upload into DEST as the round's tools do: accuracy logs truncated
    with their hash, failing results removed (or moved to open), results inferred, empty
    folders removed. Prints the change list, then exits with the check of DEST."""
    from .commands import prepare as prep
    from .waivers import WaiverError, load_waivers

    format = _format(prep.FORMATS, format, None)
    if not os.path.isdir(path):
        _fail(f"{path} is not a folder")
    settings = _Settings(_config(path))
    select, ignore = settings.pick("select", []), settings.pick("ignore", [])
    waivers, jobs = settings.pick("waivers", None), settings.pick("jobs", jobs)
    round_name = _round_name(settings.pick("round", round), path)
    settings.said()
    _round_or_fail(round_name)
    try:
        waiver_list = load_waivers(waivers) if waivers else []
        with _progress(progress, f"checking the prepared copy of {path}") as tick:
            prepared = prep.prepare(
                path,
                output,
                round_name,
                submitter=submitter,
                move=move_failed_to_open,
                infer=not no_infer,
                dry_run=dry_run,
                select=select,
                ignore=ignore,
                waivers=waiver_list,
                jobs=jobs or None,
                progress=tick,
            )
    except (prep.PrepareError, WaiverError) as error:
        _fail(str(error))
    _emit(_plan(), prep.FORMATS, format, None, prepared)
    if prepared.report is not None and prepared.report.has_errors:  # why DEST still fails
        _check_formats(True, False, "auto").write("text", sys.stderr, prepared.report)
    if format != "text":
        _say(prep.summary(prepared))
    raise typer.Exit(prepared.exit_code)


@app.command()
def table(
    path: str = typer.Argument(..., help="Folder holding closed/, open/ or network/ submissions."),
    round: str | None = typer.Option(
        None, "--round", "-r", help="Round name (e.g. v6.1) or round file; default: the config's round, else detected."
    ),
    format: str | None = typer.Option(
        None,
        "--format",
        "-f",
        help="json (the round's published file: summary_results.json up to v6.0, "
        "summary.json from v6.1) or csv (the same rows and keys); default: "
        "-o's extension, else json.",
    ),
    output: str | None = typer.Option(None, "--output", "-o", help="File for the table (default stdout)."),
    publish_base: str | None = typer.Option(
        None,
        "--publish-base",
        help="Base URL of the published tree: adds Details, Code, ColorKey (where the round's table has them).",
    ),
    first_id: int | None = typer.Option(None, "--first-id", help="First ID number: adds ID (with --publish-base)."),
    jobs: int | None = _jobs_option(),
    progress: bool = _progress_option(),
) -> None:
    """The published results table in the round's format: one row per valid result."""
    from .commands.table import FORMATS, TableFormat, render, table_row, valid_rows
    from .engine import check as run_check

    if not os.path.isdir(path):
        _fail(f"{path} is not a folder")
    format = _format(FORMATS, format, output)
    if (publish_base is None) != (first_id is None):
        _fail("--publish-base and --first-id go together")
    settings = _Settings(_config(path))
    round, jobs = settings.pick("round", round), settings.pick("jobs", jobs)
    settings.said()
    round_name = _round_name(round, path)
    the_round = _round_or_fail(round_name)
    fmt = TableFormat.of(the_round)
    if fmt is None:
        _fail(f"round {the_round.name} has no results-table format (`table:` in its round file)")
    if publish_base is not None and not fmt.publication:
        _fail(
            f"the {the_round.name} table ({fmt.table.file}) has no ID, Details, Code or ColorKey; "
            "leave out --publish-base and --first-id"
        )
    plan = _plan(reads=[settings.config.path, _round_file(round)], trees=[path])
    target = plan.add(output)
    with _progress(progress) as tick:
        report = run_check(path, round_name, jobs=jobs or None, progress=tick, collect=table_row)
    if not report.results:
        _no_results(path, the_round)
    rows = render(valid_rows(report), fmt, publish_base, first_id)
    _emit(plan, FORMATS, format, target, rows, fmt)
    left_out = sum(1 for r in report.results if not r.valid)
    _say(
        f"{len(rows)} rows in the {the_round.name} table format ({fmt.table.file}); "
        f"{left_out} invalid results left out (`mlperf-check check` says why)"
    )
    raise typer.Exit(EXIT_INTERNAL if any(f.code == "INT001" for f in report.findings) else EXIT_OK)


@app.command()
def followup(
    previous: str = typer.Option(..., "--previous", help="The preview round: a submission tree or a results table."),
    current: str = typer.Option(..., "--current", help="The target round: a submission tree or a results table."),
    previous_round: str | None = typer.Option(
        None, "--previous-round", help="Round of a --previous tree; default: detected."
    ),
    current_round: str | None = typer.Option(
        None, "--current-round", help="Round of --current (its benchmarks); default: detected."
    ),
    mapping: str | None = typer.Option(None, "--mapping", help="YAML: previous system -> current system."),
    format: str | None = typer.Option(
        None, "--format", "-f", help="text, json or csv (default: -o's extension, else text)."
    ),
    output: str | None = typer.Option(None, "--output", "-o", help="File for the report (default stdout)."),
    progress: bool = _progress_option(),
) -> None:
    """Preview results followed up as Available, at most 2% worse, in the target round."""
    from .commands import followup as fu

    format = _format(fu.FORMATS, format, output)
    plan = _plan(reads=[mapping, *(_round_file(r) for r in (previous_round, current_round))], trees=[previous, current])
    target = plan.add(output)
    for given, option in ((previous_round, "--previous-round"), (current_round, "--current-round")):
        try:
            if given is not None:
                load_round(given)
        except RoundError as error:
            _fail(f"{option}: {error}")
    for item, option in ((previous, "--previous"), (current, "--current")):
        if not os.path.exists(item):
            _fail(f"{option} {item}: no such file or folder")
    if os.path.isdir(previous):
        previous_round = _round_name(previous_round, previous, "--previous: ")
    if os.path.isdir(current):
        current_round = _round_name(current_round, current, "--current: ")
    try:
        names = fu.load_mapping(mapping) if mapping else None
    except (OSError, ValueError) as error:
        _fail(str(error))
    before = _table_rows(previous, previous_round, progress=progress)
    after = _table_rows(current, current_round, progress=progress)
    try:
        previous_round = fu.table_round(before.labelled, previous, previous_round, "--previous-round")
        current_round = fu.table_round(after.labelled, current, current_round, "--current-round")
        fu.check_order(previous_round, current_round)
    except (ValueError, RoundError) as error:
        _fail(str(error))
    report = fu.follow_up(before.rows, after.rows, names, current_round)
    _emit(plan, fu.FORMATS, format, target, report)
    if output not in (None, "-") or format != "text":
        counts = fu.counts(report)
        _say(
            f"follow-up: {', '.join(f'{n} {status}' for status, n in counts.items())}"
            + (" (exit 1: a preview result is degraded or missing)" if report.failed else "")
        )
    raise typer.Exit(EXIT_FINDINGS if report.failed else EXIT_OK)


def _repository_or_fail(path: str) -> Any:
    from .provenance import RepositoryError, RepositorySource

    try:
        return RepositorySource(path)
    except RepositoryError as error:
        _fail(f"--inference-repo {path} is not a readable git repository: {error}")


@app.command()
def provenance(
    path: str = typer.Argument(..., help="Folder holding closed/, open/ or network/ submissions."),
    round: str | None = typer.Option(
        None, "--round", "-r", help="Round name (e.g. v6.1) or round file; default: the config's round, else detected."
    ),
    inference_repo: str | None = typer.Option(
        None, "--inference-repo", help="Clone of mlcommons/inference (else the bundled table)."
    ),
    format: str | None = typer.Option(
        None, "--format", "-f", help="text, json or csv (default: -o's extension, else text)."
    ),
    output: str | None = typer.Option(None, "--output", "-o", help="File for the report (default stdout)."),
    progress: bool = _progress_option(),
) -> None:
    """Which loadgen each result ran: its rev, and whether it descends from the seed release."""
    from .commands import provenance as prv_cmd
    from .provenance import RepositoryError, TableSource

    if not os.path.isdir(path):
        _fail(f"{path} is not a folder")
    format = _format(prv_cmd.FORMATS, format, output)
    source = _repository_or_fail(inference_repo) if inference_repo is not None else TableSource()
    settings = _Settings(_config(path))
    round = settings.pick("round", round)
    settings.said()
    plan = _plan(reads=[settings.config.path, _round_file(round), inference_repo], trees=[path])
    target = plan.add(output)
    the_round = _round_or_fail(_round_name(round, path))
    try:
        with _progress(progress, "reading loadgen builds") as tick:
            verdicts, results = prv_cmd.verdicts_of(path, the_round, source, tick)
    except RepositoryError as error:
        _fail(f"--inference-repo {inference_repo}: {error}")
    if not results:
        _no_results(path, the_round)
    _emit(plan, prv_cmd.FORMATS, format, target, verdicts, the_round)
    if len(verdicts) < results:
        _say(
            f"{results - len(verdicts)} of {results} results have no loadgen_version in a performance log: "
            "not judged (`mlperf-check check` says why)"
        )
    raise typer.Exit(EXIT_OK)


@app.command()
def compare(
    inputs: list[str] = typer.Argument(..., help="Results tables (JSON or CSV) or submission trees; merged."),
    round: str | None = typer.Option(
        None, "--round", "-r", help="Round of the submission trees (default: detected per tree)."
    ),
    tolerance: float = typer.Option(
        0.04,
        "--tolerance",
        help="Within tolerance when the partners' mean |deviation| <= this; partners beyond it are named.",
    ),
    outlier: float = typer.Option(0.10, "--outlier", help="Outlier when |deviation| > this."),
    reference: str = typer.Option(
        "median", "--reference", help="median, or submitter:NAME (their result; the others are their partners)."
    ),
    min_submitters: int = typer.Option(2, "--min-submitters", help="Groups need this many distinct submitters."),
    format: str | None = typer.Option(
        None, "--format", "-f", help="text, json, csv or html (default: -o's extension, else text)."
    ),
    output: str | None = typer.Option(None, "--output", "-o", help="File for the report (default stdout)."),
    plot: str | None = typer.Option(None, "--plot", help="Draw the deviations into this PNG file."),
    across_rounds: bool = typer.Option(
        False, "--across-rounds", help="The same hardware across the inputs' rounds, and scaling across node counts."
    ),
    scaling_across_submitters: bool = typer.Option(
        False,
        "--scaling-across-submitters",
        help="With --across-rounds: scaling efficiency across different submitters' systems "
        "(default: one submitter's systems only).",
    ),
    progress: bool = _progress_option(),
) -> None:
    """How close comparable results of different submitters are, with outliers and why; or,
    with --across-rounds, the same hardware round after round."""
    from .commands import compare as cmp

    if across_rounds:
        from .commands.across import FORMATS as ACROSS

        if format is not None and format not in ACROSS.writers:
            _fail(f"--across-rounds writes {', '.join(ACROSS.names[:-1])} or {ACROSS.names[-1]}, not {format!r}")
        format = _format(ACROSS, format, output)
    else:
        format = _format(cmp.FORMATS, format, output)
    if reference != "median" and (not reference.startswith("submitter:") or not reference.partition(":")[2]):
        _fail("--reference is median or submitter:NAME")
    _fraction(tolerance, "--tolerance")
    _fraction(outlier, "--outlier")
    if scaling_across_submitters and not across_rounds:
        _fail("--scaling-across-submitters goes with --across-rounds")
    plan = _plan(
        reads=[_round_file(round), *(i for i in inputs if not os.path.isdir(i))],
        trees=[i for i in inputs if os.path.isdir(i)],
    )
    target, plot_target = plan.add(output), plan.add(plot, "--plot")
    if round is not None:
        _round_or_fail(round)
    rows = _compared_rows(inputs, round, progress)
    if reference != "median" and not across_rounds and rows:
        name, known = reference.partition(":")[2], cmp.submitters(rows)
        if name.lower() not in {k.lower() for k in known}:
            shown = ", ".join(known[:5]) + (f", ... ({len(known)} in all)" if len(known) > 5 else "")
            _fail(
                f"--reference {reference}: no closed result of submitter {name} in the inputs; "
                f"the submitters are {shown or 'none'}"
            )
    if plot:
        try:
            import matplotlib  # noqa: F401 - only to say what is missing before anything is written
        except ImportError:
            _fail("--plot needs matplotlib: pip install 'mlperf-check[plot]'")
    if across_rounds:
        _across_rounds(plan, rows, format, target, plot_target, scaling_across_submitters)
    options = cmp.Options(tolerance, outlier, reference, min_submitters)
    found = cmp.comparison(rows, options)
    _emit(plan, cmp.FORMATS, format, target, found)
    if plot_target is not None:
        rounds = sorted({str(r.get("version")) for r in rows if r.get("version")})
        _pages(
            plan,
            plot_target,
            lambda page: cmp.plot(found, page, f"Comparable results, {', '.join(rounds) or 'round unknown'}"),
        )
    raise typer.Exit(EXIT_OK)


def _compared_rows(inputs: list[str], round: str | None, progress: bool) -> list[dict[str, Any]]:
    """The rows of compare's inputs, each result once. A row names its round, else its
    table's (--round, or the file): two tables' rows never pool in one group."""
    from .commands.compare import unique

    rows = []
    for item in inputs:
        if not os.path.exists(item):
            _fail(f"{item}: no such file or folder")
        found = _table_rows(
            item,
            _round_name(round, item, f"{item}: ") if os.path.isdir(item) else round,
            with_description=True,
            progress=progress,
        ).rows
        for row in found:
            if row.get("version") in (None, ""):
                row["version"] = round or f"(round of {item})"
        rows += found
    rows, duplicates = unique(rows)
    if duplicates:
        warn(
            f"{duplicates} duplicate row{'s' if duplicates > 1 else ''} ignored (the round, Location and Submitter "
            "of an earlier row)"
        )
    return rows


@app.command("report")
def audit_report(
    path: str = typer.Argument(..., help="Folder holding closed/, open/ or network/ submissions."),
    round: str | None = typer.Option(
        None, "--round", "-r", help="Round name (e.g. v6.1) or round file; default: the config's round, else detected."
    ),
    baseline: str | None = typer.Option(
        None,
        "--baseline",
        metavar="PREVIOUS.json",
        help="The JSON of an earlier `check` of the round: what changed since.",
    ),
    output: str = typer.Option(..., "--output", "-o", help="The HTML file to write (e.g. audit.html)."),
    waivers: str | None = typer.Option(None, "--waivers", help="YAML file of waivers, each with a reason."),
    jobs: int | None = _jobs_option(),
    progress: bool = _progress_option(),
) -> None:
    """One self-contained HTML page for reviewers: the verdicts, why each invalid result
    fails, what changed since a baseline, loadgen provenance and cross-partner variance.
    Exits as check does: 1 when an error is found."""
    from .commands import report as audit
    from .engine import check as run_check
    from .waivers import WaiverError, load_waivers

    if not os.path.isdir(path):
        _fail(f"{path} is not a folder")
    from .output import resolve

    resolve(output)  # a path that cannot be written is a usage error before any work
    previous = None
    if baseline is not None:
        try:
            previous = audit.load_baseline(baseline)
        except audit.BaselineError as error:
            _fail(f"--baseline {error}")
    settings = _Settings(_config(path))
    round, waivers, jobs = settings.pick("round", round), settings.pick("waivers", waivers), settings.pick("jobs", jobs)
    settings.said()
    plan = _plan(reads=[baseline, waivers, settings.config.path, _round_file(round)], trees=[path])
    target = plan.add(output)
    round_name = _round_name(round, path)
    the_round = _round_or_fail(round_name)
    try:
        if previous is not None:
            audit.check_baseline_round(previous, the_round.name, baseline)
    except audit.BaselineError as error:
        _fail(f"--baseline {error}")
    try:
        waiver_list = load_waivers(waivers) if waivers else []
    except WaiverError as error:
        _fail(str(error))
    with _progress(progress) as tick:
        found = run_check(
            path, round_name, jobs=jobs or None, waivers=waiver_list, progress=tick, collect=audit.collect
        )
    if not found.results and not found.has_errors:
        _no_results(path, the_round)
    _emit(plan, audit.FORMATS, "html", target, found, path, previous, baseline or "")
    invalid = sum(1 for r in found.results if not r.valid)
    changed = audit.changes(found, previous) if previous is not None else None
    _say(
        f"{output}: {len(found.results)} results, {invalid} invalid"
        + (
            f"; since {baseline}: {changed['became_invalid']} became invalid, {changed['became_valid']} became valid"
            if changed
            else ""
        )
    )
    raise typer.Exit(exit_code(found))  # as check: an error on no result (a submitter folder) is one too


def _pages(plan: Plan, target: Target, draw: Callable[[str], list[str]]) -> None:
    """Write a plot's pages (checker.output), and say where when there are several."""
    written = plan.pages(target, draw)
    if len(written) > 1:
        _say(f"{len(written)} pages: {', '.join(written)}")


def _across_rounds(
    plan: Plan,
    rows: list[dict[str, Any]],
    format: str,
    target: Target | None,
    plot: Target | None,
    across_submitters: bool,
) -> NoReturn:
    from .commands import across
    from .commands.published import normalise

    normalised = normalise(rows)
    rounds = sorted({r.round for r in normalised if r.round})
    if len(rounds) < 2:
        _fail(f"--across-rounds needs results of two or more rounds; the inputs hold {', '.join(rounds) or 'none'}")
    series, scalings = across.across_rounds(normalised), across.scaling(normalised, across_submitters)
    _emit(plan, across.FORMATS, format, target, series, scalings)
    if plot is not None:
        _pages(plan, plot, lambda page: across.plot(series, page))
    raise typer.Exit(EXIT_OK)


@app.command()
def claims(
    claims_file: str = typer.Argument(..., metavar="CLAIMS.yaml", help="The claims (schemas/claims.schema.json)."),
    table: list[str] = typer.Option(
        ..., "--table", help="ROUND=PATH: a round's results table or submission tree. Repeatable."
    ),
    format: str | None = typer.Option(
        None, "--format", "-f", help="text, json or markdown (default: -o's extension, else text)."
    ),
    output: str | None = typer.Option(None, "--output", "-o", help="File for the report (default stdout)."),
    progress: bool = _progress_option(),
) -> None:
    """Check claims (spread, speedup, ratio, scaling, value) against the published tables,
    with the rows each rests on."""
    from .commands import claims as cl
    from .commands.published import normalise

    format = _format(cl.FORMATS, format, output)
    plan = _plan(
        reads=[claims_file, *(p for _, _, p in (t.partition("=") for t in table) if p and not os.path.isdir(p))],
        trees=[p for _, _, p in (t.partition("=") for t in table) if p and os.path.isdir(p)],
    )
    target = plan.add(output)
    try:
        listed = cl.load_claims(claims_file)
    except cl.ClaimsError as error:
        _fail(str(error))
    rows: dict[str, list] = {}
    for item in table:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            _fail(f"--table {item!r}: give ROUND=PATH, e.g. v6.1=summary.json")
        if not os.path.exists(path):
            _fail(f"--table {item}: {path}: no such file or folder")
        _round_or_fail(name)
        found = normalise(_table_rows(path, name, progress=progress).rows, name)
        other = sorted({r.round for r in found if r.round and r.round != name})
        if other:
            _fail(f"--table {item}: its rows are of round {', '.join(other)}, not {name}")
        rows.setdefault(name, []).extend(found)
    missing = sorted(
        {
            side["round"]
            for claim in listed
            for key in ("in", "from", "to")
            if (side := claim.get(key)) and side["round"] not in rows
        }
    )
    if missing:
        _fail(f"{claims_file}: claims select rounds without a --table: {', '.join(missing)}")
    verdicts = cl.check_claims(listed, rows)
    _emit(plan, cl.FORMATS, format, target, verdicts)
    raise typer.Exit(EXIT_OK if all(v.verdict == "holds" for v in verdicts) else EXIT_FINDINGS)


@app.command()
def reproduce(
    original: str = typer.Argument(..., help="The original result folder (.../<system>/<benchmark>/<scenario>)."),
    reproduction: str = typer.Argument(..., help="The reproduction's result folder."),
    round: str | None = typer.Option(
        None, "--round", "-r", help="Round name or round file (default: detected from the original result)."
    ),
    tolerance: float | None = typer.Option(
        None,
        "--tolerance",
        help="More than this much worse is materially different (default: the round's audit threshold, 0.02).",
    ),
    format: str | None = typer.Option(
        None, "--format", "-f", help="text or json (default: -o's extension, else text)."
    ),
    output: str | None = typer.Option(None, "--output", "-o", help="File for the report (default stdout)."),
) -> None:
    """Check a reproduction, its settings against the original's, and compare the numbers."""
    from .commands import reproduce as rep

    format = _format(rep.FORMATS, format, output)
    _fraction(tolerance, "--tolerance")
    plan = _plan(reads=[_round_file(round)], trees=[original, reproduction])
    target = plan.add(output)
    the_round = _round_or_fail(_round_name(round, original, result=True))
    try:
        result = rep.reproduce(original, reproduction, the_round, tolerance)
    except rep.ResultPathError as error:
        _fail(str(error))
    _emit(plan, rep.FORMATS, format, target, result)
    if output not in (None, "-") or format != "text":
        _say(_verdict(result))
    raise typer.Exit(EXIT_FINDINGS if result.failed else EXIT_OK)


def _verdict(result: Any) -> str:
    """The reproduce verdict in one line, for stderr when the report itself goes elsewhere."""
    if result.identical_logs:
        return (
            f"not a reproduction: {', '.join(result.identical_logs)} "
            f"{'is' if len(result.identical_logs) == 1 else 'are'} byte-identical to the original's (exit 1)"
        )
    if not result.reproduction_valid:
        return "the reproduction is not valid (exit 1)"
    if result.mismatched_settings:
        return "the settings differ (exit 1)"
    return "within tolerance" if result.within_tolerance else "materially different (exit 1)"


@app.command()
def rerun(
    result_path: str = typer.Argument(..., metavar="RESULT", help="The result folder to re-run."),
    command: str | None = typer.Option(
        None, "--command", help="Your harness; it writes loadgen logs into $MLPERF_CHECK_OUTPUT."
    ),
    builtin: bool = typer.Option(False, "--builtin", help="The built-in CPU harness (the bundled example's)."),
    workdir: str | None = typer.Option(
        None,
        "--workdir",
        help="Where the re-run goes: a new or empty folder outside the original's tree (default a new temp folder).",
    ),
    timeout: float = typer.Option(
        RERUN_TIMEOUT, "--timeout", help="Seconds --command may run; then its whole process group is killed."
    ),
    round: str | None = typer.Option(
        None, "--round", "-r", help="Round name or round file (default: detected from the result)."
    ),
    tolerance: float | None = typer.Option(
        None,
        "--tolerance",
        help="More than this much worse is materially different (default: the round's audit threshold, 0.02).",
    ),
    format: str = typer.Option("text", "--format", "-f", help="text or json."),
) -> None:
    """Re-run a result (your harness, or the built-in one) and compare it with the original."""
    import time

    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from .commands import reproduce as rep
    from .output import keep, new_folder

    if (command is None) == (not builtin):
        _fail("give either --command CMD or --builtin")
    format = _format(rep.FORMATS, format, None)
    _fraction(tolerance, "--tolerance")
    if not timeout > 0:
        _fail(f"--timeout {timeout:g}: give a number of seconds above 0")
    the_round = _round_or_fail(_round_name(round, result_path, result=True))
    try:
        rep.locate(result_path, the_round)
        if not os.path.isdir(result_path):
            _fail(f"{result_path} is not a folder")
        work = workdir or new_folder(prefix="mlperf-check-rerun-")  # removed if a signal stops the re-run
        copy = rep.prepare_copy(result_path, the_round, work)  # before anything runs
    except (rep.ResultPathError, rep.WorkdirError) as error:
        _fail(str(error))
    except OSError as error:
        _fail(f"cannot copy {result_path} into {workdir or 'a temp folder'}: {error}")
    stderr = Console(stderr=True, highlight=False, soft_wrap=True)
    start = time.perf_counter()
    if builtin:
        with Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=stderr,
            transient=True,
            disable=not stderr.is_terminal,
        ) as bar:
            task = bar.add_task("re-running", total=None)
            try:
                rep.rerun_builtin(copy, the_round, lambda what: bar.update(task, description=f"re-running: {what}"))
            except (ValueError, ImportError) as error:
                _fail(
                    f"{error} (the built-in harness needs: pip install 'mlperf-check[harness]')"
                    if isinstance(error, ImportError)
                    else str(error)
                )
        status = 0
    else:
        try:
            status, _ = rep.rerun_command(
                copy, command, lambda line: print(f"  | {visible(line)}", file=sys.stderr), timeout
            )
        except rep.CommandTimeout as error:
            keep(work)
            _fail(f"{error}; what it wrote is in {copy}")
    keep(work)
    _say(f"re-run finished in {time.perf_counter() - start:.1f} s (exit {status}); logs in {copy}")
    if status != 0:
        _fail(f"the command exited with {status}")
    result = rep.reproduce(result_path, copy, the_round, tolerance)
    _emit(_plan(), rep.FORMATS, format, None, result)
    if format != "text":
        _say(_verdict(result))
    raise typer.Exit(EXIT_FINDINGS if result.failed else EXIT_OK)


@app.command("rules")
def list_rules(
    format: str | None = typer.Option(
        None,
        "--format",
        "-f",
        help="text (CODE  name  summary) or json (code, name, scope, severity, "
        "summary, preview, and each round's own severity); default: -o's "
        "extension, else text.",
    ),
    output: str | None = typer.Option(None, "--output", "-o", help="File for the list (default stdout)."),
) -> None:
    """Every code: one line each (CODE  name  summary), or JSON."""
    from .commands import catalogue
    from .engine import load_all

    format = _format(catalogue.FORMATS, format, output)
    plan = _plan()
    target = plan.add(output)
    _emit(plan, catalogue.FORMATS, format, target, catalogue.catalogue(load_all(), catalogue.rounds()))


@app.command()
def explain(code: str = typer.Argument(..., help="A finding code, e.g. RNG001.")) -> None:
    """The full documentation of one code: Why, Fix, Policy, and its severity in each round
    where a round file changes it."""
    from .commands import catalogue
    from .engine import load_all

    rule = load_all().get(code.upper())
    if rule is None:
        _fail(f"unknown code {code!r}; `mlperf-check rules` lists them all")
    typer.echo(catalogue.explain(rule, catalogue.rounds()), nl=False)


@app.command()
def rounds() -> None:
    """The round files this version knows."""
    for name in available_rounds():
        loaded = load_round(name)
        typer.echo(f"{name}  {loaded.title or ''}")


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


def _stdout_closed() -> bool:
    """Whether stdout is a pipe whose reader has gone (`| head`)."""
    try:
        import select

        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


def _pipe_closed() -> NoReturn:
    """stdout's reader has gone: nothing more can reach it; end quietly, as SIGPIPE would."""
    from .output import quiet_stdout

    quiet_stdout()
    raise typer.Exit(EXIT_PIPE)


def _internal(error: BaseException) -> NoReturn:
    """An unexpected exception: one line on stderr, exit 3. A closed stdout: quiet."""
    if isinstance(error, BrokenPipeError) and _stdout_closed():
        _pipe_closed()
    print(
        _one_line(
            f"internal error: {type(error).__name__}: {error} (a bug: please report it with the command "
            "line; findings about the input are never this error)"
        ),
        file=sys.stderr,
    )
    raise typer.Exit(EXIT_INTERNAL)


def _guarded(command: Callable[..., Any]) -> Callable[..., Any]:
    """A command that never ends silently: typer turns an OSError with EPIPE (from any pipe,
    a git process's too) into exit 1 without a word, and a traceback is no message. An
    output that cannot be written is a usage error (checker.output); stdout closed by its
    reader ends quietly."""
    from .output import OutputError, PipeClosed

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (typer.Exit, typer.Abort, KeyboardInterrupt, SystemExit):
            raise
        except OutputError as error:
            _fail(str(error))
        except PipeClosed:
            _pipe_closed()
        except Exception as error:  # noqa: BLE001 - every exception is reported, in one line
            _internal(error)

    return run


for _info in app.registered_commands:
    _info.callback = _guarded(_info.callback)
    if _info.cls in (None, typer.core.TyperCommand):
        _info.cls = _Command


# `check PATH --changed-since REF` as main() read it from the command line, its git listing
# already under way (scope.Changes): check() takes it when typer parses the same path and ref.
_EARLY: dict[tuple[str, str], Any] = {}


def _start_changes(argv: list[str]) -> None:
    """Start git's listing of the changes before typer parses the command line: typer builds
    a validator for every parameter first, about a tenth of a second that git can spend
    walking the tree. Only a guess at the path and the ref: when typer parses others (or
    the command fails), check() starts its own listing and this one is stopped at exit."""
    if not argv or argv[0] != "check" or not any(a.startswith("--changed-since") for a in argv):
        return
    taking = {
        name
        for p in inspect.signature(check).parameters.values()
        if isinstance(p.default, typer.models.OptionInfo) and p.annotation != "bool"
        for name in p.default.param_decls
    }  # the options that take a value
    path = ref = None
    rest = iter(argv[1:])
    for arg in rest:
        name, equals, value = arg.partition("=")
        if name == "--changed-since":
            ref = value if equals else next(rest, None)
        elif arg == "--":
            path = path or next(rest, None)
        elif arg.startswith("-"):
            if arg in taking:
                next(rest, None)
        elif path is None:
            path = arg
    if path and ref and os.path.isdir(path):
        from .scope import Changes

        _EARLY[(path, ref)] = Changes(path, ref)


def run_app() -> None:
    """The command line, as checker.process runs it (signals and exit statuses are its)."""
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(errors="backslashreplace")  # the writers escape; this is the last guard
    try:
        _start_changes(sys.argv[1:])
        app()
    except Exception as error:  # noqa: BLE001 - outside every command (typer itself): still one line, exit 3
        print(_one_line(f"internal error: {type(error).__name__}: {error}"), file=sys.stderr)
        raise SystemExit(EXIT_INTERNAL) from None


def main() -> None:
    """`python -m checker.cli`; the console script enters through checker.__main__.main, which
    sets the signal handlers before this module is imported."""
    from .process import run

    run(run_app)


if __name__ == "__main__":
    main()
