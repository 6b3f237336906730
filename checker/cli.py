"""The `mlperf-check` command line."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator, Optional, TextIO

import typer
from rich.console import Console

from . import __version__
from .engine import Report, check as run_check
from .registry import RULES, load_all
from .reporters import WRITERS
from .rounds import RoundError, available_rounds, load_round, newest_round
from .waivers import WaiverError, load_waivers

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help="Check MLPerf Inference submissions against their round's rules.",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _fail(message: str) -> None:
    Console(stderr=True, highlight=False, soft_wrap=True).print(f"[bold red]error:[/] {message}")
    raise typer.Exit(EXIT_USAGE)


def _split(values: Optional[list[str]]) -> list[str]:
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


@contextlib.contextmanager
def _destination(path: Optional[str]) -> Iterator[TextIO]:
    if path is None or path == "-":
        yield sys.stdout
        return
    with open(path, "w", encoding="utf-8", newline="") as handle:
        yield handle


# Without --format, -o FILE picks the format from the file's extension.
EXTENSIONS = {".json": "json", ".csv": "csv", ".sarif": "sarif", ".xml": "junit", ".txt": "text"}


def _targets(formats: list[str], output: Optional[str]) -> list[tuple[str, Optional[str]]]:
    """`--format json:out.json --format text` -> [(json, out.json), (text, None)]. Without
    --format, `-o out.json` writes JSON (the extension decides), else the `auto` format."""
    if not formats and output is not None:
        formats = [EXTENSIONS.get(os.path.splitext(output)[1].lower(), "auto")]
    chosen = formats or ["auto"]
    automatic = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    chosen = [automatic + f[len("auto"):] if f == "auto" or f.startswith("auto:") else f for f in chosen]
    targets = []
    for item in chosen:
        name, _, path = item.partition(":")
        if name not in WRITERS:
            _fail(f"unknown format {name!r}; choose from {', '.join(WRITERS)}")
        targets.append((name, path or None))
    unnamed = [t for t in targets if t[1] is None]
    if output is not None:
        if len(unnamed) > 1:
            _fail("-o names one file, but several formats have no file of their own")
        targets = [(name, path if path is not None else output) for name, path in targets]
    elif sum(1 for name, path in targets if path is None) > 1:
        _fail("several formats would write to stdout; give each a file (--format json:out.json)")
    return targets


def _round_name(given: Optional[str], path: str, label: str = "", result: bool = False) -> str:
    """--round when given. Without it, the round detected from the tree at `path` (a result
    folder when `result`): one line on stderr says which and why; a tree that mixes rounds
    is a usage error."""
    if given is not None:
        return given
    from rich.markup import escape

    from .detect import detect, detect_result

    found = (detect_result if result else detect)(path)
    if found.round is None:
        _fail(escape(label + found.reason))
    typer.echo(label + found.line, err=True)
    return found.round


def _round_or_fail(name: Optional[str]):
    """The round file (a name or a path; the newest round by default), or a usage error."""
    try:
        return load_round(name or newest_round())
    except RoundError as error:
        _fail(str(error))


@app.command()
def check(
    path: str = typer.Argument(..., help="Folder holding closed/, open/ or network/ submissions."),
    round: Optional[str] = typer.Option(None, "--round", "-r",
                                        help="Round name (e.g. v6.1) or round file; default: detected from the tree."),
    format: Optional[list[str]] = typer.Option(None, "--format", "-f",
                                               help="auto, text, json, csv, github, sarif or junit; FORMAT:FILE writes to a "
                                                    "file. Repeatable. auto is github under GitHub Actions. "
                                                    "Without it, -o FILE.json writes JSON (the extension decides)."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="File for the output (default stdout)."),
    select: Optional[list[str]] = typer.Option(None, "--select", help="Only these codes or prefixes (PRF,RNG001)."),
    ignore: Optional[list[str]] = typer.Option(None, "--ignore", help="Skip these codes or prefixes."),
    waivers: Optional[str] = typer.Option(None, "--waivers", help="YAML file of waivers, each with a reason."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Worker processes (default: all cores)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Progress bar on a terminal."),
    inference_repo: Optional[str] = typer.Option(None, "--inference-repo",
                                                 help="Clone of mlcommons/inference: runs the loadgen provenance rules."),
    strict: bool = typer.Option(False, "--strict", help="Treat every warning as an error."),
    changed_since: Optional[str] = typer.Option(None, "--changed-since",
                                                help="Git ref: check only the results changed since it."),
) -> None:
    """Check a submission tree and print a verdict per result."""
    if not os.path.isdir(path):
        _fail(f"{path} is not a folder")
    if inference_repo is not None:
        _repository_or_fail(inference_repo)
    round_name = _round_name(round, path)
    the_round = _round_or_fail(round_name)
    try:
        waiver_list = load_waivers(waivers) if waivers else []
    except WaiverError as error:
        _fail(str(error))
    targets = _targets(list(format or []), output)
    scope = None
    if changed_since:
        from .changes import changed_paths, scope_of

        try:
            scope = scope_of(changed_paths(path, changed_since), the_round)
        except ValueError as error:
            _fail(str(error))

    stderr = Console(stderr=True)
    bar = None
    if progress and stderr.is_terminal:
        from rich.progress import Progress

        bar = Progress(console=stderr, transient=True)
        task = bar.add_task("checking", total=None)
        bar.start()

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)
    else:
        tick = None
    try:
        report = run_check(path, round_name, _split(select), _split(ignore), jobs or None, waiver_list, tick,
                           inference_repo=inference_repo, strict=strict, scope=scope)
    finally:
        if bar is not None:
            bar.stop()

    if scope is not None:
        Console(stderr=True, highlight=False).print(
            f"--changed-since {changed_since}: {scope.changed} changed files; checked {len(report.results)} results")
    if not any(name == "text" for name, _ in targets):
        # Data goes to stdout or files; people still get the text report on stderr.
        WRITERS["text"](report, sys.stderr)
    for name, target in targets:
        with _destination(target) as out:
            WRITERS[name](report, out)
    raise typer.Exit(exit_code(report))


def exit_code(report: Report) -> int:
    if any(f.code == "INT001" for f in report.findings):
        return EXIT_INTERNAL
    return EXIT_FINDINGS if report.has_errors else EXIT_OK


@app.command()
def table(
    path: str = typer.Argument(..., help="Folder holding closed/, open/ or network/ submissions."),
    round: Optional[str] = typer.Option(None, "--round", "-r",
                                        help="Round name (e.g. v6.1) or round file; default: detected from the tree."),
    format: str = typer.Option("json", "--format", "-f",
                               help="json (the round's published file: summary_results.json up to v6.0, "
                                    "summary.json from v6.1) or csv (the same rows and keys)."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="File for the table (default stdout)."),
    publish_base: Optional[str] = typer.Option(None, "--publish-base",
                                               help="Base URL of the published tree: adds Details, Code, ColorKey "
                                                    "(where the round's table has them)."),
    first_id: Optional[int] = typer.Option(None, "--first-id", help="First ID number: adds ID (with --publish-base)."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Worker processes (default: all cores)."),
) -> None:
    """The published results table in the round's format: one row per valid result."""
    from .table import TableFormat, dumps, render, to_csv

    if not os.path.isdir(path):
        _fail(f"{path} is not a folder")
    if format not in ("json", "csv"):
        _fail(f"unknown format {format!r}; choose json or csv")
    if (publish_base is None) != (first_id is None):
        _fail("--publish-base and --first-id go together")
    round_name = _round_name(round, path)
    the_round = _round_or_fail(round_name)
    fmt = TableFormat.of(the_round)
    if fmt is None:
        _fail(f"round {the_round.name} has no results-table format (`table:` in its round file)")
    if publish_base is not None and not fmt.publication:
        _fail(f"the {the_round.name} table ({fmt['file']}) has no ID, Details, Code or ColorKey; "
              "leave out --publish-base and --first-id")
    report = run_check(path, round_name, jobs=jobs or None)
    rows = render([r.row for r in report.results if r.valid and r.row], fmt, publish_base, first_id)
    with _destination(output) as out:
        out.write(dumps(rows, fmt) if format == "json" else to_csv(rows, fmt.all_keys()))
    left_out = sum(1 for r in report.results if not r.valid)
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"{len(rows)} rows in the {the_round.name} table format ({fmt['file']}); "
        f"{left_out} invalid results left out (`mlperf-check check` says why)")
    raise typer.Exit(EXIT_INTERNAL if any(f.code == "INT001" for f in report.findings) else EXIT_OK)


