"""Frozen dataclasses built from a parsed document (YAML, JSON), led by their annotations.

A dataclass field is one key of a mapping (`from_` is the key `from`, a Python keyword); a
`tuple[X, ...]` is a list, a `Mapping[str, X]` a mapping of any keys, and a union takes the
first of its members whose shape the value has. `Annotated[Mapping[str, X], SOURCED]` is a
mapping whose `source` key says where its entries come from: the key is left out, since it
is no entry. A value of another shape, or a key no field names, is a ShapeError: the
document was validated against its schema first, so one means the schema and the
dataclasses disagree (tests/test_facts.py keeps them in step).
"""

from __future__ import annotations

import dataclasses
import functools
import keyword
import types
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, TypeVar, cast, get_args, get_origin, get_type_hints

T = TypeVar("T")
Builder = Callable[[object, str], object]


class ShapeError(ValueError):
    """A value whose shape is not the one its annotation states."""


class Sourced:
    """Marks a mapping whose `source` key is where its entries come from, not an entry."""

    def __repr__(self) -> str:
        return "SOURCED"


SOURCED = Sourced()
NOT_A_FACT = {"fact": False}  # field metadata: set by the code that loads, never by the document


def build(cls: type[T], data: object, where: str = "", **extra: object) -> T:
    """A `cls` from `data`; `extra` gives the fields that are no key of the document."""
    made = _dataclass(cls)(data, where, extra)
    return cast(T, made)


def key_of(name: str) -> str:
    """The document's key for a field: its name, without the `_` that a keyword takes."""
    return name[:-1] if name.endswith("_") and keyword.iskeyword(name[:-1]) else name


def facts_of(cls: type[Any]) -> list[dataclasses.Field[Any]]:
    """The fields of a dataclass that the document gives."""
    return [f for f in dataclasses.fields(cls) if f.init and f.metadata.get("fact", True)]


def _dataclass(cls: type[Any]) -> Callable[[object, str, Mapping[str, object]], object]:
    hints = get_type_hints(cls, include_extras=True)
    fields = {key_of(f.name): (f.name, _builder(hints[f.name])) for f in facts_of(cls)}

    def make(data: object, where: str, extra: Mapping[str, object]) -> object:
        if not isinstance(data, dict):
            raise ShapeError(f"{where or '/'}: {type(data).__name__}, not a mapping of {cls.__name__}")
        values: dict[str, object] = dict(extra)
        for key, value in data.items():
            entry = fields.get(key)
            if entry is None:
                raise ShapeError(f"{where or '/'}: {key!r} is no field of {cls.__name__}")
            name, item = entry
            values[name] = item(value, f"{where}/{key}")
        try:
            return cls(**values)
        except TypeError as error:  # a required field missing
            raise ShapeError(f"{where or '/'}: {error}") from None

    return make


@functools.cache
def _builder(tp: Any) -> Builder:
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        inner = _builder(args[0])
        if SOURCED not in args[1:]:
            return inner
        return lambda data, where: inner({k: v for k, v in _mapping(data, where).items() if k != "source"}, where)
    if dataclasses.is_dataclass(tp):
        made = _dataclass(cast(type[Any], tp))
        return lambda data, where: made(data, where, {})
    if origin in (typing.Union, types.UnionType):
        return _union(args)
    if origin is Literal:
        return _literal(args)
    if origin is tuple:
        return _tuple(args)
    if origin in (Mapping, dict):
        value = _builder(args[1])
        return lambda data, where: {k: value(v, f"{where}/{k}") for k, v in _mapping(data, where).items()}
    if tp in (object, Any):
        return lambda data, where: data
    return _scalar(tp)


def _mapping(data: object, where: str) -> dict[str, object]:
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise ShapeError(f"{where}: {type(data).__name__}, not a mapping of names")
    return data


def _tuple(args: tuple[Any, ...]) -> Builder:
    items = [_builder(a) for a in args if a is not Ellipsis]

    def make(data: object, where: str) -> object:
        if not isinstance(data, list) or (Ellipsis not in args and len(data) != len(items)):
            raise ShapeError(f"{where}: {type(data).__name__}, not a list of {len(items)}")
        return tuple(
            (items[0] if Ellipsis in args else items[i])(value, f"{where}/{i}") for i, value in enumerate(data)
        )

    return make


def _literal(values: tuple[Any, ...]) -> Builder:
    def make(data: object, where: str) -> object:
        if not any(data == v and type(data) is type(v) for v in values):
            raise ShapeError(f"{where}: {data!r} is not one of {', '.join(map(repr, values))}")
        return data

    return make


def _scalar(tp: Any) -> Builder:
    kinds = {float: (int, float)}.get(tp, (tp,))

    def make(data: object, where: str) -> object:
        if not isinstance(data, kinds) or (isinstance(data, bool) and tp is not bool):
            raise ShapeError(f"{where}: {data!r} is not a {tp.__name__}")
        return data

    return make


def _union(members: tuple[Any, ...]) -> Builder:
    branches = [(_accepts(m), _builder(m)) for m in members]

    def make(data: object, where: str) -> object:
        for accepts, item in branches:
            if accepts(data):
                return item(data, where)
        raise ShapeError(f"{where}: {data!r} is none of {' | '.join(map(_named, members))}")

    return make


def _accepts(tp: Any) -> Callable[[object], bool]:
    """Whether a value has the shape of a union's member (its contents are checked later)."""
    origin = get_origin(tp)
    if origin is Annotated:
        return _accepts(get_args(tp)[0])
    if tp is type(None):
        return lambda data: data is None
    if dataclasses.is_dataclass(tp) or origin in (Mapping, dict):
        return lambda data: isinstance(data, dict)
    if origin is tuple:
        return lambda data: isinstance(data, list)
    if origin is Literal:
        values = get_args(tp)
        return lambda data: any(data == v and type(data) is type(v) for v in values)
    kinds = {float: (int, float)}.get(tp, (tp,))
    return lambda data: isinstance(data, kinds) and (tp is bool or not isinstance(data, bool))


def _named(tp: Any) -> str:
    return getattr(tp, "__name__", None) or repr(tp)
