"""Accuracy logs truncated as the round's truncate_accuracy_log.py does (`prepare.truncation`).

Where the round looks for logs, how much of a log it keeps, what it writes between the two
ends, and how it records the hash of the whole log in the report beside it are the round
file's facts. Each log is read once, in bounded memory: its SHA-256, its first and its last
bytes. A log or report that cannot be read whole is `Unreadable`: the caller makes it a
finding, and the result is not copied as if it were fine."""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..facts import Files, Truncation
from ..model import Result
from ..tree import Kind, Tree, join
from .prepare_tree import Change, Stage, Unreadable, copy_file, open_source

LINE_LIMIT = 4096  # of a report line, the bytes matched against the hash pattern

__all__ = ["Place", "Unreadable", "places", "truncate"]


@dataclass(frozen=True)
class Place:
    """One accuracy log the round truncates, with its report and how the hash goes there."""

    log: str
    report: str
    report_mode: str  # append | replace
    without_report: str  # skip | create
    location: str  # the result it belongs to


def places(tree: Tree, facts: Truncation, files: Files, results: Iterable[Result]) -> list[Place]:
    """The logs of `results` that the round's truncation reaches and that are there (a link
    or a FIFO in their place is there too: reading it is what fails)."""
    found = []
    for result in results:
        folders = {key: result.path(key) for key in ("result", "compliance", "measurements")}
        for spec in facts.logs:
            if spec.divisions is not None and result.division not in spec.divisions:
                continue
            folder = spec.folder.format(**folders)
            log = join(folder, files.accuracy_log)
            if tree.entry(log).kind is not Kind.MISSING:
                found.append(
                    Place(
                        log=log,
                        report=join(folder, files.accuracy_report),
                        report_mode=spec.report,
                        without_report=spec.without_report,
                        location=result.location,
                    )
                )
    return found


def has_hash(lines: Iterable[bytes], pattern: str) -> bool:
    """Whether a line of the report matches the round's hash pattern (re.match, per line, on
    text: a line ends at a newline, and a carriage return before it is not part of it)."""
    compiled = re.compile(pattern)
    line = b""
    for chunk in lines:
        parts = chunk.split(b"\n")
        for part in parts[:-1]:
            if compiled.match((line + part)[:LINE_LIMIT].rstrip(b"\r").decode("utf-8", "replace")):
                return True
            line = b""
        line = (line + parts[-1])[:LINE_LIMIT]
    return bool(line) and compiled.match(line.rstrip(b"\r").decode("utf-8", "replace")) is not None


@dataclass(frozen=True)
class Read:
    digest: str
    size: int
    kept: bytes  # what the truncated log holds


def read_log(chunks: Iterable[bytes], facts: Truncation) -> Read:
    """The digest, size and truncated bytes of a whole log, in one pass: the first
    `head_bytes`, the separator and the last `tail_bytes` (read from size - tail_bytes, so
    they overlap in a short log); a log under `cut_from_bytes` is kept whole."""
    head_bytes, tail_bytes, cut_from = facts.head_bytes, facts.tail_bytes, facts.cut_from_bytes
    digest = hashlib.new(facts.hash)
    head, tail, whole, size = b"", b"", b"", 0
    for chunk in chunks:
        digest.update(chunk)
        size += len(chunk)
        if len(head) < head_bytes:
            head += chunk[: head_bytes - len(head)]
        tail = (tail + chunk[-tail_bytes:])[-tail_bytes:] if tail_bytes else b""
        if len(whole) < cut_from:
            whole += chunk[: cut_from - len(whole)]
    if size < cut_from:
        return Read(digest.hexdigest(), size, whole)
    return Read(digest.hexdigest(), size, head + facts.separator.encode() + tail)


def truncate(tree: Tree, stage: Stage, place: Place, facts: Truncation) -> Change | None:
    """Copy one log and its report into the stage as the round's truncation leaves them;
    the change, or None when the round leaves them as they are. Unreadable when the log or
    the report cannot be read whole."""
    present = tree.entry(place.report).kind is not Kind.MISSING
    if place.report_mode == "append" and not present and place.without_report == "skip":
        copy_file(tree, place.log, stage, place.log, "accuracy log")
        return Change(
            "not truncated",
            place.log,
            f"no {_name(place.report)} beside it: the round's truncation leaves such a log whole",
        )
    hashed = False
    if present:
        with open_source(tree, place.report, "accuracy report") as (report_mode, chunks):
            hashed = has_hash(chunks, facts.hash_line)
    if hashed and tree.entry(place.log).size < facts.done_below_bytes:
        copy_file(tree, place.log, stage, place.log, "accuracy log")
        copy_file(tree, place.report, stage, place.report, "accuracy report")
        return None
    with open_source(tree, place.log, "accuracy log") as (mode, chunks):
        read = read_log(chunks, facts)
    appending = place.report_mode == "append" and present
    line = (facts.appended if place.report_mode == "append" else facts.replaced).format(hash=read.digest).encode()
    if appending:
        with open_source(tree, place.report, "accuracy report") as (report_mode, chunks):
            stage.write(place.report, itertools.chain(chunks, [line]), report_mode)
    else:
        stage.write(place.report, [line], report_mode if present else _new_mode())
    stage.write(place.log, [read.kept], mode)
    return _change(place, read, facts, appending)


def _change(place: Place, read: Read, facts: Truncation, appended: bool) -> Change:
    cut = read.size >= facts.cut_from_bytes
    how = (
        f"{read.size} bytes, kept as its first {facts.head_bytes} and last {facts.tail_bytes} ({len(read.kept)} bytes)"
        if cut
        else f"{read.size} bytes, under {facts.cut_from_bytes}: kept whole"
    )
    return Change(
        "truncated" if cut else "hashed",
        place.log,
        f"{how}; its {facts.hash} {'appended to' if appended else 'written to'} {_name(place.report)}",
        facts={"bytes": read.size, "kept_bytes": len(read.kept), "hash": read.digest, "report": place.report},
    )


def _name(rel: str) -> str:
    return rel.rpartition("/")[2]


def _new_mode() -> int:
    """The mode of a new file: 0666 less the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
