"""What a check produces: the Problem a rule yields, the Finding the engine makes of it, one
ResultRecord per result, and the Report that holds them all."""

from __future__ import annotations

import enum
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

    def with_(self, **changes: Any) -> "Finding":
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


@dataclass
class Report:
    round: "Round"
    root: str
    results: list[ResultRecord]
    findings: list[Finding]

    def counts(self) -> dict[str, int]:
        counts = {s.value: 0 for s in Severity}
        for finding in self.findings:
            if not finding.waived:
                counts[finding.severity.value] += 1
        return counts

    @property
    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR and not f.waived for f in self.findings)
