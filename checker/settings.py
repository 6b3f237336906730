"""What a command runs with: its command line merged with `[tool.mlperf-check]`, the round it
judges by, and its outputs, planned before any work.

A command is one frozen `Invocation`: the command line as typed options, the `Settings`
(each the command line's value when given, else the configuration's), the round, and the
`(format, target)` pairs it writes (checker.output plans them, so that a path it cannot
write is a usage error before any work). The command line (checker.cli), a test or the
Python API build the same invocation, and the command's `run(invocation)` gives the exit
code. Anything the command line or a configuration asks that cannot be done is a
`UsageError`: one line, exit 2."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .errors import UsageError as UsageError  # the one user error (checker.errors), where the commands name it
from .errors import WrongType as WrongType
from .errors import option as named
from .output import Plan, Target

if TYPE_CHECKING:
    from .config import Config
    from .rounds import Round

OptionsT = TypeVar("OptionsT")
InvocationT = TypeVar("InvocationT", bound="Invocation[Any]")
Output = tuple[str, Target | None]  # a format, and where it goes (None: stdout)


def shown(value: Any) -> str:
    """A given value as a message names it: its repr, cut at 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def flag(value: Any, parameter: str) -> bool:
    """`value` when it is True or False: `strict="no"` is not a yes."""
    if not isinstance(value, bool):
        raise WrongType(f"{named(parameter)} {shown(value)}: give True or False", parameter)
    return value


JOBS = " (0: every core)"  # what --jobs and jobs= say of 0


def whole(value: Any, parameter: str, low: int = 0, what: str = "") -> int | None:
    """`value` when it is None or a whole number of at least `low` (jobs: 0 is every core)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise WrongType(f"{named(parameter)} {shown(value)}: give a whole number, {low} or more{what}", parameter)
    if value < low:
        raise UsageError(f"{named(parameter)} {value}: give a whole number, {low} or more{what}", parameter)
    return value


def text(value: Any, parameter: str, paths: bool = False) -> str | None:
    """`value` when it is None or a text (or, with `paths`, a path, as os.fspath gives it)."""
    if value is None:
        return None
    if paths and isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise WrongType(f"{named(parameter)} {shown(value)}: give a {'path or a ' if paths else ''}name", parameter)
    return value


def names(value: Any, parameter: str) -> list[str]:
    """A text or a list of texts as the command line's repeatable, comma-separated option
    gives them: "PRV" is ["PRV"] (not P, R, V), "PRF,SYS" is ["PRF", "SYS"]."""
    if value is None:
        return []
    listed = [value] if isinstance(value, str) else value
    if isinstance(listed, (bytes, dict)) or not isinstance(listed, (list, tuple, set, frozenset)):
        raise WrongType(f"{named(parameter)} {shown(value)}: give a code or a list of codes", parameter)
    for item in listed:
        if not isinstance(item, str):
            raise WrongType(f"{named(parameter)} {shown(item)}: give a code or a list of codes", parameter)
    return split(listed)


def columns(value: Any, parameter: str) -> tuple[str, ...]:
    """A list of column names: "model" alone is ("model",)'s mistake, said as such."""
    if isinstance(value, str):
        raise WrongType(f"{named(parameter)} {value!r}: give a list of column names, e.g. ({value!r},)", parameter)
    try:
        listed = tuple(value)
    except TypeError:
        raise WrongType(f"{named(parameter)} {shown(value)}: give a list of column names", parameter) from None
    for item in listed:
        if not isinstance(item, str):
            raise WrongType(f"{named(parameter)} {shown(item)}: give a list of column names", parameter)
    return listed


def missing_extra(what: str, extra: str) -> str:
    """What a command needs that is not installed, and how to install it: the package is not
    on PyPI, so from a checkout (`pip install -e '.[plot]'`)."""
    return f"{what} is not installed: it comes with the `{extra}` extra, `pip install -e '.[{extra}]'` in a checkout"


