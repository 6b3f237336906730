"""Round facts are typed: schemas/round.schema.json and the dataclasses of checker/facts.py
say the same thing, property for field; a bundled round file is validated once (by these
tests, which record its digest) and loads without jsonschema; a user's round file is
validated each time it loads."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import types
import typing
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

import pytest

from checker import rounds, typedload
from checker.facts import RoundFile
from checker.rounds import RoundError, available_rounds, load_round

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


@pytest.mark.parametrize("name", available_rounds())
def test_bundled_rounds_validate_and_their_digests_are_recorded(name: str) -> None:
    """Each bundled round validates against the schema, and schemas/round.validated.json
    records its digest, so it loads without jsonschema. On a change, the message gives the
    line to write there."""
    document, origin, texts = rounds._resolve(name)
    rounds._validate(document, origin, texts[0])
    digests = {n: rounds.digest(rounds._resolve(n)[2]) for n in available_rounds()}
    assert rounds.validated() == digests, f"schemas/round.validated.json `rounds`: {json.dumps(digests, indent=4)}"


def test_a_bundled_round_loads_without_jsonschema() -> None:
    code = (
        "import sys; from checker.rounds import available_rounds, load_round\n"
        "[load_round(n) for n in available_rounds()]\n"
        "print('jsonschema' in sys.modules)"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "False"


def test_an_edited_bundled_round_is_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bundled file whose digest is not recorded (edited after the tests ran) is validated
    when it loads, as a user's file is."""
    checked: list[str] = []
    monkeypatch.setattr(rounds, "validated", lambda: {})
    monkeypatch.setattr(rounds, "_validate", lambda document, origin, text: checked.append(origin))
    rounds.load_round.cache_clear()
    try:
        load_round("v6.0")
    finally:
        rounds.load_round.cache_clear()
    assert checked == ["rules/v6.0.yaml"]


def test_a_users_round_file_is_validated_strictly(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("extends: v6.1\nround: mine\nrun: {source: here, min_duration_ms: 1, min_duratoin_ms: 2}\n")
    with pytest.raises(RoundError, match=r"mine.yaml:3: .*min_duratoin_ms"):
        load_round(str(path))


def test_a_users_round_file_names_what_it_extends_when_that_is_unknown(tmp_path: Path) -> None:
    path = tmp_path / "unk.yaml"
    path.write_text("extends: v9.9\nround: mine\n")
    with pytest.raises(RoundError) as raised:
        load_round(str(path))
    assert str(raised.value).startswith(f"{path} extends 'v9.9': unknown round 'v9.9'; known rounds: v5.1, ")


def test_a_users_round_file_extends_a_file_beside_it_whatever_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "base.yaml").write_text("extends: v6.0\nround: base\n")
    (tmp_path / "sub" / "rel.yaml").write_text("extends: base.yaml\nround: rel\n")
    monkeypatch.chdir(tmp_path)
    loaded = load_round("sub/rel.yaml")
    assert (loaded.name, loaded.seeds.named()) == ("rel", load_round("v6.0").seeds.named())


def test_round_files_that_extend_each_other_name_the_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.yaml").write_text("extends: ./b.yaml\nround: a\n")
    Path("b.yaml").write_text("extends: a.yaml\nround: b\n")
    with pytest.raises(RoundError) as raised:
        load_round("./a.yaml")
    assert str(raised.value) == (
        "./a.yaml extends 'b.yaml': b.yaml: round files extend each other in a loop (a.yaml -> b.yaml -> a.yaml)"
    )


def test_a_users_round_file_cannot_take_the_name_of_another_bundled_round(tmp_path: Path) -> None:
    path = tmp_path / "liar.yaml"
    path.write_text("extends: v6.0\nround: v6.1\n")
    with pytest.raises(
        RoundError, match=r"liar.yaml: says `round: v6.1` but extends 'v6.0', which holds the facts of v6.0"
    ):
        load_round(str(path))
    path.write_text("extends: v6.0\nround: v6.0\n")
    assert load_round(str(path)).name == "v6.0"


def test_facts_load_typed() -> None:
    v61 = load_round("v6.1")
    assert v61.layout.files.detail_log == "mlperf_log_detail.txt"
    assert v61.models["resnet"].latency["Server"].target_ns == 15000000
    assert v61.seeds.named()["qsl_rng_seed"] == 2085463073848966840
    assert "source" not in v61.model_mapping and v61.model_mapping["mobilenet"] == "resnet"
    assert (
        v61.severity("PRF013") is not None
        and v61.severity_reason(
            "PRF013",
        )
        is not None
    )
    gate = v61.gates("3d-unet-99", "Offline")[0]
    assert gate.policy_bound is not None and gate.policy_bound.reference == 0.86330
    assert gate.policy_bound.factor == gate.factor and gate.policy_bound.policy is None


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
