"""The declared type and range of every value the checker reads from a checked file.

The declarations are data: one JSON Schema per kind of file, in schemas/ (`KINDS` below).
Each names the keys (log keys, summary lines, JSON fields, metrics) that a rule or a command
reads, with their type and range. The parsers apply them to what they read: a value that
breaks its declaration (the wrong JSON type, NaN, an infinity, a negative count, a
400-digit integer, text of absurd length) is a FIL012 defect that names the key, and it is
never handed on as a value. The same declaration decides which loadgen keys the log reader
decodes (mllog.WANTED_KEYS, WANTED_PREFIXES).

The schemas use a small part of JSON Schema (draft 2020-12), read here by a predicate
compiled once per key, because the logs of one round hold some 20,000 declared values:
`type`, `minimum`, `maximum`, `exclusiveMinimum`, `maxLength`, `pattern`, `enum` (of
strings), `properties`, `patternProperties` (a literal prefix, `^name_`), `additionalProperties`,
`items`, `maxItems`, `maxProperties` and `$ref` to `#/$defs/...`, with `title`,
`description` and `$comment`; any other keyword is refused when the schema is loaded. A JSON
number is finite (RFC 8259 has no NaN or Infinity), so `number` and `integer` exclude them
as they exclude booleans; tests/test_typed.py checks this reading against the jsonschema
package's, with that one difference stated, on random values.
"""

from __future__ import annotations

import enum
import functools
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol, cast

from . import Defect

CODE = "FIL012"
# The kinds of file whose values are declared, and their schema in schemas/.
KINDS = {
    "loadgen_log": "loadgen_log.schema.json",  # mlperf_log_detail.txt, by key
    "loadgen_summary": "loadgen_summary.schema.json",  # mlperf_log_summary.txt, by line name
    "compliance_verify": "compliance_verify.schema.json",  # verify_*.txt, by check name
    "accuracy_txt": "accuracy_txt.schema.json",  # accuracy.txt, by metric
    "power_samples": "power_samples.schema.json",  # spl.txt, by field
    "endpoints_summary": "endpoints_summary.schema.json",  # result_summary.json
    "endpoints_config": "endpoints_config.schema.json",  # config.yaml
    "endpoints_accuracy": "endpoints_accuracy.schema.json",  # accuracy_results.json
}
KEYWORDS = frozenset(
    {
        "$schema",
        "$id",
        "$defs",
        "$comment",
        "$ref",
        "title",
        "description",
        "type",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "maxLength",
        "pattern",
        "enum",
        "properties",
        "patternProperties",
        "additionalProperties",
        "items",
        "maxItems",
        "maxProperties",
    }
)
TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
_WORDS = {
    "null": "null",
    "boolean": "a boolean (true or false)",
    "integer": "a whole number",
    "number": "a number",
    "string": "a string",
    "array": "a list",
    "object": "an object",
}


class SchemaError(ValueError):
    """A declaration that uses what this reading does not read."""


def json_type(value: Any) -> str | None:
    """The JSON type of a decoded value, as `type` names it; None for a non-finite number
    (which JSON cannot hold) and for what no JSON decoder makes."""
    kind = type(value)
    if kind is bool:
        return "boolean"
    if kind is int:
        return "integer"
    if kind is float:
        if not math.isfinite(value):
            return None
        return "integer" if value.is_integer() else "number"
    if kind is str:
        return "string"
    if value is None:
        return "null"
    if kind is dict:
        return "object"
    if kind is list or kind is tuple:
        return "array"
    return None


@dataclass(frozen=True)
class Malformation:
    """A value that breaks its declaration: where it is (a key, or a path of keys and
    indexes inside it), the value, and what was expected there."""

    path: Where
    value: Any
    expected: str


# Where a value is: a key, then the keys and indexes inside it.
Where = tuple[str | int, ...]
Checking = Callable[[Any, Where], Iterator[Malformation]]


