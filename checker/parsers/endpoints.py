"""The MLPerf Endpoints harness files: `config.yaml`, `performance/result_summary.json` and
`accuracy/accuracy_results.json` (format: mlcommons/endpoints report directory; see
reference/ECOSYSTEM.md section 3). Times are nanoseconds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from .. import yamlsafe
from . import MAX_DEPTH, Defect, jsonkeys, nests_deeper, number
from .typed import declaration, defect, pointer

_ABSENT = object()


def dotted_path(data: Any, dotted: str) -> tuple[str, ...] | None:
    """The keys `a.b.c` names in nested dicts; keys may themselves hold dots (percentiles use
    "99.0"), so the longest key that matches at each level wins. None when nothing is there.
    One look at each level's keys: linear in the size of the data."""
    node, rest, path = data, dotted, []
    while rest:
        if not isinstance(node, dict):
            return None
        for key in sorted((k for k in node if isinstance(k, str)), key=len, reverse=True):
            if rest == key or rest.startswith(key + "."):
                node, rest = node[key], rest[len(key) + 1 :]
                path.append(key)
                break
        else:
            return None
    return tuple(path)


def _dig(data: Any, dotted: str, absent: Any = None) -> Any:
    """The value at `dotted` (dotted_path), `absent` when nothing is there."""
    path = dotted_path(data, dotted)
    if path is None:
        return absent
    for key in path:
        data = data[key]
    return data


def _typed_paths(data: dict[str, Any], kind: str) -> list[Defect]:
    """The declared fields of a file read by dotted paths (typed.KINDS `kind`), each read
    as `get` reads it: a field present that breaks its declaration is a FIL012 defect
    pointing at its dotted path. An absent field is left to the rule that needs it."""
    found = []
    for dotted, check in declaration(kind).leaves.items():
        value = _dig(data, dotted, _ABSENT)
        if value is not _ABSENT:
            found += [defect(problem, point=dotted) for problem in check(value, (dotted,))]
    return found


def _typed_tree(data: dict[str, Any], kind: str) -> list[Defect]:
    """The declared fields of a JSON file read by their place in it: each one that breaks
    its declaration is a FIL012 defect pointing at its JSON pointer."""
    return [defect(problem, point=pointer(problem.path)) for problem in declaration(kind).problems(data)]


@dataclass
class EndpointsSummary:
    """`result_summary.json`: the run's state, counts, throughput and latency blocks. Read
    through `parse_result_summary`, every declared field is of its declared type
    (schemas/endpoints_summary.schema.json), or None when absent."""

    data: dict[str, Any] = field(default_factory=dict)

    def get(self, dotted: str) -> Any:
        return _dig(self.data, dotted)

    def p99(self, block: str) -> tuple[float | None, str]:
        """The p99 of a latency block (`ttft`, `tpot`, `latency`) as the round's checker reads
        it: the early-stopping estimate (ENDPOINTS_MAPPINGS), and where it was read."""
        key = f"{block}.early_stopping_percentiles.99.0"
        return self.get(key), key


@dataclass
class EndpointsConfig:
    """`config.yaml`: the resolved run configuration. Read through `parse_endpoints_config`,
    every declared setting is of its declared type (schemas/endpoints_config.schema.json),
    or None when absent."""

    data: dict[str, Any] = field(default_factory=dict)

    def get(self, dotted: str) -> Any:
        return _dig(self.data, dotted)

    @property
    def scenario_type(self) -> str | None:
        value = self.get("type")
        return value.lower() if value is not None else None


