"""Reliability of discovery and of every YAML the tool accepts: a division or submitter
folder is checked as what it is, folders that cannot be entered are findings, YAML that would
expand or block is refused, and randomly corrupted real files never crash the check."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.yamlsafe import MAX_ALIASES, YamlError, load_file, loads
from helpers import EXAMPLE, REAL_ROOT, TABLES_ROOT, copy_real_result, real_data, run, tree_digest

BOMB = "".join(
    f"{chr(97 + i)}: &{chr(97 + i)} [{', '.join([f'*{chr(96 + i)}'] * 9) if i else '1, 2, 3, 4, 5, 6, 7, 8, 9'}]\n"
    for i in range(10)
)


@pytest.fixture
def example(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(EXAMPLE, root, symlinks=True)
    return root


# --- item 3: a division or submitter folder as PATH ------------------------------------------


@pytest.mark.parametrize("part", ["closed", "closed/MLCheckDemo"])
def test_a_division_or_submitter_folder_is_checked_as_what_it_is(example: Path, part: str) -> None:
    whole = run(example)
    report = run(example / part)
    assert [(r.location, r.valid) for r in report.results] == [(r.location, r.valid) for r in whole.results]
    assert [(r.location, r.valid) for r in report.results] == [
        ("closed/MLCheckDemo/results/cpu-1x-numpy/demo-mlp-99/Offline", True),
        ("closed/MLCheckDemo/results/cpu-1x-numpy/demo-mlp-99/SingleStream", True),
    ]
    assert report.root == str(example.resolve())


def test_a_submitter_folder_checks_only_that_submitter(example: Path) -> None:
    other = example / "closed" / "Other"
    shutil.copytree(example / "closed" / "MLCheckDemo", other, symlinks=True)
    (other / "systems" / "cpu-1x-numpy.json").write_text(
        (other / "systems" / "cpu-1x-numpy.json").read_text().replace('"MLCheckDemo"', '"Other"')
    )
    assert len(run(example).results) == 4
    assert {r.submitter for r in run(example / "closed" / "Other").results} == {"Other"}


# --- item 4: folders that cannot be entered ------------------------------------------------


def test_a_submitter_folder_linking_out_of_the_tree_is_an_error(example: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    shutil.copytree(example / "closed" / "MLCheckDemo", outside)
    (example / "open").mkdir()
    (example / "open" / "Linked").symlink_to(outside)
    report = run(example)
    found = [(f.code, f.severity.value, f.path, f.message) for f in report.findings]
    assert found == [
        (
            "FIL006",
            "error",
            "open/Linked",
            "submitter folder open/Linked is a symlink that leaves the checked folder; it was not followed",
        )
    ]
    assert report.has_errors and len(report.results) == 2


def test_system_benchmark_and_scenario_links_that_cannot_be_entered(example: Path, tmp_path: Path) -> None:
    results = example / "closed" / "MLCheckDemo" / "results"
    (results / "gone").symlink_to(tmp_path / "nowhere")
    (results / "cpu-1x-numpy" / "out").symlink_to(tmp_path)
    os.mkfifo(results / "cpu-1x-numpy" / "demo-mlp-99" / "pipe")
    report = run(example)
    assert [(f.code, f.path) for f in report.findings] == [
        ("FIL011", "closed/MLCheckDemo/results/cpu-1x-numpy/demo-mlp-99/pipe"),
        ("FIL006", "closed/MLCheckDemo/results/cpu-1x-numpy/out"),
        ("FIL010", "closed/MLCheckDemo/results/gone"),
    ]
    assert all(f.severity.value == "error" for f in report.findings)
    assert all(r.valid for r in report.results)  # the results it could enter are fine


# --- item 6: one safe YAML loader ----------------------------------------------------------


def test_an_alias_bomb_is_refused_before_it_is_built() -> None:
    with pytest.raises(YamlError, match="repeats a mapping or list through an alias"):
        loads(BOMB, "bomb")
    many = "a: &a 1\n" + "".join(f"k{i}: *a\n" for i in range(MAX_ALIASES + 1))
    with pytest.raises(YamlError, match=f"more than {MAX_ALIASES} aliases"):
        loads(many, "many")
    assert loads("a: &x 1\nb: *x\n") == {"a": 1, "b": 1}  # an alias to a scalar is fine


def test_deep_nesting_and_non_regular_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(YamlError, match="nests deeper than 200 levels"):
        loads("[" * 300 + "]" * 300, "deep")
    fifo = tmp_path / "round.yaml"
    os.mkfifo(fifo)
    with pytest.raises(YamlError, match=f"{fifo} is not a regular file"):
        load_file(str(fifo))
    big = tmp_path / "big.yaml"
    with open(big, "wb") as handle:
        handle.truncate(20 * 2**20)
    with pytest.raises(YamlError, match="more than the 16777216 read"):
        load_file(str(big))


def _cli(*args: str) -> tuple[int, str]:
    """A CLI run that must end within 20 s (a FIFO would otherwise block it)."""
    box: dict = {}
    thread = threading.Thread(target=lambda: box.update(result=CliRunner().invoke(app, list(args))), daemon=True)
    thread.start()
    thread.join(20)
    assert not thread.is_alive(), f"{args} hangs"
    result = box["result"]
    return result.exit_code, result.output


@pytest.mark.parametrize("option", ["--round", "--waivers"])
def test_hostile_yaml_given_to_check_is_a_usage_error(example: Path, tmp_path: Path, option: str) -> None:
    bomb, fifo = tmp_path / "bomb.yaml", tmp_path / "fifo.yaml"
    bomb.write_text(BOMB)
    os.mkfifo(fifo)
    before = tree_digest(example)
    extra = [] if option == "--round" else ["--round", "demo-v6.1"]
    for path, message in ((bomb, "repeats a mapping or list through an alias"), (fifo, "is not a regular file")):
        code, output = _cli("check", str(example), option, str(path), *extra, "--no-progress")
        assert code == 2 and message in " ".join(output.split()), output
    assert tree_digest(example) == before


@pytest.mark.real
def test_hostile_followup_mapping_is_a_usage_error(tmp_path: Path) -> None:
    table = real_data(TABLES_ROOT / "v6.0" / "summary_results.json")
    bomb = tmp_path / "map.yaml"
    bomb.write_text(BOMB)
    code, output = _cli("followup", "--previous", str(table), "--current", str(table), "--mapping", str(bomb))
    assert code == 2 and "repeats a mapping or list through an alias" in " ".join(output.split()), output


def test_an_endpoints_config_yaml_bomb_is_a_finding(tmp_path: Path) -> None:
    from helpers import ENDPOINTS

    root = tmp_path / "ep"
    shutil.copytree(ENDPOINTS, root)
    config = root / "closed/EndpointsDemo/results/server-1x-demo/llama3.1-8b/Offline/config.yaml"
    config.write_text(BOMB)
    report = run(root, "v6.1")
    found = [(f.code, f.path, f.message) for f in report.findings if f.path.endswith("config.yaml")]
    assert found == [
        (
            "FIL007",
            "closed/EndpointsDemo/results/server-1x-demo/llama3.1-8b/Offline/config.yaml",
            "cannot be read as YAML: the file repeats a mapping or list through an alias; write it out",
        )
    ]


# --- random corruption of real files --------------------------------------------------------


def _real_base(tmp_path: Path) -> Path:
    source = real_data(REAL_ROOT / "v6.0")
    root = tmp_path / "base"
    copy_real_result(root, "closed/AMD/results/8xMI355X_2xEPYC_9575F/gpt-oss-120b/Server", source)
    return root


@pytest.mark.slow
@pytest.mark.real
@pytest.mark.full
def test_randomly_corrupted_real_files_never_crash_the_check(tmp_path: Path) -> None:
    """Real logs, JSON and text of a published v6.0 result, corrupted at random (bytes flipped,
    cut, repeated, replaced by junk): the check ends with exit 0 or 1, no internal error, no
    traceback, and the tree exactly as it was."""
    pytest.importorskip("hypothesis")
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    base = _real_base(tmp_path)
    files = sorted(p.relative_to(base) for p in base.rglob("*") if p.is_file() and p.stat().st_size < 4 * 2**20)
    assert len(files) >= 20

    @settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(
        index=st.integers(0, len(files) - 1),
        kind=st.sampled_from(["flip", "cut", "junk", "repeat", "nest"]),
        at=st.floats(0, 1),
        junk=st.binary(min_size=1, max_size=64),
    )
    def corrupted(index: int, kind: str, at: float, junk: bytes) -> None:
        root = tmp_path / "case"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(base, root)
        target = root / files[index]
        data = target.read_bytes()
        cut = int(len(data) * at)
        data = {
            "flip": data[:cut] + bytes([(data[cut] ^ 0xFF) if cut < len(data) else 0]) + data[cut + 1 :],
            "cut": data[:cut],
            "junk": data[:cut] + junk + data[cut:],
            "repeat": data[:cut] * 3 + data[cut:],
            "nest": data[:cut] + b'{"key": "x", "value": ' + b"[" * 5000 + b"]" * 5000 + b"}\n" + data[cut:],
        }[kind]
        target.write_bytes(data)
        before = tree_digest(root)
        out = tmp_path / "out.json"
        code, output = _cli(
            "check", str(root), "--round", "v6.0", "-f", "json", "-o", str(out), "--no-progress", "-j", "1"
        )
        assert code in (0, 1), (files[index], kind, output)
        assert "Traceback" not in output
        report = json.loads(out.read_text())
        assert not [f for f in report["findings"] if f["code"] == "INT001"], (files[index], kind)
        assert tree_digest(root) == before

    corrupted()


def test_a_tree_whose_only_submitter_links_out_ends_with_its_error(tmp_path: Path) -> None:
    """Item 4 over item 3: no results, but an error that says why, so exit 1 with the report."""
    root = tmp_path / "tree"
    (root / "closed").mkdir(parents=True)
    (root / "closed" / "Linked").symlink_to(EXAMPLE / "closed" / "MLCheckDemo")
    code, output = _cli("check", str(root), "--round", "demo-v6.1", "--no-progress")
    assert code == 1
    assert (
        "FIL006 closed/Linked: submitter folder closed/Linked is a symlink that leaves the checked folder"
        in " ".join(output.split())
    )
