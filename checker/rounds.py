"""Round files: one YAML document of facts per round, validated when loaded.

Rules ask a `Round` for facts (`round.latency(model, scenario)`) and never compare round
names. A fact the round file does not state is None, and a rule that needs it does not apply.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from . import userfiles, yamlsafe
from .findings import Severity

if TYPE_CHECKING:
    import jsonschema


class RoundError(Exception):
    """A round file that cannot be found, read or validated (exit code 2)."""


@dataclass(frozen=True)
class Gate:
    """An accuracy bound: reference x factor below, and an upper bound where set.

    `metric` names the round's accuracy pattern (accuracy.txt); `key` names the value in an
    Endpoints accuracy_results.json. `applied` is False for a bound that the written policy
    states but the round's checker did not apply: it only warns. `policy` is the written
    policy's own bound where it is stricter than the one the round applied."""

    metric: str
    reference: float
    key: str | None = None
    factor: float | None = None
    upper_factor: float | None = None
    upper: float | None = None
    applied: bool = True
    policy: Gate | None = None
    source: str | None = None

    @property
    def lower_bound(self) -> float | None:
        return self.reference * self.factor if self.factor is not None else None

    @property
    def upper_bound(self) -> float | None:
        if self.upper is not None:
            return self.upper
        if self.upper_factor is not None:
            return self.reference * self.upper_factor
        return None


@dataclass(frozen=True)
class Metric:
    key: str
    units: str
    scale: float = 1.0


def _gate(spec: dict[str, Any]) -> Gate:
    """A gate from its round-file entry; the written policy's bound takes the applied one's
    fields unless it states its own."""
    fields = {k: v for k, v in spec.items() if k not in ("scenarios", "policy")}
    policy = spec.get("policy")
    if policy:
        fields["policy"] = Gate(**{**{k: v for k, v in fields.items() if k != "source"}, **policy})
    return Gate(**fields)


def _schema(name: str) -> dict[str, Any]:
    text = resources.files("checker.schemas").joinpath(name).read_text(encoding="utf-8")
    return json.loads(text)


def _one_of(values: list[str], fold_case: bool = False) -> str:
    """A pattern for exactly one of `values`, with blanks around it and around commas."""

    def spelled(value: str) -> str:
        text = "".join(f"[{c.upper()}{c.lower()}]" if fold_case and c.isalpha() else re.escape(c) for c in value)
        return text.replace(",", r"\s*,\s*").replace(r"\,", r"\s*,\s*")

    return r"^\s*(" + "|".join(spelled(v) for v in values) + r")\s*$"


def available_rounds() -> list[str]:
    names = []
    for entry in resources.files("checker.rules").iterdir():
        if entry.name.endswith(".yaml") and not entry.name.startswith("loadgen_"):
            names.append(entry.name[: -len(".yaml")])
    return sorted(names, key=_round_order)


def _round_order(name: str) -> tuple:
    numbers = [int(n) for n in re.findall(r"\d+", name)]
    # Profiles (demo-v6.1) sort before the real round they extend.
    return (numbers, 0 if "-" in name else 1, name)


@functools.cache
def is_profile(name: str) -> bool:
    """Whether a bundled round file is a profile (it sets `profile:` or `extends:`): it adapts
    a real round for a purpose, such as a demo with short runs, and is never a round itself."""
    document, _ = _read_document(name)
    return "profile" in document or "extends" in document


def real_rounds() -> list[str]:
    """The bundled round files that are real rounds (no profiles), oldest first."""
    return [name for name in available_rounds() if not is_profile(name)]


def newest_round() -> str:
    return real_rounds()[-1]


def version_numbers(text: str) -> tuple[int, ...]:
    """The leading dotted numbers of a version ("6.0.10 @ 0b4aa6f62e" is (6, 0, 10)); () when
    it starts with none."""
    match = re.match(r"\s*(\d+(?:\.\d+)*)", text)
    return tuple(int(part) for part in match[1].split(".")) if match else ()


def _padded(version: tuple[int, ...]) -> tuple[int, ...]:
    return version + (0,) * (3 - len(version))


def is_path(name_or_path: str) -> bool:
    """Whether `--round` names a file of the user's rather than a bundled round."""
    return os.sep in name_or_path or name_or_path.endswith((".yaml", ".yml"))


def _read_document(name_or_path: str) -> tuple[dict[str, Any], str]:
    """The document of a round file, and where it is from. A bundled one is read once a
    process (is_profile and load_round both ask): the caller never changes it."""
    if not is_path(name_or_path):
        return _bundled_document(name_or_path)
    try:
        text = yamlsafe.read_regular(name_or_path, what="round file")
    except yamlsafe.YamlError as error:
        raise RoundError(str(error)) from None
    return _parsed(text, name_or_path)


