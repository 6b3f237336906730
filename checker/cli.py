"""The `mlperf-check` command line: the options of every command, and the call that runs it.

Each command hands what typer parsed to `checker.commands.common.call`, which builds its
invocation (checker.settings) and runs checker/commands/<command>.py: a report, or one line
on stderr and exit 2 (usage) or 3 (a bug); a closed stdout ends quietly."""

from __future__ import annotations

from typing import Any, NoReturn

import typer

from . import __version__, clikit
from .analysis import OUTLIER, TOLERANCE
from .commands import TIMEOUT as RERUN_TIMEOUT

app = clikit.new_app("Check MLPerf Inference submissions against their round's rules.")


def _run(command: str, given: dict[str, Any]) -> NoReturn:
    """Run checker/commands/<command>.py on the values typer parsed; exit with its code."""
    from .commands.common import call

    if "no_cache" not in given:
        raise typer.Exit(call(command, given))
    from . import cache

    cache.configure(given["cache_dir"], enabled=not given["no_cache"])  # the cache of the checks it makes
    try:
        code = call(command, given)
    finally:
        cache.configure_default()  # a command run in a process that runs others (a test, the API)
    raise typer.Exit(code)


def _cache_dir() -> Any:
    return typer.Option(
        None,
        "--cache-dir",
        metavar="DIR",
        help="The cache folder (default: $MLPERF_CHECK_CACHE_DIR, else the user cache folder); never in the tree.",
    )


def _no_cache() -> Any:
    return typer.Option(False, "--no-cache", help="Read every file again, and keep nothing in the cache.")


@app.command()
def check(
    paths: list[str] = typer.Argument(
        ...,
        metavar="PATH",
        help="Folder holding closed/, open/ or network/ submissions; or files inside one: "
        "the results they affect (as pre-commit passes them).",
    ),
    round: str | None = clikit.round_option(),
    format: list[str] | None = typer.Option(None, "--format", "-f", help=clikit.CHECK_FORMATS),
    output: str | None = clikit.output_option("output"),
    select: list[str] | None = typer.Option(None, "--select", help="Only these codes or prefixes (PRF,RNG001)."),
    ignore: list[str] | None = typer.Option(None, "--ignore", help="Skip these codes or prefixes."),
    waivers: str | None = typer.Option(None, "--waivers", help=clikit.WAIVERS),
    jobs: int | None = clikit.jobs_option(),
    progress: bool = clikit.progress_option(),
    inference_repo: str | None = typer.Option(
        None, "--inference-repo", help="Clone of mlcommons/inference: runs the loadgen provenance rules."
    ),
    strict: bool = typer.Option(False, "--strict", help="Treat every warning as an error."),
    changed_since: str | None = typer.Option(
        None, "--changed-since", help="Git ref: check only the results changed since it."
    ),
    quiet: bool = typer.Option(
        False,
        "--quiet",
        "-q",
        help="Text report: only the errors and the invalid results, then the counts; no informational lines on stderr.",
    ),
    statistics: bool = typer.Option(
        False,
        "--statistics",
        help="Text report: a count per code (count, code, name, severity) in place of the findings.",
    ),
    output_format: str = typer.Option(
        "default",
        "--output-format",
        metavar="VIEW",
        help="Text report: default (the problems, then a summary line), full (also the offending line and a "
        "help: line with the fix under each finding) or concise (one line per finding: path:line:col: CODE message).",
    ),
    show_valid: bool = typer.Option(False, "--show-valid", help="Text report: list the valid results too."),
    exit_zero: bool = typer.Option(
        False,
        "--exit-zero",
        help="Exit 0 even when errors are found (still 2 for a usage error and 3 for an internal one).",
    ),
    color: str = typer.Option(
        "auto",
        "--color",
        metavar="auto|always|never",
        help="Colour in the text report: auto (a terminal, and NO_COLOR unset), always or never.",
    ),
    cache_dir: str | None = _cache_dir(),
    no_cache: bool = _no_cache(),
) -> None:
    """Check a submission tree and print a verdict per result.

    Given files (or several paths) inside a tree, check every result they affect, each as a
    whole check of the tree judges it. Options not given come from [tool.mlperf-check] in
    the nearest pyproject.toml (round, select, ignore, waivers, jobs, format)."""
    given = dict(locals())
    if not changed_since:
        _run("check", given)
    from .scope import start_early, stop_early

    start_early(paths, changed_since)  # git lists the changes while the check's modules load
    try:
        _run("check", given)
    finally:
        stop_early()  # one no check took over (a usage error first) ends with its command


