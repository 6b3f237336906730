"""The one writer of every output: reports, tables, pages, plots, and the files rerun makes.

Every file mlperf-check writes goes through this module (tests/test_writes.py checks that no
other module opens a file for writing). A command first plans its outputs (`Plan.add`),
before any work, so that a path it cannot write is a usage error at once; then it writes
each one (`Plan.write`). What a path is decides how it is written, as `cp` would:

- a regular file, or a new name: a temporary file in the same folder, then a rename onto it,
  so the file is written whole or not at all, with the permissions of the file it replaces;
- a symlink: followed to its target, which is written as above (the link stays);
- a character device or a FIFO (`/dev/null`, a named pipe), or an open file named through
  /dev/stdout, /dev/fd/N or /proc/PID/fd/N: written through, never replaced;
- a folder, a socket or a block device: an `OutputError` (exit 2).

An output never replaces a file the command reads: an input (a table, a waivers or claims
file, the configuration, a round file), and no file inside the submission folders (closed/,
open/, network/) of a checked tree. A path that comes from a `[tool.mlperf-check]` found in
the checked tree must also be relative and stay under the current folder. One path named
twice is an error. A write that fails (no space, no permission) is an `OutputError` naming
the path and the reason; a stdout closed by its reader is `PipeClosed`.

Temporary files are known here until they are renamed or removed: a signal handler that
ends the process (checker.process) removes what is left (`cleanup`)."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import shutil
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from .errors import UsageError
from .tree import _what
from .workspace import within

if TYPE_CHECKING:
    from .workspace import Workspace

STDOUT = "-"


class OutputError(UsageError):
    """An output that cannot or may not be written (exit 2); the message names it and why."""


class PipeClosed(Exception):
    """stdout's reader has gone (`| head`): the process ends quietly, as one ended by SIGPIPE."""


# Temporary files and folders made here and not yet renamed or removed.
_PENDING: set[str] = set()


@contextlib.contextmanager
def held() -> Iterator[None]:
    """SIGINT and SIGTERM held back for a block of the main thread (a temporary file made and
    registered as one step; worker processes forked with the signals blocked, so none runs
    the parent's handler before its own are set: checker.process.worker). Delivered when
    the block ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


_masked = held  # a temporary file is made and registered, or renamed and forgotten, as one step


def cleanup() -> None:
    """Remove every temporary file and folder still pending (a signal is ending the process)."""
    with _masked():
        for path in sorted(_PENDING, reverse=True):
            _remove(path)
        _PENDING.clear()


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)


def _temporary(folder: str, name: str, suffix: str = "") -> str:
    """A new empty file in `folder`, registered until `_settle`."""
    with _masked():
        handle, path = tempfile.mkstemp(prefix=f".{name}.", suffix=suffix, dir=folder)
        os.close(handle)
        _PENDING.add(path)
    return path


def _settle(temporary: str, onto: str | None) -> None:
    """Rename `temporary` onto `onto` (None: remove it), and forget it."""
    with _masked():
        try:
            if onto is not None:
                os.replace(temporary, onto)
        finally:
            if os.path.lexists(temporary):
                _remove(temporary)
            _PENDING.discard(temporary)


@contextlib.contextmanager
def scratch(folder: str | None = None) -> Iterator[str]:
    """A private temporary folder (in `folder`, else the system's), removed at the end."""
    with _masked():
        path = tempfile.mkdtemp(prefix=".mlperf-check-" if folder else "mlperf-check-", dir=folder)
        _PENDING.add(path)
    try:
        yield path
    finally:
        with _masked():
            _remove(path)
            _PENDING.discard(path)


# --- what a path is ------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    given: str  # as the user (or the configuration) wrote it
    option: str  # "-o", "--format json:", "--plot", "pyproject.toml [tool.mlperf-check] format"
    path: str  # where the bytes go: the resolved file, or `given` for a stream
    stream: bool  # written through (a device, a FIFO, an open file descriptor), never replaced

    @property
    def label(self) -> str:
        return f"{self.option}{self.given}" if self.option.endswith(":") else f"{self.option} {self.given}"


def _through_descriptor(path: str) -> bool:
    """Whether `path` names an open file descriptor (/dev/stdout, /dev/fd/1, /proc/self/fd/1),
    whose target is the file the process was given, not a file to replace."""
    seen = 0
    current = os.path.abspath(path)
    while seen < 40:
        parts = current.split(os.sep)
        if current.startswith("/dev/fd/") or (len(parts) > 3 and parts[1] == "proc" and parts[3] == "fd"):
            return True
        if not os.path.islink(current):
            return False
        link = os.readlink(current)
        current = os.path.normpath(os.path.join(os.path.dirname(current), link))
        seen += 1
    return False


def resolve(path: str, option: str = "-o") -> Target:
    """What `path` is and how it is written; OutputError for what cannot be."""
    shown = Target(path, option, path, False).label
    if path == "":
        raise OutputError(f"{option} needs a file name")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise OutputError(f"{shown}: cannot write there: {error.strerror or error}") from None
    if info is not None and (stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode) or _through_descriptor(path)):
        return Target(path, option, path, True)
    real = os.path.realpath(path)
    if info is not None:
        what = _special(info.st_mode)
        if what:
            raise OutputError(f"{shown}: that is {what}; give a file name")
    folder = os.path.dirname(real)
    if not os.path.isdir(folder):
        raise OutputError(f"{shown}: the folder {os.path.dirname(path) or '.'} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{shown}: the folder {os.path.dirname(real) or '.'} is not writable")
    return Target(path, option, real, False)


