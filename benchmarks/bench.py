"""Time `mlperf-check` on a whole real round beside the official checker and a plain read, and
as the round grows.

    python benchmarks/bench.py --tree DIR [--official CLONE] [--round v5.1] [--jobs 2] [--repeat 3]
    python benchmarks/bench.py [--copies 1,4,16] [--changed-since] [--checker PATH]

With --tree (a published round, e.g. a clone of mlcommons/inference_results_v5.1), in one run:

- the results whose loadgen logs are missing from DIR (a snapshot can lack blobs) are left
  out, as a folder of hard links beside the others (DIR itself is never written), and
  counted: a result whose run folder holds a summary log without its detail log (or the
  reverse), or whose power folder has no ptd_logs.txt;
- with --official, the official checker of that clone of mlcommons/inference times the same
  tree (`python -m submission_checker.main --input TREE --version ROUND` in its
  tools/submission, or the single-file submission_checker.py of older clones), once;
- the files the check opens are listed (one untimed run that records every file it opens)
  and read plainly, each once, in one process: the floor any checker of those files pays;
- `check -j JOBS` (JSON to a file) and `report -j JOBS` (the HTML page) are timed: wall and
  CPU seconds (user + system of the command and its workers), the peak RSS of the largest
  process, and where the check's time goes (Report.phases: start, listing, running units
  with the workers' own phases summed, merging, writing). The check runs cold (an empty
  cache folder of its own each time, checker/cache.py), warm (the same tree again, with the
  cache the cold run left) and with --no-cache; the report runs cold, as the check it is
  set against. Every cache folder is in the benchmark's scratch folder, never the user's.

Then, and without --tree, the slice series: the real v5.1 slice (../shared/real/v5.1)
hard-linked N times under new submitter names (16 copies are about a whole round), each
copy's plain read of every file beside its check: time per result and peak memory must stay
flat as the round grows. --copies '' skips it. With --changed-since it also commits the
largest copy to a git repository, breaks one result and times `check --changed-since HEAD`.

Every measure of ours is the fastest of --repeat runs (the official checker runs once: it
takes tens of seconds). The machine may be shared: each line says the load average it was
taken at, and CPU seconds vary less than wall seconds. `--checker PATH` runs another
checkout (e.g. the main branch) for before/after numbers. Timed runs use bytecode, as an
installed package does (`child_env`). docs/scaling.md keeps the last numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REAL = (HERE.parent.parent / "shared" / "real" / "v5.1").resolve()
LOGS = ("mlperf_log_summary.txt", "mlperf_log_detail.txt")


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


# --- the tree -----------------------------------------------------------------------------
def incomplete(tree: Path) -> set[tuple[str, ...]]:
    """(division, submitter, system, benchmark, scenario) of each result a folder of which
    lacks a loadgen log: a summary without its detail log or the reverse, or a power folder
    without ptd_logs.txt."""
    found = set()
    for folder, _, names in os.walk(tree):
        parts = Path(folder).relative_to(tree).parts
        if len(parts) < 6 or parts[2] not in ("results", "compliance"):
            continue
        held = set(names)
        if (LOGS[0] in held) != (LOGS[1] in held) or (
            parts[-2:] == ("performance", "power") and "ptd_logs.txt" not in held
        ):
            found.add((parts[0], parts[1], *parts[3:6]))
    return found


def _link(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system: a copy
        shutil.copy2(source, target)


def without(tree: Path, skipped: set[tuple[str, ...]], target: Path) -> Path:
    """A copy of `tree` made of hard links (and its own symlinks), without the results,
    compliance runs and measurements of the `skipped` results."""
    for folder, folders, names in os.walk(tree):
        rel = Path(folder).relative_to(tree)
        parts = rel.parts
        if (
            len(parts) >= 6
            and parts[2] in ("results", "compliance", "measurements")
            and ((parts[0], parts[1], *parts[3:6]) in skipped)
        ):
            folders[:] = []
            continue
        (target / rel).mkdir(parents=True, exist_ok=True)
        for name in folders + names:
            source = os.path.join(folder, name)
            if os.path.islink(source):
                os.symlink(os.readlink(source), target / rel / name)
            elif name in names:
                _link(source, str(target / rel / name))
        folders[:] = [name for name in folders if not os.path.islink(os.path.join(folder, name))]
    return target


def plain_read(paths: list[str]) -> tuple[float, int]:
    """Seconds to read every file once (1 MiB reads, no buffer), and the bytes read."""
    start, size = time.perf_counter(), 0
    for path in paths:
        with open(path, "rb", buffering=0) as handle:
            while chunk := handle.read(1 << 20):
                size += len(chunk)
    return time.perf_counter() - start, size


def every_file(root: Path) -> list[str]:
    return [
        os.path.join(folder, name)
        for folder, _, names in os.walk(root)
        for name in names
        if not os.path.islink(os.path.join(folder, name))
    ]


# --- our runs -----------------------------------------------------------------------------
# Runs the CLI and reports on stderr the peak RSS of the command's own process and the
# largest of its workers' (ru_maxrss of RUSAGE_CHILDREN is the largest reaped child), and when
# engine.check started and ended and its report's phases (time.perf_counter is the system's
# monotonic clock, so the parent can set these against when it started the process).
_RUN = r"""
import atexit, importlib.machinery, json, resource, sys, time
seen = {}
class Timed(importlib.machinery.PathFinder):
    # engine.check wrapped when the CLI imports the engine, as late as it does: imported here
    # first, it would delay what the CLI starts before (git's listing, --changed-since).
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        spec = super().find_spec(name, path, target) if name == "checker.engine" else None
        if spec is not None:
            run = spec.loader.exec_module
            def exec_module(module):
                run(module)
                check = module.check
                def timed(*args, **kwargs):
                    seen["check"] = time.perf_counter()
                    report = check(*args, **kwargs)
                    seen["checked"], seen["phases"] = time.perf_counter(), getattr(report, "phases", {})
                    return report
                module.check = timed
            spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, Timed)
