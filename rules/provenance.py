"""PRV: the loadgen that wrote a result came from the round's seed release, unmodified.

Dirty builds are judged from the log alone. Ancestry, commit dates and file contents need a
local clone of mlcommons/inference: `check --inference-repo PATH` runs those rules, and
`mlperf-check provenance` also runs them from the bundled table. Round files set the
severity: warnings in v5.1 and v6.0, whose published results show the rule was not
enforced, errors from v6.1."""

from __future__ import annotations

from collections.abc import Iterator

from checker.findings import Severity
from checker.model import Result
from checker.model.views import Logged
from checker.provenance import BuildVerdict, build_of, judge_build
from checker.registry import Problem, rule
from checker.rounds import Round
from checker.wording import counted


def _path(result: Result) -> str:
    return result.file("performance", "detail_log")


def _verdict(result: Logged) -> BuildVerdict | None:
    if "provenance" not in result.cache:
        source, build = result.context.provenance, build_of(result.performance_log)
        result.cache["provenance"] = (
            judge_build(result.location, build, result.round, source)
            if source is not None and build is not None
            else None
        )
    verdict: BuildVerdict | None = result.cache["provenance"]
    return verdict


@rule("PRV001", "loadgen-dirty")
def loadgen_dirty(result: Logged, round: Round) -> Iterator[Problem]:
    """Loadgen was built from a clean checkout: no changed file in its git status, no uncommitted-changes error.

    Why: the rules require loadgen unmodified from the seed release; a dirty tree means the
    source that ran is not the source anyone can check out. Loadgen logs the output of
    `git status -s -uno .` (loadgen/version_generator.py): a line `XY path` per changed file.
    A build outside git (the PyPI package) logs "NA", which is no git, not a dirty tree; its
    file SHA-1s identify it (`mlperf-check provenance`).
    Fix: build loadgen from a clean checkout (or the PyPI package) and run again.
    Policy: inference_rules.adoc, "LoadGen" (use the round's loadgen, unmodified); the round's seed release.
    Example: `loadgen_git_status_message` " M loadgen.cc" fails; "" and "NA" pass.
    """
    build = build_of(result.performance_log)
    if build is not None and build.dirty:
        changed = "\n".join(build.changes)  # the changed-file lines, as git printed them
        what = f"git status {changed!r}" if changed else "error_uncommitted_loadgen_changes"
        yield Problem(
            path=_path(result),
            pointer="loadgen_git_status_message",
            observed=build.status,
            expected="",
            message=f"loadgen was built from a modified checkout ({what})",
        )


@rule("PRV002", "loadgen-rev-unknown")
def loadgen_rev_unknown(result: Logged, round: Round) -> Iterator[Problem]:
    """The loadgen revision exists in mlcommons/inference.

    Why: a revision the repository does not have is a fork or a local commit; nobody can
    check what it changed.
    Fix: build loadgen from a commit of mlcommons/inference master at or after the seed release.
    Policy: inference_rules.adoc, "LoadGen"; the round's seed release.
    Example: `5.1.0 @ 3cebd5ee48` (not in the repository) fails.
    """
    verdict = _verdict(result)
    if verdict is not None and verdict.verdict == "unknown-commit":
        yield Problem(
            path=_path(result),
            pointer="loadgen_version",
            observed=verdict.rev,
            message=f"loadgen rev {verdict.rev} ({verdict.loadgen_version}) is not in mlcommons/inference "
            f"({verdict.source})",
        )


@rule("PRV003", "loadgen-predates-seed-release")
def loadgen_predates_seed_release(result: Logged, round: Round) -> Iterator[Problem]:
    """The loadgen revision descends from the round's seed-release commit (git ancestry, not dates).

    Why: the round's seeds and rules ship in loadgen at the seed release; an older loadgen
    given the seeds from an external mlperf.conf still runs older code.
    Fix: build loadgen from a commit at or after the seed release and run again.
    Policy: inference_rules.adoc, "LoadGen"; the round's seed release (rules/<round>.yaml seed_release).
    Example: `4.1 @ 379ee5345a` fails in v5.1 (seed release 0910c6e3).
    """
    verdict = _verdict(result)
    if verdict is not None and verdict.verdict == "predates":
        seed = round.seed_release.commit if round.seed_release else ""
        yield Problem(
            path=_path(result),
            pointer="loadgen_version",
            observed=verdict.rev,
            expected=seed,
            message=f"loadgen rev {verdict.rev} ({verdict.loadgen_version}, {verdict.commit_date}) does not "
            f"descend from the {round.name} seed release {seed[:10]}",
        )


@rule("PRV004", "loadgen-after-deadline")
def loadgen_after_deadline(result: Logged, round: Round) -> Iterator[Problem]:
    """The loadgen revision was committed on or before the submission deadline.

    Why: a loadgen from after the deadline did not exist when the result was due.
    Fix: use a loadgen from before the deadline.
    Policy: submission_rules.adoc, "Schedule"; the round's deadline (rules/<round>.yaml).
    Example: a rev committed 2026-08-20 fails in v6.1 (deadline 2026-07-31).
    """
    verdict = _verdict(result)
    if verdict is not None and verdict.after_deadline:
        deadline = round.seed_release.deadline if round.seed_release else None
        yield Problem(
            path=_path(result),
            pointer="loadgen_git_commit_date",
            observed=verdict.commit_date,
            expected=deadline,
            message=f"loadgen rev {verdict.rev} was committed {verdict.commit_date}, after the deadline {deadline}",
        )


@rule("PRV005", "loadgen-files-modified")
def loadgen_files_modified(result: Logged, round: Round) -> Iterator[Problem]:
    """Every loadgen file's SHA-1 equals that file's content at the logged revision.

    Why: a mismatch means loadgen was modified before it was built, whatever the git status says.
    A logged file that git does not have at the revision at all (a built `.so` or `.whl` left
    in loadgen/) is untracked, not modified: it is reported as a note and fails nothing.
    Fix: build loadgen from an unmodified checkout of the logged revision.
    Policy: inference_rules.adoc, "LoadGen" (unmodified loadgen).
    Example: `/loadgen.cc` with a SHA-1 that differs from the file at the rev fails;
    `/mlperf_loadgen.cpython-312-x86_64-linux-gnu.so`, not in git, is a note.
    """
    verdict = _verdict(result)
    if verdict is None:
        return
    where = f"rev {verdict.rev}" if verdict.rev else f"release {verdict.identified_as}"
    if verdict.modified_files:
        files = verdict.modified_files
        yield Problem(
            path=_path(result),
            pointer="loadgen_file_sha1",
            observed=files,
            message=f"{counted(len(files), 'loadgen file')} {'differs' if len(files) == 1 else 'differ'} from {where}: "
            f"{_listed(files)}",
        )
    if verdict.untracked_files:
        files = verdict.untracked_files
        yield Problem(
            path=_path(result),
            pointer="loadgen_file_sha1",
            observed=files,
            severity=Severity.NOTE,
            message=f"{counted(len(files), 'loadgen file')} not in git at {where} (untracked, e.g. built; "
            f"not a modification): {_listed(files)}",
        )


def _listed(files: list[str]) -> str:
    return ", ".join(files[:5]) + (" ..." if len(files) > 5 else "")
