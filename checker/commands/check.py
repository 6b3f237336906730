"""`mlperf-check check`: a verdict per result of a submission tree, in every format asked.

`invocation` reads the command line with the tree's [tool.mlperf-check] and plans the
outputs; with --changed-since it first starts git's listing of the changes
(scope.Changes), which then runs while the configuration, the rules and the round load.
`report_of` is the check itself, `run` writes the report and gives the exit code: 0 clean,
1 an error found, 3 a rule that failed (INT001)."""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..settings import Invocation, Settings, UsageError, config_of, one_of, plan_formats, round_file, split
from ..wording import counted
from . import common
from .common import say

if TYPE_CHECKING:
    from ..config import Config
    from ..findings import Report
    from ..reporters import Formats
    from ..rounds import Round
    from ..scope import Changes, Scope
    from ..waivers import Waiver
    from ..workspace import Given, Workspace

EXIT_OK, EXIT_FINDINGS, EXIT_INTERNAL = 0, 1, 3
VIEWS = ("default", "full", "concise")  # the text report's views (text_report.render)
COLORS = ("auto", "always", "never")  # --color (text_report.colours)


@dataclass(frozen=True, kw_only=True)
class CommandLine:
    """check's command line."""

    paths: list[str]
    round: str | None = None
    format: list[str] | None = None
    output: str | None = None
    select: list[str] | None = None
    ignore: list[str] | None = None
    waivers: str | None = None
    jobs: int | None = None
    progress: bool = True
    inference_repo: str | None = None
    strict: bool = False
    changed_since: str | None = None
    quiet: bool = False
    statistics: bool = False
    output_format: str = "default"
    show_valid: bool = False
    exit_zero: bool = False
    color: str = "auto"
    cache_dir: str | None = None  # checker/cache.py: set for the process by cli._run
    no_cache: bool = False


@dataclass(frozen=True, kw_only=True)
class Invoked(Invocation[CommandLine]):
    """check's invocation: the folder to check, the paths given inside it (None: all of it),
    git's listing of the changes (started), and the waivers read."""

    path: str
    workspace: Workspace
    given: Given | None = None
    changes: Changes | None = None
    waivers: tuple[Waiver, ...] = field(default=())


def invocation(options: CommandLine) -> Invoked:
    """The folder and paths to check, the settings, the round and the outputs; a usage error
    for anything that cannot be run. Paths that all lie outside the tree's division folders
    need nothing more: `run` says so."""
    where = located(options.paths)
    given = where.given
    if given is not None and not given.inside and not given.deleted:
        named = Settings.of(config_of(where.path), {"waivers": options.waivers})
        inputs = _inputs_given(options.paths, named)
        if not inputs:
            return Invoked(options=options, path=where.path, workspace=where, given=given)
        # A global input given checks the whole tree it governs: the one under its folder.
        under = _tree_under(os.path.dirname(os.path.abspath(inputs[0])), os.path.relpath(inputs[0]))
        where = dataclasses.replace(located([under]), given=given)  # the paths given still say what changed
    path = where.path
    one_of(options.color, COLORS, "--color", "color")
    one_of(options.output_format, VIEWS, "--output-format", "view")
    changes = None
    if options.changed_since:  # git lists the changes while the round and the rules load
        from ..scope import changes as listing

        if given is not None:
            raise UsageError(
                "--changed-since takes one folder, not files: give the folder that holds closed/, open/ or network/"
            )
        changes = listing(path, options.changed_since)
    try:
        settings = _settings(options, config_of(path))
        if settings.said and not options.quiet:
            say(settings.said)
        if options.inference_repo is not None:
            repository(options.inference_repo)
        name = common.round_name(settings.round, path, quiet=options.quiet)
        the_round = common.load(name)
        waivers = common.waivers(settings.waivers)
        from ..output import Plan
        from ..reporters import CHECK, EXTENSIONS

        reads = [settings.waivers, settings.path, round_file(settings.round), options.inference_repo]
        plan = Plan(reads=reads, workspaces=[where])
        config = settings.config
        source = config if config is not None and _formats_from_config(options, config) else None
        outputs = plan_formats(plan, settings.format, options.output, CHECK.names, EXTENSIONS, source, path)
        return Invoked(
            options=options,
            settings=settings,
            round_name=name,
            round=the_round,
            plan=plan,
            outputs=outputs,
            path=path,
            workspace=where,
            given=given,
            changes=changes,
            waivers=waivers,
        )
    except BaseException:  # a usage error after git started: its listing ends with the invocation
        if changes is not None:
            changes.close()
        raise


def _formats_from_config(options: CommandLine, config: Config) -> bool:
    """Whether the formats are the configuration's: -o or --format replaces them."""
    return not options.format and options.output is None and bool(config.get("format"))


