"""The one part of the build pyproject.toml cannot state with this project's setuptools floor:
the optional C scanner of the detail-log reader (checker/parsers/_mllog_scan.c). `optional=True`:
without a compiler the build goes on and checker/parsers/mllog.py reads in pure Python."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("checker.parsers._mllog_scan", ["checker/parsers/_mllog_scan.c"], optional=True)])
