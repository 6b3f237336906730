"""A rule sees the facts it declared: the type of its first parameter is a view of its
subject (checker/model/views.py) whose needs are not Optional, the registry takes the rule's
needs from it, and the engine runs the rule only when none of them is None. mypy proves the
rest: no rule dereferences a None its needs guard."""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Iterator

import pytest

from checker.engine import load_all
from checker.model import NEEDS, Result, Submission, System, views
from checker.registry import RULES, Problem, rule
from checker.rounds import Round

VIEWS = sorted(
    (
        cls
        for _, cls in inspect.getmembers(views, inspect.isclass)
        if issubclass(cls, views.View) and cls is not views.View
    ),
    key=lambda cls: cls.__name__,
)


def _declared(cls: type, name: str) -> object:
    """The type a class declares for an attribute: a property's or cached property's return."""
    for owner in cls.__mro__:
        member = owner.__dict__.get(name)
        if isinstance(member, functools.cached_property):
            return typing.get_type_hints(member.func)["return"]
        if isinstance(member, property) and member.fget is not None:
            return typing.get_type_hints(member.fget)["return"]
    raise AssertionError(f"{cls.__name__} has no attribute {name}")


@pytest.mark.parametrize("view", VIEWS, ids=lambda view: view.__name__)
def test_a_view_narrows_what_it_needs_to_its_type_without_none(view: type) -> None:
    """Each name a view annotates is an attribute of its subject typed `X | None`; the view
    says `X`. Its needs are those names (and its `requires`), all of them needs its scope
    provides."""
    subject = System if issubclass(view, System) else Result
    scope = "system" if subject is System else "result"
    for cls in view.__mro__:
        if cls.__module__ != views.__name__ or cls is views.View:
            continue
        hints = typing.get_type_hints(cls)
        for name in inspect.get_annotations(cls):
            if name in ("needs", "requires"):
                continue
            narrowed = hints[name]
            declared = _declared(subject, name)
            assert typing.get_origin(declared) in (typing.Union, types.UnionType), (view, name, declared)
            assert set(typing.get_args(declared)) == {narrowed, type(None)}, (view, name, declared)
    assert view.needs and set(view.needs) <= NEEDS[scope]
    assert list(view.needs) == sorted(view.needs, key=views.ORDER.index)


def test_every_rule_needs_what_its_view_declares() -> None:
    """The registry reads a rule's needs from the type of its first parameter, and nowhere else."""
    load_all()
    subjects = {"result": Result, "system": System, "submission": Submission}
    for code, entry in RULES.items():
        if entry.func is None:
            continue
        first = next(iter(inspect.signature(entry.func).parameters.values()))
        view = entry.func.__globals__[first.annotation]
        assert issubclass(view, subjects[entry.scope]), code
        assert entry.needs == getattr(view, "needs", ()), code


def test_views_in_use() -> None:
    """Which views the rules use, and what each needs: what `needs=` said before."""
    load_all()
    needs = {entry.needs for entry in RULES.values() if entry.func is not None}
    assert needs == {
        (),
        ("performance_log",),
        ("performance_log", "performance_summary"),
        ("performance_log", "model"),
        ("accuracy_log",),
        ("accuracy_log", "model"),
        ("accuracy_report",),
        ("accuracy_report", "model"),
        ("user_conf",),
        ("endpoints_summary",),
        ("endpoints_summary", "endpoints_config", "model"),
        ("endpoints_summary", "model"),
        ("endpoints_config",),
        ("endpoints_accuracy", "model"),
        ("model",),
        ("model", "loadgen"),
        ("model", "system_description"),
        ("system_description",),
    }


def test_a_rule_whose_subject_is_no_class_is_refused() -> None:
    """A typo in the view's name would make a rule that needs nothing: it is refused when the
    rule is defined."""
    with pytest.raises(ValueError, match=r"first parameter's type 'Mesured' is no class in its module"):

        @rule("ZZZ998", "no-view")
        def no_view(result: Mesured, round: Round) -> Iterator[Problem]:  # type: ignore[name-defined]  # noqa: F821
            yield from ()

    assert "ZZZ998" not in RULES


def test_the_engine_skips_a_rule_whose_need_is_none(example, tmp_path) -> None:
    """A Logged rule does not run where the performance log cannot be read; a Result rule
    does. The failed read is the finding (FIL001), not an internal error."""
    from helpers import run

    log = (
        example / "closed/MLCheckDemo/results/cpu-1x-numpy/demo-mlp-99/Offline/performance/run_1/mlperf_log_detail.txt"
    )
    log.unlink()
    found = {(f.code, f.path.rpartition("/")[2]) for f in run(example, select=["PRF001", "FIL001", "INT001"]).findings}
    assert found == {("FIL001", "mlperf_log_detail.txt")}
