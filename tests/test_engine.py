"""The engine: verdicts, isolation of bad files, determinism, internal errors, waivers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from checker import engine
from checker.findings import Severity
from checker.registry import RULES, Problem, Rule
from checker.reporters.json_report import document
from helpers import OFFLINE, SINGLE, run, tree_digest


def test_bundled_example_is_valid(example: Path) -> None:
    report = run(example)
    assert [(r.location, r.valid) for r in report.results] == [(OFFLINE, True), (SINGLE, True)]
    assert report.findings == []


def test_metric_is_read_from_the_round_and_the_log(example: Path) -> None:
    report = run(example)
    offline, single = report.results
    assert offline.metric["units"] == "Samples/s" and offline.metric["key"] == "result_samples_per_second"
    assert single.metric["units"] == "Latency (ms)" and single.metric["key"] == "early_stopping_latency_ss"
    raw = json.loads(json.dumps(offline.metric))
    assert raw["value"] == pytest.approx(offline.metric["value"])


def test_bad_file_breaks_only_the_results_that_depend_on_it(example: Path) -> None:
    (example / OFFLINE / "performance" / "run_1" / "mlperf_log_detail.txt").write_bytes(b"\x00\x01garbage")
    report = run(example)
    assert {r.location: r.valid for r in report.results} == {OFFLINE: False, SINGLE: True}


def test_parallel_output_equals_serial_output(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "IN_PROCESS_BELOW", 0)  # workers even for a tree this small
    (example / SINGLE / "performance" / "run_1" / "mlperf_log_detail.txt").unlink()
    serial = document(run(example, jobs=1))
    parallel = document(run(example, jobs=2))
    assert serial == parallel
    assert serial["summary"]["invalid"] == 1


def test_rule_exception_becomes_internal_error(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(result, round):
        raise ZeroDivisionError("boom")
        yield  # pragma: no cover

    monkeypatch.setitem(
        RULES,
        "ZZZ999",
        Rule("ZZZ999", "always-broken", "result", Severity.ERROR, "Breaks.\n\nWhy: x\nFix: y\nPolicy: z", broken),
    )
    before = tree_digest(example)
    report = run(example)
    internal = [f for f in report.findings if f.code == "INT001"]
    assert [(f.location, f.observed) for f in internal] == [(OFFLINE, "ZZZ999"), (SINGLE, "ZZZ999")]
    assert "ZeroDivisionError: boom" in internal[0].message
    # The other rules still ran and the tree is untouched.
    assert tree_digest(example) == before
    assert all(not r.valid for r in report.results)


def test_rule_problem_severity_override(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def noting(result, round):
        yield Problem(path=result.location, message="just so you know", severity=Severity.NOTE)

    monkeypatch.setitem(RULES, "ZZZ998", Rule("ZZZ998", "notes", "result", Severity.ERROR, "N.", noting))
    report = run(example)
    assert [(f.code, f.severity) for f in report.findings] == [("ZZZ998", Severity.NOTE)] * 2
    assert all(r.valid for r in report.results)


def test_select_and_ignore(example: Path) -> None:
    (example / OFFLINE / "user.conf").write_text("*.Offline.qsl_rng_seed = 1\n")
    assert [f.code for f in run(example).findings] == ["RNG003"]
    assert run(example, ignore=["RNG"]).findings == []
    assert [f.code for f in run(example, select=["RNG003"]).findings] == ["RNG003"]
    assert run(example, select=["SYS"]).findings == []


def collect_location(result, record) -> str:
    """A collect hook at module level, as workers need it: the folder and the metric's key."""
    return f"{result.location} {record.metric['key']}"


@pytest.mark.parametrize("jobs", [1, 2])
def test_collect_hook_runs_per_result_in_the_workers(example: Path, jobs: int) -> None:
    report = run(example, jobs=jobs, collect=collect_location)
    assert [r.collected for r in report.results] == [
        f"{OFFLINE} result_samples_per_second",
        f"{SINGLE} early_stopping_latency_ss",
    ]
    assert [r.collected for r in run(example, jobs=jobs).results] == [None, None]


def failing_collect(result, record) -> None:
    raise ValueError("no row")


