"""The console script (`mlperf-check`) and `python -m checker`: the signal handlers first
(checker.process), then the command line and everything it imports."""

from __future__ import annotations

from typing import NoReturn

from .process import install, run


def main() -> NoReturn:
    install()

    def entry() -> None:
        from .cli import run_app

        run_app()

    run(entry)


if __name__ == "__main__":
    main()
