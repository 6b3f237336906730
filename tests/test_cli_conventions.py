"""The command-line conventions users bring from ruff, sqlfluff and check-jsonschema (issue 17):
--version, selections that must name codes, a configuration file, -q/--statistics/--exit-zero/
--color, shell completion, clean --help, -o choosing the format, progress on a terminal, and
compare's guards against duplicated rows and percentages given for fractions."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from checker import __version__
from checker.cli import app

runner = CliRunner()

COMMANDS = ["check", "table", "followup", "provenance", "compare", "report", "claims", "reproduce", "rerun", "rules",
            "explain", "rounds", "version"]


def _invoke(*args: str, **options):
    return runner.invoke(app, list(args), prog_name="mlperf-check", terminal_width=100, **options)


# --- --version, completion, --help ------------------------------------------------------------
def test_version_option_and_subcommand() -> None:
    for option in ("--version", "-V"):
        result = _invoke(option)
        assert (result.exit_code, result.stdout) == (0, f"mlperf-check {__version__}\n")
    result = _invoke("version")
    assert (result.exit_code, result.stdout) == (0, f"{__version__}\n")


def test_shell_completion_is_on() -> None:
    result = _invoke("--help")
    assert result.exit_code == 0
    assert "--install-completion" in result.stdout and "--show-completion" in result.stdout
    shown = _invoke("--show-completion", "bash")
    assert shown.exit_code == 0
    assert "_MLPERF_CHECK_COMPLETE=complete_bash" in shown.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_no_type_tags(command: str) -> None:
    result = _invoke(command, "--help")
    assert result.exit_code == 0, result.output
    assert not re.search(r"<(str|int|float|bool|list\[str\]|path)>|\b(TEXT|INTEGER|FLOAT|BOOLEAN)\b", result.stdout)
    assert "[default: 0]" not in result.stdout and "[default: progress]" not in result.stdout
