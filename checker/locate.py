"""Where in its file a finding is: the line and column (from 1) of its pointer.

Rules name what they saw by a pointer (a loadgen key, a JSON pointer, a YAML or summary key,
`line N`, `byte N`); positions are found here, once, after the rules, and only in the files
that have findings, so no rule computes one and the hot path stays as fast. What a pointer
names depends on the file:

- `line N`: that line; `byte N` (from 0): the line and column of that byte;
- a loadgen detail log (`:::MLLOG` records): the first record of the key, as the parser keeps
  its first value, at the column of its value;
- JSON: the member a JSON pointer names (`/a/0/b`, at the key's opening quote; the nearest
  member that exists when it is missing), or a key named by its dotted path or by its name;
- YAML: the key at a dotted path (`settings.runtime.min_duration_ms`) or of that name;
- any other text (a summary, accuracy.txt, user.conf): the first line with the key as a word
  (else as the start of one).

A file is read only when it is a regular file (never a link, a FIFO or a folder); a log is
streamed line by line until every key is found, any other file is read whole only up to
MAX_TEXT bytes (JSON, MAX_JSON characters). A place not found leaves the finding without a position."""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import BinaryIO, TypeVar

from . import yamlsafe
from .findings import Finding

MAX_TEXT = 16 * 1024 * 1024  # a larger file (not a log) gets no positions
MAX_JSON = 4 * 1024 * 1024  # nor a larger JSON file: following a pointer costs about 0.25 s a MB
MAX_DOTS = 8  # a dotted name is read as at most this many keys
_CHUNK = 1 << 16  # a log's line is read in pieces of this size; only its first is looked at
_MLLOG = b":::MLLOG"
_LINE = re.compile(r"line (\d+)\Z")
_BYTE = re.compile(r"byte (\d+)\Z")
_SPACE = re.compile(r"[ \t\r\n]*")
_DECODER = json.JSONDecoder()

Position = tuple[int, int | None]
_Place = TypeVar("_Place", int, tuple[int, int])


def locate(root: str, findings: list[Finding]) -> list[Finding]:
    """`findings` with their line and column set where their pointer names a place in their
    file (under `root`); a finding that has a line keeps it."""
    wanted: dict[str, list[int]] = defaultdict(list)  # a file's findings that have a pointer
    for index, finding in enumerate(findings):
        if finding.line is None and finding.pointer and finding.path:
            wanted[finding.path].append(index)
    if not wanted:
        return findings
    located = list(findings)
    for path, indices in wanted.items():
        pointers = {findings[i].pointer or "" for i in indices}
        try:
            places = positions(os.path.join(root, path), pointers)
        except (OSError, ValueError, RecursionError):  # a file that cannot be read: its findings say so
            continue
        for index in indices:
            place = places.get(findings[index].pointer or "")
            if place is not None:
                located[index] = findings[index].with_(line=place[0], column=place[1])
    return located


def positions(path: str, pointers: Iterable[str]) -> dict[str, Position]:
    """The place of each pointer found in the file at `path` (module docstring)."""
    found: dict[str, Position] = {}
    rest = set()
    for pointer in pointers:
        line = _LINE.match(pointer)
        if line:
            found[pointer] = (int(line.group(1)), None)
        else:
            rest.add(pointer)
    if not rest:
        return found
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return found
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        return found
    with os.fdopen(fd, "rb") as stream:
        head = stream.read(len(_MLLOG))
        stream.seek(0)
        if head == _MLLOG:
            return found | _in_log(_lines(stream), rest)
        if info.st_size > MAX_TEXT:
            return found
        text = stream.read(MAX_TEXT).decode("utf-8", "replace")
    for pointer in list(rest):
        byte = _BYTE.match(pointer)
        if byte:
            found[pointer] = _line_column(text, _char_offset(text, int(byte.group(1))))
            rest.discard(pointer)
    name = path.lower()
    if name.endswith(".json") or text.lstrip()[:1] in ("{", "["):
        return found | (_in_json(text, rest) if len(text) <= MAX_JSON else {})
    if name.endswith((".yaml", ".yml")):
        return found | _by_path(yamlsafe.positions(text), rest)
    return found | _in_text(text, rest)


def _lines(stream: BinaryIO) -> Iterator[bytes]:
    """Each line's first piece (at most _CHUNK bytes); a longer line's other pieces are read past."""
    whole = True
    for piece in iter(lambda: stream.readline(_CHUNK), b""):
        if whole:
            yield piece
        whole = piece.endswith(b"\n")


def _in_log(lines: Iterable[bytes], keys: set[str]) -> dict[str, Position]:
    """The first record of each key: its line, and the column of its value."""
    heads = {f'"key": "{key}"'.encode(): key for key in keys}
    found: dict[str, Position] = {}
    for number, line in enumerate(lines, 1):
        if not line.startswith(_MLLOG):
            continue
        end = line.find(b'", ', len(_MLLOG))
        key = heads.pop(line[line.find(b'"key"') : end + 1], None) if end > 0 else None
        if key is None:
            continue
        value = line.find(b'"value": ', end)
        at = value + len(b'"value": ') if value >= 0 else 0
        found[key] = (number, len(line[:at].decode("utf-8", "replace")) + 1)
        if not heads:
            break
    return found


