"""The one way a file a person writes is read: waivers, claims, a mapping, a round file given
by path, and `[tool.mlperf-check]`.

Such a file is strict, as check-jsonschema is: a key the schema does not name, a key given
twice in one mapping, and a number that is not finite (NaN, Infinity, .nan, .inf, 1e999) are
each a `UserFileError` that names the file, the line and the key. A typo (`paht:` for
`path:`) must never change what the file means: a waiver without its path would waive every
finding of its code. Each file has a JSON Schema in schemas/ (package data), closed with
`additionalProperties: false` wherever its keys are fixed.

JSON is read by json (its own syntax errors), then walked once more by a small scanner that
knows where each key is and which keys repeat; YAML by yamlsafe's strict loader (libyaml's
nodes carry their lines); TOML by tomllib, which already refuses a key given twice."""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from typing import Any

from . import yamlsafe
from .errors import UsageError

Path = tuple[Any, ...]  # keys and indexes from the top of a document
LineOf = Callable[[Path], "int | None"]


class UserFileError(UsageError):
    """A user file that cannot be used (exit code 2); the message names the file, line and key."""


@functools.cache
def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(resources.files("checker.schemas").joinpath(name).read_text(encoding="utf-8"))
    return loaded


@dataclass(frozen=True)
class UserFile:
    """A user file read and checked: its document, and where each of its values is."""

    origin: str
    data: Any
    line_of: LineOf

    def error(self, path: Path, message: str) -> UserFileError:
        """An error at `path` of the document, for what the schema cannot say (a claim id used twice)."""
        return UserFileError(f"{_at(self.origin, self.line_of(path))}{message}")


def load(path: str, schema_name: str, what: str, max_bytes: int = yamlsafe.MAX_BYTES) -> UserFile:
    """The user file at `path` (JSON when its name ends in .json, else YAML), checked against
    schemas/`schema_name`. `what` names it in messages (`claims file`)."""
    try:
        text = yamlsafe.read_regular(path, max_bytes, what)
    except yamlsafe.YamlError as error:
        raise UserFileError(str(error)) from None
    document, line_of = parse(text, path, json_text=path.lower().endswith(".json"))
    check(document, schema_name, path, line_of)
    return UserFile(path, document, line_of)


def parse(text: str, origin: str, json_text: bool = False) -> tuple[Any, LineOf]:
    """A document from YAML (or JSON) text, with no key twice and every number finite, and
    the function that gives the line of a path in it."""
    if json_text:
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise UserFileError(f"{origin}:{error.lineno}: not valid JSON: {error.msg}") from None
        except RecursionError:
            raise UserFileError(f"{origin} nests too deeply to read") from None
        lines = _json_lines(text, origin)
        line_of: LineOf = lambda path: _nearest(lines, path)  # noqa: E731
    else:
        try:
            document = yamlsafe.loads(text, origin, strict=True)
        except yamlsafe.YamlError as error:
            raise UserFileError(str(error)) from None
        line_of = functools.partial(yamlsafe.line_of, text)
    finite(document, origin, line_of)
    return document, line_of


def finite(
    document: Any, origin: str, line_of: LineOf, top: Path = (), label: Callable[[Path], str] | None = None
) -> None:
    """A UserFileError at the first number that is not finite."""
    for path, value in _walk(document):
        if isinstance(value, float) and not math.isfinite(value):
            full = top + path
            raise UserFileError(
                f"{_at(origin, line_of(full))}{(label or _where)(full)} is {value}; give a finite number"
            )


