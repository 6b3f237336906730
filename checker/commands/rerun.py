"""`mlperf-check rerun RESULT`: re-run a result (your harness, or the built-in one) in a copy
of its folder, and compare the re-run with the original (commands/reproduce.py)."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..settings import Invocation, UsageError, fraction
from . import TIMEOUT, common
from . import reproduce as rep

if TYPE_CHECKING:
    from ..rounds import Round


@dataclass(frozen=True, kw_only=True)
class CommandLine:
    """rerun's command line."""

    result_path: str
    command: str | None = None
    builtin: bool = False
    workdir: str | None = None
    timeout: float = TIMEOUT
    round: str | None = None
    tolerance: float | None = None
    format: str = "text"


def invocation(options: CommandLine) -> Invocation[CommandLine]:
    if (options.command is None) == (not options.builtin):
        raise UsageError("give either --command CMD or --builtin")
    name = common.choose(rep.FORMATS, options.format, None)
    fraction(options.tolerance, "tolerance")
    if not options.timeout > 0:
        raise UsageError(f"--timeout {options.timeout:g}: give a number of seconds above 0")
    round_name = common.round_name(options.round, options.result_path, result=True)
    return Invocation(options=options, outputs=((name, None),), round_name=round_name, round=common.load(round_name))


def run(invocation: Invocation[CommandLine]) -> int:
    """Copy the result, re-run it there, and compare; 1 unless the re-run holds."""
    from ..output import keep

    options, the_round = invocation.options, invocation.round
    assert the_round is not None
    work, copy = _copy(options, the_round)
    start = time.perf_counter()
    status = 0
    if options.builtin:
        _builtin(copy, the_round)
    else:
        assert options.command is not None
        try:
            status, _ = rep.rerun_command(copy, options.command, _echo, options.timeout)
        except rep.CommandTimeout as error:
            keep(work)
            raise UsageError(f"{error}; what it wrote is in {copy}") from None
    keep(work)
    common.say(f"re-run finished in {time.perf_counter() - start:.1f} s (exit {status}); logs in {copy}")
    if status != 0:
        raise UsageError(f"the command exited with {status}")
    logs = os.path.join(copy, "performance", "run_1")
    if not any(
        os.path.isfile(os.path.join(logs, name)) for name in ("mlperf_log_summary.txt", "mlperf_log_detail.txt")
    ):
        raise UsageError(  # issue 33: no measurement, so no verdict
            f"the re-run wrote no loadgen log into {logs} ($MLPERF_CHECK_OUTPUT): nothing was measured to compare"
        )
    result = rep.reproduce(options.result_path, copy, the_round, options.tolerance)
    common.emit(invocation.plan, rep.FORMATS, invocation.format, None, result)
    if invocation.format != "text":
        common.say(rep.verdict(result))
    return 1 if result.failed else 0


def _copy(options: CommandLine, the_round: Round) -> tuple[str, str]:
    """The work folder and the copy of the result in it, made before anything runs."""
    from ..output import new_folder

    try:
        if options.workdir == "":
            raise rep.WorkdirError("--workdir '': an empty path (an unset variable?); give a new or empty folder")
        rep.result_root(options.result_path, the_round)
        common.folder(options.result_path)
        work = options.workdir or new_folder(prefix="mlperf-check-rerun-")  # removed if a signal stops the re-run
        return work, rep.prepare_copy(options.result_path, the_round, work)
    except OSError as error:
        raise UsageError(
            f"cannot copy {options.result_path} into {options.workdir or 'a temp folder'}: {error}"
        ) from None


def _builtin(copy: str, the_round: Round) -> None:
    """The built-in harness, with a spinner on a terminal."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    stderr = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=stderr, transient=True, disable=not stderr.is_terminal) as bar:
        task = bar.add_task("re-running", total=None)
        try:
            rep.rerun_builtin(copy, the_round, lambda what: bar.update(task, description=f"re-running: {what}"))
        except ImportError as error:
            raise UsageError(
                f"{error} (the built-in harness: {common.missing_extra('its packages', 'harness')})"
            ) from None


def _echo(line: str) -> None:
    from ..reporters.common import visible

    print(f"  | {visible(line)}", file=sys.stderr)
