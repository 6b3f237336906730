"""Signals and pipes end the process cleanly (issue 22, "Processes"), in real processes.

SIGINT and SIGTERM at any moment (while the command line imports, while the check runs in
its worker processes, while the report is drawn and written) end the process with 130 or
143 and one line on stderr, no traceback; no temporary file is left beside the output or in
the temporary folder (TMPDIR points at a private one), and no worker process outlives it.
A stdout closed by its reader exits 141 without a word."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import EXAMPLE, SUBMISSION, children

COPIES = 12  # submitters: a check of a few seconds on 2 cores, with groups to plot in report


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    """The example's submitter copied COPIES times, each under its own name (all valid)."""
    root = tmp_path_factory.mktemp("signals") / "tree"
    for number in range(COPIES):
        name = f"Demo{number}"
        target = root / "closed" / name
        shutil.copytree(EXAMPLE / SUBMISSION, target, symlinks=True)
        for description in (target / "systems").glob("*.json"):
            description.write_text(description.read_text().replace('"MLCheckDemo"', f'"{name}"'))
    return root


def _start(args: list[str], tmp: Path, *python: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env["TMPDIR"] = str(tmp)
    return subprocess.Popen(
        [sys.executable, *python, "-m", "checker", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=tmp.parent,
    )


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _ended(process: subprocess.Popen, signum: int) -> tuple[int, str]:
    out, err = process.communicate(timeout=60)
    return process.returncode, err.decode("utf-8", "replace")


def _still_alive(pids: set[int], within: float = 10.0) -> list[int]:
    """The processes of `pids` still running after up to `within` seconds (a bound for a
    loaded machine, not a measure: they end at once where nothing else runs)."""
    deadline = time.monotonic() + within
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return sorted(pid for pid in pids if _alive(pid))


def _private(tmp_path: Path) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_command_line_imports(tmp_path: Path, signum: int) -> None:
    """Python's own import log tells when typer is being imported: the signal lands there."""
    tmp = _private(tmp_path)
    process = _start(["check", str(EXAMPLE), "--round", "demo-v6.1"], tmp, "-X", "importtime")
    assert process.stderr is not None
    for line in process.stderr:
        if b"| click" in line or b"| typer" in line:
            break
    process.send_signal(signum)
    status, err = _ended(process, signum)
    said = [line for line in err.splitlines() if not line.startswith("import time:")]
    assert (status, said) == (128 + signum, [f"mlperf-check: interrupted by {signal.Signals(signum).name}"])
    assert list(tmp.iterdir()) == []


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_check_runs_stops_its_workers(big: Path, tmp_path: Path, signum: int) -> None:
    """The signal lands as soon as the worker processes are there."""
    tmp = _private(tmp_path)
    out = tmp_path / "out.json"
    process = _start(["check", str(big), "--round", "demo-v6.1", "-j", "2", "-o", str(out)], tmp)
    workers: set[int] = set()
    deadline = time.monotonic() + 60
    while not workers and process.poll() is None and time.monotonic() < deadline:
        workers = children(process.pid)
        time.sleep(0.01)
    process.send_signal(signum)
    status, err = _ended(process, signum)
    assert "Traceback" not in err and "Exception ignored" not in err
    if status == 0:  # it ended first (a fast machine): then the report is whole
        assert out.read_text().rstrip().endswith("}")
    else:
        assert (status, err.splitlines()[-1]) == (
            128 + signum,
            f"mlperf-check: interrupted by {signal.Signals(signum).name}",
        )
        assert not out.exists()
    assert workers, "the check ran in worker processes"
    assert _still_alive(workers) == []
    assert list(tmp.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == (["out.json", "tmp"] if status == 0 else ["tmp"])


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_report_checks_stops_its_workers_and_its_painter(
    big: Path, tmp_path: Path, signum: int
) -> None:
    """report starts the child that draws its plot before the check's workers: a signal as
    soon as these are there ends all of them, quietly."""
    tmp = _private(tmp_path)
    out = tmp_path / "audit.html"
    process = _start(["report", str(big), "--round", "demo-v6.1", "-j", "2", "--no-cache", "-o", str(out)], tmp)
    seen: set[int] = set()
    deadline = time.monotonic() + 60
    while len(seen) < 3 and process.poll() is None and time.monotonic() < deadline:
        seen |= children(process.pid)  # the painter, then the check's two workers
        time.sleep(0.01)
    process.send_signal(signum)
    status, err = _ended(process, signum)
    assert "Traceback" not in err and "Exception ignored" not in err
    if status != 0:  # else it ended first (a fast machine)
        assert (status, err.splitlines()[-1]) == (
            128 + signum,
            f"mlperf-check: interrupted by {signal.Signals(signum).name}",
        )
        assert not out.exists()
    assert len(seen) == 3 or status == 0, seen
    assert _still_alive(seen) == []
    assert list(tmp.iterdir()) == []


@pytest.fixture(scope="module")
def report_seconds(big: Path, tmp_path_factory) -> float:
    """How long a whole report of the tree takes here (it ends with exit 0). Both runs are
    uncached: a second run from a warm cache (checker/cache.py) would end before the signal."""
    room = tmp_path_factory.mktemp("whole")
    tmp = _private(room)
    started = time.monotonic()
    whole = _start(
        ["report", str(big), "--round", "demo-v6.1", "-j", "2", "--no-cache", "-o", str(room / "audit.html")], tmp
    )
    whole.communicate(timeout=120)
    assert whole.returncode == 0 and (room / "audit.html").exists()
    return time.monotonic() - started


@pytest.mark.slow
@pytest.mark.parametrize("fraction", [0.8])
def test_sigterm_while_the_report_is_drawn_or_written_leaves_no_temporary_file(
    big: Path, tmp_path: Path, report_seconds: float, fraction: float
) -> None:
    """The report writes its page through a temporary file beside the output (its plot is
    drawn in memory, in a child process): SIGTERM late in the run, when it exists, removes it."""
    tmp = _private(tmp_path)
    out = tmp_path / "audit.html"
    process = _start(["report", str(big), "--round", "demo-v6.1", "-j", "2", "--no-cache", "-o", str(out)], tmp)
    time.sleep(report_seconds * fraction)
    process.send_signal(signal.SIGTERM)
    status, err = _ended(process, signal.SIGTERM)
    assert "Traceback" not in err and "Exception ignored" not in err
    if status != 0:
        assert (status, err.splitlines()[-1]) == (143, "mlperf-check: interrupted by SIGTERM")
    # Under load, timings move: the page may be renamed into place before the signal (even when
    # the signal then ends the process before its exit). Either the page is whole or it is not
    # there; no temporary file is left either way.
    if out.exists():
        assert out.read_text().rstrip().endswith("</html>")
    else:
        assert status != 0
    assert sorted(p.name for p in tmp_path.iterdir()) == (["audit.html", "tmp"] if out.exists() else ["tmp"])
    assert list(tmp.iterdir()) == []


@pytest.mark.slow
def test_sigterm_while_a_rerun_command_runs_stops_it_and_leaves_no_copy(tmp_path: Path) -> None:
    """rerun's temporary copy is removed and its harness (a process group) is stopped."""
    tmp = _private(tmp_path)
    marker = tmp_path / "pid"
    result = str(EXAMPLE / SUBMISSION / "results" / "cpu-1x-numpy" / "demo-mlp-99" / "Offline")
    process = _start(["rerun", result, "--round", "demo-v6.1", "--command", f"echo $$ > {marker}; exec sleep 60"], tmp)
    deadline = time.monotonic() + 30
    while not marker.exists() or not marker.read_text().strip():
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.05)
    harness = int(marker.read_text())
    process.send_signal(signal.SIGTERM)
    status, err = _ended(process, signal.SIGTERM)
    assert (status, err.splitlines()[-1]) == (143, "mlperf-check: interrupted by SIGTERM")
    assert "Traceback" not in err
    deadline = time.monotonic() + 10  # the harness ends on its own SIGTERM: give a loaded machine time
    while _alive(harness) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(harness)
    assert list(tmp.iterdir()) == []


SIGNAL_IN_POPEN = """
import os, signal, subprocess, sys
from checker import process
from checker.commands import reproduce

started = subprocess.Popen._execute_child

def execute_child(self, *args, **kwargs):  # the signal lands once the harness runs, inside Popen
    started(self, *args, **kwargs)
    print(f"harness {self.pid}", file=sys.stderr, flush=True)
    os.kill(os.getpid(), getattr(signal, sys.argv[2]))

subprocess.Popen._execute_child = execute_child
process.run(lambda: reproduce.rerun_command(sys.argv[1], "exec sleep 60", print))
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_inside_the_harness_start_stops_the_harness(tmp_path: Path, name: str) -> None:
    """A signal that lands after rerun's harness started but before Popen returned it (so
    before rerun knows its process) is held until it does: the harness's process group is
    stopped, and the harness gets the signals (it ends on SIGTERM as it would)."""
    done = subprocess.run(
        [sys.executable, "-c", SIGNAL_IN_POPEN, str(tmp_path / "copy"), name],
        capture_output=True,
        text=True,
        timeout=60,
    )
    signum = getattr(signal, name)
    lines = done.stderr.splitlines()
    assert (done.returncode, lines[-1]) == (128 + signum, f"mlperf-check: interrupted by {name}"), done.stderr
    harness = int(lines[0].removeprefix("harness "))
    assert not _alive(harness)


def test_the_harness_gets_the_signals_rerun_held_while_starting_it(tmp_path: Path) -> None:
    """rerun starts its harness with SIGINT and SIGTERM held; the harness runs with neither
    blocked (Ctrl-C and a SIGTERM to its group stop it)."""
    from checker.commands.reproduce import rerun_command

    said: list[str] = []
    status, _ = rerun_command(str(tmp_path / "copy"), "exec grep SigBlk /proc/self/status", said.append)
    (line,) = said
    blocked = int(line.split()[1], 16)
    assert status == 0 and blocked & (1 << (signal.SIGINT - 1) | 1 << (signal.SIGTERM - 1)) == 0, line


@pytest.mark.slow
@pytest.mark.parametrize("command", [["rules"], ["table", str(EXAMPLE), "--round", "demo-v6.1"]])
def test_a_closed_stdout_exits_141_quietly(tmp_path: Path, command: list[str]) -> None:
    """`mlperf-check table ... | head -c 10` once the reader has gone: 141, as SIGPIPE would."""
    process = _start(command, _private(tmp_path))
    assert process.stdout is not None
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 141
    assert "Traceback" not in err and "Exception ignored" not in err and "error" not in err


TEARDOWN = """
import os, signal, sys, threading, time
from checker import process

def entry():
    # A thread the interpreter's teardown waits for, which signals the process from there.
    def late():
        time.sleep(0.3)
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))
    threading.Thread(target=late).start()
    print("done", flush=True)

