"""The submission model: divisions, submitters, systems and results found in a tree.

Discovery only lists folders; it reads no file except the open division's
`model_mapping.json`. Artefacts are read lazily, through a `Reader`, when a rule asks.
Paths inside a submission come from the round's `layout`, so a round that moves
`compliance/` or `measurements/` needs a new round file, not new code.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .findings import Finding, Severity
from .parsers import Malformed
from .parsers.accuracy import AccuracyReport, parse_accuracy
from .parsers.endpoints import (
    EndpointsAccuracy,
    EndpointsConfig,
    EndpointsSummary,
    parse_accuracy_results,
    parse_endpoints_config,
    parse_result_summary,
)
from .parsers.mllog import LoadgenLog
from .parsers.text import (
    Summary,
    Verdict,
    parse_conf,
    parse_spl,
    parse_summary,
    parse_timestamp,
    parse_verify,
    timestamp_microseconds,
)
from .reader import Reader
from .registry import RULES
from .rounds import Round
from .tree import Kind, Tree, join


@dataclass(frozen=True)
class Context:
    """What a check was given besides the tree and the round, for the rules that use it."""

    provenance: Any = None  # the Source the PRV rules judge loadgen builds by (checker/provenance.py)


@dataclass
class Submission:
    """One `<division>/<submitter>` folder."""

    tree: Tree
    round: Round
    division: str
    submitter: str
    context: Context = field(default_factory=Context)
    findings: list[Finding] = field(default_factory=list)
    cache: dict[str, Any] = field(default_factory=dict)  # values several rules derive once

    @property
    def rel(self) -> str:
        return join(self.division, self.submitter)

    @functools.cached_property
    def reader(self) -> Reader:
        return Reader(self.tree, "", self.findings, subject=self.rel)

    @functools.cached_property
    def model_mapping(self) -> dict[str, str]:
        """The submitter's benchmark-name mapping, in the divisions where the round reads it
        (the open division), when present and readable."""
        spec = self.round.submitter_model_mapping
        if spec is None or self.division not in spec.divisions:
            return {}
        data = self.reader.json(join(self.rel, spec.file), required=False, what=spec.file)
        if not isinstance(data, dict):
            return {}
        return {str(k): v for k, v in data.items() if isinstance(v, str)}

    def path(self, name: str, **parts: str) -> str | None:
        inner = self.round.layout_path(name, **parts)
        return join(self.rel, inner) if inner is not None else None

    @functools.cached_property
    def systems_with_results(self) -> frozenset[str]:
        """The names of the systems with a folder under results/ (of folders whose names
        differ only in case, the one the round names: `entered`)."""
        return frozenset(entered(self.tree.subdirs(join(self.rel, self.round.results_root)), self.names_system))

    @functools.cached_property
    def described_systems(self) -> frozenset[str]:
        """The systems with a description, as its file name spells them (systems/<name>.json)."""
        folder, _, _ = self.round.layout.system_json.rpartition("/")
        return frozenset(
            name
            for entry in self.tree.listdir(join(self.rel, folder))
            if entry.kind is Kind.FILE
            for name in [self._described(join(folder, entry.rel.rpartition("/")[2]))]
            if name
        )

    def _described(self, inner: str) -> str | None:
        """The system whose description is at `inner` (relative to the submitter's folder), by
        the layout's `system_json` (systems/{system}.json); None for another path."""
        head, _, tail = self.round.layout.system_json.partition("{system}")
        name = inner[len(head) : len(inner) - len(tail)] if inner.startswith(head) and inner.endswith(tail) else ""
        return name if name and "/" not in name else None

    # --- names as the round spells them (folders that differ only in case) -------------
    def names_system(self, name: str) -> bool:
        """Whether the layout names a system folder so: its description has that very name."""
        return name in self.described_systems

    def names_benchmark(self, name: str) -> bool:
        """Whether the round names a benchmark folder so: a model, or a name it maps to one."""
        return self.round.canonical_model(name, self.model_mapping) is not None

    def names_scenario(self, name: str) -> bool:
        return name in self.round.scenarios

    def names_fixed(self, name: str) -> bool:
        return name in self.round.layout_names

    def level_of(self, folder: str) -> str | None:
        """What the folders inside `folder` (a folder of this submission) are, by the round's
        layout: "system", "benchmark" or "scenario" folders of a tree of results (results/,
        and v5.1's compliance/ and measurements/), "fixed" ones (the submitter's own folder
        and the inside of a result: performance, run_1, accuracy, TEST01, ...), or None for
        folders the layout does not name (code, documentation)."""
        if folder == self.rel:
            return "fixed"
        inner = folder[len(self.rel) + 1 :] if folder.startswith(self.rel + "/") else None
        for tree in self.round.result_trees if inner is not None else ():
            if inner == tree or inner.startswith(tree + "/"):
                depth = inner.count("/") - tree.count("/")
                return ("system", "benchmark", "scenario")[depth] if depth < 3 else "fixed"
        return None

    def names(self, level: str) -> Callable[[str], bool]:
        """Whether the round names a folder so, at a `level_of`."""
        return {
            "system": self.names_system,
            "benchmark": self.names_benchmark,
            "scenario": self.names_scenario,
            "fixed": self.names_fixed,
        }[level]

    @functools.cached_property
    def result_locations(self) -> frozenset[str]:
        """The folders of every result of the submission."""
        return frozenset(result.location for system in systems_of(self) for result in results_of(system))

    def result_holding(self, rel: str) -> str | None:
        """The result a path of this submission belongs to (`results_folder_of`): the one whose
        folder is the path or holds it; None when the path is part of no result."""
        folder = self.results_folder_of(rel)
        while folder and folder not in self.result_locations:
            folder = folder.rpartition("/")[0]
        return folder or None

    def results_folder_of(self, rel: str) -> str | None:
        """The folder of results a path of this submission belongs to: the path itself under
        results/; its counterpart there for a path in another tree of results (v5.1's
        compliance/<system>/<benchmark>/<scenario>/...); results/<system> for the system's
        description; None for any other path (code, documentation)."""
        inner = rel[len(self.rel) + 1 :] if rel.startswith(self.rel + "/") else None
        if inner is None:
            return None
        results = self.round.results_root
        for tree in self.round.result_trees:
            if inner == tree or inner.startswith(tree + "/"):
                return join(self.rel, results, inner[len(tree) + 1 :])
        system = self._described(inner)
        return join(self.rel, results, system) if system else None

    @property
    def calibration_places(self) -> list[str]:
        """Where the round looks for the calibration document, in order."""
        return [join(self.rel, rel) for rel in self.round.layout.calibration]

    def walk(self) -> Iterator[tuple[str, list[tuple[str, str, int, Kind | None]]]]:
        """Every folder of the submission, links not followed (Tree.walk)."""
        return self.tree.walk(self.rel)


@dataclass
class System:
    submission: Submission
    name: str
    findings: list[Finding] = field(default_factory=list)
    cache: dict[str, Any] = field(default_factory=dict)  # values several rules derive once

    @property
    def key(self) -> str:
        return join(self.submission.rel, "systems", self.name)

    @property
    def json_path(self) -> str:
        return self.submission.path("system_json", system=self.name)

    @functools.cached_property
    def reader(self) -> Reader:
        return Reader(self.submission.tree, "", self.findings, subject=self.key)

    @functools.cached_property
    def description(self) -> dict[str, Any] | None:
        data = self.reader.json(self.json_path, what="system description")
        if data is None:
            return None
        if not isinstance(data, dict):
            self.reader.report("FIL007", self.json_path, "system description is JSON but not an object", pointer="")
            return None
        return data

    @property
    def system_type(self) -> str | None:
        desc = self.description or {}
        value = desc.get("system_type")
        return value.strip().replace(" ", "") if isinstance(value, str) else None


@dataclass
class Result:
    """One `results/<system>/<benchmark>/<scenario>` folder."""

    system: System
    benchmark: str
    scenario_folder: str
    findings: list[Finding] = field(default_factory=list)
    cache: dict[str, Any] = field(default_factory=dict)  # values several rules derive once

    @property
    def submission(self) -> Submission:
        return self.system.submission

    @property
    def round(self) -> Round:
        return self.submission.round

    @property
    def tree(self) -> Tree:
        return self.submission.tree

    @property
    def context(self) -> Context:
        return self.submission.context

    @property
    def parts(self) -> dict[str, str]:
        return {"system": self.system.name, "benchmark": self.benchmark, "scenario": self.scenario_folder}

    @functools.cached_property
    def location(self) -> str:
        return self.submission.path("result", **self.parts)

    @property
    def division(self) -> str:
        return self.submission.division

    @functools.cached_property
    def scenario(self) -> str | None:
        """The round's spelling of the folder's scenario, or None when unknown."""
        return self.round.scenario_name(self.scenario_folder)

    @functools.cached_property
    def model(self) -> str | None:
        """The round's model this benchmark folder maps to, or None."""
        return self.round.canonical_model(self.benchmark, self.submission.model_mapping)

    @functools.cached_property
    def reader(self) -> Reader:
        return Reader(self.tree, self.location, self.findings)

    def path(self, name: str, *more: str) -> str | None:
        key = ("path", name)  # the layout folders, filled in once per result
        if key not in self.cache:
            self.cache[key] = self.submission.path(name, **self.parts)
        base = self.cache[key]
        return join(base, *more) if base is not None else None

    def file(self, folder: str, role: str) -> str | None:
        """The round's `role` file (layout `files`: detail_log, summary_log, accuracy_log,
        accuracy_report, power_samples, user_conf) in the result's layout folder `folder`."""
        return self.path(folder, self.round.layout.files.named(role))

    def compliance_file(self, test: str, role: str) -> str:
        """The round's `role` file of a compliance test's own run (compliance/<test>/<compliance_run>)."""
        layout = self.round.layout
        return join(self.compliance_dir(test), layout.compliance_run, layout.files.named(role))

    def endpoints_file(self, role: str, **parts: str) -> str | None:
        """An Endpoints result's file (layout `endpoints`: config, accuracy, audit), or None
        in a round without Endpoints results."""
        spec = self.round.layout.endpoints
        if not spec:
            return None
        return join(
            self.location, {"config": spec.config, "accuracy": spec.accuracy, "audit": spec.audit}[role].format(**parts)
        )

    # --- which harness wrote it --------------------------------------------------------
    @functools.cached_property
    def is_endpoints(self) -> bool:
        """Results written by the MLPerf Endpoints harness: no loadgen detail logs, and an
        endpoints `config.yaml` or `performance/result_summary.json` instead."""
        if not self.round.layout.endpoints:
            return False
        loadgen = any(
            self.reader.exists(p)
            for p in (self.file("performance", "detail_log"), self.file("accuracy", "detail_log"))
            if p
        )
        if loadgen:
            return False
        return self.reader.exists(self.endpoints_file("config")) or self.endpoints_summary_path is not None

    @functools.cached_property
    def endpoints_summary_path(self) -> str | None:
        """The first of the round's Endpoints summaries that exists: `performance/result_summary.json`,
        or the `performance/run_1/` variant that publish_submission.py writes (accepted; EPT001 warns)."""
        for rel in self.endpoints_summary_paths:
            if self.reader.exists(rel):
                return rel
        return None

    @property
    def endpoints_summary_paths(self) -> list[str]:
        """Where the round's layout puts an Endpoints summary, the agreed place first."""
        spec = self.round.layout.endpoints
        return [join(self.location, rel) for rel in spec.summary] if spec else []

    @functools.cached_property
    def endpoints_summary(self) -> EndpointsSummary | None:
        if not self.is_endpoints:
            return None
        rel = self.endpoints_summary_path or self.endpoints_summary_paths[0]
        return self.reader.parsed(rel, parse_result_summary, what="endpoints result_summary.json")

    @functools.cached_property
    def endpoints_config(self) -> EndpointsConfig | None:
        if not self.is_endpoints:
            return None
        return self.reader.parsed(self.endpoints_file("config"), parse_endpoints_config, what="endpoints config.yaml")

    @functools.cached_property
    def endpoints_accuracy(self) -> EndpointsAccuracy | None:
        if not self.is_endpoints:
            return None
        return self.reader.parsed(
            self.endpoints_file("accuracy"), parse_accuracy_results, what="endpoints accuracy_results.json"
        )

    # --- artefacts ---------------------------------------------------------------------
    @functools.cached_property
    def performance_log(self) -> LoadgenLog | None:
        if self.is_endpoints:
            return None
        return self.reader.mllog(self.file("performance", "detail_log"), what="performance detail log")

    @functools.cached_property
    def performance_summary(self) -> Summary | None:
        if self.is_endpoints:
            return None
        return self.reader.parsed(self.file("performance", "summary_log"), parse_summary, what="performance summary")

    @functools.cached_property
    def accuracy_log(self) -> LoadgenLog | None:
        if self.is_endpoints:
            return None
        return self.reader.mllog(self.file("accuracy", "detail_log"), what="accuracy detail log")

    def read_accuracy(self, rel: str, what: str = "accuracy.txt", required: bool = True) -> AccuracyReport | None:
        """An accuracy.txt-shaped file, read with the round's patterns for this result's model."""
        patterns = self.round.accuracy_patterns_of(self.model, self.scenario or "") if self.model else {}
        return self.reader.parsed(
            rel, lambda text: parse_accuracy(text, patterns), required=required, what=what, key="accuracy"
        )

    @functools.cached_property
    def accuracy_report(self) -> AccuracyReport | None:
        if self.is_endpoints:
            return None
        return self.read_accuracy(self.file("accuracy", "accuracy_report"))

    @functools.cached_property
    def measurements_dir(self) -> str:
        return self.path("measurements")

    @functools.cached_property
    def user_conf(self) -> dict[str, str] | None:
        if self.is_endpoints:
            return None
        return self.reader.parsed(
            self.file("measurements", "user_conf"), parse_conf, required=False, what="user.conf"
        )  # MSR001 reports it missing

    @functools.cached_property
    def implementation_path(self) -> str | None:
        """The implementation description: the first of the round's names that exists
        (`measurements.json` in v6.x, `<system>.json` or `<system>_<scenario>.json` in v5.x),
        else the folder's only other JSON file (published v5.1 results name it after the
        harness, as the official checker accepts)."""
        folder = self.measurements_dir
        for name in self.implementation_names:
            if self.reader.exists(join(folder, name)):
                return join(folder, name)
        others = [e.rel for e in self.tree.listdir(folder) if e.rel.endswith(".json") and e.kind is Kind.FILE]
        return others[0] if len(others) == 1 else None

    @property
    def implementation_names(self) -> list[str]:
        """The round's names of the implementation description, for this result."""
        return [
            name.format(system=self.system.name, scenario=self.scenario_folder)
            for name in self.round.layout.implementation_description
        ]

    def compliance_dir(self, test: str) -> str:
        return self.path("compliance", test)

    def compliance_log(self, test: str) -> LoadgenLog | None:
        return self.reader.mllog(self.compliance_file(test, "detail_log"), what=f"{test} performance detail log")

    def compliance_runs(self) -> Iterator[tuple[str, str, LoadgenLog]]:
        """(test, path, log) of each compliance run's performance detail log that is
        present, for the tests the round lists for the model."""
        for test in self.round.compliance_tests(self.model) if self.model else []:
            rel = self.compliance_file(test, "detail_log")
            if self.reader.exists(rel):
                log = self.compliance_log(test)
                if log is not None:
                    yield test, rel, log

    def compliance_logs(self) -> Iterator[tuple[str, LoadgenLog]]:
        """(path, log) of each compliance run's performance detail log that is present."""
        for _, rel, log in self.compliance_runs():
            yield rel, log

    def compliance_verdict(self, test: str, kind: str, name: str | None = None) -> Verdict | None:
        name = name or f"verify_{kind}.txt"
        return self.reader.parsed(join(self.compliance_dir(test), name), parse_verify, what=f"{test} {name}")

    # --- what the run measured ----------------------------------------------------------
    @property
    def logged_scenario(self) -> str | None:
        """The scenario loadgen logs for the folder's scenario (the round's `run: logged_as`: an
        Interactive run is a Server run)."""
        scenario = self.scenario
        return self.round.run.logged_as.get(scenario, scenario) if scenario is not None else None

    @property
    def inferred_from(self) -> str | None:
        """The scenario of the run this result was inferred from, when the round allows it."""
        log = self.performance_log
        if log is None or self.scenario is None or log.scenario == self.logged_scenario:
            return None
        return log.scenario if self.round.inference(log.scenario, self.scenario) else None

    def metric(self) -> dict[str, Any] | None:
        """The headline metric as the round defines it (inferred when the result is), or
        None when the log lacks it or a value it is made of broke its declaration (FIL012)."""
        try:
            return self._metric()
        except Malformed:
            return None

    def _metric(self) -> dict[str, Any] | None:
        if self.model is None or self.scenario is None:
            return None
        if self.is_endpoints:
            return self._endpoints_metric()
        source = self.metric_source()
        if self.performance_log is None or source is None:
            return None
        key, units, scale, numerator = source
        value = self.performance_log.get(key)  # typed: a finite number from 0, or None
        if value is None:
            return None  # PRF016 says why
        if numerator is not None:
            rule = self.round.inference(self.inferred_from, self.scenario)
            factor_key = rule.numerator_key if rule else None
            factor = self.performance_log.get(factor_key) if factor_key else 1
            if value == 0 or factor is None:
                return None
            value = numerator * factor / value
        metric = {"value": value * scale, "units": units, "key": key}
        if self.inferred_from:
            metric["inferred_from"] = self.inferred_from
        return metric

    def metric_source(self) -> tuple[str, str, float, float | None] | None:
        """(log key, units, scale, numerator) of the headline metric of a loadgen result, as
        the round defines it for the folder's scenario or for the inference it allows."""
        if self.model is None or self.scenario is None:
            return None
        if self.inferred_from:
            rule = self.round.inference(self.inferred_from, self.scenario)
            if rule is not None:
                return rule.key, rule.units, rule.scale, rule.numerator
        chosen = self.round.metric(self.model, self.scenario)
        return (chosen.key, chosen.units, chosen.scale, None) if chosen else None

    def _endpoints_metric(self) -> dict[str, Any] | None:
        summary = self.endpoints_summary
        chosen = self.round.endpoints_metric(self.model, self.scenario)
        if summary is None or chosen is None:
            return None
        value = summary.get(chosen.key)  # typed: a finite number from 0, or None
        if value is None and chosen.key == "qps":  # the official parser's fallback
            issued, duration = summary.get("n_samples_issued"), summary.get("duration_ns")
            value = issued / (duration / 1e9) if issued is not None and duration else None
        if value is None:
            return None
        return {"value": value * chosen.scale, "units": chosen.units, "key": chosen.key}

    @functools.cached_property
    def has_power(self) -> bool:
        folder = self.path("power")
        return folder is not None and self.reader.is_dir(folder)

    def power_window(self) -> tuple[list[float], float] | None:
        """The positive watt samples of run_1's spl.txt strictly inside loadgen's
        power_begin..power_end, and the window's length in seconds; None when unreadable."""
        if "power_window" in self.cache:
            return self.cache["power_window"]
        window = None
        log = self.performance_log
        samples = self.reader.parsed(self.file("performance", "power_samples"), parse_spl, what="spl.txt")
        if log is not None and samples is not None:
            begin, end = parse_timestamp(log.get("power_begin")), parse_timestamp(log.get("power_end"))
            exact = timestamp_microseconds(log.get("power_begin")), timestamp_microseconds(log.get("power_end"))
            if begin is not None and end is not None and None not in exact:
                window = ([w for t, w in samples if begin < t < end and w > 0], (exact[1] - exact[0]) / 10**6)
        self.cache["power_window"] = window
        return window

    def power_metric(self) -> dict[str, Any] | None:
        """Average watts over the measured window, or energy per query (mJ) in the scenarios
        the round names, per query of the folder's scenario: a result inferred from another
        scenario's run scales the run's energy per query by its inference rule's
        `energy_per_query_factor` (8 SingleStream queries make a MultiStream query); None
        without power results or samples, or when a value it is made of broke its declaration
        (FIL012)."""
        try:
            return self._power_metric()
        except Malformed:
            return None

    def _power_metric(self) -> dict[str, Any] | None:
        if not self.has_power or self.round.power is None:
            return None
        window = self.power_window()
        if not window or not window[0]:
            return None
        watts, seconds = window
        average = math.fsum(watts) / len(watts)  # the round's checker sums in Python 3.12, which is compensated
        if self.scenario in self.round.power.energy_scenarios:
            queries = self.performance_log.get("result_query_count")  # typed: a count, or None
            if not queries:
                return None
            rule = self.round.inference(self.inferred_from, self.scenario)
            factor = rule.energy_per_query_factor if rule else 1
            return {"value": average * seconds * factor * 1000 / queries, "units": "millijoules"}
        return {"value": average, "units": "Watts"}

    def artefact(self, name: str) -> Any:
        """An artefact by name, for rules' `needs` (one of NEEDS["result"])."""
        if name == "system_description":
            return self.system.description
        if name == "loadgen":  # rules of loadgen runs; Endpoints results have their own (EPT)
            return None if self.is_endpoints else True
        return getattr(self, name)


# What a rule may name in `needs=`, per scope: an artefact that is None when it could not be
# read (or, for `model` and `loadgen`, when the result is of no known model or no loadgen
# run), and the rule is skipped. The registry refuses any other name.
NEEDS: dict[str, frozenset[str]] = {
    "result": frozenset(
        {
            "performance_log",
            "performance_summary",
            "accuracy_log",
            "accuracy_report",
            "user_conf",
            "endpoints_summary",
            "endpoints_config",
            "endpoints_accuracy",
            "model",
            "loadgen",
            "system_description",
        }
    ),
    "system": frozenset({"system_description"}),
    "submission": frozenset(),
}


def locate(path: str, round: Round) -> tuple[str, tuple[str, ...]]:
    """The root to check for `path`, and the part of it `path` names: () for a root holding
    division folders, (division,) for one division folder, (division, submitter) for one
    submitter's folder. Findings keep their paths relative to the root, as in a whole check."""
    real = os.path.realpath(path)
    parent, name = os.path.split(real)
    grandparent, parent_name = os.path.split(parent)
    divisions = set(round.divisions)
    if os.path.isdir(real) and not any(os.path.isdir(os.path.join(real, d)) for d in divisions):
        if name in divisions:
            return parent, (name,)
        marks = (round.results_root, "systems")
        if parent_name in divisions and any(os.path.isdir(os.path.join(real, m)) for m in marks):
            return grandparent, (parent_name, name)
    return path, ()


def no_results_reason(path: str, round: Round) -> str:
    """Why a tree holds no results, naming the folder to give instead."""
    divisions = list(round.divisions)
    holding = ", ".join(f"{d}/" for d in divisions[:-1]) + (" or " if len(divisions) > 1 else "") + f"{divisions[-1]}/"
    present = [d for d in divisions if os.path.isdir(os.path.join(path, d))]
    if present:
        return (
            f"no results under {path}: its {' and '.join(d + '/' for d in present)} "
            f"{'holds' if len(present) == 1 else 'hold'} no "
            f"<submitter>/{round.results_root}/<system>/<benchmark>/<scenario> folder"
        )
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    inside = [i for i, part in enumerate(parts) if part in divisions]
    if inside:
        root = os.sep.join(parts[: inside[-1]]) or os.sep
        shown = root if os.path.isabs(path) else os.path.relpath(root)
        return f"no results under {path}: give the folder that holds {holding} (here {shown}), not a folder inside it"
    return f"no results under {path}: give the folder that holds {holding}"


def holds_results(path: str, round: Round) -> bool:
    """Whether the tree at `path` has a result at all."""
    top, part = locate(path, round)
    return any(
        results_of(system) for submission in discover(Tree(top), round, part) for system in systems_of(submission)
    )


LINK_KINDS = {
    Kind.OUTSIDE: ("FIL006", "is a symlink that leaves the checked folder; it was not followed"),
    Kind.BROKEN: ("FIL010", "is a broken symlink"),
    Kind.OTHER: ("FIL011", "is not a regular file or folder"),
}


def _unfollowed(tree: Tree, rel: str, what: str) -> list[Finding]:
    """Findings for the entries of a folder that discovery cannot enter: links out of the
    tree, broken links, FIFOs and devices. Plain files beside the folders are fine."""
    found = []
    for entry in tree.listdir(rel):
        if entry.kind in LINK_KINDS:
            code, text = LINK_KINDS[entry.kind]
            found.append(
                Finding(
                    code=code,
                    severity=Severity.ERROR,
                    path=entry.rel,
                    message=f"{what} {entry.rel} {text}",
                    name=RULES[code].name if code in RULES else "",
                    subject=entry.rel,
                )
            )
    return found


@dataclass(frozen=True)
class Clash:
    """A folder whose name differs only in case from another beside it. On a case-insensitive
    file system (macOS, Windows) they are one folder, so at most one of them can be the
    round's: `canonical`, the one the round names, when exactly one does; else None, and
    none of them is."""

    name: str
    canonical: str | None


def clashes(names: Iterable[str], named: Callable[[str], bool]) -> list[Clash]:
    """The names among `names` that differ only in case from another of them, except the one
    the round names (`named`) when exactly one does; in name order."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(name.casefold(), []).append(name)
    found = []
    for group in groups.values():
        if len(group) > 1:
            spelled = [name for name in group if named(name)]
            canonical = spelled[0] if len(spelled) == 1 else None
            found += [Clash(name, canonical) for name in group if name != canonical]
    return sorted(found, key=lambda clash: clash.name)


def entered(names: list[str], named: Callable[[str], bool]) -> list[str]:
    """The folders discovery enters: `names` without those that differ only in case from the
    one the round names (they are no result; STR011 says so)."""
    strays = {clash.name for clash in clashes(names, named) if clash.canonical is not None}
    return [name for name in names if name not in strays] if strays else names


def _clash_finding(path: str, message: str, canonical: str | None, concerns: tuple[str, ...]) -> Finding:
    code = "STR011"
    return Finding(
        code=code,
        severity=RULES[code].severity if code in RULES else Severity.ERROR,
        path=path,
        message=message,
        observed=path.rpartition("/")[2],
        expected=canonical,
        name=RULES[code].name if code in RULES else "",
        concerns=concerns,
    )


def discover(tree: Tree, round: Round, only: tuple[str, ...] = ()) -> list[Submission]:
    """The `<division>/<submitter>` folders under the root (those `only` names, when given)."""
    divisions = set(round.divisions)
    top = tree.subdirs("")
    found = [(div, sub) for div in top if div in divisions for sub in tree.subdirs(div)]
    return [Submission(tree, round, div, sub) for div, sub in found if (div, sub)[: len(only)] == only]


def discovery_findings(tree: Tree, round: Round, only: tuple[str, ...] = ()) -> list[Finding]:
    """What discovery could not enter at the division and submitter levels: links, and a
    division folder that the round does not name because of its case (`Closed/`)."""
    found: list[Finding] = []
    spelled = {division.casefold(): division for division in round.divisions}
    for folder in tree.subdirs(""):
        division = spelled.get(folder.casefold())
        if division is None or (division,)[: len(only)] != only[:1]:
            continue
        if folder != division:
            found.append(
                _clash_finding(
                    folder,
                    f"division folder `{folder}` is not the round's `{division}`: its results are not checked "
                    f"and are no results of {round.name}",
                    division,
                    (),
                )
            )
            continue
        found += [
            f
            for f in _unfollowed(tree, division, "submitter folder")
            if (division, f.path.rpartition("/")[2])[: len(only)] == only
        ]
    return found


def unfollowed_folders(submission: Submission) -> list[Finding]:
    """Folders of the submission's results and systems that discovery could not enter."""
    tree, round = submission.tree, submission.round
    base = join(submission.rel, round.results_root)
    with_results = set(submission.systems_with_results)
    # A description of a system with results is reported where it is read (the reader).
    found = _unfollowed(tree, base, "system folder") + [
        f
        for f in _unfollowed(tree, join(submission.rel, "systems"), "system description")
        if f.path.rpartition("/")[2].removesuffix(".json") not in with_results
    ]
    for system in sorted(with_results):
        found += _unfollowed(tree, join(base, system), "benchmark folder")
        for benchmark in tree.subdirs(join(base, system)):
            found += _unfollowed(tree, join(base, system, benchmark), "scenario folder")
    return found


def systems_of(submission: Submission) -> list[System]:
    """Systems with a results folder or a description; each appears once."""
    return [System(submission, name) for name in sorted(submission.systems_with_results | submission.described_systems)]


def results_of(system: System) -> list[Result]:
    """The results of a system: every `<benchmark>/<scenario>` folder of its results, except
    a folder whose name differs only in case from the one beside it that the round names."""
    submission = system.submission
    tree = submission.tree
    base = join(submission.rel, submission.round.results_root, system.name)
    if system.name not in submission.systems_with_results:
        return []
    found = []
    for benchmark in entered(tree.subdirs(base), submission.names_benchmark):
        for scenario in entered(tree.subdirs(join(base, benchmark)), submission.names_scenario):
            found.append(Result(system, benchmark, scenario))
    return found
