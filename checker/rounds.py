"""Round files: one YAML document of facts per round, validated and typed when loaded.

A round file loads into a `Round`: its facts as the frozen dataclasses of checker/facts.py
(`round.layout.files.detail_log`, `round.models[model].samples`), and the facts derived from
them (`round.latency(model, scenario)`). Rules never compare round names. A fact the round
file does not state is None (or empty), and a rule that needs it does not apply.

Every round file is validated against schemas/round.schema.json. A user's file (given by
path) is validated strictly each time it loads. A bundled file is validated once, by the
test suite, which records its digest (with the schema's and those of the files it extends)
in schemas/round.validated.json: a bundled file whose digest is recorded there is loaded
without jsonschema (its import alone costs a check 0.1 s), and one whose digest is not (it
was edited) is validated when it loads. A bundled file's document comes from
rules/rounds.json when that mirror holds the digest of its text (checker/tools/rounds.py
writes it), else from its YAML. Nothing is written when a round loads: not the
package, not the checked tree, not a cache.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import importlib.util
import json
import os
import pathlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any

from . import typedload, userfiles, yamlsafe
from .errors import UsageError
from .facts import ComplianceTest, Gate, Inference, Latency, Metric, MetricSet, RoundFile, ScenarioRule
from .findings import Severity

if TYPE_CHECKING:
    import jsonschema

SCHEMA = "round.schema.json"
VALIDATED = "round.validated.json"  # bundled round name -> digest (see `digest`)
NOT_ROUNDS = frozenset({"formats.yaml"})  # bundled beside the rounds: other formats' layouts (checker/formats.py)


class RoundError(UsageError):
    """A round file that cannot be found, read or validated (exit code 2)."""


def _schema_text(name: str) -> str:
    return resources.files("checker.schemas").joinpath(name).read_text(encoding="utf-8")


def _schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(_schema_text(name))
    return loaded


def _one_of(values: tuple[str, ...], fold_case: bool = False) -> str:
    """A pattern for exactly one of `values`, with blanks around it and around commas."""

    def spelled(value: str) -> str:
        text = "".join(f"[{c.upper()}{c.lower()}]" if fold_case and c.isalpha() else re.escape(c) for c in value)
        return text.replace(",", r"\s*,\s*").replace(r"\,", r"\s*,\s*")

    return r"^\s*(" + "|".join(spelled(v) for v in values) + r")\s*$"


@functools.cache
def bundled() -> Traversable:
    """The folder of the bundled round files, found without importing `checker.rules`: the
    package imports every rule family beside them (0.1 s that listing rounds need not pay)."""
    spec = importlib.util.find_spec("checker.rules")
    places = spec.submodule_search_locations if spec is not None else None
    return pathlib.Path(places[0]) if places else resources.files("checker.rules")


def available_rounds() -> list[str]:
    names = []
    for entry in bundled().iterdir():
        if entry.name.endswith(".yaml") and not entry.name.startswith("loadgen_") and entry.name not in NOT_ROUNDS:
            names.append(entry.name[: -len(".yaml")])
    return sorted(names, key=_round_order)


def _round_order(name: str) -> tuple[list[int], int, str]:
    numbers = [int(n) for n in re.findall(r"\d+", name)]
    # Profiles (demo-v6.1) sort before the real round they extend.
    return (numbers, 0 if "-" in name else 1, name)


@functools.cache
def is_profile(name: str) -> bool:
    """Whether a bundled round file is a profile (it sets `profile:` or `extends:`): it adapts
    a real round for a purpose, such as a demo with short runs, and is never a round itself."""
    document, _, _ = _read_document(name)
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


def _read_document(name_or_path: str) -> tuple[dict[str, Any], str, str]:
    """(document, origin, text) of one round file, not resolved; callers copy before changing.
    A bundled file is read once; a user's file each time, as it is now."""
    if not is_path(name_or_path):
        return _bundled_document(name_or_path)
    try:
        text = yamlsafe.read_regular(name_or_path, what="round file")
    except yamlsafe.YamlError as error:
        raise RoundError(str(error)) from None
    return _parsed(text, name_or_path), name_or_path, text


