"""The pre-commit hooks (.pre-commit-hooks.yaml): their shape, and their entry and args run as
pre-commit runs them (pre-commit joins `entry`, split as a shell would, with `args`, from the
repository's root, in a pseudo-terminal when it shows colours) in a real git repository that
holds the bundled example."""

from __future__ import annotations

import json
import os
import pty
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from checker.rounds import available_rounds, load_round
from helpers import EXAMPLE, OFFLINE, ROOT, SINGLE, SUBMISSION, command_folder

HOOKS = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
GIT = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _env(repo: Path) -> dict[str, str]:
    """The hook's environment: `mlperf-check` of this interpreter first on PATH (a shim when the
    interpreter's bin folder has none), no GitHub Actions, no colour, and an empty git
    configuration beside the repository instead of the user's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    return {
        **env,
        **GIT,
        "GIT_CONFIG_GLOBAL": str(repo.parent / "gitconfig"),
        "NO_COLOR": "1",
        "PATH": f"{command_folder()}{os.pathsep}{env.get('PATH', '')}",
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A submission repository: the example at its root, with a pre-commit configuration
    (the changed hook's path when pre-commit passes none), committed."""
    root = tmp_path / "submission"
    shutil.copytree(EXAMPLE, root, symlinks=True)
    (root / ".pre-commit-config.yaml").write_text("repos: []\n")
    (tmp_path / "gitconfig").write_text("")
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "v6.1 submission"]):
        done = subprocess.run(["git", *command], cwd=root, env=_env(root), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    return root


def _hook(hook_id: str, args: list[str] | None = None) -> list[str]:
    """The command pre-commit runs: entry split as a shell would, then args (the hook's own,
    or those a .pre-commit-config.yaml gives instead)."""
    hook = HOOKS[hook_id]
    return shlex.split(hook["entry"]) + (hook["args"] if args is None else args)


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=_env(cwd), capture_output=True, text=True, timeout=300)


def test_the_hooks_shape() -> None:
    assert set(HOOKS) == {"mlperf-check", "mlperf-check-changed"}
    for hook in HOOKS.values():
        entry = shlex.split(hook["entry"])
        assert entry[:3] == ["mlperf-check", "check", "--no-progress"], hook
        assert not any(part.startswith(("--round", "-r")) for part in entry + hook.get("args", [])), (
            "no round: the tool detects it from the tree"
        )
        assert hook["language"] == "python"
    whole, changed = HOOKS["mlperf-check"], HOOKS["mlperf-check-changed"]
    assert (whole["pass_filenames"], whole["always_run"], whole["args"]) == (False, True, ["."])
    assert (changed["pass_filenames"], changed["require_serial"], "args" in changed) == (True, True, False)
    # it runs on every commit, a deletion alone included: the config file is its path when
    # pre-commit passes none (it affects no result), and the deletions come from git's index
    assert (changed["always_run"], shlex.split(changed["entry"])[3:]) == (True, [".pre-commit-config.yaml"])


def test_the_changed_hooks_files_are_those_of_every_rounds_divisions() -> None:
    """The hook runs on the files of a submitter folder, in every round this version knows."""
    pattern = re.compile(HOOKS["mlperf-check-changed"]["files"])
    divisions = {d for name in available_rounds() for d in load_round(name).divisions}
    for division in divisions:
        for path in (f"{division}/Acme/systems/a.json", f"submission/{division}/Acme/results/s/b/Offline/x"):
            assert pattern.search(path), path
    for path in ("README.md", ".github/workflows/ci.yml", "docs/closed.md", "enclosed/Acme/x", "closed/README.md"):
        assert not pattern.search(path), path
    # [tool.mlperf-check] sets every verdict: a changed one widens the check to the whole tree
    assert pattern.search("pyproject.toml") and pattern.search("submission/pyproject.toml")
    assert not pattern.search("pyproject.toml.bak")


@pytest.mark.slow
def test_default_args_detect_the_round(repo: Path) -> None:
    """No --round: the round is detected; the example is a demo, so real v6.1 rejects it."""
    done = _run(_hook("mlperf-check"), repo)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("round v6.1 (detected: the seeds of 2 of 2 results are v6.1's"), done.stderr
    assert f"{OFFLINE}  INVALID" in done.stdout


