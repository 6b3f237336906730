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
from . import common
from .common import say

if TYPE_CHECKING:
    from ..config import Config
    from ..findings import Report
    from ..reporters import Formats
    from ..rounds import Round
    from ..scope import Changes, Scope
    from ..waivers import Waiver

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


@dataclass(frozen=True)
class Given:
    """Paths given to `check` inside a tree, relative to its root (POSIX): `inside`, those of
    them that are folders, `outside`, the paths given that lie in no division folder, and
    `deleted`, the files of the tree that the git index deletes."""

    inside: tuple[str, ...]
    folders: frozenset[str]
    outside: tuple[str, ...]
    deleted: tuple[str, ...] = ()  # files the index deletes, in the same tree (pre-commit never passes them)

    @property
    def count(self) -> int:
        return len(self.inside) + len(self.outside)


@dataclass(frozen=True, kw_only=True)
class Invoked(Invocation[CommandLine]):
    """check's invocation: the folder to check, the paths given inside it (None: all of it),
    git's listing of the changes (started), and the waivers read."""

    path: str
    given: Given | None = None
    changes: Changes | None = None
    waivers: tuple[Waiver, ...] = field(default=())


def invocation(options: CommandLine) -> Invoked:
    """The folder and paths to check, the settings, the round and the outputs; a usage error
    for anything that cannot be run. Paths that all lie outside the tree's division folders
    need nothing more: `run` says so."""
    path, given = _given(options.paths)
    if given is not None and not given.inside and not given.deleted:
        named = Settings.of(config_of(path), {"waivers": options.waivers})
        if not _inputs_given(options.paths, named):  # a global input given checks the whole tree
            return Invoked(options=options, path=path, given=given)
    one_of(options.color, COLORS, "--color", "color")
    one_of(options.output_format, VIEWS, "--output-format", "view")
    changes = None
    if options.changed_since:  # git lists the changes while the round and the rules load
        from ..scope import Changes

        if given is not None:
            raise UsageError(
                "--changed-since takes one folder, not files: give the folder that holds closed/, open/ or network/"
            )
        changes = Changes(path, options.changed_since)
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
    plan = Plan(reads=reads, trees=[path])
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
        given=given,
        changes=changes,
        waivers=waivers,
    )


def _formats_from_config(options: CommandLine, config: Config) -> bool:
    """Whether the formats are the configuration's: -o or --format replaces them."""
    return not options.format and options.output is None and bool(config.get("format"))


def _settings(options: CommandLine, config: Config) -> Settings:
    """The command line merged with the configuration: --select and --ignore (else the
    configuration's) must name codes; the configuration's formats count only when neither
    -o nor --format is given, and must be formats of check."""
    from ..engine import load_all
    from ..registry import SelectionError, check_codes
    from ..reporters import CHECK

    load_all()
    select, ignore = split(options.select), split(options.ignore)
    try:
        check_codes(select, "--select")
        check_codes(ignore, "--ignore")
        if not select:
            check_codes(config.get("select") or [], config.label("select"))
        if not ignore:
            check_codes(config.get("ignore") or [], config.label("ignore"))
    except SelectionError as error:
        raise UsageError(str(error)) from None
    given = {"select": select, "ignore": ignore, "waivers": options.waivers, "jobs": options.jobs}
    given["round"] = options.round
    if not _formats_from_config(options, config):
        return dataclasses.replace(Settings.of(config, given), format=tuple(options.format or ()))
    for item in config.get("format"):
        one_of(item.partition(":")[0], ("auto", *CHECK.names), config.label("format"), "format")
    return Settings.of(config, {**given, "format": None})


def repository(path: str) -> Any:
    """The clone of mlcommons/inference at `path`, or a usage error."""
    from ..provenance import RepositoryError, RepositorySource

    try:
        return RepositorySource(path)
    except RepositoryError as error:
        raise UsageError(f"--inference-repo {path} is not a readable git repository: {error}") from None


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
                invocation.path,
                invocation.round_name,
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
            f"[tool.mlperf-check]); checked the whole tree: {len(report.results)} results"
        )
    if not report.results and not report.has_errors:
        from ..model import holds_results

        if scope is None or not holds_results(invocation.path, invocation.round):
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
    from ..model import locate
    from ..scope import scope_of

    given = invocation.given
    if invocation.changes is not None:
        try:
            # git names the changes relative to PATH; the scope names them from the root
            # the engine checks (PATH's parent or grandparent for a division or submitter folder)
            named = "".join(part + "/" for part in locate(invocation.path, the_round)[1])
            return scope_of({named + name: how for name, how in invocation.changes.statuses().items()}, the_round)
        except ValueError as error:
            raise UsageError(str(error)) from None
    if given is None:
        return None
    # A file given may be new (pre-commit passes added files too); a folder given is there
    # and names its own results; a deletion is one.
    statuses = {path: "M" if path in given.folders else "?" for path in given.inside}
    scope = scope_of(statuses | dict.fromkeys(given.deleted, "D"), the_round, given.folders)
    return dataclasses.replace(scope, outside=tuple(sorted(scope.outside + given.outside)))


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