@functools.cache
def _bundled_document(name: str) -> tuple[dict[str, Any], str, str]:
    entry = bundled().joinpath(f"{name}.yaml")
    if not entry.is_file():
        from .suggest import closest

        close = closest(name, available_rounds())
        hint = f"; did you mean `{close}`?" if close else ""
        raise RoundError(f"unknown round {name!r}; known rounds: {', '.join(available_rounds())}{hint}")
    text = entry.read_text(encoding="utf-8")
    origin = f"rules/{name}.yaml"
    # From the mirror when it holds this very text (rules/rounds.json, checked current by
    # tests/test_startup.py), else the safe loader alone: a bundled file is the package's own
    # (that test reads each both ways and finds them equal), so start-up does not pay for the
    # strict reading.
    document = _mirrored(f"{name}.yaml", text)
    if document is None:
        document = yamlsafe.load_package_data(text)
    if not isinstance(document, dict):
        raise RoundError(f"{origin} does not hold a mapping")
    return document, origin, text


MIRROR = "rounds.json"  # the bundled round files' documents (checker/tools/rounds.py writes it)


def text_digest(text: str) -> str:
    """What the mirror keys a bundled file's document by: the sha256 of its text (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.cache
def _mirror() -> dict[str, Any]:
    """The mirror's entries by file name; none when it is absent or unreadable (each file
    is then parsed). The mirror is the package's own build output, trusted as a .pyc is for
    the source it names: tests/test_startup.py holds each document equal to its YAML's."""
    try:
        files = json.loads(bundled().joinpath(MIRROR).read_text(encoding="utf-8")).get("files")
    except (OSError, ValueError, AttributeError, RecursionError):
        return {}
    return files if isinstance(files, dict) else {}


def _mirrored(name: str, text: str) -> dict[str, Any] | None:
    """The mirror's document of the bundled file `name` when its entry is of this very text
    and holds a mapping; else None (the YAML is parsed)."""
    entry = _mirror().get(name)
    if not isinstance(entry, dict) or entry.get("sha256") != text_digest(text):
        return None
    document = entry.get("document")
    return document if isinstance(document, dict) else None


def _parsed(text: str, origin: str) -> dict[str, Any]:
    try:
        # strict (checker.userfiles): a key given twice or a number that is not finite names its line
        document, _ = userfiles.parse(text, origin)
    except userfiles.UserFileError as error:
        raise RoundError(str(error)) from None
    if not isinstance(document, dict):
        raise RoundError(f"{origin} does not hold a mapping")
    return document


def _merge(base: Any, override: Any) -> Any:
    """Deep-merge mappings; any other value in `override` replaces the base value."""
    if isinstance(base, dict) and isinstance(override, dict):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = _merge(base.get(key), value) if key in base else value
        return merged
    return override


def _resolve(name_or_path: str, seen: tuple[str, ...] = ()) -> tuple[dict[str, Any], str, list[str]]:
    """(document with what it extends merged in, origin, the texts of each file read)."""
    document, origin, text = _read_document(name_or_path)
    document = dict(document)
    parent = document.pop("extends", None)
    if parent is None:
        return document, origin, [text]
    if not isinstance(parent, str):
        raise RoundError(f"{origin}: `extends` must name a round or a round file, not {parent!r}")
    if is_path(name_or_path) and is_path(parent) and not os.path.isabs(parent):
        # as config paths are: read beside the file that names them, whatever the cwd
        parent = os.path.normpath(os.path.join(os.path.dirname(name_or_path), parent))
    if parent in seen:
        chain = " -> ".join((*seen, os.path.normpath(name_or_path), parent))
        raise RoundError(f"{origin}: round files extend each other in a loop ({chain})")
    try:
        base, _, texts = _resolve(parent, seen + (os.path.normpath(name_or_path),))
    except RoundError as error:
        raise RoundError(f"{origin} extends {parent!r}: {error}") from None
    claimed, inherited = document.get("round"), base.get("round")
    merged = _merge(base, document)
    if (
        is_path(name_or_path)
        and claimed in available_rounds()
        and claimed != inherited
        and {**merged, "extends": parent} != {**_resolve(claimed)[0], "extends": parent}
    ):
        raise RoundError(
            f"{origin}: says `round: {claimed}` but extends {parent!r}, which holds the facts of {inherited}; "
            f"a round file of yours keeps the name of the round it extends, or takes a name of its own"
        )
    merged["extends"] = parent
    return merged, origin, [text, *texts]


def document(name_or_path: str) -> dict[str, Any]:
    """A round file's document as written, with what it extends merged in: what the schema
    validates (a copy, for tests and tools that write round files)."""
    return copy.deepcopy(_resolve(name_or_path)[0])


