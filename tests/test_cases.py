"""Every case in fixtures/cases: a copy of the example, edited, checked, exact findings."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import (
    CASES,
    ENDPOINTS,
    EXAMPLE,
    PLACES,
    REAL,
    REAL_ROOT,
    apply_edit,
    case_files,
    copy_real_result,
    expand,
    findings_of,
    full_data,
    misplaced,
    real_data,
    run,
    slips,
    tree_digest,
)


def _cases():
    for path, document in case_files():
        for case in document["cases"]:
            real = [pytest.mark.real] if case.get("base", "example").startswith("real") else []
            yield pytest.param(document, case, id=f"{path.stem}-{case['name']}", marks=real)


def _base(case: dict, tmp_path: Path) -> Path:
    target = tmp_path / "submission"
    base = case.get("base", "example")
    if base in ("example", "endpoints"):
        shutil.copytree(EXAMPLE if base == "example" else ENDPOINTS, target, symlinks=True)
    else:  # real:<a v5.1 result location> or real-<round>:<location>: that result and what it depends on
        kind, location = base.split(":", 1)
        source = real_data(REAL if kind == "real" else REAL_ROOT / kind.removeprefix("real-"))
        if not (source / location).is_dir():
            full_data(source)  # the committed subset holds the bases of only some cases
        copy_real_result(target, location, source)
        division, submitter, _, system, _, _ = location.split("/")
        PLACES.update(
            real=location,
            real_compliance=location.replace("/results/", "/compliance/", 1),
            real_measurements=location.replace("/results/", "/measurements/", 1),
            real_system=f"{division}/{submitter}/systems/{system}.json",
        )
    return target


@pytest.mark.parametrize("document,case", list(_cases()))
def test_case(document: dict, case: dict, tmp_path: Path) -> None:
    root = _base(case, tmp_path)
    outside = tmp_path / "outside.txt"
    for edit in case.get("edits", []):
        apply_edit(root, edit, outside)
    before = tree_digest(root)
    # Only the case's own code is selected, and the codes its `also` names: a new rule, or a
    # change to another rule, never changes this case. (INT001 passes any selection.)
    select = [document["code"], *case.get("also", [])]
    round_name = case.get("round", document.get("round", "demo-v6.1"))
    if round_name.endswith(".yaml"):  # a test profile beside the case files
        round_name = str(CASES / round_name)
    report = run(root, round_name, select=select)
    assert tree_digest(root) == before, "the check wrote into the checked tree"
    assert slips(report.findings) == []
    try:
        expected = [(code, severity, expand(path), pointer) for code, severity, path, pointer, *_ in case["expect"]]
        assert findings_of(report) == expected
        # An entry may state where the finding is ({line: N, column: M}): it must be there.
        stated = [(i, entry[4]) for i, entry in enumerate(case["expect"]) if len(entry) == 5]
        places = [(i, {"line": report.findings[i].line, "column": report.findings[i].column}) for i, _ in stated]
        assert places == [(i, {"line": at["line"], "column": at.get("column")}) for i, at in stated]
        # Every finding placed is at what it names (the record, member, key or line read).
        assert [(f.code, f.pointer, why) for f in report.findings if (why := misplaced(root, f))] == []
        for place, valid in case.get("valid", {}).items():
            location = expand("{" + place + "}")
            verdict = {r.location: r.valid for r in report.results}[location]
            assert verdict is valid, f"{location} should be {'valid' if valid else 'invalid'}"
    finally:
        for key in ("real", "real_compliance", "real_measurements", "real_system"):
            PLACES.pop(key, None)
