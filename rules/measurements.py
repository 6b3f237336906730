"""MSR: the measurements entry of each result: the implementation description
(`measurements.json` or `<system>.json`), `user.conf` and the README."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from checker.model.views import Known
from checker.registry import Problem, rule
from checker.rounds import Round
from checker.tree import join


@rule("MSR001", "measurements-files")
def measurements_files(result: Known, round: Round) -> Iterator[Problem]:
    """The result's measurements entry has the implementation description, `user.conf` and a README.

    Why: these say how to reproduce the run: the model and weights used, the loadgen
    settings, and the commands. Endpoints results carry config.yaml instead of user.conf.
    Fix: add the file the finding names to the result's measurements folder.
    Policy: submission_rules.adoc, "Directory structure" (mandatory files); official checker
    REQUIRED_MEASURE_FILES and SYSTEM_IMP_REQUIRED_FILES.
    Example: a result without user.conf fails; an Endpoints result without one passes.
    """
    if result.implementation_path is None:
        names = result.implementation_names
        yield Problem(
            path=join(result.measurements_dir, names[0]),
            expected=names,
            message=f"no implementation description ({' or '.join(names)})",
        )
    for name in round.measurements.required_files:
        if name == "user.conf" and result.is_endpoints:
            continue
        rel = join(result.measurements_dir, name)
        if not result.reader.exists(rel):
            yield Problem(path=rel, expected=rel, message=f"{name} is missing")


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (str, list, dict)) and not str(value).strip("[]{} \t\n"))


@rule("MSR002", "implementation-fields")
def implementation_fields(result: Known, round: Round) -> Iterator[Problem]:
    """The implementation description fills in every field the round requires.

    Why: the weights used, their transformations and data types, and whether the model was
    retrained decide whether a closed result is a closed result.
    Fix: fill in the field the finding points at.
    Policy: submission_rules.adoc, "model-info" (now measurements.json); official checker
    SYSTEM_IMP_REQUIRED_FILES fields.
    Example: `"weight_data_types": ""` fails; `"fp8"` passes.
    """
    rel = result.implementation_path
    if rel is None:
        return
    data = result.reader.json(rel, what="implementation description")
    if data is None:
        return  # unreadable: the reader's finding says why
    if not isinstance(data, dict):
        yield Problem(
            path=rel,
            observed=type(data).__name__,
            expected="object",
            message="the implementation description is JSON but not an object of fields",
        )
        return
    for name in round.measurements.required_fields:
        if _empty(data.get(name)):
            state = "missing" if name not in data else "empty"
            yield Problem(path=rel, pointer=f"/{name}", expected=name, message=f"`{name}` is {state}")
