"""The facts of a round file, typed: one frozen dataclass per object of
schemas/round.schema.json, one field per property.

A property the schema requires is a field without a default; an optional one defaults to
None, or to an empty tuple or mapping where its absence means "none". A mapping of names
whose `source` key cites where they come from is `Annotated[Mapping[...], SOURCED]` (the
source is not kept). Adding a fact is one schema entry and one field here:
tests/test_facts.py walks the schema and these classes together and fails on any difference.
checker/rounds.py loads a round file into `Round`, a `RoundFile` with the facts derived
from these (`round.latency(model, scenario)`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Annotated, Literal

from .typedload import SOURCED

Scenario = str  # one of the schema's scenarios (Offline, Server, Interactive, SingleStream, MultiStream)
Level = Literal["error", "warning", "note"]
Names = tuple[str, ...]


def _empty() -> Mapping[str, Names]:
    return {}


# --- shared shapes ($defs) ----------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class SourcedList:
    source: str
    values: Names


@dataclass(frozen=True, kw_only=True)
class Metric:
    """A headline metric: the log key, its units, and the scale its value is shown at."""

    key: str
    units: str
    scale: float = 1.0


MetricSet = Mapping[Scenario, Metric]


@dataclass(frozen=True, kw_only=True)
class ScenarioRule:
    """The scenarios of a model on one system type."""

    required: tuple[Scenario, ...] = ()
    one_of: tuple[Scenario, ...] = ()
    optional: tuple[Scenario, ...] = ()

    @property
    def offered(self) -> set[Scenario]:
        return set(self.required) | set(self.one_of) | set(self.optional)


@dataclass(frozen=True, kw_only=True)
class GatePolicy:
    """The written policy's own accuracy bound, where it is stricter than the one applied."""

    reference: float | None = None
    factor: float | None = None
    upper_factor: float | None = None
    upper: float | None = None
    source: str


@dataclass(frozen=True, kw_only=True)
class Gate:
    """An accuracy bound: reference x factor below, and an upper bound where set.

    `metric` names the round's accuracy pattern (accuracy.txt); `key` names the value in an
    Endpoints accuracy_results.json. `applied` is False for a bound that the written policy
    states but the round's checker did not apply: it only warns. `policy` is the written
    policy's own bound where it is stricter than the one the round applied (`policy_gate`)."""

    metric: str
    key: str | None = None
    reference: float
    factor: float | None = None
    upper_factor: float | None = None
    upper: float | None = None
    scenarios: tuple[Scenario, ...] | None = None  # every scenario when absent
    applied: bool = True
    source: str | None = None
    policy: GatePolicy | None = None

    @property
    def policy_bound(self) -> Gate | None:
        """The written policy's bound as a gate: this one, with the values the policy states."""
        policy = self.policy
        if policy is None:
            return None
        return replace(
            self,
            reference=self.reference if policy.reference is None else policy.reference,
            factor=self.factor if policy.factor is None else policy.factor,
            upper_factor=self.upper_factor if policy.upper_factor is None else policy.upper_factor,
            upper=self.upper if policy.upper is None else policy.upper,
            source=policy.source,
            policy=None,
        )

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


@dataclass(frozen=True, kw_only=True)
class LatencyPolicy:
    target_ns: int | None = None
    ttft_ns: int | None = None
    tpot_ns: int | None = None
    source: str


@dataclass(frozen=True, kw_only=True)
class Latency:
    """The latency limits of a scenario: a p99 target, or TTFT and TPOT limits."""

    target_ns: int | None = None
    ttft_ns: int | None = None
    tpot_ns: int | None = None
    policy: LatencyPolicy | None = None


@dataclass(frozen=True, kw_only=True)
class Score:
    """How a verify script scores a run: a detail-log key, or the summary's lines."""

    key: str | None = None
    fields: Names = ()
    invert: float | None = None  # the score is invert / value


@dataclass(frozen=True, kw_only=True)
class Relaxed:
    threshold: float
    at_most: Mapping[Scenario, float]


@dataclass(frozen=True, kw_only=True)
class Intended:
    threshold: float
    source: str


@dataclass(frozen=True, kw_only=True)
class PerformanceCheck:
    """A compliance test's verify_performance.py as data."""

    source: str
    reads: Literal["detail", "summary"]
    metric: Mapping[Scenario, Score]
    threshold: float
    relaxed: Relaxed | None = None
    passes: Literal["within", "faster_below"]
    intended: Intended | None = None
    same: Mapping[Scenario, Names] = field(default_factory=_empty)
    same_benchmark: Names = ()


