"""Time the listing commands from the first import of the command line to the answer.

    python benchmarks/startup.py [--repeat 3] [--budget 0.2]

`rules`, `rounds`, `rounds show v6.0` and `explain RNG001` should answer in under a fifth of
a second (issues 24 and 26), the interpreter's own start aside. Each line gives the best of
--repeat runs and the load average it was taken at: a shared machine is slower. As an
installed package runs, the modules are byte-compiled once (PYTHONDONTWRITEBYTECODE unset).
The exit status is 1 when a command is over --budget. A timing is a measure of the machine as
much as of the code, so it lives here and not in the tests (tests/test_startup.py checks what
these commands import, which does not depend on the machine).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

COMMANDS = (["rules"], ["rounds"], ["rounds", "show", "v6.0"], ["explain", "RNG001"])
TIMED = (
    "import sys, time\n"
    "start = time.perf_counter()\n"
    "from checker.cli import app\n"
    "try:\n    app(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
    "print(time.perf_counter() - start, file=sys.stderr)\n"
)


def best_of(command: list[str], repeat: int) -> float:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    seconds = []
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, "-c", TIMED, *command], capture_output=True, text=True, timeout=60, env=env, check=True
        )
        seconds.append(float(done.stderr.splitlines()[-1]))
    return min(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--budget", type=float, default=0.2, help="seconds a command may take")
    options = parser.parse_args()
    over = 0
    for command in COMMANDS:
        seconds = best_of(command, options.repeat)
        over += seconds >= options.budget
        print(f"{' '.join(command):<20} {seconds:.3f} s  (load {os.getloadavg()[0]:.1f})")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