class Check(Protocol):
    """A compiled schema: the malformations of a value at a path (none when it meets it);
    `simple`, one predicate for the usual value (a scalar, a mapping of scalars), or None when
    the value needs the whole check; `expected`, what it asks for, in words."""

    simple: Callable[[Any], bool] | None
    expected: str

    def __call__(self, value: Any, path: Where, /) -> Iterator[Malformation]: ...


def _check(checking: Checking, simple: Callable[[Any], bool] | None, expected: str) -> Check:
    """A checking function, with its `simple` predicate and its `expected` words on it."""
    check = cast(Check, checking)
    check.simple = simple
    check.expected = expected
    return check


class _Unseen(enum.Enum):
    """A key of no family met yet (None is an answer: no check)."""

    KEY = enum.auto()


class Declaration:
    """One kind of file's declaration: a compiled check per declared key (`properties`), and
    the families of keys that start with a declared prefix (`patternProperties`)."""

    def __init__(self, name: str, schema: dict[str, Any]) -> None:
        self.name = name
        self.schema = schema
        self._defs = schema.get("$defs", {})
        self.checks: dict[str, Check] = {k: self._compile(s) for k, s in schema.get("properties", {}).items()}
        self.families: dict[str, Check] = {}
        for pattern, sub in schema.get("patternProperties", {}).items():
            self.families[_prefix(pattern)] = self._compile(sub)
        extra = schema.get("additionalProperties", True)
        self.other: Check | None = None if extra is True else self._compile(extra)
        self._seen: dict[str, Check | None] = {}  # a family's keys, as they are met
        self._types: dict[str, Any] = {}  # each key's declared type, as it is asked (type_of)
        self._readers: dict[str, Callable[[str], tuple[Any, Malformation | None]]] = {}  # read_text's
        self._compile(schema)  # the whole schema once, so that an unknown keyword anywhere is refused

    @property
    def keys(self) -> frozenset[str]:
        """The keys declared one by one."""
        return frozenset(self.checks)

    @property
    def prefixes(self) -> tuple[str, ...]:
        """The prefixes of the declared families of keys."""
        return tuple(self.families)

    def declares(self, key: str) -> bool:
        return key in self.checks

    def check(self, key: str) -> Check | None:
        found = self.checks.get(key)
        if found is not None:
            return found
        seen = self._seen.get(key, _Unseen.KEY)
        if seen is not _Unseen.KEY:
            return seen
        found = next((family for prefix, family in self.families.items() if key.startswith(prefix)), self.other)
        if len(self._seen) < 4096:  # the keys of a family, few in real files
            self._seen[key] = found
        return found

    def problems(self, values: Mapping[str, Any]) -> Iterator[Malformation]:
        """The malformations of a file's values (a mapping of key to value), in its order."""
        for key, value in values.items():
            check = self.check(key)
            if check is not None:
                yield from check(value, (key,))

    def type_of(self, key: str) -> Any:
        """The `type` declared for a key (a name or a list of names), None when any (looked up
        once a key)."""
        if key in self._types:
            return self._types[key]
        found = self._type_of(key)
        if len(self._types) < 4096:  # the keys of a family, few in real files
            self._types[key] = found
        return found

    def _type_of(self, key: str) -> Any:
        check = self.schema.get("properties", {}).get(key)
        if check is None:
            check = next(
                (s for p, s in self.schema.get("patternProperties", {}).items() if key.startswith(_prefix(p))),
                self.schema.get("additionalProperties", True),
            )
        check = self._resolve(check)
        return check.get("type") if isinstance(check, dict) else None

    def read_text(self, key: str, text: str) -> tuple[Any, Malformation | None]:
        """A key's value written as text (a summary line, an accuracy value): the value its
        declared type reads (`from_text`), and its malformation, if any."""
        read = self._readers.get(key)
        if read is None:
            read = self.text_reader(key)
            if len(self._readers) < 4096:  # the keys of a family, few in real files
                self._readers[key] = read
        return read(text)

    def text_reader(self, key: str) -> Callable[[str], tuple[Any, Malformation | None]]:
        """`read_text` of one key, its declaration looked up once: for the many values of one
        key (the watts of a power log, a line a second)."""
        numeric = _numeric(self.type_of(key))
        check = self.check(key)
        simple = check.simple if check is not None else None

        def read(text: str) -> tuple[Any, Malformation | None]:
            if numeric and len(text) <= MAX_DIGITS and _FRACTION.fullmatch(text):
                value: Any = float(text)  # what _from_text makes of it, in one step
            else:
                value = _from_text(text, numeric)
            if check is None or (simple is not None and simple(value)):
                return value, None
            return value, next(iter(check(value, (key,))), None)

        return read

    def malformed(self, key: str, value: Any) -> Malformation | None:
        """The first malformation of one key's value, or None when it meets its declaration."""
        check = self.check(key)
        if check is None:
            return None
        simple = check.simple  # one predicate for the usual value (a scalar, a mapping of scalars)
        if simple is not None and simple(value):
            return None
        return next(iter(check(value, (key,))), None)  # where it breaks, and how

    @functools.cached_property
    def leaves(self) -> dict[str, Check]:
        """Each declared field that declares no fields of its own, by its dotted path
        (`ttft.early_stopping_percentiles.99.0`): what a file read by dotted paths reads."""
        found: dict[str, Check] = {}
        stack: list[tuple[tuple[str, ...], dict[str, Any]]] = [((), self.schema)]
        while stack:
            path, node = stack.pop()
            for key, sub in node.get("properties", {}).items():
                sub = self._resolve(sub)
                if isinstance(sub, dict) and "properties" in sub:
                    stack.append(((*path, key), sub))
                else:
                    found[".".join((*path, key))] = self._compile(sub)
        return dict(sorted(found.items()))

    # --- compiling ---------------------------------------------------------------------
    def _compile(self, schema: Any, depth: int = 0) -> Check:
        if schema is True or schema == {}:
            return _anything
        if depth > 32:
            raise SchemaError(f"{self.name}: $ref nests more than 32 deep")
        if not isinstance(schema, dict):
            raise SchemaError(f"{self.name}: a schema is a JSON object or true, not {schema!r}")
        unknown = set(schema) - KEYWORDS
        if unknown:
            raise SchemaError(f"{self.name}: keywords this reading does not read: {', '.join(sorted(unknown))}")
        if "$ref" in schema:
            return self._compile(self._target(schema), depth + 1)
        accepts = _accepts(schema, self.name)
        expected = schema.get("description") or _expectation(schema)
        children: list[Checking] = []
        simple: Callable[[Any], bool] | None = accepts
        if "properties" in schema or "patternProperties" in schema or "additionalProperties" in schema:
            named = {k: self._compile(s, depth + 1) for k, s in schema.get("properties", {}).items()}
            families = {_prefix(p): self._compile(s, depth + 1) for p, s in schema.get("patternProperties", {}).items()}
            extra = schema.get("additionalProperties", True)
            other = None if extra is True else self._compile(extra, depth + 1)
            children.append(functools.partial(_members, named, families, other))
            simple = _uniform(accepts, other) if not named and not families else None
        if "items" in schema:
            children.append(functools.partial(_items, self._compile(schema["items"], depth + 1)))
            simple = None

        def check(value: Any, path: Where) -> Iterator[Malformation]:
            if not accepts(value):
                yield Malformation(path, value, expected)
                return
            for child in children:
                yield from child(value, path)

        return _check(check, simple, expected)

    def _target(self, schema: dict[str, Any]) -> Any:
        """What a `$ref` names: one of this schema's $defs."""
        if set(schema) - {"$ref", "description", "$comment", "title"}:
            raise SchemaError(f"{self.name}: a $ref stands alone (with a description at most)")
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/") or ref[len("#/$defs/") :] not in self._defs:
            raise SchemaError(f"{self.name}: $ref {ref!r} is not one of this schema's $defs")
        return self._defs[ref[len("#/$defs/") :]]

    def _resolve(self, schema: Any) -> Any:
        while isinstance(schema, dict) and "$ref" in schema:
            schema = self._target(schema)
        return schema