@app.command()
def followup(
    previous: str = typer.Option(..., "--previous", help="The preview round: a submission tree or a results table."),
    current: str = typer.Option(..., "--current", help="The target round: a submission tree or a results table."),
    previous_round: Optional[str] = typer.Option(None, "--previous-round",
                                                 help="Round of a --previous tree; default: detected."),
    current_round: Optional[str] = typer.Option(None, "--current-round",
                                                help="Round of --current (its benchmarks); default: detected."),
    mapping: Optional[str] = typer.Option(None, "--mapping", help="YAML: previous system -> current system."),
    format: str = typer.Option("text", "--format", "-f", help="text, json or csv."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="File for the report (default stdout)."),
) -> None:
    """Preview results followed up as Available, at most 2% worse, in the target round."""
    from . import followup as fu
    from .table import table_of

    if format not in ("text", "json", "csv"):
        _fail(f"unknown format {format!r}; choose text, json or csv")
    if os.path.isdir(previous):
        previous_round = _round_name(previous_round, previous, "--previous: ")
    if os.path.isdir(current):
        current_round = _round_name(current_round, current, "--current: ")
    try:
        before = table_of(previous, previous_round)
        after = table_of(current, current_round)
        names = fu.load_mapping(mapping) if mapping else None
    except (OSError, ValueError, RoundError) as error:
        _fail(str(error))
    report = fu.follow_up(before, after, names, current_round)
    with _destination(output) as out:
        out.write({"text": fu.to_text, "json": fu.to_json, "csv": fu.to_csv}[format](report))
    raise typer.Exit(EXIT_FINDINGS if report.failed else EXIT_OK)


