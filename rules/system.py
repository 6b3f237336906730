"""SYS: the system description `systems/<system>.json`."""

from __future__ import annotations

from typing import Iterator

from checker.model import System
from checker.registry import Problem, rule
from checker.rounds import Round


@rule("SYS003", "submitter-matches-folder", scope="system", needs=("system_description",))
def submitter_matches_folder(system: System, round: Round) -> Iterator[Problem]:
    """The description's `submitter` is the submitter folder's name (case does not matter).

    Why: results are published under the folder's name; a description that names another
    submitter was copied from elsewhere or belongs to a partner's submission.
    Fix: set `submitter` to the folder name, or move the system to the right folder.
    Policy: submission_rules.adoc, "<system_desc_id>.json metadata" (submitter).
    Example: `"submitter": "AMD"` under closed/AMD passes; `"submitter": "Acme"` fails.
    """
    value = system.description.get("submitter")
    folder = system.submission.submitter
    if not isinstance(value, str) or value.strip().lower() != folder.lower():
        yield Problem(path=system.json_path, pointer="/submitter",
                      message=f"submitter is {value!r}, but the folder is {folder!r}",
                      observed=value, expected=folder)


@rule("SYS004", "division-matches-folder", scope="system", needs=("system_description",))
def division_matches_folder(system: System, round: Round) -> Iterator[Problem]:
    """The description's `division` is the division folder's name (case does not matter).

    Why: the division decides which rules apply (closed results meet accuracy targets, open
    ones need not); a description that names another division contradicts its results.
    Fix: set `division` to the folder name, or move the submission to the right division.
    Policy: submission_rules.adoc, "<system_desc_id>.json metadata" (division).
    Example: `"division": "closed"` under closed/ passes; `"division": "open"` fails.
    """
    value = system.description.get("division")
    folder = system.submission.division
    if not isinstance(value, str) or value.strip().lower() != folder.lower():
        yield Problem(path=system.json_path, pointer="/division",
                      message=f"division is {value!r}, but the folder is {folder!r}",
                      observed=value, expected=folder)