_anything = _check(lambda value, path: iter(()), lambda value: True, "anything")


def _members(
    named: dict[str, Check], families: dict[str, Check], other: Check | None, value: Any, path: Where
) -> Iterator[Malformation]:
    if type(value) is not dict:
        return
    for key, member in value.items():
        check = named.get(key)
        if check is None:
            check = next((c for p, c in families.items() if isinstance(key, str) and key.startswith(p)), other)
        if check is not None:
            yield from check(member, (*path, key))


def _uniform(accepts: Callable[[Any], bool], other: Check | None) -> Callable[[Any], bool] | None:
    """One predicate for an object whose members all have one simple declaration (a
    mapping of file names to SHA-1s), or None when its members need more."""
    member = other.simple if other is not None else (lambda value: True)
    if member is None:
        return None
    uniform = lambda value: accepts(value) and (type(value) is not dict or all(map(member, value.values())))  # noqa: E731
    most, each = getattr(accepts, "spec", None), getattr(member, "spec", None)
    if most is not None and most[0] == 5 and each is not None:
        uniform = _spec(uniform, (4, most[1], each))  # a mapping of at most most[1] members, each meeting `each`
    return uniform


def _items(check: Check, value: Any, path: Where) -> Iterator[Malformation]:
    if type(value) not in (list, tuple):
        return
    for index, item in enumerate(value):
        yield from check(item, (*path, index))


