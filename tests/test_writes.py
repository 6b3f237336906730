"""One writer for every output (checker/output.py), stated for every command, format and kind
of path (issue 22, "Writes").

The invariant: whatever -o names, every existing non-regular file (a device, a FIFO, a
socket, a folder, a symlink) is left as it was; a regular file is replaced whole; the
command ends with its usual exit status, or with exit 2 and a line that says why; no
temporary file is left; the checked tree is byte-identical. And no module but
checker/output.py opens a file for writing."""

from __future__ import annotations

import ast
import contextlib
import os
import shutil
import socket
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from checker.cli import app
from helpers import EXAMPLE, OFFLINE, ROOT, SUBMISSION, tree_digest

runner = CliRunner()
ROUND = ["--round", "demo-v6.1"]

settings.register_profile(
    "writes", max_examples=45, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


# --- no other module writes ----------------------------------------------------------------
WRITE_CALLS = {
    "write_text",
    "write_bytes",
    "savefig",
    "mkstemp",
    "mkdtemp",
    "NamedTemporaryFile",
    "TemporaryDirectory",
    "TemporaryFile",
    "SpooledTemporaryFile",
    "copyfile",
    "copy2",
    "copytree",
    "copyfileobj",
    "move",
    "replace",
    "rename",
    "renames",
    "link",
    "symlink",
    "truncate",
    "mkfifo",
    "mknod",
}
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}


def _mode_of(call: ast.Call) -> str | None:
    """The mode an open()/fdopen()/Path.open() call gives, when it is a literal."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    position = 0 if name == "open" and isinstance(call.func, ast.Attribute) and _is_path_open(call) else 1
    for keyword in call.keywords:
        if keyword.arg == "mode" and isinstance(keyword.value, ast.Constant):
            return str(keyword.value.value)
    if len(call.args) > position and isinstance(call.args[position], ast.Constant):
        return str(call.args[position].value)
    return None


def _is_path_open(call: ast.Call) -> bool:
    """`something.open("w")`, not `os.open(path, flags)` nor `tree.open(entry)`."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and not (isinstance(func.value, ast.Name) and func.value.id in ("os", "io"))
        and bool(call.args)
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    )


