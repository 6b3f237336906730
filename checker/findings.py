"""What a check produces: the Problem a rule yields, the Finding the engine makes of it, one
ResultRecord per result, and the Report that holds them all.

The one rule of validity lives here too (`Applying`): a finding applies to a result when it is
on the result itself, or, being about no one result, on the result's system description or
submitter folder; a result is invalid when an un-waived error applies to it. The engine judges
by it and every reporter names the causes by it, so the two cannot disagree."""

from __future__ import annotations

import datetime
import enum
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .rounds import Round


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "note": 2}[self.value]


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
    # The system or submission folder a finding is about when it is not about one result;
    # every result of that system or submission depends on it. Not part of the output.
    subject: str = field(default="", compare=False)

    def sort_key(self) -> tuple:
        return (self.location, self.path, self.code, self.pointer or "", self.message)

    def with_(self, **changes: Any) -> Finding:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["severity"] = self.severity.value
        data.pop("subject")
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
        data = {
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


def invalidates(finding: Finding) -> bool:
    """An un-waived error: what makes every result it applies to invalid."""
    return finding.severity is Severity.ERROR and not finding.waived


class Applying:
    """Which findings apply to which results.

    A finding with a `location` applies to that result; one without applies to every result
    whose system (`ResultRecord.system_key`) or submission (`submission_key`) is its
    `subject`. Findings are kept as their positions in the list given, in its order."""

    def __init__(self, results: Iterable[ResultRecord], findings: list[Finding]) -> None:
        self.findings = findings
        self._on_location: dict[str, list[int]] = defaultdict(list)
        self._on_subject: dict[str, list[int]] = defaultdict(list)
        for index, finding in enumerate(findings):
            if finding.location:
                self._on_location[finding.location].append(index)
            elif finding.subject:
                self._on_subject[finding.subject].append(index)
        self._by_location: dict[str, list[ResultRecord]] = defaultdict(list)
        self._by_key: dict[str, list[ResultRecord]] = defaultdict(list)
        for record in results:
            self._by_location[record.location].append(record)
            self._by_key[record.system_key].append(record)
            if record.submission_key != record.system_key:
                self._by_key[record.submission_key].append(record)

    def positions(self, record: ResultRecord) -> list[int]:
        """The positions of every finding that applies to `record`, in list order."""
        keys = dict.fromkeys((record.system_key, record.submission_key))
        return sorted(
            [*self._on_location.get(record.location, ()), *(i for key in keys for i in self._on_subject.get(key, ()))]
        )

    def of(self, record: ResultRecord) -> list[Finding]:
        """Every finding that applies to `record`, in list order."""
        return [self.findings[i] for i in self.positions(record)]

    def cause_positions(self, record: ResultRecord) -> list[int]:
        return [i for i in self.positions(record) if invalidates(self.findings[i])]

    def causes(self, record: ResultRecord) -> list[Finding]:
        """The findings that make `record` invalid: the un-waived errors that apply to it."""
        return [self.findings[i] for i in self.cause_positions(record)]

    def affected(self, finding: Finding) -> list[ResultRecord]:
        """The results `finding` applies to."""
        if finding.location:
            return list(self._by_location.get(finding.location, ()))
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
    _applying: Any = field(default=None, init=False, repr=False, compare=False)

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
        counts = {s.value: 0 for s in Severity}
        for finding in self.findings:
            if not finding.waived:
                counts[finding.severity.value] += 1
        return counts

    @property
    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR and not f.waived for f in self.findings)
