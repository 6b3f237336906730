"""Helpers shared by the tests: paths, a hash of a tree, and edits that corrupt a copy."""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from subprocess import CompletedProcess

from checker.engine import Report, check
from checker.findings import Finding

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "fixtures" / "examples" / "demo-v6.1"
CASES = ROOT / "fixtures" / "cases"

# The read-only real data that the tests marked `real` read: the published slices (v5.1/, v6.0/,
# v6.1/ in one folder) and the published results tables (v5.1/summary_results.json, ...,
# v6.1/summary.json). By default shared/real and shared/tables beside the project; the
# variables point elsewhere (tables default to tables/ beside the slices' folder). Where neither
# is there (a fresh clone in an empty folder), the small committed subset of
# tests/data/real-subset (its README.md: two submitters of v5.1, one of v6.0, all of v6.1, the
# tables whole); a test that needs a whole slice calls full_data() and is skipped on it.
REAL_VARIABLE = "MLPERF_CHECK_REAL"
TABLES_VARIABLE = "MLPERF_CHECK_TABLES"
SUBSET = ROOT / "tests" / "data" / "real-subset"


def data_roots(environ: Mapping[str, str] = os.environ, shared: Path = ROOT.parent / "shared") -> tuple[Path, Path]:
    """(the slices' folder, the tables' folder) that `environ` names, else the defaults: `shared`'s
    real/ and tables/ where it holds real/, else the committed subset."""
    if environ.get(REAL_VARIABLE):
        real = Path(environ[REAL_VARIABLE]).expanduser()
    else:
        real = shared / "real" if (shared / "real").is_dir() else SUBSET / "real"
    real = real.resolve()
    tables = Path(environ[TABLES_VARIABLE]).expanduser() if environ.get(TABLES_VARIABLE) else real.parent / "tables"
    return real, tables.resolve()


REAL_ROOT, TABLES_ROOT = data_roots()
REAL = REAL_ROOT / "v5.1"
REAL_V60 = REAL_ROOT / "v6.0"
ON_SUBSET = (SUBSET / "real").resolve() == REAL_ROOT


def absent(path: Path) -> str:
    """Why a test that needs `path` is skipped: it names the variable that points at it."""
    if path.is_relative_to(TABLES_ROOT) and not path.is_relative_to(REAL_ROOT):
        return (
            f"{path} is not present: set {TABLES_VARIABLE} to the folder of the published tables "
            f"(default: tables/ beside the folder {REAL_VARIABLE} names)"
        )
    return (
        f"{path} is not present: set {REAL_VARIABLE} to the folder holding the real slices v5.1/, v6.0/ and "
        "v6.1/ (default: ../shared/real beside the project)"
    )


def real_data(path: Path) -> Path:
    """`path` (real slices or tables), or the test is skipped with a reason naming the variable."""
    if not path.exists():
        import pytest

        pytest.skip(absent(path))
    return path


def full_data(path: Path) -> Path:
    """`path`, of the whole real slices: on the committed subset (tests/data/real-subset) the
    test is skipped, saying what it needs; else as real_data."""
    if ON_SUBSET and path.is_relative_to(REAL_ROOT):
        import pytest

        pytest.skip(
            f"needs the whole real slices, not the committed subset {SUBSET.relative_to(ROOT)}: set "
            f"{REAL_VARIABLE} to the folder holding v5.1/, v6.0/ and v6.1/ (default: ../shared/real)"
        )
    return real_data(path)


SUBMISSION = "closed/MLCheckDemo"
RESULT = f"{SUBMISSION}/results/cpu-1x-numpy/demo-mlp-99"
OFFLINE = f"{RESULT}/Offline"
SINGLE = f"{RESULT}/SingleStream"
ENDPOINTS = ROOT / "fixtures" / "examples" / "endpoints-v6.1"
EP_RESULT = "closed/EndpointsDemo/results/server-1x-demo/llama3.1-8b"
PLACES = {
    "sub": SUBMISSION,
    "result": RESULT,
    "offline": OFFLINE,
    "single": SINGLE,
    "ep_offline": f"{EP_RESULT}/Offline",
    "ep_interactive": f"{EP_RESULT}/Interactive",
}


