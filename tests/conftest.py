"""Fixtures: private copies of the bundled example, and the real v5.1 slice (read-only, where
MLPERF_CHECK_REAL points; see helpers.py)."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from checker.engine import load_all
from helpers import CHROMIUM, CHROMIUM_FLAGS, EXAMPLE, ON_SUBSET, REAL, SUBSET, real_data

# No test asserts on time: hypothesis' default deadline (200 ms an example) and its too_slow
# health check (examples slow to make) fail a test on a loaded machine, so every property runs
# without either (an example's own settings inherit them; one that names the health checks it
# suppresses names too_slow too: tests/test_engine.py checks every property's settings).
# Timings belong in benchmarks/.
settings.register_profile("no-deadline", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("no-deadline")

load_all()

# The tests' own cache folder (checker/cache.py), for every check they run, in this process
# and in the commands they start: never the user's; and a fresh one for each test, so that
# no test reads what another (perhaps with a parser or a rule patched) left there.
os.environ["MLPERF_CHECK_CACHE_DIR"] = _CACHE = tempfile.mkdtemp(prefix="mlperf-check-tests-cache-")
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """A private copy of the bundled example submission, free to corrupt."""
    target = tmp_path / "submission"
    shutil.copytree(EXAMPLE, target, symlinks=True)
    return target


@pytest.fixture(scope="session")
def real() -> Path:
    return real_data(REAL)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that reads the real data is slow too: the fast tier (`-m "not slow"`) needs no
    data beside the project."""
    for item in items:
        if item.get_closest_marker("real") is not None and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A real-data test marked `full` needs the whole slices: on the committed subset
    (tests/data/real-subset, where ../shared is absent) it is skipped, saying so. Each test
    gets a cache folder of its own (checker/cache.py)."""
    os.environ["MLPERF_CHECK_CACHE_DIR"] = tempfile.mkdtemp(prefix="test-", dir=_CACHE)
    if ON_SUBSET and item.get_closest_marker("full") and item.get_closest_marker("real"):
        pytest.skip(f"needs the whole real slices, not the committed subset {SUBSET.name}: set MLPERF_CHECK_REAL")


_WORKERS_TALLY: dict[str, int] = {}  # what pytest-xdist's workers counted (.ci/check runs -n auto)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A pytest-xdist worker hands its tally of documented commands to the controller."""
    docs = sys.modules.get("test_docs")
    output = getattr(session.config, "workeroutput", None)
    if docs is not None and output is not None:
        output["docs_tally"] = dict(docs.TALLY)


def pytest_testnodedown(node, error) -> None:  # a pytest-xdist hook: one worker ended
    for key, count in getattr(node, "workeroutput", {}).get("docs_tally", {}).items():
        _WORKERS_TALLY[key] = _WORKERS_TALLY.get(key, 0) + count


def pytest_terminal_summary(terminalreporter) -> None:
    """How many of the commands that README.md and docs/*.md show ran (tests/test_docs.py),
    in this process or summed over pytest-xdist's workers."""
    docs = sys.modules.get("test_docs")
    if docs is None and _WORKERS_TALLY:
        import test_docs as docs
    if docs is None:
        return
    for key, count in _WORKERS_TALLY.items():
        docs.TALLY[key] += count
    if docs.TALLY["blocks"] + docs.TALLY["skipped"]:
        terminalreporter.write_line(docs.summary())


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """The system Chromium, headless, through Playwright (a browser download is impossible
    here: .ci/run installs Debian's); skipped, saying why, where it cannot start."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError as error:
        pytest.skip(f"Playwright for Python is not installed ({error}); pip install -e '.[test]'")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (.ci/run does)")
    manager = sync_playwright().start()
    try:
        # Playwright gives the browser a new, empty --user-data-dir of its own.
        browser = manager.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
    except Error as error:
        manager.stop()
        pytest.skip(f"Chromium at {CHROMIUM} cannot be started: {str(error).splitlines()[0]}")
    yield browser
    browser.close()
    manager.stop()