def _prefix(pattern: str) -> str:
    """The literal prefix a `patternProperties` pattern stands for (`^effective_`)."""
    if not re.fullmatch(r"\^[A-Za-z0-9_.]+", pattern):
        raise SchemaError(f"a family of keys is a literal prefix (`^name_`), not {pattern!r}")
    return pattern[1:]


_SCALAR_KEYWORDS = frozenset({"type", "minimum", "maximum", "maxLength", "pattern", "description", "$comment", "title"})


def _fast(schema: dict[str, Any]) -> Callable[[Any], bool] | None:
    """The same predicate as `_accepts` for the shapes most keys have (one type: a boolean,
    a whole number or a number in a range, a string of a length), in a few operations. Its
    `spec` says the same as data, for the detail-log reader's C pass (`_mllog_scan.suspects`):
    (0,) a boolean, (1, low, high) a whole number, (2, low, high) a finite number, (3,
    longest) a string; a string of a pattern has none (`_uniform` adds (4, most, spec): a
    mapping of at most `most` members, None for any number, each meeting `spec`)."""
    if not set(schema) <= _SCALAR_KEYWORDS or not isinstance(schema.get("type"), str):
        return None
    kind = schema["type"]
    low: float = schema.get("minimum", -math.inf)
    high: float = schema.get("maximum", math.inf)
    if kind == "boolean" and set(schema) <= {"type", "description", "$comment", "title"}:
        return _spec(lambda value: type(value) is bool, (0,))
    if kind == "integer" and "maxLength" not in schema and "pattern" not in schema:

        def whole(value: object) -> bool:
            if type(value) is int:
                return low <= value <= high
            return type(value) is float and value.is_integer() and low <= value <= high

        return _spec(whole, (1, low, high))
    if kind == "number" and "maxLength" not in schema and "pattern" not in schema:

        def finite(value: object) -> bool:
            if type(value) is int:
                return low <= value <= high
            return type(value) is float and math.isfinite(value) and low <= value <= high

        return _spec(finite, (2, low, high))
    if kind == "string" and "minimum" not in schema and "maximum" not in schema:
        longest = schema.get("maxLength", math.inf)
        pattern = re.compile(schema["pattern"]) if "pattern" in schema else None
        string = lambda value: (  # noqa: E731 - a predicate, given its spec below
            type(value) is str and len(value) <= longest and (pattern is None or pattern.search(value) is not None)
        )
        return string if pattern is not None else _spec(string, (3, longest))
    return None


