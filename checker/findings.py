"""What a check produces: the Problem a rule yields, the Finding the engine makes of it, one
ResultRecord per result, and the Report that holds them all.

The one rule of validity lives here too (`Applying`): a finding applies to a result when it is
on the result itself, or, being about no one result, on the result's system description or
submitter folder, or on a folder that holds the result or lies in it (`concerns`); a result is
invalid when an un-waived error applies to it. The engine judges by it and every reporter names
the causes, and counts the results a finding affects, by it, so none of them can disagree."""

from __future__ import annotations

import datetime
import enum
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from .rounds import Round


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "note": 2}[self.value]


@dataclass(frozen=True)
class Cause:
    """The finding another follows from: its code and path (and pointer, when it has one).

    A finding with a cause is a consequence: the check could not see what the rule looks for
    because of its cause (a file unreadable or cut short, a value malformed, a system type the
    round does not know), so it has no fix of its own: fixing the cause fixes it or lets it
    be judged."""

    code: str
    path: str
    pointer: str | None = None

    @classmethod
    def of(cls, finding: Finding) -> Cause:
        return cls(finding.code, finding.path, finding.pointer)

    @property
    def text(self) -> str:
        """`follows from LOG001 at closed/A/.../mlperf_log_detail.txt`: what every format says."""
        return f"follows from {self.code} at {self.path}"

    def to_dict(self) -> dict[str, str]:
        return {key: value for key, value in asdict(self).items() if value is not None}


@dataclass(frozen=True)
class Finding:
    """What a rule saw, where, and what it expected.

    `path` is relative to the checked root, POSIX style. `location` is the result folder the
    finding belongs to, or "" for findings about a submission or system as a whole.
    """

    code: str
    severity: Severity
    path: str
    message: str
    location: str = ""
    pointer: str | None = None
    observed: Any = None
    expected: Any = None
    hint: str | None = None
    name: str = ""
    waived: str | None = None
    # 1-based line and column in `path` of what the finding is about (the MLLOG record of a
    # key, a JSON pointer's member, a YAML key), when the file is text and the place is known.
    line: int | None = None
    column: int | None = None
    # The finding this one follows from (a consequence has no fix of its own); None for a root.
    cause: Cause | None = None
    # The system or submission folder a finding is about when it is not about one result;
    # every result of that system or submission depends on it. Not part of the output.
    subject: str = field(default="", compare=False)
    # Narrower than `subject`: the folders whose results the finding concerns (Problem.concerns).
    concerns: tuple[str, ...] | None = field(default=None, compare=False)

    def sort_key(self) -> tuple[str, str, str, str, str]:
        return (self.location, self.path, self.code, self.pointer or "", self.message)

    def with_(self, **changes: Any) -> Finding:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["severity"] = self.severity.value
        data.pop("subject")
        data.pop("concerns")
        if self.cause is not None:
            data["cause"] = self.cause.to_dict()
        return {key: value for key, value in data.items() if value is not None}


@dataclass(frozen=True)
class Problem:
    """What a rule yields; the engine adds the code, name, severity and location."""

    path: str
    message: str
    pointer: str | None = None
    observed: Any = None
    expected: Any = None
    hint: str | None = None
    severity: Severity | None = None  # overrides the rule's default when set
    # Where in `path` the value the rule read is (1-based), when the reader that read it
    # knows (an accuracy match's line and column): carried as is, never searched for again.
    line: int | None = None
    column: int | None = None
    # For a system or submission rule: the folders whose results the finding concerns, each
    # one holding them or lying inside one (an empty `accuracy/` concerns its result; an
    # empty benchmark folder, none), when that is narrower than the rule's subject; () for no
    # result at all. None: every result of the system or submission.
    concerns: tuple[str, ...] | None = None
    # The finding this one follows from, when the rule knows it (STR003 on a system type
    # the round does not know follows from SYS008); `follow` finds the others.
    cause: Cause | None = None


@dataclass
class ResultRecord:
    location: str
    division: str
    submitter: str
    system: str
    benchmark: str
    scenario: str
    model: str | None
    system_key: str
    submission_key: str
    metric: dict[str, Any] | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    valid: bool = True
    # What the check's `collect` hook gathered for this result (a command's own facts,
    # e.g. the published-table row of checker/commands/table.py); None without a hook.
    collected: Any = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "location": self.location,
            "division": self.division,
            "submitter": self.submitter,
            "system": self.system,
            "benchmark": self.benchmark,
            "scenario": self.scenario,
            "model": self.model,
            "valid": self.valid,
        }
        if self.metric is not None:
            data["metric"] = self.metric
        data.update(self.facts)
        return data