def writes_in(source: str) -> list[str]:
    """Each call in `source` that opens, makes, copies or renames a file for writing."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
        line = f"line {node.lineno}: {owner + '.' if owner else ''}{name}"
        if name in WRITE_CALLS and (name not in ("replace", "rename", "link", "truncate") or owner == "os"):
            found.append(line)
        elif name in ("open", "fdopen") and owner == "os" and name == "open":
            flags = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and n.attr.startswith("O_")}
            if flags & WRITE_FLAGS:
                found.append(line)
        elif name in ("open", "fdopen"):
            mode = _mode_of(node)
            if mode is not None and set(mode) & set("wax+"):
                found.append(line)
    return found


def test_the_detector_finds_each_kind_of_write() -> None:
    """The AST check below can fail: each form of a write is found, reads are not."""
    writes = [
        'open(p, "w")',
        'open(p, mode="a")',
        'Path(p).open("x")',
        'os.fdopen(fd, "wb")',
        "os.open(p, os.O_WRONLY | os.O_CREAT)",
        "Path(p).write_text(t)",
        "tempfile.mkstemp()",
        "shutil.copytree(a, b)",
        "os.replace(a, b)",
        "figure.savefig(p)",
    ]
    reads = ['open(p, "rb")', "open(p)", "os.open(p, os.O_RDONLY)", "tree.open(entry)", 'text.replace("a", "b")']
    assert [bool(writes_in(code)) for code in writes] == [True] * len(writes)
    assert [writes_in(code) for code in reads] == [[]] * len(reads)


def test_no_module_but_the_writer_writes_files() -> None:
    """Every file mlperf-check writes goes through checker/output.py."""
    found = {}
    for path in sorted((ROOT / "checker").rglob("*.py")) + sorted((ROOT / "rules").rglob("*.py")):
        if path in (ROOT / "checker" / "output.py", ROOT / "checker" / "cache.py"):
            continue  # the cache writes its own folder, never in the checked tree (cache.folder_for)
        calls = writes_in(path.read_text(encoding="utf-8"))
        if calls:
            found[str(path.relative_to(ROOT))] = calls
    assert found == {}


# --- every command, every format, every kind of path ------------------------------------------
@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    """A private checked tree, and the tables and claims the analysis commands read."""
    base = tmp_path_factory.mktemp("inputs")
    tree = base / "tree"
    shutil.copytree(EXAMPLE, tree, symlinks=True)
    table = base / "demo.json"
    done = runner.invoke(app, ["table", str(tree), *ROUND, "-o", str(table)])
    assert done.exit_code == 0, done.output
    text = table.read_text()
    (base / "v60.json").write_text(text.replace('"demo-v6.1"', '"v6.0"'))
    (base / "v61.json").write_text(text.replace('"demo-v6.1"', '"v6.1"'))
    (base / "claims.yaml").write_text(
        "claims:\n  - id: demo\n    kind: value\n    expect: 522.247\n    in: {round: v6.1, model: demo-mlp-99}\n"
    )
    return {"base": base, "tree": tree, "table": table}


READS, INSIDE = "which this command reads", "inside the checked submission"


def _commands(inputs: dict[str, Path]) -> dict[str, tuple[list[str], list[str | None], Path | None, str]]:
    """command -> (its arguments, its formats (None: it has no --format), a path it may not
    write (a file it reads, or one in the tree it checks), and what the refusal says)."""
    base, tree = inputs["base"], inputs["tree"]
    result = str(tree / OFFLINE)
    inside = tree / SUBMISSION / "report.json"
    return {
        "check": (
            ["check", str(tree), *ROUND, "-j", "1"],
            ["text", "json", "csv", "github", "sarif", "junit"],
            inside,
            INSIDE,
        ),
        "table": (["table", str(tree), *ROUND, "-j", "1"], ["json", "csv"], inside, INSIDE),
        "provenance": (["provenance", str(tree), *ROUND], ["text", "json", "csv"], inside, INSIDE),
        "report": (["report", str(tree), *ROUND, "-j", "1"], [None], inside, INSIDE),
        "reproduce": (["reproduce", result, result, *ROUND], ["text", "json"], tree / OFFLINE / "x.json", INSIDE),
        "compare": (["compare", str(inputs["table"])], ["text", "json", "csv", "html"], inputs["table"], READS),
        "claims": (
            ["claims", str(base / "claims.yaml"), "--table", f"v6.1={base / 'v61.json'}"],
            ["text", "json", "markdown"],
            base / "claims.yaml",
            READS,
        ),
        "followup": (
            ["followup", "--previous", str(base / "v60.json"), "--current", str(base / "v61.json")],
            ["text", "json", "csv"],
            base / "v60.json",
            READS,
        ),
        "rules": (["rules"], ["text", "json"], None, ""),
    }


KINDS = [
    "regular",
    "missing",
    "link to a file",
    "link to a FIFO",
    "FIFO",
    "device",
    "folder",
    "socket",
    "an input or the tree",
    "twice",
]
WRITTEN = {"regular", "missing", "link to a file", "link to a FIFO", "FIFO", "device"}


@contextlib.contextmanager
def _reader(fifo: Path) -> Iterator[list[bytes]]:
    """A reader on a FIFO, so that writing through it does not wait; what it read."""
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as handle:
            got.append(handle.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    try:
        yield got
    finally:
        if thread.is_alive():  # nothing opened it for writing: release the reader
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(timeout=10)


def _make(kind: str, room: Path, inside: Path | None) -> Path:
    """A path of the given kind in `room`."""
    if kind == "regular":
        (room / "out").write_text("the previous report\n")
        return room / "out"
    if kind in ("missing", "twice"):
        return room / "new"
    if kind == "link to a file":
        (room / "target").write_text("the previous report\n")
        (room / "out").symlink_to("target")
        return room / "out"
    if kind in ("FIFO", "link to a FIFO"):
        os.mkfifo(room / "fifo")
        if kind == "FIFO":
            return room / "fifo"
        (room / "out").symlink_to("fifo")
        return room / "out"
    if kind == "device":
        os.mknod(room / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a private /dev/null
        return room / "null"
    if kind == "folder":
        (room / "folder").mkdir()
        return room / "folder"
    if kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(room / "sock"))
        server.close()
        return room / "sock"
    assert inside is not None
    return inside


def _nodes(*folders: Path) -> dict[str, tuple]:
    """What each entry is: kind, inode, device numbers, and a regular file's bytes."""
    seen = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            info = path.lstat()
            content = (
                path.read_bytes() if stat.S_ISREG(info.st_mode) else os.readlink(path) if path.is_symlink() else b""
            )
            seen[str(path)] = (stat.S_IFMT(info.st_mode), info.st_ino, info.st_rdev, content)
    return seen