def _special(mode: int) -> str | None:
    """What a file that is not regular is, as messages name it (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return "a block device" if stat.S_ISBLK(mode) else _what(mode)


class Plan:
    """The outputs of one command, checked against what it reads before any work."""

    def __init__(
        self,
        reads: Iterable[str | None] = (),
        trees: Iterable[str | None] = (),
        workspaces: Iterable[Workspace] = (),
    ) -> None:
        """`reads`: files (or folders) the command reads; `trees`: the submission trees it
        checks (a path of `trees` that is a file, a results table, is one it reads), or
        `workspaces`, those already located: no output may enter their areas."""
        from .workspace import areas_of

        checked = [t for t in trees if t]
        self.reads = [r for r in reads if r] + [t for t in checked if not os.path.isdir(t)]
        self.areas = [area for tree in checked if os.path.isdir(tree) for area in areas_of(tree)]
        self.areas += [area for where in workspaces for area in where.areas]
        self.targets: list[Target] = []

    def add(
        self, path: str | None, option: str = "-o", base: str | None = None, confined: bool = False
    ) -> Target | None:
        """Plan one output (None or "-": stdout, returned as None). A relative `path` is
        relative to `base` when given (the folder of the configuration file that names it);
        `confined` (that file is inside the checked tree): it must be relative and stay under
        the current folder."""
        if path is None or path == STDOUT:
            return None
        if confined:
            self._confined(path, option, base or ".")
        if base is not None and not os.path.isabs(path):
            path = os.path.join(base, path)
        self._refused(path, Target(path, option, path, False).label)
        target = resolve(path, option)
        self._not_read(target)
        for other in self.targets:
            if _same(other, target):
                raise OutputError(f"{target.label}: {other.label} writes there too; give each output its own file")
        self.targets.append(target)
        return target

    def _confined(self, path: str, option: str, base: str) -> None:
        shown = f"{option} {path}"
        if os.path.isabs(path):
            raise OutputError(
                f"{shown}: a configuration file inside the checked tree names an absolute path; "
                "give a path relative to it, or -o on the command line"
            )
        joined = os.path.join(base, path)
        here = os.path.realpath(os.getcwd())
        if not within(os.path.realpath(joined), here):
            raise OutputError(
                f"{shown}: a configuration file inside the checked tree names a path outside the current "
                f"folder ({os.path.realpath(joined)}); give -o on the command line"
            )

    def _refused(self, path: str, label: str) -> None:
        from .workspace import WorkspaceError, refuse_write

        if path == "":
            return  # resolve says what an empty name needs
        try:
            refuse_write(path, label, self.areas)
        except WorkspaceError as error:
            raise OutputError(str(error)) from None

    def _not_read(self, target: Target) -> None:
        landing = os.path.realpath(target.path)
        self._refused(target.path, target.label)
        for read in self.reads:
            if within(landing, os.path.realpath(read)) or _same_file(landing, read):
                raise OutputError(f"{target.label}: that is {read}, which this command reads; give another file")

    def write(self, target: Target | None, render: Callable[[TextIO], object]) -> None:
        """Write what `render` writes to a text stream: to the target, or to stdout (None)."""
        if target is None:
            _to_stdout(render)
            return
        target = self._again(target)
        try:
            if target.stream:
                with contextlib.suppress(OSError):
                    sys.stdout.flush()  # what went to stdout before comes first
                with _open_through(target.path) as out:
                    render(out)
                return
            temporary = _temporary(os.path.dirname(target.path), os.path.basename(target.path))
            try:
                with open(temporary, "w", encoding="utf-8", newline="", errors="backslashreplace") as out:
                    render(out)
                os.chmod(temporary, _mode(target.path))
            except BaseException:
                _settle(temporary, None)
                raise
            _settle(temporary, target.path)
        except OSError as error:
            raise OutputError(f"{target.label}: cannot write it: {error.strerror or error}") from None

    def pages(self, target: Target, draw: Callable[[str], list[str]]) -> list[str]:
        """Draw a plot's pages (`draw(path)` writes them and returns their files) in a private
        folder, then move each into place: the first onto `target`, the others beside it
        (`<stem>-N.png`). A device or FIFO takes the first page only. Returns what was written."""
        target = self._again(target)
        folder = None if target.stream else os.path.dirname(target.path)
        written: list[str] = []
        try:
            with scratch(folder) as room:
                pages = draw(os.path.join(room, os.path.basename(target.path)))
                for number, page in enumerate(pages):
                    if number == 0 and target.stream:
                        with open(page, "rb") as source, _open_through(target.path, binary=True) as out:
                            shutil.copyfileobj(source, out)
                        written.append(target.given)
                    elif target.stream:
                        continue
                    else:
                        given = os.path.join(os.path.dirname(target.given), os.path.basename(page))
                        landing = target if number == 0 else self.add(given, target.option)
                        assert landing is not None
                        os.chmod(page, _mode(landing.path))
                        os.replace(page, landing.path)
                        written.append(given if number else target.given)
        except OSError as error:
            raise OutputError(f"{target.label}: cannot write it: {error.strerror or error}") from None
        if target.stream and len(pages) > 1:
            from .escaping import visible

            print(
                visible(f"{target.label}: not a file, so it takes the first of the {len(pages)} pages"), file=sys.stderr
            )
        return written

    def _again(self, target: Target) -> Target:
        """The target as it is now (a path swapped for a FIFO or a folder since it was planned)."""
        now = resolve(target.given, target.option)
        self._not_read(now)
        return now


def _same(one: Target, other: Target) -> bool:
    return one.path == other.path or _same_file(one.path, other.path)


def _same_file(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def _mode(path: str) -> int:
    """The permissions of the file `path` replaces, or those a new file gets (0666 & ~umask)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def _open_through(path: str, binary: bool = False) -> Iterator[Any]:
    """A device, FIFO or open descriptor, opened to write through it: never truncated or
    replaced (a FIFO waits for its reader, as with cp)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    if binary:
        handle: Any = os.fdopen(fd, "wb")
    else:
        handle = os.fdopen(fd, "w", encoding="utf-8", newline="", errors="backslashreplace")
    with handle:
        yield handle


def quiet_stdout() -> None:
    """Point stdout at /dev/null: nothing more can reach a reader that has gone, and the
    interpreter's last flush then has nowhere to fail (checker.process.run sees stdout is no
    longer the pipe it started with, and ends with 141)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def reader_gone(stream: TextIO | None = None, wait: float = 0.0, grace: float = 0.0) -> bool:
    """Whether `stream` (stdout) is a pipe whose reader has gone (`| head -c 10`). A reader
    that leaves after the last write reached the pipe's buffer raises nothing in the writer,
    so at its end the process (checker.process.run) asks the pipe: it waits up to `wait`
    seconds while what it wrote is still unread, then `grace` seconds more for a reader
    that took it all in one read and is leaving (`head` reads more than it prints). A reader
    that has gone closed the pipe on the output (141, as SIGPIPE would end the process).
    Not a pipe, or a reader still there: False."""
    import select
    import time

    try:
        fd = (stream or sys.stdout).fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return False
        poller = select.poll()
        poller.register(fd, 0)  # only POLLERR, which a write end reports once its reader has gone
        until = time.monotonic() + wait
        while _unread(fd) and time.monotonic() < until:
            if poller.poll(5):
                return True
        return bool(poller.poll(int(grace * 1000)))
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return False