@functools.cache
def case_files() -> tuple[tuple[Path, dict], ...]:
    """Every case file of fixtures/cases as (path, document), by name: read once per session
    for test_cases.py's parameters and test_meta.py's checks of them. Read-only."""
    import yaml

    # libyaml's safe loader where PyYAML has it: the same documents, ten times faster.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return tuple((path, yaml.load(path.read_text(), Loader=loader)) for path in sorted(CASES.glob("*.yaml")))


def copy_real_result(root: Path, location: str, source: Path = REAL) -> None:
    """Copy one published result (of the v5.1 slice unless `source` names another) with what
    it depends on: its system description, its compliance and measurements folders (v5.1
    keeps them beside results/), its code folder (code/<benchmark>, or the whole src/ of
    v6.x, which the slices keep small) and the submitter's documentation."""
    import shutil

    division, submitter, _, system, benchmark, scenario = location.split("/")
    base = source / division / submitter
    target = root / division / submitter
    (target / "systems").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(base / "systems" / f"{system}.json", target / "systems" / f"{system}.json")
    for part in ("results", "compliance", "measurements"):
        source = base / part / system / benchmark / scenario
        if source.is_dir():
            shutil.copytree(source, target / part / system / benchmark / scenario)
    for part in (f"code/{benchmark}", "src", "documentation"):  # small in the slices
        if (base / part).is_dir():
            shutil.copytree(base / part, target / part, symlinks=True)
    if (base / "model_mapping.json").is_file():
        shutil.copyfile(base / "model_mapping.json", target / "model_mapping.json")


@functools.cache
def command_folder() -> Path:
    """A folder whose `mlperf-check` runs the checker these tests import, to put first on PATH:
    this interpreter's own bin folder when it holds the console script (a virtual environment),
    else a folder with a shim that runs this interpreter. The shim's `-P` keeps the current
    folder off sys.path, so a copy of the project there is not what is imported."""
    import atexit
    import shlex
    import shutil
    import sys
    import tempfile

    own = Path(sys.executable).parent
    if (own / "mlperf-check").is_file():
        return own
    shim = Path(tempfile.mkdtemp(prefix="mlperf-check-bin-"))
    atexit.register(shutil.rmtree, shim, True)
    script = shim / "mlperf-check"
    script.write_text(
        f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -P -c "
        '\'import sys; from checker.cli import main; sys.argv[0] = "mlperf-check"; main()\' "$@"\n'
    )
    script.chmod(0o755)
    return shim


def cli(*args: str, env: Mapping[str, str | None] | None = None, cwd: Path | None = None) -> CompletedProcess[str]:
    """`mlperf-check ARGS` in this process (typer's CliRunner), with `env` over the environment
    (None unsets a variable) and in `cwd`: its exit status, stdout and stderr, as a process
    would end. An exception that escapes the command line fails the test. For tests where the
    command is the point, not the interpreter's start (real processes: test_reliability_cli.py,
    test_signals.py, test_cli.py)."""
    import contextlib

    from typer.testing import CliRunner

    from checker.cli import app

    with contextlib.chdir(cwd or os.getcwd()):
        done = CliRunner().invoke(app, list(args), prog_name="mlperf-check", env=env)
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception
    return CompletedProcess(["mlperf-check", *args], done.exit_code, done.stdout, done.stderr)


def expand(text: str) -> str:
    return text.format(**PLACES) if isinstance(text, str) else text


def children(pid: int | None = None) -> set[int]:
    """The processes whose parent is `pid` (default: this one), running or ended and not yet
    waited for."""
    parent = os.getpid() if pid is None else pid
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent:
                found.add(int(entry.name))
    return found


