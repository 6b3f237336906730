"""Where in its file a finding is: the line and column (from 1) of what it names.

The reader that read a value knows where it was, and a finding carries that place from it:
an accuracy match's line and column, a malformed line of a log or a user.conf, the line and
column of a JSON decode error. What is left is resolved here, once, after the rules, only in
the files that have findings, and always by the reading the engine gave that kind of file
(its kind comes from its name, `kind_of`, never from its first bytes), so a position is the
place of the value the rule judged, never a textual guess (a comment, a broken record, another
member of the same name):

- a loadgen detail log: the record parsers/mllog.py kept for the key (its first readable
  record: a broken one is skipped there, so here), at the column of its value; a `line N`
  pointer, or a finding's own line, gets the column of that record's value;
- JSON: the member a JSON pointer names (at the key's opening quote; the nearest member that
  exists when it is missing); a dotted name as the Endpoints reader reads it
  (parsers/endpoints.dotted_path), then followed as a pointer;
- YAML: the key a JSON pointer or a dotted name (read so) names;
- a loadgen summary, a compliance verify file, a user.conf or mlperf.conf: the line
  parsers/text.py read for the name, at the column of the name;
- `byte N` (from 0), in any file: the line and column of that byte.

Any other pointer is left unplaced. A file is opened as the engine opens it (Tree.open: a
link inside the tree is followed, a link out of it, a FIFO or a folder is never read); a log
is streamed, any other file is read whole only up to MAX_TEXT bytes (JSON: MAX_JSON). Every
reading is linear in the file's size."""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, BinaryIO

from . import yamlsafe
from .findings import Finding
from .parsers import endpoints, text
from .parsers.mllog import KEY_HEAD, PREFIXES, LoadgenLog, Wanted, parse_mllog
from .tree import FileChanged, Kind, Tree

MAX_TEXT = 16 * 1024 * 1024  # a larger file (not a log) gets no positions
MAX_JSON = 4 * 1024 * 1024  # nor a larger JSON file: following a pointer costs about 0.25 s a MB
_CHUNK = 1 << 16  # a log's line is read in pieces of this size; only its first is looked at
_VALUE = b'"value": '
_LINE = re.compile(r"line (\d+)\Z")
_BYTE = re.compile(r"byte (\d+)\Z")
_SPACE = re.compile(r"[ \t\r\n]*")
_DECODER = json.JSONDecoder()

Position = tuple[int, int | None]

# The places each text format's reader read its names at (parsers/text.py).
_TEXT_PLACES: dict[str, Callable[[str], dict[str, tuple[int, int]]]] = {
    "summary": text.summary_places,
    "verify": text.verify_places,
    "conf": text.conf_places,
}


def kind_of(path: str) -> str:
    """How the engine reads the file at `path`, by its name: `mllog` (a loadgen detail log),
    `json`, `yaml`, `summary`, `verify`, `conf`, or `text` (read by no reader that names
    places)."""
    name = path.rpartition("/")[2].lower()
    if name.endswith(".json"):
        return "json"
    if name.endswith((".yaml", ".yml")):
        return "yaml"
    if name.endswith("_detail.txt"):
        return "mllog"
    if name.endswith("_summary.txt"):
        return "summary"
    if name.startswith("verify_") and name.endswith(".txt"):
        return "verify"
    if name.endswith(".conf"):
        return "conf"
    return "text"


def _request(finding: Finding) -> str | None:
    """What is asked of a finding's file: its pointer when it has no line; when it has a line
    but no column, its pointer when it names a key (its place gives the column when it is on
    that line), else that line (a log's record gives its value's column)."""
    if finding.line is None:
        return finding.pointer or None
    if finding.column is not None:
        return None
    return finding.pointer if finding.pointer and not _LINE.match(finding.pointer) else f"line {finding.line}"


