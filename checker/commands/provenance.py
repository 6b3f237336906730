"""`mlperf-check provenance`: which loadgen each result ran, and whether it descends from the
round's seed release (checker/provenance.py judges each build)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from ..escaping import text_lines
from ..model import discover, results_of, systems_of
from ..provenance import VERDICTS, BuildVerdict, Source, build_of, judge_build
from ..reporters import Formats, as_json, as_text
from ..reporters.common import csv_text
from ..rounds import Round
from ..settings import Invocation, UsageError
from ..tree import Tree
from ..workspace import locate
from . import common


def verdicts_of(
    path: str, round: Round, source: Source, progress: Callable[[int, int], None] | None = None
) -> tuple[list[BuildVerdict], int]:
    """The verdict of every result under `path` whose performance log names its loadgen, and
    the number of results there (those without a loadgen_version are not judged);
    `progress(done, total)` after each result."""
    verdicts = []
    where = locate(path)
    found = [
        result
        for submission in discover(Tree(where.root), round, where.part)
        for system in systems_of(submission)
        for result in results_of(system)
    ]
    for done, result in enumerate(found, 1):
        log = result.performance_log
        build = build_of(log) if log is not None else None
        if build is not None:
            verdicts.append(judge_build(result.location, build, round, source))
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
    "reason",
)  # new columns go last


def document(verdicts: list[BuildVerdict], round: Round) -> dict[str, Any]:
    """The verdicts as their JSON names them (reporters.as_json writes it, keeping any byte of
    a folder name printable)."""
    return {
        "round": round.name,
        "seed_release": round.seed_release.commit if round.seed_release else None,
        "results": [asdict(v) for v in verdicts],
    }


def to_csv(verdicts: list[BuildVerdict], round: Round) -> str:
    rows = []
    for verdict in verdicts:
        row = asdict(verdict)
        row["modified_files"] = " ".join(row["modified_files"])
        row["untracked_files"] = " ".join(row["untracked_files"])
        rows.append(row)
    return csv_text(rows, FIELDS)


def to_text(verdicts: list[BuildVerdict], round: Round) -> str:
    """Results grouped by loadgen rev: count, verdict, commit date, submitters."""
    groups: dict[tuple[Any, ...], list[BuildVerdict]] = {}
    for verdict in verdicts:
        groups.setdefault((verdict.rev, verdict.loadgen_version), []).append(verdict)
    seed = round.seed_release.commit if round.seed_release else "?"
    lines = [
        f"Loadgen provenance, round {round.name} (seed release {seed[:10]}), "
        f"from the {verdicts[0].source if verdicts else 'bundled table'}:"
    ]
    # the exceptions first (what does not descend, or is dirty, modified or late), then the rest
    order = sorted(
        groups.items(),
        key=lambda item: (
            not any(v.exception for v in item[1]),
            VERDICTS.index(item[1][0].verdict),
            -len(item[1]),
        ),
    )
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
        flags += [first.reason] if first.reason and not first.identified_as else []
        lines.append(
            f"  {len(members):>5}  {first.verdict:<15} {version or '?'} @ {rev or 'NA':<10}  "
            f"{(first.commit_date or '')[:10]:<10}  {', '.join(submitters)}"
            + (f"  [{'; '.join(flags)}]" if flags else "")
        )
    return text_lines(lines)


FORMATS = Formats({"text": as_text(to_text), "json": as_json(document), "csv": as_text(to_csv)})


# --- the command ---------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class CommandLine:
    """provenance's command line."""

    path: str
    round: str | None = None
    inference_repo: str | None = None
    format: str | None = None
    output: str | None = None
    progress: bool = True


@dataclass(frozen=True, kw_only=True)
class Invoked(Invocation[CommandLine]):
    source: Source  # the clone of mlcommons/inference, or the bundled table of releases


def invocation(options: CommandLine) -> Invoked:
    from ..provenance import TableSource
    from .check import repository

    common.folder(options.path)
    name = common.choose(FORMATS, options.format, options.output)
    source = repository(options.inference_repo) if options.inference_repo is not None else TableSource()
    tree = common.on_tree(options, options.path, {"round": options.round}, reads=[options.inference_repo])
    return tree.extended(Invoked, outputs=((name, tree.plan.add(options.output)),), source=source)


def run(invocation: Invoked) -> int:
    from ..errors import naming
    from ..provenance import RepositoryError

    options, the_round = invocation.options, invocation.round
    assert the_round is not None
    seed = the_round.seed_release.commit if the_round.seed_release else None
    with naming(f"--inference-repo {options.inference_repo}", RepositoryError):
        if options.inference_repo is not None and seed and invocation.source.commit(seed, the_round) is None:
            # issue 33: every result would be unknown-commit, and the clone is the cause
            raise UsageError(
                f"--inference-repo {options.inference_repo}: the clone does not hold round {the_round.name}'s "
                f"seed release {seed[:10]}, so no result's loadgen can be judged against it; fetch it "
                f"(git -C {options.inference_repo} fetch origin) or use a full clone of mlcommons/inference"
            )
        with common.progress(options.progress, "reading loadgen builds") as tick:
            verdicts, results = verdicts_of(options.path, the_round, invocation.source, tick)
    if not results:
        raise common.no_results(options.path, the_round)
    common.emit(invocation.plan, FORMATS, invocation.format, invocation.target, verdicts, the_round)
    if len(verdicts) < results:
        common.say(
            f"{results - len(verdicts)} of {results} results have no loadgen_version in a performance log: "
            "not judged (`mlperf-check check` says why)"
        )
    return 0