@pytest.mark.slow
def test_overriding_args_keeps_the_fixed_flags(repo: Path) -> None:
    """A config's own args (a round, here the demo profile) replace only the path: the
    progress bar stays off in the pseudo-terminal pre-commit gives a hook."""
    command = _hook("mlperf-check", [".", "--round", "demo-v6.1"])
    assert "--no-progress" in command
    done = _run(command, repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.endswith("2 results, 2 valid, 0 invalid; 0 errors, 0 warnings, 0 notes\n")
    assert "checking" not in _in_a_terminal(command, repo)


@pytest.mark.slow
def test_the_progress_bar_shows_in_a_terminal_without_the_flag(repo: Path) -> None:
    """The control of the test above: without --no-progress, the bar is drawn in a terminal."""
    assert "checking" in _in_a_terminal(["mlperf-check", "check", ".", "--round", "demo-v6.1"], repo)


@pytest.mark.slow
def test_changed_hook_checks_the_results_of_the_files_given(repo: Path) -> None:
    """What pre-commit runs: entry, the config's args, then the staged files."""
    accuracy = f"{OFFLINE}/accuracy/accuracy.txt"
    (repo / accuracy).write_text("accuracy=80.000%\nhash=00ff\n")
    done = _run(_hook("mlperf-check-changed", ["--round", "demo-v6.1"]) + [accuracy], repo)
    assert done.returncode == 1, done.stderr
    assert "2 files given; checked 2 results" in done.stderr  # a file that may be new: its benchmark's results
    assert f"{OFFLINE}  INVALID" in done.stdout and f"{SINGLE}  INVALID" not in done.stdout
    assert "2 results, 1 valid, 1 invalid; 1 error" in done.stdout
    assert "ACC002" in done.stdout
    (repo / "pyproject.toml").write_text('[tool.mlperf-check]\nround = "demo-v6.1"\n')
    done = _run(_hook("mlperf-check-changed", ["--round", "demo-v6.1"]) + ["pyproject.toml"], repo)
    assert done.returncode == 1, done.stderr
    assert "changes every verdict (waivers, [tool.mlperf-check]); checked the whole tree: 2 results" in done.stderr
    (repo / "pyproject.toml").unlink()
    (repo / "README.md").write_text("Our submission\n")
    done = _run(_hook("mlperf-check-changed", ["--round", "demo-v6.1"]) + ["README.md"], repo)
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == (
        "2 files given; checked 0 results; .pre-commit-config.yaml, README.md lie in no <division>/<submitter> "
        "folder and affect no result\n"
    )


# --- the real pre-commit, on a repository made here -------------------------------------------
@pytest.fixture
def committing(repo: Path, tmp_path: Path) -> Path:
    """The example's repository with pre-commit installed: its config runs the hooks of
    .pre-commit-hooks.yaml as a local repository (language `unsupported`: the mlperf-check
    on PATH, no environment to build), with the demo profile as the user's args."""
    hooks = []
    for hook in HOOKS.values():
        local = {**hook, "language": "unsupported"}
        local["args"] = ([".", "--round", "demo-v6.1"]) if hook["id"] == "mlperf-check" else ["--round", "demo-v6.1"]
        local["stages"] = ["pre-commit", "manual"]
        hooks.append(local)
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]}))
    _git(repo, "add", ".pre-commit-config.yaml")
    _git(repo, "commit", "-q", "-m", "pre-commit")
    done = _pre_commit(repo, "install")
    assert done.returncode == 0, done.stdout + done.stderr
    return repo


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(["git", *args], cwd=repo, env=_env(repo), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _pre_commit_env(repo: Path) -> dict[str, str]:
    return {**_env(repo), "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}


def _pre_commit(repo: Path, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "pre_commit", *args]
    return subprocess.run(command, cwd=repo, env=_pre_commit_env(repo), capture_output=True, text=True, timeout=300)


def _commit(repo: Path, message: str) -> subprocess.CompletedProcess:
    """`git commit`, which runs the installed hooks (their output is on git's stderr)."""
    command = ["git", "commit", "-m", message]
    return subprocess.run(command, cwd=repo, env=_pre_commit_env(repo), capture_output=True, text=True, timeout=300)


def _outcome(output: str, name: str) -> str:
    """pre-commit's word for one hook: Passed, Failed or Skipped."""
    line = next(line for line in output.splitlines() if line.startswith(name))
    return line.rsplit(".", 1)[-1].split(")")[-1].strip()


CHANGED = HOOKS["mlperf-check-changed"]["name"]
WHOLE = HOOKS["mlperf-check"]["name"]


@pytest.mark.slow
def test_pre_commit_all_files_checks_every_result(committing: Path) -> None:
    done = _pre_commit(committing, "run", "mlperf-check-changed", "--all-files", "--verbose")
    assert done.returncode == 0, done.stdout
    assert _outcome(done.stdout, CHANGED) == "Passed"
    assert "files given; checked 2 results" in done.stdout
    assert "2 results, 2 valid, 0 invalid; 0 errors, 0 warnings, 0 notes" in done.stdout


@pytest.mark.slow
def test_pre_commit_blocks_a_commit_that_breaks_a_result(committing: Path) -> None:
    """A staged system description without host_processor_model_name: every result of the
    system is judged invalid, by both hooks, and the commit is refused."""
    description = committing / SUBMISSION / "systems" / "cpu-1x-numpy.json"
    data = json.loads(description.read_text())
    del data["host_processor_model_name"]
    description.write_text(json.dumps(data, indent=2))
    _git(committing, "add", "-A")
    done = _commit(committing, "new system description")
    assert done.returncode == 1, done.stdout + done.stderr
    assert _outcome(done.stderr, CHANGED) == "Failed" and _outcome(done.stderr, WHOLE) == "Failed"
    assert "2 files given; checked 2 results" in done.stderr
    assert f"{OFFLINE}  INVALID" in done.stderr and f"{SINGLE}  INVALID" in done.stderr
    assert "SYS001" in done.stderr


@pytest.mark.slow
def test_pre_commit_lets_a_valid_change_through(committing: Path) -> None:
    conf = committing / OFFLINE / "user.conf"
    conf.write_text(conf.read_text() + "# tuned again\n")
    _git(committing, "add", "-A")
    done = _commit(committing, "user.conf")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _outcome(done.stderr, CHANGED) == "Passed" and _outcome(done.stderr, WHOLE) == "Passed"
    assert _git(committing, "log", "-1", "--format=%s").stdout == "user.conf\n"


@pytest.mark.slow
def test_pre_commit_skips_a_commit_outside_the_submitter_folders(committing: Path) -> None:
    (committing / "README.md").write_text("Our submission\n")
    (committing / "closed" / "README.md").write_text("Our closed results\n")
    _git(committing, "add", "README.md", "closed/README.md")
    done = _pre_commit(committing, "run")
    assert done.returncode == 0, done.stdout
    # it runs on every commit (a deletion alone must be seen): here it checks no result
    assert _outcome(done.stdout, CHANGED) == "Passed"
    assert _outcome(done.stdout, WHOLE) == "Passed"


def _in_a_terminal(command: list[str], cwd: Path) -> str:
    """What `command` writes to a pseudo-terminal, as pre-commit runs a hook in colour."""
    env = {k: v for k, v in _env(cwd).items() if k != "NO_COLOR"}
    primary, secondary = pty.openpty()
    try:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env={**env, "TERM": "xterm", "COLUMNS": "100"},
            stdin=secondary,
            stdout=secondary,
            stderr=secondary,
        )
    finally:
        os.close(secondary)
    chunks = []
    try:
        while True:  # read as it writes, so that a full terminal buffer never blocks it
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # EIO: the other end is closed and everything was read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(primary)
        assert process.wait(timeout=300) in (0, 1)
    return b"".join(chunks).decode(errors="replace")


@pytest.mark.slow
def test_pre_commit_checks_the_results_of_a_staged_deletion(committing: Path) -> None:
    """pre-commit passes the files that stay, never a deleted one: a commit that deletes
    another submitter's measurements.json, beside a change that runs the hook, still checks
    the result that read it (from git's index), and refuses the commit as a whole check would."""
    other = committing / "closed" / "OtherCo"
    shutil.copytree(committing / SUBMISSION, other, symlinks=True)
    description = other / "systems" / "cpu-1x-numpy.json"
    description.write_text(description.read_text().replace('"MLCheckDemo"', '"OtherCo"'))
    _git(committing, "add", "-A")
    _git(committing, "commit", "-q", "--no-verify", "-m", "a second submitter")
    deleted = OFFLINE.replace(SUBMISSION, "closed/OtherCo") + "/measurements.json"
    _git(committing, "rm", "-q", deleted)
    conf = committing / SINGLE / "user.conf"
    conf.write_text(conf.read_text() + "# tuned again\n")
    _git(committing, "add", "-A")
    done = _commit(committing, "drop a measurements file")
    assert done.returncode == 1, done.stdout + done.stderr
    assert _outcome(done.stderr, CHANGED) == "Failed"
    assert "2 files given and 1 deleted in the git index; checked 4 results" in done.stderr
    assert f"{OFFLINE.replace(SUBMISSION, 'closed/OtherCo')}  INVALID" in done.stderr


@pytest.mark.slow
def test_pre_commit_refuses_a_commit_that_only_deletes_a_required_file(committing: Path) -> None:
    """A commit whose only change is a deleted accuracy.txt: pre-commit passes no file, and the
    changed hook still runs, reads the deletion from git's index and refuses the commit."""
    _git(committing, "rm", "-q", f"{OFFLINE}/accuracy/accuracy.txt")
    done = _commit(committing, "drop an accuracy report")
    assert done.returncode == 1, done.stdout + done.stderr
    assert _outcome(done.stderr, CHANGED) == "Failed"
    assert "1 file given and 1 deleted in the git index; checked 2 results" in done.stderr
    assert f"{OFFLINE}  INVALID" in done.stderr and "FIL001" in done.stderr