def split(values: Iterable[str] | None) -> list[str]:
    """`--select PRF,RNG001 --select SYS` -> [PRF, RNG001, SYS]."""
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def fraction(value: float | None, parameter: str) -> None:
    """A usage error unless `value` is a fraction (0 to 1): 4 meant as 4% would make every
    group within tolerance, and no result an outlier. `parameter` is named as the door names
    it (errors.option: `--tolerance`, or the API's `tolerance`)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise WrongType(f"{named(parameter)} {value!r}: give a fraction, e.g. 0.04 for 4%", parameter)
    if 0 <= value <= 1:
        return
    example = f"{value / 100:g} for {value:g}%" if 1 < value <= 100 else "0.04 for 4%"
    raise UsageError(f"{named(parameter)} {value:g}: give a fraction, e.g. {example}", parameter)


def config_of(path: str) -> Config:
    """The configuration of the tree at `path` ([tool.mlperf-check] of the nearest
    pyproject.toml), or a usage error naming the file and the key."""
    from .config import find as find_config

    return find_config(path)  # a ConfigError is a UsageError


@dataclass(frozen=True)
class Settings:
    """The values a repository sets once in [tool.mlperf-check] (checker.config), each the
    command line's when it gives one. `taken`: some value came from the configuration file,
    which the command says once on stderr (`config: PATH`)."""

    round: str | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    waivers: str | None = None
    jobs: int | None = None
    format: tuple[str, ...] = ()
    config: Config | None = None  # None: the command reads no configuration
    taken: bool = False

    @classmethod
    def of(cls, config: Config, given: Mapping[str, Any], keys: Iterable[str] | None = None) -> Settings:
        """Each of `keys` (default: those `given`), the command line's value (`given`, by key)
        when it gives one, else the configuration's. --jobs is checked here, as the API's jobs
        is (`whole`: the one check of a count of workers; the configuration's by its schema)."""
        whole(given.get("jobs"), "jobs", 0, JOBS)
        values: dict[str, Any] = {}
        taken = False
        for key in given if keys is None else keys:
            value = given.get(key)
            if value is None or (isinstance(value, (list, tuple)) and not value):
                value = config.get(key)
                taken = taken or value is not None
            if value is not None:
                values[key] = tuple(value) if isinstance(value, list) else value
        return cls(**values, config=config, taken=taken)

    @property
    def path(self) -> str | None:
        """The configuration file, when one was found."""
        return self.config.path if self.config is not None else None

    @property
    def said(self) -> str | None:
        """The line that names the configuration file a value came from, if one did."""
        return f"config: {self.path}" if self.taken else None


@dataclass(frozen=True, kw_only=True)
class Invocation(Generic[OptionsT]):
    """One run of a command: its options as the command line gave them, its settings, the
    round (name or file, and the round it loads), and its outputs, planned."""

    options: OptionsT
    settings: Settings = field(default_factory=Settings)
    round_name: str | None = None
    round: Round | None = None
    plan: Plan = field(default_factory=Plan)
    outputs: tuple[Output, ...] = ()

    def extended(self, kind: type[InvocationT], **more: Any) -> InvocationT:
        """This invocation as `kind` (a command's own, with fields of its own), with `more`."""
        return kind(**{f.name: getattr(self, f.name) for f in fields(self)} | more)

    @property
    def target(self) -> Target | None:
        """The one output of a command that writes one (None: stdout)."""
        return self.outputs[0][1] if self.outputs else None

    @property
    def format(self) -> str:
        """The format of a command's one output."""
        return self.outputs[0][0]


def one_of(value: str, allowed: Sequence[str], option: str, what: str = "") -> str:
    """`value` when it is one of `allowed`; else a usage error that names the option and
    suggests the closest (checker.suggest): the one check of every enumerated option
    (--format, --color, --output-format, an action)."""
    if value in allowed:
        return value
    from .suggest import did_you_mean

    raise UsageError(f"{option} {value}: unknown {what or option.lstrip('-')}; {did_you_mean(value, allowed)}")


def output_format(path: str | None, known: Sequence[str], by_extension: Mapping[str, str]) -> str:
    """The format -o's extension names: `auto` (the command's default) for stdout (`-`) or a
    name without an extension; a usage error for an extension that names no format, or one
    the command does not write (`table -o x.yaml`, `rules -o x.csv`): the one reading of -o
    of every command, so that no command writes one format into a file named for another."""
    if path in (None, "-"):
        return "auto"
    extension = os.path.splitext(path)[1].lower()
    if not extension:
        return "auto"
    name = by_extension.get(extension)
    if name is not None and name in known:
        return name
    from .suggest import choices

    own = sorted(e for e, n in by_extension.items() if n in known)
    says = f"names the {name} format, which this command does not write" if name else "names no format"
    raise UsageError(
        f"-o {path}: {extension} {says}; give --format {choices(known)}, or a file name ending in {choices(own)}"
    )


def round_file(name: str | None) -> str | None:
    """`--round` (or the config's round) when it is a file a command reads, else None."""
    from .rounds import is_path

    return name if name and is_path(name) else None


def plan_formats(
    plan: Plan,
    formats: Sequence[str],
    output: str | None,
    known: Sequence[str],
    by_extension: Mapping[str, str],
    config: Config | None = None,
    tree: str | None = None,
) -> tuple[Output, ...]:
    """`--format json:out.json --format text` -> [(json, out.json), (text, stdout)]. Without
    --format, `-o out.json` writes JSON (the extension decides), else the `auto` format; with
    --format FMT:FILE for every format, `-o FILE` is one output more, its format named the same
    way (as pytest writes --junitxml beside its other reports). `known` are the formats the
    command writes; `config` is where the formats came from when no option named them; its
    FILEs are then relative to it, and confined when it is inside the checked `tree`."""

    def named_by(path: str) -> str:
        return output_format(path, known, by_extension)

    if not formats and output is not None:
        formats = [named_by(output)]
    automatic = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    chosen = [automatic + f[len("auto") :] if f == "auto" or f.startswith("auto:") else f for f in formats or ["auto"]]
    named: list[tuple[str, str | None, str]] = []  # (format, file or None for stdout, the option that named it)
    for item in chosen:
        name, _, path = item.partition(":")
        one_of(name, known, "--format")
        named.append((name, path or None, f"--format {name}:"))
    unnamed = [t for t in named if t[1] is None]
    if output is not None:
        if len(unnamed) > 1:
            raise UsageError("-o names one file, but several formats have no file of their own")
        if unnamed:
            named = [(name, output, "-o") if path is None else (name, path, option) for name, path, option in named]
        else:
            named.append((automatic if named_by(output) == "auto" else named_by(output), output, "-o"))
    elif len(unnamed) > 1:
        raise UsageError("several formats would write to stdout; give each a file (--format json:out.json)")
    if config is None:
        return tuple((name, plan.add(path, option)) for name, path, option in named)
    base = config.folder
    confined = base is not None and tree is not None and _inside_tree(base, tree)
    return tuple((name, plan.add(path, f"{config.label('format')} {name}:", base, confined)) for name, path, _ in named)


def _inside_tree(folder: str, tree: str) -> bool:
    """Whether `folder` (a configuration file's) is the checked `tree` or inside it, or holds
    the division folder `tree` is in (a submitter folder was given)."""
    from .workspace import areas_of

    real = os.path.realpath(folder)
    roots = {os.path.realpath(tree)} | {os.path.dirname(area) for area in areas_of(tree)}
    return any(real == root or real.startswith(root + os.sep) for root in roots)