_BASELINE: dict[tuple[str, str | None], int] = {}


def _format(fmt: str | None) -> list[str]:
    return [] if fmt is None else ["--format", fmt]


def _usual_exit(args: list[str], fmt: str | None) -> int:
    """The command's exit status when its output goes to a new regular file."""
    key = (args[0], fmt)
    if key not in _BASELINE:
        with tempfile.TemporaryDirectory() as room:
            done = runner.invoke(app, [*args, *_format(fmt), "-o", str(Path(room) / "out")])
            _BASELINE[key] = done.exit_code
    return _BASELINE[key]


@pytest.mark.slow
@settings(settings.get_profile("writes"))
@given(data=st.data())
def test_any_output_path_leaves_every_special_file_as_it_was(inputs: dict[str, Path], data) -> None:
    commands = _commands(inputs)
    command = data.draw(st.sampled_from(sorted(commands)), label="command")
    args, formats, inside, refused = commands[command]
    fmt = data.draw(st.sampled_from(formats), label="format")
    kind = data.draw(st.sampled_from(KINDS), label="kind")
    if (
        (kind == "device" and os.geteuid() != 0)  # mknod needs root
        or (kind == "an input or the tree" and inside is None)  # rules reads nothing
        or (kind == "twice" and command not in ("check", "compare"))  # the commands that name two outputs
    ):
        return
    usual = _usual_exit(args, fmt)
    assert usual in (0, 1), (command, fmt, usual)
    with tempfile.TemporaryDirectory() as name:
        room = Path(name)
        target = _make(kind, room, inside)
        extra = [*_format(fmt), "-o", str(target)]
        if kind == "twice":
            extra += ["--format", f"json:{target}"] if command == "check" else ["--plot", str(target)]
        before_tree, before = tree_digest(inputs["tree"]), _nodes(room, inputs["base"])
        fifo = room / "fifo"
        with _reader(fifo) if fifo.exists() else contextlib.nullcontext([]) as got:
            done = runner.invoke(app, [*args, *extra])
        after = _nodes(room, inputs["base"])
        assert tree_digest(inputs["tree"]) == before_tree
        for path, (mode, inode, rdev, _) in before.items():
            if mode != stat.S_IFREG:  # every special file and link: the same node
                assert after[path][:3] == (mode, inode, rdev), (path, kind)
        assert [p for p in after if p not in before and Path(p).name.startswith(".")] == []  # no temporary file
        if kind in WRITTEN:
            assert done.exit_code == usual, (command, fmt, kind, done.output)
            if kind in ("regular", "missing", "link to a file"):
                landing = room / "target" if kind == "link to a file" else target
                assert landing.read_bytes() not in (b"", b"the previous report\n")
            if kind in ("FIFO", "link to a FIFO"):
                assert got and got[0] != b""
        else:
            said = {
                "folder": "that is a folder",
                "socket": "that is a socket",
                "an input or the tree": refused,
                "twice": "writes there too",
            }[kind]
            assert done.exit_code == 2, (command, fmt, kind, done.output)
            assert done.stderr.startswith("error: ") and said in done.stderr, done.stderr
            assert done.stderr.count("\n") == 1
            assert after == before


