"""`mlperf-check provenance`: which loadgen each result ran, and whether it descends from the
round's seed release (checker/provenance.py judges each build)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict

from ..model import discover, locate, results_of, systems_of
from ..provenance import VERDICTS, Source, Verdict, build_of, judge
from ..reporters import Formats, as_data, as_text
from ..reporters.common import csv_text, strict_json
from ..rounds import Round
from ..tree import Tree


def verdicts_of(
    path: str, round: Round, source: Source, progress: Callable[[int, int], None] | None = None
) -> tuple[list[Verdict], int]:
    """The verdict of every result under `path` whose performance log names its loadgen, and
    the number of results there (those without a loadgen_version are not judged);
    `progress(done, total)` after each result."""
    verdicts = []
    top, part = locate(path, round)
    found = [
        result
        for submission in discover(Tree(top), round, part)
        for system in systems_of(submission)
        for result in results_of(system)
    ]
    for done, result in enumerate(found, 1):
        log = result.performance_log
        build = build_of(log) if log is not None else None
        if build is not None:
            verdicts.append(judge(result.location, build, round, source))
        if progress is not None:
            progress(done, len(found))
    return verdicts, len(found)


FIELDS = (
    "location",
    "loadgen_version",
    "rev",
    "verdict",
    "commit_date",
    "modified_files",
    "dirty",
    "after_deadline",
    "identified_as",
    "source",
    "untracked_files",
)  # new columns go last


def to_json(verdicts: list[Verdict], round: Round) -> str:
    # Locations are folder names: strict JSON keeps any byte printable.
    return (
        strict_json(
            {
                "round": round.name,
                "seed_release": round.seed_release.commit if round.seed_release else None,
                "results": [asdict(v) for v in verdicts],
            },
            indent=2,
        )
        + "\n"
    )


def to_csv(verdicts: list[Verdict], round: Round) -> str:
    rows = []
    for verdict in verdicts:
        row = asdict(verdict)
        row["modified_files"] = " ".join(row["modified_files"])
        row["untracked_files"] = " ".join(row["untracked_files"])
        rows.append(row)
    return csv_text(rows, FIELDS)


def to_text(verdicts: list[Verdict], round: Round) -> str:
    """Results grouped by loadgen rev: count, verdict, commit date, submitters."""
    groups: dict[tuple, list[Verdict]] = {}
    for verdict in verdicts:
        groups.setdefault((verdict.rev, verdict.loadgen_version), []).append(verdict)
    seed = round.seed_release.commit if round.seed_release else "?"
    lines = [
        f"Loadgen provenance, round {round.name} (seed release {seed[:10]}), "
        f"from the {verdicts[0].source if verdicts else 'bundled table'}:"
    ]
    order = sorted(groups.items(), key=lambda item: (VERDICTS.index(item[1][0].verdict), -len(item[1])))
    for (rev, version), members in order:
        first = members[0]
        submitters = sorted({v.location.split("/")[1] for v in members})
        flags = [f"{sum(v.dirty for v in members)} dirty"] if any(v.dirty for v in members) else []
        flags += (
            [f"{sum(bool(v.modified_files) for v in members)} modified"]
            if any(v.modified_files for v in members)
            else []
        )
        flags += (
            [f"{sum(bool(v.untracked_files) for v in members)} with untracked files"]
            if any(v.untracked_files for v in members)
            else []
        )
        flags += [f"identified as {first.identified_as}"] if first.identified_as else []
        lines.append(
            f"  {len(members):>5}  {first.verdict:<15} {version or '?'} @ {rev or 'NA':<10}  "
            f"{(first.commit_date or '')[:10]:<10}  {', '.join(submitters)}"
            + (f"  [{'; '.join(flags)}]" if flags else "")
        )
    return "\n".join(lines) + "\n"


FORMATS = Formats({"text": as_text(to_text), "json": as_data(to_json), "csv": as_text(to_csv)})