def place(root: str | Tree, findings: list[Finding], kept: Mapping[str, Any] | None = None) -> list[Finding]:
    """`findings` with their line and column set where their file's reader places what they
    name (module docstring); a finding keeps the line it carries. `kept` holds what the
    readers read (Reader.kept: a file's text, or a detail log's LoadgenLog with the line and
    column of each value): a file there is not read again for what it can answer."""
    tree = root if isinstance(root, Tree) else Tree(root)
    wanted: dict[str, list[int]] = defaultdict(list)  # a file's findings that ask for a place
    for index, finding in enumerate(findings):
        if finding.path and _request(finding):
            wanted[finding.path].append(index)
    if not wanted:
        return findings
    located = list(findings)
    for path, indices in wanted.items():
        asked = {_request(findings[i]) or "" for i in indices}
        try:
            places = _read_places(tree, path, asked, (kept or {}).get(path))
        except (OSError, ValueError, RecursionError, FileChanged):  # a file that cannot be read: its findings say so
            continue
        for index in indices:
            finding = findings[index]
            place = places.get(_request(finding) or "")
            if place is None:
                continue
            if finding.line is None:
                located[index] = finding.with_(line=place[0], column=place[1])
            elif place[0] == finding.line and place[1] is not None:
                located[index] = finding.with_(column=place[1])
    return located


def positions(path: str, pointers: Iterable[str]) -> dict[str, Position]:
    """The place of each pointer found in the file at `path` (module docstring), opened as
    the engine opens a file of a tree rooted at its folder."""
    folder, _, name = os.path.abspath(path).rpartition(os.sep)
    try:
        return _read_places(Tree(folder or os.sep), name, set(pointers))
    except (OSError, ValueError, RecursionError, FileChanged):
        return {}


def _read_places(tree: Tree, rel: str, pointers: set[str], kept: Any = None) -> dict[str, Position]:
    kind = kind_of(rel)
    if kind == "mllog" and isinstance(kept, LoadgenLog):
        placed = _in_kept_log(kept, pointers)
        if placed is not None:
            return placed  # every pointer from the reading: the log is not read again
    elif kind != "mllog" and isinstance(kept, str):
        return _in_kept_text(kind, kept, pointers)
    found: dict[str, Position] = {}
    lines: dict[str, int] = {}
    rest = set()
    for pointer in pointers:
        line = _LINE.match(pointer)
        if line:
            lines[pointer] = int(line.group(1))
        else:
            rest.add(pointer)
    if kind != "mllog":
        found |= {pointer: (number, None) for pointer, number in lines.items()}
        if not rest:
            return found
    entry = tree.entry(rel)
    if entry.kind is not Kind.FILE or (kind != "mllog" and entry.size > MAX_TEXT):
        return found
    with os.fdopen(tree.open(entry), "rb") as stream:
        if kind == "mllog":
            return _in_log(stream, rest, lines)
        content = stream.read(MAX_TEXT).decode("utf-8", "replace")
    return found | _in_content(kind, content, rest)


def _in_kept_log(log: LoadgenLog, pointers: set[str]) -> dict[str, Position] | None:
    """Each pointer's place from the reading of the log: a key's first record, a line's
    record among those the reading kept (its values, errors and warnings); None when one of
    them is neither, for the log to be read again."""
    columns: dict[int, int | None] | None = None  # by line, made for the first line pointer
    found: dict[str, Position] = {}
    for pointer in pointers:
        line = _LINE.match(pointer)
        if line:
            if columns is None:
                columns = {at: log.columns.get(key) for key, at in log.lines.items()}
                columns |= {record.line: record.column for record in (*log.errors, *log.warnings)}
            number = int(line.group(1))
            if number not in columns:
                return None
            found[pointer] = (number, columns[number])
        elif pointer in log.lines:
            found[pointer] = (log.lines[pointer], log.columns.get(pointer))
        else:
            return None
    return found


def _in_kept_text(kind: str, content: str, pointers: set[str]) -> dict[str, Position]:
    """The places of `pointers` in the text a reader read (not a log), as _read_places finds
    them in the file."""
    found: dict[str, Position] = {}
    rest = set()
    for pointer in pointers:
        line = _LINE.match(pointer)
        if line:
            found[pointer] = (int(line.group(1)), None)
        else:
            rest.add(pointer)
    if rest and len(content) <= MAX_TEXT:
        found |= _in_content(kind, content, rest)
    return found


def _in_content(kind: str, content: str, pointers: set[str]) -> dict[str, Position]:
    """The places of `pointers` in a file (not a log) of `kind` whose text is `content`."""
    found: dict[str, Position] = {}
    rest = set()
    for pointer in pointers:
        byte = _BYTE.match(pointer)
        if byte:
            found[pointer] = _line_column(content, _char_offset(content, int(byte.group(1))))
        else:
            rest.add(pointer)
    if not rest:
        return found
    if kind == "json":
        return found | (_in_json(content, rest) if len(content) <= MAX_JSON else {})
    if kind == "yaml":
        return found | _in_yaml(content, rest)
    places = _TEXT_PLACES[kind](content) if kind in _TEXT_PLACES else {}
    return found | {pointer: places[pointer] for pointer in rest if pointer in places}