@app.command()
def prepare(
    path: str = typer.Argument(
        ..., metavar="SRC", help="The submission: the folder holding closed/, open/ or network/."
    ),
    output: str = typer.Option(
        ..., "--output", "-o", metavar="DEST", help="A new or empty folder outside SRC for the prepared tree."
    ),
    round: str | None = clikit.round_option(),
    submitter: str | None = typer.Option(None, "--submitter", metavar="ORG", help="Only this submitter's folders."),
    move_failed_to_open: bool = typer.Option(
        False,
        "--move-failed-to-open",
        help="Move a failing closed or network benchmark to open instead of removing it.",
    ),
    no_infer: bool = typer.Option(False, "--no-infer", help="Infer no result (scenarios, -99 from -99.9)."),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the change list; leave nothing written (its work folder beside DEST goes)."
    ),
    format: str = typer.Option("text", "--format", "-f", help="The change list: text or json (stdout)."),
    jobs: int | None = clikit.jobs_option(),
    progress: bool = clikit.progress_option(),
) -> None:
    """Write SRC ready for upload into DEST as the round's tools do: accuracy logs truncated
    with their hash, failing results removed (or moved to open), results inferred, empty
    folders removed. Prints the change list, then exits with the check of DEST."""
    _run("prepare", locals())


@app.command()
def table(
    path: str = clikit.tree_argument(),
    round: str | None = clikit.round_option(),
    format: str | None = clikit.format_option(
        "json (the round's published file: summary_results.json up to v6.0, summary.json from v6.1) or csv "
        "(the same rows and keys); default: -o's extension, else json."
    ),
    output: str | None = clikit.output_option("table"),
    publish_base: str | None = typer.Option(
        None,
        "--publish-base",
        help="Base URL of the published tree: adds Details, Code, ColorKey (where the round's table has them).",
    ),
    first_id: int | None = typer.Option(None, "--first-id", help="First ID number: adds ID (with --publish-base)."),
    jobs: int | None = clikit.jobs_option(),
    progress: bool = clikit.progress_option(),
) -> None:
    """The published results table in the round's format: one row per valid result."""
    _run("table", locals())


@app.command()
def followup(
    previous: str = typer.Option(..., "--previous", help="The preview round: a submission tree or a results table."),
    current: str = typer.Option(..., "--current", help="The target round: a submission tree or a results table."),
    previous_round: str | None = typer.Option(
        None, "--previous-round", help="Round of a --previous tree; default: detected."
    ),
    current_round: str | None = typer.Option(
        None, "--current-round", help="Round of --current (its benchmarks); default: detected."
    ),
    mapping: str | None = typer.Option(None, "--mapping", help="YAML: previous system -> current system."),
    format: str | None = clikit.format_option(clikit.TEXT_JSON_CSV),
    output: str | None = clikit.output_option(),
    progress: bool = clikit.progress_option(),
) -> None:
    """Preview results followed up as Available, at most 2% worse, in the target round."""
    _run("followup", locals())


@app.command()
def provenance(
    path: str = clikit.tree_argument(),
    round: str | None = clikit.round_option(),
    inference_repo: str | None = typer.Option(
        None, "--inference-repo", help="Clone of mlcommons/inference (else the bundled table)."
    ),
    format: str | None = clikit.format_option(clikit.TEXT_JSON_CSV),
    output: str | None = clikit.output_option(),
    progress: bool = clikit.progress_option(),
) -> None:
    """Which loadgen each result ran: its rev, and whether it descends from the seed release."""
    _run("provenance", locals())


