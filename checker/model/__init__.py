"""The submission model: divisions, submitters, systems and results found in a tree.

Discovery only lists folders; it reads no file except the open division's
`model_mapping.json`. Artefacts are read lazily, through a `Reader`, when a rule asks.
Paths inside a submission come from the round's `layout`, so a round that moves
`compliance/` or `measurements/` needs a new round file, not new code.

- submission.py: Submission and System (and the Context of a check);
- layout.py: a result folder, and where each of its files is;
- result.py: `Result`, a result folder and the artefacts read from it;
- metrics.py: its headline and power metrics, as the round defines them;
- discovery.py: the submissions, systems and results of a tree;
- views.py: what a rule sees of its subject: the artefacts it needs, not None.
"""

from .discovery import (
    LINK_KINDS,
    discover,
    discovery_findings,
    holds_results,
    no_results_reason,
    results_of,
    systems_of,
    unfollowed_folders,
)
from .result import Result
from .submission import Clash, Context, Submission, System, clashes, entered
from .views import NEEDS

__all__ = [
    "LINK_KINDS",
    "NEEDS",
    "Clash",
    "Context",
    "Result",
    "Submission",
    "System",
    "clashes",
    "discover",
    "discovery_findings",
    "entered",
    "holds_results",
    "no_results_reason",
    "results_of",
    "systems_of",
    "unfollowed_folders",
]
