"""Every command that README.md and docs/*.md show runs, and exits as the page says.

The convention, for whoever writes a page:

- A command block is a fenced block whose info string is `sh` (or bash, shell, console):
  one command per line, a trailing backslash continues it, `#` starts a comment. Synopses
  with placeholders (`PATH`, `[--round R]`) are not commands: they go in ```text blocks
  or indented blocks, which are not run.
- The line before a block (blank lines aside) may be a marker, an HTML comment that GitHub
  does not show:

      <!-- doc-test: exit=1 -->             every command of the next block exits 1 (default 0),
                                            but one that ends in a comment `# exit N` (or
                                            `# exit N or M`), which exits so
      <!-- doc-test: exit=0 needs=real -->  it reads $MLPERF_CHECK_REAL or $MLPERF_CHECK_TABLES:
                                            skipped when they are absent
      <!-- doc-test: cwd=fixtures/examples/endpoints-v6.1 git -->
                                            run in that folder ("your submission repository"),
                                            made a git repository with everything committed
      <!-- doc-test: file=claims.yaml -->   before a ```yaml (or any) block: its text is that
                                            file for the command blocks after it on the page
      <!-- doc-test: output -->             before a ``` block: the stdout of the command block
                                            just before it, exactly

- Each command block runs in a fresh copy of the project (commands may write files there),
  as one bash script from the project's root (or `cwd`), so a `cd` or a file written by one
  line holds for the next; each line's exit status is checked. `mlperf-check` is the one
  these tests import (helpers.command_folder); GitHub Actions' variables are removed,
  NO_COLOR is set, and MLPERF_CHECK_REAL and MLPERF_CHECK_TABLES name the real data.
- A command block without a marker is not run, and must be listed in NOT_RUN with the
  reason it cannot run here; a new unmarked block fails test_every_command_block_is_marked.

The summary line at the end of a pytest run says how many commands ran (conftest.py)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from helpers import REAL_ROOT, REAL_VARIABLE, ROOT, TABLES_ROOT, TABLES_VARIABLE, absent, command_folder

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COMMAND_LANGUAGES = ("sh", "bash", "shell", "console")
MARKER = re.compile(r"^<!--\s*doc-test:(?P<body>.*?)-->\s*$")
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
KEYS = {"exit", "needs", "cwd", "git", "file", "output"}
EXIT_COMMENT = re.compile(r"\s#\s*exit (?P<status>\d+(?: or \d+)*)\b[^\n]*$")

# Command blocks that cannot run here, by their first line, with the reason.
NOT_RUN = {
    "pip install .": "installs the package into the environment running the tests",
    "pip install -e '.[test]' && .ci/check": "installs the package and runs the gate and this suite",
    "export MLPERF_CHECK_REAL=../shared/real MLPERF_CHECK_TABLES=../shared/tables": "sets the variables in the reader's shell; the tests set them themselves",
    "git clone --bare https://github.com/mlcommons/inference /tmp/inference.git": "needs the network, then rewrites the bundled table of loadgen releases",
    "mlperf-check provenance $MLPERF_CHECK_REAL/v6.0 --inference-repo ../inference": "needs a clone of mlcommons/inference",
    "mlperf-check rerun $RESULT --command ./run_harness.sh --workdir ../rerun": "needs the submitter's harness",
}


@dataclass
class Block:
    document: Path
    line: int  # of the opening fence, 1-based
    info: str
    text: str
    marker: dict[str, str] | None
    files: dict[str, str] = field(default_factory=dict)  # file= blocks before it on the page
    expected_output: str | None = None

    @property
    def where(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"

    @property
    def is_command(self) -> bool:
        return bool(self.info.split()) and self.info.split()[0] in COMMAND_LANGUAGES

    def commands(self) -> list[str]:
        """The logical lines: continuation lines joined, comment lines and blank lines left out."""
        out, current = [], ""
        for raw in self.text.splitlines():
            current += raw
            if current.endswith("\\"):
                current += "\n"  # kept: bash reads backslash-newline as a continuation
                continue
            if current.strip() and not current.lstrip().startswith("#"):
                out.append(current.strip())
            current = ""
        if current.strip():
            out.append(current.strip())
        return out


def _marker(body: str, where: str) -> dict[str, str]:
    marker = {}
    for word in shlex.split(body):
        key, _, value = word.partition("=")
        if key not in KEYS:
            raise AssertionError(f"{where}: unknown doc-test key {key!r}; the keys are {', '.join(sorted(KEYS))}")
        marker[key] = value
    return marker


def blocks_of(document: Path) -> list[Block]:
    """The fenced blocks of a page, each with the marker before it, the files that `file=`
    blocks before it write, and the expected output that an `output` block after it gives."""
    lines = document.read_text().splitlines()
    blocks: list[Block] = []
    files: dict[str, str] = {}
    previous = ""  # the last non-blank line outside a block
    number = 0
    while number < len(lines):
        found = FENCE.match(lines[number])
        if not found:
            if lines[number].strip():
                previous = lines[number].strip()
            number += 1
            continue
        fence, indent, start = found["fence"], found["indent"], number
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        body = []
        number += 1
        while number < len(lines) and not closing.match(lines[number]):
            line = lines[number]
            body.append(line[len(indent) :] if line.startswith(indent) else line)
            number += 1
        number += 1
        where = f"{document.relative_to(ROOT)}:{start + 1}"
        mark = MARKER.match(previous)
        block = Block(
            document,
            start + 1,
            found["info"].strip(),
            "\n".join(body) + "\n",
            _marker(mark["body"], where) if mark else None,
            dict(files),
        )
        if block.marker is not None and "file" in block.marker:
            files[block.marker["file"]] = block.text
        if block.marker is not None and "output" in block.marker:
            assert blocks and blocks[-1].is_command and blocks[-1].marker is not None, (
                f"{where}: an output block follows the command block whose stdout it is"
            )
            blocks[-1].expected_output = block.text
        blocks.append(block)
        previous = ""
    return blocks


ALL = [block for document in DOCUMENTS for block in blocks_of(document)]
RUN = [block for block in ALL if block.is_command and block.marker is not None]
TALLY = {"blocks": 0, "commands": 0, "skipped": 0}


def summary() -> str:
    """The line conftest.py prints at the end of a run that ran these tests."""
    unmarked = sum(1 for block in ALL if block.is_command and block.marker is None)
    return (
        f"documented commands: {TALLY['commands']} ran in {TALLY['blocks']} blocks of "
        f"{len(DOCUMENTS)} pages; {TALLY['skipped']} blocks skipped (no real data); "
        f"{unmarked} blocks not run (NOT_RUN in tests/test_docs.py says why)"
    )


def test_every_command_block_is_marked() -> None:
    unmarked = {block.commands()[0]: block.where for block in ALL if block.is_command and block.marker is None}
    new = {first: where for first, where in unmarked.items() if first not in NOT_RUN}
    assert not new, (
        "command blocks without a <!-- doc-test: ... --> marker (see tests/test_docs.py), "
        f"or list them in NOT_RUN with the reason they cannot run: {new}"
    )
    assert not set(NOT_RUN) - set(unmarked), f"NOT_RUN lists blocks no page has: {set(NOT_RUN) - set(unmarked)}"


def test_every_marker_fits_its_block() -> None:
    """A marker stands right before a block (none is lost before a paragraph), a command
    block's marker says how to run it, and another block's says what it is."""
    for document in DOCUMENTS:
        written = sum(1 for line in document.read_text().splitlines() if MARKER.match(line.strip()))
        blocks = [block for block in ALL if block.document == document and block.marker is not None]
        assert written == len(blocks), f"{document.name}: a doc-test marker is not right before a block"
        for block in blocks:
            if block.is_command:
                assert not {"file", "output"} & set(block.marker), f"{block.where}: file= or output on a command block"
            else:
                assert {"file", "output"} & set(block.marker), f"{block.where}: a marker on a block that is not run"


def test_every_page_has_commands_that_run() -> None:
    pages = {block.document for block in RUN}
    users = [ROOT / "docs" / f"{user}.md" for user in ("submitter", "reviewer", "partner")]
    assert {ROOT / "README.md", *users} <= pages


def test_the_readme_links_the_pages() -> None:
    readme = (ROOT / "README.md").read_text()
    for page in ("docs/submitter.md", "docs/reviewer.md", "docs/partner.md", "docs/github-action.md"):
        assert f"({page})" in readme, page


def _synopses() -> dict[str, str]:
    """README's synopsis of each command: the lines of its ```text blocks from one that starts
    `mlperf-check NAME` to the next such line."""
    out: dict[str, str] = {}
    for block in blocks_of(ROOT / "README.md"):
        if block.info != "text":
            continue
        name = None
        for line in block.text.splitlines():
            if line.startswith("mlperf-check "):
                name = line.split()[1]
            if name is not None:
                out[name] = out.get(name, "") + line + "\n"
    return out


def _options() -> dict[str, list[tuple[str, ...]]]:
    """Each command of the CLI and its options, each as the spellings it accepts."""
    import inspect

    import typer

    from checker.cli import app

    commands = {}
    for command in app.registered_commands:
        options = []
        for parameter in inspect.signature(command.callback).parameters.values():
            if isinstance(parameter.default, typer.models.OptionInfo):
                declared = parameter.default.param_decls or (f"--{parameter.name.replace('_', '-')}",)
                options.append(tuple(part for decl in declared for part in decl.split("/")))
        commands[command.name or command.callback.__name__.replace("_", "-")] = options
    return commands


def test_the_readme_synopses_name_every_command_and_option() -> None:
    """README's usage lines and --help agree: every command, and every option it takes."""
    synopses = _synopses()
    for command, options in _options().items():
        assert command in synopses, f"README.md has no synopsis of `mlperf-check {command}`"
        for spellings in options:
            assert any(re.search(rf"(?<![\w-]){re.escape(s)}(?![\w-])", synopses[command]) for s in spellings), (
                f"README.md's synopsis of `mlperf-check {command}` lacks {spellings[0]}"
            )