def full_digest(root: Path) -> str:
    """Every name, type, mode, mtime, link target and content under `root` (links not followed)."""
    digest = hashlib.sha256()
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(dirs + files):
            path = Path(folder) / name
            info = path.lstat()
            digest.update(os.fsencode(path.relative_to(root)) + f"{info.st_mode}:{info.st_mtime_ns}".encode())
            if path.is_symlink():
                digest.update(b"->" + os.fsencode(os.readlink(path)))
            elif path.is_file():
                digest.update(path.read_bytes())
    return digest.hexdigest()


def tree_digest(root: Path) -> str:
    """A hash of every path, link target and file content under root (links not followed)."""
    digest = hashlib.sha256()
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(dirs + files):
            path = Path(folder) / name
            digest.update(os.fsencode(path.relative_to(root)))  # any file name, UTF-8 or not
            if path.is_symlink():
                digest.update(b"->" + os.fsencode(os.readlink(path)))
            elif path.is_file():
                digest.update(path.read_bytes())
    return digest.hexdigest()


# What a message must never say: a Python None, True or False, a Python str, list, dict or
# bytes repr (a value is quoted in backticks), a sentence cut before its end (a JSON error cut at " at"), a "(s)" plural, or a plural
# after 1 ("1 warnings", "says 1 accelerators"); checker.wording.counted says a count.
_SLIP = re.compile(
    r"\b(?:None|True|False)\b|\[\'|\{\'|\bb\'|(?:^|[\s(])'[^'\s]*'(?=[\s,;:.)]|$)|\bat:? *$|\w\(s\)"
    r"|(?<![\d.,])\b1 (?!(?:ha|wa|i|doe|thi|plu|minu|clas)s\b)[a-z]+s\b"
)


def slips(findings: Iterable[Finding]) -> list[tuple[str, str]]:
    """The (code, message) of the findings whose message says what none may (`_SLIP`)."""
    return [(f.code, f.message) for f in findings if _SLIP.search(f.message)]


def run(root: Path, round_name: str = "demo-v6.1", **options) -> Report:
    options.setdefault("jobs", 1)
    return check(str(root), round_name, **options)


@functools.cache
def real_report(round_name: str) -> Report:
    """The check of a real slice (v5.1, v6.0 or v6.1) with each result's published-table row
    (`collect=table_row`), made once per session for every test that reads it. Read-only."""
    from checker.commands.table import table_row

    return run(real_data(REAL_ROOT / round_name), round_name, jobs=2, collect=table_row)


FIXED = datetime.datetime(2026, 7, 1, 12, 0, 0, tzinfo=datetime.UTC)


def fixed(report: Report) -> Report:
    """The report as if its check had started at FIXED and taken 1.5 s, 0.25 s per submission:
    what JUnit and SARIF write of the clock, made the same on every run."""
    report.checked_at, report.elapsed = FIXED, 1.5
    report.seconds = {key: 0.25 for key in report.seconds}
    return report


def findings_of(report: Report) -> list[tuple[str, str, str, str | None]]:
    """(code, severity, path, pointer) of every finding, in output order: what a case expects."""
    return [(f.code, f.severity.value, f.path, f.pointer) for f in report.findings]


def set_mllog(path: Path, key: str, value, occurrence: int = 0) -> None:
    """Rewrite the value of one `:::MLLOG` record, as an edited (forged) log would."""
    lines = path.read_text().splitlines(keepends=True)
    seen = 0
    for number, line in enumerate(lines):
        if line.startswith(":::MLLOG ") and f'"key": "{key}"' in line:
            if seen == occurrence:
                record = json.loads(line[len(":::MLLOG ") :])
                record["value"] = value
                lines[number] = ":::MLLOG " + json.dumps(record) + "\n"
                path.write_text("".join(lines))
                return
            seen += 1
    raise AssertionError(f"{path} has no record {key!r} (occurrence {occurrence})")


