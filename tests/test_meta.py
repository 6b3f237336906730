"""Rules about the rules: codes, docs, cases, and round files."""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
import yaml

from checker import rounds
from checker.findings import Severity
from checker.registry import CODE, RETIRED, RULES
from checker.rounds import available_rounds, load_round
from helpers import case_files

# Codes whose failing case needs a fault no file edit can make; each names its test.
UNIT_TESTED = {
    "INT001": "tests/test_engine.py::test_rule_exception_becomes_internal_error",
    "WVR001": "tests/test_cli.py::test_unused_waiver_is_a_note",
    # A path deeper than PATH_MAX depends on where the tree lies: built there, one folder at a time.
    "FIL025": "tests/test_workspace.py::test_a_tree_deeper_than_a_file_system_opens_by_name",
    # These need a clone of mlcommons/inference; tests/test_provenance.py builds one with gitpython.
    "PRV002": "tests/test_provenance.py::test_unknown_rev",
    "PRV003": "tests/test_provenance.py::test_revs_judged_by_ancestry_and_date",
    "PRV004": "tests/test_provenance.py::test_revs_judged_by_ancestry_and_date",
    "PRV005": "tests/test_provenance.py::test_modified_file_is_a_sha1_mismatch",
}


def test_codes_are_well_formed_and_never_retired() -> None:
    assert RULES, "no rules registered"
    for code, rule in RULES.items():
        assert CODE.match(code) and rule.code == code
        assert code not in RETIRED


def test_names_are_unique() -> None:
    names = [rule.name for rule in RULES.values()]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_documents_why_fix_and_policy(code: str) -> None:
    sections = RULES[code].sections
    for part in ("Why", "Fix", "Policy"):
        assert sections.get(part, "").strip(), f"{code} has no {part}: in its docstring"
    assert RULES[code].summary.endswith("."), f"{code}: the first line is a sentence"


@functools.cache
def _case_expectations() -> dict[str, tuple[int, int]]:
    """code -> (cases where it is expected, cases where it is not), over the case files of
    that code."""
    found: dict[str, tuple[int, int]] = {}
    for _, document in case_files():
        code = document["code"]
        failing = sum(1 for case in document["cases"] if any(c == code for c, *_ in case["expect"]))
        passing = sum(1 for case in document["cases"] if not any(c == code for c, *_ in case["expect"]))
        found[code] = (failing, passing)
    return found


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_code_has_a_passing_and_a_failing_case(code: str) -> None:
    if code in UNIT_TESTED:
        return
    failing, passing = _case_expectations().get(code, (0, 0))
    assert failing >= 1, f"fixtures/cases/{code}.yaml has no failing case"
    assert passing >= 1, f"fixtures/cases/{code}.yaml has no passing case"


def test_case_files_name_registered_codes() -> None:
    for path, document in case_files():
        assert path.stem in RULES, f"{path.name} is for an unknown code"
        assert document["code"] == path.stem


CASE_KEYS = {"name", "base", "round", "edits", "also", "expect", "valid"}


def test_case_files_use_known_keys_and_expect_code_severity_path_pointer() -> None:
    """Each expected finding is [CODE, severity, path, pointer] or that and its place, of a code the case selects
    (its own, or one its `also` names), and `also` names other registered codes."""
    severities = {s.value for s in Severity}
    for path, document in case_files():
        assert set(document) <= {"code", "round", "cases"}, path.name
        for case in document["cases"]:
            where = f"{path.name} {case['name']}"
            # A key test_cases.py does not read (a retired `ignore_codes`) would be ignored silently.
            assert set(case) <= CASE_KEYS, (where, sorted(set(case) - CASE_KEYS))
            also = case.get("also", [])
            assert all(code in RULES and code != document["code"] for code in also), where
            assert len(set(also)) == len(also), where
            for entry in case["expect"]:
                assert isinstance(entry, list) and len(entry) in (4, 5), (where, entry)
                code, severity, rel, pointer, *place = entry
                # An optional fifth: where the finding is, {line: N, column: M} (column may be left out).
                at = place[0] if place else {"line": 1}
                assert isinstance(at, dict) and set(at) in ({"line"}, {"line", "column"}), (where, entry)
                assert code in [document["code"], *also], (where, entry)
                assert severity in severities and isinstance(rel, str), (where, entry)
                assert pointer is None or isinstance(pointer, str), (where, entry)


