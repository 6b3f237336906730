"""What users see, pinned: the text report, the GitHub annotations and job summary, and the
JUnit XML of `check` on the bundled example and on the real slices.

Each rendering is one file in tests/__snapshots__/test_snapshots/, compared whole. A change
to a message, a severity, a verdict or a layout shows as a diff of those files, reviewed like
code; `pytest --snapshot-update` rewrites them after a deliberate change. When the check ran
and how long it took (JUnit's timestamp and times) are fixed (helpers.fixed), so a snapshot
does not depend on the clock."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from checker.engine import Report
from checker.reporters import github_report, junit_report, text_report
from helpers import EXAMPLE, OFFLINE, REAL_ROOT, SINGLE, fixed, real_data, run, shared_defects


class TextSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "txt"


class MarkdownSnapshot(TextSnapshot):
    file_extension = "md"


class XMLSnapshot(TextSnapshot):
    file_extension = "xml"


SOURCES = [
    pytest.param("demo-v6.1", id="demo-v6.1"),
    pytest.param("demo-v6.1-broken", id="demo-v6.1-broken"),
    pytest.param("demo-v6.1-shared", id="demo-v6.1-shared"),
    *(pytest.param(name, id=name, marks=pytest.mark.real) for name in ("v5.1", "v6.0", "v6.1")),
]


def _broken(target: Path) -> Path:
    """The example with an error in each of two results and one warning (as tests/test_ci.py
    breaks it): findings with and without a line, on a result and on the submission."""
    shutil.copytree(EXAMPLE, target, symlinks=True)
    (target / OFFLINE / "accuracy" / "accuracy.txt").write_text("accuracy=80.000%\nhash=00ff\n")  # ACC002
    (target / SINGLE / "user.conf").unlink()  # MSR001
    (target / "closed/MLCheckDemo/documentation/notes").mkdir()  # STR007, a warning
    return target


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory):
    """source -> (the checked folder, its report), each checked once, with one job."""
    done: dict[str, tuple[Path, Report]] = {}

    def get(source: str) -> tuple[Path, Report]:
        if source not in done:
            if source == "demo-v6.1":
                root, round_name = EXAMPLE, "demo-v6.1"
            elif source == "demo-v6.1-broken":
                root, round_name = _broken(tmp_path_factory.mktemp("broken") / "demo-v6.1"), "demo-v6.1"
            elif source == "demo-v6.1-shared":
                root, round_name = shared_defects(tmp_path_factory.mktemp("shared") / "demo-v6.1"), "demo-v6.1"
            else:
                root, round_name = real_data(REAL_ROOT / source), source
            done[source] = root, fixed(run(root, round_name, jobs=1))
        return done[source]

    return get


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.full
def test_text(source: str, checked, snapshot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    out = io.StringIO()
    text_report.write(checked(source)[1], out)
    assert "\x1b" not in out.getvalue(), "the text report is coloured"
    assert out.getvalue() == snapshot(extension_class=TextSnapshot)


def _github(source: str, checked, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[str, str]:
    """(annotations, job summary), with the checked folder at the top of the workspace."""
    root, report = checked(source)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_WORKSPACE", str(root.parent))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    out = io.StringIO()
    github_report.write(report, out)
    return out.getvalue(), summary.read_text()


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.full
def test_github_annotations(source: str, checked, snapshot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    annotations, _ = _github(source, checked, monkeypatch, tmp_path)
    assert annotations == snapshot(extension_class=TextSnapshot)


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.full
def test_github_summary(source: str, checked, snapshot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _, summary = _github(source, checked, monkeypatch, tmp_path)
    assert summary == snapshot(extension_class=MarkdownSnapshot)


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.full
def test_junit(source: str, checked, snapshot) -> None:
    # The time and timestamp are helpers.fixed's; the reporter writes no host name.
    out = io.StringIO()
    junit_report.write(checked(source)[1], out)
    assert out.getvalue() == snapshot(extension_class=XMLSnapshot)
