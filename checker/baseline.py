"""The baseline of `report --baseline`: the JSON an earlier `check --format json` wrote, read
and validated as a core reader does, its problems the one user error (a UsageError: exit 2
on the command line), each message led by the option as the door names it."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from . import yamlsafe
from .errors import UsageError, option

MAX_BASELINE = 1 << 30  # a check JSON of a very large round is tens of MB; a GiB is not one


def _not_a_baseline(message: str) -> UsageError:
    """A --baseline file that is not the JSON of a `check`: the one user error (exit 2), its
    message led by the option, as the door names it."""
    return UsageError(f"{option('baseline')} {message}", "baseline")


# --- the baseline ---------------------------------------------------------------------------
def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


@functools.cache
def _findings_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(
        resources.files("checker.schemas").joinpath("findings.schema.json").read_text(encoding="utf-8")
    )
    return schema


def load_baseline(path: str) -> dict[str, Any]:
    """The JSON an earlier `check --format json` wrote, validated against
    schemas/findings.schema.json. a UsageError (exit 2) names the option, the file and what is wrong."""
    import jsonschema

    try:
        text = yamlsafe.read_regular(path, MAX_BASELINE, what="")
    except yamlsafe.YamlError as error:
        raise _not_a_baseline(str(error)) from None
    try:
        document: dict[str, Any] = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise _not_a_baseline(f"{path} is not JSON: {error.msg} (line {error.lineno}, column {error.colno})") from None
    except (ValueError, RecursionError) as error:
        raise _not_a_baseline(f"{path} is not strict JSON: {error}") from None
    validator = jsonschema.Draft202012Validator(_findings_schema())
    try:
        errors = sorted(validator.iter_errors(document), key=lambda e: [str(p) for p in e.absolute_path])
    except RecursionError:
        raise _not_a_baseline(f"{path} is nested too deeply to be the JSON of `mlperf-check check`") from None
    if errors:
        first = errors[0]
        where = "/" + "/".join(str(p) for p in first.absolute_path) if first.absolute_path else "the top"
        message = first.message if len(first.message) <= 200 else first.message[:197] + "..."
        raise _not_a_baseline(
            f"{path} is not the JSON of `mlperf-check check` (schemas/findings.schema.json): at {where}: {message}"
        )
    return document


def check_baseline_round(baseline: dict[str, Any], round_name: str, path: str) -> None:
    """A baseline of another round compares nothing: a UsageError names both."""
    if baseline["round"] != round_name:
        raise _not_a_baseline(
            f"{path} is a check of round {baseline['round']}, not of {round_name}; "
            "give the JSON of an earlier check of the same round"
        )
