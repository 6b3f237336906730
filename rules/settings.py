"""PRF017: the settings the run used. user.conf against the settings loadgen logged it was
asked for (`requested_*`): a user.conf the run never read is not the run's."""

from __future__ import annotations

import math
from collections.abc import Iterator

from checker.findings import Severity
from checker.model.views import Configured
from checker.parsers.mllog import reads
from checker.registry import Problem, rule
from checker.rounds import Round

# A user.conf key -> {the scenario loadgen reads it for ("*": any): (the key it logs, the
# factor from user.conf's unit to the log's)}. Source: mlcommons/inference
# loadgen/test_settings_internal.cc, TestSettings::FromConfig (target_qps of Offline and
# Server, target_latency in ms of Server, SingleStream and MultiStream, logged in ns,
# target_latency_percentile in percent, logged as a fraction; the durations in ms and the
# counts as they are), and RequestedSettings::LogRequestedSettings (the `requested_` keys).
SETTINGS: dict[str, dict[str, tuple[str, float]]] = {
    "target_qps": {
        "Offline": ("requested_offline_expected_qps", 1),
        "Server": ("requested_server_target_qps", 1),
    },
    "target_latency": {
        "Server": ("requested_server_target_latency_ns", 1e6),
        "SingleStream": ("requested_single_stream_expected_latency_ns", 1e6),
        "MultiStream": ("requested_multi_stream_expected_latency_ns", 1e6),
    },
    "target_latency_percentile": {
        "Server": ("requested_server_target_latency_percentile", 0.01),
        "SingleStream": ("requested_single_stream_target_latency_percentile", 0.01),
        "MultiStream": ("requested_multi_stream_target_latency_percentile", 0.01),
    },
    "samples_per_query": {"MultiStream": ("requested_multi_stream_samples_per_query", 1)},
    "min_duration": {"*": ("requested_min_duration_ms", 1)},
    "max_duration": {"*": ("requested_max_duration_ms", 1)},
    "min_query_count": {"*": ("requested_min_query_count", 1)},
    "max_query_count": {"*": ("requested_max_query_count", 1)},
    "performance_sample_count_override": {"*": ("requested_performance_sample_count_override", 1)},
}
# The keys SETTINGS names, as the rule reads them.
REQUESTED = (
    "requested_offline_expected_qps",
    "requested_server_target_qps",
    "requested_server_target_latency_ns",
    "requested_single_stream_expected_latency_ns",
    "requested_multi_stream_expected_latency_ns",
    "requested_server_target_latency_percentile",
    "requested_single_stream_target_latency_percentile",
    "requested_multi_stream_target_latency_percentile",
    "requested_multi_stream_samples_per_query",
    "requested_min_duration_ms",
    "requested_max_duration_ms",
    "requested_min_query_count",
    "requested_max_query_count",
    "requested_performance_sample_count_override",
)
LOADGEN_KEYS = reads(*REQUESTED)


def _line(conf: dict[str, str], models: set[str], scenario: str, key: str) -> tuple[str, str] | None:
    """The user.conf line loadgen takes for `key` of `scenario` (its key and value), in
    loadgen's order: model.scenario, *.scenario, model.*, *.*; None when there is none, or when
    a line names a model other than the result's for it (the harness's name for the model is
    not in the tree, so which line loadgen took cannot be known)."""
    named = [name for name in conf if name.endswith(f".{key}") and name.count(".") >= 2]
    for name in named:
        model, _, rest = name[: -len(key) - 1].rpartition(".")
        if rest in (scenario, "*") and model not in models and model != "*":
            return None
    for model in (*sorted(models), "*"):
        if f"{model}.{scenario}.{key}" in conf:
            return f"{model}.{scenario}.{key}", conf[f"{model}.{scenario}.{key}"]
    for model in (*sorted(models), "*"):
        if f"{model}.*.{key}" in conf:
            return f"{model}.*.{key}", conf[f"{model}.*.{key}"]
    return None


def _plain(value: float) -> str:
    """A logged number as loadgen's log writes it: a whole number without a fraction."""
    return str(int(value)) if float(value).is_integer() else f"{value:.10g}"


def _number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@rule("PRF017", "user-conf-matches-log", severity=Severity.WARNING)
def user_conf_matches_log(result: Configured, round: Round) -> Iterator[Problem]:
    """Each setting user.conf states for the run is the one loadgen logged it was asked for.

    Why: loadgen logs the settings it was given (`requested_offline_expected_qps`,
    `requested_min_duration_ms`, ...). A user.conf whose `target_qps` says 1 beside a log that
    says 480 is not the file the run read: it was edited afterwards or copied from another
    run, and it does not tell others how to rerun the result. Only lines for the result's
    model (its folder's or the round's name) or for any model (`*`) are judged: where a line
    names another model for the same setting, the harness's model name decides, and it is
    not in the tree.
    Fix: submit the user.conf the run read, or rerun with this one.
    Policy: submission_rules.adoc, "Directory structure" (user.conf: the settings of the
    run); loadgen test_settings_internal.cc (FromConfig, LogRequestedSettings).
    Example: `*.Offline.target_qps = 480` beside a log with requested_offline_expected_qps 480
    passes; `*.Offline.target_qps = 1` gets a warning.
    """
    log = result.performance_log
    scenario = result.logged_scenario
    if log is None or scenario is None:
        return
    models = {name for name in (result.benchmark, result.model) if name}
    requested: dict[str, object] = {}
    for key in REQUESTED:
        requested[key] = log.get(key)
    for key, by_scenario in SETTINGS.items():
        logged_key, factor = by_scenario.get(scenario) or by_scenario.get("*") or (None, 1.0)
        if logged_key is None:
            continue
        line = _line(result.user_conf, models, scenario, key)
        logged = requested.get(logged_key)
        if line is None or isinstance(logged, bool) or not isinstance(logged, (int, float)):
            continue
        stated = _number(line[1])
        if stated is None:
            continue
        wanted = (stated * factor, math.trunc(stated) * factor)
        if not any(math.isclose(value, logged, rel_tol=1e-6, abs_tol=1e-9) for value in wanted):
            yield Problem(
                path=result.file("measurements", "user_conf"),
                pointer=line[0],
                observed=line[1].strip(),
                expected=logged,
                message=f"user.conf sets `{line[0]}` to {line[1].strip()}, but loadgen logged {logged_key} "
                f"{_plain(logged)}: this user.conf is not the settings the run used",
            )