def test_failing_collect_hook_is_an_internal_error_of_that_result(example: Path) -> None:
    report = run(example, collect=failing_collect)
    assert [(f.code, f.location, f.message) for f in report.findings] == [
        (
            "INT001",
            OFFLINE,
            f"collecting with failing_collect failed: ValueError: no row (test_engine.py:{failing_collect.__code__.co_firstlineno + 1})",
        ),
        (
            "INT001",
            SINGLE,
            f"collecting with failing_collect failed: ValueError: no row (test_engine.py:{failing_collect.__code__.co_firstlineno + 1})",
        ),
    ]


def test_auditable_comes_from_the_rounds_audit_block(example: Path) -> None:
    from checker.rounds import load_round

    audit = load_round("v6.1").audit
    assert (audit.divisions, audit.availability, audit.tolerance) == (("closed",), ("available",), 0.02)
    assert [r.facts["auditable"] for r in run(example).results] == [True, True]
    description = example / "closed/MLCheckDemo/systems/cpu-1x-numpy.json"
    description.write_text(description.read_text().replace('"available"', '"preview"'))
    assert [r.facts["auditable"] for r in run(example, select=["SYS"]).results] == [False, False]


def test_selection_filters_findings_it_never_changes_which_exist(example: Path) -> None:
    """A file is judged the same whichever rules are selected: --select LOG003 alone still
    reads the summary that only other rules read, and --ignore of those rules keeps LOG003."""
    summary = example / OFFLINE / "performance" / "run_1" / "mlperf_log_summary.txt"
    summary.write_text("nothing of a summary here\n")
    expected = [("LOG003", f"{OFFLINE}/performance/run_1/mlperf_log_summary.txt")]
    for options in ({"select": ["LOG003"]}, {"select": ["LOG"]}, {"ignore": ["PRF"]}):
        found = [(f.code, f.path) for f in run(example, **options).findings if f.code.startswith("LOG")]
        assert found == expected, options


def test_phases_add_up_and_nest_without_counting_twice(monkeypatch) -> None:
    """A phase's time excludes the phases opened inside it, so a process's phases add up to
    its time inside them; `take` starts again."""
    from checker import phases

    clock = iter([0.0, 1.0, 3.0, 6.0, 8.0, 10.0])  # the readings, as the phases open and close
    monkeypatch.setattr(phases.time, "perf_counter", lambda: next(clock))
    phases.reset()
    with phases.phase("rules"), phases.phase("detail logs"), phases.phase("tree"):
        pass
    # rules 0-1 and 8-10, detail logs 1-3 and 6-8, tree 3-6: 10 seconds in all
    assert phases.take() == {"rules": 3.0, "detail logs": 4.0, "tree": 3.0}
    assert phases.take() == {}


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_report_says_where_the_time_went(example: Path, jobs: int) -> None:
    """Report.phases: the check's own (listing, running units, merging) and its units',
    summed over the workers; the units' phases fit in the time they ran (times the workers)."""
    report = run(example, jobs=jobs)
    assert set(report.phases) == {"listing", "running units", "merging", "rules", "detail logs", "other files", "tree"}
    assert all(seconds >= 0 for seconds in report.phases.values())
    in_units = sum(report.phases[name] for name in ("rules", "detail logs", "other files", "tree"))
    # Not a bound on time: each unit runs inside the parent's "running units" interval, at most
    # `jobs` at once, and every process reads the one monotonic clock, under any load.
    assert 0 < in_units <= jobs * report.phases["running units"]
    assert sum(report.phases[name] for name in ("listing", "running units", "merging")) <= report.elapsed


def test_a_system_unit_weighs_its_detail_logs_and_its_results(example: Path) -> None:
    """What the engine orders the units by, the largest first: a system's detail logs (of its
    performance and accuracy runs) and a share (1 MiB) per result."""
    from checker.engine import _weight
    from checker.rounds import load_round
    from checker.tree import Tree

    logs = [
        example / r / run / "mlperf_log_detail.txt"
        for r in (OFFLINE, SINGLE)
        for run in ("performance/run_1", "accuracy")
    ]
    division, submitter, _, system = OFFLINE.split("/")[:4]
    weights = _weight([(None, division, submitter, system, None)], load_round("v5.1"), Tree(example))
    assert weights == {(division, submitter, system): 2 * 2**20 + sum(log.stat().st_size for log in logs)}


