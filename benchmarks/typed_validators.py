"""Time the typed reading of detail-log values (checker/parsers/typed.py) against the JSON
Schema libraries it could be replaced by, on the values of real logs.

    python benchmarks/typed_validators.py [ROOT]   (default: the v5.1 slice)

Every detail log under ROOT is read once (parse_mllog, untyped); then each library judges
every log's decoded values against schemas/loadgen_log.schema.json, five times, and the
fastest pass is printed: `typed` (what the check does: one compiled predicate per key, the
FIL012 message built only for a value that breaks it), `fastjsonschema` (the schema compiled
to Python code once) and `jsonschema` (a cached Draft 2020-12 validator, `is_valid`). The two
libraries are optional: one that is not installed is said so and skipped. Neither gives
typed.py's FIL012 messages, and both take NaN and Infinity for numbers, which typed.py
refuses (tests/test_typed.py), so either would sit beside typed.py, not replace it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REAL = (HERE.parent.parent / "shared" / "real" / "v5.1").resolve()
SCHEMA = HERE.parent / "schemas" / "loadgen_log.schema.json"


def logs_values(root: Path) -> list[dict[str, Any]]:
    from checker.parsers import mllog

    found = []
    for folder, _, names in os.walk(root):
        if "mlperf_log_detail.txt" in names:
            with open(os.path.join(folder, "mlperf_log_detail.txt"), "rb") as handle:
                reading = mllog._Reading(mllog.is_wanted)
                reading.feed(handle, mllog.BLOCK)
                found.append(reading.finish()[0].values)
    return found


def fastest(judge: Any, values: list[dict[str, Any]]) -> float:
    times = []
    for _ in range(5):
        start = time.process_time()
        for one in values:
            judge(one)
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else REAL
    values = logs_values(root)
    schema = json.loads(SCHEMA.read_text())
    count = sum(len(v) for v in values)
    print(f"{len(values)} detail logs under {root}, {count} decoded values; CPU seconds for all of them:")
    from checker.parsers.mllog import LOADGEN_LOG

    def typed(one: dict[str, Any]) -> None:
        for key, value in one.items():
            LOADGEN_LOG.malformed(key, value)

    print(f"  typed.py        {fastest(typed, values):.3f}")
    try:
        import fastjsonschema
    except ImportError:
        print("  fastjsonschema  not installed")
    else:
        start = time.process_time()
        validate = fastjsonschema.compile(schema)
        compiled = time.process_time() - start

        def fast(one: dict[str, Any]) -> None:
            with contextlib.suppress(fastjsonschema.JsonSchemaException):
                validate(one)

        print(f"  fastjsonschema  {fastest(fast, values):.3f} (and {compiled:.3f} to compile the schema)")
    try:
        import jsonschema
    except ImportError:
        print("  jsonschema      not installed")
    else:
        validator = jsonschema.Draft202012Validator(schema)
        print(f"  jsonschema      {fastest(validator.is_valid, values):.3f}")


if __name__ == "__main__":
    main()
