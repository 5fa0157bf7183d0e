"""Performance benchmark: synthetic data, timing, the runner (``cbmemory bench``) and its report."""

from .report import format_table
from .result import BenchResult
from .runner import BenchConfig, run_bench
from .synthetic import SyntheticConfig, make_queries, make_user
from .timing import percentiles, time_calls

__all__ = ["BenchConfig", "BenchResult", "SyntheticConfig", "format_table", "make_queries", "make_user", "percentiles",
           "run_bench", "time_calls"]