def digest(texts: list[str]) -> str:
    """What schemas/round.validated.json records of a bundled round that validated: the
    sha256 of the schema and of the text of each file it is made of."""
    hashed = hashlib.sha256(_schema_text(SCHEMA).encode())
    for text in texts:
        hashed.update(b"\0" + text.encode())
    return hashed.hexdigest()


@functools.cache
def validated() -> dict[str, str]:
    """The digests of the bundled rounds that validated (schemas/round.validated.json)."""
    recorded: dict[str, str] = _schema(VALIDATED)["rounds"]
    return recorded


@functools.lru_cache(maxsize=16)
def load_round(name_or_path: str) -> Round:
    document, origin, texts = _resolve(name_or_path)
    if is_path(name_or_path) or validated().get(name_or_path) != digest(texts):
        _validate(document, origin, texts[0])
    try:
        return typedload.build(Round, document, "", origin=origin)
    except typedload.ShapeError as error:  # the schema allows what facts.py cannot hold
        raise RoundError(f"{origin}: {error}") from None


def _validate(document: dict[str, Any], origin: str, text: str) -> None:
    """A RoundError at the first place the document breaks schemas/round.schema.json."""
    try:
        userfiles.check(document, SCHEMA, origin, functools.partial(yamlsafe.line_of, text))
    except userfiles.UserFileError as error:
        raise RoundError(str(error)) from None