@pytest.mark.parametrize("name", available_rounds())
def test_every_round_file_validates(name: str) -> None:
    """load_round trusts a bundled round file (and what it extends) without jsonschema: this holds it."""
    schema = json.loads(resources.files("checker.schemas").joinpath("round.schema.json").read_text())
    document = rounds.document(name)
    jsonschema.Draft202012Validator(schema).validate(document)
    assert document["round"] == name


@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
def test_shipped_system_schema_is_each_rounds_rendering(round_name: str) -> None:
    """schemas/system_desc.schema.json (for check-jsonschema) is what the round's lists make
    of it: the three rounds list the same fields, categories and system types."""
    from checker.rounds import _schema, load_round

    assert load_round(round_name).system_schema == _schema("system_desc.schema.json")


def test_round_lists_drive_the_system_checks(tmp_path, example) -> None:
    """A round that requires another field, allows another category or another system type
    judges a description by its own lists."""
    from helpers import run

    profile = tmp_path / "stricter.yaml"
    v61 = rounds.document("v6.1")
    facts = dict(v61["system_description"], required=v61["system_description"]["required"] + ["rack_units"])
    profile.write_text(
        yaml.safe_dump(
            {
                "extends": "demo-v6.1",
                "round": "demo-stricter",
                "profile": "test",
                "system_description": facts,
                "availability": {"source": "test", "values": ["available", "preview", "rdi", "someday"]},
                "system_types": {"source": "test", "values": ["datacenter"]},
            }
        )
    )
    description = example / "closed/MLCheckDemo/systems/cpu-1x-numpy.json"
    data = json.loads(description.read_text())
    data.update(status="Someday", system_type="edge")
    description.write_text(json.dumps(data))
    found = [(f.code, f.pointer) for f in run(example, str(profile), select=["SYS", "AVL"]).findings]
    assert found == [("SYS001", "/rack_units"), ("SYS008", "/system_type")]
    assert [(f.code, f.pointer) for f in run(example, "demo-v6.1", select=["SYS", "AVL"]).findings] == [
        ("AVL001", "/status")
    ]


def test_a_rule_needing_what_its_scope_lacks_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from checker.engine import load_all
    from checker.findings import Severity
    from checker.registry import Rule

    load_all()
    bogus = Rule("ZZZ999", "bogus", "system", Severity.ERROR, "Bogus.", lambda s, r: (), ("performance_log",))
    monkeypatch.setitem(RULES, "ZZZ999", bogus)
    with pytest.raises(
        ValueError,
        match=r"^rule ZZZ999 needs performance_log, which a system does not provide "
        r"\(model.NEEDS: system_description\)$",
    ):
        load_all()


def test_a_round_file_without_the_audit_tolerance_is_refused(tmp_path: Path) -> None:
    """reproduce reads `audit.tolerance`: a round file given as a path without it is a
    RoundError (a usage error) when it loads, never a KeyError later."""
    from checker.rounds import RoundError

    document = rounds.document("v6.1")
    document = {**document, "audit": {k: v for k, v in document["audit"].items() if k != "tolerance"}}
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(document))
    with pytest.raises(RoundError, match=r"mine.yaml:\d+: audit has no `tolerance`$"):
        load_round(str(path))


def test_counts_written_as_whole_floats_are_counts() -> None:
    """A table written by a tool that types columns as floats gives `a#` as 8.0: still 8
    accelerators, not a CPU-only row."""
    from checker.analysis.table import hardware_of

    row = {"a#": 8.0, "Accelerator": "H100", "Processor": "Xeon", "p#": 2.0}
    assert hardware_of(row) == hardware_of({**row, "a#": 8, "p#": 2}) == ("accelerator", "H100", 8, False)
    assert hardware_of({**row, "a#": 8.5})[0] == "cpu" and hardware_of({**row, "a#": True})[0] == "cpu"