def _unread(fd: int) -> int:
    """The bytes written to the pipe `fd` that its reader has not read yet (Linux's FIONREAD
    of either end of a pipe); 0 where the system cannot say."""
    try:
        import fcntl
        import struct
        import termios

        return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])
    except (ImportError, OSError, AttributeError):
        return 0


def _to_stdout(render: Callable[[TextIO], object]) -> None:
    try:
        render(sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:
        raise PipeClosed() from None
    except OSError as error:
        raise OutputError(f"stdout: cannot write it: {error.strerror or error}") from None


# --- the other files mlperf-check makes ------------------------------------------------------
def write_file(path: str, text: str, option: str = "file") -> None:
    """A whole text file at `path`, through the same rules as an output (a harness's
    accuracy.txt, a generated round fact file)."""
    plan = Plan()
    plan.write(plan.add(path, option), lambda out: out.write(text))


def append_text(path: str, text: str) -> None:
    """Append to a file another program named for it ($GITHUB_STEP_SUMMARY), made when it is
    missing: a regular file or a stream, never a folder or a socket. OSError when it cannot be."""
    with contextlib.suppress(FileNotFoundError):
        mode = os.stat(path).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
            raise IsADirectoryError(errno.EISDIR, f"that is {_special(mode)}", path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0), 0o666)
    with os.fdopen(fd, "w", encoding="utf-8", newline="", errors="backslashreplace") as out:
        out.write(text)


