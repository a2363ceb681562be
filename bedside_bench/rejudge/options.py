"""What a re-judge is asked: its options and the one error it reports. Apart from `plan.py`
and `run.py`, so that the command line is parsed without importing Inspect."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

PROG = "bedside-bench rejudge"
METADATA_KEY = "rejudge"
CHECKPOINT_SAMPLES = 25
SampleKey = tuple[str, int]


class RejudgeError(RuntimeError):
    """A problem with the inputs, reported as one line."""


@dataclass(frozen=True)
class RejudgeOptions:
    log_paths: Sequence[str]
    judge: str
    judge_passes: int | None = None  # None: as the source log was judged
    failed_only: bool = False
    output_dir: str = "logs/rejudge"
    checkpoint: int = CHECKPOINT_SAMPLES
    display: str = "none"
