"""Trees of other formats: a folder given that holds no MLPerf Inference results may be laid
out as another MLPerf submission (an Endpoints v1.0 rolling submission, a Training one),
which mlperf-check does not check. Their layouts are data (rules/formats.yaml: a signature
of path parts, the folder their tool takes, the tool), so `no results` can say what the
tree looks like and which tool checks it.

`survey` looks at a folder once, bounded: at most MAX_ENTRIES entries, no deeper than the
longest signature needs, hidden entries and links not entered. It reads no file."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from . import yamlsafe
from .rounds import bundled

FILE = "formats.yaml"
MAX_ENTRIES = 20_000


@dataclass(frozen=True)
class Format:
    """One other format (rules/formats.yaml)."""

    name: str
    source: str
    layout: str
    signature: tuple[re.Pattern[str], ...]
    root: int
    checker: str
    install: str

    def matches(self, parts: list[str]) -> int | None:
        """Where the signature starts among the parts of a file's absolute path, or None."""
        start = len(parts) - len(self.signature)
        if start - self.root < 1:  # the tool's folder (`root` above the signature) must lie in a folder
            return None
        return start if all(p.fullmatch(part) for p, part in zip(self.signature, parts[start:], strict=True)) else None


@dataclass(frozen=True)
class Survey:
    """What a folder holds, for `no results`: the other format it is laid out as (`format`,
    with `example`, a file of it, and `root`, the folder its tool takes, both as shown), how
    many folders it holds (`folders`), and whether a file in it bears a name of `known` (the
    files an MLPerf Inference run writes)."""

    format: Format | None = None
    example: str = ""
    root: str = ""
    folders: int = 0
    known: bool = False

    @property
    def tool(self) -> str:
        return self.format.checker.format(root=self.root) if self.format else ""


@functools.cache
def formats() -> tuple[Format, ...]:
    """The bundled other formats (read once a process)."""
    text = bundled().joinpath(FILE).read_text(encoding="utf-8")
    document = yamlsafe.load_package_data(text)
    return tuple(
        Format(
            name=str(entry["name"]),
            source=str(entry["source"]),
            layout=str(entry["layout"]),
            signature=tuple(re.compile(str(part)) for part in entry["signature"]),
            root=int(entry["root"]),
            checker=str(entry["checker"]),
            install=str(entry["install"]),
        )
        for entry in document["formats"]
    )


def survey(path: str, known: Iterable[str] = ()) -> Survey:
    """What the folder at `path` holds (Survey), looked at breadth first in name order; the
    first file that matches a format's signature decides."""
    known = frozenset(known)
    found = formats()
    base = os.path.realpath(path)
    top = base.split(os.sep)
    depth = max((len(f.signature) + f.root for f in found), default=0) + 1
    level: list[tuple[str, list[str]]] = [(base, [])]
    folders, seen, any_known = 0, 0, False
    for _ in range(depth):
        below: list[tuple[str, list[str]]] = []
        for folder, rel in level:
            try:
                with os.scandir(folder) as entries:
                    named = sorted((e for e in entries if not e.name.startswith(".")), key=lambda e: e.name)
            except OSError:
                continue
            for entry in named:
                seen += 1
                if seen > MAX_ENTRIES:
                    return Survey(folders=folders, known=any_known)
                if entry.is_dir(follow_symlinks=False):
                    folders += 1 if not rel else 0
                    below.append((entry.path, [*rel, entry.name]))
                    continue
                if not entry.is_file(follow_symlinks=False):
                    continue
                any_known = any_known or entry.name in known
                parts = [*top, *rel, entry.name]
                for one in found:
                    start = one.matches(parts)
                    if start is not None:
                        example = os.path.normpath(os.path.join(path, *rel, entry.name))
                        root = os.sep.join(parts[: start - one.root + 1])
                        return Survey(one, example, _shown(root), folders, any_known)
        level = below
    return Survey(folders=folders, known=any_known)


def _shown(real: str) -> str:
    """A folder as shown: relative to the current folder when inside it (or it), else as is."""
    shown = os.path.relpath(real)
    return real if shown.startswith("..") and not os.getcwd().startswith(real.rstrip(os.sep) + os.sep) else shown
