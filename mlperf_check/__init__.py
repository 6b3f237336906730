"""mlperf-check as a library: check submissions, and analyse the published results tables
as pandas DataFrames. docs/api.md documents every name here; nothing else is public.

    >>> import mlperf_check
    >>> table = mlperf_check.load_table("v6.1")  # $MLPERF_CHECK_TABLES/v6.1/summary.json
    >>> members, groups = mlperf_check.compare(table, reference="AMD", model="gpt-oss-120b")

The functions are checker/api.py's: the ones the command line's commands compute with.
"""

from checker import __version__
from checker.api import BY, Compared, Report, across_rounds, check, claims, compare, load_table, reproduce

__all__ = [
    "BY",
    "Compared",
    "Report",
    "__version__",
    "across_rounds",
    "check",
    "claims",
    "compare",
    "load_table",
    "reproduce",
]
