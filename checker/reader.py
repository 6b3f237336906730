"""Reading artefacts of a checked tree, with every failure turned into a finding.

A `Reader` belongs to one subject (a result, a system, a submission). It caches what it has
read, so a file is read and parsed once however many rules ask for it, and it records each
read failure once, as a finding that names the file.

Every file is opened one way, `Tree.open`: without following a symlink, without waiting on a
FIFO, and only when the descriptor is the regular file the tree judged (a file swapped since
is reported, never read).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

from . import cache
from .findings import Finding, Severity
from .parsers import MAX_DEPTH, Defect, jsonkeys, mllog, nests_deeper
from .parsers.mllog import LoadgenLog, parse_mllog
from .phases import innermost, phase
from .registry import RULES
from .tree import Entry, FileChanged, Kind, Tree
from .workspace import too_long

T = TypeVar("T")

MAX_TEXT_BYTES = 32 * 1024 * 1024
_MISSING = object()


class Reader:
    def __init__(self, tree: Tree, location: str, sink: list[Finding], subject: str = "") -> None:
        self.tree = tree
        self.location = location
        self.subject = subject
        self.sink = sink
        self._cache: dict[tuple[str, str], Any] = {}

    # --- findings ----------------------------------------------------------------------
    def report(self, code: str, path: str, message: str, **extra: Any) -> None:
        rule = RULES.get(code)
        severity = extra.pop("severity", None) or (rule.severity if rule else Severity.ERROR)
        self.sink.append(
            Finding(
                code=code,
                severity=severity,
                path=path,
                message=message,
                location=self.location,
                name=rule.name if rule else "",
                subject=self.subject,
                **extra,
            )
        )

    def _defects(self, path: str, defects: list[Defect]) -> None:
        for defect in defects:
            pointer = defect.pointer or (f"line {defect.line}" if defect.line else None)
            column = defect.column if defect.line else None
            self.report(defect.code, path, defect.message, pointer=pointer, line=defect.line or None, column=column)

    def kept(self) -> dict[str, Any]:
        """What this reader read, for placing findings without reading a file again
        (checker/locate.py): each file's text, and each detail log's LoadgenLog."""
        return {rel: value for (kind, rel), value in self._cache.items() if kind in ("text", "mllog") and value}

    # --- files -------------------------------------------------------------------------
    def exists(self, rel: str) -> bool:
        return self.tree.entry(rel).kind is Kind.FILE

    def is_dir(self, rel: str) -> bool:
        return self.tree.entry(rel).kind is Kind.DIR

    def subdirs(self, rel: str) -> list[str]:
        """The names of the folders in the folder `rel`, sorted; [] when it is not one."""
        return self.tree.subdirs(rel)

    def _openable(self, rel: str, required: bool, what: str) -> Entry | None:
        """The entry of `rel` when it is a non-empty regular file inside the tree; else None,
        after reporting why not."""
        entry = self.tree.entry(rel)
        if entry.kind is Kind.FILE:
            if entry.size == 0:
                self.report("FIL002", rel, f"{what} is empty")
                return None
            return entry
        if entry.kind is Kind.MISSING:
            if required:
                self.report("FIL001", rel, f"{what} is missing", expected=rel)
        elif entry.kind is Kind.DIR:
            self.report("FIL005", rel, f"{what} is a folder, not a file")
        elif entry.kind is Kind.OUTSIDE:
            self.report("FIL006", rel, f"{what} is a symlink that leaves the checked folder; it was not followed")
        elif entry.kind is Kind.BROKEN:
            self.report("FIL010", rel, f"{what} is a broken symlink")
        elif entry.kind is Kind.TOO_LONG:
            self.report("FIL025", rel, f"{what} cannot be opened: {too_long(self.tree.root, rel)}")
        else:
            self.report("FIL011", rel, f"{what} is not a regular file")
        return None

    def _open(self, entry: Entry, what: str) -> int | None:
        """A descriptor of the file `entry` judged, or None after reporting why it cannot be
        read: FIL006 when it became a symlink out of the tree, FIL011 when it became anything
        else (a symlink, a FIFO, a folder, another file) or cannot be opened."""
        try:
            return self.tree.open(entry)
        except FileChanged as change:
            if change.kind is Kind.OUTSIDE:
                self.report("FIL006", entry.rel, f"{what} {change.detail} while it was checked; it was not followed")
            else:
                self.report("FIL011", entry.rel, f"{what} {change.detail} while it was checked; it was not read")
        except OSError as error:
            self.report("FIL011", entry.rel, f"{what} cannot be read: {error.strerror}")
        return None

    def stat(self, rel: str, required: bool = True, what: str = "file") -> Entry | None:
        """The entry of a file that must be there (its size, without reading it), or None
        after reporting why it cannot be used."""
        return self._cached("stat", rel, self._openable, rel, required, what)

    def _cached(self, kind: str, rel: str, load: Callable[..., T], *args: Any) -> T:
        """What `load(*args)` gave for (kind, rel), made once. It runs in the phase of its kind
        (checker/phases.py), entered only when that phase is not already the innermost open:
        a text read for a parser is the parser's phase, and the same phase nested in itself
        charges the same time (a bound method and its arguments, not a closure, so that a
        read costs no function made per call: some 30,000 reads a round)."""
        key = (kind, rel)
        value = self._cache.get(key, _MISSING)
        if value is _MISSING:
            name = "detail logs" if kind == "mllog" else "other files"
            if innermost() == name:
                value = load(*args)
            else:
                with phase(name):
                    value = load(*args)
            self._cache[key] = value
        return cast(T, value)  # the cache holds what `load` made for this key

    def data(self, rel: str, required: bool = True, what: str = "file") -> bytes | None:
        return self._cached("bytes", rel, self._load_data, rel, required, what)

    def _load_data(self, rel: str, required: bool, what: str) -> bytes | None:
        entry = self._openable(rel, required, what)
        if entry is None:
            return None
        if entry.size > MAX_TEXT_BYTES:
            self._too_large(rel, what, entry.size)
            return None
        fd = self._open(entry, what)
        if fd is None:
            return None
        try:
            raw = _read_at_most(fd, MAX_TEXT_BYTES + 1)  # a file grown since it was judged stays bounded
        except OSError as error:
            self.report("FIL011", rel, f"{what} cannot be read: {error.strerror}")
            return None
        finally:
            os.close(fd)
        if len(raw) > MAX_TEXT_BYTES:
            self._too_large(rel, what, len(raw))
            return None
        if not raw:
            self.report("FIL002", rel, f"{what} is empty")
            return None
        return raw

    def _too_large(self, rel: str, what: str, size: int) -> None:
        self.report(
            "FIL008",
            rel,
            f"{what} has {size} bytes, more than the {MAX_TEXT_BYTES} this check reads",
            observed=size,
            expected=MAX_TEXT_BYTES,
        )

    def text(self, rel: str, required: bool = True, what: str = "file") -> str | None:
        return self._cached("text", rel, self._load_text, rel, required, what)

    def _load_text(self, rel: str, required: bool, what: str) -> str | None:
        raw = self.data(rel, required, what)
        if raw is None:
            return None
        if b"\x00" in raw:
            self.report("FIL004", rel, f"{what} holds binary data (NUL bytes), not text")
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            self.report(
                "FIL003",
                rel,
                f"{what} is not UTF-8 text (bad byte at offset {error.start})",
                pointer=f"byte {error.start}",
            )
            return None

    def json(self, rel: str, required: bool = True, what: str = "JSON file") -> Any:
        return self._cached("json", rel, self._load_json, rel, required, what)

    def _load_json(self, rel: str, required: bool, what: str) -> Any:
        text = self.text(rel, required, what)
        if text is None:
            return None
        try:
            value, twice = jsonkeys.loads(text)
            deep = nests_deeper(value)
        except ValueError as error:
            line = getattr(error, "lineno", None)
            column = getattr(error, "colno", None)
            where = f" at line {line}, column {column}" if line else ""
            self.report(
                "FIL007",
                rel,
                f"{what} is not valid JSON{where}: {_json_reason(error)}",
                pointer=f"line {line}" if line else None,
                line=line or None,
                column=column if line else None,
            )
            return None
        except RecursionError:
            deep = True
        if deep:
            self.report("FIL007", rel, f"{what} nests lists or objects more than {MAX_DEPTH} deep; it was not read")
            return None
        self._defects(rel, twice)
        return value

    def parsed(
        self,
        rel: str,
        parser: Callable[[str], tuple[T, list[Defect]]],
        required: bool = True,
        what: str = "file",
        key: str | None = None,
    ) -> T | None:
        """A text file through a parser, once per (parser, file); `key` names the parser in
        the cache when it is a closure."""
        return self._cached(
            f"parsed:{key or getattr(parser, '__name__', parser)}", rel, self._load_parsed, rel, parser, required, what
        )

    def _load_parsed(
        self, rel: str, parser: Callable[[str], tuple[T, list[Defect]]], required: bool, what: str
    ) -> T | None:
        text = self.text(rel, required, what)
        if text is None:
            return None
        value, defects = parser(text)
        self._defects(rel, defects)
        return None if any(RULES[d.code].severity is Severity.ERROR for d in defects if d.code in RULES) else value

    def mllog(self, rel: str, required: bool = True, what: str = "loadgen log") -> LoadgenLog | None:
        """A streamed loadgen detail log. Malformed records are findings; the log is still
        returned when some records could be read, so that rules judge what is there."""
        return self._cached("mllog", rel, self._load_mllog, rel, required, what)

    def _load_mllog(self, rel: str, required: bool, what: str) -> LoadgenLog | None:
        entry = self._openable(rel, required, what)
        if entry is None:
            return None
        before, key = time.time_ns(), cache.file_key("mllog", self.tree.real(rel), entry, mllog.scanned())
        stored = cache.file_get(key)  # what this log gave when it was last read (checker/cache.py)
        if isinstance(stored, tuple) and len(stored) == 2 and isinstance(stored[0], LoadgenLog):
            log, defects = cast(tuple[LoadgenLog, list[Defect]], stored)
        else:
            fd = self._open(entry, what)
            if fd is None:
                return None
            try:
                log, defects = parse_mllog(_Descriptor(fd))
            except OSError as error:
                self.report("FIL011", rel, f"{what} cannot be read: {error.strerror}")
                return None
            finally:
                os.close(fd)
            cache.file_put(key, (log, defects), entry, before)
        self._defects(rel, defects)
        if not log.values:
            return None
        return log


def _read_at_most(fd: int, limit: int) -> bytes:
    """Up to `limit` bytes of a file, read in blocks (a short read is not the end); a file of
    one block is that block, not a copy joined."""
    first = os.read(fd, min(limit, 1 << 20))
    if not first or len(first) >= limit:
        return first
    more = os.read(fd, min(limit - len(first), 1 << 20))
    if not more:
        return first
    parts, size = [first, more], len(first) + len(more)
    while size < limit:
        chunk = os.read(fd, min(limit - size, 1 << 20))
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


class _Descriptor:
    """A file descriptor as the stream a parser reads: `os.read`, with no buffer and none of
    the system calls a file object makes when it is made (the descriptor is already judged)."""

    __slots__ = ("fd",)

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def read(self, size: int) -> bytes:
        return os.read(self.fd, size)


def _json_reason(error: ValueError) -> str:
    """What the JSON decoder found, as a whole sentence: its message ends in " at" (the place
    follows in its str, which the finding says itself), and it names a character by its repr."""
    message = str(getattr(error, "msg", error))
    message = re.sub(r" at$", "", message)
    control = re.match(r"Invalid control character (.+)$", message)
    if control:
        return "a control character (a raw line break or tab) inside a string; write it escaped (\\n, \\t)"
    return message[:1].lower() + message[1:]
