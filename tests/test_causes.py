"""Causes and consequences (issue 32): a finding that follows from another names its cause
(`cause` in JSON and SARIF, "follows from CODE at PATH" in text, JUnit and annotations) and has
no fix of its own. One fault gives one root finding."""

from __future__ import annotations

import io
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.findings import Cause, Finding, Severity, follow
from checker.reporters import github_report, json_report, junit_report, sarif_report, text_report
from checker.reporters.common import fix_of
from helpers import EXAMPLE, OFFLINE, ROOT, SUBMISSION, run, slips

DETAIL = f"{OFFLINE}/performance/run_1/mlperf_log_detail.txt"
SUMMARY = f"{OFFLINE}/performance/run_1/mlperf_log_summary.txt"
SYSTEM = f"{SUBMISSION}/systems/cpu-1x-numpy.json"


def _example(tmp_path: Path) -> Path:
    root = tmp_path / "submission"
    shutil.copytree(EXAMPLE, root)
    return root


def _cut(root: Path, line: int, keep: int) -> None:
    """Cut the detail log inside line `line` (1-based), `keep` characters of it kept."""
    path = root / DETAIL
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[: line - 1]) + lines[line - 1][:keep])


def _roots(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings if f.cause is None]


def test_a_cut_detail_log_is_one_root_and_its_consequences(tmp_path: Path) -> None:
    """The issue's run: the detail log cut at line 55 gives LOG001; PRF001, PRF016 and PRF014
    (the summary beside it) follow from it, say so in every format and have no fix."""
    root = _example(tmp_path)
    _cut(root, 55, 30)
    report = run(root)
    on_run = [f for f in report.findings if f.location == OFFLINE]
    assert [(f.code, f.path, f.cause) for f in on_run] == [
        ("LOG001", DETAIL, None),
        ("PRF001", DETAIL, Cause("LOG001", DETAIL, "line 55")),
        ("PRF016", DETAIL, Cause("LOG001", DETAIL, "line 55")),
        ("PRF014", SUMMARY, Cause("LOG001", DETAIL, "line 55")),
    ]
    assert [fix_of(f) is None for f in on_run] == [False, True, True, True]
    assert "None" not in " ".join(f.message for f in on_run)

    data = json_report.document(report)
    jsonschema.validate(data, json.loads((ROOT / "schemas" / "findings.schema.json").read_text()))
    causes = [f.get("cause") for f in data["findings"] if f["location"] == OFFLINE]
    assert causes == [None, *[{"code": "LOG001", "path": DETAIL, "pointer": "line 55"}] * 3]

    sarif = sarif_report.document(report)["runs"][0]["results"]
    followed = [r for r in sarif if r["ruleId"] in ("PRF001", "PRF016", "PRF014")]
    assert [r["properties"]["cause"]["code"] for r in followed] == ["LOG001"] * 3
    assert [r["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in followed] == [DETAIL] * 3
    assert all(r["message"]["text"].count(f"; follows from LOG001 at {DETAIL}") == 1 for r in followed)
    assert all("help:" not in r["message"]["text"] for r in followed)

    out = io.StringIO()
    text_report.write(report, out, view="full")
    shown = out.getvalue().splitlines()
    lines = [line for line in shown if " PRF0" in line]
    assert len(lines) == 3 and all(line.endswith(f"; follows from LOG001 at {DETAIL}") for line in lines)
    helps = [shown[i + 1].strip().startswith("help:") for i, line in enumerate(shown) if " PRF0" in line]
    assert helps == [False, False, False]

    out = io.StringIO()
    junit_report.write(report, out)
    assert ET.fromstring(out.getvalue()) is not None
    assert out.getvalue().count(f"follows from LOG001 at {DETAIL}") == 3

    out = io.StringIO()
    github_report.write(report, out)
    annotations = [line for line in out.getvalue().splitlines() if "title=PRF0" in line or "::error" in line]
    assert sum("follows from LOG001 at" in line for line in annotations) == 3


def test_a_system_type_typo_is_one_root(tmp_path: Path) -> None:
    """system_type "datacentre": SYS008 is the root; the benchmark's STR003 follows from it and
    gives no fix of its own ("add the missing scenario's results" was misleading)."""
    root = _example(tmp_path)
    path = root / SYSTEM
    data = json.loads(path.read_text())
    data["system_type"] = "datacentre"
    path.write_text(json.dumps(data, indent=2))
    report = run(root)
    # STR003 once on each of the benchmark's two results (shown once, affecting both)
    assert [(f.code, f.cause) for f in report.findings] == [
        ("SYS008", None),
        *[("STR003", Cause("SYS008", SYSTEM, "/system_type"))] * 2,
    ]
    assert fix_of(report.findings[1]) is None
    assert report.findings[1].message == (
        "the scenarios demo-mlp-99 needs cannot be known: system type `datacentre` is not a system type of demo-v6.1"
    )


def test_a_deleted_accuracy_folder_lists_every_missing_file_at_once(tmp_path: Path) -> None:
    """Deleting accuracy/ names each file it should hold in one check, not the third only
    after the first two are restored."""
    root = _example(tmp_path)
    shutil.rmtree(root / OFFLINE / "accuracy")
    report = run(root)
    assert sorted(f.path for f in report.findings if f.code == "FIL001") == [
        f"{OFFLINE}/accuracy/accuracy.txt",
        f"{OFFLINE}/accuracy/mlperf_log_accuracy.json",
        f"{OFFLINE}/accuracy/mlperf_log_detail.txt",
    ]
    assert _roots(report.findings) == [f.code for f in report.findings]


@pytest.mark.slow
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(line=st.integers(min_value=2, max_value=89), keep=st.integers(min_value=1, max_value=20))
def test_every_cut_of_the_detail_log_has_one_root(
    tmp_path_factory: pytest.TempPathFactory, line: int, keep: int
) -> None:
    """Property: the detail log cut inside any line gives LOG001, and every other finding on
    the run's folder (the log and the summary beside it) follows from it."""
    root = _example(tmp_path_factory.mktemp("cut"))
    _cut(root, line, keep)
    report = run(root)
    run_folder = DETAIL.rpartition("/")[0]
    found = [f for f in report.findings if f.path.startswith(run_folder + "/")]
    assert [f.code for f in found if f.cause is None] == ["LOG001"]
    assert all(f.cause == Cause.of(found[0]) for f in found[1:])


def test_follow_keeps_a_root_and_what_was_read() -> None:
    """A value read before the cut stands: a finding that observed one is its own root."""
    cut = Finding("LOG001", Severity.ERROR, "a/log.txt", "line 9 is cut", location="a", pointer="line 9")
    read = Finding("PRF001", Severity.ERROR, "a/log.txt", "INVALID", location="a", observed="INVALID", expected="VALID")
    unread = Finding("PRF016", Severity.ERROR, "a/log.txt", "no metric", location="a")
    other = Finding("PRF016", Severity.ERROR, "b/log.txt", "no metric", location="b")
    linked = follow([cut, read, unread, other])
    assert [f.cause for f in linked] == [None, None, Cause("LOG001", "a/log.txt", "line 9"), None]


@pytest.mark.parametrize("name", ["system_desc", "cpu-1x-numpi"])
def test_a_renamed_description_is_one_finding_that_says_rename_it(tmp_path: Path, name: str) -> None:
    """mlperf-sysinfo's default name, or a typo: one FIL001 with the rename, no STR004."""
    root = _example(tmp_path)
    (root / SYSTEM).rename(root / SUBMISSION / "systems" / f"{name}.json")
    report = run(root)
    assert [(f.code, f.path, f.message, f.hint) for f in report.findings] == [
        (
            "FIL001",
            SYSTEM,
            f"system description is missing; systems/{name}.json has no results: rename it to "
            "systems/cpu-1x-numpy.json",
            f"rename systems/{name}.json to systems/cpu-1x-numpy.json",
        )
    ]


def test_a_renamed_description_with_two_candidates_names_both(tmp_path: Path) -> None:
    """Two descriptions as close to the system's name (a renamed one and its copy): FIL001 names
    both and asks to rename the right one, and STR004 says nothing of either (before: it picked
    one, `_v2`, to rename and gave STR004 on the other)."""
    root = _example(tmp_path)
    systems = root / SUBMISSION / "systems"
    (root / SYSTEM).rename(systems / "cpu-1x-numpy_v1.json")
    shutil.copyfile(systems / "cpu-1x-numpy_v1.json", systems / "cpu-1x-numpy_v2.json")
    report = run(root)
    both = "systems/cpu-1x-numpy_v1.json and systems/cpu-1x-numpy_v2.json"
    assert [(f.code, f.path, f.message, f.hint) for f in report.findings] == [
        (
            "FIL001",
            SYSTEM,
            f"system description is missing; {both} have no results: rename the one that describes this "
            "system to systems/cpu-1x-numpy.json",
            f"rename the one of {both} that describes this system to systems/cpu-1x-numpy.json",
        )
    ]


def test_a_blank_field_of_a_cpu_only_system_gets_the_rounds_value(tmp_path: Path) -> None:
    """mlperf-sysinfo leaves the accelerator fields of a CPU-only system blank: the fix says
    what the round's published descriptions write there (round file `not_applicable`)."""
    root = _example(tmp_path)
    path = root / SYSTEM
    data = json.loads(path.read_text())
    data.update(accelerators_per_node="", accelerator_model_name="", framework="")
    path.write_text(json.dumps(data, indent=2))
    report = run(root, select=["SYS002"])
    assert [(f.pointer, f.hint) for f in report.findings if f.location == "" and f.code == "SYS002"][:3] == [
        (
            "/accelerator_model_name",
            "where it does not apply, the round's published descriptions write `N/A` (as on its CPU-only systems)",
        ),
        (
            "/accelerators_per_node",
            "where it does not apply, the round's published descriptions write `0` (as on its CPU-only systems)",
        ),
        ("/framework", None),
    ]


# Where one fault breaks two rules that each say something of their own: a log that says VALID
# while its numbers break a limit is an edited log or a modified loadgen (PRF004) and a run
# that broke the limit (the limit's code); both are roots.
TWO_ROOTS = {"PRF004"}


def _single_fault_cases() -> list:
    from helpers import case_files

    found = []
    for path, document in case_files():
        for case in document["cases"]:
            if len(case.get("edits", [])) == 1 and case.get("base", "example") == "example":
                found.append(pytest.param(document, case, id=f"{path.stem}-{case['name']}"))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("document,case", _single_fault_cases())
def test_one_fault_has_one_root_error(document: dict, case: dict, tmp_path: Path) -> None:
    """Property, over every case of one edit on the example, every code selected: the errors
    that follow from no other finding are one (or none), PRF004 beside a limit aside."""
    from helpers import CASES, apply_edit

    root = _example(tmp_path)
    apply_edit(root, case["edits"][0], tmp_path / "outside.txt")
    round_name = case.get("round", document.get("round", "demo-v6.1"))
    report = run(root, str(CASES / round_name) if round_name.endswith(".yaml") else round_name)
    errors = [f for f in report.findings if f.severity is Severity.ERROR and f.code not in TWO_ROOTS]
    roots = sorted({(f.code, f.path) for f in errors if f.cause is None})
    assert len(roots) <= 1, roots
    assert all(fix_of(f) is None for f in report.findings if f.cause is not None)


def test_the_settings_table_reads_the_keys_it_declares() -> None:
    """PRF017's table of loadgen's settings names exactly the keys the rule reads."""
    from checker.rules import settings as prf017

    logged = {key for by_scenario in prf017.SETTINGS.values() for key, _ in by_scenario.values()}
    assert logged == set(prf017.REQUESTED) == set(prf017.LOADGEN_KEYS)


# Faults of the classes the single-edit case files do not hold (attack on issue 32's item 2),
# each on the clean example: one finding of the fault follows from nothing, every other from it.
ONE_ROOT_FAULTS = {
    "empty-system-description": [{"write": "{sub}/systems/cpu-1x-numpy.json", "text": ""}],
    "cut-system-description": [{"write": "{sub}/systems/cpu-1x-numpy.json", "text": '{{"division": '}],
    "a-user-conf-loadgen-refuses": [
        {"replace": "{offline}/user.conf", "old": "min_duration = ", "new": "min_duration: "}
    ],
    "a-comment-after-a-user-conf-value": [
        {"replace": "{offline}/user.conf", "old": "min_duration = 1000", "new": "min_duration = 1000 # tuned"}
    ],
    "a-renamed-scenario-folder": [{"rename": "{offline}", "to": "{result}/Offline_old"}],
    "a-copied-scenario-folder": [{"copy": "{offline}", "to": "{result}/Offline (copy)"}],
    "a-copied-system-folder": [{"copy": "{sub}/results/cpu-1x-numpy", "to": "{sub}/results/cpu-1x-numpy - Copy"}],
    "a-copied-system-description": [
        {"copy": "{sub}/systems/cpu-1x-numpy.json", "to": "{sub}/systems/Copy of cpu-1x-numpy.json"}
    ],
    "a-renamed-system-description": [
        {"rename": "{sub}/systems/cpu-1x-numpy.json", "to": "{sub}/systems/system_desc.json"}
    ],
    "a-deleted-implementation-description": [{"delete": "{offline}/measurements.json"}],
    "a-misspelled-results-folder": [{"rename": "{sub}/results", "to": "{sub}/result"}],
    "a-second-accuracy-log": [
        {"write": "{offline}/accuracy/full.json", "repeat": '[{ "seq_id" : 0, "qsl_idx" : 7 }]\n', "times": 400}
    ],
}


@pytest.mark.parametrize("edits", list(ONE_ROOT_FAULTS.values()), ids=list(ONE_ROOT_FAULTS))
def test_one_fault_of_each_class_has_one_root(edits: list[dict], tmp_path: Path) -> None:
    """Property over the fault classes above, every severity: exactly one finding has no cause."""
    from helpers import apply_edit

    root = _example(tmp_path)
    assert run(root).findings == []
    for edit in edits:
        apply_edit(root, edit, tmp_path / "outside.txt")
    findings = run(root).findings
    assert len(_roots(findings)) == 1, [(f.code, f.path, f.cause) for f in findings]
    assert all(fix_of(f) is None for f in findings if f.cause is not None)
    assert slips(findings) == []
