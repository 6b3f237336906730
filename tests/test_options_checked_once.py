"""Every option is read one way by every command (attack24 V2, V3, V6): an option that takes
one value given twice is a usage error (never the last silently kept), an -o extension that
names no format the command writes is exit 2 before any work, and every enumerated value
that is not allowed is answered with the closest one."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from checker.cli import app
from checker.reporters import EXTENSIONS, check_formats
from checker.settings import UsageError, one_of, output_format
from helpers import EXAMPLE

runner = CliRunner()
COMMANDS = typer.main.get_command(app).commands  # type: ignore[attr-defined]


def _one_value_options() -> list[tuple[str, str]]:
    return [
        (name, param.opts[0])
        for name, command in sorted(COMMANDS.items())
        for param in command.params
        if param.param_type_name == "option"
        and not (param.is_flag or param.multiple or param.count)
        and not param.hidden
        and param.opts[0] not in ("--help",)
    ]


@pytest.mark.parametrize(("command", "option"), _one_value_options())
def test_an_option_that_takes_one_value_given_twice_is_a_usage_error(command: str, option: str) -> None:
    """Every command, every option of one value: given twice, exit 2 naming it, nothing run."""
    result = runner.invoke(app, [command, option, "1", option, "2"])
    assert result.exit_code == 2, result.output
    assert "given more than once; it takes one value" in result.output


def test_two_outputs_are_refused_not_one_dropped(tmp_path: Path) -> None:
    """attack24 V2: `-o a.sarif -o b.xml` wrote b.xml only."""
    a, b = tmp_path / "a.sarif", tmp_path / "b.xml"
    result = runner.invoke(app, ["check", str(EXAMPLE), "--round", "demo-v6.1", "-o", str(a), "-o", str(b)])
    assert result.exit_code == 2
    assert "given more than once; it takes one value (several outputs: --format FORMAT:FILE for each)" in (
        result.output
    )
    assert not a.exists() and not b.exists()


KNOWN = [("text", "json"), ("json", "csv"), tuple(check_formats().names), ("text", "json", "csv", "markdown", "html")]


@settings(max_examples=200, deadline=None)
@given(
    stem=st.sampled_from(["out", "dir/out", "a.b/out"]),
    extension=st.sampled_from([*EXTENSIONS, ".yaml", ".foo", ".log", ".JSON", ".Sarif", ""])
    | st.text(st.characters(min_codepoint=33, max_codepoint=126, blacklist_characters="./\\"), max_size=5).map(
        lambda t: "." + t if t else ""
    ),
    known=st.sampled_from(KNOWN),
)
def test_an_output_extension_names_a_format_the_command_writes_or_is_refused(
    stem: str, extension: str, known: tuple[str, ...]
) -> None:
    """For every extension and every command's formats: the format it names when the command
    writes it, `auto` without an extension, else a usage error (never the default silently)."""
    path = stem + extension
    named = EXTENSIONS.get(extension.lower())
    if not extension:
        assert output_format(path, known, EXTENSIONS) == "auto"
    elif named in known:
        assert output_format(path, known, EXTENSIONS) == named
    else:
        with pytest.raises(UsageError, match=rf"^-o {__import__('re').escape(path)}: "):
            output_format(path, known, EXTENSIONS)


@pytest.mark.parametrize(
    "args",
    [
        ["check", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1"],
        ["table", str(EXAMPLE), "--round", "demo-v6.1"],
        ["rounds", "show", "v6.0"],
        ["rules"],
        ["report", str(EXAMPLE), "--round", "demo-v6.1", "-j", "1"],
    ],
)
@pytest.mark.parametrize("name", ["x.yaml", "x.foo", "x.xml.bak"])
def test_an_unknown_output_extension_is_exit_2_for_every_command(args: list[str], name: str, tmp_path: Path) -> None:
    """attack24 V3: `table -o x.yaml` wrote JSON, `check -o x.foo` text, `rounds show -o
    x.yaml` text, all silently."""
    target = tmp_path / name
    result = runner.invoke(app, [*args, "-o", str(target)])
    assert result.exit_code == 2, result.output
    assert f"error: -o {target}: {target.suffix} names no format; give --format " in result.output
    assert not target.exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["check", str(EXAMPLE), "--format", "sarf"], "--format sarf: unknown format; did you mean `sarif`?"),
        (["check", str(EXAMPLE), "--color", "alwys"], "--color alwys: unknown color; did you mean `always`?"),
        (["check", str(EXAMPLE), "--output-format", "ful"], "--output-format ful: unknown view; did you mean `full`?"),
        (["check", str(EXAMPLE), "--select", "AVL01"], "did you mean `AVL001`?"),
        (["table", str(EXAMPLE), "--format", "jsn"], "--format jsn: unknown format; did you mean `json`?"),
        (["rules", "--format", "jsno"], "--format jsno: unknown format; did you mean `json`?"),
        (["rounds", "sho", "v6.0"], "rounds sho: unknown action; did you mean `show`?"),
    ],
)
def test_every_enumerated_option_suggests_the_closest_value(args: list[str], said: str) -> None:
    """attack24 V6: the one check of an enumerated value says "did you mean"."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert said in result.output


@given(value=st.text(max_size=12), allowed=st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=6))
def test_one_of_accepts_the_allowed_and_names_the_rest(value: str, allowed: list[str]) -> None:
    if value in allowed:
        assert one_of(value, allowed, "--x") == value
    else:
        with pytest.raises(UsageError, match=r"(?s)^--x .*: unknown x; (did you mean|no close name)"):
            one_of(value, allowed, "--x")
