"""followup names the benchmark a round has in place of one it dropped (issue 31, build 4):
rules/<round>.yaml `successors`, each with its source."""

from __future__ import annotations

import pytest

from checker.analysis.followup import follow_up


def _row(model: str, version: str, availability: str, result: float = 100.0) -> dict:
    return {
        "Category": "closed",
        "Submitter": "Acme",
        "Platform": "sys",
        "Model": model,
        "Scenario": "Offline",
        "Availability": availability,
        "Performance_Result": result,
        "Performance_Units": "Samples/s",
        "Accelerator": "NVIDIA H100-SXM-80GB",
        "a#": 8,
        "Nodes": 1,
        "version": version,
        "Location": f"closed/Acme/results/sys/{model}/Offline",
    }


@pytest.mark.parametrize(
    ("model", "previous", "current", "said"),
    [
        ("retinanet", "v6.0", "v6.1", "; in its place the round has yolo-95 and yolo-99 (another benchmark)"),
        ("dlrm-v2-99", "v5.1", "v6.0", "; in its place the round has dlrm-v3 (another benchmark)"),
        ("mixtral-8x7b", "v6.0", "v6.1", ", nor does the round name one in its place"),
    ],
)
def test_a_benchmark_the_round_dropped_names_its_successor(model: str, previous: str, current: str, said: str) -> None:
    from checker.rounds import load_round

    named = load_round(current).successors
    assert model not in load_round(current).models
    assert all(successor in load_round(current).models for names in named.values() for successor in names)
    report = follow_up([_row(model, previous, "preview")], [_row("resnet", current, "available")], None, current)
    assert [(o.status, o.reason) for o in report.outcomes] == [
        ("not-comparable", f"{model} is not a benchmark of round {current}{said}: nothing to follow it up with")
    ]
