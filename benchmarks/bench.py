"""Time `mlperf-check check` beside a plain read of the same files, as the round grows.

    python benchmarks/bench.py [--copies 1,4,16] [--jobs 2] [--repeat 3] [--changed-since] [--checker PATH]

Each tree is the real v5.1 slice hard-linked N times under new submitter names (16 copies
are about a whole round: 2,192 results, 2.8 GB). For each N, in one run, it prints the
plain read of every file of the tree (one pass, in this process, warm cache) beside the
check of it (`check -j JOBS` in its own subprocess, JSON to a file): wall seconds, CPU
seconds (user + system of the check and its workers), the ratio check/read, results per
second, and the peak RSS of the largest process (the check or one of its workers). Every
measure is the fastest of `--repeat` runs, because the machine may be shared; CPU seconds
vary less than wall seconds there. The last line says whether the time per result stayed
flat (linear time) and the peak did not grow.

With --changed-since it also commits the largest tree to a git repository, breaks one
result, and times `check --changed-since HEAD` (the pre-submission CI case), beside what
its two parts take alone: git's listing of the changes (`ls-files --others` and `diff`,
side by side, as checker/scope.py runs them) and Python's start with `import checker.cli`.
The check runs the two at once, so its time is less than their sum.

`--checker PATH` runs another checkout (e.g. the main branch) for before/after numbers.
Timed runs use bytecode, as an installed package does (`child_env`).

Last measured (issue 14), 2 cores shared with other jobs, `-j 2`. The machine's load
moves these by 20% from one run to the next, the read's too: compare runs of one sitting only.

    load 0.9, after mllog._scalar
                           read s  check s  cpu s  check/read  peak MB (main/worker)
      1 copy,  137 results   0.10     1.01   1.36       10.05  45/47
      4 copies, 548          0.39     1.58   2.61        4.06  48/48
     16 copies, 2,192        2.02     4.68   8.48        2.31  62/51
     (the same sitting, load 1.2 to 1.6: the main branch 6.27 s, 11.56 s of CPU, 4.00x;
      this branch again 5.45 s, 9.91 s of CPU, 2.60x. The read was 1.26 s on a quiet
      machine, so the check is 3.2x to 3.7x a quiet read: the 2.5x goal is not met.)

    quiet (load 0.1), before those two
      1 copy,  137 results   0.08     0.72   1.01        8.70  46/47
      4 copies, 548          0.33     1.27   2.12        3.88  48/49
     16 copies, 2,192        1.26     4.03   7.37        3.21  62/52

    --changed-since HEAD, one result of the 16 copies: 0.68 s, 0.95 s of CPU with git's
    (main: 1.76 s, 1.85 s); alone, git's listing 0.36 s and Python's start with
    `import checker.cli` 0.14 s, which the check runs at once. Fastest of 6 on a quiet
    machine (/usr/bin/time, same tree): 0.53 s, 0.77 s of CPU.

    Issue 21 (a checked result's system and submitter units run whole), the same case,
    10 runs each alternating with the parent commit, load 5.5 from other jobs: fastest
    1.14 s, 1.15 s of CPU (parent 1.08 s, 1.14 s); medians 2.12 s and 1.28 s (parent 2.38 s,
    1.26 s). No quiet machine was to be had for the absolute numbers.
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


def plain_read(root: Path) -> tuple[float, int, int]:
    """Seconds to read every file once, with the number of files and bytes."""
    start, files, size = time.perf_counter(), 0, 0
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            with open(path, "rb", buffering=0) as handle:
                while chunk := handle.read(1 << 20):
                    size += len(chunk)
            files += 1
    return time.perf_counter() - start, files, size


# Runs the CLI and reports, on stderr, the peak RSS of the check's own process (which holds
# the report) and the largest of its workers' (ru_maxrss of RUSAGE_CHILDREN is the largest
# of the reaped children).
_RUN = (
    "import resource, sys; from checker.cli import main; sys.argv = sys.argv[1:]\n"
    "try:\n    main()\nexcept SystemExit:\n    pass\n"
    "sys.stderr.write('PEAK_KB=%d %d\\n' % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,"
    " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
)


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


def timed_check(root: Path, jobs: int, checker: str, *extra: str) -> dict:
    """Wall and CPU seconds, peak RSS (MB) and the JSON summary of one `check` subprocess."""
    env = child_env(checker)
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        start = time.perf_counter()
        process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                _RUN,
                "mlperf-check",
                "check",
                str(root),
                "--round",
                "v5.1",
                "-f",
                "json",
                "-o",
                out.name,
                "-j",
                str(jobs),
                "--no-progress",
                *extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=root.parent,
        )
        stderr = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        process.stderr.close()
        peak = [line for line in stderr.splitlines() if line.startswith("PEAK_KB=")]
        if not peak or os.path.getsize(out.name) == 0:
            raise SystemExit(f"check failed (exit {process.returncode}):\n{stderr}")
        summary = json.load(open(out.name))["summary"]
    main_kb, worker_kb = (int(n) for n in peak[-1].split("=")[1].split())
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak": max(main_kb, worker_kb) / 1024,
        "main": main_kb / 1024,
        "worker": worker_kb / 1024,
        "summary": summary,
        "stderr": stderr,
    }


def best(runs: list[dict]) -> dict:
    row = dict(min(runs, key=lambda r: r["wall"]))
    row["cpu"] = min(r["cpu"] for r in runs)
    for key in ("peak", "main", "worker"):
        row[key] = max(r[key] for r in runs)
    return row


def _link(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system: a copy
        shutil.copy2(source, target)


def synthetic(root: Path, copies: int, where: Path) -> Path:
    target = where / f"round-x{copies}"
    for division in ("closed", "open"):
        for submitter in sorted((root / division).iterdir()):
            for n in range(copies):
                shutil.copytree(submitter, target / division / f"{submitter.name}_{n:02d}", copy_function=_link)
    return target


def series(args: argparse.Namespace, scratch: Path) -> Path:
    print(
        f"checker: {args.shown}  python {sys.version.split()[0]}  check -j {args.jobs}, "
        f"fastest of {args.repeat} runs; read = one plain pass over every file, same tree, warm cache; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(
        f"{'copies':>6} {'results':>7} {'files':>6} {'GB':>5} {'read s':>7} {'check s':>8} {'cpu s':>7} "
        f"{'check/read':>10} {'results/s':>9} {'ms/result':>9} {'peak MB':>8} {'(main':>6} {'worker)':>7}"
    )
    rows, tree = [], None
    for copies in args.copies:
        tree = synthetic(args.root, copies, scratch)
        plain_read(tree)  # warm the page cache and the directory entries
        reads = [plain_read(tree) for _ in range(args.repeat)]
        read_s, files, size = min(reads)
        timed_check(tree, args.jobs, args.checker)  # warm the imports
        row = best([timed_check(tree, args.jobs, args.checker) for _ in range(args.repeat)])
        results = row["summary"]["results"]
        rows.append((copies, results, row))
        print(
            f"{copies:>6} {results:>7} {files:>6} {size / 1e9:>5.2f} {read_s:>7.2f} {row['wall']:>8.2f} "
            f"{row['cpu']:>7.2f} {row['wall'] / read_s:>10.2f} {results / row['wall']:>9.0f} "
            f"{1000 * row['wall'] / results:>9.2f} {row['peak']:>8.0f} {row['main']:>6.0f} {row['worker']:>7.0f}",
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


def changed_since(root: Path, jobs: int, checker: str, repeat: int) -> None:
    """Commit the tree, break one result, and time the check of what changed."""
    import git

    start = time.perf_counter()
    repo = git.Repo.init(root)
    repo.git.add(A=True)
    repo.index.commit("round")
    setup = time.perf_counter() - start
    summary = next(root.glob("closed/*/results/*/*/*/accuracy/accuracy.txt"))
    text = summary.read_text()
    summary.unlink()  # hard-linked to the slice: replace, never write through the link
    summary.write_text(text.replace("hash=", "hash=0"))
    row = best([timed_check(root, jobs, checker, "--changed-since", "HEAD") for _ in range(repeat + 1)])
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
        f"{row['wall']:.2f} s ({row['cpu']:.2f} s CPU, git's included), peak {row['peak']:.0f} MB. Alone, "
        f"git's listing (ls-files --others and diff-index, side by side) takes {min(git_s):.2f} s and Python's start "
        f"with `import checker.cli` {min(import_s):.2f} s; the check runs them at once "
        f"(git add + commit of the tree took {setup:.0f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--copies",
        default="1,4,16",
        type=lambda text: [int(n) for n in text.split(",")],
        help="copies of the slice, a series (default 1,4,16)",
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per measure; the fastest is shown")
    parser.add_argument("--root", type=Path, default=REAL)
    parser.add_argument("--checker", help="another checkout to run (its folder goes first on PYTHONPATH)")
    parser.add_argument("--changed-since", action="store_true", help="also time check --changed-since")
    args = parser.parse_args()
    args.checker = str(Path(args.checker or HERE.parent).resolve())
    # Hard links to the slice where the temporary folder is on its file system, else copies.
    with tempfile.TemporaryDirectory(prefix="mlperf-check-bench-") as scratch:
        args.shown, args.checker = args.checker, importable(Path(args.checker), Path(scratch))
        tree = series(args, Path(scratch))
        if args.changed_since:
            changed_since(tree, args.jobs, args.checker, args.repeat)


if __name__ == "__main__":
    main()
