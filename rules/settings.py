"""PRF017: the settings the run used. user.conf, and the run's copy of mlperf.conf where the
round's layout keeps one, against the settings loadgen logged it was asked for
(`requested_*`): a file the run never read is not the run's."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator

from checker.findings import Severity
from checker.model.views import Configured
from checker.parsers.mllog import reads
from checker.parsers.text import Conf, conf_number
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
    for model, rest, _, _ in _setting(conf, key):
        if model is not None and rest in (scenario, "*") and model not in models and model != "*":
            return None
    for model in (*sorted(models), "*"):
        if f"{model}.{scenario}.{key}" in conf:
            return f"{model}.{scenario}.{key}", conf[f"{model}.{scenario}.{key}"]
    for model in (*sorted(models), "*"):
        if f"{model}.*.{key}" in conf:
            return f"{model}.*.{key}", conf[f"{model}.*.{key}"]
    return None


OTHERS = 2  # the rank of a line for another model: it may be the harness's, never the only one judged


def _defaults(conf: dict[str, str], models: set[str], scenario: str, key: str) -> list[tuple[int, str, str]]:
    """The mlperf.conf lines that set `key` for `scenario` (or every scenario), for any model:
    the harness's name for the model is not in the tree, and mlperf.conf names every model, so
    any of them may be the one loadgen took. Each with its rank: 0 for one of the result's
    names (`_loadgen_names`), 1 for any model (`*`), OTHERS for another model; by rank, each
    in loadgen's order (the scenario's before `*`)."""
    lines = _setting(conf, key)
    found = [
        (0 if model in models else 1 if model == "*" else OTHERS, name, value)
        for wanted in (scenario, "*")
        for model, rest, name, value in lines
        if rest == wanted and model
    ]
    return sorted(found, key=lambda item: item[0])


def _setting(conf: dict[str, str], key: str) -> list[tuple[str | None, str, str, str]]:
    """The lines of a conf that set `key` (parsers.text.Conf.setting: read once a file)."""
    return (conf if isinstance(conf, Conf) else Conf(conf)).setting(key)


def _loadgen_names(models: set[str], suffix: str | None) -> set[str]:
    """The names loadgen's mlperf.conf may give the result's model: its own, without the
    accuracy tier (`llama2-70b` for `llama2-70b-99`, the round's `variant_suffix`), with `_`
    for `.` (`llama3_1-8b`)."""
    names = set(models)
    if suffix:
        names |= {re.sub(suffix, "", name) for name in models}
    return names | {name.replace(".", "_") for name in names}


def _plain(value: float) -> str:
    """A logged number as loadgen's log writes it: a whole number without a fraction."""
    return str(int(value)) if float(value).is_integer() else f"{value:.10g}"


@functools.lru_cache(maxsize=4096)
def _number(text: str) -> float | None:
    """The finite number loadgen reads from a conf value (parsers.text.conf_number: decimal,
    hex and octal alike), None for none or one that cannot be compared (inf, nan). Once a text:
    the same few values stand in every mlperf.conf."""
    value = conf_number(text.strip())
    return value if value is not None and math.isfinite(value) else None


@rule("PRF017", "user-conf-matches-log", severity=Severity.WARNING)
def user_conf_matches_log(result: Configured, round: Round) -> Iterator[Problem]:
    """Each setting user.conf or the run's mlperf.conf states is the one loadgen logged.

    Why: loadgen logs the settings it was given (`requested_offline_expected_qps`,
    `requested_min_duration_ms`, ...). A user.conf whose `target_qps` says 1 beside a log that
    says 480 is not the file the run read: it was edited afterwards or copied from another
    run, and it does not tell others how to rerun the result. Only lines for the result's
    model (its folder's or the round's name) or for any model (`*`) are judged: where a line
    names another model for the same setting, the harness's model name decides, and it is
    not in the tree. The same holds for the copy of mlperf.conf a round's layout keeps beside
    user.conf, for each setting user.conf does not state (loadgen reads mlperf.conf first and
    user.conf over it): mlperf.conf names every model and the harness's name for this one is
    not in the tree, so it is judged only when none of its lines for the setting (for any
    model) is what loadgen logged, and one of them is for the result's model (its name,
    without the accuracy tier, `.` as `_`) or for any model: that line is named.
    A user.conf that loadgen refuses (LOG004: a word where it wants `=`, a value that is not a
    number, a comment after a value) sets nothing, and is not judged; a line loadgen reads no
    setting from (`key=value`, one word to it) is not a setting.
    Fix: submit the user.conf (or mlperf.conf) the run read, or rerun with this one.
    Policy: submission_rules.adoc, "Directory structure" (user.conf and mlperf.conf: the
    settings of the run); loadgen test_settings_internal.cc (FromConfig, LogRequestedSettings).
    Example: `*.Offline.target_qps = 480` beside a log with requested_offline_expected_qps 480
    passes; `*.Offline.target_qps = 1` gets a warning, as does `*.*.min_duration = 60000` in
    mlperf.conf beside a log with requested_min_duration_ms 600000 and a user.conf silent on it.
    """
    log = result.performance_log
    scenario = result.logged_scenario
    if log is None or scenario is None or getattr(result.user_conf, "refused", None) is not None:
        return  # a user.conf loadgen refuses sets nothing: LOG004 says so, and which file the run read is unknown
    models = {name for name in (result.benchmark, result.model) if name}
    defaults, defaults_path = result.mlperf_conf, ""
    if defaults and round.layout.files.mlperf_conf:
        defaults_path = result.path("measurements", round.layout.files.mlperf_conf)
    names: set[str] | None = None  # loadgen's names of the model, when mlperf.conf is judged
    requested: dict[str, object] = {}
    for key in REQUESTED:
        requested[key] = log.get(key)
    for key, by_scenario in SETTINGS.items():
        logged_key, factor = by_scenario.get(scenario) or by_scenario.get("*") or (None, 1.0)
        if logged_key is None:
            continue
        logged = requested.get(logged_key)
        if isinstance(logged, bool) or not isinstance(logged, (int, float)):
            continue
        if _setting(result.user_conf, key):  # else no line of user.conf sets it (_line's lines all end in it)
            line = _line(result.user_conf, models, scenario, key)
            if line is not None and not _agrees(line[1], factor, logged):
                yield _differs(result.file("measurements", "user_conf"), "user.conf", line, logged_key, logged)
            continue  # set by user.conf, or for some model: which line loadgen took is not known
        if not defaults:
            continue
        if names is None:
            names = _loadgen_names(models, round.implementation.variant_suffix if round.implementation else None)
        lines = _defaults(defaults, names, scenario, key)
        if lines and lines[0][0] != OTHERS and not any(_agrees(value, factor, logged) for _, _, value in lines):
            yield _differs(defaults_path, "mlperf.conf", lines[0][1:], logged_key, logged)


def _agrees(text: str, factor: float, logged: float) -> bool:
    """Whether a conf value is the logged one (a count loadgen truncates may carry a fraction);
    a value that is no number says nothing."""
    stated = _number(text)
    if stated is None:
        return True
    wanted = (stated * factor, math.trunc(stated) * factor)
    return any(math.isclose(value, logged, rel_tol=1e-6, abs_tol=1e-9) for value in wanted)


def _differs(path: str, named: str, line: tuple[str, str], logged_key: str, logged: float) -> Problem:
    return Problem(
        path=path,
        pointer=line[0],
        observed=line[1].strip(),
        expected=logged,
        message=f"{named} sets `{line[0]}` to {line[1].strip()}, but loadgen logged {logged_key} "
        f"{_plain(logged)}: this {named} is not the settings the run used",
    )