def ended():
    seen["ended"] = time.perf_counter()
    seen["main_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    seen["worker_kb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    sys.stderr.write("BENCH=" + json.dumps(seen) + "\n")
    sys.stderr.flush()
atexit.register(ended)  # the CLI ends with os._exit (checker/process.py), after the exit functions
from checker.cli import main
sys.argv = sys.argv[1:]
main()
"""

# The same, recording every file the command opens under the tree (its workers inherit the
# hook), one path a line, for the plain read: the census run is not timed.
_CENSUS = r"""
import os, sys
out, root = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), sys.argv[2] + os.sep
def hook(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].startswith(root):
        os.write(out, (args[0] + "\n").encode())
sys.addaudithook(hook)
from checker.cli import main
sys.argv = sys.argv[3:]
main()  # ends the process (os._exit): each open is written as it happens
"""


def importable(checkout: Path, scratch: Path) -> str:
    """A folder to put first on PYTHONPATH so that `checker` is the checkout's own, its rules
    and schemas included: the source tree keeps them in rules/ and schemas/, which only an
    install maps into the package, so a checkout without checker/rules gets an overlay of
    links in `scratch`."""
    if (checkout / "checker" / "rules").is_dir():
        return str(checkout)
    overlay = scratch / "checker-overlay" / "checker"
    overlay.mkdir(parents=True)
    for entry in (checkout / "checker").iterdir():
        (overlay / entry.name).symlink_to(entry)
    (overlay / "rules").symlink_to(checkout / "rules")
    (overlay / "schemas").symlink_to(checkout / "schemas")
    return str(overlay.parent)


def child_env(checker: str) -> dict[str, str]:
    """The environment of a timed run: the checkout first on PYTHONPATH, and its modules
    run from bytecode, as an installed package's are (pip compiles them when it installs):
    under PYTHONDONTWRITEBYTECODE every run would compile the checker anew (0.15 s), so the
    bytecode goes to a folder of the benchmark's own (PYTHONPYCACHEPREFIX), never into the
    checkout."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [checker, os.environ.get("PYTHONPATH")])))
    if env.pop("PYTHONDONTWRITEBYTECODE", None) is not None and "PYTHONPYCACHEPREFIX" not in env:
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "mlperf-check-bench-pycache")
    return env


