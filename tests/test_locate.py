"""checker/locate.py: the line and column of a finding's pointer in its file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.findings import Finding, Severity
from checker.locate import place as locate
from checker.locate import positions
from helpers import calls

RECORD = ':::MLLOG {{"key": "{key}", "value": {value}, "time_ms": 0.1, "namespace": "mlperf::logging"}}\n'


def _log(tmp_path: Path, *records: tuple[str, object]) -> Path:
    path = tmp_path / "mlperf_log_detail.txt"
    path.write_text("".join(RECORD.format(key=key, value=json.dumps(value)) for key, value in records))
    return path


def test_a_loadgen_key_is_its_first_record_at_its_value(tmp_path: Path) -> None:
    log = _log(tmp_path, ("loadgen_version", "6.0"), ("effective_qsl_rng_seed", 1), ("effective_qsl_rng_seed", 2))
    assert positions(str(log), {"effective_qsl_rng_seed", "line 3", "absent_key"}) == {
        "effective_qsl_rng_seed": (2, 53),
        "line 3": (3, 53),  # a line of a log: the column of its record's value
    }


def test_a_long_log_line_is_read_past_without_being_held(tmp_path: Path) -> None:
    path = tmp_path / "mlperf_log_detail.txt"
    long = RECORD.format(key="huge", value=json.dumps("x" * 300_000))
    path.write_text(long + RECORD.format(key="result_validity", value='"VALID"'))
    assert positions(str(path), {"result_validity"}) == {"result_validity": (2, 46)}


def test_a_json_pointer_is_its_members_key(tmp_path: Path) -> None:
    path = tmp_path / "system.json"
    path.write_text('{\n  "a": 1,\n  "ü": {"b": [10, {"c": "x"}]},\n  "a": 2\n}\n')
    assert positions(str(path), {"/a", "/ü/b/1/c", "/ü/b/0", "/missing", "/ü/nothing", ""}) == {
        "/a": (4, 3),  # a key given twice: the last, as json reads it
        "/ü/b/1/c": (3, 20),  # columns count characters, not bytes
        "/ü/b/0": (3, 15),
        "/missing": (1, 1),  # a member that is not there: the object that lacks it
        "/ü/nothing": (3, 3),
        "": (1, 1),
    }


def test_broken_json_places_what_comes_before_the_fault(tmp_path: Path) -> None:
    path = tmp_path / "system.json"
    path.write_text('{\n  "status": "available",,\n  "framework": "x"\n}\n')
    assert positions(str(path), {"/status", "/framework", "byte 24"}) == {
        "/status": (2, 3),
        "/framework": (1, 1),
        "byte 24": (2, 23),
    }


def test_a_yaml_key_by_its_dotted_path_and_a_text_key_where_its_reader_read_it(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("type: offline\nsettings:\n  runtime:\n    min_duration_ms: 600000\n")
    assert positions(str(config), {"settings.runtime.min_duration_ms", "type", "runtime.gone", "/settings"}) == {
        "settings.runtime.min_duration_ms": (4, 5),
        "type": (1, 1),
        "/settings": (2, 1),
    }
    summary = tmp_path / "mlperf_log_summary.txt"
    summary.write_text(
        "Completed samples per second: 3\n  Samples per second: 4\n* Result is : VALID\naccuracy=89.0%\n"
    )
    # A name is placed where parsers/text.py read it, never by a word of the text (`acc`).
    assert positions(str(summary), {"Samples per second", "Result is", "acc"}) == {
        "Samples per second": (2, 3),
        "Result is": (3, 3),
    }


def test_no_place_is_read_from_a_fifo_a_folder_or_a_link_out_of_the_tree(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    os.mkfifo(tree / "fifo.json")
    (tree / "real.json").write_text('{"a": 1}')
    (outside / "far.json").write_text('{"a": 1}')
    (tree / "link.json").symlink_to(tree / "real.json")
    (tree / "out.json").symlink_to(outside / "far.json")
    for name in ("fifo.json", "out.json", "."):
        assert positions(str(tree / name), {"/a", "line 2"}) == {"line 2": (2, None)}
    # A link that stays in the tree is read, as the engine reads it (P4).
    assert locate(str(tree), [Finding("AVL001", Severity.ERROR, "link.json", "m", pointer="/a")])[0].line == 1


def test_locate_sets_the_place_of_each_finding_once_per_file(tmp_path: Path) -> None:
    _log(tmp_path, ("effective_scenario", "Offline"))
    found = [
        Finding("PRF010", Severity.ERROR, "mlperf_log_detail.txt", "m", pointer="effective_scenario"),
        Finding("PRF012", Severity.ERROR, "mlperf_log_detail.txt", "m", pointer="line 1", line=9),
        Finding("FIL001", Severity.ERROR, "gone.txt", "m", pointer="x"),
        Finding("STR007", Severity.WARNING, "folder", "m"),
    ]
    assert [(f.line, f.column) for f in locate(str(tmp_path), found)] == [
        (1, 49),
        (9, None),  # a line carried: kept (the log has no line 9, so no column)
        (None, None),
        (None, None),
    ]


_KEYS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=12,
)


def _members(value: object, pointer: str = "") -> list[tuple[str, str]]:
    """(JSON pointer, key) of every member of an object in `value`."""
    found = []
    if isinstance(value, dict):
        for key, inner in value.items():
            inner_pointer = f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}"
            found += [(inner_pointer, key), *_members(inner, inner_pointer)]
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _members(inner, f"{pointer}/{index}")
    return found


@settings(max_examples=150, deadline=None)
@given(document=_JSON, indent=st.sampled_from([None, 1, 2, "\t"]), ascii=st.booleans())
def test_every_json_member_is_placed_at_its_key(tmp_path_factory, document, indent, ascii) -> None:
    """Whatever the document and its layout, a member's place is where its key is written."""
    text = json.dumps(document, indent=indent, ensure_ascii=ascii)
    path = tmp_path_factory.mktemp("json") / "doc.json"
    path.write_text(text, encoding="utf-8")
    members = _members(document)
    placed = positions(str(path), {pointer for pointer, _ in members})
    lines = text.split("\n")
    for pointer, key in members:
        line, column = placed[pointer]
        assert column is not None
        assert lines[line - 1][column - 1 :].startswith(json.dumps(key, ensure_ascii=ascii)), pointer


