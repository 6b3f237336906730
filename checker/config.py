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
    format = ["github", "json:report.json"]  # as --format; FILE relative to this file

A flag given on the command line wins over its key. An unknown key or a value of the wrong
type is a ConfigError that names the file and the key."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from typing import Any

TABLE = "tool.mlperf-check"
KEYS = ("round", "select", "ignore", "waivers", "jobs", "format")


class ConfigError(ValueError):
    """A configuration file that cannot be read, or a key or value it may not have."""


@dataclass(frozen=True)
class Config:
    path: str | None = None  # the pyproject.toml the values come from; None when none was found
    values: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        return self.values.get(key)

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
    """The [tool.mlperf-check] table of the pyproject.toml at `path`, checked, with its paths
    joined to the file's folder; None when the file has no such table."""
    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:  # TOML is UTF-8
        raise ConfigError(f"{path} is not valid TOML: {error}") from None
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror or error}") from None
    table = document.get("tool", {}).get("mlperf-check") if isinstance(document.get("tool"), dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [{TABLE}] is not a table")
    base = os.path.dirname(path)
    values: dict[str, Any] = {}
    for key, value in table.items():
        where = f"{path}: [{TABLE}] {key}"
        if key not in KEYS:
            raise ConfigError(f"{path}: [{TABLE}] has an unknown key {key!r}; the keys are {', '.join(KEYS)}")
        if key in ("round", "waivers"):
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{where}: give a string, not {_shown(value)}")
            values[key] = _relative(base, value) if key == "waivers" or _is_file(value) else value
        elif key == "jobs":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"{where}: give a whole number (0 for all cores), not {_shown(value)}")
            values[key] = value
        else:  # select, ignore, format: a list of strings (or one string), commas allowed in each
            items = [value] if isinstance(value, str) else value
            if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
                raise ConfigError(f"{where}: give a list of strings, not {_shown(value)}")
            parts = [part.strip() for item in items for part in item.split(",") if part.strip()]
            values[key] = [_format_target(base, part) for part in parts] if key == "format" else parts
    return Config(path, values)


def _shown(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"


def _is_file(round_value: str) -> bool:
    """Whether a `round` value names a round file rather than a round (as rounds.load_round reads it)."""
    return os.sep in round_value or "/" in round_value or round_value.endswith((".yaml", ".yml"))


def _relative(base: str, path: str) -> str:
    return path if os.path.isabs(path) else os.path.join(base, path)


def _format_target(base: str, item: str) -> str:
    """`json:report.json` with the file relative to the configuration's folder."""
    name, sep, path = item.partition(":")
    return f"{name}:{_relative(base, path)}" if sep and path else item