def _repository_or_fail(path: str) -> None:
    from .provenance import RepositorySource

    try:
        RepositorySource(path)
    except Exception as error:  # noqa: BLE001 - any reason a clone cannot be opened
        _fail(f"--inference-repo {path} is not a readable git repository: {type(error).__name__}: {error}")


@app.command()
def provenance(
    path: str = typer.Argument(..., help="Folder holding closed/, open/ or network/ submissions."),
    round: Optional[str] = typer.Option(None, "--round", "-r",
                                        help="Round name (e.g. v6.1) or round file; default: detected from the tree."),
    inference_repo: Optional[str] = typer.Option(None, "--inference-repo",
                                                 help="Clone of mlcommons/inference (else the bundled table)."),
    format: str = typer.Option("text", "--format", "-f", help="text, json or csv."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="File for the report (default stdout)."),
) -> None:
    """Which loadgen each result ran: its rev, and whether it descends from the seed release."""
    from . import provenance as prv
    from .model import discover, locate, results_of, systems_of
    from .tree import Tree

    if not os.path.isdir(path):
        _fail(f"{path} is not a folder")
    if format not in ("text", "json", "csv"):
        _fail(f"unknown format {format!r}; choose text, json or csv")
    if inference_repo is not None:
        _repository_or_fail(inference_repo)
    the_round = _round_or_fail(_round_name(round, path))
    source = prv.RepositorySource(inference_repo) if inference_repo else prv.TableSource()
    verdicts = []
    top, part = locate(path, the_round)
    for submission in discover(Tree(top), the_round, part):
        for system in systems_of(submission):
            for result in results_of(system):
                log = result.performance_log
                build = prv.build_of(log) if log is not None else None
                if build is not None:
                    verdicts.append(prv.judge(result.location, build, the_round, source))
    with _destination(output) as out:
        out.write({"text": prv.to_text, "json": prv.to_json, "csv": prv.to_csv}[format](verdicts, the_round))
    raise typer.Exit(EXIT_OK)


