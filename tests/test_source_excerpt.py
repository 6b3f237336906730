"""The full view's source line (attack24 V1, V4, L2): one definition of a line (`\\n`, as the
parsers and checker.locate count), a bounded window around the column read in bounded
memory (elided with `…`, as ruff and rustc do), and the caret under the column as a
terminal shows it (a wide character takes two cells)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from checker.findings import Finding, Report, Severity
from checker.reporters import text_report
from checker.reporters.common import visible
from checker.rounds import load_round

# ASCII, a lone `\r`, a tab and an escape (shown as escapes), CJK (two cells), an emoji
ALPHABET = st.sampled_from(list('ab xy:"{}') + ["\r", "\t", "\x1b", "日", "本", "é", "😀"])
LINES = st.lists(st.text(ALPHABET, max_size=40), min_size=1, max_size=6)


def _finding(line: int | None, column: int | None, path: str = "f.json") -> Finding:
    return Finding("SYS001", Severity.ERROR, path, "m", pointer="/x", line=line, column=column)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(lines=LINES, data=st.data(), window=st.integers(4, 30), chunk=st.integers(1, 9))
def test_the_excerpt_is_the_window_of_the_line_as_split_at_newlines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str], data: st.DataObject, window: int, chunk: int
) -> None:
    """For every line (split at `\\n` only), column and window, read a few bytes at a time:
    the excerpt is the line's characters [start, start + window), start half a window before
    the column; `at` is the column's index in it; left/right say whether the line goes on."""
    monkeypatch.setattr(text_report, "_CHUNK", chunk)
    (tmp_path / "f.json").write_bytes("\n".join(lines).encode())
    number = data.draw(st.integers(1, len(lines)))
    line = lines[number - 1]
    whole = line[:-1] if line.endswith("\r") else line  # `\r\n` ends a line too
    column = data.draw(st.none() | st.integers(1, len(whole) + 1))
    excerpt = text_report.source_line(str(tmp_path), _finding(number, column), window)
    if number == len(lines) and not line:  # the file ends with `\n` (or is empty): no such line
        assert excerpt is None
        return
    assert excerpt is not None
    start = 0 if column is None else max(column - 1 - window // 2, 0)
    assert excerpt.text == whole[start : start + window]
    assert (excerpt.left, excerpt.right) == (start > 0, len(whole) > start + window)
    if column is not None:
        assert excerpt.at == column - 1 - start
        assert excerpt.text[excerpt.at : excerpt.at + 1] == whole[column - 1 : column]


def test_a_line_past_the_end_of_the_file_shows_nothing(tmp_path: Path) -> None:
    (tmp_path / "f.json").write_bytes(b"a\n")
    assert text_report.source_line(str(tmp_path), _finding(2, 1)) is None
    assert text_report.source_line(str(tmp_path), _finding(3, None)) is None
    assert text_report.source_line(str(tmp_path), _finding(1, 1)) == text_report.Excerpt("a", 0, False, False)


def _full(root: Path, finding: Finding) -> list[str]:
    report = Report(round=load_round("demo-v6.1"), root=str(root), results=[], findings=[finding])
    out = io.StringIO()
    text_report.write(report, out, color="never", view="full")
    return out.getvalue().splitlines()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(line=st.text(ALPHABET, min_size=1, max_size=200), data=st.data())
def test_the_caret_is_under_the_column_as_a_terminal_shows_it(tmp_path: Path, line: str, data: st.DataObject) -> None:
    """The caret's cell is the display width (rich.cells.cell_len) of what the source line
    shows before the column's character: a CJK character or an emoji counts two cells, an
    escaped control character its escape, an elided start one `…`."""
    column = data.draw(st.integers(1, len(line)))
    (tmp_path / "f.json").write_text(line, encoding="utf-8", newline="")
    shown, caret = _full(tmp_path, _finding(1, column))[3:5]
    assert shown.startswith("    1 | ") and caret.startswith("     | ")
    source, spaces = shown[len("    1 | ") :], len(caret) - len("     | ") - 1
    excerpt = text_report.source_line(str(tmp_path), _finding(1, column))
    assert excerpt is not None and excerpt.at is not None
    before = ("…" if excerpt.left else "") + visible(excerpt.text[: excerpt.at])
    assert source.startswith(before)
    assert spaces == cell_len(before)
    assert caret.endswith("^") and len(source) <= 2 * (text_report.WINDOW + 2) * 6


def test_wide_characters_before_the_key_move_the_caret_two_cells_each(tmp_path: Path) -> None:
    """attack24 L2: `"日本": 1, ` before `"status"`: the caret under the `"` of `"status"`."""
    (tmp_path / "f.json").write_text('{"日本": 1, "status": "x"}\n', encoding="utf-8")
    lines = _full(tmp_path, _finding(1, 11))
    assert lines[3:5] == ['    1 | {"日本": 1, "status": "x"}', "     | " + " " * 12 + "^"]


def test_a_lone_carriage_return_does_not_end_a_line(tmp_path: Path) -> None:
    """attack24 V4: line 2 (as the parsers count, at `\\n`) is the one shown, its `\\r` escaped."""
    (tmp_path / "user.conf").write_bytes(b"# old mac note\rsecond part\n*.Offline.qsl_rng_seed = 7\r\n")
    lines = _full(tmp_path, _finding(2, 1, "user.conf"))
    assert lines[3:5] == ["    2 | *.Offline.qsl_rng_seed = 7", "     | ^"]
    lines = _full(tmp_path, _finding(1, 16, "user.conf"))
    assert lines[3:5] == ["    1 | # old mac note\\rsecond part", "     |                 ^"]


def test_a_30_mib_line_shows_a_window_around_the_column(tmp_path: Path) -> None:
    """attack24 V1: a minified system description with a 30 MiB member: the view shows
    WINDOW characters around the column, elided on both sides, not the whole line."""
    column = 30 * 1024 * 1024
    (tmp_path / "f.json").write_bytes(b'{"hw_notes": "' + b"x" * (column - 15) + b'",}')
    lines = _full(tmp_path, _finding(1, column))
    half = text_report.WINDOW // 2
    assert lines[3] == "    1 | …" + "x" * half + '",}'
    assert lines[4] == "     | " + " " * (half + 1) + "^"
    assert len("\n".join(lines)) < 1000
    lines = _full(tmp_path, _finding(1, 1))
    assert lines[3] == '    1 | {"hw_notes": "' + "x" * (text_report.WINDOW - 14) + "…"