def check(
    document: Any,
    schema_name: str,
    origin: str,
    line_of: LineOf,
    top: Path = (),
    label: Callable[[Path], str] | None = None,
) -> None:
    """A UserFileError at the first place `document` breaks schemas/`schema_name`: an unknown
    key names the key and the keys allowed there. `top` is where the document sits in its
    file (a table of pyproject.toml); `label` names a place (default `claims/0/expect`)."""
    label = label or _where
    import jsonschema

    errors = sorted(
        jsonschema.Draft202012Validator(schema(schema_name)).iter_errors(document),
        key=lambda e: (e.validator != "additionalProperties", [str(p) for p in e.absolute_path]),
    )
    if not errors:
        return
    error = errors[0]
    path = top + tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = error.schema.get("properties", {})
        extra = [key for key in error.instance if key not in allowed]
        if extra:
            known = ", ".join(allowed) or "none"
            where = f" in {label(path)}" if label(path) else ""
            raise UserFileError(
                f"{_at(origin, line_of(path + (extra[0],)))}unknown key {extra[0]!r}{where}; the keys are {known}"
            )
    if error.validator == "required" and isinstance(error.instance, dict) and isinstance(error.schema, dict):
        missing = next((key for key in error.validator_value if key not in error.instance), None)
        wanted = error.schema.get("properties", {}).get(missing, {}).get("x-give")
        raise UserFileError(
            f"{_at(origin, line_of(path))}{label(path) or 'the top'} has no `{missing}`"
            + (f": give {wanted}" if wanted else "")
        )
    give = error.schema.get("x-give") if isinstance(error.schema, dict) else None
    if give is None and len(error.absolute_schema_path) > 1:
        give = _parent_give(schema(schema_name), list(error.absolute_schema_path)[:-1])
    message = (
        f"give {give}, not {_shown(error.instance)}" if give else f"{_short(error.message)} (schemas/{schema_name})"
    )
    raise UserFileError(f"{_at(origin, line_of(path))}{label(path) or 'the top'}: {message}")


def _parent_give(node: Any, schema_path: list[Any]) -> str | None:
    """The `x-give` (what to give, in words) of the schema that failed, read at its path."""
    for part in schema_path:
        listed = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if not (listed or isinstance(node, dict) and part in node):
            return None
        node = node[part]
    return node.get("x-give") if isinstance(node, dict) else None


def _walk(document: Any) -> Iterator[tuple[Path, Any]]:
    stack: list[tuple[Path, Any]] = [((), document)]
    while stack:
        path, value = stack.pop()
        yield path, value
        if isinstance(value, dict):
            stack.extend((path + (key,), item) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((path + (index,), item) for index, item in enumerate(value))


def _at(origin: str, line: int | None) -> str:
    return f"{origin}:{line}: " if line else f"{origin}: "


def _where(path: Path) -> str:
    return "/".join(str(part) for part in path)


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def _short(message: str) -> str:
    return message if len(message) <= 200 else message[:197] + "..."


def _nearest(lines: dict[Path, int], path: Path) -> int | None:
    while path not in lines and path:
        path = path[:-1]
    return lines.get(path)


# A token of valid JSON (json.loads has read it already): a string, a punctuation mark, or a
# literal or number; the whitespace before it is counted for the line.
_TOKEN = re.compile(r'([ \t\r\n]*)(?:("(?:[^"\\]|\\.)*")|([{}\[\],:])|([^ \t\r\n{}\[\],:"]+))', re.S)


def _json_lines(text: str, origin: str) -> dict[Path, int]:
    """path -> line of every key and value of valid JSON text; a UserFileError at a key given
    twice in one object (json keeps the last one silently)."""
    lines: dict[Path, int] = {(): 1}
    # One frame per open container: [path, seen keys (None for an array), next index, key]
    stack: list[list[Any]] = []
    line, position, expect_key = 1, 0, False
    while True:
        match = _TOKEN.match(text, position)
        if match is None:
            break
        space, string, mark, _ = match.groups()
        line += space.count("\n")
        position = match.end()
        frame = stack[-1] if stack else None
        if frame is not None and expect_key and string is not None:
            key = json.loads(string)
            seen = frame[1]
            if key in seen:
                raise UserFileError(f"{origin}:{line}: key {key!r} is given twice (first at line {seen[key]})")
            seen[key] = line
            frame[3] = key
            lines[frame[0] + (key,)] = line
            expect_key = False
            continue
        if mark in ("}", "]"):
            stack.pop()
            continue
        if mark == ",":
            expect_key = frame is not None and frame[1] is not None
            continue
        if mark == ":":
            continue
        # A value: where it sits
        if frame is None:
            here: Path = ()
        elif frame[1] is None:
            here = frame[0] + (frame[2],)
            frame[2] += 1
            lines.setdefault(here, line)
        else:
            here = frame[0] + (frame[3],)
        if mark == "{":
            stack.append([here, {}, 0, None])
            expect_key = True
        elif mark == "[":
            stack.append([here, None, 0, None])
    return lines