@app.command()
def compare(
    inputs: list[str] = typer.Argument(..., help="Results tables (JSON or CSV) or submission trees; merged."),
    round: Optional[str] = typer.Option(None, "--round", "-r",
                                        help="Round of the submission trees (default: detected per tree)."),
    tolerance: float = typer.Option(0.04, "--tolerance", help="Within tolerance when mean |deviation| <= this."),
    outlier: float = typer.Option(0.10, "--outlier", help="Outlier when |deviation| > this."),
    reference: str = typer.Option("median", "--reference", help="median, or submitter:NAME."),
    min_submitters: int = typer.Option(2, "--min-submitters", help="Groups need this many distinct submitters."),
    format: str = typer.Option("text", "--format", "-f", help="text, json, csv or html."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="File for the report (default stdout)."),
    plot: Optional[str] = typer.Option(None, "--plot", help="Draw the deviations into this PNG file."),
) -> None:
    """How close comparable results of different submitters are, with outliers and why."""
    from . import compare as cmp
    from .table import table_of

    if format not in ("text", "json", "csv", "html"):
        _fail(f"unknown format {format!r}; choose text, json, csv or html")
    if reference != "median" and not reference.startswith("submitter:"):
        _fail("--reference is median or submitter:NAME")
    rows = []
    for item in inputs:
        try:
            rows += table_of(item, _round_name(round, item, f"{item}: ") if os.path.isdir(item) else round,
                             with_description=True)
        except (OSError, ValueError, RoundError) as error:
            _fail(f"{item}: {error}")
    options = cmp.Options(tolerance, outlier, reference, min_submitters)
    groups = cmp.compare(rows, options)
    with _destination(output) as out:
        out.write({"text": cmp.to_text, "json": cmp.to_json, "csv": cmp.to_csv, "html": cmp.to_html}[format](
            groups, options))
    if plot:
        try:
            cmp.plot(groups, options, plot)
        except ImportError:
            _fail("--plot needs matplotlib: pip install 'mlperf-check[plot]'")
    raise typer.Exit(EXIT_OK)


@app.command()
def reproduce(
    original: str = typer.Argument(..., help="The original result folder (.../<system>/<benchmark>/<scenario>)."),
    reproduction: str = typer.Argument(..., help="The reproduction's result folder."),
    round: Optional[str] = typer.Option(None, "--round", "-r",
                                        help="Round name or round file (default: detected from the original result)."),
    tolerance: float = typer.Option(0.02, "--tolerance", help="More than this much worse is materially different."),
    format: str = typer.Option("text", "--format", "-f", help="text or json."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="File for the report (default stdout)."),
) -> None:
    """Check a reproduction, its settings against the original's, and compare the numbers."""
    from . import reproduce as rep

    if format not in ("text", "json"):
        _fail(f"unknown format {format!r}; choose text or json")
    the_round = _round_or_fail(_round_name(round, original, result=True))
    try:
        result = rep.reproduce(original, reproduction, the_round, tolerance)
    except rep.ResultPathError as error:
        _fail(str(error))
    with _destination(output) as out:
        out.write(rep.to_json(result) if format == "json" else rep.to_text(result))
    raise typer.Exit(EXIT_FINDINGS if result.failed else EXIT_OK)


