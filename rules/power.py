"""PWR: power results (`performance/power`): the files of the measurement and the metric."""

from __future__ import annotations

from collections.abc import Iterator

from checker.findings import Severity
from checker.model import results_of
from checker.model.views import Described, Known, Measured
from checker.parsers.mllog import reads
from checker.registry import Problem, declare, rule
from checker.rounds import Round
from checker.tree import join

# The loadgen keys this family reads (checked to be wanted, so none reads as None unread).
LOADGEN_KEYS = reads("power_begin", "power_end")

declare(
    "PWR002",
    "power-samples-unreadable",
    """spl.txt holds no power samples, or none inside the measured window.

Why: the power metric is the average of the analyzer's samples between loadgen's
power_begin and power_end; without samples there is no metric.
Fix: submit the spl.txt that PTDaemon wrote during this run (run_1), with the run's detail log.
Policy: power_measurement.adoc, "Performance and Power Logs"; the official checker's get_power_metric_check.
""",
)


@rule("PWR001", "power-files-present")
def power_files_present(result: Known, round: Round) -> Iterator[Problem]:
    """A power result carries the ranging run, the testing run's spl.txt and the PTDaemon logs.

    Why: reviewers recheck the power measurement from the analyzer logs; without the ranging
    run and the client/server logs it cannot be audited.
    Fix: copy the whole output folder of the power workflow for this run.
    Policy: power_measurement.adoc, "Performance and Power Logs"; the official checker's
    REQUIRED_POWER_FILES.
    Example: a power result without performance/power/ptd_logs.txt fails.
    """
    spec = round.power
    if not result.has_power or spec is None:
        return
    groups = (
        ("power", result.path("power"), spec.power_files),
        ("ranging", result.path("ranging"), spec.ranging_files),
        ("performance", result.path("performance"), spec.run_files),
    )
    for folder_name, folder, names in groups:
        for name in names:
            path = join(folder or "", name)
            if not result.reader.exists(path):
                yield Problem(
                    path=path,
                    message=f"power result lacks {folder_name}/{name}"
                    if folder_name != "performance"
                    else f"power result lacks run_1/{name}",
                    expected=path,
                )


@rule("PWR003", "power-window-has-samples")
def power_window_has_samples(result: Measured, round: Round) -> Iterator[Problem]:
    """The testing run's spl.txt has power samples inside loadgen's power_begin..power_end.

    Why: the power metric averages those samples; none in the window means the analyzer log
    belongs to another run or the clocks were not synchronised.
    Fix: submit the spl.txt of this run; synchronise the SUT and director clocks (NTP).
    Policy: power_measurement.adoc, "Power and Performance Measurement" (same run, same window).
    Example: spl.txt samples from the ranging run's time span fail.
    """
    if not result.has_power or round.power is None:
        return
    if not result.reader.exists(result.file("performance", "power_samples")):
        return  # PWR001
    window = result.power_window()
    log = result.performance_log
    if window is None:
        if log.get("power_begin") is None or log.get("power_end") is None:
            yield Problem(
                path=result.file("performance", "detail_log"),
                pointer="power_begin",
                message="the detail log has no power_begin/power_end window",
            )
        return
    if not window[0]:
        yield Problem(
            path=result.file("performance", "power_samples"),
            message=f"no positive watt sample lies between power_begin {log.get('power_begin')} and "
            f"power_end {log.get('power_end')}",
            observed=0,
        )


@rule("PWR004", "power-description-fields", scope="system", severity=Severity.WARNING)
def power_description_fields(system: Described, round: Round) -> Iterator[Problem]:
    """The system description of a system with power results fills in the power fields.

    Why: power results depend on the power supplies, firmware and power management of the
    system; the description must say what they were. Published v5.1 power systems leave many
    of these empty, so this is a warning, given once per system.
    Fix: fill in the fields the finding names in systems/<system>.json.
    Policy: power_measurement.adoc, "Platform Description"; the official checker's
    SYSTEM_DESC_REQUIRED_FIELDS_POWER.
    Example: a system with power results whose description has `power_supply_details` "" gets a warning.
    """
    if round.power is None or not any(result.has_power for result in results_of(system)):
        return
    description = system.description
    missing = [
        f
        for f in round.system_description.power
        if not isinstance(description.get(f), (str, int, float, bool)) or str(description.get(f)).strip() == ""
    ]
    if missing:
        yield Problem(
            path=system.json_path,
            pointer="/" + missing[0],
            message=f"power results, but the description leaves {len(missing)} power fields empty or "
            f"missing: {', '.join(missing)}",
            observed=missing,
        )