@app.command()
def compare(
    inputs: list[str] = typer.Argument(..., help="Results tables (JSON or CSV) or submission trees; merged."),
    round: list[str] | None = typer.Option(
        None,
        "--round",
        "-r",
        help="Only this round's rows (case-blind; repeatable). With one --round, also the round of the "
        "submission trees (a name or a round file; default: detected per tree).",
    ),
    tolerance: float = typer.Option(
        TOLERANCE,
        "--tolerance",
        help="Within tolerance when the partners' mean |deviation| <= this; partners beyond it are named.",
    ),
    outlier: float = typer.Option(OUTLIER, "--outlier", help="Outlier when |deviation| > this."),
    reference: str = typer.Option(
        "median",
        "--reference",
        help="median, or submitter:NAME (or NAME: their result; the others are their partners).",
    ),
    min_submitters: int = typer.Option(2, "--min-submitters", help="Groups need this many distinct submitters."),
    format: str | None = clikit.format_option("text, json, csv or html (default: -o's extension, else text)."),
    output: str | None = clikit.output_option(),
    plot: str | None = typer.Option(None, "--plot", help="Draw the plot into this SVG file (.svg)."),
    across_rounds: bool = typer.Option(
        False, "--across-rounds", help="The same hardware across the inputs' rounds, and scaling across node counts."
    ),
    scaling_across_submitters: bool = typer.Option(
        False,
        "--scaling-across-submitters",
        help="With --across-rounds: scaling efficiency across different submitters' systems "
        "(default: one submitter's systems only).",
    ),
    progress: bool = clikit.progress_option(),
    model: list[str] | None = clikit.MODEL,
    scenario: list[str] | None = clikit.SCENARIO,
    submitter: list[str] | None = clikit.SUBMITTER,
    accelerator: list[str] | None = clikit.ACCELERATOR,
    division: list[str] | None = clikit.CLOSED_DIVISION,
) -> None:
    """How close comparable results of different submitters are, with outliers and why; or,
    with --across-rounds, the same hardware round after round."""
    _run("compare", locals())


@app.command("report")
def audit_report(
    path: str = clikit.tree_argument(),
    round: str | None = clikit.round_option(),
    baseline: str | None = typer.Option(
        None,
        "--baseline",
        metavar="PREVIOUS.json",
        help="The JSON of an earlier `check` of the round: what changed since.",
    ),
    output: str = typer.Option(..., "--output", "-o", help="The HTML file to write (e.g. audit.html)."),
    waivers: str | None = typer.Option(None, "--waivers", help=clikit.WAIVERS),
    jobs: int | None = clikit.jobs_option(),
    progress: bool = clikit.progress_option(),
    cache_dir: str | None = _cache_dir(),
    no_cache: bool = _no_cache(),
) -> None:
    """One self-contained HTML page for reviewers: the verdicts, why each invalid result
    fails, what changed since a baseline, loadgen provenance and cross-partner variance.
    Exits as check does: 1 when an error is found."""
    _run("report", locals())


@app.command()
def claims(
    claims_file: str = typer.Argument(..., metavar="CLAIMS.yaml", help="The claims (schemas/claims.schema.json)."),
    table: list[str] = typer.Option(
        ..., "--table", help="ROUND=PATH: a round's results table or submission tree. Repeatable."
    ),
    format: str | None = clikit.format_option("text, json or markdown (default: -o's extension, else text)."),
    output: str | None = clikit.output_option(),
    progress: bool = clikit.progress_option(),
    model: list[str] | None = clikit.MODEL,
    scenario: list[str] | None = clikit.SCENARIO,
    submitter: list[str] | None = clikit.SUBMITTER,
    accelerator: list[str] | None = clikit.ACCELERATOR,
    round: list[str] | None = clikit.ROUND,
    division: list[str] | None = clikit.DIVISION,
) -> None:
    """Check claims (spread, speedup, ratio, scaling, value) against the published tables,
    with the rows each rests on."""
    _run("claims", locals())