@dataclass(frozen=True, kw_only=True)
class Samples:
    performance: int
    dataset: int
    accuracy: int | Mapping[Scenario, int] | None = None


@dataclass(frozen=True, kw_only=True)
class PolicySamples:
    performance: int | None = None


@dataclass(frozen=True, kw_only=True)
class ModelPolicy:
    """Facts the written policy states more strictly than the round applied them."""

    source: str
    min_duration_ms: int | None = None
    offline_min_samples_per_query: int | None = None
    samples: PolicySamples | None = None
    scenarios: Mapping[str, ScenarioRule] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Model:
    """The facts of one model (benchmark) of the round."""

    scenarios: Mapping[str, ScenarioRule]  # by system type
    accuracy: tuple[Gate, ...]
    samples: Samples
    min_queries: Mapping[Scenario, int] = field(default_factory=dict)
    offline_min_samples_per_query: int | None = None
    min_duration_ms: int | None = None
    latency: Mapping[Scenario, Latency] = field(default_factory=dict)
    compliance: Names = ()
    equal_issue: bool = False
    test01_delta_percent: Mapping[str, float] = field(default_factory=dict)
    metrics: str | None = None
    metric_overrides: MetricSet = field(default_factory=dict)
    endpoints: bool = False
    notes: Names = ()
    policy: ModelPolicy | None = None


# --- the round's blocks -------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class EndpointsFacts:
    """Results written by the MLPerf Endpoints harness."""

    source: str
    allowed_models: Names
    scenario_types: Mapping[str, tuple[Scenario, ...]] = field(default_factory=_empty)
    seed_keys: Mapping[str, str] = field(default_factory=dict)
    metric_sets: Mapping[str, MetricSet]
    audits: Mapping[str, str] = field(default_factory=dict)
    accuracy_gated_models: Names = ()
    required_audits: Mapping[str, Names] = field(default_factory=_empty)
    folder_decides: tuple[Scenario, ...] = ()
    type_scenario: Mapping[str, Scenario] = field(default_factory=dict)
    output_tokens: Mapping[str, tuple[float, float]] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class ScenarioFolders:
    source: str
    case: Literal["lower", "any"]


@dataclass(frozen=True, kw_only=True)
class SeverityOverride:
    severity: Level
    why: str
    source: str | None = None


@dataclass(frozen=True, kw_only=True)
class SeedRelease:
    commit: str
    date: str | None = None
    deadline: str | None = None
    source: str


@dataclass(frozen=True, kw_only=True)
class Seeds:
    source: str
    qsl_rng_seed: int
    sample_index_rng_seed: int
    schedule_rng_seed: int

    def named(self) -> dict[str, int]:
        """Each seed by its loadgen name."""
        return {
            "qsl_rng_seed": self.qsl_rng_seed,
            "sample_index_rng_seed": self.sample_index_rng_seed,
            "schedule_rng_seed": self.schedule_rng_seed,
        }


@dataclass(frozen=True, kw_only=True)
class VersionRange:
    from_: str
    to: str


@dataclass(frozen=True, kw_only=True)
class LoadgenVersions:
    source: str
    ranges: tuple[VersionRange, ...]


@dataclass(frozen=True, kw_only=True)
class Audit:
    source: str
    divisions: Names
    availability: Names
    tolerance: float
    tolerance_source: str | None = None


@dataclass(frozen=True, kw_only=True)
class Preview:
    source: str
    tolerance: float


@dataclass(frozen=True, kw_only=True)
class EndpointsLayout:
    source: str
    config: str
    summary: Names
    accuracy: str
    audit: str


FileRole = Literal["detail_log", "summary_log", "accuracy_log", "accuracy_report", "power_samples", "user_conf"]


@dataclass(frozen=True, kw_only=True)
class Files:
    """The files the round's tools write, by role."""

    source: str
    detail_log: str
    summary_log: str
    accuracy_log: str
    accuracy_report: str
    power_samples: str
    user_conf: str
    mlperf_conf: str | None = None  # the run's copy of loadgen's mlperf.conf, where the layout keeps one

    def named(self, role: FileRole) -> str:
        return {
            "detail_log": self.detail_log,
            "summary_log": self.summary_log,
            "accuracy_log": self.accuracy_log,
            "accuracy_report": self.accuracy_report,
            "power_samples": self.power_samples,
            "user_conf": self.user_conf,
        }[role]


