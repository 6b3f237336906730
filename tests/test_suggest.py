""" "Did you mean" for every enumerated value (issue 24): a close name is suggested, a value
close to none lists the names allowed (briefly), in findings and in usage errors alike."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from checker.rounds import load_round
from checker.suggest import SHOWN, closest, did_you_mean
from helpers import EXAMPLE, run

NAMES = ("available", "preview", "rdi")


@given(value=st.text(max_size=20), names=st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=30))
def test_did_you_mean_suggests_an_allowed_name_or_lists_them(value: str, names: list[str]) -> None:
    said = did_you_mean(value, names)
    close = closest(value, names)
    if close is not None:
        assert close in names and said == f"did you mean `{close}`?"
    else:
        assert said.startswith("no close name; choose ")
        assert all(f"`{name}`" in said for name in names[:SHOWN])
        assert (f"and {len(names) - SHOWN} more" in said) == (len(names) > SHOWN)


def test_close_and_far_values() -> None:
    assert did_you_mean("availble", NAMES) == "did you mean `available`?"
    assert did_you_mean("AVAILABLE ", NAMES) == "did you mean `available`?"
    assert did_you_mean("coming soon", NAMES) == "no close name; choose `available`, `preview` or `rdi`"
    models = list(load_round("v6.1").models)
    far = did_you_mean("demo-mlp-99", models, "`mlperf-check rounds show v6.1`")
    assert far.startswith("no close name; choose `resnet`, ") and far.endswith(
        f" and {len(models) - SHOWN} more (`mlperf-check rounds show v6.1` lists them)"
    )


def test_findings_on_enumerated_values_say_did_you_mean(tmp_path: Path) -> None:
    root = tmp_path / "demo-v6.1"
    shutil.copytree(EXAMPLE, root, symlinks=True)
    system = root / "closed/MLCheckDemo/systems/cpu-1x-numpy.json"
    description = json.loads(system.read_text())
    description.update(status="availble", system_type="datacentre")
    system.write_text(json.dumps(description))
    results = root / "closed/MLCheckDemo/results/cpu-1x-numpy"
    (results / "demo-mlp-99").rename(results / "demo-mlp-98")
    found = {(f.code, f.message, f.hint) for f in run(root, select=["AVL001", "SYS008", "STR001"]).findings}
    assert found == {
        (
            "AVL001",
            "`status` is `availble`: the availability category: available, preview or rdi; did you mean `available`?",
            "did you mean `available`?",
        ),
        (
            "SYS008",
            "`system_type` is `datacentre`: datacenter, edge, or both separated by a comma; did you mean `datacenter`?",
            "did you mean `datacenter`?",
        ),
        (
            "STR001",
            "benchmark `demo-mlp-98` is not in the round's models (demo-v6.1); did you mean `demo-mlp-99`?",
            "did you mean `demo-mlp-99`?",
        ),
    }
