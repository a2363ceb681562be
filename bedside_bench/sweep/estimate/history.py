"""What earlier logs in the log directory say for an estimate: which cases a resume would skip,
and how many output tokens each answer model and judge spent.

A case counts as done the way eval_set reuses it: a sample of a log of the same (answer model,
benchmark, judge, release, task options) that ended without error and with a rubric score.
Output tokens are read from every log of the model, whatever its options, since an answer's
length does not depend on them.
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspect_ai.log import list_eval_logs, read_eval_log

from bedside_bench.core.contracts import GRADER_ROLE, SCORER_NAME
from bedside_bench.logs.read import benchmark_of, judge_of

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample

# the task options that decide whether eval_set pairs a log with a run (metadata keys)
IDENTITY_KEYS = ("dataset_sha256", "smoke", "severe_gate", "judge_passes", "grading")


@dataclass(frozen=True)
class RunKey:
    model: str
    benchmark: str
    judge: str
    identity: tuple[tuple[str, Any], ...]


@dataclass
class OutputTally:
    """Output tokens over `samples` samples; `units` are answers or judged rubric items."""

    samples: int = 0
    units: int = 0
    output_tokens: int = 0
    visible_tokens: int = 0


@dataclass
class History:
    done: dict[RunKey, set[tuple[str, int]]] = field(default_factory=lambda: defaultdict(set))
    answers: dict[str, OutputTally] = field(default_factory=lambda: defaultdict(OutputTally))
    # keyed by (judge model, grading)
    judges: dict[tuple[str, str], OutputTally] = field(
        default_factory=lambda: defaultdict(OutputTally)
    )


def identity(metadata: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    defaults = {"smoke": False, "severe_gate": False, "judge_passes": 1, "grading": "binary"}
    return tuple((k, metadata.get(k, defaults.get(k))) for k in IDENTITY_KEYS)


def _completed(sample: EvalSample) -> bool:
    scores = sample.scores or {}
    return sample.error is None and any(k.rsplit("/", 1)[-1] == SCORER_NAME for k in scores)


def add_log(history: History, log: EvalLog, count_visible: Callable[[str, str], int]) -> None:
    """Fold one full log into `history`; `count_visible(model, text)` counts an answer."""
    benchmark = benchmark_of(log)
    if benchmark is None:
        return
    metadata = log.eval.metadata or {}
    model, judge = log.eval.model, judge_of(log)
    key = RunKey(model, benchmark, judge, identity(metadata))
    passes = metadata.get("judge_passes", 1)
    passes = passes if isinstance(passes, int) and passes >= 1 else 1
    grading = str(metadata.get("grading", "binary"))
    for sample in log.samples or []:
        if not _completed(sample):
            continue
        history.done[key].add((str(sample.id), sample.epoch))
        judge_usage = sample.role_usage.get(GRADER_ROLE)
        answer_usage = sample.model_usage.get(model)
        if answer_usage is not None:
            output = answer_usage.output_tokens
            if judge == model and judge_usage is not None:
                output -= judge_usage.output_tokens
            tally = history.answers[model]
            tally.samples += 1
            tally.units += 1
            tally.output_tokens += output
            tally.visible_tokens += count_visible(model, sample.output.completion)
        if judge_usage is not None:
            items = len((sample.metadata or {}).get("rubric_items") or [])
            tally = history.judges[(judge, grading)]
            tally.samples += 1
            tally.units += items * passes
            tally.output_tokens += judge_usage.output_tokens


def read_history(log_dir: str, count_visible: Callable[[str, str], int]) -> History:
    """Every Inspect log under `log_dir` (none when it does not exist yet)."""

    history = History()
    if "://" not in log_dir and not os.path.isdir(log_dir):
        return history
    try:
        infos = list_eval_logs(log_dir, recursive=True)
    except Exception as ex:  # a remote store without credentials, unreachable: priors then
        print(
            f"sweep: estimate: cannot list {log_dir} ({type(ex).__name__}); cases done and "
            "output lengths there are not known, so none is left out and priors are used",
            file=sys.stderr,
        )
        return history
    for info in infos:
        try:
            log = read_eval_log(info)
        except Exception:  # an unreadable log says nothing; the sweep and report skip it too
            continue
        add_log(history, log, count_visible)
    return history