@functools.cache
def _bundled_document(name: str) -> tuple[dict[str, Any], str]:
    entry = resources.files("checker.rules").joinpath(f"{name}.yaml")
    if not entry.is_file():
        known = ", ".join(available_rounds())
        raise RoundError(f"unknown round {name!r}; known rounds: {known}")
    origin = f"rules/{name}.yaml"
    document = yamlsafe.load_package_data(entry.read_text(encoding="utf-8"))
    if not isinstance(document, dict):
        raise RoundError(f"{origin} does not hold a mapping")
    return document, origin


def _parsed(text: str, origin: str) -> tuple[dict[str, Any], str]:
    try:
        # strict (checker.userfiles): a key given twice or a number that is not finite names its line
        document, _ = userfiles.parse(text, origin)
    except userfiles.UserFileError as error:
        raise RoundError(str(error)) from None
    if not isinstance(document, dict):
        raise RoundError(f"{origin} does not hold a mapping")
    return document, origin


def _merge(base: Any, override: Any) -> Any:
    """Deep-merge mappings; any other value in `override` replaces the base value."""
    if isinstance(base, dict) and isinstance(override, dict):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = _merge(base.get(key), value) if key in base else value
        return merged
    return override


def _resolve(name_or_path: str, seen: tuple[str, ...] = ()) -> tuple[dict[str, Any], str]:
    document, origin = _read_document(name_or_path)
    parent = document.get("extends")
    if parent is None:
        return document, origin
    document = {key: value for key, value in document.items() if key != "extends"}
    if parent in seen:
        raise RoundError(f"{origin}: round files extend each other in a loop ({' -> '.join(seen + (parent,))})")
    base, _ = _resolve(parent, seen + (name_or_path,))
    merged = _merge(base, document)
    merged["extends"] = parent
    return merged, origin


@functools.lru_cache(maxsize=16)
def load_round(name_or_path: str) -> Round:
    document, origin = _resolve(name_or_path)
    if not is_path(name_or_path):
        # A bundled round file (and every file it extends) is package data that
        # tests/test_meta.py validates; only a user's round file pays jsonschema's import (0.1 s).
        return Round(document, origin)
    try:
        text = yamlsafe.read_regular(name_or_path, what="round file")
        userfiles.check(document, "round.schema.json", origin, functools.partial(yamlsafe.line_of, text))
    except (userfiles.UserFileError, yamlsafe.YamlError) as error:
        raise RoundError(str(error)) from None
    return Round(document, origin)