@app.command()
def reproduce(
    original: str = typer.Argument(..., help="The original result folder (.../<system>/<benchmark>/<scenario>)."),
    reproduction: str = typer.Argument(..., help="The reproduction's result folder."),
    round: str | None = clikit.round_option("Round name or round file (default: detected from the original result)."),
    tolerance: float | None = clikit.tolerance_option(),
    format: str | None = clikit.format_option("text or json (default: -o's extension, else text)."),
    output: str | None = clikit.output_option(),
) -> None:
    """Check a reproduction, its settings against the original's, and compare the numbers."""
    _run("reproduce", locals())


@app.command()
def rerun(
    result_path: str = typer.Argument(..., metavar="RESULT", help="The result folder to re-run."),
    command: str | None = typer.Option(
        None, "--command", help="Your harness; it writes loadgen logs into $MLPERF_CHECK_OUTPUT."
    ),
    builtin: bool = typer.Option(False, "--builtin", help="The built-in CPU harness (the bundled example's)."),
    workdir: str | None = typer.Option(
        None,
        "--workdir",
        help="Where the re-run goes: a new or empty folder outside the original's tree (default a new temp folder).",
    ),
    timeout: float = typer.Option(
        RERUN_TIMEOUT, "--timeout", help="Seconds --command may run; then its whole process group is killed."
    ),
    round: str | None = clikit.round_option("Round name or round file (default: detected from the result)."),
    tolerance: float | None = clikit.tolerance_option(),
    format: str = typer.Option("text", "--format", "-f", help="text or json."),
) -> None:
    """Re-run a result (your harness, or the built-in one) and compare it with the original."""
    _run("rerun", locals())


@app.command("rules")
def list_rules(
    format: str | None = clikit.format_option(
        "text (CODE  name  summary) or json (code, name, scope, severity, summary, preview, and each round's own "
        "severity); default: -o's extension, else text."
    ),
    output: str | None = clikit.output_option("list"),
    round: str | None = typer.Option(
        None, "--round", "-r", metavar="ROUND", help="Each code's severity in this round (a name or a round file)."
    ),
    docs: str | None = typer.Option(
        None, "--docs", metavar="FOLDER", help="Write one page per code (CODE.md, from its docstring) into FOLDER."
    ),
) -> None:
    """Every code: one line each (CODE  name  summary), or JSON; with --round, its severity
    in that round."""
    _run("rules", locals())


@app.command()
def explain(
    code: str = typer.Argument(
        ..., metavar="CODE|NAME", help="A finding code or rule name, e.g. RNG001 or round-seeds."
    ),
) -> None:
    """The full documentation of one code: Why, Fix, Policy, and its severity in each round
    where a round file changes it."""
    _run("explain", locals())


@app.command()
def rounds(
    action: str | None = typer.Argument(None, metavar="show", help="show: what one round asks, with sources."),
    name: str | None = typer.Argument(None, metavar="ROUND", help="The round to show (a name or a round file)."),
    format: str | None = clikit.format_option("text or json (default: -o's extension, else text)."),
    output: str | None = clikit.output_option(),
) -> None:
    """The round files this version knows; `rounds show ROUND`: its layout, seeds, benchmarks
    and scenarios per system type, required files, accuracy gates and compliance tests, with
    their sources."""
    _run("rounds", locals())


@app.command("cache")
def cache_command(
    action: str = typer.Argument(..., metavar="info|clean", help="info: where and how large; clean: empty it."),
    cache_dir: str | None = _cache_dir(),
    format: str = typer.Option("text", "--format", "-f", help="info: text or json."),
) -> None:
    """The cache of what was read and checked (checker/cache.py): `cache info` prints its
    folder, entries and size; `cache clean` removes every entry."""
    _run("cache", locals())


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


clikit.plain_commands(app)


def run_app() -> None:
    """The command line, as checker.process runs it (signals and exit statuses are its)."""
    clikit.run(app)


def main() -> None:
    """`python -m checker.cli`; the console script enters through checker.__main__.main, which
    sets the signal handlers before this module is imported."""
    from .process import run

    run(run_app)


if __name__ == "__main__":
    main()
