"""`mlperf-check cache info`: the cache folder (checker/cache.py), its entries and their
size, this version's among them, and the bound; `mlperf-check cache clean`: every entry
removed (the folder's other files are left alone). --cache-dir names another folder."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .. import cache
from ..escaping import visible
from ..settings import Invocation, UsageError, one_of

ACTIONS = ("info", "clean")
FORMATS = ("text", "json")


@dataclass(frozen=True, kw_only=True)
class CommandLine:
    action: str
    cache_dir: str | None = None
    format: str = "text"


def invocation(options: CommandLine) -> Invocation[CommandLine]:
    one_of(options.action, ACTIONS, "cache", "action")
    one_of(options.format, FORMATS, "--format", "format")
    if options.action == "clean" and options.format != "text":
        raise UsageError("--format goes with `cache info`")
    return Invocation(options=options)


def _folder(options: CommandLine) -> str:
    if options.cache_dir:
        return os.path.abspath(options.cache_dir)
    folder = cache.where().folder
    assert folder is not None  # --no-cache is not an option of this command
    return folder


def run(invocation: Invocation[CommandLine]) -> int:
    options = invocation.options
    folder = _folder(options)
    if options.action == "clean":
        count, size = cache.clean(folder)
        print(visible(f"removed {count} entries ({_size(size)}) from {folder}"))
        return 0
    found = cache.info(folder)
    if options.format == "json":
        from ..reporters import json_text

        print(json_text(found), end="")
        return 0
    print(visible(f"folder: {found['folder']}"))
    print(f"entries: {found['entries']} ({_size(found['bytes'])})")
    print(f"this version: {found['this_version_entries']} ({_size(found['this_version_bytes'])})")
    print(f"bound: {_size(found['limit_bytes'])} (${cache.ENV_MAX})")
    return 0


def _size(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB" if size >= 1024 * 1024 else f"{size} bytes"