# --- the cases the property rests on, by name -------------------------------------------------
def test_o_beside_format_with_its_own_file_writes_both(tmp_path: Path) -> None:
    """`-o a.json --format csv:b.csv` writes a.json as JSON (its extension) and b.csv (pytest's
    --junitxml beside its other outputs); a.json was silently dropped before."""
    done = runner.invoke(
        app,
        ["check", str(EXAMPLE), *ROUND, "-j", "1", "-o", str(tmp_path / "a.json"), "--format", f"csv:{tmp_path}/b.csv"],
    )
    assert done.exit_code == 0, done.output
    assert (tmp_path / "a.json").read_text().startswith("{")
    assert (tmp_path / "b.csv").read_text().startswith("location,")


@pytest.mark.parametrize(
    "extra, message",
    [
        (["-o", "{d}/a.json", "--format", "csv:{d}/a.json"], "-o {d}/a.json: --format csv:{d}/a.json writes there too"),
        (
            ["--format", "json:{d}/a.json", "--format", "csv:{d}/./a.json"],
            "--format csv:{d}/./a.json: --format json:{d}/a.json writes there too",
        ),
    ],
)
def test_one_path_named_twice_is_a_usage_error(tmp_path: Path, extra: list[str], message: str) -> None:
    done = runner.invoke(app, ["check", str(EXAMPLE), *ROUND, *[e.format(d=tmp_path) for e in extra]])
    assert (done.exit_code, done.stderr) == (
        2,
        f"error: {message.format(d=tmp_path)}; give each output its own file\n",
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")
def test_a_full_device_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """`-o /dev/full` exited 0 without a word. A private full device (1, 7) stands for it."""
    full = tmp_path / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    done = runner.invoke(app, ["check", str(EXAMPLE), *ROUND, "-j", "1", "-o", str(full)])
    assert (done.exit_code, done.stderr.splitlines()[-1]) == (
        2,
        f"error: -o {full}: cannot write it: No space left on device",
    )
    assert stat.S_ISCHR(full.lstat().st_mode)


@pytest.mark.slow
def test_stdout_through_dev_stdout_is_written_through(tmp_path: Path) -> None:
    """/dev/stdout names the process's own stdout (here a file): written through, never replaced."""
    import subprocess
    import sys

    out = tmp_path / "out.txt"
    with open(out, "wb") as handle:
        done = subprocess.run(
            [sys.executable, "-m", "checker", "rules", "--format", "json", "-o", "/dev/stdout"],
            stdout=handle,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    assert (done.returncode, done.stderr) == (0, b"")
    assert out.read_text().startswith("[")


def _config(tree: Path, fmt: str) -> Path:
    (tree / "pyproject.toml").write_text(f'[tool.mlperf-check]\nround = "demo-v6.1"\nformat = ["{fmt}"]\n')
    return tree / "pyproject.toml"


@pytest.mark.parametrize(
    "fmt, message",
    [
        ("json:/tmp/elsewhere.json", "names an absolute path"),
        ("json:../../../../../../../../outside.json", "names a path outside the current folder"),
        ("json:closed/report.json", "is inside the checked submission"),
        ("json:pyproject.toml", "which this command reads"),
    ],
)
def test_output_paths_from_a_configuration_in_the_tree_are_confined(
    example: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, message: str
) -> None:
    """A [tool.mlperf-check] inside the checked tree is the tree's, not the user's: its outputs
    stay relative, under the current folder, and out of the submission."""
    monkeypatch.chdir(example.parent)
    config = _config(example, fmt)
    before = tree_digest(example)
    done = runner.invoke(app, ["check", str(example), "-j", "1"])
    assert done.exit_code == 2, done.output
    said = done.stderr.splitlines()
    assert said[:-1] == [f"config: {config}"] and message in said[-1]
    assert said[-1].startswith(f"error: {config} [tool.mlperf-check] format json:")
    assert tree_digest(example) == before
    assert not Path("/tmp/elsewhere.json").exists()


def test_a_configuration_in_the_tree_writes_beside_it(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(example)
    _config(example, "json:report.json")
    done = runner.invoke(app, ["check", ".", "-j", "1"])
    assert done.exit_code == 0, done.output
    assert (example / "report.json").read_text().startswith("{")