# A rule that crashed (its internal-error finding): the result it judged has no verdict, so it
# is never valid, whatever a waiver, a round's severity or --exit-zero says.
UNWAIVABLE = "INT001"


def invalidates(finding: Finding) -> bool:
    """An un-waived error, or a rule that crashed: what makes every result it applies to invalid."""
    return finding.code == UNWAIVABLE or (finding.severity is Severity.ERROR and not finding.waived)


# Read failures that leave nothing of a file read: every other finding on that file follows
# from one, and so does any finding on a file beside it (the run's other log) about a value
# it could not compare.
UNREAD = frozenset(
    ("FIL002", "FIL003", "FIL004", "FIL005", "FIL006", "FIL007", "FIL008", "FIL009", "FIL010", "FIL011")
) | frozenset(("LOG002", "LOG003"))
# A file read in part (a loadgen log cut short, a line malformed), or a log of another run
# than its folder's (an AccuracyOnly log in performance/, PRF011: it holds no verdict and no
# metric): what was read stands, so only a finding about a value never read follows from it.
PARTLY_READ = frozenset(("LOG001", "PRF011"))
# A result folder the round does not know (its benchmark or its scenario): no other finding
# on that result can be judged as the round's, so each follows from it.
NO_RESULT = frozenset(("STR001", "STR002"))
# A folder of a result's that the round's checker does not find because it spells the
# benchmark otherwise (STR013, its `expected` the folder looked for): every finding on a file
# in the folder looked for follows from it.
SPELLED = frozenset(("STR013",))
# Root codes: a finding of one of these is never a consequence of a read failure. (PRF011
# may be one: a log cut before its test mode names none.)
ROOTS = UNREAD | frozenset(("LOG001",)) | NO_RESULT | SPELLED | frozenset(("FIL001", "FIL012", "INT001"))
CANDIDATES = UNREAD | PARTLY_READ | NO_RESULT | SPELLED | frozenset(("FIL012",))  # what a finding may follow from


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


def _never_read(finding: Finding) -> bool:
    """A finding about a value its rule never got (the key absent): `observed` or `expected`
    is None, or `observed` is a set of values (keys -> values) that holds a None."""
    observed = finding.observed
    return observed is None or finding.expected is None or (isinstance(observed, dict) and None in observed.values())


def follow(findings: list[Finding]) -> list[Finding]:
    """`findings` with each consequence of a read failure given its `cause`: a finding on the
    same result (or the same system or submission) and on a file that could not be read
    (`UNREAD`), or about a value never read (`_never_read`) of a file read in part or of a
    file beside an unread one; a finding on the pointer of a malformed value (FIL012); any
    other finding on a result folder the round does not know (`NO_RESULT`).
    A cause a rule gave stays; a root code (`ROOTS`) is a consequence only of a folder that is
    no result (a file missing from `r1/`, which is no scenario, follows from its STR002).
    Order is kept."""
    candidates = [f for f in findings if f.code in CANDIDATES]
    if not candidates:
        return findings
    # a candidate that is no root code (PRF011) is a root only when it follows from none
    followed = {id(f) for f in candidates if f.code not in ROOTS and _cause(f, candidates) is not None}
    roots: dict[str, list[Finding]] = defaultdict(list)
    for finding in candidates:
        if id(finding) not in followed and finding.cause is None:
            roots[_whose(finding)].append(finding)
    linked = []
    for finding in findings:
        if finding.cause is None and finding.code not in NO_RESULT:
            # a root code (a missing or unreadable file) follows only from a folder that is no result
            cause = next(
                (
                    r
                    for r in roots.get(_whose(finding), ())
                    if r is not finding and (finding.code not in ROOTS or r.code in NO_RESULT) and _follows(finding, r)
                ),
                None,
            )
            if cause is not None:
                finding = replace(finding, cause=Cause.of(cause), hint=None)
        linked.append(finding)
    return linked


def _cause(finding: Finding, candidates: list[Finding]) -> Finding | None:
    """The root-code candidate `finding` follows from, if any."""
    whose = _whose(finding)
    return next(
        (r for r in candidates if r is not finding and r.code in ROOTS and _whose(r) == whose and _follows(finding, r)),
        None,
    )


def _whose(finding: Finding) -> str:
    """The result a finding is on, else the system or submission it is about."""
    return finding.location or f"subject:{finding.subject}"


