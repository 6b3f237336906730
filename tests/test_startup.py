"""What a command loads before it answers (issues 24 and 26: `rules`, `rounds` and `explain`
in under 0.2 s, timed by benchmarks/startup.py, not here: a timing depends on the machine):
the modules they import, the bundled round files read once and without the
guards a user's file needs, and typer's values read without pydantic, as typer reads them."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st

from checker import rounds, userfiles, yamlsafe
from checker.clikit import _Plain

# What a command that only lists something never needs: the data libraries, the templates,
# the JSON Schema validator, rich's console and tables, the engine and the reporters of check,
# the configuration's TOML reader, pydantic (typer's adapters), and the round files' reader
# (YAML and the typed facts: a bundled round's facts are in the shipped catalogue).
HEAVY = (
    "pandas",
    "numpy",
    "jinja2",
    "jsonschema",
    "rich.console",
    "rich.table",
    "checker.engine",
    "checker.reporters.text_report",
    "tomllib",
    "pydantic",
    "yaml",
    "checker.rounds",
    "checker.facts",
)
PROBE = (
    "import sys\n"
    "from checker.cli import app\n"
    "try:\n    app(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
    "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in {heavy} or m in {heavy})), file=sys.stderr)\n"
)


LISTING = [
    ["rules"],
    ["rules", "-f", "json"],
    ["rules", "--round", "v6.0"],
    ["rounds"],
    ["rounds", "show", "v6.0"],
    ["rounds", "show", "v6.1", "-f", "json"],
    ["explain", "RNG001"],
    ["explain", "round-seeds"],
]


@pytest.mark.parametrize("command", LISTING)
def test_listing_commands_import_nothing_heavy(command: list[str]) -> None:
    tops = {name.split(".")[0] for name in HEAVY if "." not in name}
    probe = PROBE.format(heavy=repr(tops | set(HEAVY)))
    done = subprocess.run([sys.executable, "-c", probe, *command], capture_output=True, text=True, timeout=60)
    assert done.stdout  # it answered
    assert done.stderr.splitlines()[-1] == ""


def test_the_shipped_catalogue_is_the_registry_and_the_round_files() -> None:
    """schemas/catalogue.json, which `rules`, `explain` and `rounds` read, is what the rule
    docstrings and the round files make now. After changing either, run
    `python -c "from checker.commands.catalogue import write_bundled; write_bundled('schemas/catalogue.json')"`."""
    from checker.commands import catalogue

    assert catalogue.bundled() == catalogue.made()


def test_bundled_round_files_read_fast_read_as_strictly() -> None:
    """A bundled round file is read by the safe loader alone; read with every guard of a
    user's file (limits, a key given twice, non-finite numbers) it is the same document."""
    names = [e.name for e in resources.files("checker.rules").iterdir() if e.name.endswith(".yaml")]
    assert len(names) >= 4
    for name in names:
        text = resources.files("checker.rules").joinpath(name).read_text(encoding="utf-8")
        assert yamlsafe.load_package_data(text) == userfiles.parse(text, name)[0], name


def test_the_round_mirror_is_current() -> None:
    """rules/rounds.json holds each bundled round file's document as its YAML reads, under
    the digest of its text: what `python -m checker.tools.rounds` writes now. After editing
    a round file, run that command."""
    from checker.tools.rounds import mirrored, rendered

    text = resources.files("checker.rules").joinpath(rounds.MIRROR).read_text(encoding="utf-8")
    assert text == rendered(mirrored()), "rules/rounds.json is stale: run `python -m checker.tools.rounds`"
    files = json.loads(text)["files"]
    assert sorted(files) == sorted(f"{name}.yaml" for name in rounds.available_rounds())
    for name, entry in files.items():  # through JSON and back, each is its YAML's document (keys, numbers, dates)
        yaml_text = resources.files("checker.rules").joinpath(name).read_text(encoding="utf-8")
        assert entry == {"sha256": rounds.text_digest(yaml_text), "document": yamlsafe.load_package_data(yaml_text)}


def test_a_round_file_loads_from_the_mirror_only_for_its_own_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mirror's document is taken for a file whose text has its digest, and the YAML
    parsed for one edited since (a stale digest) or an entry of another shape."""
    text = rounds.bundled().joinpath("v5.1.yaml").read_text(encoding="utf-8")
    digest, marked, parsed = rounds.text_digest(text), {"round": "marked"}, yamlsafe.load_package_data(text)
    entries = [
        ({"sha256": digest, "document": marked}, marked),
        ({"sha256": "0" * 64, "document": marked}, parsed),
        ({"document": marked}, parsed),
        ({"sha256": digest, "document": ["round: v5.1"]}, parsed),
        ({"sha256": digest}, parsed),
        ("x", parsed),
        ([1], parsed),
        (None, parsed),
    ]
    for entry, expected in entries:
        monkeypatch.setattr(rounds, "_mirror", lambda entry=entry: {"v5.1.yaml": entry})
        rounds._bundled_document.cache_clear()
        assert rounds._bundled_document("v5.1")[0] == expected, entry
    rounds._bundled_document.cache_clear()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=200, derandomize=True, database=None)
@given(entry=_JSON, document=_JSON, digest_right=st.booleans(), with_document=st.booleans())
def test_any_mirror_entry_gives_its_document_or_the_yamls(
    entry: object, document: object, digest_right: bool, with_document: bool
) -> None:
    """Whatever a mirror entry holds (any JSON: a mapping with or without the file's digest
    and a document of any kind, or no mapping at all), the file's document is the mirror's
    only when the entry is a mapping of this text's digest and a mapping document, and else
    the YAML's; no entry raises."""
    text = rounds.bundled().joinpath("v5.1.yaml").read_text(encoding="utf-8")
    if isinstance(entry, dict):
        entry = {**entry, "sha256": rounds.text_digest(text) if digest_right else "0" * 64}
        if with_document:
            entry["document"] = document
    used = entry.get("document") if isinstance(entry, dict) and digest_right else None
    expected = used if isinstance(used, dict) else yamlsafe.load_package_data(text)
    saved = rounds._mirror
    rounds._mirror = lambda: {"v5.1.yaml": entry}  # type: ignore[assignment]
    try:
        rounds._bundled_document.cache_clear()
        assert rounds._bundled_document("v5.1")[0] == expected
    finally:
        rounds._mirror = saved  # type: ignore[assignment]
        rounds._bundled_document.cache_clear()


