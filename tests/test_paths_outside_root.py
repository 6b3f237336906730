"""A finding on a file outside the checked root (the waivers file, WVR001) is placed from the
workspace like any other (attack24 F2): its path is relative to the root (`../w.yaml`), and
text, GitHub and SARIF resolve it to the file itself, never the root joined twice."""

from __future__ import annotations

import io
import os
import re
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest

from checker.reporters import github_report, sarif_report, text_report
from checker.waivers import load_waivers
from helpers import EXAMPLE, run

WAIVERS = "waivers:\n  - code: SYS006\n    reason: x\n"


@pytest.mark.parametrize("root_at", ["sub/demo", "demo", "."])
@pytest.mark.parametrize(
    "waivers_at", ["w.yaml", "sub/w.yaml", "{root}/w.yaml", "{root}/docs/w.yaml", "../elsewhere/w.yaml"]
)
@pytest.mark.parametrize("absolute", [False, True])
def test_an_unused_waiver_is_placed_on_the_waivers_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root_at: str, waivers_at: str, absolute: bool
) -> None:
    """Every place of the root in the workspace and of the waivers file (beside, above or in
    the tree), given relative to the current folder or absolute: each reporter's path, read
    from the workspace, is the waivers file."""
    workspace = tmp_path / "ws"
    root = workspace / root_at
    shutil.copytree(EXAMPLE, root, dirs_exist_ok=True)
    waivers = workspace / waivers_at.format(root=root_at)
    waivers.parent.mkdir(parents=True, exist_ok=True)
    waivers.write_text(WAIVERS)
    monkeypatch.chdir(workspace)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(workspace))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    given = str(waivers) if absolute else os.path.relpath(waivers, workspace)
    report = run(Path(os.path.relpath(root, workspace)), waivers=load_waivers(given))
    (unused,) = [f for f in report.findings if f.code == "WVR001"]
    assert (root / unused.path).resolve() == waivers.resolve()

    out = io.StringIO()
    github_report.write(report, out)
    (annotation,) = [line for line in out.getvalue().splitlines() if "WVR001" in line]
    file = re.search(r"file=([^,]+),", annotation).group(1)  # type: ignore[union-attr]
    assert (workspace / file).resolve() == waivers.resolve() and ".." not in file.split("/")

    document = sarif_report.document(report)
    (result,) = [r for r in document["runs"][0]["results"] if r["ruleId"] == "WVR001"]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    if "uriBaseId" in artifact:  # in the repository: relative to SRCROOT
        assert (workspace / unquote(artifact["uri"])).resolve() == waivers.resolve()
    else:  # outside it: an absolute file URI
        assert not waivers.resolve().is_relative_to(workspace.resolve())
        assert artifact["uri"] == waivers.resolve().as_uri()

    out = io.StringIO()
    text_report.write(report, out, color="never", view="concise")
    (line,) = [line for line in out.getvalue().splitlines() if "WVR001" in line]
    assert (root / line.split(":")[0]).resolve() == waivers.resolve()  # the text's paths are the root's


def test_the_waivers_file_beside_the_tree_is_not_joined_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """attack24 F2: `check v51 --waivers v51/w.yaml -f github` said `file=v51/v51/w.yaml`."""
    workspace = tmp_path
    shutil.copytree(EXAMPLE, workspace / "v51")
    (workspace / "v51/w.yaml").write_text(WAIVERS)
    monkeypatch.chdir(workspace)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(workspace))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    report = run(Path("v51"), waivers=load_waivers("v51/w.yaml"))
    out = io.StringIO()
    github_report.write(report, out)
    assert "::notice file=v51/w.yaml,title=WVR001 unused-waiver::waiver 1 (SYS006 on *) matched no finding" in (
        out.getvalue()
    )
