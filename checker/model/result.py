"""A result and its artefacts: each file of the folder read once, through the result's
Reader, when a rule asks, and None when it cannot be read (the reader's finding says why).
Which harness wrote the result decides which files it has: loadgen's logs, or the MLPerf
Endpoints harness's config.yaml and result_summary.json."""

from __future__ import annotations

from collections.abc import Iterator

from ..parsers.accuracy import AccuracyReport, parse_accuracy
from ..parsers.endpoints import (
    EndpointsAccuracy,
    EndpointsConfig,
    EndpointsSummary,
    parse_accuracy_results,
    parse_endpoints_config,
    parse_result_summary,
)
from ..parsers.mllog import LoadgenLog
from ..parsers.text import Summary, VerifyOutcome, parse_conf, parse_spl, parse_summary, parse_timestamp, parse_verify
from ..parsers.text import timestamp_microseconds as microseconds
from ..tree import Kind, join
from .layout import ResultLayout
from .once import cached


class Result(ResultLayout):
    """One `results/<system>/<benchmark>/<scenario>` folder, and what its files hold."""

    # --- which harness wrote it --------------------------------------------------------
    @cached
    def is_endpoints(self) -> bool:
        """Results written by the MLPerf Endpoints harness: no loadgen detail logs, and an
        endpoints `config.yaml` or `performance/result_summary.json` instead."""
        config = self.endpoints_file("config")
        if config is None:
            return False
        if any(self.reader.exists(self.file(folder, "detail_log")) for folder in ("performance", "accuracy")):
            return False
        return self.reader.exists(config) or self.endpoints_summary_path is not None

    @cached
    def endpoints_summary_path(self) -> str | None:
        """The first of the round's Endpoints summaries that exists: `performance/result_summary.json`,
        or the `performance/run_1/` variant that publish_submission.py writes (accepted; EPT001 warns)."""
        return next((rel for rel in self.endpoints_summary_paths if self.reader.exists(rel)), None)

    @cached
    def endpoints_summary(self) -> EndpointsSummary | None:
        if not self.is_endpoints:
            return None
        rel = self.endpoints_summary_path or self.endpoints_summary_paths[0]
        return self.reader.parsed(rel, parse_result_summary, what="endpoints result_summary.json")

    @cached
    def endpoints_config(self) -> EndpointsConfig | None:
        rel = self.endpoints_file("config")
        if not self.is_endpoints or rel is None:
            return None
        return self.reader.parsed(rel, parse_endpoints_config, what="endpoints config.yaml")

    @cached
    def endpoints_accuracy(self) -> EndpointsAccuracy | None:
        rel = self.endpoints_file("accuracy")
        if not self.is_endpoints or rel is None:
            return None
        return self.reader.parsed(rel, parse_accuracy_results, what="endpoints accuracy_results.json")

    # --- loadgen's files ---------------------------------------------------------------
    @cached
    def performance_log(self) -> LoadgenLog | None:
        if self.is_endpoints:
            return None
        return self.reader.mllog(self.file("performance", "detail_log"), what="performance detail log")

    @cached
    def performance_summary(self) -> Summary | None:
        if self.is_endpoints:
            return None
        return self.reader.parsed(self.file("performance", "summary_log"), parse_summary, what="performance summary")

    @cached
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

    @cached
    def accuracy_report(self) -> AccuracyReport | None:
        if self.is_endpoints:
            return None
        return self.read_accuracy(self.file("accuracy", "accuracy_report"))

    @cached
    def user_conf(self) -> dict[str, str] | None:
        if self.is_endpoints:
            return None
        return self.reader.parsed(
            self.file("measurements", "user_conf"), parse_conf, required=False, what="user.conf"
        )  # MSR001 reports it missing

    @cached
    def mlperf_conf(self) -> dict[str, str] | None:
        """The run's copy of loadgen's mlperf.conf in the measurements folder, where the
        round's layout keeps one (layout `files.mlperf_conf`); None when there is none."""
        name = self.round.layout.files.mlperf_conf
        if self.is_endpoints or name is None:
            return None
        return self.reader.parsed(self.path("measurements", name), parse_conf, required=False, what="mlperf.conf")

    @cached
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

    # --- compliance runs ---------------------------------------------------------------
    def compliance_log(self, test: str) -> LoadgenLog | None:
        return self.reader.mllog(self.compliance_file(test, "detail_log"), what=f"{test} performance detail log")

    def compliance_runs(self) -> Iterator[tuple[str, str, LoadgenLog]]:
        """(test, path, log) of each compliance run's performance detail log that is
        present, for the tests the round lists for the model."""
        for test in self.round.compliance_tests(self.model) if self.model else ():
            rel = self.compliance_file(test, "detail_log")
            if self.reader.exists(rel):
                log = self.compliance_log(test)
                if log is not None:
                    yield test, rel, log

    def compliance_verdict(self, test: str, kind: str, name: str | None = None) -> VerifyOutcome | None:
        name = name or f"verify_{kind}.txt"
        return self.reader.parsed(join(self.compliance_dir(test), name), parse_verify, what=f"{test} {name}")

    # --- what the run was --------------------------------------------------------------
    @cached
    def inferred_from(self) -> str | None:
        """The scenario of the run this result was inferred from, when the round allows it
        (asked by each limit of each result: once)."""
        log = self.performance_log
        if log is None or self.scenario is None or log.scenario == self.logged_scenario:
            return None
        return log.scenario if self.round.inference(log.scenario, self.scenario) else None

    @cached
    def has_power(self) -> bool:
        folder = self.path("power")
        return folder is not None and self.reader.is_dir(folder)

    def power_window(self) -> tuple[list[float], float] | None:
        """The positive watt samples of run_1's spl.txt strictly inside loadgen's
        power_begin..power_end, and the window's length in seconds; None when unreadable."""
        if "power_window" in self.cache:
            window: tuple[list[float], float] | None = self.cache["power_window"]
            return window
        window = None
        log = self.performance_log
        samples = self.reader.parsed(self.file("performance", "power_samples"), parse_spl, what="spl.txt")
        if log is not None and samples is not None:
            begin, end = parse_timestamp(log.get("power_begin")), parse_timestamp(log.get("power_end"))
            first, last = microseconds(log.get("power_begin")), microseconds(log.get("power_end"))
            if begin is not None and end is not None and first is not None and last is not None:
                window = ([w for t, w in samples if begin < t < end and w > 0], (last - first) / 10**6)
        self.cache["power_window"] = window
        return window