def _lines(stream: BinaryIO) -> Iterator[bytes]:
    """Each line's first piece (at most _CHUNK bytes); a longer line's other pieces are read past."""
    whole = True
    for piece in iter(lambda: stream.readline(_CHUNK), b""):
        if whole:
            yield piece
        whole = piece.endswith(b"\n")


def _in_log(stream: BinaryIO, keys: set[str], lines: Mapping[str, int]) -> dict[str, Position]:
    """The record parsers/mllog.py keeps for each key (its first readable one), and each line
    asked for, at the column of the record's value (None on a line that is not a record)."""
    plain = [key for key in keys if key.isascii() and '"' not in key and "\\" not in key]
    at: dict[str, int] = dict(lines)
    if plain:
        log, _ = parse_mllog(stream, Wanted(plain))
        at |= {key: log.lines[key] for key in plain if key in log.lines}
        stream.seek(0)
    wanted = set(at.values())
    columns: dict[int, int | None] = {}
    for number, line in enumerate(_lines(stream), 1):
        if number in wanted:
            columns[number] = _value_column(line)
            if len(columns) == len(wanted):
                break
    return {key: (number, columns.get(number)) for key, number in at.items()}


def _value_column(line: bytes) -> int | None:
    """The column (in characters, from 1) of a loadgen record's value, or None when the line
    is not a record with a value (in its first _CHUNK bytes)."""
    if not line.startswith(PREFIXES):
        return None
    head = line.find(KEY_HEAD)
    quote = line.find(b'"', head + len(KEY_HEAD)) if head >= 0 else -1
    value = line.find(_VALUE, quote) if quote >= 0 else -1
    if value < 0:
        return None
    return len(line[: value + len(_VALUE)].decode("utf-8", "replace")) + 1


def _char_offset(content: str, byte: int) -> int:
    """The character offset in `content` of a byte offset in its UTF-8 encoding."""
    return len(content.encode("utf-8", "replace")[:byte].decode("utf-8", "ignore"))


def _line_column(content: str, offset: int) -> Position:
    start = content.rfind("\n", 0, offset) + 1
    return content.count("\n", 0, offset) + 1, offset - start + 1


def _pointer_path(pointer: str) -> tuple[str, ...]:
    return tuple(part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:])


def _in_json(content: str, pointers: set[str]) -> dict[str, Position]:
    """Each JSON pointer's member, followed from the top (the nearest member that exists when
    it goes further); each dotted name's, read as the Endpoints reader reads it from the
    document json reads (each level's keys looked at once: linear)."""
    paths: dict[str, tuple[tuple[str, ...], bool]] = {}
    loaded: list[object] = []
    for pointer in pointers:
        if pointer == "" or pointer.startswith("/"):
            paths[pointer] = (_pointer_path(pointer), True)
        else:
            if not loaded:
                try:
                    loaded.append(json.loads(content))
                except ValueError:
                    loaded.append(None)
            path = endpoints.dotted_path(loaded[0], pointer)
            if path is not None:
                paths[pointer] = (path, False)
    reached = _follow_all(content, {path for path, _ in paths.values()})
    found: dict[str, int] = {}
    for pointer, (path, nearest) in paths.items():
        depth, offset = reached[path]
        if depth == len(path) or nearest:
            found[pointer] = offset
    return _lines_columns(content, found)


def _lines_columns(content: str, offsets: Mapping[str, int]) -> dict[str, Position]:
    """Each offset's (line, column), in one pass over the text up to the last of them."""
    places: dict[str, Position] = {}
    line, start, at = 1, 0, 0
    for name, offset in sorted(offsets.items(), key=lambda item: item[1]):
        line += content.count("\n", at, offset)
        start = max(start, content.rfind("\n", 0, offset) + 1)
        at = offset
        places[name] = (line, offset - start + 1)
    return places