def _settings(options: CommandLine, config: Config) -> Settings:
    """The command line merged with the configuration: --select and --ignore (else the
    configuration's) must name codes; the configuration's formats count only when neither
    -o nor --format is given, and must be formats of check."""
    from ..engine import load_all
    from ..registry import check_codes
    from ..reporters import CHECK

    load_all()
    select, ignore = split(options.select), split(options.ignore)
    check_codes(select, "--select")  # a SelectionError is a UsageError
    check_codes(ignore, "--ignore")
    if not select:
        check_codes(config.get("select") or [], config.label("select"))
    if not ignore:
        check_codes(config.get("ignore") or [], config.label("ignore"))
    given = {"select": select, "ignore": ignore, "waivers": options.waivers, "jobs": options.jobs}
    given["round"] = options.round
    if not _formats_from_config(options, config):
        return dataclasses.replace(Settings.of(config, given), format=tuple(options.format or ()))
    for item in config.get("format"):
        one_of(item.partition(":")[0], ("auto", *CHECK.names), config.label("format"), "format")
    return Settings.of(config, {**given, "format": None})


def repository(path: str) -> Any:
    """The clone of mlcommons/inference at `path`, or a usage error."""
    from ..errors import naming
    from ..provenance import RepositorySource

    with naming(f"--inference-repo {path} is not a readable git repository"):
        return RepositorySource(path)


def report_of(invocation: Invoked) -> Report:
    """The check: the whole tree, or the results the paths given or git's changes affect."""
    return _checked(invocation)[1]


def _checked(invocation: Invoked) -> tuple[Scope | None, Report, list[str]]:
    from ..engine import check

    options, settings = invocation.options, invocation.settings
    assert invocation.round_name is not None and invocation.round is not None
    scope, widened = _scope(invocation, invocation.round)
    with common.progress(options.progress) as tick:
        return (
            scope,
            check(
                invocation.workspace,
                invocation.round,
                list(settings.select),
                list(settings.ignore),
                settings.jobs or None,
                list(invocation.waivers),
                tick,
                inference_repo=options.inference_repo,
                strict=options.strict,
                scope=scope,
            ),
            widened,
        )


def run(invocation: Invoked) -> int:
    """Check, write every output (the text report on stderr when no output is text), and
    give the exit code."""
    options, given = invocation.options, invocation.given
    if given is not None and invocation.round is None:  # no path in the tree (invocation): nothing to check
        say(_narrowed_line(None, None, given, 0))
        return EXIT_OK
    assert invocation.round is not None
    scope, report, widened = _checked(invocation)
    formats = formats_of(options.quiet, options.statistics, options.color, options.output_format, options.show_valid)
    if scope is not None and not options.quiet:
        say(_narrowed_line(scope, options.changed_since, given, len(report.results)))
    if widened and not options.quiet:
        why = f"--changed-since {options.changed_since}: " if options.changed_since else ""
        shown = [os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path for path in widened]
        named = " and ".join(shown)
        say(
            f"{why}{named} {'changes' if len(widened) == 1 else 'change'} every verdict (waivers, "
            f"[tool.mlperf-check]); checked the whole tree: {counted(len(report.results), 'result')}"
        )
    if not report.results and not report.has_errors:
        from ..model import holds_results

        if scope is None or not holds_results(invocation.workspace, invocation.round):
            if report.findings:
                formats.write("text", sys.stderr, report)  # what was found explains, but it is no check of results
            raise common.no_results(invocation.path, invocation.round)
    # A tree whose submitters cannot be entered (links out of it) has no results, but its
    # errors say why: exit 1 with the report, as for any error.
    if not any(name == "text" for name, _ in invocation.outputs):
        formats.write("text", sys.stderr, report)  # data goes to stdout or files; people still read the text
    for name, target in invocation.outputs:
        common.emit(invocation.plan, formats, name, target, report)
    code = exit_code(report)
    return EXIT_OK if options.exit_zero and code == EXIT_FINDINGS else code


def exit_code(report: Report) -> int:
    """3 when a rule failed (INT001), 1 when an error is found, else 0."""
    if any(f.code == "INT001" for f in report.findings):
        return EXIT_INTERNAL
    return EXIT_FINDINGS if report.has_errors else EXIT_OK


def formats_of(quiet: bool, statistics: bool, color: str, view: str = "default", show_valid: bool = False) -> Formats:
    """check's formats, with the text report as -q, --statistics, --color, --output-format
    and --show-valid ask."""
    from ..reporters import CHECK, Formats, text_report

    text = functools.partial(
        text_report.write,
        quiet=quiet,
        statistics=statistics,
        color=color,
        view=view,
        show_valid=show_valid,
    )
    return Formats({**CHECK.writers, "text": text})


