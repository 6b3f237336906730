"""The rule registry: every finding code, its name, scope, severity and documentation.

Codes are three letters for the family and three digits. A code is never renumbered or
reused: retired codes stay in RETIRED.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from .errors import UsageError, option
from .findings import Problem as Problem  # rules import Problem from here
from .findings import Severity

CODE = re.compile(r"^[A-Z]{3}\d{3}$")
NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SCOPES = ("submission", "system", "result", "emitted")

# code -> why it was retired. Never reuse a code listed here.
RETIRED: dict[str, str] = {}

# A rule: (its subject or a view of it, the round) -> its problems.
RuleFunc = Callable[..., Iterable[Problem]]


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    scope: str
    severity: Severity
    doc: str
    func: RuleFunc | None = None
    needs: tuple[str, ...] = ()
    preview: bool = False
    sections: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def family(self) -> str:
        return self.code[:3]

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0] if self.doc.strip() else ""


RULES: dict[str, Rule] = {}


def _sections(doc: str) -> dict[str, str]:
    """The `Why:`, `Fix:`, `Policy:` paragraphs of a rule docstring."""
    found: dict[str, str] = {}
    current = None
    for line in inspect.cleandoc(doc).splitlines():
        match = re.match(r"^(Why|Fix|Policy|Example|Examples):\s*(.*)$", line)
        if match:
            current = match.group(1)
            found[current] = match.group(2)
        elif current and line.strip():
            found[current] += " " + line.strip()
        elif not line.strip():
            current = None
    return found


def _register(rule: Rule) -> None:
    if not CODE.match(rule.code):
        raise ValueError(f"rule code {rule.code!r} is not three capitals and three digits")
    if not NAME.match(rule.name):
        raise ValueError(f"rule name {rule.name!r} is not kebab-case")
    if rule.code in RETIRED:
        raise ValueError(f"rule code {rule.code} is retired and cannot be reused")
    if rule.code in RULES and RULES[rule.code].func is not rule.func:
        raise ValueError(f"rule code {rule.code} is registered twice")
    if rule.scope not in SCOPES:
        raise ValueError(f"rule scope {rule.scope!r} is not one of {SCOPES}")
    RULES[rule.code] = rule


def rule(
    code: str,
    name: str,
    scope: str = "result",
    severity: Severity = Severity.ERROR,
    preview: bool = False,
) -> Callable[[RuleFunc], RuleFunc]:
    """Register a rule function. The type of its first parameter says what it needs: a view
    of its subject (checker/model/views.py, e.g. `Measured` for a result's `performance_log`
    and `model`) whose needs are not None when it runs; when one could not be read, the rule
    is skipped, because the read failure is already a finding."""

    def decorate(func: RuleFunc) -> RuleFunc:
        doc = inspect.cleandoc(func.__doc__ or "")
        needs: tuple[str, ...] = getattr(_subject_type(func), "needs", ())  # a view's (checker.model.views)
        _register(Rule(code, name, scope, severity, doc, func, needs, preview, _sections(doc)))
        return func

    return decorate


def _subject_type(func: RuleFunc) -> type:
    """The class a rule's first parameter is annotated with, looked up where the rule is
    defined (annotations are strings there): a view, or Result, System or Submission."""
    first = func.__code__.co_varnames[0] if func.__code__.co_argcount else None
    annotation = func.__annotations__.get(first or "")
    found = func.__globals__.get(annotation) if isinstance(annotation, str) else annotation
    if not isinstance(found, type):
        raise ValueError(
            f"rule {func.__qualname__}: its first parameter's type {annotation!r} is no class in its module"
        )
    return found


def declare(code: str, name: str, doc: str, severity: Severity = Severity.ERROR) -> None:
    """Register a code that the submission model or a parser emits (a file that cannot be
    read, a malformed log line) rather than a rule function."""
    text = inspect.cleandoc(doc)
    _register(Rule(code, name, "emitted", severity, text, None, (), False, _sections(text)))


def of_code(code: str, found: Iterable[tuple[str, Problem]]) -> Iterator[Problem]:
    """The problems of `code` among (code, problem) pairs that one pass computed for several
    rules (a schema validation, a walk of the tree)."""
    return (problem for owner, problem in found if owner == code)


class SelectionError(UsageError):
    """A --select or --ignore value that is no code and no code's prefix: a typo that would
    otherwise select nothing, so that every result passes."""


def _prefix(value: str) -> str | None:
    """The code prefix a --select or --ignore value names: a code or a code's prefix (any
    case), or a rule's name (`availability-category`, as `explain` takes it); None for neither."""
    upper = value.upper()
    if any(code.startswith(upper) for code in RULES):
        return upper
    lowered = value.lower()
    return next((code for code, rule in RULES.items() if rule.name == lowered), None)


def check_codes(values: Iterable[str], option: str) -> None:
    """Raise SelectionError, naming `option` and the value, for the first value that is not a
    registered code, the prefix of one or a rule's name, with the closest code or name. The
    one check of every selection."""
    for value in values:
        if value and _prefix(value) is None:
            from .suggest import closest

            close = closest(value, [*RULES, *(rule.name for rule in RULES.values())])
            hint = f"did you mean `{close}`?" if close else "no close code or name;"
            raise SelectionError(
                f"{option} {value}: unknown code, prefix or rule name; {hint} `mlperf-check rules` lists them"
            )


def selected(select: Iterable[str] = (), ignore: Iterable[str] = ()) -> set[str]:
    """Codes chosen by --select / --ignore, each given as a full code, a prefix or a rule's
    name. A value that is none of them raises SelectionError (check_codes)."""
    select, ignore = list(select), list(ignore)
    check_codes(select, option("select"))
    check_codes(ignore, option("ignore"))
    select = [p for p in map(_prefix, filter(None, select)) if p]
    ignore = [p for p in map(_prefix, filter(None, ignore)) if p]
    chosen = set()
    for code in RULES:
        if select and not any(code.startswith(prefix) for prefix in select):
            continue
        if any(code.startswith(prefix) for prefix in ignore):
            continue
        chosen.add(code)
    return chosen