@dataclass(frozen=True, kw_only=True)
class Layout:
    """Where each part of a submission is: templates over {system}, {benchmark}, {scenario}
    and {result}."""

    source: str
    system_json: str
    result: str
    performance: str
    accuracy: str
    power: str | None = None
    ranging: str | None = None
    compliance: str
    measurements: str
    code: str
    endpoints: Literal[False] | EndpointsLayout = False
    files: Files
    compliance_run: str
    implementation_description: Names
    calibration: Names
    max_file_bytes: int | None = None

    def paths(self) -> list[str]:
        """The layout's path templates (system_json, result, performance, ..., code), in order."""
        return [value for name, value in vars(self).items() if name != "source" and isinstance(value, str)]


@dataclass(frozen=True, kw_only=True)
class Implementation:
    source: str
    required: str
    redirect_file: bool = False
    policy: str | None = None
    variant_suffix: str | None = None


@dataclass(frozen=True, kw_only=True)
class TablePower:
    keys: Names = ()
    before: str | None = None
    row: Mapping[str, str] = field(default_factory=dict)
    units: Names = ()


@dataclass(frozen=True, kw_only=True)
class InferredException:
    effective: str
    folder: str


@dataclass(frozen=True, kw_only=True)
class TableInferred:
    rule: Literal["inferred_scenarios", "scenario_differs"]
    except_: tuple[InferredException, ...] = ()
    endpoints: str | None = None


@dataclass(frozen=True, kw_only=True)
class TableFix:
    key: str
    value: object
    becomes: object


@dataclass(frozen=True, kw_only=True)
class Table:
    """The published results table of the round: its file, shape, keys and values."""

    source: str
    file: str
    shape: Literal["list", "index"]
    keys: Names
    names: Mapping[str, str]
    power: TablePower | None = None
    order: Names
    publication: Mapping[str, str] = field(default_factory=dict)
    location: str
    compliance: int | str
    inferred: TableInferred
    scenario: Literal["round", "folder"]
    model_labels: Mapping[str, str] = field(default_factory=dict)
    fixes: tuple[TableFix, ...] = ()
    blank: str | None
    na_values: Names = ()
    double_precision: int
    indent: int | None = None


@dataclass(frozen=True, kw_only=True)
class EarlyStopping:
    source: str
    confidence: float
    tolerance: float


@dataclass(frozen=True, kw_only=True)
class Run:
    source: str
    min_duration_ms: int
    logged_as: Mapping[Scenario, Scenario] = field(default_factory=dict)
    accuracy_log_max_bytes: int | None = None
    early_stopping_scenarios: tuple[Scenario, ...] = ()
    offline_samples_per_query_in: Names = ()
    unknown_scenarios: Literal["result", "benchmark"] = "result"
    early_stopping: EarlyStopping | None = None


LogKind = Literal["performance", "accuracy", "compliance", "other_compliance"]


@dataclass(frozen=True, kw_only=True)
class LoadgenErrors:
    source: str
    severity: Mapping[LogKind, Level]
    why: Mapping[str, str] = field(default_factory=dict)
    expected: Mapping[str, Names] = field(default_factory=_empty)


@dataclass(frozen=True, kw_only=True)
class ComplianceTest:
    verify: Mapping[str, str]
    checks: Names = ()
    performance_log: bool = False
    performance_check: PerformanceCheck | None = None
    accuracy_fallback: Names = ()


@dataclass(frozen=True, kw_only=True)
class Compliance:
    source: str
    required_in: Names = ()
    tests: Mapping[str, ComplianceTest]