def _follows(finding: Finding, root: Finding) -> bool:
    if root.code == "FIL012":
        return finding.path == root.path and finding.pointer == root.pointer
    if root.code in NO_RESULT:
        return bool(finding.location)
    if root.code in SPELLED:
        return isinstance(root.expected, str) and finding.path.startswith(root.expected + "/")
    if finding.path == root.path:
        return root.code in UNREAD or _never_read(finding)
    return _folder(finding.path) == _folder(root.path) and _never_read(finding)


def _ancestors(path: str) -> Iterator[str]:
    """`path` and every folder above it, nearest first."""
    while path:
        yield path
        path = path.rpartition("/")[0]


class Applying:
    """Which findings apply to which results.

    A finding with a `location` applies to that result. One with `concerns` applies to every
    result whose folder is one of them, lies under one, or holds one. Any other applies to
    every result whose system (`ResultRecord.system_key`) or submission (`submission_key`) is
    its `subject`. Findings are kept as their positions in the list given, in its order."""

    def __init__(self, results: Iterable[ResultRecord], findings: list[Finding]) -> None:
        self.findings = findings
        self.results = list(results)
        self._index = {id(record): i for i, record in enumerate(self.results)}
        self._on_location: dict[str, list[int]] = defaultdict(list)
        self._on_subject: dict[str, list[int]] = defaultdict(list)
        self._on_folder: dict[str, list[int]] = defaultdict(list)  # a concerned folder -> positions
        self._by_location: dict[str, list[ResultRecord]] = defaultdict(list)
        self._by_key: dict[str, list[ResultRecord]] = defaultdict(list)
        self._at_or_under: dict[str, list[ResultRecord]] = defaultdict(list)  # folder -> results in it
        for record in self.results:
            self._by_location[record.location].append(record)
            self._by_key[record.system_key].append(record)
            if record.submission_key != record.system_key:
                self._by_key[record.submission_key].append(record)
            for folder in _ancestors(record.location):
                self._at_or_under[folder].append(record)
        self._inside: dict[str, list[int]] = defaultdict(list)  # a result's location -> positions
        for index, finding in enumerate(findings):
            if finding.location:
                self._on_location[finding.location].append(index)
            elif finding.concerns is not None:
                for folder in finding.concerns:
                    self._on_folder[folder].append(index)
                    for above in list(_ancestors(folder))[1:]:
                        if above in self._by_location:
                            self._inside[above].append(index)
            elif finding.subject:
                self._on_subject[finding.subject].append(index)

    def positions(self, record: ResultRecord) -> list[int]:
        """The positions of every finding that applies to `record`, in list order."""
        keys = dict.fromkeys((record.system_key, record.submission_key))
        found = {
            *self._on_location.get(record.location, ()),
            *(i for key in keys for i in self._on_subject.get(key, ())),
            *(i for folder in _ancestors(record.location) for i in self._on_folder.get(folder, ())),
            *self._inside.get(record.location, ()),
        }
        return sorted(found)

    def of(self, record: ResultRecord) -> list[Finding]:
        """Every finding that applies to `record`, in list order."""
        return [self.findings[i] for i in self.positions(record)]

    def cause_positions(self, record: ResultRecord) -> list[int]:
        return [i for i in self.positions(record) if invalidates(self.findings[i])]

    def causes(self, record: ResultRecord) -> list[Finding]:
        """The findings that make `record` invalid: the un-waived errors that apply to it."""
        return [self.findings[i] for i in self.cause_positions(record)]

    def affected(self, finding: Finding) -> list[ResultRecord]:
        """The results `finding` applies to, in the order of the results given."""
        if finding.location:
            return list(self._by_location.get(finding.location, ()))
        if finding.concerns is not None:
            chosen = {
                self._index[id(record)]: record
                for folder in finding.concerns
                for record in (
                    *self._at_or_under.get(folder, ()),
                    *(r for above in list(_ancestors(folder))[1:] for r in self._by_location.get(above, ())),
                )
            }
            return [chosen[i] for i in sorted(chosen)]
        return list(self._by_key.get(finding.subject, ())) if finding.subject else []


def judge(results: list[ResultRecord], findings: list[Finding]) -> None:
    """Set each result's `valid`: no un-waived error applies to it (`Applying`)."""
    applying = Applying(results, findings)
    for result in results:
        result.valid = not applying.cause_positions(result)


