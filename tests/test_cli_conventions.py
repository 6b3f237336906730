"""The command-line conventions users bring from ruff, sqlfluff and check-jsonschema (issue 17):
--version, selections that must name codes, a configuration file, -q/--statistics/--exit-zero/
--color, shell completion, clean --help, -o choosing the format, progress on a terminal, and
compare's guards against duplicated rows and percentages given for fractions."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from checker import __version__
from checker.cli import app
from helpers import EXAMPLE

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


# --- --select / --ignore name codes ----------------------------------------------------------
@pytest.mark.parametrize("option, value", [("--select", "XYZ999"), ("--ignore", "QQQ"), ("--select", "PRF,rng9")])
def test_unknown_code_or_prefix_is_a_usage_error(option: str, value: str) -> None:
    result = _invoke("check", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1", option, value)
    bad = value.split(",")[-1]
    assert result.exit_code == 2
    assert result.stderr == f"error: {option} {bad}: unknown code or prefix; `mlperf-check rules` lists the codes\n"
    assert result.stdout == ""


def test_known_codes_and_prefixes_are_accepted() -> None:
    result = _invoke("check", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1", "--select", "PRF,rng001",
                     "--select", "STR", "--ignore", "RNG001", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["findings"] == []


def test_the_engine_checks_a_selection_the_same_way() -> None:
    from checker.engine import check
    from checker.registry import SelectionError, selected

    assert "RNG001" in selected(["RNG"]) and selected(["rng001"]) == {"RNG001"}
    with pytest.raises(SelectionError, match=r"^--ignore XYZ: unknown code or prefix"):
        check(str(EXAMPLE), "demo-v6.1", ignore=["XYZ"], jobs=1)