def _spec(predicate: Callable[[Any], bool], spec: tuple[Any, ...]) -> Callable[[Any], bool]:
    predicate.spec = spec  # type: ignore[attr-defined] # read by getattr (mllog._TESTS)
    return predicate


def _accepts(schema: dict[str, Any], name: str) -> Callable[[Any], bool]:
    """A predicate for the keywords of one schema that judge the value itself."""
    types = schema.get("type")
    if isinstance(types, str) and types not in TYPES:
        raise SchemaError(f"{name}: unknown type in {types!r}")
    fast = _fast(schema)
    if fast is not None:
        return fast
    allowed = frozenset([types] if isinstance(types, str) else types) if types is not None else frozenset(TYPES)
    if not allowed <= set(TYPES):
        raise SchemaError(f"{name}: unknown type in {types!r}")
    low, high, above = schema.get("minimum"), schema.get("maximum"), schema.get("exclusiveMinimum")
    longest = schema.get("maxLength")
    pattern = re.compile(schema["pattern"]) if "pattern" in schema else None
    choices = schema.get("enum")
    if choices is not None and not all(isinstance(c, str) for c in choices):
        raise SchemaError(f"{name}: an enum lists strings only")
    choices = frozenset(choices) if choices is not None else None
    most_items, most_members = schema.get("maxItems"), schema.get("maxProperties")

    def accepts(value: Any) -> bool:
        kind = json_type(value)
        if kind is None:
            return False
        if kind not in allowed and not (kind == "integer" and "number" in allowed):
            return False
        if kind == "integer" or kind == "number":
            return (
                (low is None or value >= low) and (high is None or value <= high) and (above is None or value > above)
            )
        if kind == "string":
            return (
                (longest is None or len(value) <= longest)
                and (pattern is None or pattern.search(value) is not None)
                and (choices is None or value in choices)
            )
        if kind == "array":
            return most_items is None or len(value) <= most_items
        if kind == "object":
            return most_members is None or len(value) <= most_members
        return True

    return _object_spec(schema, accepts)


_OBJECT_KEYWORDS = frozenset(
    {
        "type",
        "maxProperties",
        "properties",
        "patternProperties",
        "additionalProperties",
        "description",
        "$comment",
        "title",
    }
)


def _object_spec(schema: dict[str, Any], accepts: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """`accepts` with its spec (5, most) when all it asks is a mapping of at most `most`
    members (None: any number), for `_uniform`'s spec (see `_fast`)."""
    if schema.get("type") == "object" and set(schema) <= _OBJECT_KEYWORDS:
        return _spec(accepts, (5, schema.get("maxProperties")))
    return accepts


def _expectation(schema: dict[str, Any]) -> str:
    """What a schema asks for, in words: `a whole number from 0 to 9223372036854775807`."""
    types = schema.get("type", list(TYPES))
    types = [types] if isinstance(types, str) else list(types)
    if "integer" in types and "number" in types:
        types.remove("integer")
    words = " or ".join(_WORDS[t] for t in types)
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(c) for c in schema["enum"])
    low, high, above = schema.get("minimum"), schema.get("maximum"), schema.get("exclusiveMinimum")
    if {"integer", "number"} & set(types):
        if above is not None:
            words += f" above {above:g}" if isinstance(above, float) else f" above {above}"
        if low is not None and high is not None:
            words += f" from {_num(low)} to {_num(high)}"
        elif low is not None:
            words += f" of at least {_num(low)}"
        elif high is not None:
            words += f" of at most {_num(high)}"
    if "string" in types:
        if "pattern" in schema:
            words += f" matching {schema['pattern']}"
        if "maxLength" in schema:
            words += f" of at most {schema['maxLength']} characters"
    if "array" in types and "maxItems" in schema:
        words += f" of at most {schema['maxItems']} items"
    return words