@dataclass
class Report:
    round: Round
    root: str
    results: list[ResultRecord]
    findings: list[Finding]
    # When the check started (UTC) and how long it took, in seconds; None when not measured.
    # The engine sets both; JUnit and SARIF write them (tests fix them for snapshots).
    checked_at: datetime.datetime | None = None
    elapsed: float | None = None
    # Seconds spent checking each submission (its key, `division/submitter`), in the workers:
    # the JUnit time of its test suite.
    seconds: dict[str, float] = field(default_factory=dict)
    # Seconds by phase (checker/phases.py): the check's own (listing, running units, merging)
    # and its units' summed over the workers (rules, detail logs, other files, tree).
    phases: dict[str, float] = field(default_factory=dict)
    _applying: tuple[tuple[int, int, int, int], Applying] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def applying(self) -> Applying:
        """The index of which findings apply to which results, built once for these lists."""
        key = (id(self.results), len(self.results), id(self.findings), len(self.findings))
        if self._applying is None or self._applying[0] != key:
            self._applying = (key, Applying(self.results, self.findings))
        return self._applying[1]

    def causes(self, record: ResultRecord) -> list[Finding]:
        """The findings that make `record` invalid (empty for a valid result): those on the
        result, its system description or its submitter folder, by the rule that judged it."""
        return self.applying().causes(record)

    def affected(self, finding: Finding) -> list[ResultRecord]:
        """The results `finding` applies to."""
        return self.applying().affected(finding)

    def counts(self) -> dict[str, int]:
        """{severity: count} of the findings, each distinct one once however many results it
        affects, waived ones aside (`Distinct`): the one count of every format."""
        return shown_counts(Distinct(self).all)

    @property
    def has_errors(self) -> bool:
        return any(invalidates(f) for f in self.findings)


# --- findings as people read them: each distinct finding once ------------------------------
Identity: TypeAlias = "tuple[str, Severity, str, str | None, str, str | None]"


def identity(finding: Finding) -> Identity:
    """What makes two findings the same to a reader: all but the result they are on."""
    return (finding.code, finding.severity, finding.path, finding.pointer, finding.message, finding.waived)


def affects(count: int) -> str:
    """ " (affects 3 results)": the suffix of a finding shown once for several results."""
    return f" (affects {count} result{'' if count == 1 else 's'})" if count else ""


@dataclass(frozen=True)
class Shown:
    """A distinct finding: the first of its kind, and how many results it applies to."""

    finding: Finding
    affects: int
    shared: bool  # about a system or a submission, or the same finding on several results

    @property
    def suffix(self) -> str:
        """ " (affects 3 results)" for a shared finding; "" for a result's own."""
        return affects(self.affects) if self.shared else ""


def shown_counts(shown: Iterable[Shown]) -> dict[str, int]:
    """{severity: count} of the findings shown, each once however many results it affects,
    waived ones aside: the one count rule of every summary people read."""
    counts = {"error": 0, "warning": 0, "note": 0}
    for one in shown:
        if not one.finding.waived:
            counts[one.finding.severity.value] += 1
    return counts


class Distinct:
    """The findings of a report, each distinct one once.

    A finding about a system or a submission (no `location`), and a finding that is the same
    (`identity`) on several results (a submitter's code folder that each of its results needs),
    is *shared*: shown once, with the number of results it applies to, where the report lists
    what is about systems and submissions. Every other finding belongs to its one result."""

    def __init__(self, report: Report) -> None:
        self.report = report
        locations: dict[Identity, set[str]] = {}
        for finding in report.findings:
            if finding.location:
                locations.setdefault(identity(finding), set()).add(finding.location)
        self._repeated = {key: len(where) for key, where in locations.items() if len(where) > 1}
        self.all: list[Shown] = []
        self.own: dict[str, list[Finding]] = {}
        seen: set[Identity] = set()
        for finding in report.findings:
            key = identity(finding)
            shared = not finding.location or key in self._repeated
            if shared and key in seen:
                continue
            seen.add(key)
            count = self._repeated.get(key) or len(report.affected(finding))
            self.all.append(Shown(finding, count, shared))
            if not shared:
                self.own.setdefault(finding.location, []).append(finding)

    @property
    def shared(self) -> list[Shown]:
        """The shared findings, in report order (those about no one result first)."""
        return [shown for shown in self.all if shown.shared]

    def is_shared(self, finding: Finding) -> bool:
        return not finding.location or identity(finding) in self._repeated

    def causes(self, record: ResultRecord) -> tuple[list[Finding], list[Finding]]:
        """What makes `record` invalid: (its own findings, the shared ones), each in report order."""
        causes = self.report.causes(record)
        return [f for f in causes if not self.is_shared(f)], [f for f in causes if self.is_shared(f)]