def _follow_all(content: str, paths: set[tuple[str, ...]]) -> dict[tuple[str, ...], tuple[int, int]]:
    """For each path, how many of its steps exist and the offset of the deepest member reached
    (the value at the top for none): `_follow` for many paths at once, walking each container
    on any path once, so the cost is one linear scan however many paths share it."""
    top = _SPACE.match(content, 0).end()  # type: ignore[union-attr]
    reached: dict[tuple[str, ...], tuple[int, int]] = {}

    def walk(at: int, depth: int, best: int, group: set[tuple[str, ...]]) -> None:
        done = {path for path in group if len(path) == depth}
        for path in done:
            reached[path] = (depth, best)
        rest = group - done
        if not rest:
            return
        hits = _members(content, at, {path[depth] for path in rest})
        by_key: dict[str, set[tuple[str, ...]]] = {}
        for path in rest:
            by_key.setdefault(path[depth], set()).add(path)
        for key, paths_here in by_key.items():
            hit = hits.get(key)
            if hit is None:
                for path in paths_here:
                    reached[path] = (depth, best)
            else:
                walk(hit[1], depth + 1, hit[0], paths_here)

    walk(top, 0, top, paths)
    return reached


def _follow(content: str, path: tuple[str, ...], nearest: bool = False) -> int | None:
    """The offset of the member (its key) or item at `path` in JSON text, or of the value at
    the top for (). Only the containers on the path are walked; every other value is skipped
    by the C decoder, so the cost is a linear scan. A member given twice is the last, as json
    reads it. Past a fault in the text, what came before counts. When the path goes further
    than the document: the nearest member that exists when `nearest`, else None."""
    depth, offset = _follow_all(content, {path})[path]
    return offset if depth == len(path) or nearest else None


def _members(content: str, at: int, keys: set[str]) -> dict[str, tuple[int, int]]:
    """Where each member of `keys` (or item, at an index) of the container at `at` starts,
    and where its value does, in one scan of it; a key it lacks before the container ends or
    the text breaks is left out (a fault is a finding of its own: what came before counts).
    A member given twice is the last, as json reads it."""
    mark = content[at] if at < len(content) else ""
    hit: dict[str, tuple[int, int]] = {}
    if mark not in ("{", "["):
        return hit
    if mark == "[":
        keys = {key for key in keys if key.isdigit()}
    close, index = "}" if mark == "{" else "]", 0
    last = max((int(key) for key in keys), default=-1) if mark == "[" else 0
    if last < 0:
        return hit
    try:
        at = _SPACE.match(content, at + 1).end()  # type: ignore[union-attr]
        while content[at] != close:
            begin = value = at
            if mark == "{":
                member = _key_at(content, at)
                if member is None:
                    return hit  # not a key: the text breaks here
                name, value = member
                if name in keys:
                    hit[name] = (begin, value)  # a later one wins
            elif str(index) in keys:
                hit[str(index)] = (begin, value)
                if index >= last:
                    return hit
            at = _SPACE.match(content, _DECODER.raw_decode(content, value)[1]).end()  # type: ignore[union-attr]
            index += 1
            following = _after(content, at, close)
            if following is None:
                return hit
            at = following
    except (ValueError, IndexError):  # a value the decoder refuses, or the text ends
        return hit
    return hit


def _after(content: str, at: int, close: str) -> int | None:
    """Where the next member starts after a `,`, or the `close` itself; None when neither."""
    if content[at] == ",":
        return _SPACE.match(content, at + 1).end()  # type: ignore[union-attr]
    return at if content[at] == close else None


def _key_at(content: str, at: int) -> tuple[str, int] | None:
    """A member's key at `at` and where its value starts; None when the text is no key there."""
    if content[at] != '"':
        return None
    name, end = _DECODER.raw_decode(content, at)
    colon = _SPACE.match(content, end).end()  # type: ignore[union-attr]
    if content[colon] != ":":
        return None
    return name, _SPACE.match(content, colon + 1).end()  # type: ignore[union-attr]


def _in_yaml(content: str, pointers: set[str]) -> dict[str, Position]:
    """The key a JSON pointer names, or a dotted name as the Endpoints reader reads it from
    the document yamlsafe reads."""
    places = yamlsafe.positions(content)
    if not places:
        return {}
    try:
        data = yamlsafe.loads(content, "the file")
    except (yamlsafe.YamlError, ValueError):
        data = None
    found: dict[str, Position] = {}
    for pointer in pointers:
        path = _pointer_path(pointer) if pointer.startswith("/") else endpoints.dotted_path(data, pointer)
        place = places.get(path) if path else None
        if place is not None:
            found[pointer] = place
    return found