@pytest.mark.parametrize("text", ["", "[", "[1]", '{"files": [1]}', '{"files": null}', "[" * 100_000])
def test_an_unreadable_mirror_is_none(text: str, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """A mirror that is not JSON, holds no mapping of files, or nests past the parser's
    depth is none: every round file is then parsed."""
    (tmp_path / rounds.MIRROR).write_text(text, encoding="utf-8")
    monkeypatch.setattr(rounds, "bundled", lambda: tmp_path)
    rounds._mirror.cache_clear()
    try:
        assert rounds._mirror() == {}
    finally:
        rounds._mirror.cache_clear()


def test_a_bundled_round_file_is_read_once() -> None:
    rounds._bundled_document.cache_clear()
    rounds.real_rounds()
    rounds.load_round.cache_clear()
    for name in rounds.available_rounds():
        rounds.load_round(name)
    assert rounds._bundled_document.cache_info().misses == len(rounds.available_rounds())


def _typer_reads(kind: type, value: object, many: bool = False) -> object:
    """What typer's own adapter makes of a value, or the message it refuses it with."""
    from typer._coercion import build_runtime_param, resolve_type_descriptor
    from typer.models import OptionInfo

    descriptor = resolve_type_descriptor(annotation=list[kind] if many else kind, parameter_info=OptionInfo())
    try:
        return build_runtime_param(descriptor).coerce(value, param=_Param(many), ctx=None)
    except typer.BadParameter as error:
        return f"refused: {error.message}"


class _Param:
    def __init__(self, many: bool) -> None:
        self.multiple, self.nargs = many, 1
        self.type_descriptor = None


def _plain_reads(kind: type, value: object, many: bool = False) -> object:
    from typer._coercion import resolve_type_descriptor
    from typer.models import OptionInfo

    param = _Param(many)
    param.type_descriptor = resolve_type_descriptor(
        annotation=list[kind] if many else kind, parameter_info=OptionInfo()
    )
    try:
        return _Plain(param, kind, many).coerce(value, param=param, ctx=None)
    except typer.BadParameter as error:
        return f"refused: {error.message}"


NUMBERS = st.one_of(
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.from_regex(r"[ +\-.0-9eE_a-z]{0,8}", fullmatch=True),
)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(kind=st.sampled_from([str, int, float]), value=NUMBERS | st.text(max_size=8), many=st.booleans())
def test_values_read_without_pydantic_as_typer_reads_them(kind: type, value: str, many: bool) -> None:
    given_value = (value, value) if many else value
    plain, typer_read = _plain_reads(kind, given_value, many), _typer_reads(kind, given_value, many)
    assert repr(plain) == repr(typer_read)  # by repr: "NAN" reads as a NaN both ways, and nan != nan


@pytest.mark.parametrize("kind, value", [(bool, None), (bool, True), (int, None), (float, 0.04), (int, 2), (str, None)])
def test_defaults_read_as_typer_reads_them(kind: type, value: object) -> None:
    assert _plain_reads(kind, value) == _typer_reads(kind, value)


@pytest.mark.parametrize("name", ["v5.1", "v6.0", "v6.1", "demo-v6.1"])
@pytest.mark.parametrize("form", ["text", "json"])
def test_rounds_show_from_the_catalogue_is_the_round_file_read(name: str, form: str) -> None:
    """attack24 L6: `rounds show NAME` answers from the shipped catalogue; reading the round
    file itself (given as a path) shows the same, byte for byte."""
    from typer.testing import CliRunner

    from checker.cli import app
    from helpers import ROOT

    runner = CliRunner()
    shipped = runner.invoke(app, ["rounds", "show", name, "-f", form])
    read = runner.invoke(app, ["rounds", "show", str(ROOT / "rules" / f"{name}.yaml"), "-f", form])
    assert shipped.exit_code == read.exit_code == 0
    if form == "json":
        assert {**json.loads(shipped.stdout), "file": None} == {**json.loads(read.stdout), "file": None}
    else:
        assert shipped.stdout.splitlines()[1:] == read.stdout.splitlines()[1:]
