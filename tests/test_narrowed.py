"""A narrowed check (`--changed-since REF`, files given as pre-commit gives them) judges each
result it checks exactly as a whole check does, and misses no finding a change made.

Real git histories of real slices: v5.1 (closed/RedHat and closed/The_Stage: compliance/ and
measurements/ beside results/, code/<benchmark>, documentation/calibration.md) and v6.0
(closed/Krai and open/Krai: compliance runs and measurements.json inside each result, src/,
a model_mapping.json). Each edit hand-corrupts real files of one kind: a system description,
a user.conf, a log, an accuracy report, measurements, compliance, a submitter-level file,
code, a deletion, a rename. The properties, over single edits and (hypothesis) over several
edits committed or not:

- exact: every result the narrowed check reports has the findings that apply to it in the
  whole check (code, severity, path, pointer, message, observed, expected) and its verdict;
- complete: every finding the whole check finds now and did not find before the change is
  reported, and every result whose own or system findings changed is checked.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import git
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker import scope
from checker.engine import check
from checker.findings import Applying, Finding, Report
from checker.rounds import load_round
from checker.scope import Changes, changes, scope_of, start_early
from helpers import REAL_ROOT, cli, full_digest, real_data, set_mllog, tree_digest

pytestmark = pytest.mark.real

SLICES = {"v5.1": ("closed/RedHat", "closed/The_Stage"), "v6.0": ("closed/Krai", "open/Krai")}

# v5.1
XE = "closed/RedHat/results/XE8640_4xH100_vLLM/llama3.1-8b"
IBM = "IBM_Cloud_gx3-48x240x2l40s_vLLM"
STAGE = "closed/The_Stage"
# v6.0
KRAI = "closed/Krai/results/h200_n1-kissv/wan-2.2-t2v-a14b"
OPEN = "open/Krai"


def _edit_json(path: Path, change: Callable[[dict], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=4))


def _misspelt_system(data: dict) -> None:
    """The issue's case: a misspelled availability and no host_processor_model_name."""
    data["status"] = "Availabel"
    del data["host_processor_model_name"]


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def _append(path: Path, text: str) -> None:
    with open(path, "a") as handle:
        handle.write(text)


