"""Truncation in the round's script's text mode (issue 33): the script reads and writes its
files as Python text, so a CRLF or lone-CR log keeps 4096 characters after newline
translation, not 4096 bytes, and a lone-CR accuracy.txt has its hash line found.
fixtures/truncation/text-mode holds what the script itself wrote on generated inputs (any
line endings, sizes around 8,192 bytes, unicode): `prepare` writes the same bytes. The
property compares the reading with Python's own text I/O, which the script reads with."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from checker.commands.prepare import prepare
from checker.commands.prepare_truncate import has_hash, read_log
from checker.rounds import load_round
from helpers import EXAMPLE, ROOT, SUBMISSION

CASES = ROOT / "fixtures" / "truncation" / "text-mode"
RESULT = "demo-mlp-99/Offline/accuracy"
FACTS = load_round("demo-v6.1").prepare.truncation


def _tree(root: Path) -> list[str]:
    """The example with one system per case, its Offline accuracy log and report the case's input."""
    shutil.copytree(EXAMPLE, root, symlinks=True)
    sub = root / SUBMISSION
    names = sorted(p.name for p in (CASES / "input").iterdir())
    for name in names:
        shutil.copytree(sub / "results" / "cpu-1x-numpy", sub / "results" / name, symlinks=True)
        shutil.copyfile(sub / "systems" / "cpu-1x-numpy.json", sub / "systems" / f"{name}.json")
        for path in (CASES / "input" / name).iterdir():
            shutil.copyfile(path, sub / "results" / name / RESULT / path.name)
    return names


def test_prepare_writes_what_the_script_wrote_for_every_line_ending(tmp_path: Path) -> None:
    names = _tree(tmp_path / "src")
    assert len(names) == 9
    done = prepare(str(tmp_path / "src"), str(tmp_path / "dest"), "demo-v6.1", jobs=1)
    assert done.exit_code == 0
    for name in names:
        for path in sorted((CASES / "output" / name).iterdir()):
            written = tmp_path / "dest" / SUBMISSION / "results" / name / RESULT / path.name
            assert written.read_bytes() == path.read_bytes(), (name, path.name)


def test_the_issues_cases() -> None:
    """A CRLF log of 8,199 bytes: 8,148 kept (the script's), not 8,199; a lone-CR report's hash
    line is found, so a log under 10 KiB beside it is left whole."""
    crlf = (CASES / "input" / "case1-crlf-8199" / "mlperf_log_accuracy.json").read_bytes()
    assert len(crlf) == 8199 and len(read_log([crlf], FACTS).kept) == 8148
    report = (CASES / "input" / "case6-lone-cr-report-hashed" / "accuracy.txt").read_bytes()
    assert b"\n" not in report and has_hash([report], FACTS.hash_line)


def _script_reading(data: bytes) -> bytes:
    """What Python's text mode (UTF-8, universal newlines) reads where the script reads: 4096
    characters from the start, and from byte size - 4096 to the end; written with `\\n`."""
    if len(data) < FACTS.cut_from_bytes:
        return data
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    start = text.read(FACTS.head_bytes)
    text.seek(len(data) - FACTS.tail_bytes, 0)
    return (start + FACTS.separator + text.read(FACTS.tail_bytes)).encode("utf-8")


PIECES = st.sampled_from(["a", '{"k": 1}', " ", "\n", "\r\n", "\r", "é", "€", "☃", "𝄞", ",", "\r\r\n"])


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.lists(PIECES, min_size=0, max_size=4000), st.integers(min_value=1, max_value=9000))
def test_the_kept_bytes_are_what_text_mode_reads(pieces: list[str], chunk: int) -> None:
    data = "".join(pieces).encode("utf-8")
    try:
        expected = _script_reading(data)
    except UnicodeDecodeError:  # byte size - 4096 inside a character: the script fails there
        return
    chunks = [data[i : i + chunk] for i in range(0, len(data), chunk)] or [b""]
    assert read_log(chunks, FACTS).kept == expected


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(["accuracy=1%", "hash=00ff", "x", "\n", "\r\n", "\r", " "]), max_size=30))
def test_a_hash_line_is_found_as_text_mode_splits_lines(pieces: list[str]) -> None:
    import re

    data = "".join(pieces).encode()
    lines = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    expected = any(re.match(FACTS.hash_line, line) for line in lines)
    assert has_hash([data[:7], data[7:]], FACTS.hash_line) == expected
