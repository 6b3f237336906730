"""Round facts are typed: schemas/round.schema.json and the dataclasses of checker/facts.py
say the same thing, property for field."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from importlib import resources
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

import pytest

from checker import typedload
from checker.facts import RoundFile

SCHEMA = json.loads(resources.files("checker.schemas").joinpath("round.schema.json").read_text())
TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rpartition("/")[2]]
    return node


def _members(tp: Any) -> list[Any]:
    if get_origin(tp) in (typing.Union, types.UnionType):
        return list(get_args(tp))
    return [tp]


def _agree(node: dict[str, Any], tp: Any, where: str) -> list[str]:
    """Where the type `tp` and the schema `node` disagree: property for field, type for type."""
    node = _resolve(node)
    if get_origin(tp) is Annotated:
        return _sourced(node, tp, where)
    alternatives = node.get("oneOf") or node.get("anyOf")
    if alternatives and not any(k in node for k in ("properties", "type")):
        return _union(alternatives, tp, where)
    if "const" in node:
        return [] if tp == Literal[node["const"]] else [f"{where}: const {node['const']!r} is not {tp}"]
    if "enum" in node:
        literal = get_origin(tp) is Literal and set(get_args(tp)) == set(node["enum"])
        return [] if tp is str or literal else [f"{where}: enum {node['enum']} is not {tp}"]
    if node.get("type") == "array":
        return _array(node, tp, where)
    if isinstance(node.get("type"), list):
        wanted = {TYPES[t] for t in node["type"]}
        return [] if set(_members(tp)) == wanted else [f"{where}: {node['type']} is not {tp}"]
    if "properties" in node or node.get("additionalProperties") is False:
        return _object(node, tp, where)
    if isinstance(node.get("additionalProperties"), dict) or "patternProperties" in node:
        return _mapping(node, tp, where)
    if node.get("type") in TYPES:
        return [] if tp is TYPES[node["type"]] else [f"{where}: {node['type']} is not {tp}"]
    return [] if tp is object else [f"{where}: any value is `object`, not {tp}"]


def _sourced(node: dict[str, Any], tp: Any, where: str) -> list[str]:
    """A mapping whose `source` property cites its entries: Annotated[Mapping[...], SOURCED]."""
    inner, marks = get_args(tp)[0], get_args(tp)[1:]
    if (typedload.SOURCED in marks) != (set(node.get("properties", {})) == {"source"}):
        return [f"{where}: SOURCED marks a mapping whose only property is `source`"]
    rest = {k: v for k, v in node.items() if k not in ("properties", "required")}
    if "patternProperties" in rest and rest.get("additionalProperties") is False:
        del rest["additionalProperties"]
    return _agree(rest, inner, where)


def _union(alternatives: list[dict[str, Any]], tp: Any, where: str) -> list[str]:
    options = [_resolve(o) for o in alternatives]
    members = [m for m in _members(tp) if m is not type(None)]
    if len(options) != len(members):
        return [f"{where}: {len(options)} alternatives in the schema, {len(members)} in {tp}"]
    return [p for option, member in zip(options, members, strict=True) for p in _agree(option, member, where)]


def _array(node: dict[str, Any], tp: Any, where: str) -> list[str]:
    if get_origin(tp) is not tuple:
        return [f"{where}: an array is a tuple, not {tp}"]
    return [p for a in get_args(tp) if a is not Ellipsis for p in _agree(node.get("items", {}), a, f"{where}[]")]


def _mapping(node: dict[str, Any], tp: Any, where: str) -> list[str]:
    if get_origin(tp) not in (Mapping, dict):
        return [f"{where}: a mapping of any names is a Mapping, not {tp}"]
    extra = node.get("additionalProperties")
    value = extra if isinstance(extra, dict) else next(iter(node["patternProperties"].values()))
    return _agree(value, get_args(tp)[1], f"{where}/*")


def _object(node: dict[str, Any], tp: Any, where: str) -> list[str]:
    if not dataclasses.is_dataclass(tp):
        return [f"{where}: an object of fixed properties is a dataclass, not {tp}"]
    hints = get_type_hints(tp, include_extras=True)
    fields = {typedload.key_of(f.name): f for f in typedload.facts_of(tp)}
    properties, required = node.get("properties", {}), set(node.get("required", []))
    problems = [f"{where}/{k}: a property without a field" for k in properties.keys() - fields.keys()]
    problems += [f"{where}/{k}: a field without a property" for k in fields.keys() - properties.keys()]
    for key in properties.keys() & fields.keys():
        item = fields[key]
        has_default = item.default is not dataclasses.MISSING or item.default_factory is not dataclasses.MISSING
        if (key in required) == has_default:
            problems.append(f"{where}/{key}: {'required' if key in required else 'optional'}, default {has_default}")
        hint = hints[item.name]
        nullable = "null" in (_resolve(properties[key]).get("type") or [])
        if key not in required and item.default is None and not nullable:
            hint = typing.Union[tuple(m for m in _members(hint) if m is not type(None))]  # noqa: UP007
        problems += _agree(properties[key], hint, f"{where}/{key}")
    return problems


def test_the_schema_and_the_dataclasses_say_the_same() -> None:
    """Adding a fact is one schema entry and one field: a property without its field, a
    field without its property, a required one with a default, or a type that is not the
    schema's fails here, naming the place."""
    assert _agree(SCHEMA, RoundFile, "") == []


def test_a_disagreement_is_named() -> None:
    """The walk above can fail: a schema with one more property, or another type."""
    more = {**SCHEMA, "properties": {**SCHEMA["properties"], "new_fact": {"type": "string"}}}
    assert _agree(more, RoundFile, "") == ["/new_fact: a property without a field"]
    retyped = {**SCHEMA, "properties": {**SCHEMA["properties"], "round": {"type": "integer"}}}
    assert _agree(retyped, RoundFile, "") == [f"/round: integer is not {str}"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"key": "k", "units": "u", "scal": 1}, r"^/: 'scal' is no field of Metric$"),
        ({"key": "k", "units": 3}, r"^/units: 3 is not a str$"),
        ({"key": "k"}, r"^/: .*missing 1 required keyword-only argument: 'units'"),
        ([], r"^/: list, not a mapping of Metric$"),
    ],
)
def test_a_shape_the_dataclass_cannot_hold_is_refused(data: object, message: str) -> None:
    from checker.facts import Metric

    with pytest.raises(typedload.ShapeError, match=message):
        typedload.build(Metric, data)