@settings(max_examples=100, deadline=None)
@given(
    line=st.none() | st.integers(1, 10**6),
    column=st.none() | st.integers(1, 500),
    pointer=st.sampled_from([None, "/status", "result_validity", "line 7"]),
)
def test_every_format_shows_the_same_place(line, column, pointer) -> None:
    """GitHub, SARIF, JUnit, JSON and `place` (the text and concise views) show one place: the line,
    and the column when there is one (never a column without a line)."""
    from checker.reporters import github_report, junit_report, sarif_report
    from checker.reporters.common import place

    column = column if line is not None else None
    finding = Finding("RNG001", Severity.ERROR, "a/b.txt", "m", pointer=pointer, line=line, column=column)
    shown = ("" if line is None else f":{line}") + ("" if column is None else f":{column}")
    assert place(finding) == "a/b.txt" + shown
    assert f"a/b.txt{shown}" in junit_report._where(finding)
    properties = github_report.annotation(finding, "").split("::")[1]
    assert ("" if line is None else f",line={line}") + ("" if column is None else f",col={column}") in properties
    assert ("line=" in properties) is (line is not None) and ("col=" in properties) is (column is not None)
    region = sarif_report._location(finding, "")["physicalLocation"].get("region")
    expected = None if line is None else {"startLine": line} | ({} if column is None else {"startColumn": column})
    assert region == expected
    written = finding.to_dict()  # the JSON report's finding
    assert (written.get("line"), written.get("column")) == (line, column)