def _char_offset(text: str, byte: int) -> int:
    """The character offset in `text` of a byte offset in its UTF-8 encoding."""
    return len(text.encode("utf-8", "replace")[:byte].decode("utf-8", "ignore"))


def _line_column(text: str, offset: int) -> Position:
    start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - start + 1


def _in_json(text: str, pointers: set[str]) -> dict[str, Position]:
    """Each pointer's member: a JSON pointer followed from the top (the nearest member that
    exists when it goes further); a dotted path followed so (a key may hold dots: `99.0`);
    else the first key of that name in the text."""
    found: dict[str, int] = {}
    for pointer in pointers:
        if pointer == "" or pointer.startswith("/"):
            path = tuple(part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:])
            offset = _follow(text, path, nearest=True)
        else:
            offset = next(filter(None, (_follow(text, path) for path in _splits(pointer))), None)
            if offset is None:
                named = re.search(r'(?<!\\)"' + re.escape(json.dumps(pointer)[1:-1]) + r'"\s*:', text)
                offset = named.start() if named else None
        if offset is not None:
            found[pointer] = offset
    # Only the offsets found become lines: each costs a scan of the text before it.
    return {pointer: _line_column(text, offset) for pointer, offset in found.items()}


def _splits(dotted: str) -> Iterator[tuple[str, ...]]:
    """Every way to read a dotted name as a path of keys, the fewest dots split first."""
    parts = dotted.split(".")
    cuts = range(1, len(parts))
    for count in range(min(len(parts), MAX_DOTS)):
        for chosen in itertools.combinations(cuts, count):
            edges = (0, *chosen, len(parts))
            yield tuple(".".join(parts[a:b]) for a, b in itertools.pairwise(edges))


def _follow(text: str, path: tuple[str, ...], nearest: bool = False) -> int | None:
    """The offset of the member (its key) or item at `path` in JSON text, or of the value at
    the top for (). Only the containers on the path are walked; every other value is skipped
    by the C decoder, so the cost is a linear scan. A member given twice is the last, as json
    reads it. Past a fault in the text, what came before counts. When the path goes further
    than the document: the nearest member that exists when `nearest`, else None."""
    at = best = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    for key in path:
        hit = _member(text, at, key)
        if hit is None:
            return best if nearest else None
        best, at = hit
    return best


def _member(text: str, at: int, key: str) -> tuple[int, int] | None:
    """Where the member `key` (or the item at index `key`) of the container at `at` starts,
    and where its value does; None when it has none before the container ends or the text
    breaks (a fault is a finding of its own: what came before it counts)."""
    mark = text[at] if at < len(text) else ""
    if mark not in ("{", "[") or (mark == "[" and not key.isdigit()):
        return None
    close, index, hit = "}" if mark == "{" else "]", 0, None
    try:
        at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
        while text[at] != close:
            begin = value = at
            if mark == "{":
                if text[at] != '"':
                    return hit  # not a key: the text breaks here
                name, end = _DECODER.raw_decode(text, at)
                colon = _SPACE.match(text, end).end()  # type: ignore[union-attr]
                if text[colon] != ":":
                    return hit
                value = _SPACE.match(text, colon + 1).end()  # type: ignore[union-attr]
                if name == key:
                    hit = (begin, value)  # a later one wins
            elif index == int(key):
                return begin, value
            at = _SPACE.match(text, _DECODER.raw_decode(text, value)[1]).end()  # type: ignore[union-attr]
            index += 1
            if text[at] == ",":
                at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
            elif text[at] != close:
                return hit
    except (ValueError, IndexError):  # a value the decoder refuses, or the text ends
        return hit
    return hit


def _by_path(places: Mapping[tuple[str, ...], _Place], pointers: set[str]) -> dict[str, _Place]:
    """A key named by its dotted path from the top (a key may hold dots: `99.0`), else the
    first key of that name anywhere, in the order of the file (places are its offsets or
    its positions)."""
    found: dict[str, _Place] = {}
    for pointer in pointers:
        dotted = [place for path, place in places.items() if path and ".".join(path) == pointer]
        named = [place for path, place in places.items() if path and path[-1] == pointer]
        chosen = min(dotted or named, default=None)
        if chosen is not None:
            found[pointer] = chosen
    return found


def _in_text(text: str, pointers: set[str]) -> dict[str, Position]:
    """The first line holding each pointer as a word of its own, at its column; else the first
    word it begins (`acc` of `accuracy=...`)."""
    found: dict[str, Position] = {}
    for pointer in pointers:
        word = rf"(?<!\w){re.escape(pointer)}"
        match = re.search(word + r"(?!\w)", text) or re.search(word, text)
        if match:
            found[pointer] = _line_column(text, match.start())
    return found
