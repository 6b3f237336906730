"""Time and peak memory of `mlperf-check check` on large detail logs (issue 12, item 2).

    python benchmarks/large_inputs.py [--sizes 1,4,16,64] [--no-huge] [--repeat 3] [--checker PATH] [--timeout 300]

Each case is a copy of the bundled example whose Offline performance log is grown from its
own real records, in a temporary folder that is removed afterwards:

- `records`: copies of the log's own records that no rule reads, inserted in its middle
  (a long run's per-query records); the check must find what it finds in the example;
- `2-byte lines`: the log followed by `x\\n` lines (LOG001, capped at 21 findings);
- `200 MB line`: one line with no newline (FIL009); `2 GB sparse`: a 2 GiB hole of NULs made
  with truncate, which costs no disk (FIL009).

Every case runs `check` in its own subprocess (one worker, `-j 1`), `--repeat` times, and the
run with the least CPU time is shown: its wall and CPU (user + system) seconds; `extra s`, the
CPU time over the untouched example's (which is the interpreter's start and the rules), and
that per MiB of log; and the peak RSS (os.wait4), which must stay flat as the log grows. CPU
time is shown because it varies less than wall time on a shared machine. The checkout beside this script is run, or with
`--checker PATH` another one (e.g. the main branch) for before/after numbers; a run past
`--timeout` is reported as such and killed.
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
EXAMPLE = HERE.parent / "fixtures" / "examples" / "demo-v6.1"
LOG = "closed/MLCheckDemo/results/cpu-1x-numpy/demo-mlp-99/Offline/performance/run_1/mlperf_log_detail.txt"
MiB = 1024 * 1024
WANTED_HINTS = (
    b'"key": "effective_',
    b'"key": "result_',
    b'"key": "early_stopping_',
    b'"is_error": true',
    b'"is_warning": true',
)


def unread_records(lines: list[bytes]) -> bytes:
    """The log's records that no rule reads (the checker's wanted keys are checked too)."""
    sys.path.insert(0, str(HERE.parent))
    from checker.parsers.mllog import is_wanted

    out = []
    for line in lines:
        record = json.loads(line.split(b" ", 1)[1])
        if not is_wanted(record["key"]) and not any(hint in line for hint in WANTED_HINTS[3:]):
            out.append(line)
    return b"".join(out)


def make_log(path: Path, shape: str, size: int) -> None:
    lines = (EXAMPLE / LOG).read_bytes().splitlines(keepends=True)
    original = sum(map(len, lines))
    with open(path, "wb") as handle:
        if shape == "records":
            filler = unread_records(lines)
            middle = len(lines) // 2
            handle.writelines(lines[:middle])
            count, rest = divmod(max(0, size - original), len(filler))
            for _ in range(count):
                handle.write(filler)
            handle.write(filler[: filler.rfind(b"\n", 0, rest) + 1])  # whole records, up to the size
            handle.writelines(lines[middle:])
        elif shape == "2-byte lines":
            handle.writelines(lines)
            count = max(0, size - original) // 2
            piece = b"x\n" * (MiB // 2)
            for _ in range(count // (MiB // 2)):
                handle.write(piece)
            handle.write(b"x\n" * (count % (MiB // 2)))
        elif shape == "200 MB line":
            chunk = b"0123456789abcdef" * 65536
            for _ in range(size // len(chunk)):
                handle.write(chunk)
        elif shape == "2 GB sparse":
            handle.truncate(size)
        else:
            raise ValueError(shape)


def run_check(root: Path, checker: str | None, timeout: float) -> dict:
    """Wall seconds, peak RSS (MiB) and exit status of one `check`, with its findings' codes."""
    out = root.parent / "report.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [checker, os.environ.get("PYTHONPATH")])))
    command = [
        sys.executable,
        "-c",
        "from checker.cli import main; main()",
        "check",
        str(root),
        "--round",
        "demo-v6.1",
        "-f",
        "json",
        "-o",
        str(out),
        "-j",
        "1",
        "--no-progress",
    ]
    start = time.perf_counter()
    # Run from the temporary folder, so that no checkout in the working folder shadows `checker`.
    process = subprocess.Popen(command, env=env, cwd=root.parent, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            process.kill()
            pid, status, usage = os.wait4(process.pid, 0)
            return {
                "wall": time.perf_counter() - start,
                "cpu": usage.ru_utime + usage.ru_stime,
                "peak": usage.ru_maxrss / 1024,
                "exit": "timeout",
                "codes": "",
            }
        time.sleep(0.02)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    codes: dict[str, int] = {}
    if out.is_file():
        for finding in json.loads(out.read_text()).get("findings", []):
            codes[finding["code"]] = codes.get(finding["code"], 0) + 1
        out.unlink()
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak": usage.ru_maxrss / 1024,
        "exit": process.returncode,
        "codes": " ".join(f"{code}x{n}" if n > 1 else code for code, n in sorted(codes.items())) or "-",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,4,16,64", help="Log sizes in MiB (default 1,4,16,64).")
    parser.add_argument("--no-huge", action="store_true", help="Skip the 200 MB line and the 2 GB sparse file.")
    parser.add_argument("--checker", help="Another checkout to run (its folder goes first on PYTHONPATH).")
    parser.add_argument("--timeout", type=float, default=300, help="Seconds before a check is killed.")
    parser.add_argument("--repeat", type=int, default=3, help="Runs per case; the fastest is shown (default 3).")
    args = parser.parse_args()
    args.checker = str(Path(args.checker or HERE.parent).resolve())
    cases = [("untouched example", None, 0)]
    for shape in ("records", "2-byte lines"):
        cases += [(shape, shape, int(size) * MiB) for size in args.sizes.split(",")]
    if not args.no_huge:
        cases += [("200 MB line", "200 MB line", 200 * 1000 * 1000), ("2 GB sparse", "2 GB sparse", 2 << 30)]
    print(f"checker: {args.checker}  python {sys.version.split()[0]}  (check -j 1, one subprocess each)")
    print(
        f"{'case':<18} {'MiB':>8} {'wall s':>8} {'cpu s':>7} {'extra s':>8} {'s/MiB':>7} {'peak RSS MiB':>13} "
        f"{'exit':>7}  findings"
    )
    base = None
    with tempfile.TemporaryDirectory(prefix="mlperf-check-large-") as temp:
        from bench import importable  # beside this script: a source checkout's rules mapped into its package

        args.checker = importable(Path(args.checker), Path(temp))
        for label, shape, size in cases:
            root = Path(temp) / "submission"
            shutil.copytree(EXAMPLE, root)
            if shape:
                make_log(root / LOG, shape, size)
            mib = (root / LOG).stat().st_size / MiB
            if not shape:  # warm the caches (imports, the example's files) before the base is timed
                run_check(root, args.checker, args.timeout)
            runs = []
            while len(runs) < args.repeat and not any(r["exit"] == "timeout" for r in runs):
                runs.append(run_check(root, args.checker, args.timeout))
            row = min(runs, key=lambda r: r["cpu"])
            row["peak"] = max(r["peak"] for r in runs)
            if any(r["exit"] == "timeout" for r in runs):
                row = next(r for r in runs if r["exit"] == "timeout")
            base = row["cpu"] if base is None else base
            extra = row["cpu"] - base
            per = f"{extra / mib:7.3f}" if shape else f"{'':>7}"
            print(
                f"{label:<18} {mib:8.1f} {row['wall']:8.2f} {row['cpu']:7.2f} {extra:8.2f} {per} {row['peak']:13.1f} "
                f"{row['exit']!s:>7}  {row['codes']}",
                flush=True,
            )
            shutil.rmtree(root)


if __name__ == "__main__":
    main()