def test_a_dotted_name_may_hold_keys_with_dots_and_a_large_json_is_not_followed(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "result_summary.json"
    path.write_text('{\n "tpot": {\n  "percentiles": {"99.0": 1, "99.9": 2}\n },\n "tps": 3\n}\n')
    assert positions(str(path), {"tpot.percentiles.99.9", "tps", "tpot.gone"}) == {
        "tpot.percentiles.99.9": (3, 30),
        "tps": (5, 2),
    }
    monkeypatch.setattr("checker.locate.MAX_JSON", 10)
    assert positions(str(path), {"/tps", "line 2"}) == {"line 2": (2, None)}


_LOG_KEYS = st.sampled_from(["effective_qsl_rng_seed", "result_validity", "effective_scenario", "ünï_key"])
# A line of a log: a record, a broken copy of one (no comma before "time_ms": LOG001, not
# read), a note that names a key (not a record), or a blank line.
_LOG_LINES = st.lists(
    st.tuples(st.sampled_from(["record", "broken", "note", "blank"]), _LOG_KEYS, st.integers(-(2**63), 2**64)),
    max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(lines=_LOG_LINES, bom=st.booleans())
def test_a_log_key_is_placed_at_the_record_the_parser_read(tmp_path_factory, lines, bom) -> None:
    """attack24 P1/P2: whatever broken copies, notes and blank lines come before, and whatever
    the first line is, a key is at its first readable record, at the column of its value."""
    texts, first = ["\ufeffloadgen: a note\n" if bom else ""], {}
    for kind, key, value in lines:
        number = len([t for t in texts if t]) + 1
        if kind == "record":
            texts.append(RECORD.format(key=key, value=value))
            first.setdefault(key, (number, len(f':::MLLOG {{"key": "{key}", "value": ') + 1))
        elif kind == "broken":
            texts.append(f':::MLLOG {{"key": "{key}", "value": {value} "time_ms": 0.1}}\n')
        else:
            texts.append(f"{key} = {value}\n" if kind == "note" else "\n")
    path = tmp_path_factory.mktemp("log") / "mlperf_log_detail.txt"
    path.write_text("".join(texts), encoding="utf-8")
    keys = {"effective_qsl_rng_seed", "result_validity", "effective_scenario", "ünï_key"}
    assert positions(str(path), keys) == {key: place for key, place in first.items() if key.isascii()}


_CONF_KEYS = st.sampled_from(["*.Offline.qsl_rng_seed", "m.Server.target_qps", "*.*.min_duration"])


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(st.tuples(st.sampled_from(["set", "comment", "blank"]), _CONF_KEYS, st.text(" \t", max_size=2))))
def test_a_setting_is_placed_at_the_line_parse_conf_read(tmp_path_factory, lines) -> None:
    """attack24 P3: a comment naming a setting is not it; a key set twice is at its last line,
    whose value parse_conf keeps; the column is where the key starts."""
    texts, last = [], {}
    for number, (kind, key, indent) in enumerate(lines, 1):
        if kind == "set":
            texts.append(f"{indent}{key} = 7 # {key} was 5\n")
            last[key] = (number, len(indent) + 1)
        else:
            texts.append(f"# {key} = 1 was tried\n" if kind == "comment" else f"{indent}\n")
    path = tmp_path_factory.mktemp("conf") / "user.conf"
    path.write_text("".join(texts))
    assert positions(str(path), {"*.Offline.qsl_rng_seed", "m.Server.target_qps", "*.*.min_duration"}) == last


def test_a_long_dotted_name_is_placed_in_linear_time(tmp_path: Path) -> None:
    """attack24 P9: a name of 61 dotted parts is read as the Endpoints reader reads it (the
    longest key at each level), never by trying every way to cut it; a user.conf is read as
    one whatever its first character. Work counted, not timed: twice the parts cost at most
    about twice the calls (trying every cut doubles them with each part)."""

    def place(parts: int) -> int:
        name = ".".join(["a"] * parts) + ".qsl_rng_seed"
        conf = tmp_path / f"user-{parts}.conf"
        conf.write_text(f"{{ not json\n{name} = 1\n")
        document = tmp_path / f"config-{parts}.json"
        document.write_text(json.dumps({"a.a": {"a": {"x": 1}}, "a": {"a.a": 2}}))

        def both() -> None:
            assert positions(str(conf), {name}) == {name: (2, 1)}
            assert positions(str(document), {name, "a.a.a.x", "a.a.a"}) == {"a.a.a.x": (1, 16), "a.a.a": (1, 10)}

        both()  # once before counting: compiled patterns and caches are the same for both sizes
        return calls(both)

    small, large = place(30), place(60)
    assert large < 2 * small + 200, (small, large)


def test_a_line_gets_the_column_its_reader_knows(tmp_path: Path) -> None:
    """attack24 L1/P5: a broken JSON file's FIL007 has the decode error's column, a log's
    `line N` the column of its record's value."""
    _log(tmp_path, ("loadgen_version", "6.0"), ("error_invalid_config", "bad"))
    found = Finding("PRF012", Severity.ERROR, "mlperf_log_detail.txt", "m", pointer="line 2")
    placed = locate(str(tmp_path), [found])[0]
    assert (placed.line, placed.column) == (2, len(':::MLLOG {"key": "error_invalid_config", "value": ') + 1)
    # FIL007's column is stated by fixtures/cases/FIL007.yaml (trailing-comma: 4:25).


@settings(max_examples=100, deadline=None)
@given(
    lines=st.lists(
        st.tuples(
            st.sampled_from(["Samples per second", "Result is", "Scenario"]),
            st.sampled_from(["", "  ", "* ", "  * "]),
            st.sampled_from(["line", "banner", "blank"]),
        ),
        max_size=10,
    )
)
def test_a_summary_name_is_placed_at_the_line_parse_summary_read(tmp_path_factory, lines) -> None:
    """A summary's name is at the first `name : value` line that names it (the one
    parse_summary keeps), at the column of the name without its asterisks; a banner line
    (`=` first) that holds the name is not it."""
    from checker.parsers.text import parse_summary

    texts, first = [], {}
    for number, (name, lead, kind) in enumerate(lines, 1):
        if kind == "line":
            texts.append(f"{lead}{name} : 1\n")
            first.setdefault(name, (number, len(lead) + 1))
        else:
            texts.append(f"=== {name} : 2 ===\n" if kind == "banner" else "\n")
    path = tmp_path_factory.mktemp("summary") / "mlperf_log_summary.txt"
    path.write_text("".join(texts))
    assert positions(str(path), {"Samples per second", "Result is", "Scenario"}) == first
    summary, _ = parse_summary("".join(texts))
    assert {name.lstrip(" *") for name in summary.fields} == set(first)


def test_each_container_is_scanned_once_however_many_pointers_share_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """attack24 P8: thirty findings on one 4 MB system description cost one scan of it (it
    took 13 s when each pointer walked the document again), placed exactly as one at a time."""
    from checker import locate as module

    members = {f"field_{n}": "x" * 100_000 for n in range(40)}
    document = tmp_path / "system.json"
    document.write_text(json.dumps(members, indent=2))
    wanted = {f"/field_{n}" for n in range(0, 40, 4)} | {f"/missing_{n}" for n in range(20)} | {"/field_8/deeper"}
    alone = {pointer: positions(str(document), {pointer})[pointer] for pointer in wanted}
    scans = []
    real = module._members
    monkeypatch.setattr(module, "_members", lambda *args: scans.append(args[1]) or real(*args))
    assert positions(str(document), wanted) == alone
    # the top object once, and the string at /field_8 looked at (not scanned) for /field_8/deeper
    assert scans == [0, document.read_text().index('"x', document.read_text().index('"field_8"'))]