@dataclass(frozen=True, kw_only=True, eq=False)
class Round(RoundFile):
    """The facts of one round (or of a profile that extends one), and what they imply."""

    origin: str = field(default="", metadata=typedload.NOT_A_FACT)
    # Facts asked for once per result or more, derived once per round (a Round is frozen).
    _gates: dict[tuple[str, str, bool | None], tuple[Gate, ...]] = field(default_factory=dict, init=False, repr=False)
    _scenario_names: dict[str, str | None] = field(default_factory=dict, init=False, repr=False)

    def __repr__(self) -> str:
        return f"Round({self.name!r})"

    @property
    def name(self) -> str:
        return self.round

    @property
    def is_profile(self) -> bool:
        """A profile of a real round (see `is_profile`), not a round of its own."""
        return self.profile is not None or self.extends is not None

    # --- names -------------------------------------------------------------------------
    def auditable(self, division: str, availability: str | None) -> bool:
        """Whether an audit may pick a result of this division and availability (`audit:`)."""
        return division in self.audit.divisions and availability in self.audit.availability

    def scenario_name(self, folder: str) -> str | None:
        """The round's spelling of a scenario folder name (`offline` -> `Offline`), or None when
        the round reads the folder as no scenario: its `scenario_folders: case` says which
        spellings it took, `lower` (the name or its lower-case form) or `any` (any case)."""
        if folder not in self._scenario_names:
            any_case = self.scenario_folders is None or self.scenario_folders.case == "any"
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
        facts = self.models.get(model)
        if facts is None:
            return None
        return {s for rules in facts.scenarios.values() for s in rules.offered}

    @functools.cached_property
    def result_trees(self) -> list[str]:
        """The folders, inside a submitter's folder, that hold <system>/<benchmark>/<scenario>
        folders: results/, and where the round keeps them apart, compliance/ and measurements/."""
        tail = "/{system}/{benchmark}/{scenario}"
        return [
            value[: -len(tail)] for value in self.layout.paths() if value.endswith(tail) and not value.startswith("{")
        ]

    @functools.cached_property
    def layout_names(self) -> frozenset[str]:
        """The fixed names of the round's layout (performance, run_1, accuracy, TEST01, ...):
        every path part of its templates without a placeholder, and the compliance tests."""

        def parts(value: object) -> Iterator[str]:
            if isinstance(value, str):
                yield from (part for part in value.split("/") if part and "{" not in part)
            elif dataclasses.is_dataclass(value):
                for item in _values(value):
                    yield from parts(item)
            elif isinstance(value, tuple):
                for item in value:
                    yield from parts(item)

        tests = self.compliance.tests if self.compliance else {}
        return frozenset(parts(self.layout)) | frozenset(tests)

    def canonical_model(self, benchmark: str, extra_mapping: dict[str, str] | None = None) -> str | None:
        """The round's model for a benchmark folder name, or None when the round has none: the
        name itself, the round's mapping, the submitter's mapping, then the round's substring
        guesses (looked up in the round's mapping again), in the order its checker tries them."""
        models = self.models
        if benchmark in models:
            return benchmark
        for mapping in (self.model_mapping, extra_mapping or {}):
            target = mapping.get(benchmark)
            if isinstance(target, str) and target:
                return target if target in models else None
        guessed = benchmark
        for guess in self.model_guesses.rules if self.model_guesses else ():
            if any(part in benchmark for part in guess.contains):
                guessed = guess.model
                break
        guessed = self.model_mapping.get(guessed, guessed)
        return guessed if guessed in models else None

    # --- facts -------------------------------------------------------------------------
    def ran_loadgen(self, version: tuple[int, ...]) -> bool | None:
        """Whether a loadgen build of `version` (version_numbers) is one the round's results
        ran (`loadgen_versions`); None when the round file does not say."""
        if self.loadgen_versions is None:
            return None
        return any(
            _padded(version_numbers(r.from_)) <= _padded(version) <= _padded(version_numbers(r.to))
            for r in self.loadgen_versions.ranges
        )

    @functools.cached_property
    def system_schema(self) -> dict[str, Any]:
        """The JSON Schema a system description of this round meets: the shapes of
        schemas/<system_description.schema> (types, messages, `x-code`s), with the round's own
        lists put in: the required fields, those that need a meaningful value, the whole
        numbers, the network fields, and the availability categories and system types."""
        facts = self.system_description
        if facts.schema is None:
            raise RoundError(f"{self.origin}: system_description names no schema")
        schema = copy.deepcopy(_schema(facts.schema))
        properties = schema["properties"]
        shapes = schema["$defs"]  # the shapes the lists below give their fields
        schema["required"] = list(facts.required)
        for name in facts.meaningful:
            if "x-code" not in properties.get(name, {}) and name not in facts.numeric:
                properties[name] = copy.deepcopy(shapes["meaningful"])
        for name in facts.numeric:
            properties[name] = copy.deepcopy(shapes["whole_number"])
        schema["allOf"][0]["then"]["required"] = ["is_network", *[f for f in facts.network if f != "is_network"]]
        properties["status"]["pattern"] = _one_of(self.availability.values, fold_case=True)
        properties["system_type"]["pattern"] = _one_of(self.system_types.values)
        return schema

    @functools.cached_property
    def system_validator(self) -> jsonschema.Draft202012Validator:
        import jsonschema

        return jsonschema.Draft202012Validator(self.system_schema)

    def min_duration_ms(self, model: str) -> int:
        facts = self.models.get(model)
        own = facts.min_duration_ms if facts else None
        return self.run.min_duration_ms if own is None else own

    def scenario_rules(self, model: str, system_type: str) -> ScenarioRule | None:
        """The scenarios of a model on a system type, or None when the model is not offered
        on that type."""
        facts = self.models.get(model)
        if facts is None:
            return None
        rules = facts.scenarios.get(system_type)
        if rules is None and "," in system_type:
            rules = facts.scenarios.get(",".join(reversed(system_type.split(","))))
        return rules

    def gates(self, model: str, scenario: str, applied: bool | None = True) -> list[Gate]:
        """The model's accuracy bounds for a scenario: those the round applied (default),
        the policy-only ones (`applied=False`), or all (`applied=None`)."""
        key = (model, scenario, applied)
        if key not in self._gates:
            facts = self.models.get(model)
            self._gates[key] = tuple(
                gate
                for gate in (facts.accuracy if facts else ())
                if (gate.scenarios is None or scenario in gate.scenarios) and applied in (None, gate.applied)
            )
        return list(self._gates[key])

    def accuracy_patterns_of(self, model: str, scenario: str) -> dict[str, str]:
        """metric -> the round's accuracy.txt pattern, for every metric the model's gates
        and table name (its checker's ACC_PATTERN)."""
        names = [g.metric for g in self.gates(model, scenario, applied=None)]
        return {name: self.accuracy_patterns[name] for name in names if name in self.accuracy_patterns}

    @property
    def accuracy_divisions(self) -> tuple[str, ...]:
        """Divisions whose accuracy is gated; elsewhere it is only reported."""
        return self.divisions if self.accuracy_gated_in is None else self.accuracy_gated_in

    def table_metrics(self, model: str, scenario: str) -> list[tuple[str, str | None]]:
        """(metric, Endpoints key) of each metric the published table shows: those with a
        lower bound the round applied (its checker prints its accuracy targets)."""
        return [(g.metric, g.key) for g in self.gates(model, scenario) if g.factor is not None]

    def accuracy_sample_count(self, model: str, scenario: str) -> int | None:
        facts = self.models.get(model)
        if facts is None:
            return None
        count = facts.samples.accuracy
        if count is None:
            return facts.samples.dataset
        return count.get(scenario, facts.samples.dataset) if not isinstance(count, int) else count

    def latency(self, model: str, scenario: str) -> Latency | None:
        """Latency limits of the folder's scenario: a p99 target, or TTFT and TPOT limits."""
        facts = self.models.get(model)
        return facts.latency.get(scenario) if facts else None

    def compliance_tests(self, model: str) -> tuple[str, ...]:
        facts = self.models.get(model)
        return facts.compliance if facts else ()

    def _metric_set(self, sets: Mapping[str, MetricSet], model: str, scenario: str) -> Metric | None:
        facts = self.models.get(model)
        chosen = sets.get(facts.metrics if facts and facts.metrics else "default", {}).get(scenario)
        return chosen or sets.get("default", {}).get(scenario)

    def metric(self, model: str, scenario: str) -> Metric | None:
        facts = self.models.get(model)
        override = facts.metric_overrides.get(scenario) if facts else None
        return override or self._metric_set(self.metric_sets, model, scenario)

    def endpoints_metric(self, model: str, scenario: str) -> Metric | None:
        """The headline metric of an Endpoints result: result_summary.json's key for it."""
        return self._metric_set(self.endpoints.metric_sets, model, scenario) if self.endpoints else None

    @property
    def results_root(self) -> str:
        """The folder, inside a submitter's folder, that holds `<system>/<benchmark>/<scenario>`."""
        return self.layout.result.split("/{system}")[0]

    @property
    def compliance_divisions(self) -> tuple[str, ...]:
        return self.compliance.required_in if self.compliance else ()

    def compliance_test(self, test: str) -> ComplianceTest | None:
        """A compliance test's facts, or None where the round has none."""
        return self.compliance.tests.get(test) if self.compliance else None

    def test01_delta_percent(self, model: str, gate: Gate) -> float | None:
        """How far TEST01's compliance accuracy may differ from the baseline, in percent:
        the model's own table, else what the gate's factor allows (99% -> 1%)."""
        facts = self.models.get(model)
        table = facts.test01_delta_percent if facts else {}
        if gate.metric in table:
            return float(table[gate.metric])
        if gate.factor is not None and gate.factor < 1:
            return round((1 - gate.factor) * 100, 10)
        return None

    def severity(self, code: str) -> Severity | None:
        """The round's own severity for a rule, where its file sets one (`severities:`)."""
        value = self.severities.get(code)
        if value is None:
            return None
        return Severity(value if isinstance(value, str) else value.severity)

    def severity_reason(self, code: str) -> str | None:
        """Why the round gives a rule its own severity, where the round file says."""
        value = self.severities.get(code)
        return None if value is None or isinstance(value, str) else value.why

    def inference(self, logged: str | None, folder: str | None) -> Inference | None:
        """How a `folder` scenario's metric is inferred from a run of the `logged` scenario,
        or None when the round does not allow that inference."""
        rules = self.inferred_scenarios.rules if self.inferred_scenarios else ()
        return next((rule for rule in rules if rule.from_ == logged and rule.to == folder), None)

    def inference_allowed(self, system_type: str | None, policy: bool = False) -> bool:
        """Whether a system of this type may infer results: as the round's checker judged it,
        or (`policy`) as the written rules say, where they are stricter."""
        facts = self.inferred_scenarios
        if facts is None:
            return True
        types = facts.policy_system_types if policy else facts.system_types
        if not types:
            return True
        kind = (system_type or "").replace(" ", "").lower()
        if facts.system_type_match == "contains" and not policy:
            return any(t in kind for t in types)
        return kind in types

    def layout_path(self, name: str, **parts: str) -> str | None:
        """A layout template filled in; None when the round has no such path."""
        template = getattr(self.layout, name, None)
        if not isinstance(template, str):
            return None
        if "{result}" in template:
            parts = {**parts, "result": self.layout.result.format(**parts)}
        return template.format(**parts)


def _values(facts: object) -> Iterator[object]:
    """The values of a dataclass's facts, `source` aside."""
    for item in typedload.facts_of(type(facts)):
        if item.name != "source":
            yield getattr(facts, item.name)