def add_mllog(path: Path, key: str, value, is_error: bool = False, is_warning: bool = False) -> None:
    """Append a record in loadgen's own format, as loadgen writes an error line."""
    record = {
        "key": key,
        "value": value,
        "time_ms": 1.0,
        "namespace": "mlperf::logging",
        "event_type": "POINT_IN_TIME",
        "metadata": {
            "is_error": is_error,
            "is_warning": is_warning,
            "file": "loadgen.cc",
            "line_no": 1,
            "pid": 1,
            "tid": 1,
        },
    }
    with open(path, "a") as handle:
        handle.write(":::MLLOG " + json.dumps(record) + "\n")


def _replace(root: Path, path: Path, edit: dict, outside: Path) -> None:
    if "new_hex" in edit:  # bytes that are not text, in place of `old`
        data, old = path.read_bytes(), expand(edit["old"]).encode()
        assert old in data, f"{path.relative_to(root)}: {old!r} not found; the case is stale"
        path.write_bytes(data.replace(old, bytes.fromhex(edit["new_hex"])))
        return
    text = path.read_text()
    old, new = expand(edit["old"]), expand(edit["new"])
    assert old in text, f"{path.relative_to(root)}: {old!r} not found; the case is stale"
    path.write_text(text.replace(old, new, edit.get("count", -1)))


