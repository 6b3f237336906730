"""No verdict without a measurement (issue 33): compare on a table with no row ([], {}, a CSV
header only) and `table --first-id` below 1 are usage errors (exit 2) that name what is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import EXAMPLE, cli


@pytest.mark.parametrize(
    "text, name", [("[]", "t.json"), ("{}", "t.json"), ("Submitter,Model,Performance_Result\n", "t.csv")]
)
def test_compare_on_a_table_with_no_row_is_no_verdict(tmp_path: Path, text: str, name: str) -> None:
    table = tmp_path / name
    table.write_text(text)
    done = cli("compare", str(table))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == f"error: {table}: no result rows to compare: nothing measured there"


@pytest.mark.parametrize("first", ["-5", "0"])
def test_table_first_id_below_one_is_a_usage_error(first: str) -> None:
    done = cli("table", str(EXAMPLE), "--round", "demo-v6.1", "--publish-base", "https://x.org", "--first-id", first)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"error: --first-id {first}: give a whole number, 1 or more (the first row's ID)\n"


def test_rerun_with_a_harness_that_writes_no_log_is_no_verdict(tmp_path: Path) -> None:
    """It said "more than 2% worse" of a run that measured nothing."""
    from helpers import OFFLINE

    done = cli(
        "rerun", str(EXAMPLE / OFFLINE), "--round", "demo-v6.1", "--command", "true", "--workdir", str(tmp_path / "w")
    )
    logs = tmp_path / "w" / OFFLINE / "performance" / "run_1"
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == (
        f"error: the re-run wrote no loadgen log into {logs} ($MLPERF_CHECK_OUTPUT): nothing was measured to compare"
    )


def test_provenance_against_a_clone_without_the_seed_release_names_the_clone(tmp_path: Path) -> None:
    """It called every result `unknown-commit` and never said the clone was the cause."""
    import subprocess

    from checker.rounds import load_round

    clone = tmp_path / "inference"
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(clone),
            "-c",
            "user.name=a",
            "-c",
            "user.email=a@b",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
        check=True,
    )
    seed = load_round("demo-v6.1").seed_release.commit
    done = cli("provenance", str(EXAMPLE), "--round", "demo-v6.1", "--inference-repo", str(clone))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(
        f"error: --inference-repo {clone}: the clone does not hold round demo-v6.1's seed release {seed[:10]}"
    )
