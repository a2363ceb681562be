"""`rejudge/plan.py`: which logs and cases a re-judge takes, and what an earlier run already
judged. Pure, on logs built in memory (tests/log_factory.py) or written to a temporary folder."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bedside_bench.rejudge.plan import (
    RejudgeOptions,
    has_answer,
    judge_failed,
    judged_ok,
    newest_per_task,
    output_name,
    rubric_score,
    sample_key,
    source_logs,
    to_judge,
)
from tests.log_factory import JUDGE_A, JUDGE_B, eval_log, sample, write

WHERE_LOGS_ARE = (
    " (give the folder `inspect eval` wrote to: its --log-dir, else $INSPECT_LOG_DIR, else ./logs)"
)


def test_a_sample_is_keyed_by_its_id_as_text_and_its_epoch() -> None:
    assert sample_key(sample("case-7", epoch=3)) == ("case-7", 3)
    numbered = sample("x").model_copy(update={"id": 12})
    assert sample_key(numbered) == ("12", 1)


def test_an_empty_answer_is_an_answer_a_missing_one_is_not() -> None:
    assert has_answer(sample("a", answer="text")) is True
    assert has_answer(sample("a", answer="")) is True  # scored as an empty answer
    assert has_answer(sample("a", answer=None)) is False  # the answer call never finished


def test_the_rubric_score_is_the_rubric_judge_entry_only() -> None:
    scored = sample("a", value=0.25)
    score = rubric_score(scored)
    assert score is not None and score.value == 0.25
    assert rubric_score(sample("a", judge=None)) is None
    assert scored.scores is not None
    elsewhere = sample("a", judge=None).model_copy(update={"scores": {"match": score}})
    assert rubric_score(elsewhere) is None  # another scorer's entry is not the rubric score


def test_judged_ok_needs_no_error_and_a_score_by_that_very_judge() -> None:
    assert judged_ok(sample("a", judge=JUDGE_B), JUDGE_B) is True
    assert judged_ok(sample("a", judge=JUDGE_A), JUDGE_B) is False  # another judge's score
    assert judged_ok(sample("a", judge=None), JUDGE_B) is False  # no score
    assert judged_ok(sample("a", judge=JUDGE_B, error="judge failed"), JUDGE_B) is False


def test_a_judge_failure_is_an_answer_without_a_rubric_score() -> None:
    assert judge_failed(sample("a", judge=None)) is True
    assert judge_failed(sample("a", judge=JUDGE_A, error="judge failed")) is True
    assert judge_failed(sample("a")) is False  # answered and scored
    # no answer: the answer failed, not the judge (rejudge cannot help, no answer is bought)
    assert judge_failed(sample("a", answer=None, judge=None, error="429")) is False


def test_to_judge_takes_answered_cases_or_only_failed_judgings_minus_done() -> None:
    cases = [
        sample("scored"),
        sample("judge-failed", judge=None, error="invalid judge reply"),
        sample("unanswered", answer=None, judge=None, error="no answer"),
        sample("done-before"),
        sample("scored", epoch=2),
    ]
    done = {("done-before", 1)}
    everything = to_judge(cases, done, failed_only=False)
    assert [sample_key(s) for s in everything] == [
        ("scored", 1),
        ("judge-failed", 1),
        ("scored", 2),
    ]
    failed = to_judge(cases, done, failed_only=True)
    assert [sample_key(s) for s in failed] == [("judge-failed", 1)]
    assert to_judge(cases, {("judge-failed", 1)}, failed_only=True) == []


@pytest.mark.parametrize(
    ("source", "judge", "passes", "failed_only", "name"),
    [
        ("logs/2026-03-01_drug-safety_abc.eval", JUDGE_B, 1, False,
         "2026-03-01_drug-safety_abc-rejudge-anthropic_claude-sonnet-4-6.eval"),
        ("logs/run.eval", "openai/gpt-4o", 3, False, "run-rejudge-openai_gpt-4o-p3.eval"),
        ("logs/run.eval", "openai/gpt-4o", 1, True, "run-rejudge-openai_gpt-4o-failed.eval"),
        ("logs/run.json", "openai/gpt-4o", 2, True, "run-rejudge-openai_gpt-4o-p2-failed.eval"),
        ("s3://bucket/sweep/run.eval", "openai/gpt-4o", 1, False, "run-rejudge-openai_gpt-4o.eval"),
        ("file:///tmp/logs/run.eval", "openai/gpt-4o", 1, False, "run-rejudge-openai_gpt-4o.eval"),
    ],
)  # fmt: skip
def test_one_output_name_per_source_judge_passes_and_mode(
    source: str, judge: str, passes: int, failed_only: bool, name: str
) -> None:
    assert output_name(source, judge, passes, failed_only) == name


def test_the_newest_log_of_each_task_is_taken_in_the_order_given() -> None:
    older = eval_log(task_id="t1", started_at="2026-03-01T10:00:00+00:00")
    newer = eval_log(task_id="t1", started_at="2026-03-02T09:00:00+00:00")
    other = eval_log(task_id="t2", started_at="2026-01-01T00:00:00+00:00")
    # a header without a start time falls back to its creation time
    created_only = eval_log(task_id="t3", started_at="", created="2026-02-01T00:00:00+00:00")
    created_older = eval_log(task_id="t3", started_at="", created="2026-01-01T00:00:00+00:00")
    headers = [
        ("a.eval", older),
        ("b.eval", other),
        ("c.eval", newer),
        ("d.eval", created_older),
        ("e.eval", created_only),
    ]
    assert newest_per_task(headers) == ["b.eval", "c.eval", "e.eval"]
    # a log without a task id stands for itself
    anonymous = [("x.eval", eval_log(task_id="")), ("y.eval", eval_log(task_id=""))]
    assert newest_per_task(anonymous) == ["x.eval", "y.eval"]


def test_source_logs_skip_the_output_folder_and_older_tries_of_a_task(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    first = write(eval_log(task_id="t1", started_at="2026-03-01T10:00:00+00:00"), logs / "a.eval")
    retried = write(eval_log(task_id="t1", started_at="2026-03-01T11:00:00+00:00"), logs / "b.eval")
    other = write(eval_log(task_id="t2"), logs / "nested" / "c.eval")
    # the default output folder lies inside $INSPECT_LOG_DIR: its logs are never sources
    write(eval_log(task_id="t3"), logs / "rejudge" / "c-rejudge-x.eval")
    options = RejudgeOptions(log_paths=[str(logs)], judge=JUDGE_B, output_dir=str(logs / "rejudge"))
    found = asyncio.run(source_logs(options))
    # Inspect lists a folder's logs as file:// URLs
    assert sorted(found) == sorted(Path(p).as_uri() for p in (retried, other))
    # a log file named directly is taken as it is
    direct = RejudgeOptions(log_paths=[first], judge=JUDGE_B, output_dir=str(tmp_path / "out"))
    assert asyncio.run(source_logs(direct)) == [first]


def test_a_folder_without_logs_is_an_error_naming_it(tmp_path: Path) -> None:
    options = RejudgeOptions(log_paths=[str(tmp_path)], judge=JUDGE_B)
    with pytest.raises(FileNotFoundError) as raised:
        asyncio.run(source_logs(options))
    assert str(raised.value) == f"no Inspect logs found under {str(tmp_path)!r}" + WHERE_LOGS_ARE


def test_options_default_to_the_source_passes_and_every_answer() -> None:
    options = RejudgeOptions(log_paths=["logs"], judge=JUDGE_B)
    assert (options.judge_passes, options.failed_only, options.output_dir) == (
        None,
        False,
        "logs/rejudge",
    )
    assert (options.checkpoint, options.display) == (25, "none")