def _given(paths: list[str]) -> tuple[str, Given | None]:
    """The folder to check, and the paths given inside it (None when one folder is given:
    a tree, a division or a submitter folder, checked whole). A path lies in the tree
    above its division folder (closed/, open/, network/: any known round's), the nearest
    that is one (`_division_at`); a system, benchmark or result folder, or a file, names the
    results it affects. A path that is not there, and paths in two trees, are usage errors."""
    from ..rounds import available_rounds

    rounds = [common.load(name) for name in available_rounds()]
    divisions = frozenset(d for one in rounds for d in one.divisions)
    marks = frozenset(m for one in rounds for m in (one.results_root, "systems"))
    # Whether a folder holds a submitter folder, looked at once a run (not across runs of one
    # process: the tree may change in between).
    holds = functools.cache(functools.partial(_holds_submitters, marks=marks))
    if len(paths) == 1 and os.path.isdir(paths[0]):
        parts = os.path.abspath(paths[0]).split(os.sep)
        at = _division_at(parts, divisions, holds)
        if at is None or len(parts) - at <= 2 or any(os.path.isdir(os.path.join(paths[0], d)) for d in divisions):
            return paths[0], None  # a tree, a division or a submitter folder (model.locate), or no tree at all
    roots: dict[str, str] = {}
    inside, folders, outside = [], set(), []
    for path in paths:
        if not os.path.lexists(path):
            raise UsageError(f"{path}: no such file or folder")
        parts = os.path.abspath(path).split(os.sep)
        at = _division_at(parts, divisions, holds)
        if at is None:
            outside.append(path)
            continue
        root = _root(parts, at)
        roots.setdefault(os.path.realpath(root), root)
        inside.append("/".join(parts[at:]))
        if os.path.isdir(path):
            folders.add(inside[-1])
    if len(roots) > 1:
        raise UsageError(
            f"the paths given lie in {len(roots)} trees ({', '.join(sorted(roots.values()))}): give those of one"
        )
    deleted = _deleted(roots, divisions, holds)
    if not roots and deleted:
        roots = {os.path.realpath(deleted[0][0]): deleted[0][0]}
    chosen = next(iter(roots.values()), ".")
    gone = tuple(rel for root, rel in deleted if os.path.realpath(root) == os.path.realpath(chosen))
    return chosen, Given(tuple(inside), frozenset(folders), tuple(outside), gone)


def _root(parts: list[str], at: int) -> str:
    """The tree above the division folder at `at` of an absolute path's parts, as shown:
    relative to the current folder when inside it."""
    root = os.sep.join(parts[:at]) or os.sep
    shown = os.path.relpath(root)
    return root if shown.startswith("..") else shown


def _deleted(roots: dict[str, str], divisions: frozenset[str], holds: Callable[[str], bool]) -> list[tuple[str, str]]:
    """The files the index deletes (pre-commit passes only the files that stay), each as the
    tree it lay in and its path there: in the tree of the paths given, else in one tree."""
    from ..scope import staged_deletions

    found = []
    for name in staged_deletions(os.getcwd()):
        parts = os.path.abspath(name).split(os.sep)
        at = _division_at(parts, divisions, holds)
        if at is not None:
            found.append((_root(parts, at), "/".join(parts[at:])))
    if not roots and len({os.path.realpath(root) for root, _ in found}) > 1:
        return []  # deletions in several trees and no path to choose one: each tree's own run checks them
    return found


def _division_at(parts: list[str], divisions: frozenset[str], holds: Callable[[str], bool]) -> int | None:
    """Where the division folder is among the parts of an absolute path: the nearest folder
    above it that is named as a division and holds a submitter folder (one holding results/
    or systems/), so that a folder named `open` or `closed` further up (a clone inside
    /tmp/x/open/, a submitter named so) is not taken for it. Its folders, not its own
    name, tell a submission root (the parent of the division folder) from any other."""
    for at in range(len(parts) - 1, -1, -1):
        if parts[at] in divisions and holds(os.sep.join(parts[: at + 1]) or os.sep):
            return at
    return None


def _holds_submitters(folder: str, marks: frozenset[str]) -> bool:
    """Whether a folder holds a submitter folder: one with a results/ or systems/ folder."""
    try:
        with os.scandir(folder) as entries:
            inner = [entry.path for entry in entries if entry.is_dir()]
    except OSError:
        return False
    return any(os.path.isdir(os.path.join(path, mark)) for path in inner for mark in marks)


def _narrowed_line(scope: Scope | None, changed_since: str | None, given: Given | None, checked: int) -> str:
    """What a narrowed check read and checked, and which paths affect no result."""
    if given is not None:
        noun = "path" if given.folders else "file"  # folders given, or files as pre-commit gives them
        line = f"{given.count} {noun}{'' if given.count == 1 else 's'} given"
        if given.deleted:
            line += f" and {len(given.deleted)} deleted in the git index"
        line += f"; checked {checked} results"
    else:
        assert scope is not None
        line = f"--changed-since {changed_since}: {scope.changed} changed files; checked {checked} results"
    outside = scope.outside if scope is not None else given.outside if given is not None else ()
    if outside:
        one = len(outside) == 1
        named = ", ".join(outside[:3]) + (f" and {len(outside) - 3} more" if len(outside) > 3 else "")
        line += (
            f"; {named} {'lies' if one else 'lie'} in no <division>/<submitter> folder and "
            f"{'affects' if one else 'affect'} no result"
        )
    return line
