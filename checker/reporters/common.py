"""What several reporters need: paths as the repository sees them, and line numbers."""

from __future__ import annotations

import os
import re

_LINE = re.compile(r"^line (\d+)$")


def repository_prefix(root: str) -> str:
    """The checked root relative to the repository root (GITHUB_WORKSPACE, else the current
    folder), POSIX style, with a trailing slash; "" when the root is not inside it."""
    base = os.path.realpath(os.environ.get("GITHUB_WORKSPACE") or os.getcwd())
    root = os.path.realpath(root)
    if root == base:
        return ""
    if root.startswith(base + os.sep):
        return os.path.relpath(root, base).replace(os.sep, "/") + "/"
    return ""


def line_of(pointer: str | None) -> int | None:
    """The line a finding points at, when its pointer is `line N`."""
    match = _LINE.match(pointer or "")
    return int(match.group(1)) if match else None
