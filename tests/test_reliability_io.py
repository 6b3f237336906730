"""Reliability of reading (issue 12, items 2, 7 and 14): any detail log is read in linear time
and bounded memory, a deeply nested value is a finding, and a file swapped between the
containment check and the open is never read. Large inputs are made from the example's
real loadgen logs in tmp_path at test time, and removed after."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mllog_reference import reference_mllog
from typer.testing import CliRunner

from checker.cli import app
from checker.findings import Finding
from checker.parsers import mllog
from checker.parsers.mllog import parse_mllog
from checker.reader import Reader
from checker.tree import Kind, Tree, join
from helpers import EXAMPLE, OFFLINE, SINGLE, log_reads, reading_cost, run, tree_digest

MiB = 1024 * 1024
LOG = f"{OFFLINE}/performance/run_1/mlperf_log_detail.txt"
SINGLE_LOG = f"{SINGLE}/performance/run_1/mlperf_log_detail.txt"
ERROR = "error"


def found(report_or_sink) -> list[tuple[str, str, str, str | None]]:
    """(code, severity, path, pointer) of every finding, in output order."""
    findings = report_or_sink.findings if hasattr(report_or_sink, "findings") else report_or_sink
    return [(f.code, f.severity.value, f.path, f.pointer) for f in findings]


@pytest.fixture
def example(tmp_path: Path):
    """A private copy of the example; its big files are removed after the test (pytest keeps
    the folders of the last runs)."""
    target = tmp_path / "submission"
    shutil.copytree(EXAMPLE, target, symlinks=True)
    yield target
    shutil.rmtree(target, ignore_errors=True)


# --- item 7: deep nesting ----------------------------------------------------------------
def _nest(path: Path, key: str, depth: int) -> int:
    """Give the record `key` a value nested `depth` lists deep; returns its line number."""
    lines = path.read_bytes().splitlines(keepends=True)
    for number, line in enumerate(lines, 1):
        if f'"key": "{key}", "value": '.encode() in line:
            head, rest = line.split(b'"value": ', 1)
            tail = rest[rest.index(b', "time_ms"') :]
            lines[number - 1] = head + b'"value": ' + b"[" * depth + b"]" * depth + tail
            path.write_bytes(b"".join(lines))
            return number
    raise AssertionError(key)


KEY = "effective_sample_concatenate_permutation"


@pytest.mark.parametrize("depth", [65, 5000, 200_000])
def test_a_deeply_nested_log_value_is_a_finding(example: Path, depth: int) -> None:
    number = _nest(example / LOG, KEY, depth)
    report = run(example)
    assert found(report) == [("LOG001", ERROR, LOG, f"line {number}")]
    assert report.findings[0].message == f"line {number} nests its `{KEY}` value more than 64 deep; it was not read"
    assert {r.location: r.valid for r in report.results} == {OFFLINE: False, SINGLE: True}


def test_a_value_64_deep_is_still_read(example: Path) -> None:
    """64 deep is decoded. A key of a family no one reads keeps it; a declared key's type
    refuses a list (FIL012, tests/test_typed.py)."""
    untyped = "effective_performance_issue_unique"
    _nest(example / LOG, untyped, 64)
    with open(example / LOG, "rb") as handle:
        log, defects = parse_mllog(handle)
    assert defects == [] and isinstance(log.get(untyped), list)


@pytest.mark.slow
def test_provenance_and_reproduce_report_a_deeply_nested_log(example: Path) -> None:
    number = _nest(example / LOG, KEY, 5000)
    before = tree_digest(example)
    runner = CliRunner()
    result = runner.invoke(app, ["provenance", str(example), "--round", "demo-v6.1", "-f", "json"])
    assert result.exit_code == 0, result.output
    verdicts = json.loads(result.stdout)["results"]
    assert [(v["location"], v["verdict"]) for v in verdicts] == [(OFFLINE, "descends"), (SINGLE, "descends")]
    result = runner.invoke(
        app, ["reproduce", str(EXAMPLE / OFFLINE), str(example / OFFLINE), "--round", "demo-v6.1", "-f", "json"]
    )
    assert result.exit_code == 1, result.output
    reproduction = json.loads(result.stdout)
    assert reproduction["reproduction_valid"] is False
    assert reproduction["reproduction_errors"] == [
        f"LOG001 {LOG}: line {number} nests its `{KEY}` value more than 64 deep; it was not read"
    ]
    assert reproduction["mismatched_settings"] == [{"setting": KEY, "original": False, "reproduction": None}]
    assert tree_digest(example) == before


SYSTEM = "closed/MLCheckDemo/systems/cpu-1x-numpy.json"


@pytest.mark.parametrize("depth", [65, 100_000])
def test_a_deeply_nested_json_file_is_a_finding(example: Path, depth: int) -> None:
    description = json.loads((example / SYSTEM).read_text())
    text = json.dumps(description)[:-1] + ', "extra": ' + "[" * depth + "]" * depth + "}"
    (example / SYSTEM).write_text(text)
    report = run(example)
    assert found(report) == [("FIL007", ERROR, SYSTEM, None)]
    assert report.findings[0].message == "system description nests lists or objects more than 64 deep; it was not read"


def test_endpoints_files_nested_too_deep_or_recursive_are_findings() -> None:
    from checker.parsers.endpoints import parse_accuracy_results, parse_endpoints_config, parse_result_summary

    deep_json = '{"ttft": ' + "[" * 100_000 + "]" * 100_000 + "}"
    too_deep = "nests lists or mappings more than 64 deep; it was not read as "
    for parse, text, message in (
        (parse_result_summary, deep_json, too_deep + "JSON"),
        (parse_accuracy_results, deep_json, too_deep + "JSON"),
        # Within the safe YAML loader's limits (200 levels), past the one for parsed values.
        (parse_endpoints_config, "x: " + "[" * 100 + "]" * 100 + "\n", too_deep + "YAML"),
        # The safe YAML loader refuses these first.
        (
            parse_endpoints_config,
            "type: offline\nsettings: &a [*a]\n",  # holds itself
            "cannot be read as YAML: the file repeats a mapping or list through an alias; write it out",
        ),
        # libyaml builds differ on which limit a 5000-deep flow meets first: its own flow
        # level limit, or the loader's 200 levels. Either is the one finding.
        (
            parse_endpoints_config,
            "x: " + "[" * 5000 + "]" * 5000 + "\n",
            (
                "cannot be read as YAML: the file is not valid YAML: while increasing flow level",
                "cannot be read as YAML: the file nests deeper than 200 levels",
            ),
        ),
    ):
        data, defects = parse(text)
        assert data.data == {}
        messages = message if isinstance(message, tuple) else (message,)
        assert [d.code for d in defects] == ["FIL007"] and defects[0].message in messages, (parse, text[:40])


# --- item 14: a file swapped between the check and the open ---------------------------
@contextlib.contextmanager
def no_hang(seconds: float):
    """Fail, instead of hanging, when the block takes longer (a blocking open of a FIFO)."""

    def expire(*_):
        raise TimeoutError(f"hung for {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class SwappingTree(Tree):
    """A real tree whose file `rel` is swapped by `swap` right after its entry was judged,
    as a concurrent writer would between the containment check and the open."""

    def __init__(self, root: Path, rel: str, swap) -> None:
        super().__init__(root)
        self.target, self.swap = rel, swap

    def entry(self, rel: str):
        judged = super().entry(rel)
        if rel == self.target and self.swap is not None:
            swap, self.swap = self.swap, None
            swap(Path(self.root) / rel)
        return judged


def _outside_log(tmp_path: Path) -> Path:
    """A valid loadgen log outside the tree: what a swapped-in link would have read."""
    target = tmp_path / "outside" / "mlperf_log_detail.txt"
    target.parent.mkdir(exist_ok=True)
    shutil.copyfile(EXAMPLE / LOG, target)
    return target


def _swap_to_link(target: Path):
    def swap(path: Path) -> None:
        path.unlink()
        path.symlink_to(target)

    return swap


def _swap_to_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _swap_to_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _swap_to_other_file(path: Path) -> None:
    other = path.with_name("other.txt")
    shutil.copyfile(path, other)
    other.replace(path)  # same content, another inode


def _read(tree: Tree, rel: str, how: str):
    sink: list[Finding] = []
    reader = Reader(tree, OFFLINE, sink)
    with no_hang(10):
        value = reader.mllog(rel) if how == "mllog" else reader.json(rel, what="system description")
    return value, sink


@pytest.mark.parametrize("how,rel", [("mllog", LOG), ("json", SYSTEM)], ids=["detail-log", "system-json"])
@pytest.mark.parametrize(
    "swap,code,detail",
    [
        pytest.param(
            "outside-link",
            "FIL006",
            "became a symlink that leaves the checked folder while it was checked; it was not followed",
            id="outside-link",
        ),
        pytest.param(
            "inside-link", "FIL011", "became a symlink while it was checked; it was not read", id="inside-link"
        ),
        pytest.param("fifo", "FIL011", "became a FIFO while it was checked; it was not read", id="fifo"),
        pytest.param("folder", "FIL011", "became a folder while it was checked; it was not read", id="folder"),
        pytest.param(
            "other-file",
            "FIL011",
            "was replaced by another file while it was checked; it was not read",
            id="other-file",
        ),
    ],
)
def test_a_file_swapped_after_its_check_is_never_read(
    example: Path, tmp_path: Path, how: str, rel: str, swap: str, code: str, detail: str
) -> None:
    swaps = {
        "outside-link": _swap_to_link(_outside_log(tmp_path) if how == "mllog" else EXAMPLE / SYSTEM),
        "inside-link": _swap_to_link(example / SINGLE_LOG),
        "fifo": _swap_to_fifo,
        "folder": _swap_to_folder,
        "other-file": _swap_to_other_file,
    }
    value, sink = _read(SwappingTree(example, rel, swaps[swap]), rel, how)
    assert value is None
    assert found(sink) == [(code, ERROR, rel, None)]
    what = "loadgen log" if how == "mllog" else "system description"
    assert sink[0].message == f"{what} {detail}"


def test_a_folder_on_the_way_swapped_for_a_link_out_is_never_read(example: Path, tmp_path: Path) -> None:
    """The containment check saw run_1 inside the tree; by the open it leads outside. The
    opened file is not the one judged, so it is refused."""
    outside = tmp_path / "outside_run"
    shutil.copytree(example / OFFLINE / "performance" / "run_1", outside)

    def swap(path: Path) -> None:
        run_1 = path.parent
        shutil.rmtree(run_1)
        run_1.symlink_to(outside, target_is_directory=True)

    value, sink = _read(SwappingTree(example, LOG, swap), LOG, "mllog")
    assert value is None
    assert found(sink) == [("FIL011", ERROR, LOG, None)]
    assert sink[0].message == "loadgen log was replaced by another file while it was checked; it was not read"


def test_an_unswapped_file_and_a_link_inside_the_tree_are_read(example: Path) -> None:
    (example / LOG).unlink()
    (example / LOG).symlink_to(example / SINGLE_LOG)
    log, sink = _read(Tree(example), LOG, "mllog")
    assert sink == [] and log.scenario == "SingleStream"
    data, sink = _read(Tree(example), SYSTEM, "json")
    assert sink == [] and data["submitter"] == "MLCheckDemo"


def test_each_path_is_judged_with_one_system_call(example: Path, monkeypatch) -> None:
    """Work counted: an entry asked for again is not judged again (until `forget`); a folder
    walked or listed for its subfolders is known to be one without an lstat; a file walked is
    judged by its listing's stat, a path a walked folder does not hold is missing without a
    call, and any other path takes one lstat."""
    tree = Tree(example)
    tree.subdirs(OFFLINE.rpartition("/")[0])  # the folders above the result: one lstat each, as any folder
    calls: list[str] = []
    lstat = os.lstat
    monkeypatch.setattr(
        os, "lstat", lambda path, *args, **kwargs: (calls.append(path), lstat(path, *args, **kwargs))[1]
    )
    run_1 = f"{OFFLINE}/performance/run_1"
    assert [f for _, items in tree.walk(OFFLINE) for f in items if f[0] == "mlperf_log_detail.txt"]
    assert tree.subdirs(f"{OFFLINE}/performance") == ["run_1"]
    assert calls == []  # the folders walked are known from their listings
    for _ in range(3):
        assert tree.entry(f"{run_1}/{LOG.rpartition('/')[2]}").kind is Kind.FILE
        assert tree.entry(f"{run_1}/nothing.txt").kind is Kind.MISSING
        assert tree.entry(f"{run_1}/none/deeper.txt").kind is Kind.MISSING
    assert calls == []  # the log and the missing paths are known from the walk
    assert tree.entry(f"{OFFLINE.rpartition('/')[0]}/nothing.txt").kind is Kind.MISSING  # not walked
    assert [os.path.basename(c) for c in calls] == ["nothing.txt"]
    tree.forget()
    tree.entry(f"{run_1}/{LOG.rpartition('/')[2]}")
    tree.entry(f"{run_1}/nothing.txt")  # the walk forgotten: judged again
    assert [os.path.basename(c) for c in calls][1:] == ["mlperf_log_detail.txt", "nothing.txt"]


@pytest.mark.slow
def test_a_fifo_log_does_not_hang_check(example: Path) -> None:
    """A real subprocess, with a timeout: a FIFO where the log belongs is a finding."""
    (example / LOG).unlink()
    os.mkfifo(example / LOG)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from checker.cli import main; main()",
            "check",
            str(example),
            "--round",
            "demo-v6.1",
            "-f",
            "json",
            "-j",
            "1",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)["findings"]
    assert [(f["code"], f["severity"], f["path"]) for f in findings] == [("FIL011", ERROR, LOG)]


def test_reproduce_compares_logs_only_through_the_safe_open(example: Path, tmp_path: Path) -> None:
    """`reproduce` asks whether a reproduction's logs are byte-identical copies of the
    original's: it reads them as the check does, never through a link out or a FIFO."""
    from checker.commands.reproduce import _same_content

    original = Tree(EXAMPLE)
    assert _same_content(original, LOG, Tree(example), LOG) is True
    assert _same_content(original, LOG, Tree(example), SINGLE_LOG) is False
    with no_hang(10):
        assert _same_content(original, LOG, SwappingTree(example, LOG, _swap_to_fifo), LOG) is False
    (example / SINGLE_LOG).unlink()
    (example / SINGLE_LOG).symlink_to(EXAMPLE / SINGLE_LOG)  # the original's own log, outside the copy
    assert _same_content(original, SINGLE_LOG, Tree(example), SINGLE_LOG) is False


