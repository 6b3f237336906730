"""STR: the tree's names and shape, as far as one result needs them."""

from __future__ import annotations

import difflib
from typing import Iterator

from checker.model import Result
from checker.registry import Problem, rule
from checker.rounds import Round


@rule("STR001", "unknown-benchmark", scope="result")
def unknown_benchmark(result: Result, round: Round) -> Iterator[Problem]:
    """The benchmark folder names a model of the round.

    Why: a result under a name the round does not know (say `llama2-70b-98`) cannot be held
    to any accuracy target or latency limit, so none of its numbers can be checked.
    Fix: rename the folder to the round's model name; in the open division, map your name to
    the round's model in `model_mapping.json`.
    Policy: submission_rules.adoc, "Directory structure" (<benchmark>); the round's model list.
    Example: `results/sys/llama2-70b-99.9/Offline` passes in v5.1; `results/sys/llama2-70b-98/Offline`
    fails, naming `llama2-70b-99` as the closest valid name.
    """
    if result.model is not None:
        return
    names = round.models + list(round.data.get("model_mapping", {}))
    close = difflib.get_close_matches(result.benchmark, [n for n in names if n != "source"], n=1, cutoff=0.5)
    hint = f"the closest valid name is `{close[0]}`" if close else None
    where = "model_mapping.json or the round's models" if result.division == "open" else "the round's models"
    yield Problem(
        path=result.location.rsplit("/", 1)[0],
        message=f"benchmark `{result.benchmark}` is not in {where} ({round.name})"
        + (f"; {hint}" if hint else ""),
        observed=result.benchmark,
        expected=close[0] if close else None,
        hint=hint,
    )


@rule("STR002", "unknown-scenario", scope="result")
def unknown_scenario(result: Result, round: Round) -> Iterator[Problem]:
    """The scenario folder names one of the round's scenarios.

    Why: the scenario decides the metric, the latency limits and the run length; a result in
    an unknown scenario cannot be judged. Case does not matter (`offline` is Offline).
    Fix: rename the folder to Offline, Server, Interactive, SingleStream or MultiStream.
    Policy: submission_rules.adoc, "Directory structure" (<scenario>).
    Example: `.../resnet/Offline` passes; `.../resnet/Batch` fails.
    """
    if result.scenario is None:
        yield Problem(
            path=result.location,
            message=f"scenario folder `{result.scenario_folder}` is not one of {', '.join(round.scenarios)}",
            observed=result.scenario_folder,
            expected=round.scenarios,
        )