@app.command()
def rerun(
    result_path: str = typer.Argument(..., metavar="RESULT", help="The result folder to re-run."),
    command: Optional[str] = typer.Option(None, "--command",
                                          help="Your harness; it writes loadgen logs into $MLPERF_CHECK_OUTPUT."),
    builtin: bool = typer.Option(False, "--builtin", help="The built-in CPU harness (the bundled example's)."),
    workdir: Optional[str] = typer.Option(None, "--workdir", help="Where the re-run goes (default a new temp folder)."),
    round: Optional[str] = typer.Option(None, "--round", "-r",
                                        help="Round name or round file (default: detected from the result)."),
    tolerance: float = typer.Option(0.02, "--tolerance", help="More than this much worse is materially different."),
    format: str = typer.Option("text", "--format", "-f", help="text or json."),
) -> None:
    """Re-run a result (your harness, or the built-in one) and compare it with the original."""
    import tempfile
    import time

    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from . import reproduce as rep

    if (command is None) == (not builtin):
        _fail("give either --command CMD or --builtin")
    the_round = _round_or_fail(_round_name(round, result_path, result=True))
    work = workdir or tempfile.mkdtemp(prefix="mlperf-check-rerun-")
    stderr = Console(stderr=True, highlight=False)
    try:
        copy = rep.prepare_copy(result_path, the_round, work)
    except (rep.ResultPathError, OSError) as error:
        _fail(str(error))
    start = time.perf_counter()
    if builtin:
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=stderr,
                      transient=True, disable=not stderr.is_terminal) as bar:
            task = bar.add_task("re-running", total=None)
            try:
                rep.rerun_builtin(copy, the_round, lambda what: bar.update(task, description=f"re-running: {what}"))
            except (ValueError, ImportError) as error:
                _fail(f"{error} (the built-in harness needs: pip install 'mlperf-check[harness]')"
                      if isinstance(error, ImportError) else str(error))
        status = 0
    else:
        status, _ = rep.rerun_command(copy, command, lambda line: stderr.print(f"  | {line}", markup=False))
    stderr.print(f"re-run finished in {time.perf_counter() - start:.1f} s (exit {status}); logs in {copy}")
    if status != 0:
        _fail(f"the command exited with {status}")
    result = rep.reproduce(result_path, copy, the_round, tolerance)
    typer.echo(rep.to_json(result) if format == "json" else rep.to_text(result), nl=False)
    raise typer.Exit(EXIT_FINDINGS if result.failed else EXIT_OK)


@app.command("rules")
def list_rules() -> None:
    """One line per code: CODE  name  summary."""
    load_all()
    width = max(len(r.name) for r in RULES.values())
    for code in sorted(RULES):
        rule = RULES[code]
        typer.echo(f"{code}  {rule.name:<{width}}  {rule.summary}")


@app.command()
def explain(code: str = typer.Argument(..., help="A finding code, e.g. RNG001.")) -> None:
    """The full documentation of one code: Why, Fix, Policy."""
    load_all()
    rule = RULES.get(code.upper())
    if rule is None:
        _fail(f"unknown code {code!r}; `mlperf-check rules` lists them all")
    typer.echo(f"{rule.code} {rule.name} ({rule.severity.value}, {rule.scope})\n")
    typer.echo(rule.doc)


@app.command()
def rounds() -> None:
    """The round files this version knows."""
    for name in available_rounds():
        loaded = load_round(name)
        typer.echo(f"{name}  {loaded.data.get('title', '')}")


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except Exception as error:  # noqa: BLE001 - an internal error is exit 3, never a bare traceback with 1
        Console(stderr=True, highlight=False).print(
            f"[bold red]internal error:[/] {type(error).__name__}: {error}\n"
            "Please report it with the command line; findings about the input are never this error.")
        raise SystemExit(EXIT_INTERNAL) from None


if __name__ == "__main__":
    main()