# --- item 2: large logs ----------------------------------------------------------------
def _real_lines(rel: str = LOG) -> list[bytes]:
    return (EXAMPLE / rel).read_bytes().splitlines(keepends=True)


def _filler(lines: list[bytes]) -> list[bytes]:
    """The log's own records that no rule reads: neither wanted nor flagged."""
    out = []
    for line in lines:
        record = json.loads(line.split(b" ", 1)[1])
        if not mllog.is_wanted(record["key"]) and not (
            record["metadata"].get("is_error") or record["metadata"].get("is_warning")
        ):
            out.append(line)
    return out


def grow(path: Path, size: int, shape: str, base: str = LOG) -> None:
    """Write the real log at `base` to `path`, grown to about `size` bytes: `records` inserts
    copies of its own unread records in its middle (a long run's per-query records), `short`
    appends 2-byte junk lines, `blank` appends empty lines."""
    lines = _real_lines(base)
    original = sum(map(len, lines))
    with open(path, "wb") as handle:
        if shape == "records":
            filler = b"".join(_filler(lines))
            middle = len(lines) // 2
            handle.writelines(lines[:middle])
            for _ in range(max(0, size - original) // len(filler)):
                handle.write(filler)
            handle.writelines(lines[middle:])
        else:
            handle.writelines(lines)
            line = {"short": b"x\n", "blank": b"\n"}[shape]
            count = max(0, size - original) // len(line)
            for _ in range(count // 65536):
                handle.write(line * 65536)
            handle.write(line * (count % 65536))


def _view(log):
    return (
        log.values,
        log.last,
        [(r.key, r.value, r.line) for r in log.errors],
        [(r.key, r.value, r.line) for r in log.warnings],
    )


def _read_once(streams, size: int) -> None:
    """The detail log was read once, whole, a block at a time (helpers.log_reads)."""
    log = [s for s in streams if s.read_bytes == size]
    assert len(log) == 1, [(s.reads, s.read_bytes) for s in streams]
    assert log[0].reads == -(-size // mllog.BLOCK) + 1  # and the empty read that ends it


# STR008 (a file over the round's 50 MB limit) is submission-wide, so listed first; a warning
# in v6.1 and its demo profile, whose checker never applied the limit.
TOO_LARGE = ("STR008", "warning", LOG, None)


@pytest.mark.slow
def test_a_65_mib_log_of_real_records_is_read_as_its_original(example: Path, monkeypatch) -> None:
    """Past the old 64 MiB whole-file limit (where reading became quadratic and hung) the log
    streams: the findings of the untouched example (none) but its size, the same values, and
    the log read once, a block at a time (counted, not timed)."""
    path = example / LOG
    grow(path, 66 * MiB, "records")
    assert path.stat().st_size > 65 * MiB
    streams = log_reads(monkeypatch)
    report = run(example)
    _read_once(streams, path.stat().st_size)
    assert found(report) == [TOO_LARGE]
    with open(path, "rb") as handle:
        grown, defects = parse_mllog(handle)
    with open(EXAMPLE / LOG, "rb") as handle:
        original, _ = parse_mllog(handle)
    assert defects == [] and _view(grown) == _view(original)
    assert grown.line_count > 200_000


@pytest.mark.slow
def test_60_mb_of_two_byte_lines_gives_capped_findings_in_one_reading(example: Path, monkeypatch) -> None:
    path = example / LOG
    grow(path, 60 * 1000 * 1000, "short")
    streams = log_reads(monkeypatch)
    report = run(example)
    _read_once(streams, path.stat().st_size)
    listed = [("LOG001", ERROR, LOG, f"line {n}") for n in range(91, 111)]  # the first 20; the real log has 90
    listed.append(("LOG001", ERROR, LOG, "line 111"))  # "more defects in this log were not listed"
    size = path.stat().st_size
    assert found(report) == [TOO_LARGE] + sorted(listed, key=lambda f: f[3])  # pointers sort as text
    messages = {f.pointer: f.message for f in report.findings if f.code == "LOG001"}
    assert messages["line 91"] == "line 91 is not a loadgen record: x"
    assert messages["line 111"] == "more defects in this log were not listed"
    assert report.findings[0].message.startswith(f"{size / MiB:.1f} MiB, over the 50 MiB limit")


@pytest.mark.slow
def test_a_200_mb_line_is_skipped_with_a_finding(example: Path) -> None:
    path = example / LOG
    chunk = b"0123456789abcdef" * 65536
    with open(path, "wb") as handle:
        for _ in range(200 * 1000 * 1000 // len(chunk)):
            handle.write(chunk)
    tracemalloc.start()
    try:
        with open(path, "rb") as handle:
            log, defects = parse_mllog(handle)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < mllog.MAX_LINE + 4 * MiB  # the line is held up to MAX_LINE, then skipped unheld
    assert [(d.code, d.line, d.message) for d in defects] == [
        ("FIL009", 1, "line 1 is longer than 16 MiB and was skipped")
    ]
    assert log.values == {} and log.line_count == 1
    report = run(example)
    assert found(report) == [TOO_LARGE, ("FIL009", ERROR, LOG, "line 1")]


@pytest.mark.slow
def test_a_2_gb_sparse_file_of_nuls_is_one_skipped_line(example: Path, monkeypatch) -> None:
    path = example / LOG
    with open(path, "wb") as handle:
        handle.truncate(2 << 30)  # a hole: no disk is used
    streams = log_reads(monkeypatch)
    tracemalloc.start()
    try:
        report = run(example)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    _read_once(streams, 2 << 30)
    assert peak < mllog.MAX_LINE + 16 * MiB, peak  # the line is held up to MAX_LINE, then skipped unheld
    assert found(report) == [TOO_LARGE, ("FIL009", ERROR, LOG, "line 1")]
    assert report.findings[0].message.startswith("2048.0 MiB, over the 50 MiB limit")
    assert report.findings[1].message == "line 1 is longer than 16 MiB and was skipped"


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["records", "short", "blank"])
def test_reading_is_linear_in_work_and_flat_in_memory(tmp_path: Path, shape: str) -> None:
    """8 and 32 MiB of each shape: each byte read once, a block at a time, and the peak does
    not grow with the size (counted, not timed: the times are benchmarks/large_inputs.py's).
    The lines each block holds are counted by test_junk_lines_past_the_defect_cap_..."""
    small, large = tmp_path / "small.txt", tmp_path / "large.txt"
    grow(small, 8 * MiB, shape)
    grow(large, 32 * MiB, shape)
    small_cost, large_cost = reading_cost(parse_mllog, small), reading_cost(parse_mllog, large)
    for cost, path in ((small_cost, small), (large_cost, large)):
        size = path.stat().st_size
        assert (cost.read_bytes, cost.reads) == (size, -(-size // mllog.BLOCK) + 1), (shape, cost)
    peak_small, peak_large = small_cost.peak, large_cost.peak
    assert peak_large < 4 * mllog.BLOCK and peak_large < peak_small + MiB, (peak_small, peak_large)


def test_junk_lines_past_the_defect_cap_are_never_visited_one_by_one(tmp_path: Path, monkeypatch) -> None:
    """Work counted, not timed: once MAX_DEFECTS are listed, no junk line reaches the whole
    reading of a line (`_Reading._line`), and blank lines never do: only the first record of
    each key does (the rest are passed over or read in `_Reading._lines`)."""
    visited = []
    line = mllog._Reading._line
    monkeypatch.setattr(mllog._Reading, "_line", lambda self, *args: (visited.append(self.number), line(self, *args)))
    keys = len({line[18 : line.find(b'"', 18)] for line in _real_lines()})
    for shape, expected in (("short", keys + mllog.MAX_DEFECTS + 1), ("blank", keys)):
        path = tmp_path / f"{shape}.txt"
        grow(path, 4 * MiB, shape)
        monkeypatch.setattr(mllog, "_JUDGED", {})  # no key judged yet
        visited.clear()
        with open(path, "rb") as handle:
            log, _ = parse_mllog(handle)
        assert len(visited) == expected, shape
        assert log.line_count == path.read_bytes().count(b"\n")


def test_records_after_the_defect_cap_are_still_read() -> None:
    lines = _real_lines()
    data = b"junk\n" * 50 + b"".join(lines) + b"\n\n  \nmore junk\n"
    log, defects = parse_mllog(io.BytesIO(data), block=4093)
    reference, _ = reference_mllog(io.BytesIO(data))
    original, _ = parse_mllog(io.BytesIO(b"".join(lines)))
    assert _view(log) == _view(reference) and log.values == original.values
    assert log.lines["loadgen_version"] == 51 and log.line_count == 50 + len(lines) + 4
    assert [(d.code, d.line) for d in defects] == [("LOG001", n) for n in range(1, 22)]


def test_what_a_log_keeps_is_capped() -> None:
    """Wanted or flagged records are decoded up to MAX_RECORD bytes each and kept up to
    KEEP_BUDGET bytes in all; past that, a finding, and memory stays bounded."""
    lines = _real_lines()
    record = json.loads(lines[0].split(b" ", 1)[1])
    huge = dict(record, key="result_huge", value="x" * (mllog.MAX_RECORD + 1))
    big = [dict(record, key=f"result_big_{n}", value="y" * (mllog.MAX_RECORD // 2)) for n in range(12)]
    text = b"".join(lines) + b"".join(b":::MLLOG " + json.dumps(r).encode() + b"\n" for r in [huge] + big)
    log, defects = parse_mllog(io.BytesIO(text))
    first = len(lines) + 1
    assert [(d.code, d.line) for d in defects] == [("LOG001", first), ("LOG001", first + 8)]
    assert defects[0].message == (
        f"line {first} is a `result_huge` record of {len(json.dumps(huge)) + 9} bytes, "
        f"more than the {mllog.MAX_RECORD} a record may have; it was not read"
    )
    assert defects[1].message == (
        f"line {first + 8}: the records this log keeps pass {mllog.KEEP_BUDGET} bytes; "
        "this one and later ones past that were not read"
    )
    assert "result_huge" not in log and "result_big_6" in log and "result_big_7" not in log
    assert log.get("result_validity") == "VALID"


def _check_peak(root: Path) -> tuple[int, float]:
    """Exit status and peak RSS (MiB) of one real `check` subprocess with one worker. The JSON
    goes to a file beside the tree, not to /dev/null: -o replaces its file (a temporary file
    renamed onto it), and as root that turns /dev/null into a regular file for everyone."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from checker.cli import main; main()",
            "check",
            str(root),
            "--round",
            "demo-v6.1",
            "-f",
            "json",
            "-o",
            str(root.parent / "peak.json"),
            "-j",
            "1",
            "--no-progress",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, with its resource usage
    return process.returncode, usage.ru_maxrss / 1024


@pytest.mark.slow
def test_the_peak_memory_of_check_does_not_grow_with_the_log(example: Path) -> None:
    """End to end: a 1 MiB and a 64 MiB log of 2-byte lines take the same memory (the old
    reading's peak grew with the log: 47 and 362 MiB)."""
    grow(example / LOG, 1 * MiB, "short")
    status_small, peak_small = _check_peak(example)
    grow(example / LOG, 64 * MiB, "short")
    status_large, peak_large = _check_peak(example)
    assert (status_small, status_large) == (1, 1)
    assert peak_large < peak_small + 16, (peak_small, peak_large)


def test_a_forged_key_is_cut_in_the_message() -> None:
    """A record's key is quoted in its finding, cut at 80 characters: a forged key can be as
    long as the line."""
    key = "result_" + "k" * (mllog.MAX_RECORD // 2)
    record = json.loads(_real_lines()[0].split(b" ", 1)[1])
    value: list = []
    for _ in range(80):
        value = [value]
    _, defects = parse_mllog(io.BytesIO(b":::MLLOG " + json.dumps(dict(record, key=key, value=value)).encode()))
    assert [(d.code, d.line) for d in defects] == [("LOG001", 1)]
    assert defects[0].message == f"line 1 nests its `{key[:80]}`... value more than 64 deep; it was not read"


@given(st.lists(st.text(alphabet="ab/", max_size=4), min_size=1, max_size=4))
def test_join_skips_empty_parts_and_their_end_slashes(parts: list[str]) -> None:
    """Tree's `join` (with its short cut for two clean parts) is the plain definition."""
    assert join(*parts) == "/".join(part.strip("/") for part in parts if part.strip("/"))
