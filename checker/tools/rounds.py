"""Regenerate `rules/rounds.json`, the bundled round files as the loader reads them.

    python -m checker.tools.rounds [-o PATH]

Each bundled YAML file (rules/v5.1.yaml, ...) stays the source of its facts. The mirror holds
each one's document, keyed by the sha256 of its text: checker/rounds.py takes a document from
there when the text it reads has that digest, and parses the YAML otherwise (a file edited
since the mirror was written loads as it is now). tests/test_startup.py checks that the
mirror is current.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .. import yamlsafe
from ..output import write_file
from ..rounds import MIRROR, available_rounds, bundled, text_digest

GENERATED = "by `python -m checker.tools.rounds`; do not edit by hand (see checker/tools/rounds.py)"


def mirrored() -> dict[str, Any]:
    """Every bundled round file's document and its text's digest, by file name, sorted."""
    files = {}
    for name in sorted(available_rounds()):
        text = bundled().joinpath(f"{name}.yaml").read_text(encoding="utf-8")
        files[f"{name}.yaml"] = {"sha256": text_digest(text), "document": yamlsafe.load_package_data(text)}
    return files


def rendered(files: dict[str, Any]) -> str:
    """The mirror's text: JSON, how it was made first. JSON rather than the YAML it mirrors:
    the loader reads the four round files' documents in a millisecond, where the YAML loader
    took 9 ms a file at every start."""
    return json.dumps({"generated": GENERATED, "files": files}, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-o", "--output", default=None, help="the mirror to write (default: rounds.json beside the files it mirrors)"
    )
    args = parser.parse_args(argv)
    files = mirrored()
    output = args.output or str(bundled().joinpath(MIRROR))
    write_file(output, rendered(files))
    print(f"{output}: {len(files)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
