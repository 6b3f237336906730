"""What a rule sees: a view of its subject whose artefacts it cannot run without are not None.

A rule states what it needs by the type of its first parameter:

    @rule("PRF002", "server-latency-within-target")
    def server_latency_within_target(result: Measured, round: Round) -> Iterator[Problem]:
        result.performance_log.get(...)  # a LoadgenLog, not LoadgenLog | None

`Measured` is a `Result` whose `performance_log` is a LoadgenLog and whose `model` is a
str. The registry reads the view's needs (`needs_of`: the names its classes annotate, and
`requires` for a need that narrows no attribute); the engine reads each need of the
subject and skips the rule when one is None, since the failed read is already a finding.
Only then does it call the rule, with the subject itself: a view is a refinement of
`Result` (or `System`) for the type checker, so mypy proves that no rule dereferences a
None its needs guard, and no object is made for it.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

from ..parsers.accuracy import AccuracyReport
from ..parsers.endpoints import EndpointsAccuracy, EndpointsConfig, EndpointsSummary
from ..parsers.mllog import LoadgenLog
from ..parsers.text import Summary
from .result import Result
from .submission import Submission, System

# What a result may need, in the order the needs are read: its files first, so that a rule
# that needs a file and the model reads the file (and reports it unreadable) even for a
# result of no model of the round. Each is None when it could not be read (or, for `model`
# and `loadgen`, when the result is of no model of the round or no loadgen run).
ORDER = (
    "performance_log",
    "performance_summary",
    "accuracy_log",
    "accuracy_report",
    "user_conf",
    "endpoints_summary",
    "endpoints_config",
    "endpoints_accuracy",
    "model",
    "loadgen",
    "system_description",
)
# The round fact without which a need is never there: a result has Endpoints files only in
# a round with Endpoints facts (Round.endpoints); a rule that needs one applies in no other
# round (`rules --round` leaves it out).
ROUND_FACT: dict[str, str] = {
    "endpoints_summary": "endpoints",
    "endpoints_config": "endpoints",
    "endpoints_accuracy": "endpoints",
}
# What a view may need, per scope.
NEEDS: dict[str, frozenset[str]] = {
    "result": frozenset(ORDER),
    "system": frozenset({"system_description"}),
    "submission": frozenset(),
}


def needs_of(view: type) -> tuple[str, ...]:
    """The needs of a view, in ORDER: the names its own classes annotate (a system's
    `description` is its `system_description`), and their `requires`."""
    names: set[str] = set()
    for cls in view.__mro__:
        if cls.__module__ == __name__:
            names.update("system_description" if n == "description" else n for n in inspect.get_annotations(cls))
            names.update(cls.__dict__.get("requires", ()))
    names -= {"requires", "needs"}
    return tuple(sorted(names, key=lambda name: ORDER.index(name) if name in ORDER else len(ORDER)))


class View:
    """What makes a subclass of Result or System a view: it learns its `needs`, which the
    registry reads (a Result, System or Submission itself needs nothing)."""

    needs: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.needs = needs_of(cls)


def provided(subject: object, need: str) -> object | None:
    """A need of a subject, read: None when it could not be (the rule is then skipped)."""
    if isinstance(subject, Result):
        if need == "system_description":
            return subject.system.description
        if need == "loadgen":  # rules of loadgen runs; Endpoints results have their own (EPT)
            return None if subject.is_endpoints else True
        value: object = getattr(subject, need)
        return value
    if isinstance(subject, System) and need == "system_description":
        return subject.description
    if isinstance(subject, Submission):
        return True
    raise ValueError(f"a {type(subject).__name__} provides no {need}")


# --- results ------------------------------------------------------------------------------
class Known(Result, View):
    """A result of a model of the round."""

    model: str


class LoadgenRun(Known):
    """A loadgen result (not an Endpoints one) of a model of the round."""

    requires: ClassVar[tuple[str, ...]] = ("loadgen",)


class Categorised(Known):
    """A result of a model of the round, on a system whose description could be read."""

    requires: ClassVar[tuple[str, ...]] = ("system_description",)


class Logged(Result, View):
    """A result whose performance detail log could be read."""

    performance_log: LoadgenLog


class Measured(Known, Logged):
    """A result of a model of the round, with its performance detail log."""


class Summarised(Logged):
    """A result with its performance detail log and its summary."""

    performance_summary: Summary


class AccuracyRun(Result, View):
    """A result whose accuracy detail log could be read."""

    accuracy_log: LoadgenLog


class KnownAccuracyRun(Known, AccuracyRun):
    """A result of a model of the round, with its accuracy detail log."""


class Reported(Result, View):
    """A result whose accuracy.txt could be read."""

    accuracy_report: AccuracyReport


class Scored(Known, Reported):
    """A result of a model of the round, with its accuracy.txt."""


class Configured(Result, View):
    """A result whose user.conf could be read."""

    user_conf: dict[str, str]


class EndpointsRun(Result, View):
    """An Endpoints result whose result_summary.json could be read."""

    endpoints_summary: EndpointsSummary


class KnownEndpointsRun(Known, EndpointsRun):
    """An Endpoints result of a model of the round, with its result_summary.json."""


class EndpointsConfigured(Result, View):
    """An Endpoints result whose config.yaml could be read."""

    endpoints_config: EndpointsConfig


class EndpointsTimed(KnownEndpointsRun, EndpointsConfigured):
    """An Endpoints result of a model of the round, with its summary and its config.yaml."""


class EndpointsScored(Known):
    """An Endpoints result of a model of the round, with its accuracy_results.json."""

    endpoints_accuracy: EndpointsAccuracy


# --- systems ------------------------------------------------------------------------------
class Described(System, View):
    """A system whose description could be read, as a JSON object."""

    description: dict[str, Any]
