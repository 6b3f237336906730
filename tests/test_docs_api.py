"""The Python examples of docs/api.md and docs/partner.md run, as doctests, and print what the pages show.

A page's ```python blocks are one doctest session (in page order; what one block defines,
the next uses), run from a fresh folder with MLPERF_CHECK_REAL and MLPERF_CHECK_TABLES naming
the real data (tests/helpers.py: the same defaults as every real test). Every public name of
mlperf_check is documented in docs/api.md, and nothing else is public."""

from __future__ import annotations

import doctest
import os
import re
from pathlib import Path

import pytest

from helpers import REAL_ROOT, REAL_VARIABLE, ROOT, TABLES_ROOT, TABLES_VARIABLE, real_data

PAGES = ["docs/api.md", "docs/partner.md"]
PYTHON_BLOCK = re.compile(r"^```python\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)


def python_blocks(page: Path) -> tuple[str, int]:
    """The page's ```python blocks as one doctest text (every other line blank, so that a
    failure names the page's line), and how many blocks there are."""
    text = page.read_text(encoding="utf-8")
    kept = [" " * len(line) if not line.strip() else "" for line in text.split("\n")]
    blocks = list(PYTHON_BLOCK.finditer(text))
    for block in blocks:
        first = text.count("\n", 0, block.start("body"))
        for offset, line in enumerate(block["body"].split("\n")):
            kept[first + offset] = line
    return "\n".join("" if not line.strip() else line for line in kept), len(blocks)


def test_every_public_name_is_documented() -> None:
    import mlperf_check

    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `(\w+)", page, re.MULTILINE))
    assert documented == set(mlperf_check.__all__)
    assert all(hasattr(mlperf_check, name) for name in mlperf_check.__all__)


@pytest.mark.slow
@pytest.mark.real
@pytest.mark.parametrize("page", PAGES)
@pytest.mark.full
def test_python_examples_run(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_data(REAL_ROOT)
    real_data(TABLES_ROOT)
    text, count = python_blocks(ROOT / page)
    assert count > 0, f"{page} has no python example"
    monkeypatch.setenv(REAL_VARIABLE, str(REAL_ROOT))
    monkeypatch.setenv(TABLES_VARIABLE, str(TABLES_ROOT))
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(text, {"__name__": "docs"}, page, str(ROOT / page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures: list[str] = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
    assert os.getcwd() == str(tmp_path)
