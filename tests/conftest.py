"""Fixtures: private copies of the bundled example, and the real v5.1 slice (read-only)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from checker.engine import load_all
from helpers import EXAMPLE, REAL

load_all()


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """A private copy of the bundled example submission, free to corrupt."""
    target = tmp_path / "submission"
    shutil.copytree(EXAMPLE, target, symlinks=True)
    return target


@pytest.fixture(scope="session")
def real() -> Path:
    if not REAL.is_dir():
        pytest.skip("../shared/real/v5.1 is not present")
    return REAL
