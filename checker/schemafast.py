"""Whether a document meets a JSON Schema, decided without importing jsonschema, for the
keywords the round schema uses.

Importing jsonschema costs about 0.1 s, more than the rest of loading a round; a command
that loads one round pays it on every run. `is_valid` answers exactly as
`jsonschema.Draft202012Validator(schema).is_valid(document)` would, or says it cannot
tell (None): for a keyword it does not know, a `$ref` that is not local, a value whose
comparison jsonschema makes in its own way (a float against `integer`, `enum` of anything
but text). The caller runs jsonschema whenever the answer is not True, so a document is
never passed that jsonschema would refuse, and a refusal keeps jsonschema's message.
tests/test_meta.py holds it to jsonschema's answers on the round files, and on them mutated.
"""

from __future__ import annotations

import re
from typing import Any, Callable

# Keywords that never make a document invalid (format is an annotation unless a format
# checker is given, and none is).
_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description", "format", "default",
                          "examples"})
_PLAIN = (dict, list, str, int, float, bool, type(None))


class _Unsure(Exception):
    """The answer is jsonschema's to give."""


def is_valid(schema: Any, document: Any) -> bool | None:
    """True or False as jsonschema's Draft 2020-12 validator says, or None when unsure."""
    try:
        return _valid(schema, document, schema)
    except (_Unsure, RecursionError, re.error, TypeError):  # TypeError: a key that is not text, for a pattern
        return None


def _valid(schema: Any, value: Any, root: Any) -> bool:
    if schema is True or schema is False:
        return schema
    if not isinstance(schema, dict) or not isinstance(value, _PLAIN):
        raise _Unsure
    for keyword, spec in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        check = _KEYWORDS.get(keyword)
        if check is None:
            raise _Unsure
        if not check(spec, value, schema, root):
            return False
    return True


def _is_type(name: str, value: Any) -> bool:
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "integer":
        if isinstance(value, float):
            raise _Unsure  # jsonschema counts 1.0 as an integer
        return isinstance(value, int) and not isinstance(value, bool)
    raise _Unsure


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _type(spec, value, schema, root) -> bool:
    return any(_is_type(name, value) for name in (spec if isinstance(spec, list) else [spec]))


def _properties(spec, value, schema, root) -> bool:
    return not isinstance(value, dict) or all(_valid(sub, value[key], root) for key, sub in spec.items() if key in value)


def _pattern_properties(spec, value, schema, root) -> bool:
    return not isinstance(value, dict) or all(_valid(sub, item, root) for pattern, sub in spec.items()
                                              for key, item in value.items() if re.search(pattern, key))


def _additional_properties(spec, value, schema, root) -> bool:
    if not isinstance(value, dict):
        return True
    named, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
    return all(_valid(spec, item, root) for key, item in value.items()
               if key not in named and not any(re.search(pattern, key) for pattern in patterns))


def _property_names(spec, value, schema, root) -> bool:
    return not isinstance(value, dict) or all(_valid(spec, key, root) for key in value)


def _required(spec, value, schema, root) -> bool:
    return not isinstance(value, dict) or all(key in value for key in spec)


def _items(spec, value, schema, root) -> bool:
    return not isinstance(value, list) or all(_valid(spec, item, root) for item in value)


def _equal(one: Any, two: Any) -> bool:
    """jsonschema's equality: text by value against anything, a boolean equals only a boolean
    (True is not 1), numbers compare by value (1 == 1.0); two lists or two mappings are its own
    to compare."""
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, (list, dict)) or isinstance(two, (list, dict)):
        if isinstance(one, list) and isinstance(two, list) or isinstance(one, dict) and isinstance(two, dict):
            raise _Unsure
        return False  # a container equals nothing but a container of its kind
    if isinstance(one, bool) or isinstance(two, bool):
        return type(one) is type(two) and one == two
    if one is None or two is None:
        return one is two
    if _number(one) and _number(two):
        return one == two
    raise _Unsure


def _enum(spec, value, schema, root) -> bool:
    return any(_equal(option, value) for option in spec)


def _unique_items(spec, value, schema, root) -> bool:
    if not spec or not isinstance(value, list):
        return True
    if not all(isinstance(item, str) for item in value):
        raise _Unsure  # jsonschema's equality again
    return len(set(value)) == len(value)


def _ref(spec, value, schema, root) -> bool:
    if not isinstance(spec, str) or not spec.startswith("#/") or "%" in spec:
        raise _Unsure
    target = root
    for part in spec[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, dict) or part not in target:
            raise _Unsure
        target = target[part]
    return _valid(target, value, root)


def _any_of(spec, value, schema, root) -> bool:
    unsure = False
    for sub in spec:
        try:
            if _valid(sub, value, root):
                return True
        except _Unsure:
            unsure = True
    if unsure:
        raise _Unsure
    return False


def _one_of(spec, value, schema, root) -> bool:
    return sum(1 for sub in spec if _valid(sub, value, root)) == 1


def _const(spec, value, schema, root) -> bool:
    return _enum([spec], value, schema, root)


def _bound(test: Callable[[Any, Any], bool], kind: type | None) -> Callable[..., bool]:
    """A keyword that bounds a number (`kind` None) or a length (of a str, list or dict)."""
    def check(spec, value, schema, root) -> bool:
        if kind is None:
            return not _number(value) or test(value, spec)
        return not isinstance(value, kind) or test(len(value), spec)
    return check


_KEYWORDS: dict[str, Callable[..., bool]] = {
    "type": _type,
    "properties": _properties,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "propertyNames": _property_names,
    "required": _required,
    "items": _items,
    "enum": _enum,
    "const": _const,
    "uniqueItems": _unique_items,
    "$ref": _ref,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "pattern": lambda spec, value, schema, root: not isinstance(value, str) or re.search(spec, value) is not None,
    # As jsonschema words them, a failure each (so that NaN fails none, as there).
    "minimum": _bound(lambda v, b: not v < b, None),
    "maximum": _bound(lambda v, b: not v > b, None),
    "exclusiveMinimum": _bound(lambda v, b: not v <= b, None),
    "exclusiveMaximum": _bound(lambda v, b: not v >= b, None),
    "minLength": _bound(lambda n, b: not n < b, str),
    "minItems": _bound(lambda n, b: not n < b, list),
    "maxItems": _bound(lambda n, b: not n > b, list),
    "minProperties": _bound(lambda n, b: not n < b, dict),
}
