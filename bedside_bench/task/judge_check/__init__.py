"""`bedside_bench/judge_check`, the judge meta-evaluation: its gold set (`data`), its solver,
scorer and metrics (`scorer`) and the task (`task`)."""

from bedside_bench.release.case import DatasetError
from bedside_bench.task.judge_check.data import (
    ATTACKS,
    DEFAULT_FILES,
    default_pairs,
    load_pairs,
    pair_to_sample,
)
from bedside_bench.task.judge_check.task import judge_check

__all__ = [
    "ATTACKS",
    "DEFAULT_FILES",
    "DatasetError",
    "default_pairs",
    "judge_check",
    "load_pairs",
    "pair_to_sample",
]