process.run(entry)
"""


@pytest.mark.slow
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_in_the_interpreters_teardown_is_dropped(tmp_path: Path, name: str) -> None:
    """Once the work is done, a signal that lands while the interpreter tears down (from any
    thread: a helper thread does not share the main thread's signal mask) is dropped: the
    command's status stands, with no traceback (it was -15 for SIGTERM)."""
    done = subprocess.run(
        [sys.executable, "-c", TEARDOWN, name], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "done\n", "")


LEFT_OPEN = """
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from checker import process

def entry():
    ProcessPoolExecutor(1).submit(sum, [1, 2]).result()  # neither is shut down
    ThreadPoolExecutor(1).submit(sum, [3]).result()
    print("done", flush=True)
    raise SystemExit(3)

process.run(entry)
"""


def test_a_profiled_command_ends_with_the_interpreters_exit(tmp_path: Path) -> None:
    """Under cProfile (which writes its results once the script returns) the command ends
    with the interpreter's own exit: the profile is written (cProfile itself ends 0 on any
    SystemExit of the script)."""
    out = tmp_path / "profile"
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "checker", "rules", "--format", "nope"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stderr.startswith("error: --format nope: unknown format") and out.stat().st_size > 0, done.stderr


def test_the_exit_shuts_down_what_the_command_left_open(tmp_path: Path) -> None:
    """The command ends without the interpreter's teardown (process._exit), yet as it would:
    an executor left open is shut down, its manager thread woken and joined, and the status
    stands (joining that thread alone would wait for ever)."""
    done = subprocess.run([sys.executable, "-c", LEFT_OPEN], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (3, "done\n", "")


@pytest.mark.slow
def test_workers_end_with_a_parent_killed_outright(big: Path, tmp_path: Path) -> None:
    """A parent killed with SIGKILL cleans nothing up: its check's workers end all the same
    (the kernel signals them when their parent ends: checker.process.worker)."""
    tmp = _private(tmp_path)
    process = _start(["check", str(big), "--round", "demo-v6.1", "-j", "2", "--no-cache", "-f", "json"], tmp)
    workers: set[int] = set()
    deadline = time.monotonic() + 60
    while len(workers) < 2 and process.poll() is None and time.monotonic() < deadline:
        workers |= children(process.pid)
        time.sleep(0.01)
    process.kill()
    process.wait(timeout=60)  # not communicate: a worker that outlived it would hold its pipes open
    assert len(workers) == 2 or process.returncode == 0, workers
    assert _still_alive(workers) == []


STATUS = """
import sys
from checker import process

def entry():
    print("out", end="")  # left in stdout's buffer: the exit writes it
    sys.stderr.write("err")
    raise SystemExit(eval(sys.argv[1]))

process.run(entry) if sys.argv[2] == "run" else entry()
"""


@pytest.mark.parametrize("status", ["None", "0", "1", "2", "3", "141", "255", "256", "-1", "True", "'bye'"])
def test_the_fast_exit_ends_as_the_interpreters_exit_would(tmp_path: Path, status: str) -> None:
    """process._exit ends without the interpreter's teardown, with what SystemExit would
    give: the same status (None 0, a number itself modulo 256, anything else printed and
    1) and every byte still buffered written, stdout to a file as to a pipe."""
    for stdout in (subprocess.PIPE, tmp_path / "out"):
        ended = []
        for how in ("run", "plain"):
            with open(tmp_path / "out", "w+b") if stdout != subprocess.PIPE else contextlib.nullcontext() as file:
                done = subprocess.run(
                    [sys.executable, "-c", STATUS, status, how],
                    stdout=file if file is not None else subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    timeout=60,
                    cwd=tmp_path,
                )
            out = done.stdout if file is None else (tmp_path / "out").read_bytes()
            ended.append((done.returncode, out, done.stderr))
        assert ended[0] == ended[1]
        assert ended[0][1] == b"out"


IN_AN_EXIT_FUNCTION = """
import atexit, os, signal, sys, time
from checker import process

def late():
    os.kill(os.getpid(), getattr(signal, sys.argv[1]))
    time.sleep(0.2)
    print("exit function done", flush=True)

def entry():
    atexit.register(late)
    print("done")
    raise SystemExit(1)

process.run(entry)
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_in_an_exit_function_is_dropped(tmp_path: Path, name: str) -> None:
    """The exit functions run once the work is done (process._exit): a signal that lands in
    one is dropped, the function runs to its end and the command's status stands."""
    done = subprocess.run(
        [sys.executable, "-c", IN_AN_EXIT_FUNCTION, name], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert (done.returncode, done.stdout, done.stderr) == (1, "done\nexit function done\n", "")


@pytest.mark.slow
def test_every_entry_point_ends_with_the_commands_status_and_all_its_output(tmp_path: Path) -> None:
    """`python -m checker`, `python -m checker.cli` and the console script end through the
    fast exit with the command's status (1 findings, 0 --exit-zero, 2 a usage error), the
    whole report written to a file as to a pipe; a closed pipe ends it with 141."""
    script = Path(sys.executable).with_name("mlperf-check")
    entries = [[sys.executable, "-m", "checker"], [sys.executable, "-m", "checker.cli"]]
    entries += [[str(script)]] if script.exists() else []
    env = {**os.environ, "MLPERF_CHECK_CACHE_DIR": str(tmp_path / "cache")}
    check = ["check", str(EXAMPLE), "-f", "json", "--no-progress"]
    seen = set()
    for entry in entries:
        for args, status in ((check, 1), ([*check, "--exit-zero"], 0), ([*check, "--color", "no"], 2)):
            piped = subprocess.run([*entry, *args], capture_output=True, timeout=120, env=env, cwd=tmp_path)
            with open(tmp_path / "out.json", "wb") as file:
                filed = subprocess.run([*entry, *args], stdout=file, stderr=subprocess.PIPE, timeout=120, env=env)
            written = (tmp_path / "out.json").read_bytes()
            assert (piped.returncode, filed.returncode, piped.stdout) == (status, status, written), entry
            if status != 2:
                seen.add(json.dumps(json.loads(written)["summary"], sort_keys=True))
        process = subprocess.Popen([*entry, "rules"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        assert process.stdout is not None
        process.stdout.close()
        assert (process.wait(timeout=120), process.stderr.read()) == (141, b"")
    assert len(seen) == 1


AS_THE_STATUS_IS_TAKEN = """
import os, signal, sys, time
from checker import process

class Done(SystemExit):
    @property
    def code(self):  # the signal lands while run takes the status, once the command is done
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))
        time.sleep(0.5)  # the handler runs here, at the latest
        return 0

def entry():
    print("done")
    raise Done()

process.run(entry)
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_as_the_status_is_taken_ends_as_any_signal(tmp_path: Path, name: str) -> None:
    """A signal that lands after the command returned, while process.run takes its status
    (before the exit ignores signals), ends the process as at any other moment: 128 + the
    signal and one line (it was a traceback and 1: the handler was outside run's `try`)."""
    done = subprocess.run(
        [sys.executable, "-c", AS_THE_STATUS_IS_TAKEN, name], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    signum = getattr(signal, name)
    assert (done.returncode, done.stdout, done.stderr) == (
        128 + signum,
        "done\n",
        f"mlperf-check: interrupted by {name}\n",
    )
