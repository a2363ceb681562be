"""The judge check's options (`-T` of `bedside_bench/judge_check`), as a pydantic model.

The model lives here, not in `task.py`, because Inspect executes a task file it is given by
path (`inspect eval bedside_bench/task/judge_check/task.py@judge_check`, the form `inspect list
tasks` prints) as a module outside `sys.modules`: there a model with postponed annotations
cannot resolve them (its field types stay `ForwardRef`s), and every check derived from it fails.
A module reached by import resolves them as usual.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel

from bedside_bench.core.options import ScorerOptions


class JudgeCheckOptions(BaseModel):
    """The judge check's options: its gold set, and the benchmark judge's `judge_retries`
    (the same field: type, default and range)."""

    data_file: str | None = None
    judge_retries: Annotated[int, ScorerOptions.model_fields["judge_retries"]]


OPTIONS: tuple[str, ...] = tuple(JudgeCheckOptions.model_fields)
