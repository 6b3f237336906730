"""Pre-submission CI: GitHub annotations and job summary, SARIF, JUnit, and --changed-since."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import git
import jsonschema
import pytest

from checker import __version__
from checker.findings import Finding, Severity
from checker.registry import RULES
from checker.reporters import github_report, sarif_report
from helpers import (
    ENDPOINTS,
    EXAMPLE,
    OFFLINE,
    ROOT,
    SINGLE,
    SUBMISSION,
    cli,
    command_folder,
    real_report,
    run,
    tree_digest,
)

SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())


def _cli(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The command in this process, without GitHub Actions' variables but those of `env`. (The
    action's steps below run real processes.)"""
    variables: dict[str, str | None] = {k: None for k in os.environ if k.startswith("GITHUB_")}
    return cli(*args, env={**variables, **(env or {})}, cwd=cwd)


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """The example with a few errors and warnings of different codes."""
    root = tmp_path / "repo" / "submission"
    shutil.copytree(EXAMPLE, root, symlinks=True)
    (root / OFFLINE / "accuracy" / "accuracy.txt").write_text("accuracy=80.000%\nhash=00ff\n")  # ACC002
    (root / SINGLE / "user.conf").unlink()  # MSR001
    (root / "closed/MLCheckDemo/documentation/notes").mkdir()  # STR007, a warning
    return root


