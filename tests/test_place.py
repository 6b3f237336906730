"""The one reader of the paths given to `check` (workspace._place), on the bundled example: every
kind of path, through links and `..`, from folders named like divisions, is read from its
tree's root as the same path typed there. (tests/test_given_paths.py: the checks themselves,
on a real slice.)"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.workspace import _place, locate, marks
from helpers import EXAMPLE, OFFLINE, SUBMISSION

# Each path of the tree, from its root, and whether it is a folder.
INSIDE = {
    "": True,
    "closed": True,
    SUBMISSION: True,
    f"{SUBMISSION}/systems/cpu-1x-numpy.json": False,
    f"{SUBMISSION}/results/cpu-1x-numpy": True,
    OFFLINE.rsplit("/", 1)[0]: True,
    OFFLINE: True,
    f"{OFFLINE}/user.conf": False,
    f"{SUBMISSION}/documentation/calibration.md": False,
}


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    above=st.lists(st.sampled_from(["open", "closed", "network", "x"]), max_size=3),
    target=st.sampled_from(sorted(INSIDE)),
    how=st.sampled_from(["plain", "dotdot", "link", "link-inside", "relative"]),
)
def test_every_kind_of_path_is_read_from_its_tree(tmp_path: Path, above: list[str], target: str, how: str) -> None:
    work = tmp_path.joinpath(*above)
    tree = work / "tree"
    if not tree.exists():
        shutil.copytree(EXAMPLE, tree, symlinks=True)
    found_marks = marks()
    if how == "plain":
        path = str(tree / target) if target else str(tree)
    elif how == "dotdot":  # through a folder and back
        path = str(tree / "closed" / ".." / target) if target else str(tree / "closed" / "..")
    elif how == "relative":
        path = os.path.relpath(tree / target)
    else:  # a link beside the tree (to the submitter folder) or to the path itself
        link = work / f"link-{len(os.listdir(work))}"
        if how == "link" and target.startswith(SUBMISSION + "/"):
            link.symlink_to(tree / SUBMISSION)
            path = str(link / target.removeprefix(SUBMISSION + "/"))
        else:
            link.symlink_to(tree / target)
            path = str(link)
    place = _place(path, found_marks)
    assert place is not None, path
    assert (place.root, place.rel, place.folder) == (str(tree.resolve()), target, INSIDE[target]), path
    where = locate([path, str(tree / f"{SUBMISSION}/systems/cpu-1x-numpy.json")])
    narrowed = where.given
    if target == "":
        assert narrowed is None and os.path.realpath(where.path) == str(tree.resolve())  # a root: the whole tree
    else:
        assert narrowed is not None and narrowed.outside == () and target in narrowed.inside