def test_a_light_submission_is_one_task_and_a_heavy_one_is_shared() -> None:
    """What the workers are handed (`_tasks`): a submission whose systems weigh little is one
    task, its own unit first (its walk judges what its systems read, once); a heavy one's
    units are tasks of their own, its own unit before every other task, its systems among
    the rest by weight, the heaviest first."""
    from checker.engine import _tasks

    def unit(submitter: str, system: str | None) -> tuple[None, str, str, str | None, None]:
        return (None, "closed", submitter, system, None)

    units = [unit("A", None), unit("A", "a1"), unit("A", "a2"), unit("B", None), unit("B", "b1")]
    units += [unit("C", None)]  # no system at all
    weights = {("closed", "A", "a1"): 600, ("closed", "A", "a2"): 300, ("closed", "B", "b1"): 50}
    tasks = _tasks(units, weights, 2)  # type: ignore[arg-type]
    assert tasks == [
        [unit("A", None)],
        [unit("A", "a1")],
        [unit("A", "a2")],
        [unit("B", None), unit("B", "b1")],
        [unit("C", None)],
    ]
    # every unit once
    assert sorted(map(repr, (u for t in tasks for u in t))) == sorted(map(repr, units))


def test_a_missing_seed_reads_missing_not_none(example: Path) -> None:
    log = example / OFFLINE / "performance" / "run_1" / "mlperf_log_detail.txt"
    kept = [line for line in log.read_text().splitlines(keepends=True) if '"effective_qsl_rng_seed"' not in line]
    log.write_text("".join(kept))
    (finding,) = [f for f in run(example).findings if f.code == "RNG001"]
    assert finding.message.startswith("effective_qsl_rng_seed is missing, the round's is ")


def test_units_run_with_fewer_collections_and_the_collector_is_put_back(monkeypatch) -> None:
    """In this process (jobs=1, as the API runs), units run with the collector at
    GC_THRESHOLD, and the caller's setting is back after the check, whatever it was."""
    import gc

    from helpers import EXAMPLE

    seen: list[int] = []
    real = engine._run_unit

    def recording(unit):
        seen.append(gc.get_threshold()[0])
        return real(unit)

    monkeypatch.setattr(engine, "_run_unit", recording)
    before = gc.get_threshold()
    try:
        gc.set_threshold(321, 7, 5)
        run(EXAMPLE)
        assert gc.get_threshold() == (321, 7, 5)
    finally:
        gc.set_threshold(*before)
    assert seen and set(seen) == {engine.GC_THRESHOLD} and engine.GC_THRESHOLD == 10_000


def _properties() -> Iterator[tuple[str, Any]]:
    """Every hypothesis property of the suite, by name, with the settings it runs with."""
    import importlib
    import inspect

    from hypothesis import settings

    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        module = importlib.import_module(path.stem)
        holders = [module, *(c for _, c in inspect.getmembers(module, inspect.isclass) if c.__module__ == path.stem)]
        for holder in holders:
            for name, value in vars(holder).items():
                if hasattr(value, "hypothesis"):  # what @given makes
                    used = getattr(value, "_hypothesis_internal_use_settings", settings.default)
                    yield f"{path.stem}.{getattr(holder, '__name__', '')}.{name}", used


def test_no_test_asserts_on_time() -> None:
    """Every hypothesis property of every test module runs with no deadline and with the
    too_slow health check off (conftest's profile), whatever its own settings say, and no
    test sets a deadline: either fails a test on a loaded machine. Timings belong in
    benchmarks/."""
    import re

    from hypothesis import HealthCheck, settings

    assert settings.default.deadline is None and HealthCheck.too_slow in settings.default.suppress_health_check
    found = dict(_properties())
    assert len(found) > 50  # the suite's properties were found
    late = sorted(name for name, used in found.items() if used.deadline is not None)
    slow = sorted(name for name, used in found.items() if HealthCheck.too_slow not in used.suppress_health_check)
    assert (late, slow) == ([], [])
    tests = Path(__file__).parent
    timed = [
        f"{path.name}:{number}"
        for path in sorted(tests.glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"(^|[(,])\s*deadline=(?!None)", line)  # a settings' keyword, not a polling loop's variable
    ]
    assert timed == []
