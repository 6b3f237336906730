"""Where the tests find the real data: MLPERF_CHECK_REAL (the folder of the slices v5.1/, v6.0/,
v6.1/) and MLPERF_CHECK_TABLES (the published tables), else shared/ beside the project; and a
test whose data is absent is skipped with a reason that names the variable to set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REAL_VARIABLE, ROOT, SUBSET, TABLES_VARIABLE, absent, data_roots


def test_default_is_shared_beside_the_project(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "real").mkdir(parents=True)
    assert data_roots({}, shared) == (shared / "real", shared / "tables")
    assert data_roots({REAL_VARIABLE: ""}, shared) == data_roots({}, shared)


def test_without_shared_the_committed_subset(tmp_path: Path) -> None:
    """A fresh clone in an empty folder reads the committed subset: its slices and tables."""
    assert data_roots({}, tmp_path / "shared") == ((SUBSET / "real").resolve(), (SUBSET / "tables").resolve())
    assert data_roots({REAL_VARIABLE: str(tmp_path / "a")}, tmp_path / "shared")[0] == tmp_path / "a"


def test_the_committed_subset_is_small_attributed_and_its_rows_its_own() -> None:
    """At most 10 MB; its README names every submitter folder; each slice's published rows are
    the rows of exactly the results it holds (as ../shared's: the ground truth of test_real.py)."""
    import json

    files = [p for p in SUBSET.rglob("*") if p.is_file() and not p.is_symlink()]
    assert sum(p.stat().st_size for p in files) <= 10 * 1000 * 1000
    readme = (SUBSET / "README.md").read_text()
    folders = sorted(str(p.relative_to(SUBSET / "real")) for p in SUBSET.glob("real/v*/*/*") if p.is_dir())
    assert folders and all(folder.split("/", 1)[1] in readme for folder in folders), folders
    for round_name in ("v5.1", "v6.0"):
        rows = json.loads((SUBSET / "real" / round_name / "summary_results.json").read_text())
        submitters = {tuple(row["Location"].removeprefix("./").split("/")[:2]) for row in rows}
        held = {tuple(p.relative_to(SUBSET / "real" / round_name).parts) for p in SUBSET.glob(f"real/{round_name}/*/*")}
        assert submitters == {h for h in held if len(h) == 2}, (round_name, submitters, held)


def test_the_variables_point_elsewhere(tmp_path: Path) -> None:
    real, tables = data_roots({REAL_VARIABLE: str(tmp_path / "slices")})
    assert (real, tables) == (tmp_path / "slices", tmp_path / "tables")  # tables beside the slices by default
    assert data_roots({REAL_VARIABLE: str(tmp_path / "a"), TABLES_VARIABLE: str(tmp_path / "t")}) == (
        tmp_path / "a",
        tmp_path / "t",
    )


@pytest.mark.slow
def test_skip_reasons_name_the_variable(tmp_path: Path) -> None:
    """Every test marked `real`, against an empty folder: none fails, those that need the slices
    or the tables are skipped, and every reason names the variable to set."""
    env = {k: v for k, v in os.environ.items() if k not in (REAL_VARIABLE, TABLES_VARIABLE)}
    env[REAL_VARIABLE] = str(tmp_path / "empty")
    (tmp_path / "empty").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-m", "real", "tests"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    reasons = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert reasons, done.stdout
    assert all(REAL_VARIABLE in line for line in reasons), "\n".join(reasons)
    assert any(f"{tmp_path / 'empty'}/v5.1 is not present: set {REAL_VARIABLE}" in line for line in reasons)
    assert any(TABLES_VARIABLE in line for line in reasons), "\n".join(reasons)  # the tables beside it are absent too
    summary = done.stdout.strip().splitlines()[-1]
    assert " failed" not in summary and " error" not in summary and "skipped" in summary, summary


def test_absent_names_the_variable_of_the_folder() -> None:
    real, tables = data_roots()
    assert f"set {REAL_VARIABLE}" in absent(real / "v6.0")
    assert f"set {TABLES_VARIABLE}" in absent(tables / "v6.1" / "summary.json")