def test_github_annotations_with_repository_relative_paths(broken: Path, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    done = _cli(
        "check",
        str(broken),
        "--round",
        "demo-v6.1",
        env={"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(broken.parent), "GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert done.returncode == 1
    lines = [line for line in done.stdout.splitlines() if line.startswith("::")]
    assert lines == [  # the fix on the message's last line: the rule's Fix, as `explain` shows it
        f"::error file=submission/{OFFLINE}/accuracy/accuracy.txt,line=1,col=10,title=ACC002 accuracy-within-gate::acc 80.000 < "
        "88.1719 (0.99 x reference 89.0625 = 88.1719, round demo-v6.1)%0Ahelp: " + RULES["ACC002"].sections["Fix"],
        f"::error file=submission/{SINGLE}/user.conf,title=MSR001 measurements-files::user.conf is missing%0Ahelp: "
        + RULES["MSR001"].sections["Fix"],
        "::warning file=submission/closed/MLCheckDemo/documentation/notes,title=STR007 empty-folder::empty folder%0Ahelp: "
        + RULES["STR007"].sections["Fix"],
    ]
    text = summary.read_text()
    assert "| `results/cpu-1x-numpy/demo-mlp-99/Offline` | **invalid** | ACC002 |  |" in text
    assert "**0 of 2 results valid** - 2 errors, 1 warnings, 0 notes" in text
    assert f"- error **MSR001** `submission/{SINGLE}/user.conf`: user.conf is missing" in text


def _finding(code: str, severity: Severity, n: int) -> Finding:
    return Finding(code=code, severity=severity, path=f"closed/X/f{n}.txt", message=f"m{n}", name=RULES[code].name)


def test_github_limits_pick_one_finding_per_code_first() -> None:
    findings = [_finding("FIL001", Severity.ERROR, n) for n in range(15)] + [_finding("FIL002", Severity.ERROR, 99)]
    findings += [_finding("STR007", Severity.WARNING, n) for n in range(12)]
    picked = github_report.chosen(findings)
    errors = [f for f in picked if f.severity is Severity.ERROR]
    assert len(errors) == 10 and [f.code for f in errors[:2]] == ["FIL001", "FIL002"]
    assert len([f for f in picked if f.severity is Severity.WARNING]) == 10


def test_github_escapes_commands() -> None:
    finding = Finding(
        code="FIL007",
        severity=Severity.ERROR,
        path="closed/A,b/x:y.json",
        message="50% bad\nline",
        pointer="line 4",
        name="malformed-json",
        hint="100% sure",
        line=4,
    )
    assert github_report.annotation(finding, "") == (
        "::error file=closed/A%2Cb/x%3Ay.json,line=4,title=FIL007 malformed-json::50%25 bad%0Aline%0Ahelp: 100%25 sure"
    )
    assert github_report.annotation(finding.with_(column=7), "").startswith(
        "::error file=closed/A%2Cb/x%3Ay.json,line=4,col=7,title="
    )


def test_github_summary_stays_under_the_limit(broken: Path) -> None:
    report = run(broken, "demo-v6.1")
    text = github_report.summary(report, "", limit=400)
    assert len(text.encode()) < 400 + 200
    assert "The summary stops here to stay under GitHub's 1 MiB limit" in text


def test_sarif_is_valid_and_carries_the_rules(broken: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.sarif"
    done = _cli(
        "check",
        str(broken),
        "--round",
        "demo-v6.1",
        "--format",
        f"sarif:{out}",
        "--format",
        f"json:{tmp_path / 'out.json'}",
        cwd=broken.parent,
    )
    assert done.returncode == 1
    document = json.loads(out.read_text())
    jsonschema.Draft7Validator(SARIF_SCHEMA, format_checker=jsonschema.FormatChecker()).validate(document)
    driver = document["runs"][0]["tool"]["driver"]
    assert {r["id"] for r in driver["rules"]} == set(RULES)
    acc = next(r for r in driver["rules"] if r["id"] == "ACC002")
    assert acc["help"]["text"].startswith("Why: closed results must be as accurate")
    results = document["runs"][0]["results"]
    assert [
        (r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results
    ] == [
        ("STR007", "warning", "submission/closed/MLCheckDemo/documentation/notes"),
        ("ACC002", "error", f"submission/{OFFLINE}/accuracy/accuracy.txt"),
        ("MSR001", "error", f"submission/{SINGLE}/user.conf"),
    ]
    assert json.loads((tmp_path / "out.json").read_text())["summary"]["invalid"] == 2


@pytest.mark.real
@pytest.mark.full
def test_sarif_of_the_real_slice_validates_with_line_regions() -> None:
    report = real_report("v5.1")
    document = sarif_report.document(report)
    jsonschema.Draft7Validator(SARIF_SCHEMA, format_checker=jsonschema.FormatChecker()).validate(document)
    regions = [
        r["locations"][0]["physicalLocation"].get("region")
        for r in document["runs"][0]["results"]
        if r["ruleId"] == "ACC007"
    ]
    assert regions == [{"startLine": 14, "startColumn": 54}] * 4  # the record's value
    # A JSON pointer's member: its key's line and column (`    "host_processor_core_count": "N/A",`).
    placed = {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].rsplit("/", 1)[-1]): r[
            "locations"
        ][0]["physicalLocation"].get("region")
        for r in document["runs"][0]["results"]
        if r["ruleId"] in ("SYS006", "SYS010")
    }
    assert placed == {
        ("SYS006", "8xMI325x_2xEPYC-9655.json"): {"startLine": 24, "startColumn": 5},
        ("SYS010", "XE8640_4xH100_vLLM.json"): {"startLine": 23, "startColumn": 3},
    }
    assert document["runs"][0]["columnKind"] == "unicodeCodePoints"  # columns count characters
    # Every finding with a pointer on the slice has its place.
    assert [f for f in report.findings if f.pointer and f.line is None] == []


def test_junit_has_one_case_per_result(broken: Path, tmp_path: Path) -> None:
    out = tmp_path / "junit.xml"
    _cli("check", str(broken), "--round", "demo-v6.1", "--format", f"junit:{out}")
    suites = ET.parse(out).getroot()
    suite = suites.find("testsuite")
    assert suite.get("name") == "closed/MLCheckDemo"
    cases = [(c.get("name"), c.find("failure") is not None) for c in suite.findall("testcase")]
    assert cases == [
        ("submission and systems", False),
        ("demo-mlp-99/Offline", True),
        ("demo-mlp-99/SingleStream", True),
    ]
    assert suite.get("failures") == "2" and suite.get("tests") == "3"


# --- --changed-since -------------------------------------------------------------------
TWO = ("closed/RedHat", "closed/The_Stage")


@pytest.fixture
def submission_repo(real: Path, tmp_path: Path) -> tuple[Path, git.Repo]:
    root = tmp_path / "submissions"
    for folder in TWO:
        shutil.copytree(real / folder, root / folder, symlinks=True)
    repo = git.Repo.init(root)
    repo.git.add(A=True)
    repo.index.commit("v5.1 submission")
    return root, repo


@pytest.mark.slow
@pytest.mark.real
def test_changed_since_checks_exactly_the_broken_result(submission_repo) -> None:
    root, repo = submission_repo
    broken = "closed/RedHat/results/XE8640_4xH100_vLLM/llama3.1-8b/Server"
    (root / broken / "accuracy" / "accuracy.txt").write_text("{'rouge1': 10.0}\nhash=00\n")
    repo.git.add(A=True)
    repo.index.commit("a worse model")
    done = _cli("check", str(root), "--round", "v5.1", "--changed-since", "HEAD~1", "-f", "json", "-j", "1")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert [(r["location"], r["valid"]) for r in report["results"]] == [(broken, False)]
    assert {f["code"] for f in report["findings"] if f["severity"] == "error"} == {"ACC002", "ACC003"}
    assert "1 changed file; checked 1 result" in done.stderr


@pytest.mark.slow
@pytest.mark.real
def test_changed_system_description_pulls_in_its_results(submission_repo) -> None:
    root, repo = submission_repo
    description = root / "closed/RedHat/systems/XE8640_4xH100_vLLM.json"
    data = json.loads(description.read_text())
    description.write_text(json.dumps(dict(data, framework="vLLM 0.10.0 (rebuilt)"), indent=2))
    done = _cli("check", str(root), "--round", "v5.1", "--changed-since", "HEAD", "-f", "json")  # uncommitted too
    assert done.returncode == 0, done.stderr
    locations = [r["location"] for r in json.loads(done.stdout)["results"]]
    assert locations == [
        "closed/RedHat/results/XE8640_4xH100_vLLM/llama3.1-8b/Offline",
        "closed/RedHat/results/XE8640_4xH100_vLLM/llama3.1-8b/Server",
    ]


@pytest.mark.slow
def test_changed_since_outside_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "plain")
    done = _cli("check", str(tmp_path / "plain"), "--round", "demo-v6.1", "--changed-since", "HEAD")
    assert done.returncode == 2
    assert "not inside a git repository" in done.stderr


@pytest.fixture
def example_repo(tmp_path: Path) -> Path:
    """The example, committed to a repository of its own."""
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root, symlinks=True)
    repo = git.Repo.init(root)
    repo.git.add(A=True)
    repo.index.commit("the example")
    return root


@pytest.mark.slow
def test_changed_since_reads_untracked_files(example_repo: Path) -> None:
    """An untracked file is an added one: it may make a new scenario folder, so its
    benchmark's results are checked (STR003 judges the set of scenarios)."""
    (example_repo / OFFLINE / "notes.txt").write_text("not yet added\n")
    done = _cli("check", str(example_repo), "--round", "demo-v6.1", "--changed-since", "HEAD", "-f", "json")
    assert done.returncode == 0, done.stderr
    assert [r["location"] for r in json.loads(done.stdout)["results"]] == [OFFLINE, SINGLE]


@pytest.mark.slow
@pytest.mark.parametrize("ref", ["nope", "HEAD~1", "HEAD..HEAD", "-x"])
def test_changed_since_a_ref_that_names_no_commit_is_a_usage_error(example_repo: Path, ref: str) -> None:
    done = _cli("check", str(example_repo), "--round", "demo-v6.1", f"--changed-since={ref}")
    assert done.returncode == 2
    assert f"{ref!r} is not a commit of {os.path.realpath(example_repo)}" in done.stderr


def test_changed_since_listing_starts_before_the_rules_load(
    example_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check's invocation starts git's listing first: git walks the tree while the
    configuration, the rules and the round load."""
    from checker import engine, scope
    from checker.commands import check

    started: list[str] = []
    changes, load_all = scope.Changes, engine.load_all
    monkeypatch.setattr(scope, "Changes", lambda root, ref: started.append("git") or changes(root, ref))
    monkeypatch.setattr(engine, "load_all", lambda: started.append("rules") or load_all())
    line = check.CommandLine(paths=[str(example_repo)], round="demo-v6.1", changed_since="HEAD", progress=False)
    invoked = check.invocation(line)
    assert started == ["git", "rules"]
    assert invoked.changes is not None and invoked.changes.paths() == []


def _action_step(step: dict, inputs: dict, outputs: dict, env: dict) -> subprocess.CompletedProcess:
    """Run one step of the composite action as the runner would: its env expressions filled in."""
    import re

    filled = {}
    for key, value in step.get("env", {}).items():
        value = re.sub(r"\$\{\{ inputs\.([\w-]+) \}\}", lambda m: str(inputs[m.group(1)]), str(value))
        value = re.sub(r"\$\{\{ steps\.check\.outputs\.(\w+) \}\}", lambda m: outputs.get(m.group(1), ""), value)
        filled[key] = value
    return subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env, **filled},
        cwd=env["GITHUB_WORKSPACE"],
    )


ACTION_INPUTS = {"path", "round", "fail-on", "changed-since", "sarif-file"}


def _action() -> dict:
    import yaml

    return yaml.safe_load((ROOT / "action.yml").read_text())


def _action_env(tmp_path: Path, workspace: Path, path: str = "") -> dict[str, str]:
    return {
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_ACTION_PATH": str(ROOT),
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_OUTPUT": str(tmp_path / "github_output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_ACTIONS": "true",
        "PATH": f"{path}{command_folder()}:{Path(sys.executable).parent}:{os.environ['PATH']}",
    }


def test_the_actions_inputs_and_outputs() -> None:
    """The round is detected unless named; the tool comes from the action's checkout (no
    version input: the package is not on PyPI); the counts are outputs, warnings included."""
    action = _action()
    assert set(action["inputs"]) == ACTION_INPUTS
    assert action["inputs"]["round"]["default"] == ""
    assert set(action["outputs"]) == {"valid", "invalid", "errors", "warnings"}
    assert all(step.get("shell") == "bash" for step in action["runs"]["steps"])
    assert "GITHUB_ACTION_PATH" in action["runs"]["steps"][0]["run"] and "==" not in action["runs"]["steps"][0]["run"]


@pytest.mark.slow
@pytest.mark.parametrize("fail_on,breaks", [("error", False), ("warning", True)])
def test_composite_action_steps(tmp_path: Path, fail_on: str, breaks: bool) -> None:
    """The action's check and fail steps on the Endpoints example (real v6.1 results) with
    one warning (an empty folder): the round is detected, the counts are outputs."""
    action = _action()
    workspace = tmp_path / "ws"
    shutil.copytree(ENDPOINTS, workspace / "sub", symlinks=True)
    (workspace / "sub/closed/EndpointsDemo/documentation/drafts").mkdir(parents=True)
    env = _action_env(tmp_path, workspace)
    inputs = {"path": "sub", "round": "", "fail-on": fail_on, "changed-since": "", "sarif-file": "x.sarif"}
    check = _action_step(action["runs"]["steps"][1], inputs, {}, env)
    assert check.returncode == 0, check.stderr
    assert check.stderr.startswith("round v6.1 (detected: the seeds of 2 of 2 results are v6.1's")
    assert (
        "::warning file=sub/closed/EndpointsDemo/documentation/drafts,title=STR007 empty-folder::empty folder"
        in check.stdout
    )
    outputs = dict(line.split("=", 1) for line in (tmp_path / "github_output").read_text().splitlines())
    assert outputs == {"valid": "2", "invalid": "0", "errors": "0", "warnings": "1"}
    assert json.loads((workspace / "x.sarif").read_text())["version"] == "2.1.0"
    fail = _action_step(action["runs"]["steps"][2], inputs, outputs, env)
    assert (fail.returncode != 0) is breaks


@pytest.mark.slow
def test_the_action_uses_a_round_it_is_given(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(EXAMPLE, workspace / "sub", symlinks=True)
    inputs = {"path": "sub", "round": "demo-v6.1", "fail-on": "error", "changed-since": "", "sarif-file": ""}
    check = _action_step(_action()["runs"]["steps"][1], inputs, {}, _action_env(tmp_path, workspace))
    assert check.returncode == 0, check.stderr
    assert "detected" not in check.stderr
    outputs = dict(line.split("=", 1) for line in (tmp_path / "github_output").read_text().splitlines())
    assert outputs == {"valid": "2", "invalid": "0", "errors": "0", "warnings": "0"}


@pytest.mark.slow
def test_the_action_says_to_fetch_the_base_it_cannot_find(example_repo: Path, tmp_path: Path) -> None:
    """A shallow checkout lacks the pull request's base: the step says how to fetch it."""
    workspace, repo = example_repo, git.Repo(example_repo)
    base = "0" * 39 + "1"
    inputs = {"path": ".", "round": "demo-v6.1", "fail-on": "error", "changed-since": base, "sarif-file": ""}
    check = _action_step(_action()["runs"]["steps"][1], inputs, {}, _action_env(tmp_path, workspace))
    assert check.returncode == 2
    assert check.stdout == (
        f"::error title=mlperf-check::changed-since {base} is not a commit of the checkout: check it out with "
        "fetch-depth: 0 (actions/checkout), or set changed-since to a commit it has\n"
    )
    inputs["changed-since"] = repo.head.commit.hexsha
    check = _action_step(_action()["runs"]["steps"][1], inputs, {}, _action_env(tmp_path, workspace))
    assert check.returncode == 0, check.stderr
    assert "0 changed files; checked 0 results" in check.stderr


@pytest.mark.slow
@pytest.mark.parametrize("version,works", [("3.10", False), ("3.11", True)])
def test_the_action_installs_itself_with_python_311_or_newer(tmp_path: Path, version: str, works: bool) -> None:
    """The install step needs Python 3.11 or newer and says how to get it; it installs the
    action's own checkout (a `python` that records what it is asked stands in for pip)."""
    shim = tmp_path / "bin"
    shim.mkdir()
    calls = tmp_path / "calls"
    major, minor = version.split(".")
    (shim / "python").write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "-c" ]; then exec {sys.executable} -c "import sys; sys.exit(({major}, {minor}) < (3, 11))"; fi\n'
        f'if [ "$1" = "-V" ]; then echo "Python {version}.9"; exit 0; fi\n'
        f'echo "$@" >> {calls}\n'
    )
    (shim / "python").chmod(0o755)
    step = _action()["runs"]["steps"][0]
    done = _action_step(step, {}, {}, _action_env(tmp_path, tmp_path, f"{shim}:"))
    if works:
        assert done.returncode == 0, done.stdout + done.stderr
        assert calls.read_text() == f"-m pip install --quiet {ROOT}\n"
        assert done.stdout == f"{__version__}\n"  # `mlperf-check version`
    else:
        assert done.returncode == 2 and not calls.exists()
        assert done.stdout == (
            "::error title=mlperf-check::mlperf-check needs Python 3.11 or newer, and python is Python 3.10.9: add "
            'actions/setup-python (python-version: "3.12") before this step\n'
        )


