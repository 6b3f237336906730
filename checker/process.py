"""How the mlperf-check process starts and ends: signals, a closed stdout, exit statuses.

The console script enters through checker/__main__.py, which installs the handlers before
the command line and its libraries are imported. SIGINT and SIGTERM, at any moment, raise
`Interrupted` in the main thread: every `finally` runs (a temporary file is removed, worker
processes are terminated), then `run` removes whatever temporary file checker.output still
knows, says so in one line on stderr and exits 128 + the signal (130, 143), as a shell
reports a process a signal ended; no traceback. A stdout whose reader has gone (`| head -c 10`) ends the process
quietly with 141, as SIGPIPE would, without Python's "Exception ignored" line.

At import this module loads only the standard library: it must load in a few milliseconds."""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable
from typing import NoReturn

EXIT_PIPE = 128 + signal.SIGPIPE  # 141
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """A signal asked the process to stop (a BaseException: no `except Exception` keeps it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_caught: list[int] = []


def _handler(signum: int, frame: object) -> None:
    if _caught:  # already stopping: the first signal's cleanup runs to its end
        return
    _caught.append(signum)
    raise Interrupted(signum)


def install() -> None:
    """SIGINT and SIGTERM raise Interrupted in the main thread (once; a second is ignored
    while the first one's cleanup runs). One the process was started ignoring stays so."""
    if threading.current_thread() is threading.main_thread():
        for signum in SIGNALS:
            # A SIGINT ignored from the start (nohup, a shell's background job) stays ignored.
            if signal.getsignal(signum) is not signal.SIG_IGN:
                signal.signal(signum, _handler)


def worker() -> None:
    """A worker process's own signals: SIGINT (a terminal's Ctrl-C reaches the whole process
    group) is ignored, the parent decides; SIGTERM (the parent's terminate) ends it at once.
    Then the signals the parent held while forking are let through."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _ends_with_parent()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, set(SIGNALS))


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _ends_with_parent() -> None:
    """On Linux, the kernel sends the worker SIGTERM when the parent that started it ends,
    however it ends (a signal that landed while the workers were being started and not yet
    known to it, a SIGKILL): no worker outlives the command. Elsewhere, the parent's own
    stopping of its workers is all there is."""
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent ended before the kernel was asked
        os._exit(128 + signal.SIGTERM)


def interrupted(signum: int) -> NoReturn:
    """End the process for a signal: temporary files removed, one line, 128 + signum."""
    from .output import cleanup, held

    with held():
        cleanup()
        with contextlib.suppress(Exception):
            atexit._run_exitfuncs()  # e.g. a git listing still running (scope.Changes) is stopped
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        with contextlib.suppress(Exception):
            print(f"mlperf-check: interrupted by {signal.Signals(signum).name}", file=sys.stderr, flush=True)
        # Not SystemExit: the interpreter's exit would wait for the threads of a pool whose
        # workers were just stopped; everything that must end has ended above.
        os._exit(128 + signum)


def _pipe() -> tuple[int, int] | None:
    """The pipe stdout is, as (device, inode); None when it is not a pipe."""
    try:
        info = os.fstat(1)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISFIFO(info.st_mode) else None


def _reader_gone(started: tuple[int, int] | None) -> bool:
    """Whether stdout's reader left, even after the last write was taken by the pipe: what
    is still unread is waited for a few seconds, as a write into a full pipe would wait, and
    a reader that took it all is given a tenth of a second to leave. A stdout that was a pipe
    and is one no more was pointed at /dev/null on a broken pipe (by checker.output, or by
    rich's console, which then exits 1)."""
    if started is None:
        return False
    if _pipe() != started:
        return True
    from .output import reader_gone

    return reader_gone(wait=5.0, grace=0.1)


def run(entry: Callable[[], object]) -> NoReturn:
    """Run `entry` (the CLI) and exit with its status, through the rules above."""
    install()
    started = _pipe()
    # One handler for the whole way to the exit: a signal may land while the status is
    # taken or stdout flushed, not only while the command runs (the handler raises once).
    try:
        status = _ran(entry, started)
        # The work is done: a signal from now on would land in the exit functions (or, were
        # this SystemExit, in the interpreter's teardown, where Python puts the default
        # handlers back, in whichever thread takes it: a mask would hold it in this thread
        # only). Ignored process-wide, it is dropped.
        for signum in SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
    except Interrupted as stop:
        interrupted(stop.signum)
    except KeyboardInterrupt:  # a SIGINT before install(), or raised by a library
        interrupted(signal.SIGINT)
    _exit(status)


def _ran(entry: Callable[[], object], started: tuple[int, int] | None) -> object:
    """`entry` run: its status, stdout flushed (141 when its reader has gone)."""
    status: object = 0
    try:
        entry()
    except SystemExit as done:
        status = done.code
    try:
        sys.stdout.flush()
        if status != EXIT_PIPE and _reader_gone(started):
            raise BrokenPipeError
    except BrokenPipeError:
        from .output import quiet_stdout

        quiet_stdout()
        status = EXIT_PIPE
    return status


def _exit(status: object) -> NoReturn:
    """Exit with `status` as SystemExit would (None is 0, a number is itself, anything else
    is printed and 1), without the interpreter's teardown: every output is written and
    closed by now, and the exit functions (a git listing still running, multiprocessing's,
    weakref finalizers) run here; freeing each object of a report of a whole round one by one
    would cost a tenth of the run that checked a warm tree. Under a profiler or a tracer
    (`python -m cProfile`, a debugger), which writes its results once the script returns,
    it is the interpreter's own exit."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        raise SystemExit(status)
    if status is None:
        code = 0
    elif isinstance(status, int):
        code = status
    else:
        with contextlib.suppress(Exception):
            print(status, file=sys.stderr)
        code = 1
    # As the interpreter's exit: threading's exit callbacks (an executor still open is shut
    # down, its manager thread woken), then every non-daemon thread joined.
    shutdown = getattr(threading, "_shutdown", None)
    with contextlib.suppress(Exception):
        if shutdown is not None:
            shutdown()
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code & 0xFF)
