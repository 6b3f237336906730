"""One user error (issue 31, build 3): every error a user's input can cause is a
checker.errors.UsageError (a ValueError; a WrongType is also a TypeError), raised where the
input is read; the command line maps it once to exit 2 (commands.common.call) and the API lets
it through. Nothing translates one error class into another by hand, and a count of workers
is checked by one validator for both doors."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import mlperf_check
from checker.cli import app
from checker.errors import UsageError, WrongType, naming

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def _user_errors() -> list[type[Exception]]:
    from checker.analysis.claims import ClaimsError
    from checker.analysis.published import NoResults
    from checker.analysis.reader import TableError
    from checker.commands.prepare import PrepareError
    from checker.commands.reproduce import ResultPathError, WorkdirError
    from checker.config import ConfigError
    from checker.output import OutputError
    from checker.provenance import RepositoryError
    from checker.registry import SelectionError
    from checker.rounds import RoundError
    from checker.userfiles import UserFileError
    from checker.waivers import WaiverError
    from checker.workspace import WorkspaceError

    return [
        ClaimsError,
        ConfigError,
        NoResults,
        OutputError,
        PrepareError,
        RepositoryError,
        ResultPathError,
        RoundError,
        SelectionError,
        TableError,
        UserFileError,
        WaiverError,
        WorkdirError,
        WorkspaceError,
    ]


@pytest.mark.parametrize("kind", _user_errors(), ids=lambda kind: kind.__name__)
def test_every_user_error_is_the_one_user_error(kind: type[Exception]) -> None:
    assert issubclass(kind, UsageError) and issubclass(kind, ValueError)
    assert issubclass(WrongType, UsageError) and issubclass(WrongType, TypeError)


def _translations(path: Path) -> list[str]:
    """`except X as e: raise UsageError(str(e))` (or X(str(e))): an error made into another by hand."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ExceptHandler) or node.name is None:
            continue
        for statement in node.body:
            if not isinstance(statement, ast.Raise) or not isinstance(statement.exc, ast.Call):
                continue
            arguments = statement.exc.args
            if (
                len(arguments) == 1
                and isinstance(arguments[0], ast.Call)
                and isinstance(arguments[0].func, ast.Name)
                and arguments[0].func.id == "str"
                and [ast.unparse(a) for a in arguments[0].args] == [node.name]
            ):
                found.append(f"{path.relative_to(ROOT)}:{statement.lineno}")
    return found


def test_no_user_error_is_translated_by_hand() -> None:
    """Not in the commands, the API or the settings (the core's readers make a low-level
    error, YAML's or a user file's, into their own user error, a UsageError already)."""
    doors = [*sorted((ROOT / "checker" / "commands").rglob("*.py")), *(ROOT / "checker" / name for name in DOORS)]
    found = [site for path in doors for site in _translations(path)]
    assert found == []
    made = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "checker").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "UsageError(str(" in line
    ]
    assert made == []


DOORS = ("api.py", "settings.py", "cli.py", "clikit.py", "errors.py")


def test_naming_leads_a_user_error_with_what_was_given_and_keeps_its_class() -> None:
    from checker.rounds import RoundError

    with pytest.raises(RoundError, match=r"^--previous-round: unknown round$"), naming("--previous-round"):
        raise RoundError("unknown round")
    with pytest.raises(RoundError, match=r"^--previous-round v9: no$"), naming("--previous-round"):
        raise RoundError("--previous-round v9: no")  # already named: as it is
    with pytest.raises(ValueError, match=r"^plain$"), naming("--x", RoundError):
        raise UsageError("plain")  # not of the kinds named: untouched


@settings(max_examples=12, deadline=None)
@given(jobs=st.integers(max_value=-1), command=st.sampled_from(["check", "table", "prepare"]))
def test_a_negative_count_of_workers_is_refused_alike_by_both_doors(tmp_path_factory, jobs: int, command: str) -> None:
    folder = tmp_path_factory.mktemp("tree")
    extra = ["-o", str(tmp_path_factory.mktemp("dest") / "out")] if command == "prepare" else []
    done = runner.invoke(app, [command, str(folder), "-j", str(jobs), *extra], prog_name="mlperf-check")
    assert (done.exit_code, done.stderr) == (
        2,
        f"error: --jobs {jobs}: give a whole number, 0 or more (0: every core)\n",
    )
    with pytest.raises(ValueError, match=rf"^jobs {jobs}: give a whole number, 0 or more \(0: every core\)$"):
        mlperf_check.check(folder, jobs=jobs)
    with pytest.raises(TypeError, match=r"^jobs 1.5: give a whole number, 0 or more \(0: every core\)$"):
        mlperf_check.check(folder, jobs=1.5)