class Round:
    """The facts of one round (or of a profile that extends one)."""

    def __init__(self, data: dict[str, Any], origin: str) -> None:
        self.data = data
        self.origin = origin
        self.name: str = data["round"]
        self._mapping = {k: v for k, v in data.get("model_mapping", {}).items() if k != "source"}
        # Facts asked for once per result or more, derived once per round: a round's data is
        # never changed once loaded (load_round keeps one Round per file).
        self._gates: dict[tuple[str, str, bool | None], tuple[Gate, ...]] = {}
        self._scenario_names: dict[str, str | None] = {}

    def __repr__(self) -> str:
        return f"Round({self.name!r})"

    @property
    def is_profile(self) -> bool:
        """A profile of a real round (see `is_profile`), not a round of its own."""
        return "profile" in self.data or "extends" in self.data

    # --- names -------------------------------------------------------------------------
    @property
    def models(self) -> list[str]:
        return list(self.data["models"])

    @property
    def divisions(self) -> list[str]:
        return list(self.data["divisions"])

    @property
    def scenarios(self) -> list[str]:
        return list(self.data["scenarios"])

    @property
    def system_types(self) -> list[str]:
        return list(self.data["system_types"]["values"])

    @property
    def availability(self) -> list[str]:
        return list(self.data["availability"]["values"])

    @property
    def audit_tolerance(self) -> float:
        """How much worse an auditor's re-run may be before it is materially different."""
        return float(self.data["audit"]["tolerance"])

    @property
    def preview_tolerance(self) -> float:
        """How much worse a Preview result may come back as Available in this round."""
        return float(self.data["preview"]["tolerance"])

    def auditable(self, division: str, availability: str | None) -> bool:
        """Whether an audit may pick a result of this division and availability (`audit:`)."""
        audit = self.data.get("audit") or {}
        return division in audit.get("divisions", []) and availability in audit.get("availability", [])

    def scenario_name(self, folder: str) -> str | None:
        """The round's spelling of a scenario folder name (`offline` -> `Offline`), or None when
        the round reads the folder as no scenario: its `scenario_folders: case` says which
        spellings it took, `lower` (the name or its lower-case form) or `any` (any case)."""
        if folder not in self._scenario_names:
            any_case = self.data.get("scenario_folders", {}).get("case", "any") == "any"
            self._scenario_names[folder] = next(
                (
                    name
                    for name in self.scenarios
                    if folder.lower() == name.lower() and (any_case or folder in (name, name.lower()))
                ),
                None,
            )
        return self._scenario_names[folder]

    def model_scenarios(self, model: str) -> set[str] | None:
        """Every scenario the round defines for a model, on any system type (required, one
        of, or optional); None for a model the round does not know."""
        facts = self.model(model)
        if facts is None:
            return None
        return {s for rules in facts["scenarios"].values() for key in rules for s in rules[key]}

    @functools.cached_property
    def result_trees(self) -> list[str]:
        """The folders, inside a submitter's folder, that hold <system>/<benchmark>/<scenario>
        folders: results/, and where the round keeps them apart, compliance/ and measurements/."""
        tail = "/{system}/{benchmark}/{scenario}"
        return [
            value[: -len(tail)]
            for key, value in self.layout.items()
            if key != "source" and isinstance(value, str) and value.endswith(tail) and not value.startswith("{")
        ]

    @functools.cached_property
    def layout_names(self) -> frozenset[str]:
        """The fixed names of the round's layout (performance, run_1, accuracy, TEST01, ...):
        every path part of its templates without a placeholder, and the compliance tests."""

        def parts(value: Any) -> Iterator[str]:
            if isinstance(value, str):
                yield from (part for part in value.split("/") if part and "{" not in part)
            elif isinstance(value, dict):
                for key, item in value.items():
                    if key != "source":
                        yield from parts(item)
            elif isinstance(value, list):
                for item in value:
                    yield from parts(item)

        tests = self.data.get("compliance", {}).get("tests", {})
        return frozenset(parts(self.layout)) | frozenset(tests)

    def canonical_model(self, benchmark: str, extra_mapping: dict[str, str] | None = None) -> str | None:
        """The round's model for a benchmark folder name, or None when the round has none: the
        name itself, the round's mapping, the submitter's mapping, then the round's substring
        guesses (looked up in the round's mapping again), in the order its checker tries them."""
        models = self.data["models"]
        if benchmark in models:
            return benchmark
        for mapping in (self._mapping, extra_mapping or {}):
            target = mapping.get(benchmark)
            if isinstance(target, str) and target:
                return target if target in models else None
        guessed = benchmark
        for guess in self.data.get("model_guesses", {}).get("rules", []):
            if any(part in benchmark for part in guess["contains"]):
                guessed = guess["model"]
                break
        guessed = self._mapping.get(guessed, guessed)
        return guessed if guessed in models else None

    @property
    def submitter_model_mapping(self) -> dict[str, Any]:
        """Where a submitter maps its own benchmark names, and in which divisions it counts."""
        return self.data.get("submitter_model_mapping", {})

    def model(self, name: str) -> dict[str, Any] | None:
        return self.data["models"].get(name)

    # --- facts -------------------------------------------------------------------------
    @property
    def seeds(self) -> dict[str, int]:
        return {k: v for k, v in self.data["seeds"].items() if k != "source"}

    @property
    def seed_release(self) -> dict[str, Any] | None:
        return self.data.get("seed_release")

    def ran_loadgen(self, version: tuple[int, ...]) -> bool | None:
        """Whether a loadgen build of `version` (version_numbers) is one the round's results
        ran (`loadgen_versions`); None when the round file does not say."""
        facts = self.data.get("loadgen_versions")
        if not facts:
            return None
        return any(
            _padded(version_numbers(r["from"])) <= _padded(version) <= _padded(version_numbers(r["to"]))
            for r in facts["ranges"]
        )

    @property
    def layout(self) -> dict[str, Any]:
        return self.data["layout"]

    @property
    def run(self) -> dict[str, Any]:
        return self.data["run"]

    @property
    def system_description(self) -> dict[str, Any]:
        return self.data["system_description"]

    @functools.cached_property
    def system_schema(self) -> dict[str, Any]:
        """The JSON Schema a system description of this round meets: the shapes of
        schemas/<system_description.schema> (types, messages, `x-code`s), with the round's own
        lists put in: the required fields, those that need a meaningful value, the whole
        numbers, the network fields, and the availability categories and system types."""
        facts = self.system_description
        schema = copy.deepcopy(_schema(facts["schema"]))
        properties = schema["properties"]
        shapes = schema["$defs"]  # the shapes the lists below give their fields
        schema["required"] = list(facts["required"])
        for name in facts.get("meaningful", []):
            if "x-code" not in properties.get(name, {}) and name not in facts.get("numeric", []):
                properties[name] = copy.deepcopy(shapes["meaningful"])
        for name in facts.get("numeric", []):
            properties[name] = copy.deepcopy(shapes["whole_number"])
        schema["allOf"][0]["then"]["required"] = [
            "is_network",
            *[f for f in facts.get("network", []) if f != "is_network"],
        ]
        properties["status"]["pattern"] = _one_of(self.availability, fold_case=True)
        properties["system_type"]["pattern"] = _one_of(self.system_types)
        return schema

    @functools.cached_property
    def system_validator(self) -> jsonschema.Draft202012Validator:
        import jsonschema

        return jsonschema.Draft202012Validator(self.system_schema)

    @property
    def measurements(self) -> dict[str, Any]:
        return self.data["measurements"]

    def min_duration_ms(self, model: str) -> int:
        facts = self.model(model) or {}
        return int(facts.get("min_duration_ms", self.run["min_duration_ms"]))

    def scenario_rules(self, model: str, system_type: str) -> dict[str, list[str]] | None:
        """{required, one_of, optional} for a model on a system type, or None when the model
        is not offered on that type."""
        facts = self.model(model)
        if facts is None:
            return None
        table = facts["scenarios"]
        rules = table.get(system_type)
        if rules is None and "," in system_type:
            rules = table.get(",".join(reversed(system_type.split(","))))
        return rules

    def gates(self, model: str, scenario: str, applied: bool | None = True) -> list[Gate]:
        """The model's accuracy bounds for a scenario: those the round applied (default),
        the policy-only ones (`applied=False`), or all (`applied=None`)."""
        key = (model, scenario, applied)
        if key not in self._gates:
            facts = self.model(model) or {}
            gates = []
            for gate in facts.get("accuracy", []):
                if "scenarios" in gate and scenario not in gate["scenarios"]:
                    continue
                made = _gate(gate)
                if applied is None or made.applied is applied:
                    gates.append(made)
            self._gates[key] = tuple(gates)  # Gate is frozen
        return list(self._gates[key])

    def accuracy_patterns(self, model: str, scenario: str) -> dict[str, str]:
        """metric -> the round's accuracy.txt pattern, for every metric the model's gates
        and table name (its checker's ACC_PATTERN)."""
        table = {k: v for k, v in self.data.get("accuracy_patterns", {}).items() if k != "source"}
        names = [g.metric for g in self.gates(model, scenario, applied=None)]
        names += [m for m, _ in self.table_metrics(model, scenario)]
        return {name: table[name] for name in names if name in table}

    @property
    def accuracy_divisions(self) -> list[str]:
        """Divisions whose accuracy is gated; elsewhere it is only reported."""
        return list(self.data.get("accuracy_gated_in", self.divisions))

    def table_metrics(self, model: str, scenario: str) -> list[tuple[str, str | None]]:
        """(metric, Endpoints key) of each metric the published table shows: those with a
        lower bound the round applied (its checker prints its accuracy targets), then the
        model's `table_metrics` (printed but not gated)."""
        extra = [(m["metric"], m.get("key")) for m in (self.model(model) or {}).get("table_metrics", [])]
        return [(g.metric, g.key) for g in self.gates(model, scenario) if g.factor is not None] + extra

    def policy(self, model: str) -> dict[str, Any]:
        """What the written policy states more strictly than the round applied, for a model
        (its `policy:` block); each fact there only warns."""
        return dict((self.model(model) or {}).get("policy", {}))

    def samples(self, model: str) -> dict[str, Any]:
        return dict((self.model(model) or {}).get("samples", {}))

    def accuracy_sample_count(self, model: str, scenario: str) -> int | None:
        samples = self.samples(model)
        count = samples.get("accuracy", samples.get("dataset"))
        if isinstance(count, dict):
            count = count.get(scenario, samples.get("dataset"))
        return count

    def min_queries(self, model: str, scenario: str) -> int | None:
        return (self.model(model) or {}).get("min_queries", {}).get(scenario)

    def offline_min_samples_per_query(self, model: str) -> int | None:
        return (self.model(model) or {}).get("offline_min_samples_per_query")

    def latency(self, model: str, scenario: str) -> dict[str, int] | None:
        """Latency limits of the folder's scenario: {target_ns} or {ttft_ns, tpot_ns}."""
        return (self.model(model) or {}).get("latency", {}).get(scenario)

    def compliance_tests(self, model: str) -> list[str]:
        return list((self.model(model) or {}).get("compliance", []))

    def equal_issue(self, model: str) -> bool | None:
        return (self.model(model) or {}).get("equal_issue")

    def metric(self, model: str, scenario: str) -> Metric | None:
        facts = self.model(model) or {}
        override = facts.get("metric_overrides", {}).get(scenario)
        chosen = override or self.data["metric_sets"].get(facts.get("metrics", "default"), {}).get(scenario)
        if chosen is None:
            chosen = self.data["metric_sets"]["default"].get(scenario)
        return Metric(**chosen) if chosen else None

    @property
    def endpoints(self) -> dict[str, Any]:
        return self.data.get("endpoints", {})

    def endpoints_metric(self, model: str, scenario: str) -> Metric | None:
        """The headline metric of an Endpoints result: result_summary.json's key for it."""
        sets = self.endpoints.get("metric_sets", {})
        facts = self.model(model) or {}
        chosen = sets.get(facts.get("metrics", "default"), {}).get(scenario) or sets.get("default", {}).get(scenario)
        return Metric(**chosen) if chosen else None

    @property
    def results_root(self) -> str:
        """The folder, inside a submitter's folder, that holds `<system>/<benchmark>/<scenario>`."""
        return self.layout["result"].split("/{system}")[0]

    def compliance_spec(self, test: str) -> dict[str, Any] | None:
        return self.data.get("compliance", {}).get("tests", {}).get(test)

    @property
    def compliance_divisions(self) -> list[str]:
        return list(self.data.get("compliance", {}).get("required_in", []))

    @property
    def power(self) -> dict[str, Any] | None:
        return self.data.get("power")

    def test01_delta_percent(self, model: str, gate: Gate) -> float | None:
        """How far TEST01's compliance accuracy may differ from the baseline, in percent:
        the model's own table, else what the gate's factor allows (99% -> 1%)."""
        table = (self.model(model) or {}).get("test01_delta_percent", {})
        if gate.metric in table:
            return float(table[gate.metric])
        if gate.factor is not None and gate.factor < 1:
            return round((1 - gate.factor) * 100, 10)
        return None

    def severity(self, code: str) -> Severity | None:
        """The round's own severity for a rule, where its file sets one (`severities:`)."""
        value = self.data.get("severities", {}).get(code)
        if isinstance(value, dict):
            value = value.get("severity")
        return Severity(value) if value else None

    def severity_reason(self, code: str) -> str | None:
        """Why the round gives a rule its own severity, where the round file says."""
        value = self.data.get("severities", {}).get(code)
        return value.get("why") if isinstance(value, dict) else None

    def uses_early_stopping(self, scenario: str) -> bool:
        return scenario in self.run.get("early_stopping_scenarios", [])

    def early_stopping(self) -> dict[str, float] | None:
        """Loadgen's early-stopping constants {confidence, tolerance}, or None when the round
        file does not state them."""
        facts = self.run.get("early_stopping")
        return {k: v for k, v in facts.items() if k != "source"} if facts else None

    def inference(self, logged: str, folder: str) -> dict[str, Any] | None:
        """How a `folder` scenario's metric is inferred from a run of the `logged` scenario,
        or None when the round does not allow that inference."""
        for entry in self.data.get("inferred_scenarios", {}).get("rules", []):
            if entry["from"] == logged and entry["to"] == folder:
                return entry
        return None

    @property
    def inference_system_types(self) -> list[str]:
        return list(self.data.get("inferred_scenarios", {}).get("system_types", []))

    def inference_allowed(self, system_type: str | None, policy: bool = False) -> bool:
        """Whether a system of this type may infer results: as the round's checker judged it,
        or (`policy`) as the written rules say, where they are stricter."""
        facts = self.data.get("inferred_scenarios", {})
        types = facts.get("policy_system_types" if policy else "system_types", [])
        if policy and not types:
            return True
        if not types:
            return True
        kind = (system_type or "").replace(" ", "").lower()
        if facts.get("system_type_match") == "contains" and not policy:
            return any(t in kind for t in types)
        return kind in types

    @property
    def preparation(self) -> dict[str, Any] | None:
        """What the round's own tools do to a submission before upload (`prepare:`:
        truncation, failing results, inference), or None when the round file does not say."""
        return self.data.get("prepare")

    def layout_path(self, name: str, **parts: str) -> str | None:
        """A layout template filled in; None when the round has no such path."""
        template = self.layout.get(name)
        if not isinstance(template, str):
            return None
        if "{result}" in template:
            parts = {**parts, "result": self.layout["result"].format(**parts)}
        return template.format(**parts)