def test_the_check_synopsis_names_every_format() -> None:
    from checker.reporters import CHECK

    formats = re.search(r"--format ([\w|]+)", _synopses()["check"])[1].split("|")
    assert formats == CHECK.names


def test_the_readme_says_nothing_is_planned() -> None:
    """compare and reproduce exist: no page calls a command planned."""
    for document in DOCUMENTS:
        assert "planned" not in document.read_text().lower(), document


TOOL_CACHES = (".pytest_cache", ".mypy_cache", ".ruff_cache", ".import_linter_cache", ".grimp_cache", ".hypothesis")


def _workspace(tmp_path: Path, block: Block) -> Path:
    """A copy of the project, with the files of the page's file= blocks; `cwd` made a git
    repository when the marker says `git`."""
    work = tmp_path / "project"
    shutil.copytree(
        ROOT,
        work,
        symlinks=True,
        # Not the tools' caches: .ci/check runs mypy (some 25 MB of cache) before the tests.
        ignore=shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", "build", "dist", *TOOL_CACHES),
    )
    for name, text in block.files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    return work


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    (tmp_path / "gitconfig").write_text("")
    return {
        **env,
        "NO_COLOR": "1",
        "COLUMNS": "120",
        REAL_VARIABLE: str(REAL_ROOT),
        TABLES_VARIABLE: str(TABLES_ROOT),
        "PATH": f"{command_folder()}{os.pathsep}{env.get('PATH', '')}",
        "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "doc-test",
        "GIT_AUTHOR_EMAIL": "doc-test@example.org",
        "GIT_COMMITTER_NAME": "doc-test",
        "GIT_COMMITTER_EMAIL": "doc-test@example.org",
    }