@dataclass(frozen=True, kw_only=True)
class Power:
    source: str
    power_files: Names
    ranging_files: Names
    run_files: Names
    energy_scenarios: tuple[Scenario, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Inference:
    """How a scenario's metric is inferred from another scenario's run."""

    from_: Scenario
    to: Scenario
    key: str
    units: str
    scale: float = 1.0
    numerator: float | None = None  # the metric is numerator / value
    numerator_key: str | None = None  # a log key whose value multiplies the numerator
    energy_per_query_factor: float = 1


@dataclass(frozen=True, kw_only=True)
class InferredScenarios:
    source: str
    system_types: Names  # empty: any
    system_type_match: Literal["exact", "contains"] | None = None
    policy_system_types: Names = ()
    rules: tuple[Inference, ...]


@dataclass(frozen=True, kw_only=True)
class TruncatedLog:
    folder: str
    report: Literal["append", "replace"]
    without_report: Literal["skip", "create"] = "create"
    divisions: Names | None = None  # every division when absent


@dataclass(frozen=True, kw_only=True)
class Truncation:
    source: str
    head_bytes: int
    tail_bytes: int
    separator: str
    cut_from_bytes: int
    done_below_bytes: int
    hash: Literal["sha256"]
    hash_line: str
    appended: str
    replaced: str
    logs: tuple[TruncatedLog, ...]
    notes: Names = ()


@dataclass(frozen=True, kw_only=True)
class Alone:
    """A failing result that goes alone: one that matches every condition given."""

    scenarios: tuple[Scenario, ...] | None = None
    failed: tuple[Literal["accuracy", "performance"], ...] | None = None
    divisions: Names | None = None


@dataclass(frozen=True, kw_only=True)
class Failed:
    source: str
    result_folders: Names
    alone: tuple[Alone, ...]
    benchmark_in: Names
    move_to: str
    moved_folders: Names
    system_field: str
    power_folders: Names = ()


@dataclass(frozen=True, kw_only=True)
class InferredFolder:
    from_: Scenario
    to: Scenario
    folder: str
    unless: tuple[Scenario, ...]
    offered: bool


@dataclass(frozen=True, kw_only=True)
class Tier:
    from_: str
    to: str


@dataclass(frozen=True, kw_only=True)
class Copy:
    folder: str
    divisions: Names | None = None  # every division when absent


@dataclass(frozen=True, kw_only=True)
class Infer:
    source: str
    scenarios: tuple[InferredFolder, ...]
    tiers: tuple[Tier, ...]
    copies: tuple[Copy, ...]


@dataclass(frozen=True, kw_only=True)
class Prepare:
    """What the round's own tools do to a submission before upload."""

    source: str
    truncation: Truncation
    failed: Failed
    infer: Infer
    notes: Names = ()


@dataclass(frozen=True, kw_only=True)
class NotApplicable:
    """What the round's published descriptions write in a field that does not apply to the
    system (a CPU-only system's accelerator fields): the value a SYS002 fix names."""

    source: str
    values: Mapping[str, str]


@dataclass(frozen=True, kw_only=True)
class SystemDescription:
    source: str
    schema: str | None = None
    required: Names
    meaningful: Names
    numeric: Names = ()
    integer: Names = ()
    network: Names = ()
    power: Names = ()
    not_applicable: NotApplicable | None = None


@dataclass(frozen=True, kw_only=True)
class Measurements:
    source: str
    required_files: Names
    required_fields: Names


@dataclass(frozen=True, kw_only=True)
class ModelGuess:
    contains: Names
    model: str


@dataclass(frozen=True, kw_only=True)
class ModelGuesses:
    source: str
    rules: tuple[ModelGuess, ...]


@dataclass(frozen=True, kw_only=True)
class SubmitterModelMapping:
    source: str
    file: str
    divisions: Names


@dataclass(frozen=True, kw_only=True)
class Disagreement:
    what: str
    policy: str
    official_checker: str
    used: Literal["policy", "official_checker"]
    why: str | None = None


@dataclass(frozen=True, kw_only=True, eq=False)
class RoundFile:
    """A round file: schemas/round.schema.json's top level. A round is one object, compared
    by identity (checker.rounds loads each file once)."""

    round: str
    checker_version: str
    title: str | None = None
    extends: str | None = None
    profile: str | None = None
    endpoints: EndpointsFacts | None = None
    scenario_folders: ScenarioFolders | None = None
    severities: Annotated[Mapping[str, Level | SeverityOverride], SOURCED] = field(default_factory=dict)
    seed_release: SeedRelease | None = None
    seeds: Seeds
    loadgen_versions: LoadgenVersions | None = None
    divisions: Names
    system_types: SourcedList
    availability: SourcedList
    audit: Audit
    preview: Preview
    scenarios: tuple[Scenario, ...]
    layout: Layout
    implementation: Implementation | None = None
    table: Table | None = None
    run: Run
    loadgen_errors: LoadgenErrors | None = None
    compliance: Compliance | None = None
    power: Power | None = None
    inferred_scenarios: InferredScenarios | None = None
    prepare: Prepare | None = None
    system_description: SystemDescription
    measurements: Measurements
    metric_sets: Annotated[Mapping[str, MetricSet], SOURCED]
    accuracy_patterns: Annotated[Mapping[str, str], SOURCED] = field(default_factory=dict)
    accuracy_gated_in: Names | None = None  # every division when absent
    model_guesses: ModelGuesses | None = None
    submitter_model_mapping: SubmitterModelMapping | None = None
    model_mapping: Annotated[Mapping[str, str], SOURCED] = field(default_factory=dict)
    # A benchmark of an earlier round this round no longer has -> the benchmarks it names in
    # its place (followup says them when a preview result cannot be followed up).
    successors: Annotated[Mapping[str, Names], SOURCED] = field(default_factory=dict)
    models: Mapping[str, Model]
    disagreements: tuple[Disagreement, ...] = ()
    notes: Names = ()
