"""The pre-commit hooks (.pre-commit-hooks.yaml): their shape, and their entry and args run as
pre-commit runs them (pre-commit joins `entry`, split as a shell would, with `args`, from the
repository's root, in a pseudo-terminal when it shows colours) in a real git repository that
holds the bundled example."""

from __future__ import annotations

import os
import pty
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from helpers import EXAMPLE, OFFLINE, ROOT, SINGLE, command_folder

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
    """A submission repository: the example at its root, committed."""
    root = tmp_path / "submission"
    shutil.copytree(EXAMPLE, root, symlinks=True)
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
        assert entry[:2] == ["mlperf-check", "check"] and "--no-progress" in entry, hook
        assert hook["args"] == ["."], "args holds only what a user replaces: the path"
        assert not any(part.startswith(("--round", "-r")) for part in entry + hook["args"]), (
            "no round: the tool detects it from the tree"
        )
        assert (hook["language"], hook["pass_filenames"], hook["always_run"]) == ("python", False, True)
    assert shlex.split(HOOKS["mlperf-check-changed"]["entry"])[2:] == ["--no-progress", "--changed-since", "HEAD"]


def test_default_args_detect_the_round(repo: Path) -> None:
    """No --round: the round is detected; the example is a demo, so real v6.1 rejects it."""
    done = _run(_hook("mlperf-check"), repo)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("round v6.1 (detected: the seeds of 2 of 2 results are v6.1's"), done.stderr
    assert f"{OFFLINE}  INVALID" in done.stdout


def test_overriding_args_keeps_the_fixed_flags(repo: Path) -> None:
    """A config's own args (a round, here the demo profile) replace only the path: the
    progress bar stays off in the pseudo-terminal pre-commit gives a hook."""
    command = _hook("mlperf-check", [".", "--round", "demo-v6.1"])
    assert "--no-progress" in command
    done = _run(command, repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{OFFLINE}  valid" in done.stdout and f"{SINGLE}  valid" in done.stdout
    assert "checking" not in _in_a_terminal(command, repo)


def test_the_progress_bar_shows_in_a_terminal_without_the_flag(repo: Path) -> None:
    """The control of the test above: without --no-progress, the bar is drawn in a terminal."""
    assert "checking" in _in_a_terminal(["mlperf-check", "check", ".", "--round", "demo-v6.1"], repo)


def test_changed_hook_checks_only_the_staged_change(repo: Path) -> None:
    done = _run(_hook("mlperf-check-changed", [".", "--round", "demo-v6.1"]), repo)
    assert done.returncode == 0, done.stderr
    assert "--changed-since HEAD: 0 changed files; checked 0 results" in done.stderr
    (repo / OFFLINE / "accuracy" / "accuracy.txt").write_text("accuracy=80.000%\nhash=00ff\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, env=_env(repo), check=True)
    done = _run(_hook("mlperf-check-changed", [".", "--round", "demo-v6.1"]), repo)
    assert done.returncode == 1, done.stderr
    assert "--changed-since HEAD: 1 changed files; checked 1 results" in done.stderr
    assert f"{OFFLINE}  INVALID" in done.stdout and SINGLE not in done.stdout
    assert "ACC002" in done.stdout


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