EDITS: dict[str, dict[str, Callable[[Path], None]]] = {
    "v5.1": {
        "system-json": lambda root: _edit_json(
            root / "closed/RedHat/systems/XE8640_4xH100_vLLM.json", _misspelt_system
        ),
        "user-conf": lambda root: _append(
            root / XE.replace("/results/", "/measurements/") / "Offline/user.conf", "*.Offline.qsl_rng_seed = 1\n"
        ),
        "log": lambda root: set_mllog(
            root / XE / "Server/performance/run_1/mlperf_log_detail.txt", "effective_qsl_rng_seed", 1
        ),
        "accuracy": lambda root: _replace(root / XE / "Server/accuracy/accuracy.txt", "'38.7459'", "'28.7459'"),
        "measurements": lambda root: (
            root / f"closed/RedHat/measurements/{IBM}/llama3.1-8b/Server/{IBM}.json"
        ).unlink(),
        "compliance": lambda root: _replace(
            root / XE.replace("/results/", "/compliance/") / "Offline/TEST06/verify_accuracy.txt",
            "EOS check pass: True",
            "EOS check pass: False",
        ),
        "calibration": lambda root: (root / STAGE / "documentation/calibration.md").unlink(),
        "code-modified": lambda root: _append(root / STAGE / "code/stable-diffusion-xl/PLACEHOLDER", "v2\n"),
        "code-deleted": lambda root: shutil.rmtree(root / STAGE / "code/stable-diffusion-xl"),
        "result-deleted": lambda root: shutil.rmtree(root / XE / "Server"),
        "system-renamed": lambda root: os.rename(
            root / f"closed/RedHat/systems/{IBM}.json", root / "closed/RedHat/systems/IBM_Cloud.json"
        ),
        "result-added": lambda root: shutil.copytree(root / XE / "Offline", root / XE / "Interactive"),
        "benchmark-renamed": lambda root: os.rename(
            root / STAGE / "results/h100_x8/stable-diffusion-xl", root / STAGE / "results/h100_x8/sdxl"
        ),
        "readme-at-root": lambda root: (root / "README.md").write_text("Our v5.1 submission\n"),
    },
    "v6.0": {
        "system-json": lambda root: _edit_json(root / "closed/Krai/systems/h200_n1-kissv.json", _misspelt_system),
        "user-conf": lambda root: _append(root / KRAI / "offline/user.conf", "*.Offline.qsl_rng_seed = 1\n"),
        "log": lambda root: set_mllog(
            root / KRAI / "offline/performance/run_1/mlperf_log_detail.txt", "effective_schedule_rng_seed", 1
        ),
        "measurements": lambda root: (root / KRAI / "singlestream/measurements.json").unlink(),
        "compliance": lambda root: _replace(
            root / KRAI / "offline/TEST04/verify_performance.txt", "TEST PASS", "TEST FAIL"
        ),
        "model-mapping": lambda root: _edit_json(
            root / OPEN / "model_mapping.json", lambda data: data.pop("llama3_1-70b-fp8_pre")
        ),
        "readme": lambda root: _append(root / "closed/Krai/README.md", "\nUpdated.\n"),
        "src-modified": lambda root: _append(root / OPEN / "src/wan-2.2-t2v-a14b/PLACEHOLDER", "v2\n"),
        "src-deleted": lambda root: shutil.rmtree(root / "closed/Krai/src"),
        "result-deleted": lambda root: shutil.rmtree(root / KRAI / "singlestream"),
        "scenario-renamed": lambda root: os.rename(root / KRAI / "offline", root / KRAI / "Offline"),
        # a scenario the round does not offer for the model fails the whole benchmark (v6.0 STR003)
        "result-added": lambda root: shutil.copytree(root / KRAI / "offline", root / KRAI / "server"),
        "readme-at-root": lambda root: (root / "README.md").write_text("Our v6.0 submission\n"),
    },
}


class History:
    """A git repository holding a round's slices, committed once; each case resets it."""

    def __init__(self, root: Path, round_name: str) -> None:
        self.root, self.round = root, round_name
        self.repo = git.Repo.init(root)
        with self.repo.config_writer() as config:
            config.set_value("user", "name", "t").set_value("user", "email", "t@example.org")
        self.repo.git.add(A=True)
        self.base = self.repo.index.commit("the submission").hexsha
        self.before = check(str(root), round_name, jobs=1)

    def make(self, edits: list[str], committed: bool) -> str:
        """The tree with `edits`, in one commit when `committed` (else in the work tree):
        the ref the changes are listed since."""
        self.repo.git.reset("--hard", self.base)
        self.repo.git.clean("-fdxq")
        for name in sorted(edits, key=lambda name: name.endswith(("-deleted", "-renamed"))):  # edits, then moves
            EDITS[self.round][name](self.root)
        if not committed:
            return "HEAD"
        self.repo.git.add(A=True)
        self.repo.index.commit(" and ".join(edits))
        return "HEAD~1"


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> dict[str, History]:
    found = {}
    for round_name, folders in SLICES.items():
        root = tmp_path_factory.mktemp(round_name) / "submission"
        for folder in folders:
            shutil.copytree(real_data(REAL_ROOT / round_name) / folder, root / folder, symlinks=True)
        found[round_name] = History(root, round_name)
    return found


def _shown(finding: Finding) -> tuple:
    """What a finding says, as every output writes it."""
    return (
        finding.code,
        finding.severity.value,
        finding.path,
        finding.pointer,
        finding.message,
        finding.location,
        repr(finding.observed),
        repr(finding.expected),
    )