def new_folder(path: str | None = None, prefix: str = "mlperf-check-") -> str:
    """A folder to write into: `path` (made, with its parents) or a new temporary one, which
    is removed if the process is interrupted before `keep` says it is the result."""
    if path is not None:
        os.makedirs(path, exist_ok=True)
        return path
    with _masked():
        made = tempfile.mkdtemp(prefix=prefix)
        _PENDING.add(made)
    return made


def stage_beside(destination: str, purpose: str) -> str:
    """A new hidden folder beside `destination` (`.DEST.PURPOSE-XXXX`), to build it in: removed
    if the process is interrupted before `settle_folder` renames it onto `destination`."""
    parent, name = os.path.split(os.path.abspath(destination))
    with _masked():
        made = tempfile.mkdtemp(prefix=f".{name}.{purpose}-", dir=parent)
        _PENDING.add(made)
    return made


def settle_folder(stage: str, destination: str) -> None:
    """Rename a folder from `stage_beside` onto `destination` (a new or empty folder), and forget it."""
    with _masked():
        os.rename(stage, os.path.abspath(destination))
        _PENDING.discard(stage)


def new_file(path: str, chunks: Iterable[bytes], mode: int) -> None:
    """A new file in a folder the command builds (a stage): made exclusively, never through a
    link, then given `mode`; removed when the write fails."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    os.chmod(path, mode)


def keep(path: str) -> None:
    """A temporary folder from new_folder is the command's result: never removed."""
    _PENDING.discard(path)


def copy_file(source: str, target: str) -> None:
    """Copy one file into a folder rerun made (new_folder); never through a link."""
    shutil.copyfile(source, target, follow_symlinks=False)


def copy_tree(source: str, target: str, ignore: Callable[[str, list[str]], Iterable[str]] | None = None) -> None:
    """Copy a folder into a folder rerun made (new_folder): links are followed (their target
    copied), and `ignore` leaves out names, as shutil.copytree's."""
    shutil.copytree(source, target, symlinks=False, ignore=ignore)
