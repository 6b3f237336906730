"""What several reporters need: paths as the repository sees them, line numbers and strict
JSON. The text they show is escaped by checker.escaping (the one escaping of every output):
`printable` in data formats, `visible` in what people read, `csv_text` for CSV."""

from __future__ import annotations

import functools
import json
import math
import numbers
import os
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..escaping import csv_text, not_xml, printable, visible, visible_lines

if TYPE_CHECKING:
    from ..findings import Finding

__all__ = ["csv_text", "not_xml", "printable", "visible", "visible_lines"]  # checker.escaping's, for the writers

_LINE = re.compile(r"^line (\d+)$")
# Where a value lies in a document: its parent's place and its key, back to the root (None).
Place = tuple["Place | None", Any]


def _pointer_part(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _pointer(where: Place | None) -> str:
    """The JSON pointer of a place `_strict` names as (parent, key) links."""
    parts = []
    while where is not None:
        where, key = where
        parts.append(_pointer_part(key))
    return "".join(f"/{part}" for part in reversed(parts))


def _strict(value: Any, where: Place | None, replaced: list[str]) -> Any:
    """`value` with every non-finite number None (its pointer added to `replaced`) and all
    text `printable`. `where` is where it lies, as (parent, key) links: a pointer is made
    only for a number that is replaced. The plain types are tested first, by exact type."""
    kind = type(value)
    if kind is str:
        return value if value.isascii() else printable(value)  # a surrogate is not ASCII
    if kind is int or kind is bool or value is None:
        return value
    if kind is dict:
        return {
            (k if k.isascii() else printable(k)) if isinstance(k, str) else k: _strict(v, (where, k), replaced)
            for k, v in value.items()
        }
    if kind is list or kind is tuple:
        return [_strict(v, (where, i), replaced) for i, v in enumerate(value)]
    if isinstance(value, bool) or value is None or isinstance(value, numbers.Integral):
        return value
    if isinstance(value, numbers.Real):
        if math.isfinite(value):
            return value
        replaced.append(_pointer(where) or "/")
        return None
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable(k) if isinstance(k, str) else k: _strict(v, (where, k), replaced) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v, (where, i), replaced) for i, v in enumerate(value)]
    return value


def warn(message: str) -> None:
    print(f"warning: {visible(message)}", file=sys.stderr)


def strict_json(data: Any, warning: Callable[[str], None] | None = None, **options: Any) -> str:
    """`json.dumps(data, **options)`, strict: JSON has no NaN or Infinity, so a non-finite
    number is written as null and one warning line (on stderr by default) says where; text
    is `printable`."""
    replaced: list[str] = []
    clean = _strict(data, None, replaced)
    text = json.dumps(clean, allow_nan=False, **options)
    if replaced:
        shown = ", ".join(replaced[:5]) + (f" and {len(replaced) - 5} more" if len(replaced) > 5 else "")
        (warning or warn)(
            f"{len(replaced)} non-finite number(s) written as null (JSON has no NaN or Infinity): {shown}"
        )
    return text


def repository_base(root: str) -> tuple[str, str]:
    """(the folder paths are written relative to, the checked root relative to it): the
    repository root (GITHUB_WORKSPACE, else the current folder) and the root's place in it,
    POSIX style with a trailing slash; the root itself and "" when it is not inside it."""
    base = os.path.realpath(os.environ.get("GITHUB_WORKSPACE") or os.getcwd())
    root = os.path.realpath(root)
    if root == base:
        return base, ""
    if root.startswith(base + os.sep):
        return base, os.path.relpath(root, base).replace(os.sep, "/") + "/"
    return root, ""


def repository_prefix(root: str) -> str:
    """The checked root relative to the repository root (GITHUB_WORKSPACE, else the current
    folder), POSIX style, with a trailing slash; "" when the root is not inside it."""
    return repository_base(root)[1]


def in_workspace(path: str, prefix: str = "", base: str | None = None) -> str:
    """A finding's path as the repository sees it: relative to the checked root, `prefix`
    (the root's place in the repository, repository_base) joined; a file outside the root
    (a waivers file, whose path is absolute) relative to the repository root `base` when it
    lies in it, else absolute."""
    if not os.path.isabs(path):
        return prefix + path
    if base is not None and path.startswith(base.rstrip(os.sep) + os.sep):
        return os.path.relpath(path, base).replace(os.sep, "/")
    return path


def place(finding: Finding, prefix: str = "", base: str | None = None) -> str:
    """`path[:line[:column]]`: where a finding is, as compilers and linters write it."""
    where = in_workspace(finding.path, prefix, base)
    if finding.line is not None:
        where += f":{finding.line}" + (f":{finding.column}" if finding.column is not None else "")
    return where


def pointer_shown(finding: Finding) -> str | None:
    """The pointer to print beside a finding's place: none when it is only `line N`, which
    the place already says."""
    if finding.pointer and (finding.line is None or line_of(finding.pointer) is None):
        return finding.pointer
    return None


def line_of(pointer: str | None) -> int | None:
    """The line a finding points at, when its pointer is `line N`."""
    match = _LINE.match(pointer or "")
    return int(match.group(1)) if match else None


def follows(finding: Finding) -> str:
    """`; follows from CODE at PATH` for a consequence, "" for a root: what every format adds
    to a finding's message."""
    return f"; {finding.cause.text}" if finding.cause is not None else ""


def fix_of(finding: Finding) -> str | None:
    """What to do about a finding: its own hint, else the Fix of its rule's documentation;
    what the text report's `help:` line, an annotation and SARIF say. None for a consequence
    (a finding with a `cause`): fixing its cause is its fix."""
    if finding.cause is not None:
        return None
    if finding.hint:
        return finding.hint
    from ..registry import RULES

    rule = RULES.get(finding.code)
    fix: str | None = rule.sections.get("Fix") if rule is not None else None
    return fix or None


DOCS = "docs/rules"  # one page per code, made from its docstring (`mlperf-check rules --docs`)


@functools.cache
def _repository_url() -> str | None:
    """The repository URL among the installed package's project URLs, when it has one."""
    from importlib import metadata

    try:
        urls = metadata.metadata("mlperf-check").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    for entry in map(str, urls):
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("repository", "source", "source code", "homepage") and url.strip():
            return url.strip().rstrip("/")
    return None


def help_page(code: str) -> str:
    """The page of a code in a checkout: `docs/rules/CODE.md`."""
    return f"{DOCS}/{code}.md"


def help_uri(code: str) -> str | None:
    """The absolute URL of a code's page, `<repository>/blob/HEAD/docs/rules/CODE.md`, when the
    package names its repository among its project URLs; else None (a relative reference is
    no URI: SARIF's helpUri must be absolute)."""
    url = _repository_url()
    return f"{url}/blob/HEAD/{help_page(code)}" if url else None