def _num(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def shown(value: Any, width: int = 60) -> str:
    """A value as a message quotes it, in JSON's spelling, short whatever its size: a long
    integer by its digits, a long string or list cut, NaN and infinities by name."""
    kind = type(value)
    if kind is bool or value is None:
        return json.dumps(value)
    if kind is int:
        digits = len(str(abs(value))) if value.bit_length() < 14000 else None
        if digits is None or digits > 30:
            return (
                f"a {digits or 'many'}-digit integer" if value >= 0 else f"a negative {digits or 'many'}-digit integer"
            )
        return str(value)
    if kind is float:
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if kind is str:
        if len(value) <= width:
            return json.dumps(value, ensure_ascii=False)
        return json.dumps(value[:width], ensure_ascii=False)[:-1] + f'..." ({len(value)} characters)'
    if kind in (list, tuple):
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
    if kind is dict:
        return f"an object of {len(value)} key{'s' if len(value) != 1 else ''}"
    return f"a {kind.__name__}"


def message(where: str, problem: Malformation) -> str:
    """`num_errors is "5", not a whole number from 0 to 9223372036854775807`, with `where`
    (a line, a file) before it when given."""
    text = f"{_key(problem.path)} is {shown(problem.value)}, not {problem.expected}"
    return f"{where}: {text}" if where else text


def _key(path: Where) -> str:
    """A path inside a value as a message names it: the key, then `[3]` and `.name` parts."""
    head, *rest = path
    return str(head) + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in rest)


def pointer(path: Where) -> str:
    """A path as a JSON pointer (RFC 6901)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def defect(
    problem: Malformation, line: int | None = None, point: str | None = None, column: int | None = None
) -> Defect:
    """A malformation as the FIL012 defect the reader turns into a finding: the pointer is
    the key (or `point`), and the message says the line when there is one (and the finding
    carries the column of the value, when the parser knows it)."""
    where = f"line {line}" if line is not None else ""
    return Defect(CODE, message(where, problem), line=line, pointer=point or _key(problem.path), column=column)


# --- text that stands for a number --------------------------------------------------------
_DECIMAL = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_FRACTION = re.compile(r"[0-9]+\.[0-9]+")  # the usual number: no sign, exponent or space, a fraction
MAX_DIGITS = 4000  # an integer written with more digits is refused before int() reads it


def from_text(text: str, schema_type: Any) -> Any:
    """A text field (a summary line, an accuracy value, a sample) as the value its
    declaration types: for a number, the decimal number the text spells (an int when it has
    no fraction or exponent); the text itself when it spells none, so that the declaration
    refuses it. Never NaN or Infinity from their names: "nan" is text, not a number."""
    return _from_text(text, _numeric(schema_type))


def _numeric(schema_type: Any) -> bool:
    """Whether a declared `type` (a name, a list of names, or None for any) admits a number."""
    types = {schema_type} if isinstance(schema_type, str) else set(schema_type or ())
    return bool({"integer", "number"} & types)


def _from_text(text: str, numeric: bool) -> Any:
    """from_text, for a declaration that admits a number or not."""
    if not numeric:
        return text
    stripped = text.strip()
    if not _DECIMAL.fullmatch(stripped):
        return text
    if len(stripped) > MAX_DIGITS:
        return text
    if stripped.lstrip("+-").isdigit():
        return int(stripped)
    return float(stripped)  # an exponent past the largest float reads as Infinity, which is refused


# --- the declarations -----------------------------------------------------------------
@functools.cache
def declaration(kind: str) -> Declaration:
    """The compiled declaration of one kind of file (a key of KINDS)."""
    return Declaration(KINDS[kind], schema(kind))


@functools.cache
def schema(kind: str) -> dict[str, Any]:
    text = resources.files("checker.schemas").joinpath(KINDS[kind]).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded
