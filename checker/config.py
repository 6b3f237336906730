"""The configuration file: `[tool.mlperf-check]` in a `pyproject.toml`.

The file is the nearest `pyproject.toml` that has the table, from the checked folder up to
the root of its git repository (a folder holding `.git`) or of the file system, as ruff
finds its own. The keys are the options of `check` that a repository sets once:

    [tool.mlperf-check]
    round = "v6.1"                  # a round name, or a round file (relative to this file)
    select = ["PRF", "RNG001"]      # codes or prefixes, as --select
    ignore = ["SYS012"]             # as --ignore
    waivers = "waivers.yaml"        # relative to this file
    jobs = 4                        # 0: all cores
    format = ["github", "json:report.json"]  # as --format; FILE relative to this file (see checker.output)

A flag given on the command line wins over its key. An unknown key, a key given twice, a
value of the wrong type (schemas/config.schema.json) or a number that is not finite is a
ConfigError that names the file, the line and the key (checker.userfiles)."""

from __future__ import annotations

import functools
import os
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from . import userfiles, yamlsafe
from .errors import UsageError

TABLE = "tool.mlperf-check"
KEYS = tuple(userfiles.schema("config.schema.json")["properties"])  # round, select, ignore, waivers, jobs, format


class ConfigError(UsageError):
    """A configuration file that cannot be read, or a key or value it may not have."""


@dataclass(frozen=True)
class Config:
    path: str | None = None  # the pyproject.toml the values come from; None when none was found
    values: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        return self.values.get(key)

    @property
    def folder(self) -> str | None:
        """The folder of the file: what its relative paths are relative to."""
        return os.path.dirname(self.path) if self.path else None

    def label(self, key: str) -> str:
        """Where a value comes from, for a message: `pyproject.toml [tool.mlperf-check] select`."""
        return f"{self.path} [{TABLE}] {key}"


def find(start: str) -> Config:
    """The configuration of the folder `start` (or of the folder of the file `start`): the
    nearest pyproject.toml with a [tool.mlperf-check] table, looking up to the root of the
    git repository or of the file system. An empty Config when there is none."""
    folder = os.path.abspath(start)
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            found = load(candidate)
            if found is not None:
                return found
        parent = os.path.dirname(folder)
        if parent == folder or os.path.exists(os.path.join(folder, ".git")):
            return Config()
        folder = parent


def load(path: str) -> Config | None:
    """The [tool.mlperf-check] table of the pyproject.toml at `path`, checked against
    schemas/config.schema.json, with its paths joined to the file's folder; None when the
    file has no such table."""
    try:
        text = yamlsafe.read_regular(path, what="")
    except yamlsafe.YamlError as error:
        raise ConfigError(str(error)) from None
    try:
        document = tomllib.loads(text)  # a key given twice is a TOMLDecodeError that names its line
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(_toml_error(path, text, error)) from None
    table = document.get("tool", {}).get("mlperf-check") if isinstance(document.get("tool"), dict) else None
    if table is None:
        return None
    top = ("tool", "mlperf-check")
    line_of = functools.partial(_line, text)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}:{line_of(top)}: [{TABLE}] is not a table")
    try:
        userfiles.finite(table, path, line_of, top, label=_label)
        userfiles.check(table, "config.schema.json", path, line_of, top, label=_label)
    except userfiles.UserFileError as error:
        raise ConfigError(str(error)) from None
    base = os.path.dirname(path)
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key in ("round", "waivers"):
            values[key] = _relative(base, value) if key == "waivers" or _is_file(value) else value
        elif key == "jobs":
            values[key] = value
        else:  # select, ignore, format: a list of strings (or one string), commas allowed in each
            items = [value] if isinstance(value, str) else value
            parts = [part.strip() for item in items for part in item.split(",") if part.strip()]
            values[key] = parts  # a format's FILE stays as written: relative to `folder` (checker.output)
    return Config(path, values)


def _toml_error(path: str, text: str, error: tomllib.TOMLDecodeError) -> str:
    """tomllib's message, with the key when it is one given twice (tomllib names only the line)."""
    found = re.search(r"at line (\d+)", str(error))
    if found and str(error).startswith(("Cannot overwrite", "Cannot declare")):
        number = int(found.group(1))
        lines = text.splitlines()
        key = lines[number - 1].partition("=")[0].strip().strip("[]").strip() if number <= len(lines) else ""
        if key:
            return f"{path}:{number}: key {key!r} is given twice ({error})"
    return f"{path} is not valid TOML: {error}"


def _label(path: tuple[Any, ...]) -> str:
    """A place in the table, as messages name it: `[tool.mlperf-check] jobs`."""
    return " ".join([f"[{TABLE}]", *(str(part) for part in path[2:3])])


def _line(text: str, path: tuple[Any, ...]) -> int | None:
    """The line of a key of [tool.mlperf-check] (of the table's header without a key), as
    far as a line-by-line reading of TOML can tell; None when it cannot."""
    key = str(path[2]) if len(path) > 2 else None
    header, inside = None, False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("["):
            inside = re.match(r'^\[\s*tool\s*\.\s*"?mlperf-check"?\s*\]', line) is not None
            header = number if inside and header is None else header
            continue
        if key is not None and inside and re.match(rf'^["\']?{re.escape(key)}["\']?\s*=', line):
            return number
    return header


def _shown(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"


def _is_file(round_value: str) -> bool:
    """Whether a `round` value names a round file rather than a round (as rounds.load_round reads it)."""
    return os.sep in round_value or "/" in round_value or round_value.endswith((".yaml", ".yml"))


def _relative(base: str, path: str) -> str:
    return path if os.path.isabs(path) else os.path.join(base, path)