@pytest.mark.slow
def test_changed_since_leaves_the_repository_byte_identical(example_repo: Path) -> None:
    """A file touched but not changed leaves stale stat data in the index; porcelain `git
    diff` would rewrite .git/index to refresh it. The check writes nothing, .git included,
    and a touched file is no change; a touched file whose content changed is one."""
    summary = example_repo / SINGLE / "performance" / "run_1" / "mlperf_log_summary.txt"
    os.utime(summary, (1, 1))
    before = tree_digest(example_repo)
    done = _cli("check", str(example_repo), "--round", "demo-v6.1", "--changed-since", "HEAD", "-f", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"] == []
    assert "0 changed files; checked 0 results" in done.stderr
    assert tree_digest(example_repo) == before
    summary.write_text(summary.read_text() + "\n")
    os.utime(summary, (1, 1))
    done = _cli("check", str(example_repo), "--round", "demo-v6.1", "--changed-since", "HEAD", "-f", "json")
    assert [r["location"] for r in json.loads(done.stdout)["results"]] == [SINGLE]


def test_a_diff_index_record_not_in_gits_shape_counts_as_changed(monkeypatch) -> None:
    """Changes._tracked reads diff-index's raw records; one it cannot read is a change
    (checked again), never a traceback; a stale-stat record is asked of hash-object."""
    from checker.scope import Changes

    changes = Changes.__new__(Changes)
    changes._error, changes._diff = None, None
    monkeypatch.setattr(changes, "_bytes", lambda process: b":100644 100644 ab 0000 M\0a.txt\0garbage\0b.txt\0")
    monkeypatch.setattr(changes, "_differing", lambda stale: [f"asked {path}" for path in stale])
    assert changes._tracked() == {"b.txt": "?", "asked a.txt": "M"}


@pytest.mark.slow
def test_changed_since_on_a_submitter_folder_checks_the_change(example_repo: Path) -> None:
    """git names the changes relative to the folder given; the scope names them from the
    root the engine checks, so a submitter folder checks its changed result."""
    summary = example_repo / SINGLE / "performance" / "run_1" / "mlperf_log_summary.txt"
    summary.write_text(summary.read_text() + "\n")
    for folder in (example_repo / "closed", example_repo / SUBMISSION):
        done = _cli("check", str(folder), "--round", "demo-v6.1", "--changed-since", "HEAD", "-f", "json")
        assert done.returncode == 0, done.stderr
        assert [r["location"] for r in json.loads(done.stdout)["results"]] == [SINGLE], folder


def test_scope_compares_names_as_they_are() -> None:
    """A folder named with glob characters is no pattern; a modified code folder pulls in its
    benchmark's results on every system, and only those."""
    from checker.rounds import load_round
    from checker.scope import scope_of

    scope = scope_of(
        {
            "closed/A/results/sys[1]/resnet50/Offline/accuracy/accuracy.txt": "M",
            "closed/B/code/resnet50/README.md": "M",
            "closed/C*/results/s/x.txt": "M",
        },
        load_round("v5.1"),
    )
    a = [
        ("closed/A/results/sys[1]/resnet50/Offline", "resnet50"),
        ("closed/A/results/sys1/resnet50/Offline", "resnet50"),
    ]
    assert scope.resolve("closed/A", a) == {"closed/A/results/sys[1]/resnet50/Offline"}
    b = [("closed/B/results/any/resnet50/Server", "resnet50"), ("closed/B/results/any/bert-99/Server", "bert-99")]
    assert scope.resolve("closed/B", b) == {"closed/B/results/any/resnet50/Server"}
    assert scope.touches("closed/A") and scope.touches("closed/B") and not scope.touches("closed/C")
    assert not scope.touches("closed/Cx")


def test_a_path_names_the_narrowest_results_that_exist() -> None:
    """Each kind of path, modified or added/deleted, names its results; where none of them
    exists, the next wider set, up to the whole submitter folder (None: checked whole)."""
    from checker.rounds import load_round
    from checker.scope import scope_of

    sub = "closed/A/results"
    results = [
        (f"{sub}/s1/resnet50/Offline", "resnet50"),
        (f"{sub}/s1/resnet50/Server", "resnet50"),
        (f"{sub}/s1/bert-99/Offline", "bert-99"),
        (f"{sub}/s2/resnet50/Offline", "resnet50"),
    ]

    def picked(path: str, how: str = "M", round: str = "v5.1") -> set[str] | None:
        found = scope_of({path: how}, load_round(round)).resolve("closed/A", results)
        return None if found is None else {location.removeprefix(sub + "/") for location in found}

    assert picked(f"{sub}/s1/resnet50/Offline/user.conf") == {"s1/resnet50/Offline"}
    assert picked(f"{sub}/s1/resnet50/Offline/user.conf", "A") == {"s1/resnet50/Offline", "s1/resnet50/Server"}
    assert picked(f"{sub}/s1/resnet50/Gone/user.conf", "D") == {"s1/resnet50/Offline", "s1/resnet50/Server"}
    assert picked(f"{sub}/s3/resnet50/Offline/user.conf", "D") is None  # a system gone: the whole submitter
    assert picked(f"{sub}/s1/README.md") == {"s1/resnet50/Offline", "s1/resnet50/Server", "s1/bert-99/Offline"}
    assert picked("closed/A/compliance/s2/resnet50/Offline/TEST01/verify_accuracy.txt") == {"s2/resnet50/Offline"}
    assert picked("closed/A/measurements/s1/bert-99/Offline/user.conf") == {"s1/bert-99/Offline"}
    assert picked("closed/A/systems/s2.json") == {"s2/resnet50/Offline"}
    assert picked("closed/A/systems/spare.json") is None  # a system without results: STR004, the submitter's
    assert picked("closed/A/code/resnet50/run.py") == {
        "s1/resnet50/Offline",
        "s1/resnet50/Server",
        "s2/resnet50/Offline",
    }
    assert picked("closed/A/code/resnet50/run.py", "A") is None  # a code folder appearing or going: STR005
    assert picked("closed/A/src/resnet50/run.py", round="v6.0") == picked("closed/A/code/resnet50/run.py")
    for whole in ("closed/A/documentation/calibration.md", "closed/A/model_mapping.json", "closed/A/README.md"):
        assert picked(whole) is None, whole
    outside = scope_of({"README.md": "M", "closed/README.md": "M", ".github/ci.yml": "A"}, load_round("v5.1"))
    assert outside.outside == (".github/ci.yml", "README.md", "closed/README.md")
    assert (outside.chains, outside.changed, outside.touches("closed/A")) == (frozenset(), 3, False)


@pytest.mark.slow
def test_a_changed_result_runs_its_submissions_rules(example_repo: Path) -> None:
    """A file over the size limit inside a result is judged by a submission rule (STR008):
    --changed-since finds it, as a whole check does."""
    with open(example_repo / OFFLINE / "performance" / "run_1" / "big.bin", "wb") as handle:
        handle.truncate(60 * 1024 * 1024)
    whole = _cli("check", str(example_repo), "--round", "demo-v6.1", "-f", "json")
    changed = _cli("check", str(example_repo), "--round", "demo-v6.1", "--changed-since", "HEAD", "-f", "json")
    found = [
        [(f["code"], f["severity"], f["path"]) for f in json.loads(done.stdout)["findings"]]
        for done in (whole, changed)
    ]
    assert found[0] == found[1] == [("STR008", "warning", f"{OFFLINE}/performance/run_1/big.bin")]  # v6.1: a warning
