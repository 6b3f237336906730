"""Time `mlperf-check check` on the real v5.1 slice and on a synthetic, larger tree.

    python benchmarks/bench.py [--copies 12] [--jobs 2] [--changed-since]

The synthetic tree is the slice hard-linked N times under new submitter names (about the
size of a whole round for N=12). For each tree it prints results per second, the peak
memory of the check, and the ratio of its wall time to a plain read of the same files.
With --changed-since it also commits the synthetic tree to a git repository, breaks one
result, and times `check --changed-since HEAD` (the pre-submission CI case).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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
            with open(path, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    size += len(chunk)
            files += 1
    return time.perf_counter() - start, files, size


def timed_check(root: Path, round_name: str, jobs: int, *extra: str) -> tuple[float, float, dict]:
    """Wall seconds, peak RSS (MB) of the check process, and its JSON summary."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        code = (
            "import resource, sys; from checker.cli import main; sys.argv = sys.argv[1:];\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('PEAK_KB=%d\\n' % max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,"
            " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))"
        )
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", code, "mlperf-check", "check", str(root), "--round", round_name, "-f",
             "json", "-o", out.name, "-j", str(jobs), "--no-progress", *extra],
            capture_output=True, text=True,
        )
        wall = time.perf_counter() - start
        peak = [line for line in done.stderr.splitlines() if line.startswith("PEAK_KB=")]
        summary = json.load(open(out.name))["summary"]
    return wall, int(peak[-1].split("=")[1]) / 1024 if peak else float("nan"), summary


def synthetic(root: Path, copies: int, where: Path) -> Path:
    target = where / "round"
    for division in ("closed", "open"):
        for submitter in sorted((root / division).iterdir()):
            for n in range(copies):
                shutil.copytree(submitter, target / division / f"{submitter.name}_{n:02d}",
                                copy_function=os.link)
    return target


def report(name: str, root: Path, jobs: int) -> None:
    read_s, files, size = plain_read(root)
    wall, peak, summary = timed_check(root, "v5.1", jobs)
    print(f"{name}: {summary['results']} results, {files} files, {size / 1e9:.2f} GB; "
          f"check {wall:.2f} s ({summary['results'] / wall:.0f} results/s), peak {peak:.0f} MB; "
          f"plain read {read_s:.2f} s (check/read = {wall / read_s:.2f})")


def changed_since(root: Path, jobs: int) -> None:
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
    wall, peak, result = timed_check(root, "v5.1", jobs, "--changed-since", "HEAD")
    print(f"--changed-since HEAD, one result changed: {result['results']} result checked in {wall:.2f} s, "
          f"peak {peak:.0f} MB (git add + commit of the tree took {setup:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=12)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--root", type=Path, default=REAL)
    parser.add_argument("--changed-since", action="store_true", help="also time check --changed-since")
    args = parser.parse_args()
    report("real v5.1 slice", args.root, args.jobs)
    if args.copies:
        with tempfile.TemporaryDirectory() as scratch:
            big = synthetic(args.root, args.copies, Path(scratch))
            report(f"synthetic x{args.copies}", big, args.jobs)
            if args.changed_since:
                changed_since(big, args.jobs)


if __name__ == "__main__":
    main()
