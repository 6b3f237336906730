"""One benchmark-name spelling rule (issue 32, item 4) for every folder that names a benchmark:
results/, src/, v5.1's compliance/ and measurements/, and the open division's model_mapping.json
(`Submission.benchmark_named`). A src folder spelled otherwise serves its benchmark (STR010); a
compliance or measurements folder spelled otherwise is one the round's checker never finds, so
it is one STR013, the root of every finding on the files it should hold. Property: no finding
of either on a published result of the slices whose round accepted it for that reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from checker.findings import Cause
from checker.model import discover
from checker.rounds import load_round
from checker.tree import Tree
from helpers import REAL, REAL_ROOT, copy_real_result, real_data, real_report, run

LOCATION = "closed/RedHat/results/XE8640_4xH100_vLLM/llama3.1-8b/Offline"
SYSTEM = "closed/RedHat/{tree}/XE8640_4xH100_vLLM"


@pytest.mark.parametrize(
    ("trees", "spelled"),
    [
        (("measurements",), "llama3_1-8b"),  # the round's model_mapping name for llama3.1-8b
        (("compliance",), "llama3_1-8b"),
        (("compliance", "measurements"), "Llama3.1-8B"),  # another case
    ],
)
def test_a_folder_spelled_otherwise_is_the_one_root(tmp_path: Path, trees: tuple[str, ...], spelled: str) -> None:
    real_data(REAL / LOCATION)
    copy_real_result(tmp_path, LOCATION)
    for tree in trees:
        system = tmp_path / SYSTEM.format(tree=tree)
        (system / "llama3.1-8b").rename(system / spelled)
    report = run(tmp_path, "v5.1")
    roots = [f for f in report.findings if f.code == "STR013"]
    wanted = {tree: f"{SYSTEM.format(tree=tree)}/llama3.1-8b" for tree in trees}
    assert [(f.path, f.expected, f.hint, f.cause) for f in roots] == [
        (
            f"{SYSTEM.format(tree=tree)}/{spelled}",
            wanted[tree],
            f"rename {SYSTEM.format(tree=tree)}/{spelled} to {wanted[tree]}",
            None,
        )
        for tree in trees
    ]
    inside = [f for f in report.findings if any(f.path.startswith(w + "/") for w in wanted.values())]
    assert inside, "the missing files are found"
    for finding in inside:
        tree = next(t for t, w in wanted.items() if finding.path.startswith(w + "/"))
        assert finding.cause == Cause("STR013", f"{SYSTEM.format(tree=tree)}/{spelled}", None), finding
    assert [r.valid for r in report.results] == [False]


@pytest.mark.parametrize("round_name", ["v5.1", "v6.0", "v6.1"])
def test_no_published_result_is_held_to_another_spelling(round_name: str) -> None:
    """Property over the slices: every compliance/, measurements/ and src/ folder that names a
    benchmark of its submitter's results by the spelling rule gets no STR013 and no STR010."""
    report = real_report(round_name)
    assert [f.path for f in report.findings if f.code == "STR013"] == []
    round = load_round(round_name)
    tree = Tree(str(REAL_ROOT / round_name))
    submissions = {submission.rel: submission for submission in discover(tree, round)}
    served = []
    for finding in (f for f in report.findings if f.code == "STR010"):
        rel, _, benchmark = finding.path.rpartition("/src/")
        submission = submissions[rel]
        model = submission.benchmark_named(benchmark)
        served += [name for name in tree.subdirs(f"{rel}/src") if model and submission.benchmark_named(name) == model]
    assert served == []
