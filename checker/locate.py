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
MAX_TEXT bytes. A place not found leaves the finding without a position."""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import BinaryIO

from . import yamlsafe
from .findings import Finding

MAX_TEXT = 16 * 1024 * 1024  # a larger file (not a log) gets no positions
MAX_DEPTH = 200  # JSON nested deeper is not followed
_CHUNK = 1 << 16  # a log's line is read in pieces of this size; only its first is looked at
_MLLOG = b":::MLLOG"
_LINE = re.compile(r"line (\d+)\Z")
_BYTE = re.compile(r"byte (\d+)\Z")
_SPACE = re.compile(r"[ \t\r\n]*")
_DECODER = json.JSONDecoder()

Position = tuple[int, int | None]


def locate(root: str, findings: list[Finding]) -> list[Finding]:
    """`findings` with their line and column set where their pointer names a place in their
    file (under `root`); a finding that has a line keeps it."""
    wanted: dict[str, list[int]] = defaultdict(list)
    for index, finding in enumerate(findings):
        if finding.line is None and finding.pointer and finding.path:
            wanted[finding.path].append(index)
    if not wanted:
        return findings
    located = list(findings)
    for path, indices in wanted.items():
        pointers = {findings[i].pointer or "" for i in indices}
        places = positions(os.path.join(root, path), pointers)
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
        return found | _in_json(text, rest)
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
    start = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    offsets: dict[tuple[str, ...], int] = {(): start}
    with contextlib.suppress(ValueError, IndexError):  # the members before a fault are placed
        _json_value(text, start, (), offsets, 0)
    places = {path: _line_column(text, offset) for path, offset in offsets.items()}
    found: dict[str, Position] = {}
    for pointer in pointers:
        if pointer.startswith("/") or pointer == "":
            path = tuple(part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:])
            while path not in places and path:
                path = path[:-1]
            if path in places:
                found[pointer] = places[path]
        else:
            found |= _by_path(places, {pointer})
    return found


def _json_value(text: str, at: int, path: tuple[str, ...], offsets: dict[tuple[str, ...], int], depth: int) -> int:
    """Read the JSON value at `at` (whose own offset the caller records), recording the offset
    of every member (its key) and item in it; where it ends."""
    if depth > MAX_DEPTH:
        raise ValueError("too deep")
    mark = text[at]
    if mark not in "{[":
        return int(_DECODER.raw_decode(text, at)[1])
    close = "}" if mark == "{" else "]"
    at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
    index = 0
    while text[at] != close:
        if mark == "{":
            if text[at] != '"':
                raise ValueError("a key")
            key, end = _DECODER.raw_decode(text, at)
            inner = (*path, key)
            offsets[inner] = at
            end = _SPACE.match(text, end).end()  # type: ignore[union-attr]
            if text[end] != ":":
                raise ValueError("a colon")
            start = _SPACE.match(text, end + 1).end()  # type: ignore[union-attr]
            at = _json_value(text, start, inner, offsets, depth + 1)
        else:
            offsets[(*path, str(index))] = at
            at = _json_value(text, at, (*path, str(index)), offsets, depth + 1)
            index += 1
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if text[at] == ",":
            at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
        elif text[at] != close:
            raise ValueError("a comma")
    return at + 1


def _by_path(places: Mapping[tuple[str, ...], Position], pointers: set[str]) -> dict[str, Position]:
    """A key named by its dotted path from the top (a key may hold dots: `99.0`), else the
    first key of that name anywhere, in the order of the file."""
    found: dict[str, Position] = {}
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