def expected_exit(block: Block, command: str) -> list[int]:
    """The exit statuses the page gives a command: its own trailing `# exit N` (or `# exit N or
    M`, for a re-run whose numbers depend on the machine), else the marker's."""
    own = EXIT_COMMENT.search(command)
    return [int(s) for s in own["status"].split(" or ")] if own else [int(block.marker.get("exit", "0"))]


def _script(block: Block, work: Path) -> str:
    lines = [f"cd {shlex.quote(str(work / block.marker.get('cwd', '.')))} || exit 96"]
    if "git" in block.marker:
        lines.append("{ git init -q && git add -A && git commit -q -m 'the submission'; } || exit 95")
    for command in block.commands():
        expected = expected_exit(block, command)
        said = " or ".join(map(str, expected))
        complaint = f'echo "doc-test: exit $rc, the page says {said}: "{shlex.quote(command)} >&2; exit 97'
        lines += [command, f"rc=$?; case $rc in {'|'.join(map(str, expected))}) ;; *) {complaint};; esac"]
    return "\n".join(lines + ["exit 0"]) + "\n"


@pytest.mark.slow
@pytest.mark.parametrize(
    "block",
    [
        pytest.param(block, id=block.where, marks=[pytest.mark.real] * (block.marker.get("needs") == "real"))
        for block in RUN
    ],
)
@pytest.mark.full
def test_documented_commands(block: Block, tmp_path: Path) -> None:
    if block.marker.get("needs") == "real":
        for folder in (REAL_ROOT / "v5.1", REAL_ROOT / "v6.0", REAL_ROOT / "v6.1", TABLES_ROOT):
            if not folder.is_dir():
                TALLY["skipped"] += 1
                pytest.skip(absent(folder))
    work = _workspace(tmp_path, block)
    done = subprocess.run(
        ["bash", "-c", _script(block, work)], capture_output=True, text=True, timeout=600, env=_env(tmp_path)
    )
    assert done.returncode == 0, f"{block.where}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    if block.expected_output is not None:
        assert done.stdout == block.expected_output, f"{block.where}: the output block after it differs"
    TALLY["blocks"] += 1
    TALLY["commands"] += len(block.commands())


