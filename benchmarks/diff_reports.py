"""Say whether two JSON reports of `check` give the same verdicts, for before/after runs of a
change that must not move any (a speed-up).

    python benchmarks/diff_reports.py BEFORE.json AFTER.json

Prints the count of valid results and of each finding code in both, then every result whose
verdict or metric differs and every finding present in one report only (compared by code,
severity, path, pointer, location and message). Exits 1 when anything differs, else 0.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any


def load(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        report: dict[str, Any] = json.load(handle)
    return report


def verdicts(report: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    return {r["location"]: (r["valid"], json.dumps(r.get("metric"), sort_keys=True)) for r in report["results"]}


def finding_keys(report: dict[str, Any]) -> Counter[tuple[Any, ...]]:
    fields = ("code", "severity", "path", "pointer", "location", "message")
    return Counter(tuple(f.get(name) for name in fields) for f in report["findings"])


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    old, new = verdicts(before), verdicts(after)
    for location in sorted(old.keys() | new.keys()):
        if old.get(location) != new.get(location):
            lines.append(f"result {location}: {old.get(location)} -> {new.get(location)}")
    old_findings, new_findings = finding_keys(before), finding_keys(after)
    for key in sorted((old_findings - new_findings).keys(), key=str):
        lines.append(f"only before: {' | '.join(map(str, key))}")
    for key in sorted((new_findings - old_findings).keys(), key=str):
        lines.append(f"only after: {' | '.join(map(str, key))}")
    return lines


def counts(report: dict[str, Any]) -> str:
    valid = sum(1 for r in report["results"] if r["valid"])
    codes = Counter(f["code"] for f in report["findings"])
    return f"{valid} valid of {len(report['results'])}; " + ", ".join(f"{c} {n}" for c, n in sorted(codes.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    before, after = load(args.before), load(args.after)
    print(f"before: {counts(before)}")
    print(f"after:  {counts(after)}")
    found = differences(before, after)
    for line in found:
        print(line)
    print(f"{len(found)} differences" if found else "same verdicts, same findings")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
