"""The one record every check produces."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field, replace
from typing import Any


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
