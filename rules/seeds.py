"""RNG: loadgen's random seeds are the round's."""

from __future__ import annotations

from collections.abc import Iterator

from checker.findings import Severity
from checker.model import Result
from checker.model.views import Configured, LoadgenRun, Logged
from checker.parsers.mllog import LoadgenLog, reads
from checker.registry import Problem, rule
from checker.rounds import Round, available_rounds, load_round
from checker.tree import join

SEED_KEYS = ("qsl_rng_seed", "sample_index_rng_seed", "schedule_rng_seed")
# The loadgen keys this family reads: effective_<seed> for the round's seeds (checked to be
# wanted, so none reads as None unread).
LOADGEN_KEYS = reads("effective_*")


def _seed_mismatches(log: LoadgenLog, round: Round) -> list[tuple[str, object, int]]:
    wrong = []
    for name, expected in round.seeds.named().items():
        observed = log.get(f"effective_{name}")
        if observed != expected:
            wrong.append((name, observed, expected))
    return wrong


def _logs(result: Result) -> Iterator[tuple[str, LoadgenLog, str | None]]:
    """The main performance log and the performance logs of the compliance runs present,
    each with its compliance test (None for the main run)."""
    if result.performance_log is not None:
        yield result.file("performance", "detail_log"), result.performance_log, None
    for test, rel, log in result.compliance_runs():
        yield rel, log, test


@rule("RNG001", "round-seeds", scope="result")
def round_seeds(result: LoadgenRun, round: Round) -> Iterator[Problem]:
    """Loadgen ran with the round's RNG seeds, in the main run and in every compliance run (one finding per log).

    Why: the seeds fix which samples are issued and when; they are announced shortly before
    the deadline so that no one can tune for them. A run with other seeds is not a run of
    this round. No audit.config sets seeds, so compliance runs use the round's seeds too;
    the round's checker checked them only in the runs it puts through its performance checks
    (the compliance tests with `performance_log` in the round file), so elsewhere (a TEST07
    run with seeds 0, published in v6.0) this warns.
    Fix: build loadgen from the round's seed release (its mlperf.conf carries the seeds) and
    run again; never set seeds in user.conf.
    Policy: inference_rules.adoc, "Non-determinism is restricted"; the round's seeds
    (loadgen/mlperf.conf at the seed release).
    Example: `effective_qsl_rng_seed` 1780908523862526354 passes in v5.1 and fails in v6.1.
    """
    for path, log, test in _logs(result):
        if test is not None and result.division not in round.compliance_divisions:
            continue  # compliance runs are optional in the open division
        spec = round.compliance_test(test) if test is not None else None
        checked = test is None or (spec is not None and spec.performance_log)
        note = (
            ""
            if checked
            else (
                f"; a warning: the round's checker runs its performance checks (seeds among them) "
                f"only on the main run and the TEST01/TEST04-style runs, and judges {test} by its "
                f"verify file"
            )
        )
        wrong = _seed_mismatches(log, round)
        if wrong:
            yield Problem(
                path=path,
                pointer=f"effective_{wrong[0][0]}",
                message="; ".join(
                    f"effective_{name} is {'missing' if observed is None else observed}, the round's is {expected}"
                    for name, observed, expected in wrong
                )
                + f" ({round.name}){note}",
                observed={f"effective_{name}": observed for name, observed, _ in wrong},
                expected={f"effective_{name}": expected for name, _, expected in wrong},
                severity=None if checked else Severity.WARNING,
            )


@rule("RNG002", "seeds-of-another-round", scope="result", severity=Severity.NOTE)
def seeds_of_another_round(result: Logged, round: Round) -> Iterator[Problem]:
    """When the seeds are not this round's, says which round's they are.

    Why: a result checked with the wrong `--round`, or run with an old loadgen, shows the
    seeds of another round; naming it tells the user which of the two to fix.
    Fix: check with `--round` set to the round named, or re-run with this round's loadgen.
    Policy: the rounds' seeds (loadgen/mlperf.conf at each seed release).
    Example: a v5.1 log checked with --round v6.1 gets a note naming v5.1.
    """
    log = result.performance_log
    if not _seed_mismatches(log, round):
        return
    for name in available_rounds():
        other = load_round(name)
        if other.name != round.name and not other.profile and not _seed_mismatches(log, other):
            yield Problem(
                path=result.file("performance", "detail_log"),
                message=f"the seeds are those of round {other.name}, not {round.name}",
                observed=other.name,
                expected=round.name,
            )
            return


@rule("RNG003", "seeds-in-user-conf", scope="result", severity=Severity.WARNING)
def seeds_in_user_conf(result: Configured, round: Round) -> Iterator[Problem]:
    """user.conf does not try to set loadgen's seeds.

    Why: loadgen takes the seeds only from its built-in mlperf.conf and ignores them in
    user.conf, so such a line has no effect and suggests the run was tuned for other seeds.
    Fix: delete the seed lines from user.conf.
    Policy: loadgen test_settings_internal.cc (seeds are read only from mlperf.conf);
    inference_rules.adoc, "Non-determinism is restricted".
    Example: `*.Offline.qsl_rng_seed = 1` in user.conf is a warning.
    """
    path = join(result.measurements_dir, "user.conf")
    for key in result.user_conf:
        if key.rsplit(".", 1)[-1] in SEED_KEYS:
            yield Problem(
                path=path, pointer=key, message=f"user.conf sets `{key}`, which loadgen ignores", observed=key
            )