def _own(report: Report) -> dict[str, tuple[bool, list[tuple], list[tuple]]]:
    """Per result: its verdict, every finding that applies to it, and those on the result or
    its system description (a change to them must check it)."""
    applying = Applying(report.results, report.findings)
    found = {}
    for record in report.results:
        shown = [(_shown(f), f.subject) for f in applying.of(record)]
        mine = [s for s, subject in shown if s[5] == record.location or subject == record.system_key]
        found[record.location] = (record.valid, sorted(s for s, _ in shown), sorted(mine))
    return found


def _assert_narrowed(narrowed: Report, whole: Report, before: Report, complete: bool = True) -> None:
    now, checked = _own(whole), _own(narrowed)
    for location, (valid, applying, _) in checked.items():
        assert (valid, applying) == now[location][:2], location
    metrics = {r.location: r.metric for r in whole.results}
    assert {r.location: r.metric for r in narrowed.results} == {
        r.location: metrics[r.location] for r in narrowed.results
    }
    if not complete:
        return
    new = {_shown(f) for f in whole.findings} - {_shown(f) for f in before.findings}
    assert new <= {_shown(f) for f in narrowed.findings}, sorted(new - {_shown(f) for f in narrowed.findings})
    then = _own(before)
    moved = {location for location, (_, _, mine) in now.items() if location not in then or then[location][2] != mine}
    assert moved <= set(checked), sorted(moved - set(checked))


def _judge(history: History, edits: list[str], committed: bool) -> tuple[int, int]:
    """Both narrowed checks (git's changes since the ref, and the files that remain as
    pre-commit passes them) against the whole check; (results checked by each)."""
    ref = history.make(edits, committed)
    round_ = load_round(history.round)
    root = str(history.root)
    git_before = full_digest(history.root / ".git")
    whole = check(root, history.round, jobs=1)
    statuses = Changes(root, ref).statuses()
    by_git = check(root, history.round, jobs=1, scope=scope_of(statuses, round_))
    _assert_narrowed(by_git, whole, history.before)
    present = [path for path in statuses if os.path.lexists(history.root / path)]
    by_files = check(root, history.round, jobs=1, scope=scope_of(present, round_))
    # pre-commit passes no deleted file: what a deletion alone changed is the whole check's
    _assert_narrowed(by_files, whole, history.before, complete=all(how != "D" for how in statuses.values()))
    assert full_digest(history.root / ".git") == git_before  # git is only read: no index refreshed
    return len(by_git.results), len(by_files.results)


CASES = [(round_name, name) for round_name, edits in EDITS.items() for name in edits]


@pytest.mark.parametrize("round_name,edit", CASES, ids=[f"{r}-{e}" for r, e in CASES])
def test_each_kind_of_change(histories: dict[str, History], round_name: str, edit: str) -> None:
    checked = _judge(histories[round_name], [edit], committed=True)
    if edit == "readme-at-root":
        assert checked == (0, 0)
    else:
        assert checked[0] > 0, "a change in a submitter folder checks the results it affects"


