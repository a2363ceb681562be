"""`bedside_bench/judge_check`: how well does a judge model agree with gold decisions?

The model under evaluation is the judge (see `scorer.py`); the gold set is in `data.py`.
`attack_accuracy` reports how a judge holds up against each kind of adversarial answer.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset

from bedside_bench.core.inspect_private import suite_in_use
from bedside_bench.core.listing import task_version
from bedside_bench.core.options import (
    SCORER_DEFAULTS,
    TaskOptionError,
    check_option_types,
    check_option_values,
    said_when_stopped,
    stop_run,
)
from bedside_bench.core.protocol import PROTOCOL_VERSION
from bedside_bench.core.safe_text import printable
from bedside_bench.task.judge_check.data import (
    DEFAULT_FILES,
    Pair,
    default_pairs,
    load_pairs,
    pair_to_sample,
)
from bedside_bench.task.judge_check.options import OPTIONS, JudgeCheckOptions
from bedside_bench.task.judge_check.scorer import gold_agreement, judge_the_answer
from bedside_bench.task.signature import known_options


def _gold_pairs(data_file: str | None) -> tuple[str, list[Pair]]:
    """The gold set and where it is from; a file that is not UTF-8 text is refused by name."""
    if not data_file:
        return " + ".join(f"data/judge_check/{name}" for name in DEFAULT_FILES), default_pairs()
    try:
        text = Path(data_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as ex:
        reason = printable(str(getattr(ex, "strerror", None) or ex), 200)
        raise TaskOptionError(
            f"bedside-bench: -T data_file {printable(data_file, 300)} cannot be read ({reason}); "
            "no case was run"
        ) from None
    return data_file, load_pairs(text, data_file)


@task(
    name="judge_check",
    description="How well a judge model agrees with gold rubric decisions",
    grading="judge_check",
)
def judge_check(
    data_file: str | None = None,
    judge_retries: int = SCORER_DEFAULTS.judge_retries,
    **options: object,
) -> Task:
    """Evaluate the model as a BedsideBench judge against gold decisions.

    `data_file`: a JSONL gold set in the same format (default: the project's synthetic set and
    its adversarial part). Any other `-T` name stops the run, naming the closest option.
    """
    suite_in_use()  # what degraded when the package was imported, said now
    known_options(options, OPTIONS)
    # the same checks as every benchmark task's, before any call: type, then range
    given = {"data_file": data_file, "judge_retries": judge_retries}
    check_option_types(given, JudgeCheckOptions)
    check_option_values(given, JudgeCheckOptions)
    if data_file and not Path(data_file).is_file():
        raise stop_run(
            TaskOptionError(
                f"bedside-bench: -T data_file {printable(repr(data_file), 300)} is not a file "
                "(a JSONL gold set); no case was run"
            )
        )
    with said_when_stopped():  # under --display none Inspect would print nothing
        source, pairs = _gold_pairs(data_file)
    return Task(
        dataset=MemoryDataset(
            [pair_to_sample(p) for p in pairs], name="judge_check", location=source, shuffled=False
        ),
        solver=judge_the_answer(judge_retries),
        scorer=gold_agreement(),
        name="judge_check",
        version=task_version().comparability,
        continue_on_fail=True,
        metadata={"protocol_version": PROTOCOL_VERSION, "gold_set": source, "pairs": len(pairs)},
    )