# --- docs/rules: one page per code, made from its docstring --------------------------------
def test_every_rule_has_its_page_made_from_its_docstring() -> None:
    """docs/rules/CODE.md is `rules --docs`' page of each code, exactly (a docstring changed
    without `mlperf-check rules --docs docs/rules` fails here), and no page is left over."""
    from checker.commands import catalogue

    rules = catalogue.rules()
    folder = ROOT / "docs" / "rules"
    assert sorted(path.stem for path in folder.glob("*.md")) == sorted(rules)
    for code, rule in rules.items():
        assert (folder / f"{code}.md").read_text() == catalogue.page(rule), code


def test_no_fix_points_at_a_file_a_pip_user_lacks() -> None:
    """A rule's Fix and a page name the command that shows a round's facts, never the round
    files or schemas inside the source tree."""
    from checker.commands import catalogue

    lacking = re.compile(r"rules/(<round>|v\d|[\w-]+\.yaml)|schemas/|round file")
    for code, rule in catalogue.rules().items():
        assert not lacking.search(rule.sections.get("Fix", "")), code
    sources = [*DOCUMENTS, *sorted((ROOT / "checker").rglob("*.py")), *sorted((ROOT / "docs" / "rules").glob("*.md"))]
    for source in sources:  # the package is on no registry: an extra installs from a checkout
        assert not re.search(r"pip install ['\"]?mlperf-check\[", source.read_text()), source


def test_the_readme_shows_the_shipped_example_configuration() -> None:
    """The `-q` example reads examples/pyproject.toml, which the repository ships: the TOML
    block the README shows is that file."""
    import tomllib

    shown = [b for b in blocks_of(ROOT / "README.md") if b.info == "toml" and "[tool.mlperf-check]" in b.text]
    shipped = tomllib.loads((ROOT / "examples" / "pyproject.toml").read_text())
    assert [tomllib.loads(block.text) for block in shown] == [shipped]
