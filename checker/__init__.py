"""mlperf-check: checks MLPerf Inference submissions against their round's rules."""

__version__ = "0.1.0"