def timed(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> dict:
    """Wall and CPU seconds (the process and its reaped children), peak RSS (MB) of one run,
    its exit status and stderr; `started`, its start on time.perf_counter's clock."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace"
    )
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.stderr.close()
    return {
        "wall": time.perf_counter() - started,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak": usage.ru_maxrss / 1024,
        "exit": os.waitstatus_to_exitcode(status),
        "stderr": stderr,
        "started": started,
    }


def ours(command: str, tree: Path, round_name: str, jobs: int, checker: str, output: str, *extra: str) -> dict:
    """One timed run of `mlperf-check COMMAND TREE`, with what _RUN reports."""
    fmt = ["-f", "json"] if command == "check" else []
    run = timed(
        [sys.executable, "-c", _RUN, "mlperf-check", command, str(tree), "--round", round_name, *fmt, "-o", output]
        + ["-j", str(jobs), "--no-progress", *extra],
        tree.parent,
        child_env(checker),
    )
    lines = [line for line in run["stderr"].splitlines() if line.startswith("BENCH=")]
    if not lines or not os.path.getsize(output):
        raise SystemExit(f"{command} failed (exit {run['exit']}):\n{run['stderr']}")
    seen = json.loads(lines[-1].split("=", 1)[1])
    run.update(seen, main=seen["main_kb"] / 1024, worker=seen["worker_kb"] / 1024)
    run["peak"] = max(run["main"], run["worker"])
    if command == "check":
        with open(output) as handle:
            run["summary"] = json.load(handle)["summary"]
    return run


def best(runs: list[dict]) -> dict:
    row = dict(min(runs, key=lambda r: r["wall"]))
    row["cpu"] = min(r["cpu"] for r in runs)
    for key in ("peak", "main", "worker"):
        row[key] = max(r[key] for r in runs)
    return row


def phases_line(run: dict) -> str:
    """Where the check's time went: its start (interpreter, imports, command line, round),
    Report.phases, and the writing of the output after engine.check returned."""
    spent = run["phases"]
    if not spent:  # a checker from before Report.phases
        return (
            f"start {run['check'] - run['started']:.2f} | check {run['checked'] - run['check']:.2f} | writing "
            f"{run['ended'] - run['checked']:.2f}"
        )
    workers = {k: v for k, v in spent.items() if k not in ("listing", "running units", "merging")}
    inside = ", ".join(f"{k} {v:.2f}" for k, v in sorted(workers.items(), key=lambda kv: -kv[1]))
    return (
        f"start {run['check'] - run['started']:.2f} | listing {spent['listing']:.2f} | running units "
        f"{spent['running units']:.2f} (in the workers, summed: {inside}) | merging {spent['merging']:.2f} | "
        f"writing {run['ended'] - run['checked']:.2f} | exit {run['wall'] - (run['ended'] - run['started']):.2f}"
    )


def census(tree: Path, round_name: str, jobs: int, checker: str, scratch: Path) -> list[str]:
    """Every file `check` opens under `tree` (one run, not timed)."""
    record = scratch / "opened.txt"
    root = os.path.realpath(tree)
    output = str(scratch / "census.json")
    subprocess.run(
        [sys.executable, "-c", _CENSUS, str(record), root, "mlperf-check", "check", root, "--round", round_name]
        + ["-f", "json", "-o", output, "-j", str(jobs), "--no-progress"],
        cwd=tree.parent,
        env=child_env(checker),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if not record.exists():
        raise SystemExit(f"the check of {tree} opened no file")
    return sorted(set(record.read_text().splitlines()))


# --- the official checker ---------------------------------------------------------------
def official(clone: Path, tree: Path, round_name: str, scratch: Path) -> dict:
    """One run of the official checker of `clone` on `tree`, for `round_name`."""
    folder = clone / "tools" / "submission"
    csv = scratch / "official.csv"
    if (folder / "submission_checker" / "main.py").is_file():
        command = [sys.executable, "-m", "submission_checker.main"]
    elif (folder / "submission_checker.py").is_file():
        command = [sys.executable, "submission_checker.py", "--skip-extra-files-in-root-check"]
    else:
        raise SystemExit(f"{clone}: no tools/submission/submission_checker to run")
    run = timed(command + ["--input", str(tree), "--version", round_name, "--csv", str(csv)], folder)
    run["shown"] = " ".join(["python"] + command[1:] + ["--version", round_name])
    run["rows"] = max(0, len(csv.read_text().splitlines()) - 1) if csv.exists() else 0
    if run["exit"] not in (0, 1) or not csv.exists():
        tail = "\n".join(run["stderr"].splitlines()[-5:])
        raise SystemExit(f"the official checker failed (exit {run['exit']}):\n{tail}")
    return run


# --- a whole round ------------------------------------------------------------------------
def round_run(args: argparse.Namespace, scratch: Path) -> None:
    tree = args.tree.resolve()
    skipped = incomplete(tree)
    print(
        f"{tree}: round {args.round}, python {sys.version.split()[0]}, {os.cpu_count()} cores, check and report "
        f"-j {args.jobs} (fastest of {args.repeat}), checker {args.shown}"
    )
    if skipped:
        tree = without(tree, skipped, scratch / "round" / tree.name)
        print(
            f"  {len(skipped)} results left out: their loadgen logs are missing from the snapshot ("
            + ", ".join("/".join(key) for key in sorted(skipped)[:3])
            + (", ..." if len(skipped) > 3 else "")
            + ")"
        )
    rows = []
    if args.official:
        print(f"  the official checker ({load()}) ...", flush=True)
        ran = official(args.official.resolve(), tree, args.round, scratch)
        rows.append(
            (
                "official checker",
                ran,
                f"{ran['shown']}: exit {ran['exit']}, {ran['rows']} rows in its CSV",
            )
        )
    opened = census(tree, args.round, args.jobs, args.checker, scratch)
    plain_read(opened)  # warm the page cache
    reads = [(*plain_read(opened), load()) for _ in range(args.repeat)]
    read_s, size, read_load = min(reads)

    def timed_runs(command: str, output: str, cache: str | None, runs: int) -> dict:
        """The fastest of `runs`: cache "cold" (an empty folder each run), "warm" (the one
        the cold runs filled), or None (--no-cache)."""
        found = []
        for number in range(runs):
            folder = scratch / f"cache-{command}-{number}" if cache == "cold" else scratch / "cache-check-0"
            extra = ["--no-cache"] if cache is None else ["--cache-dir", str(folder)]
            run = ours(command, tree, args.round, args.jobs, args.checker, str(scratch / output), *extra)
            run["load"] = load()
            found.append(run)
        return best(found)

    ours("check", tree, args.round, args.jobs, args.checker, str(scratch / "check.json"), "--no-cache")  # imports
    check = timed_runs("check", "check.json", "cold", args.repeat)
    warm = timed_runs("check", "check.json", "warm", args.repeat)
    uncached = timed_runs("check", "check.json", None, args.repeat)
    report = timed_runs("report", "report.html", "cold", args.repeat)
    if warm["summary"] != check["summary"] or uncached["summary"] != check["summary"]:
        raise SystemExit(f"the runs disagree: {check['summary']}, warm {warm['summary']}, {uncached['summary']}")
    summary = check["summary"]
    print(
        f"  {summary['results']} results ({summary['valid']} valid); the check opens {len(opened)} files, "
        f"{size / 1e9:.2f} GB"
    )
    print(f"  {'':34} {'wall s':>7} {'cpu s':>7} {'peak MB':>8}  load")
    for name, ran, note in rows:
        print(f"  {name:34} {ran['wall']:>7.2f} {ran['cpu']:>7.2f} {ran['peak']:>8.0f}  {note}")
    print(f"  {'plain read of those files':34} {read_s:>7.2f} {'':>7} {'':>8}  {read_load}")
    named = (
        ("check, cold (empty cache)", check),
        ("check, warm (same tree again)", warm),
        ("check --no-cache", uncached),
        ("report, cold (empty cache)", report),
    )
    for name, ran in named:
        print(
            f"  {name + f' -j {args.jobs}':34} {ran['wall']:>7.2f} {ran['cpu']:>7.2f} "
            f"{ran['peak']:>8.0f}  {ran['load']} (own process {ran['main']:.0f} MB, a worker {ran['worker']:.0f} MB)"
        )
    print(f"  check, cold: {phases_line(check)}")
    print(f"  check, warm: {phases_line(warm)}")
    verdicts = [
        f"cold {check['wall'] / read_s:.1f}x the plain read",
        f"peak {max(check['peak'], warm['peak']):.0f} MB (goal 100)",
        f"report {report['wall'] / check['wall']:.2f}x the cold check and {report['peak']:.0f} MB (goal 1.2x, 100 MB)",
    ]
    if args.official:
        ran = rows[0][1]
        verdicts[:0] = [
            f"cold {ran['wall'] / check['wall']:.1f}x faster than the official checker (goal 12x)",
            f"warm {ran['wall'] / warm['wall']:.1f}x (goal 30x)",
        ]
    print("  " + "; ".join(verdicts))


# --- the slice series ---------------------------------------------------------------------
def synthetic(root: Path, copies: int, where: Path) -> Path:
    target = where / f"round-x{copies}"
    for division in ("closed", "open"):
        for submitter in sorted((root / division).iterdir()):
            for n in range(copies):
                shutil.copytree(submitter, target / division / f"{submitter.name}_{n:02d}", copy_function=_link)
    return target


def series(args: argparse.Namespace, scratch: Path) -> Path:
    print(
        f"slice series: {args.root} copied N times, check -j {args.jobs}, fastest of {args.repeat} runs; "
        f"read = one plain pass over every file, same tree, warm cache; {load()} on {os.cpu_count()} cores"
    )
    print(
        f"{'copies':>6} {'results':>7} {'files':>6} {'GB':>5} {'read s':>7} {'check s':>8} {'cpu s':>7} "
        f"{'check/read':>10} {'results/s':>9} {'ms/result':>9} {'peak MB':>8} {'(main':>6} {'worker)':>7}  load"
    )
    rows, tree = [], None
    for copies in args.copies:
        tree = synthetic(args.root, copies, scratch)
        files = every_file(tree)
        plain_read(files)  # warm the page cache and the directory entries
        read_s, size = min(plain_read(files) for _ in range(args.repeat))
        output = str(scratch / "series.json")
        uncached = ("--no-cache",)  # each run reads every file, as the first one does
        ours("check", tree, "v5.1", args.jobs, args.checker, output, *uncached)  # warm the imports
        row = best(
            [ours("check", tree, "v5.1", args.jobs, args.checker, output, *uncached) for _ in range(args.repeat)]
        )
        results = row["summary"]["results"]
        rows.append((copies, results, row))
        print(
            f"{copies:>6} {results:>7} {len(files):>6} {size / 1e9:>5.2f} {read_s:>7.2f} {row['wall']:>8.2f} "
            f"{row['cpu']:>7.2f} {row['wall'] / read_s:>10.2f} {results / row['wall']:>9.0f} "
            f"{1000 * row['wall'] / results:>9.2f} {row['peak']:>8.0f} {row['main']:>6.0f} {row['worker']:>7.0f}  "
            f"{load()}",
            flush=True,
        )
        if tree != scratch / f"round-x{args.copies[-1]}":
            shutil.rmtree(tree)
    if len(rows) > 1:
        (c0, n0, first), (c1, n1, last) = rows[0], rows[-1]
        print(
            f"x{c1} / x{c0}: {n1 / n0:.0f} times the results in {last['wall'] / first['wall']:.1f} times the wall "
            f"time ({last['cpu'] / first['cpu']:.1f} times the CPU time); peak of a worker {first['worker']:.0f} -> "
            f"{last['worker']:.0f} MB, of the check's own process (it holds the report) {first['main']:.0f} -> "
            f"{last['main']:.0f} MB"
        )
    return tree


def changed_since(root: Path, jobs: int, checker: str, repeat: int, scratch: Path) -> None:
    """Commit the tree, break one result, and time the check of what changed."""
    import git

    start = time.perf_counter()
    repo = git.Repo.init(root)
    repo.git.add(A=True)
    repo.index.commit("round")
    # Packed, as a clone is: loose objects (what add and commit leave) make diff-index read
    # each tree object from a file of its own (0.47 s instead of 0.09 s on 16 copies).
    repo.git.repack("-a", "-d", "-q")
    setup = time.perf_counter() - start
    summary = next(root.glob("closed/*/results/*/*/*/accuracy/accuracy.txt"))
    text = summary.read_text()
    summary.unlink()  # hard-linked to the slice: replace, never write through the link
    summary.write_text(text.replace("hash=", "hash=0"))
    output = str(scratch / "changed.json")
    since = ("--changed-since", "HEAD")
    row = best([ours("check", root, "v5.1", jobs, checker, output, *since, "--no-cache") for _ in range(repeat + 1)])
    kept = ("--cache-dir", str(scratch / "cache-changed"))
    ours("check", root, "v5.1", jobs, checker, output, *since, *kept)  # fills the cache
    warm = best([ours("check", root, "v5.1", jobs, checker, output, *since, *kept) for _ in range(repeat)])
    git_s, import_s = [], []
    for _ in range(repeat + 1):  # what checker/scope.py asks git (side by side), after the checks: a warm index
        start = time.perf_counter()
        listing = [
            subprocess.Popen(["git", *args], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for args in (
                ("ls-files", "--others", "--exclude-standard", "-z"),
                ("diff-index", "-z", "--no-renames", "--relative", "HEAD^{commit}", "--"),
            )
        ]
        for process in listing:
            process.wait()
        git_s.append(time.perf_counter() - start)
        start = time.perf_counter()  # the interpreter and the CLI, before the check starts
        subprocess.run([sys.executable, "-c", "import checker.cli"], env=child_env(checker), check=True)
        import_s.append(time.perf_counter() - start)
    print(
        f"--changed-since HEAD, one result changed: {row['summary']['results']} result checked in "
        f"{row['wall']:.2f} s ({row['cpu']:.2f} s CPU, git's included) without the cache, {warm['wall']:.2f} s "
        f"({warm['cpu']:.2f} s CPU) with the cache of a run before; peak {row['peak']:.0f} MB, {load()}. Alone, "
        f"git's listing (ls-files --others and diff-index, side by side) takes {min(git_s):.2f} s and Python's start "
        f"with `import checker.cli` {min(import_s):.2f} s; the check runs them at once "
        f"(git add, commit and repack of the tree took {setup:.0f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="a whole published round (read-only)")
    parser.add_argument("--official", type=Path, help="a clone of mlcommons/inference: time its checker too")
    parser.add_argument("--round", default="v5.1", help="the round of --tree (default v5.1)")
    parser.add_argument(
        "--copies",
        default=None,
        type=lambda text: [int(n) for n in text.split(",") if n],
        help="copies of the slice, a series (default 1,4,16; '' for none)",
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per measure; the fastest is shown")
    parser.add_argument("--root", type=Path, default=REAL, help="the slice the series copies")
    parser.add_argument("--checker", help="another checkout to run (its folder goes first on PYTHONPATH)")
    parser.add_argument("--changed-since", action="store_true", help="also time check --changed-since")
    args = parser.parse_args()
    args.copies = [1, 4, 16] if args.copies is None else args.copies
    args.checker = str(Path(args.checker or HERE.parent).resolve())
    with tempfile.TemporaryDirectory(prefix="mlperf-check-bench-") as scratch:
        args.shown, args.checker = args.checker, importable(Path(args.checker), Path(scratch))
        if args.tree:
            round_run(args, Path(scratch))
        if args.copies:
            tree = series(args, Path(scratch))
            if args.changed_since:
                changed_since(tree, args.jobs, args.checker, args.repeat, Path(scratch))


if __name__ == "__main__":
    main()
