"""Reliability of reading (issue 12): a deeply nested value is a finding (item 7), and a file
swapped between the containment check and the open is never read (item 14)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.findings import Finding
from checker.parsers.mllog import parse_mllog
from checker.reader import Reader
from checker.tree import Tree
from helpers import EXAMPLE, OFFLINE, SINGLE, run, tree_digest

LOG = f"{OFFLINE}/performance/run_1/mlperf_log_detail.txt"
SINGLE_LOG = f"{SINGLE}/performance/run_1/mlperf_log_detail.txt"
ERROR = "error"


def found(report_or_sink) -> list[tuple[str, str, str, str | None]]:
    """(code, severity, path, pointer) of every finding, in output order."""
    findings = report_or_sink.findings if hasattr(report_or_sink, "findings") else report_or_sink
    return [(f.code, f.severity.value, f.path, f.pointer) for f in findings]


@pytest.fixture
def example(tmp_path: Path):
    """A private copy of the example, removed after the test (pytest keeps the folders of
    the last runs)."""
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
            tail = rest[rest.index(b', "time_ms"'):]
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
    assert report.findings[0].message == f"line {number} nests its {KEY!r} value more than 64 deep; it was not read"
    assert {r.location: r.valid for r in report.results} == {OFFLINE: False, SINGLE: True}


def test_a_value_64_deep_is_still_read(example: Path) -> None:
    _nest(example / LOG, "effective_sample_concatenate_permutation", 64)
    log, defects = parse_mllog(open(example / LOG, "rb"))
    assert defects == [] and isinstance(log.get(KEY), list)


def test_provenance_and_reproduce_report_a_deeply_nested_log(example: Path) -> None:
    number = _nest(example / LOG, KEY, 5000)
    before = tree_digest(example)
    runner = CliRunner()
    result = runner.invoke(app, ["provenance", str(example), "--round", "demo-v6.1", "-f", "json"])
    assert result.exit_code == 0, result.output
    verdicts = json.loads(result.stdout)["results"]
    assert [(v["location"], v["verdict"]) for v in verdicts] == [(OFFLINE, "descends"), (SINGLE, "descends")]
    result = runner.invoke(app, ["reproduce", str(EXAMPLE / OFFLINE), str(example / OFFLINE), "--round", "demo-v6.1",
                                 "-f", "json"])
    assert result.exit_code == 1, result.output
    reproduction = json.loads(result.stdout)
    assert reproduction["reproduction_valid"] is False
    assert reproduction["reproduction_errors"] == [
        f"LOG001 {LOG}: line {number} nests its {KEY!r} value more than 64 deep; it was not read"]
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
            (parse_endpoints_config, "type: offline\nsettings: &a [*a]\n",  # holds itself
             "cannot be read as YAML: the file repeats a mapping or list through an alias; write it out"),
            (parse_endpoints_config, "x: " + "[" * 5000 + "]" * 5000 + "\n",
             "cannot be read as YAML: the file is not valid YAML: while increasing flow level")):
        data, defects = parse(text)
        assert data.data == {}
        assert [(d.code, d.message) for d in defects] == [("FIL007", message)], (parse, text[:40])


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
@pytest.mark.parametrize("swap,code,detail", [
    pytest.param("outside-link", "FIL006", "became a symlink that leaves the checked folder while it was checked; "
                                           "it was not followed", id="outside-link"),
    pytest.param("inside-link", "FIL011", "became a symlink while it was checked; it was not read", id="inside-link"),
    pytest.param("fifo", "FIL011", "became a FIFO while it was checked; it was not read", id="fifo"),
    pytest.param("folder", "FIL011", "became a folder while it was checked; it was not read", id="folder"),
    pytest.param("other-file", "FIL011", "was replaced by another file while it was checked; it was not read",
                 id="other-file"),
])
def test_a_file_swapped_after_its_check_is_never_read(example: Path, tmp_path: Path, how: str, rel: str, swap: str,
                                                     code: str, detail: str) -> None:
    swaps = {"outside-link": _swap_to_link(_outside_log(tmp_path) if how == "mllog" else EXAMPLE / SYSTEM),
             "inside-link": _swap_to_link(example / SINGLE_LOG), "fifo": _swap_to_fifo, "folder": _swap_to_folder,
             "other-file": _swap_to_other_file}
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


def test_a_fifo_log_does_not_hang_check(example: Path) -> None:
    """A real subprocess, with a timeout: a FIFO where the log belongs is a finding."""
    (example / LOG).unlink()
    os.mkfifo(example / LOG)
    done = subprocess.run([sys.executable, "-c", "from checker.cli import main; main()", "check", str(example),
                           "--round", "demo-v6.1", "-f", "json", "-j", "1", "--no-progress"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)["findings"]
    assert [(f["code"], f["severity"], f["path"]) for f in findings] == [("FIL011", ERROR, LOG)]
