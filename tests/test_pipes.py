"""A stdout whose reader leaves mid-read ends every command with 141, as SIGPIPE would end it,
whatever the format and whether the output is stdout by default or `-o -` (issue 33): real
processes, each read through a pipe whose reader takes 10 bytes and closes it. A reader that
reads everything is not a closed pipe: the command's own status. Nothing on stderr but what
the command says before (no traceback, no "Exception ignored")."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import EXAMPLE, table_row

DEMO = [str(EXAMPLE), "--round", "demo-v6.1"]
FINDINGS = [str(EXAMPLE), "--round", "v6.1"]  # its benchmark is not v6.1's: a finding in every format
# Every command that writes to stdout, with each of its formats; `-o -` beside the default.
FORMATS = {
    ("check", *FINDINGS): ["text", "json", "csv", "github", "sarif", "junit"],
    ("table", *DEMO): ["json", "csv"],
    ("compare", "{table}"): ["text", "json", "csv", "html"],
    ("provenance", *DEMO): ["text", "json", "csv"],
    ("rules",): ["text", "json"],
    ("rounds", "show", "v6.0"): ["text", "json"],
}
CASES = [
    pytest.param([*command, "-f", form, *target], id=" ".join([command[0], form, *target]))
    for (command, forms), target in itertools.product(FORMATS.items(), [[], ["-o", "-"]])
    for form in forms
] + [pytest.param(["explain", "RNG001"], id="explain"), pytest.param(["rounds"], id="rounds")]


def _run(args: list[str], tmp_path: Path, read: int | None) -> tuple[int, str, bytes]:
    """The command through a pipe: `read` bytes taken and the pipe closed, or all of it."""
    table = tmp_path / "table.json"
    table.write_text(
        json.dumps([table_row(Submitter=s, **{"Performance_Result": r}) for s, r in (("A", 1.0), ("B", 1.1))])
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "checker", *(a.format(table=table) for a in args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=tmp_path,
    )
    assert process.stdout is not None and process.stderr is not None
    # os.read: exactly `read` bytes leave the pipe, the rest is left unread, as `head -c 10`
    # leaves what it does not print when the output is larger than its one read.
    taken = os.read(process.stdout.fileno(), read) if read is not None else process.stdout.read()
    process.stdout.close()
    err = process.stderr.read().decode("utf-8", "replace")
    return process.wait(timeout=120), err, taken


@pytest.mark.slow
@pytest.mark.parametrize("args", CASES)
def test_a_reader_that_leaves_mid_read_ends_the_command_with_141(args: list[str], tmp_path: Path) -> None:
    status, err, taken = _run(args, tmp_path, 10)
    assert len(taken) == 10, (taken, err)  # the command wrote more than the reader took
    assert status == 141, err
    assert "Traceback" not in err and "Exception ignored" not in err and "BrokenPipe" not in err, err


@pytest.mark.slow
@pytest.mark.parametrize("args", [["rules", "-f", "json"], ["check", *FINDINGS, "-f", "json", "-o", "-"]], ids=" ".join)
def test_a_reader_that_reads_everything_gets_the_commands_own_status(args: list[str], tmp_path: Path) -> None:
    status, err, taken = _run(args, tmp_path, None)
    assert status == (0 if args[0] == "rules" else 1), err
    json.loads(taken)