def _write(root: Path, path: Path, edit: dict, outside: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if "hex" in edit:
        path.write_bytes(bytes.fromhex(edit["hex"]))
    elif "repeat" in edit:
        chunk = edit["repeat"].encode()
        with open(path, "wb") as handle:
            for _ in range(edit["times"]):
                handle.write(chunk)
    else:
        path.write_text(expand(edit.get("text", "")))


def _append(root: Path, path: Path, edit: dict, outside: Path) -> None:
    with open(path, "a") as handle:
        handle.write(expand(edit["text"]))


def _delete(root: Path, path: Path, edit: dict, outside: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        import shutil

        shutil.rmtree(path)
    else:
        path.unlink()


def _symlink(root: Path, path: Path, edit: dict, outside: Path) -> None:
    if path.exists() or path.is_symlink():
        path.unlink()
    where = edit.get("to", "outside")
    if where == "outside":
        outside.write_text(edit.get("text", "outside the tree\n"))
        path.symlink_to(outside)
    elif where == "nowhere":
        path.symlink_to(root / "does-not-exist")
    else:
        path.symlink_to(root / expand(where))


def _truncate(root: Path, path: Path, edit: dict, outside: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - edit["drop_bytes"]])


def _fifo(root: Path, path: Path, edit: dict, outside: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _copy(root: Path, path: Path, edit: dict, outside: Path) -> None:
    import shutil

    if path.is_dir():
        shutil.copytree(path, root / expand(edit["to"]), symlinks=True)
    else:
        shutil.copyfile(path, root / expand(edit["to"]))


# Each edit of a case file (see fixtures/cases/README.md): its key names the operation and the
# file it edits; the other keys are the operation's arguments.
OPS = {
    "replace": _replace,
    "write": _write,
    "append": _append,
    "delete": _delete,
    "mkdir": lambda root, path, edit, outside: path.mkdir(parents=True),
    "symlink": _symlink,
    "truncate": _truncate,
    "fifo": _fifo,
    "rename": lambda root, path, edit, outside: path.rename(root / expand(edit["to"])),
    "copy": _copy,
    "set_mllog": lambda root, path, edit, outside: set_mllog(
        path, edit["key"], edit["value"], edit.get("occurrence", 0)
    ),
    "add_mllog": lambda root, path, edit, outside: add_mllog(
        path, edit["key"], edit["value"], edit.get("is_error", False), edit.get("is_warning", False)
    ),
}


def apply_edit(root: Path, edit: dict, outside: Path) -> None:
    """One edit of a case file (see fixtures/cases/README.md)."""
    ((op, target),) = [(k, v) for k, v in edit.items() if k in OPS]
    OPS[op](root, root / expand(target), edit, outside)


def shared_defects(target: Path) -> Path:
    """The example, with defects a reader must find through the system and the submitter:

    closed/MLCheckDemo: cpu-1x-numpy's description lacks `framework` (SYS001, on the system),
    so both its results are invalid, its Offline also for an accuracy of its own (ACC002);
    cpu-2x-numpy, a copy of it, is valid; an empty documentation/notes warns (STR007, on the
    submission, about no result). closed/SecondCo, another copy, has no src/ (STR005, the
    same finding on both its results)."""
    import shutil

    shutil.copytree(EXAMPLE, target, symlinks=True)
    demo, second = target / SUBMISSION, target / "closed" / "SecondCo"
    shutil.copytree(demo, second, symlinks=True)
    shutil.rmtree(second / "src")
    for path in (second / "systems").glob("*.json"):
        path.write_text(path.read_text().replace('"MLCheckDemo"', '"SecondCo"'))
    shutil.copytree(demo / "results" / "cpu-1x-numpy", demo / "results" / "cpu-2x-numpy", symlinks=True)
    description = demo / "systems" / "cpu-1x-numpy.json"
    shutil.copyfile(description, demo / "systems" / "cpu-2x-numpy.json")
    data = json.loads(description.read_text())
    del data["framework"]
    description.write_text(json.dumps(data, indent=2))
    (target / OFFLINE / "accuracy" / "accuracy.txt").write_text("accuracy=80.000%\nhash=00ff\n")
    (demo / "documentation" / "notes").mkdir()
    return target


def table_row(**changes) -> dict:
    """One row of a results table (v6.0 key names), valid for compare, followup and claims."""
    row = {
        "Submitter": "Acme",
        "Availability": "available",
        "Category": "closed",
        "System": "s1",
        "Platform": "s1",
        "Model": "llama2-70b-99",
        "Scenario": "Offline",
        "Nodes": 1,
        "Processor": "CPU X",
        "p#": 2,
        "Accelerator": "Accel Y",
        "a#": 8,
        "Location": "./closed/Acme/results/s1/llama2-70b-99/Offline",
        "version": "v6.0",
        "Performance_Result": 1000.0,
        "Performance_Units": "Tokens/s",
    }
    row.update(changes)
    return row


def write_table(path: Path, rows: list[dict]) -> Path:
    """`rows` as a JSON results table at `path`."""
    path.write_text(json.dumps(rows))
    return path


class Counted:
    """A binary stream that counts what is read from it: `reads` calls, `read` bytes."""

    def __init__(self, stream) -> None:
        self.stream, self.reads, self.read_bytes = stream, 0, 0

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.reads += 1
        self.read_bytes += len(data)
        return data


@dataclass(frozen=True)
class Cost:
    """What reading a file cost, counted, not timed: the read calls, the bytes read and the
    peak traced memory (bytes). Timings belong in benchmarks/ (large_inputs.py)."""

    reads: int
    read_bytes: int
    peak: int


def reading_cost(read, path: Path, buffering: int = -1) -> Cost:
    """What `read(stream)` costs over the file at `path` (Cost)."""
    import tracemalloc

    tracemalloc.start()
    try:
        with open(path, "rb", buffering=buffering) as handle:
            counted = Counted(handle)
            read(counted)
        return Cost(counted.reads, counted.read_bytes, tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()


def log_reads(monkeypatch) -> list[Counted]:
    """Every stream the loadgen log parser reads from here on, counted (Counted): the reads
    of a whole `check`, as the parser makes them."""
    from checker.parsers import mllog

    streams: list[Counted] = []
    feed = mllog._Reading.feed

    def counted_feed(self, stream, block):
        streams.append(Counted(stream))
        return feed(self, streams[-1], block)

    monkeypatch.setattr(mllog._Reading, "feed", counted_feed)
    return streams


def calls(function, *args, **kwargs) -> int:
    """How many Python and C functions `function(*args, **kwargs)` calls: work counted, not
    timed (the same for the same code and input on any machine)."""
    import sys

    count = [0]

    def profile(frame, event, arg) -> None:
        if event in ("call", "c_call"):
            count[0] += 1

    sys.setprofile(profile)
    try:
        function(*args, **kwargs)
    finally:
        sys.setprofile(None)
    return count[0]


def misplaced(root: Path | str, finding) -> str | None:
    """Why a finding's position is not the place of what it names, or None when it is: the
    text at its line and column is the record the log's parser read (at its value), the JSON
    member or YAML key its pointer names, the line a `line N` pointer names, the name of the
    summary, verify or user.conf line the reader read. Lines end at `\\n` only."""
    from checker.locate import kind_of

    if finding.line is None:
        return None if finding.column is None else "a column without a line"
    path = Path(root) / finding.path
    lines = path.read_bytes().decode("utf-8", "replace").split("\n")
    if not 1 <= finding.line <= len(lines):
        return f"line {finding.line} is past the file's {len(lines)} lines"
    line, pointer, kind = lines[finding.line - 1], finding.pointer or "", kind_of(finding.path)
    if pointer.startswith("line ") and int(pointer[5:]) != finding.line:
        return f"pointer {pointer!r} placed at line {finding.line}"
    if finding.column is None:
        return None
    if not 1 <= finding.column <= len(line) + 1:
        return f"column {finding.column} is past line {finding.line}'s {len(line)} characters"
    before, at = line[: finding.column - 1], line[finding.column - 1 :]
    if kind == "mllog":
        return _misplaced_in_log(path, finding, line, before)
    return _misplaced_by_name(kind, pointer, at)


def _misplaced_in_log(path: Path, finding, line: str, before: str) -> str | None:
    """A log's finding is at the value of a record; of the record parsers/mllog.py read for
    its key, when its pointer is a key."""
    from checker.parsers.mllog import PREFIXES, Wanted, parse_mllog

    pointer = finding.pointer or ""
    if not line.encode().startswith(PREFIXES) or not before.endswith('"value": '):
        return f"not the value of a record: {line[:80]!r}"
    if pointer.startswith("line ") or not pointer.isascii() or '"' in pointer or "\\" in pointer:
        return None
    with path.open("rb") as stream:
        read = parse_mllog(stream, Wanted([pointer]))[0].lines.get(pointer)
    return None if read == finding.line else f"line {finding.line}, but the parser read {pointer!r} at line {read}"


def _misplaced_by_name(kind: str, pointer: str, at: str) -> str | None:
    """A JSON or YAML finding is at the member or key its pointer names; a text one at its name."""
    if pointer.startswith("/"):
        names = [json.dumps(p.replace("~1", "/").replace("~0", "~"), ensure_ascii=False) for p in pointer.split("/")]
        if kind == "yaml":
            names = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")]
        # The member named (or the nearest that exists: one of its containers), or an item.
        if pointer.rpartition("/")[2].isdigit():
            return None
        return None if at[:1] in "{[" or any(at.startswith(n) for n in names if n) else f"{pointer!r} at {at[:40]!r}"
    if pointer.startswith(("line ", "byte ")) or kind == "text":
        return None  # a line, a byte, or a place carried by the reader (an accuracy match)
    if kind in ("json", "yaml"):  # a dotted name: its last key is a suffix of it
        key = at[1 : at.index('"', 1)] if kind == "json" and at.startswith('"') else at.split(":", 1)[0]
        return None if pointer == key or pointer.endswith("." + key) else f"{pointer!r} at {at[:40]!r}"
    same = at.lower().startswith(pointer.lower()) if kind == "verify" else at.startswith(pointer)
    return None if same else f"{pointer!r} at {at[:40]!r}"


# The system Chromium the browser tests drive through Playwright (tests/conftest.py `chromium`).
CHROMIUM = "/usr/bin/chromium"
# As the machine notes start it: headless, no sandbox (root), and no background network.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
