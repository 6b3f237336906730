"""The one way YAML is read: round files, waivers, mappings, claims and Endpoints config.yaml.

YAML can describe a document far larger than its text (an alias bomb: ten anchors that each
repeat the one before nine times stand for a billion nodes) and a path can name a FIFO that
blocks forever. So a document is read only from a regular file of bounded size, its event
stream is counted before anything is built (aliases and nodes), and the document is built
by the safe loader (libyaml's when the wheel has it). Every refusal is a `YamlError` whose
message names the file and the limit.
"""

from __future__ import annotations

import os
import stat
from typing import Any

import yaml

from .escaping import visible

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_BYTES = 16 * 1024 * 1024
MAX_ALIASES = 1_000
MAX_NODES = 2_000_000
MAX_DEPTH = 200


class YamlError(ValueError):
    """A YAML input that cannot be read within the limits; the message says why."""


def read_regular(path: str, max_bytes: int = MAX_BYTES, what: str = "file") -> str:
    """The UTF-8 text of a regular file of at most `max_bytes`; FIFOs, devices and folders
    are refused without blocking. Messages name the file as `what path` (`path` alone when
    `what` is empty)."""
    label = f"{what} {path}" if what else path
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise YamlError(f"cannot read {label}: {error.strerror}") from None
    except ValueError:  # a NUL in the path: no file system names one
        raise YamlError(f"cannot read {visible(label)}: a path holds no NUL character") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise YamlError(f"{label} is not a regular file")
        if info.st_size > max_bytes:
            raise YamlError(f"{label} has {info.st_size} bytes, more than the {max_bytes} read")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > max_bytes:
                raise YamlError(f"{label} has more than the {max_bytes} bytes read")
            chunks.append(chunk)
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as error:
        raise YamlError(f"{label} is not UTF-8 text (bad byte at offset {error.start})") from None


def _count(text: str, origin: str) -> None:
    """Walk the event stream (no document is built) and refuse what would expand."""
    aliases = nodes = depth = 0
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise YamlError(f"{origin} uses more than {MAX_ALIASES} aliases (*name); write the values out")
            elif isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                nodes += 1
                if nodes > MAX_NODES:
                    raise YamlError(f"{origin} has more than {MAX_NODES} nodes")
                if not isinstance(event, yaml.ScalarEvent):
                    depth += 1
                    if depth > MAX_DEPTH:
                        raise YamlError(f"{origin} nests deeper than {MAX_DEPTH} levels")
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except yaml.YAMLError as error:
        raise YamlError(f"{origin} is not valid YAML: {str(error).splitlines()[0]}") from None


def _shared(document: Any) -> bool:
    """Whether any container is reached twice (an alias to a mapping or list), which makes a
    small text a huge tree for whatever walks it."""
    seen: set[int] = set()
    stack = [document]
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, list)):
            if id(item) in seen:
                return True
            seen.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)
    return False


class _Strict(_LOADER):  # type: ignore[misc,valid-type]
    """The safe loader that refuses a key given twice in one mapping, where PyYAML keeps the
    last one given."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # `<<: *base`: what it merges may be overridden, as YAML says
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                try:
                    if key in seen:
                        raise _Refused(line, f"key {_shown(key)} is given twice (first at line {seen[key]})")
                    seen[key] = line
                except TypeError:
                    continue  # an unhashable key: the constructor refuses it
        return super().construct_mapping(node, deep)


class _Refused(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def _shown(key: Any) -> str:
    return repr(key) if isinstance(key, str) else f"{key!r} ({type(key).__name__})"


def line_of(text: str, path: tuple[Any, ...]) -> int | None:
    """The line (from 1) of the value at `path` in a YAML document (of its key, in a mapping);
    the nearest enclosing one that exists when `path` goes further than the document."""
    try:
        node = yaml.compose(text, Loader=_LOADER)
    except yaml.YAMLError:
        return None
    line = node.start_mark.line + 1 if node is not None else None
    for part in path:
        if isinstance(node, yaml.MappingNode):
            found = next(
                ((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == str(part)), None
            )
            if found is None:
                return line
            line, node = found[0].start_mark.line + 1, found[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def positions(text: str) -> dict[tuple[str, ...], tuple[int, int]]:
    """The line and column (from 1) of every key of a YAML document's mappings, by its path
    (a sequence's item by its index, as text), and of the document itself at (); empty when
    the text is not YAML. A node an alias shares is walked once."""
    try:
        _count(text, "YAML")
        node = yaml.compose(text, Loader=_LOADER)
    except (yaml.YAMLError, YamlError):
        return {}
    if node is None:
        return {}
    found: dict[tuple[str, ...], tuple[int, int]] = {(): (node.start_mark.line + 1, node.start_mark.column + 1)}
    seen: set[int] = set()
    todo: list[tuple[tuple[str, ...], yaml.Node]] = [((), node)]
    while todo:
        path, node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            items = [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode)]
            pairs = [((*path, str(k.value)), k, v) for k, v in items]
        elif isinstance(node, yaml.SequenceNode):
            pairs = [((*path, str(i)), v, v) for i, v in enumerate(node.value)]
        else:
            continue
        for inner, mark, value in reversed(pairs):
            found.setdefault(inner, (mark.start_mark.line + 1, mark.start_mark.column + 1))
            todo.append((inner, value))
    return found


def loads(text: str, origin: str = "YAML", allow_shared: bool = False, strict: bool = False) -> Any:
    """A YAML document from text, within the limits. Aliases to scalars are fine; an alias
    to a mapping or list is refused unless `allow_shared` (a document then stays a tree).
    `strict` (a file a person writes: waivers, claims, a round file) refuses a key given twice
    in one mapping, naming its line (`origin:LINE: ...`); checker.userfiles adds the rest."""
    _count(text, origin)
    try:
        document = yaml.load(text, Loader=_Strict if strict else _LOADER)
    except _Refused as refused:
        raise YamlError(f"{origin}:{refused.line}: {refused}") from None
    except yaml.YAMLError as error:
        raise YamlError(f"{origin} is not valid YAML: {str(error).splitlines()[0]}") from None
    except RecursionError:
        raise YamlError(f"{origin} nests too deeply to read") from None
    if not allow_shared and _shared(document):
        raise YamlError(f"{origin} repeats a mapping or list through an alias; write it out")
    return document


def load_package_data(text: str) -> Any:
    """A YAML document the package ships (a bundled round file), read by the safe loader
    alone: the limits and the key checks above guard against what a user's file may hold,
    and tests/test_startup.py reads every bundled file both ways and finds them equal, so
    start-up does not pay for them."""
    return yaml.load(text, Loader=_LOADER)


def load_file(path: str, what: str = "YAML file", max_bytes: int = MAX_BYTES) -> Any:
    """A YAML document from a regular file, within the limits."""
    return loads(read_regular(path, max_bytes, what), f"{what} {path}")