@dataclass
class EndpointsAccuracy:
    """`accuracy_results.json`: the average and one score per dataset. Read through
    `parse_accuracy_results`, every score and count is of its declared type
    (schemas/endpoints_accuracy.schema.json)."""

    data: dict[str, Any] = field(default_factory=dict)

    @property
    def scores(self) -> list[dict[str, Any]]:
        """The accuracy datasets' entries (dataset_type `accuracy`, or untyped)."""
        entries = self.data.get("accuracy_scores")
        if not isinstance(entries, list):
            return []
        return [e for e in entries if isinstance(e, dict) and e.get("dataset_type", "accuracy") == "accuracy"]

    @property
    def score(self) -> Any:
        """The first dataset entry's `score`, as the round's checker reads it (its
        `accuracy_score`, whatever the entry's dataset type), or None."""
        entries = self.data.get("accuracy_scores")
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and entry.get("score") is not None:
                return entry["score"]
        return None

    def value(self, *names: str) -> float | None:
        """A named metric: at the top level, or in a dataset entry or its `breakdown`."""
        return self.where(*names)[0]

    def where(self, *names: str) -> tuple[float | None, str | None]:
        """`value`, and the JSON pointer of the member it was read from (None when absent)."""
        places: list[tuple[Any, str]] = [(self.data, "")]
        entries = self.data.get("accuracy_scores")
        for index, entry in enumerate(entries if isinstance(entries, list) else []):
            if isinstance(entry, dict) and entry.get("dataset_type", "accuracy") == "accuracy":  # as `scores`
                at = f"/accuracy_scores/{index}"
                places += [
                    (entry, at),
                    (entry.get("score"), f"{at}/score"),
                    (entry.get("breakdown"), f"{at}/breakdown"),
                ]
        for place, at in places:
            if isinstance(place, dict):
                for name in names:
                    found = number(place.get(name))
                    if found is not None:
                        return found, f"{at}/{pointer((name,))[1:]}"
        return None, None

    @property
    def headline(self) -> float | None:
        """The single score of a one-metric model: `average_accuracy`, else the one dataset's."""
        average = number(self.data.get("average_accuracy"))
        if average is not None:
            return average
        scores = [number(e.get("score")) for e in self.scores]
        return scores[0] if len(scores) == 1 else None

    @property
    def sample_count(self) -> int | None:
        """The accuracy datasets' samples as the round's checker counts them: the sum of each
        `accuracy` (or untyped) entry's total_samples, else its response_counts.issued."""
        counts = []
        for entry in self.scores:  # typed: counts are whole numbers, response_counts an object
            value = entry.get("total_samples")
            if value is None:
                value = (entry.get("response_counts") or {}).get("issued")
            if value is not None:
                counts.append(value)
        return sum(counts) if counts else None

    @property
    def total_samples(self) -> int | None:
        scores = self.scores
        if not scores:
            return None
        total = 0
        for entry in scores:
            count = entry.get("total_samples", entry.get("unit_samples"))
            if count is None:
                return None
            total += count
        return total


def _object(text: str, what: str, load: Callable[[str], Any]) -> tuple[dict[str, Any], list[Defect]]:
    try:
        data = load(text)
        deep = nests_deeper(data)
    except yamlsafe.YamlError as error:
        return {}, [Defect("FIL007", f"cannot be read as {what}: {error}")]
    except (ValueError, yaml.YAMLError) as error:
        mark = getattr(error, "problem_mark", None)
        line = (mark.line + 1) if mark is not None else getattr(error, "lineno", None)
        return {}, [Defect("FIL007", f"is not valid {what}: {str(error).splitlines()[0]}", line=line)]
    except RecursionError:
        deep = True
    if deep:  # or holds itself (a recursive YAML alias)
        return {}, [Defect("FIL007", f"nests lists or mappings more than {MAX_DEPTH} deep; it was not read as {what}")]
    if not isinstance(data, dict):
        return {}, [Defect("FIL007", f"holds a {type(data).__name__}, not a {what} mapping")]
    return data, []


def _json(twice: list[Defect]) -> Callable[[str], Any]:
    """json.loads that adds each key given twice to `twice` (FIL020)."""

    def loads(text: str) -> Any:
        value, defects = jsonkeys.loads(text)
        twice.extend(defects)
        return value

    return loads


def parse_result_summary(text: str) -> tuple[EndpointsSummary, list[Defect]]:
    twice: list[Defect] = []
    data, defects = _object(text, "JSON", _json(twice))
    return EndpointsSummary(data), defects + twice + _typed_paths(data, "endpoints_summary")


def parse_endpoints_config(text: str) -> tuple[EndpointsConfig, list[Defect]]:
    data, defects = _object(text, "YAML", lambda t: yamlsafe.loads(t, "the file"))
    return EndpointsConfig(data), defects + _typed_paths(data, "endpoints_config")


def parse_accuracy_results(text: str) -> tuple[EndpointsAccuracy, list[Defect]]:
    twice: list[Defect] = []
    data, defects = _object(text, "JSON", _json(twice))
    return EndpointsAccuracy(data), defects + twice + _typed_tree(data, "endpoints_accuracy")
