"""Accuracy logs truncated as the round's truncate_accuracy_log.py does (`prepare.truncation`).

Where the round looks for logs, how much of a log it keeps, what it writes between the two
ends, and how it records the hash of the whole log in the report beside it are the round
file's facts. Each log is read once, in bounded memory: its SHA-256, its first and its last
bytes. A log or report that cannot be read whole is `Unreadable`: the caller makes it a
finding, and the result is not copied as if it were fine.

The script works in Python's text mode, and so does this: a line ends at `\r\n`, `\r` or
`\n`, each read as `\n` (universal newlines), and what it keeps is `head_bytes` characters
from the start and the characters from byte size - `tail_bytes` to the end, written as UTF-8
with `\n`. A CRLF log (what a Windows loadgen writes) so becomes fewer bytes than an LF one,
and a lone-CR accuracy.txt has its hash line found. A log whose text the script cannot
decode there (not UTF-8, or byte size - tail_bytes inside a character) makes the script
fail: it is `Unreadable` here. tests/data/truncation holds the script's own outputs."""

from __future__ import annotations

import codecs
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
    text read as the script reads it: a line ends at `\r\n`, `\r` or `\n`)."""
    compiled = re.compile(pattern)
    line = b""
    for chunk in lines:
        parts = re.split(rb"\r\n|\r|\n", chunk)
        for part in parts[:-1]:
            if compiled.match((line + part)[:LINE_LIMIT].decode("utf-8", "replace")):
                return True
            line = b""
        line = (line + parts[-1])[:LINE_LIMIT]
    return bool(line) and compiled.match(line.decode("utf-8", "replace")) is not None


@dataclass(frozen=True)
class Read:
    digest: str
    size: int
    kept: bytes  # what the truncated log holds


def read_log(chunks: Iterable[bytes], facts: Truncation) -> Read:
    """The digest, size and truncated bytes of a whole log, in one pass, in the script's text
    mode: the first `head_bytes` characters, the separator, and the characters from byte
    size - `tail_bytes` (they overlap in a short log), newlines translated; a log under
    `cut_from_bytes` is kept whole. ValueError when the script could not decode what it reads."""
    head_chars, tail_bytes, cut_from = facts.head_bytes, facts.tail_bytes, facts.cut_from_bytes
    head_limit = 4 * head_chars + 1  # a character is at most 4 bytes (CRLF: 2); one more for a CR
    digest = hashlib.new(facts.hash)
    head, tail, whole, size = b"", b"", b"", 0
    for chunk in chunks:
        digest.update(chunk)
        size += len(chunk)
        if len(head) < head_limit:
            head += chunk[: head_limit - len(head)]
        tail = (tail + chunk[-tail_bytes:])[-tail_bytes:] if tail_bytes else b""
        if len(whole) < cut_from:
            whole += chunk[: cut_from - len(whole)]
    if size < cut_from:
        return Read(digest.hexdigest(), size, whole)
    start = _text(head, final=size <= head_limit)[:head_chars]
    kept = start + facts.separator + _text(tail, final=True)
    return Read(digest.hexdigest(), size, kept.encode("utf-8"))


def _text(data: bytes, final: bool) -> str:
    """`data` decoded as the script's text mode reads it: UTF-8, universal newlines. A
    character cut at the end of a head that goes on is left out (`final` False)."""
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(data, final=final)
    except UnicodeDecodeError as error:
        raise ValueError(f"byte {error.start} of the part the script reads is not UTF-8 ({error.reason})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


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
        try:
            read = read_log(chunks, facts)
        except ValueError as error:
            raise Unreadable(
                place.log, "FIL003", f"accuracy log cannot be truncated as the round's script reads it: {error}"
            ) from None
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