# --- a narrowed check ------------------------------------------------------------------------
def _scope(invocation: Invoked, the_round: Round) -> tuple[Scope | None, list[str]]:
    """The Scope of a narrowed check: git's changes since the ref, or the paths given; None
    for a whole check, and for a narrowed one whose global inputs changed (`_widened`, the
    second item)."""
    widened = _widened(invocation)
    if widened:
        if invocation.changes is not None:
            invocation.changes.close()
        return None, widened
    return _narrowed(invocation, the_round), []


def _narrowed(invocation: Invoked, the_round: Round) -> Scope | None:
    from ..scope import scope_of

    if invocation.changes is not None:
        # git names the changes relative to PATH; the scope names them from the root
        # the engine checks (PATH's parent or grandparent for a division or submitter folder)
        named = "".join(part + "/" for part in invocation.workspace.part)
        if invocation.changes.listing() and the_round.system_description.schema:
            # While git still walks the tree (a core is free once diff-index ends), what the
            # check builds anyway when a system's result changed: the system rules' validator
            # (jsonschema's import, 0.06 s of a 0.45 s check of one result on 16 copies of v5.1).
            the_round.system_validator  # noqa: B018 - a cached property, for its cache
        statuses = invocation.changes.statuses()
        gitlinks = [named + name for name in invocation.changes.gitlinks]  # submodules: all they hold
        return scope_of({named + name: how for name, how in statuses.items()}, the_round, gitlinks)
    return invocation.workspace.scope(the_round)


def _inputs(settings: Settings) -> dict[str, Callable[[bytes | None], Any]]:
    """The files every verdict reads, each with what of it counts: the waivers file (all of
    it) and the pyproject.toml of the configuration (its [tool.mlperf-check] table)."""
    inputs: dict[str, Callable[[bytes | None], Any]] = {}
    if settings.waivers:
        inputs[settings.waivers] = lambda content: content
    config = settings.config
    if config is not None and config.path:
        inputs[config.path] = _table
    return inputs


def _table(content: bytes | None) -> Any:
    """The [tool.mlperf-check] table of a pyproject.toml's bytes; None without one."""
    import tomllib

    try:
        return tomllib.loads((content or b"").decode("utf-8")).get("tool", {}).get("mlperf-check")
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, AttributeError):
        return None


def _widened(invocation: Invoked) -> list[str]:
    """The global inputs (waivers, configuration) that changed in a narrowed check: since the
    ref (--changed-since), or, given (pre-commit), since HEAD. Each changes every verdict, so
    the check is widened to the whole tree; the check says which."""
    from ..scope import changed_inputs

    if invocation.changes is not None:
        commit = invocation.changes.commit
        return changed_inputs(commit, _inputs(invocation.settings)) if commit else []
    if invocation.given is None:
        return []
    # Given (pre-commit passes the staged files, and stashes the rest): changed since HEAD;
    # when git cannot say, changed.
    inputs = _inputs(invocation.settings)
    given = {path: inputs[path] for path in _inputs_given(invocation.options.paths, invocation.settings)}
    return changed_inputs("HEAD", given, unknown=True) if given else []


def _inputs_given(paths: list[str], settings: Settings) -> list[str]:
    """The global inputs (`_inputs`) among the paths given."""
    given = {os.path.realpath(path) for path in paths}
    return [path for path in _inputs(settings) if os.path.realpath(path) in given]


def located(paths: list[str]) -> Workspace:
    """The workspace of the paths given (workspace.locate), or a usage error."""
    from ..workspace import locate

    return locate(paths)  # a WorkspaceError is a UsageError


def _tree_under(folder: str, named: str) -> str:
    from ..workspace import tree_under

    return tree_under(folder, named)


def _narrowed_line(scope: Scope | None, changed_since: str | None, given: Given | None, checked: int) -> str:
    """What a narrowed check read and checked, and which paths affect no result."""
    if given is not None:
        noun = "path" if given.folders else "file"  # folders given, or files as pre-commit gives them
        line = f"{counted(given.count, noun)} given"
        if given.deleted:
            line += f" and {len(given.deleted)} deleted in the git index"
        line += f"; checked {counted(checked, 'result')}"
    else:
        assert scope is not None
        line = f"--changed-since {changed_since}: {counted(scope.changed, 'changed file')}; checked {counted(checked, 'result')}"
    outside = scope.outside if scope is not None else given.outside if given is not None else ()
    if outside:
        one = len(outside) == 1
        named = ", ".join(outside[:3]) + (f" and {len(outside) - 3} more" if len(outside) > 3 else "")
        line += (
            f"; {named} {'lies' if one else 'lie'} in no <division>/<submitter> folder and "
            f"{'affects' if one else 'affect'} no result"
        )
    return line