@pytest.mark.parametrize("round_name", sorted(EDITS))
def test_any_changes_committed_or_not(histories: dict[str, History], round_name: str) -> None:
    @settings(max_examples=8, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(
        edits=st.lists(st.sampled_from(sorted(EDITS[round_name])), min_size=2, max_size=4, unique=True),
        committed=st.booleans(),
    )
    def judged(edits: list[str], committed: bool) -> None:
        _judge(histories[round_name], edits, committed)

    judged()


@pytest.mark.slow
@pytest.mark.full
def test_the_issues_case_on_closed_amd(tmp_path: Path) -> None:
    """Issue 21: a commit breaks a system description (misspelled availability, no
    host_processor_model_name); the next touches one result's user.conf. `check .
    --changed-since HEAD~1` reports that result invalid by AVL001 and SYS001, as a whole
    check does, and writes nothing."""
    root = tmp_path / "submission"
    shutil.copytree(real_data(REAL_ROOT / "v6.0") / "closed/AMD", root / "closed/AMD", symlinks=True)
    repo = git.Repo.init(root)
    with repo.config_writer() as config:
        config.set_value("user", "name", "t").set_value("user", "email", "t@example.org")
    repo.git.add(A=True)
    repo.index.commit("v6.0 submission")
    system = "8xMI355X_2xEPYC_9575F"
    _edit_json(root / f"closed/AMD/systems/{system}.json", _misspelt_system)
    repo.git.add(A=True)
    repo.index.commit("system description")
    result = f"closed/AMD/results/{system}/llama2-70b-99.9/Server"
    _append(root / result / "user.conf", "# tuned\n")
    repo.git.add(A=True)
    repo.index.commit("user.conf")
    before = tree_digest(root)
    done = subprocess.run(
        [sys.executable, "-m", "checker.cli", "check", ".", "--changed-since", "HEAD~1", "-f", "json", "-j", "1"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")},
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert [(r["location"], r["valid"]) for r in report["results"]] == [(result, False)]
    assert [(f["code"], f["severity"], f["path"], f.get("pointer")) for f in report["findings"]] == [
        ("AVL001", "error", f"closed/AMD/systems/{system}.json", "/status"),
        ("SYS001", "error", f"closed/AMD/systems/{system}.json", "/host_processor_model_name"),
    ]
    assert done.stderr.splitlines()[1] == "--changed-since HEAD~1: 1 changed file; checked 1 result"
    assert tree_digest(root) == before


# --- paths given, and the defects of issue 24 -------------------------------------------------
# A clone of v6.0's Krai folders under a folder named `open` (as /tmp/x/open/repo/): the root is
# the nearest folder whose division folders hold submitter folders, not the outermost `open/`.
KISS = "h200_n1-kissv"
KRAI_SINGLE = f"{KRAI}/singlestream"


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> History:
    root = tmp_path_factory.mktemp("x") / "open" / "repo"
    for folder in SLICES["v6.0"]:
        shutil.copytree(real_data(REAL_ROOT / "v6.0") / folder, root / folder, symlinks=True)
    history = History(root, "v6.0")
    history.make([], committed=False)
    return history


def _checked(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess, dict]:
    done = cli("check", *args, "--round", "v6.0", "-f", "json", "-j", "1", "--no-progress", cwd=cwd)
    assert done.returncode in (0, 1), done.stderr
    return done, json.loads(done.stdout)


def _as_whole(document: dict, whole: Report) -> list[tuple[str, bool]]:
    """The narrowed check's results, each with its verdict, after asserting that each has the
    whole check's verdict and every finding it reports is the whole check's."""
    verdicts = {r.location: r.valid for r in whole.results}
    findings = {(f.code, f.severity.value, f.path, f.pointer, f.message) for f in whole.findings}
    for result in document["results"]:
        assert result["valid"] is verdicts[result["location"]], result["location"]
    for finding in document["findings"]:
        assert (finding["code"], finding["severity"], finding["path"], finding.get("pointer"), finding["message"]) in (
            findings
        )
    return [(r["location"], r["valid"]) for r in document["results"]]


def test_paths_name_the_results_they_affect_under_the_nearest_root(clone: History, tmp_path: Path) -> None:
    """A result, benchmark or system path, alone or several, from outside the tree: the results
    it affects, judged as the whole check judges them; the root is .../open/repo, not .../x."""
    root, whole = clone.root, clone.before
    results = sorted(r.location for r in whole.results)

    def under(prefix: str) -> list[tuple[str, bool]]:
        return [(loc, v) for loc, v in sorted((r.location, r.valid) for r in whole.results) if loc.startswith(prefix)]

    _, document = _checked(str(root / KRAI_SINGLE), cwd=tmp_path)
    assert _as_whole(document, whole) == [(KRAI_SINGLE, {r.location: r.valid for r in whole.results}[KRAI_SINGLE])]
    _, document = _checked(str(root / KRAI), cwd=tmp_path)
    assert _as_whole(document, whole) == under(KRAI + "/")
    _, document = _checked(str(root / f"closed/Krai/systems/{KISS}.json"), cwd=tmp_path)
    assert _as_whole(document, whole) == under(f"closed/Krai/results/{KISS}/")
    done, document = _checked(
        str(root / KRAI_SINGLE / "user.conf"), str(root / OPEN / "systems" / f"{KISS}.json"), cwd=tmp_path
    )
    # a file may be new, and a new result changes its benchmark's (STR003): the benchmark's results
    assert _as_whole(document, whole) == sorted(under(KRAI + "/") + under(f"{OPEN}/results/{KISS}/"))
    assert "2 files given; checked" in done.stderr
    done, _ = _checked(str(root / KRAI_SINGLE), str(root / KRAI), cwd=tmp_path)
    assert "2 paths given; checked 2 results" in done.stderr
    assert len(results) > len(document["results"])


def test_the_check_takes_over_the_listing_started_early(clone: History) -> None:
    """check --changed-since starts git's listing as soon as its command line is read
    (scope.start_early); the check takes that listing over for its root however the folder
    was named, and stops one started for a folder that is not the root."""
    clone.make([], committed=False)
    _append(clone.root / KRAI_SINGLE / "user.conf", "# tuned\n")
    start_early([str(clone.root / "closed" / "..")], "HEAD")
    (early,) = scope._EARLY.values()
    taken = changes(str(clone.root), "HEAD")
    assert taken is early and not scope._EARLY
    assert taken.paths() == [KRAI_SINGLE + "/user.conf"]
    start_early([str(clone.root / "closed")], "HEAD")
    (other,) = scope._EARLY.values()
    fresh = changes(str(clone.root), "HEAD")
    assert fresh is not other and other._running == [] and not scope._EARLY
    assert fresh.paths() == [KRAI_SINGLE + "/user.conf"]


def test_listing_says_whether_git_still_runs(clone: History) -> None:
    """Changes.listing: true while a process of the listing runs (the check then builds what
    it needs beside git), false once the changes are read or the listing is stopped."""
    clone.make([], committed=False)
    listed = Changes(str(clone.root), "HEAD")
    waiting = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    listed._running.append(waiting)  # a process of the listing that has not ended
    assert listed.listing()
    waiting.stdin.close()
    waiting.wait()
    listed._running.remove(waiting)
    assert listed.paths() == [] and not listed.listing()
    stopped = Changes(str(clone.root), "HEAD")
    stopped.close()
    assert not stopped.listing()


def _gits() -> list[int]:
    """This process's git children, running or ended and not yet waited for (zombies)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                name, fields = (entry / "stat").read_text().rsplit(")", 1)
            except OSError:
                continue
            if int(fields.split()[1]) == os.getpid() and name.endswith("(git"):
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize(
    "args",
    [
        ["{root}", "--color", "bogus"],  # before the check looks at the listing
        ["{root}/closed/..", "--output-format", "bogus"],
        ["{root}/", "-o", "{root}/../no/such/folder/x.json"],  # after the check took it over
        ["{root}/closed", "--color", "bogus"],  # a division folder: the folder given is not the root
        ["{root}", "--select", "NOSUCH"],
    ],
)
def test_a_listing_started_early_ends_with_its_command(clone: History, args: list[str]) -> None:
    """check --changed-since starts git at once; a usage error at any step of the invocation
    ends it with the command (no git left running or unwaited for), and none is left for the
    next command of the same process to take over: that one lists the changes as they are
    then (it listed those of the first command's moment, and passed a change made since)."""
    clone.make([], committed=False)
    root, before = str(clone.root), set(_gits())  # GitPython's own (cat-file --batch) stay
    done = cli("check", *[arg.format(root=root) for arg in args], "--changed-since", "HEAD", "--no-progress")
    assert done.returncode == 2, done.stderr
    assert (scope._EARLY, set(_gits()) - before) == ({}, set())
    _append(clone.root / KRAI_SINGLE / "user.conf", "# tuned\n")
    done, document = _checked(root, "--changed-since", "HEAD", cwd=clone.root)
    assert "1 changed file; checked 1 result" in done.stderr
    assert [r["location"] for r in document["results"]] == [KRAI_SINGLE]
    assert (scope._EARLY, set(_gits()) - before) == ({}, set())


@pytest.mark.parametrize("spelling", ["{root}", "{root}/", "{root}/closed/..", "{link}", "{link}/", ".", "./closed/.."])
def test_the_listing_started_early_is_the_roots_however_it_is_named(
    clone: History, tmp_path: Path, spelling: str
) -> None:
    """The root named as itself, with a trailing slash, through a division folder, through a
    symbolic link or relative to the working folder: the check takes over git's listing
    started early and checks the results a whole check's narrowing gives, with its verdicts."""
    clone.make([], committed=False)
    _append(clone.root / KRAI_SINGLE / "user.conf", "# tuned\n")
    link = tmp_path / "link"
    link.symlink_to(clone.root, target_is_directory=True)
    before = set(_gits())
    folder = spelling.format(root=clone.root, link=link)
    done, document = _checked(folder, "--changed-since", "HEAD", cwd=clone.root)
    assert "1 changed file; checked 1 result" in done.stderr
    assert _as_whole(document, clone.before) == [
        (KRAI_SINGLE, {r.location: r.valid for r in clone.before.results}[KRAI_SINGLE])
    ]
    assert (scope._EARLY, set(_gits()) - before) == ({}, set())


def test_changed_since_from_a_subfolder_counts_no_touched_file(clone: History) -> None:
    """git hash-object resolves --stdin-paths against the repository's top: run for closed/,
    a touched file (stale index, same content) is no change; an edited one is."""
    clone.make([], committed=False)
    for folder, _, files in os.walk(clone.root / "closed"):
        for name in files:
            os.utime(os.path.join(folder, name), (1, 1))
    assert Changes(str(clone.root / "closed"), "HEAD").paths() == []
    _append(clone.root / KRAI_SINGLE / "user.conf", "# tuned\n")
    assert Changes(str(clone.root / "closed"), "HEAD").paths() == [KRAI_SINGLE.removeprefix("closed/") + "/user.conf"]
    done, document = _checked("closed", "--changed-since", "HEAD", cwd=clone.root)
    assert "1 changed file; checked 1 result" in done.stderr
    assert _as_whole(document, clone.before) == [
        (KRAI_SINGLE, {r.location: r.valid for r in clone.before.results}[KRAI_SINGLE])
    ]


def test_a_changed_waivers_file_or_configuration_widens_to_a_whole_check(clone: History) -> None:
    """The waivers and [tool.mlperf-check] change every verdict: changed since the ref, the
    check is whole and says why; a pyproject.toml change outside the table narrows as before."""
    repo = clone.repo
    clone.make([], committed=False)
    config = clone.root / "pyproject.toml"
    config.write_text('[tool.mlperf-check]\nround = "v6.0"\nwaivers = "waivers.yaml"\n')
    waivers = clone.root / "waivers.yaml"
    waivers.write_text("waivers: []\n")
    repo.git.add(A=True)
    repo.index.commit("configuration")
    try:
        whole = len(clone.before.results)
        done, document = _checked(".", "--changed-since", "HEAD", cwd=clone.root)
        assert len(document["results"]) == 0 and "0 changed files" in done.stderr
        waivers.write_text("waivers:\n  - code: SYS002\n    path: 'closed/*'\n    reason: agreed\n")
        done, document = _checked(".", "--changed-since", "HEAD", cwd=clone.root)
        assert len(document["results"]) == whole
        assert (
            f"--changed-since HEAD: waivers.yaml changes every verdict (waivers, [tool.mlperf-check]); "
            f"checked the whole tree: {whole} results"
        ) in done.stderr.splitlines(), done.stderr
        waivers.write_text("waivers: []\n")
        config.write_text('[project]\nname = "x"\n\n[tool.mlperf-check]\nround = "v6.0"\nwaivers = "waivers.yaml"\n')
        done, document = _checked(".", "--changed-since", "HEAD", cwd=clone.root)
        assert len(document["results"]) == 0 and "changes every verdict" not in done.stderr
        config.write_text('[tool.mlperf-check]\nround = "v6.0"\nwaivers = "waivers.yaml"\nignore = ["STR006"]\n')
        done, document = _checked(".", "--changed-since", "HEAD", cwd=clone.root)
        assert len(document["results"]) == whole and "pyproject.toml changes every verdict" in done.stderr
        done, document = _checked(str(config), cwd=clone.root)  # pre-commit passes the file: since HEAD
        assert len(document["results"]) == whole and "changes every verdict" in done.stderr
        config.write_text('[project]\nname = "x"\n\n[tool.mlperf-check]\nround = "v6.0"\nwaivers = "waivers.yaml"\n')
        done, document = _checked(str(config), cwd=clone.root)  # its table as at HEAD
        assert len(document["results"]) == 0 and "changes every verdict" not in done.stderr
    finally:
        repo.git.reset("--hard", clone.base)
        repo.git.clean("-fdxq")


def test_a_staged_deletion_is_checked_though_pre_commit_does_not_pass_it(clone: History) -> None:
    """pre-commit passes the files that stay; the results that read a deleted one are checked
    too (git's index), with the verdict a whole check gives."""
    repo = clone.repo
    clone.make([], committed=False)
    try:
        repo.git.rm(f"{KRAI_SINGLE}/measurements.json")
        (clone.root / "README.md").write_text("notes\n")
        repo.git.add("README.md")
        whole = check(str(clone.root), "v6.0", jobs=1)
        done, document = _checked("README.md", cwd=clone.root)
        assert "1 file given and 1 deleted in the git index; checked" in done.stderr, done.stderr
        narrowed = _as_whole(document, whole)
        assert (KRAI_SINGLE, False) in narrowed
    finally:
        repo.git.reset("--hard", clone.base)
        repo.git.clean("-fdxq")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    above=st.lists(st.sampled_from(["open", "closed", "network", "x", "results"]), max_size=4),
    submitter=st.sampled_from(["Krai", "open", "closed", "results"]),
    depth=st.integers(0, 5),
)
def test_the_root_of_a_path_is_the_nearest_submission_root(tmp_path: Path, above, submitter, depth) -> None:
    """Whatever folders named like divisions lie above the tree, or name its submitter, a path
    in it is read from the tree's root: the nearest folder whose division folder holds a
    submitter folder."""
    from checker.workspace import locate

    root = tmp_path.joinpath(*above, "tree")
    result = root / "closed" / submitter / "results" / "sys" / "bench" / "Offline"
    result.mkdir(parents=True, exist_ok=True)
    (root / "closed" / submitter / "systems").mkdir(exist_ok=True)
    (result / "user.conf").write_text("")
    parts = ["closed", submitter, "results", "sys", "bench", "Offline", "user.conf"][: depth + 2]
    path = root.joinpath(*parts)
    where = locate([str(path)])
    found, given = where.path, where.given
    if depth == 0 and path.is_dir():  # a submitter folder: checked whole, from its own path
        assert given is None
        return
    assert given is not None and os.path.realpath(found) == os.path.realpath(root)
    assert given.inside == ("/".join(parts),)
