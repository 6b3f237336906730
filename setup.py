"""The one part of the build pyproject.toml cannot state with this project's setuptools floor:
the optional C parts, `optional=True`: without a compiler the build goes on and the checker
runs in pure Python. The scanner of the detail-log reader (checker/parsers/_mllog_scan.c;
checker/parsers/mllog.py reads without it) and the lister of a folder of a walk
(checker/_listing.c; checker/tree.py lists with os.scandir without it)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("checker.parsers._mllog_scan", ["checker/parsers/_mllog_scan.c"], optional=True),
        Extension("checker._listing", ["checker/_listing.c"], optional=True),
    ]
)
