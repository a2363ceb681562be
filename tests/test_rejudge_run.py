"""`rejudge/run.py`: the scorer options a source log recorded, the scorer entry the new log
names, the scorer wrapper that ends only its own case, and one log re-judged chunk by chunk
(checkpoints, resuming, `--failed-only`, failures, interruption).

Pure and in process: logs are built with Inspect's classes (tests/log_factory.py) and written to
a temporary folder; the judging itself (`judge_samples`, i.e. Inspect's `score_async` with the
judge) is replaced by a scripted one, so no model is called. The judging through Inspect is
exercised end to end in tests/test_rejudge.py and tests/test_rejudge_signals.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping
from copy import deepcopy
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.model import Model, get_model
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState

from bedside_bench.core.contracts import GRADER_ROLE, SCORER_NAME
from bedside_bench.rejudge.plan import LogOutcome, RejudgeOptions, output_name, sample_key
from bedside_bench.rejudge.run import (
    Judging,
    capturing,
    planned_scorers,
    rejudge_log,
    scorer_options,
)
from tests.log_factory import (
    ANSWER_MODEL,
    JUDGE_B,
    RECORDED_OPTIONS,
    eval_log,
    sample,
    usage,
    write,
)
from tests.scripted_model import scripted_model

JUDGE = "mockllm/model"  # the new judge (only its name is used: the judging is scripted)


def as_dict(options: object) -> dict[str, object]:
    """Scorer options as a plain mapping, whether given as a dict or as a pydantic model."""
    dump = getattr(options, "model_dump", None)
    return dict(dump() if callable(dump) else options)  # type: ignore[call-overload]


# --------------------------------------------------------------------------------------------
# scorer options


def test_the_source_runs_recorded_options_are_kept_with_the_new_judge() -> None:
    source = eval_log([sample("c1")])
    assert as_dict(scorer_options(source, JUDGE_B, None)) == {
        **RECORDED_OPTIONS,
        "judge_model": JUDGE_B,
    }
    assert as_dict(scorer_options(source, JUDGE_B, 3)) == {
        **RECORDED_OPTIONS,
        "judge_model": JUDGE_B,
        "judge_passes": 3,
    }


def test_options_not_recorded_come_from_the_task_metadata_then_the_defaults() -> None:
    source = eval_log(
        [sample("c1")],
        scorer_options={"severe_gate": True},
        metadata={"judge_passes": 2, "grading": "three_level"},
    )
    assert as_dict(scorer_options(source, JUDGE_B, None)) == {
        "judge_model": JUDGE_B,
        "judge_retries": 2,  # the default
        "severe_gate": True,  # recorded
        "judge_passes": 2,  # task metadata
        "grading": "three_level",  # task metadata
    }


def test_a_scorer_recorded_with_its_package_prefix_is_the_rubric_judge() -> None:
    source = eval_log([sample("c1")], scorer_options={"judge_retries": 0})
    assert source.eval.scorers is not None
    source.eval.scorers[0].name = f"bedside_bench/{SCORER_NAME}"
    assert as_dict(scorer_options(source, JUDGE_B, None))["judge_retries"] == 0
    (planned,) = planned_scorers(source.eval.scorers or [], scorer_options(source, JUDGE_B, None))
    assert planned.name == f"bedside_bench/{SCORER_NAME}"


def test_the_planned_scorer_entry_is_the_sources_with_the_new_options() -> None:
    source = eval_log([sample("c1")])
    options = scorer_options(source, JUDGE_B, 2)
    (planned,) = planned_scorers(source.eval.scorers or [], options)
    assert planned.name == SCORER_NAME
    assert as_dict(planned.options) == as_dict(options)
    assert planned.metrics == source.eval.scorers[0].metrics  # type: ignore[index]
    assert (source.eval.scorers or [])[0].options == RECORDED_OPTIONS  # the source's untouched
    source.eval.scorers = []
    assert planned_scorers(source.eval.scorers or [], options) is None


# --------------------------------------------------------------------------------------------
# the scorer wrapper


@scorer(metrics=[mean()], name="rejudge_unit_judge")
def unit_judge(model: Model, fail: bool = False) -> Any:
    """A judge that makes one call to `model`, then scores or fails."""

    async def score(state: TaskState, target: Target) -> Score:
        await model.generate("judge this answer")
        if fail:
            raise ValueError(f"no valid reply for {state.sample_id}")
        return Score(value=1.0)

    return score


def task_state(case: str) -> TaskState:
    return TaskState(model=ANSWER_MODEL, sample_id=case, epoch=2, input="q", messages=[])  # type: ignore[arg-type]


def test_a_failing_judge_ends_only_its_case_and_every_calls_tokens_are_kept() -> None:
    from inspect_ai._util.registry import registry_info

    model, _ = scripted_model("rejudge-judge", ["ok", "ok"])
    judging = Judging()
    good = capturing(unit_judge(model), judging)
    bad = capturing(unit_judge(model, fail=True), judging)
    assert registry_info(good).name == registry_info(unit_judge(model)).name

    async def both() -> tuple[Score | None, Score | None]:
        return await good(task_state("a"), Target("")), await bad(task_state("b"), Target(""))

    scored, failed = asyncio.run(both())
    assert scored is not None and scored.value == 1.0 and failed is None
    assert judging.scores == {("a", 2): scored}
    assert list(judging.failures) == [("b", 2)]
    assert str(judging.failures[("b", 2)]) == "no valid reply for b"
    spent = {"unitscript/rejudge-judge": usage(10, 2)}
    assert judging.usage == {("a", 2): spent, ("b", 2): spent}  # the failed call's too
    assert [type(e).__name__ for e in judging.events[("a", 2)]] == ["ModelEvent"]
    assert ("b", 2) not in judging.events


def test_the_cases_whose_judging_ended_carry_their_scores() -> None:
    work = eval_log([sample("a", judge=None), sample("b", judge=None), sample("c", judge=None)])
    judging = Judging(work=work)
    late = Score(value=0.75, metadata={"judge_model": JUDGE})
    judging.scores[("a", 1)] = late  # judged, but cut off before Inspect recorded it
    judging.failures[("b", 1)] = ValueError("bad")
    ended = judging.ended()
    assert [str(s.id) for s in ended] == ["a", "b"]  # c never ended
    assert ended[0].scores == {SCORER_NAME: late}
    assert Judging().ended() == []


# --------------------------------------------------------------------------------------------
# one log, chunk by chunk


JudgeSamples = Callable[..., Coroutine[Any, Any, EvalLog]]


class ScriptedJudging:
    """`judge_samples` without Inspect's scoring: each case gets value 0.25 by the judge (or a
    failure for the cases in `fail`); after `stop_after` cases it is cancelled, as Inspect
    turns Ctrl-C or SIGTERM into a cancellation. It records the chunks it was given and what
    the output log held when each chunk started."""

    def __init__(
        self, output: Path, fail: frozenset[str] = frozenset(), stop_after: int | None = None
    ) -> None:
        self.output = output
        self.fail = fail
        self.stop_after = stop_after
        self.chunks: list[list[str]] = []
        self.written: list[list[str]] = []  # ids judged by JUDGE in the output, per chunk
        self.ended = 0

    async def __call__(
        self,
        header: EvalLog,
        samples: list[EvalSample],
        judge: Model,
        options: Mapping[str, object],
        display: str,
        judging: Judging,
    ) -> EvalLog:
        self.chunks.append([str(s.id) for s in samples])
        self.written.append(judged_by(self.output, str(judge)))
        judging.work = header.model_copy(update={"samples": [deepcopy(s) for s in samples]})
        for case in judging.work.samples or []:
            if self.stop_after is not None and self.ended >= self.stop_after:
                raise asyncio.CancelledError
            key = sample_key(case)
            judging.usage[key] = {str(judge): usage(10, 2)}
            self.ended += 1
            if str(case.id) in self.fail:
                judging.failures[key] = ValueError(f"no valid reply for {case.id}")
                continue
            score = Score(value=0.25, metadata={"judge_model": str(judge)})
            case.scores = {SCORER_NAME: score}
            judging.scores[key] = score
        scored = judging.work.model_copy(deep=True)
        entry = (header.eval.scorers or [])[0].model_copy(update={"options": {"by": "inspect"}})
        scored.eval.scorers = [entry]
        return scored


def judged_by(output: Path, judge: str) -> list[str]:
    if not output.exists():
        return []
    log = read_eval_log(str(output))
    return [
        str(s.id)
        for s in log.samples or []
        if s.scores and (s.scores[SCORER_NAME].metadata or {}).get("judge_model") == judge
    ]


def run_one(
    monkeypatch: pytest.MonkeyPatch,
    location: str,
    options: RejudgeOptions,
    judging: ScriptedJudging,
) -> tuple[LogOutcome, list[str]]:
    monkeypatch.setattr("bedside_bench.rejudge.run.judge_samples", judging)
    said: list[str] = []
    outcome = asyncio.run(rejudge_log(location, options, get_model(JUDGE), said.append))
    return outcome, said


@pytest.fixture
def source(tmp_path: Path) -> str:
    """Five answered cases judged by A, and one whose answer never came."""
    cases = [sample(f"c{i}") for i in range(1, 6)]
    cases.append(sample("c6", answer=None, judge=None, error="no answer: refused"))
    return write(eval_log(cases), tmp_path / "logs" / "run.eval")


def options_for(tmp_path: Path, **fields: Any) -> RejudgeOptions:
    return RejudgeOptions(
        log_paths=[str(tmp_path / "logs")],
        judge=JUDGE,
        output_dir=str(tmp_path / "out"),
        **fields,
    )


def test_cases_are_judged_in_checkpoint_chunks_and_written_after_each(
    tmp_path: Path, source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = tmp_path / "out" / output_name(source, JUDGE, 1, False)
    assert output.name == "run-rejudge-mockllm_model.eval"
    judging = ScriptedJudging(output)
    outcome, said = run_one(monkeypatch, source, options_for(tmp_path, checkpoint=2), judging)

    assert judging.chunks == [["c1", "c2"], ["c3", "c4"], ["c5"]]
    assert judging.written == [[], ["c1", "c2"], ["c1", "c2", "c3", "c4"]]
    assert said == [
        f"bedside-bench rejudge: {source}: {n}/5 cases judged -> {output}" for n in (2, 4, 5)
    ]
    assert outcome == LogOutcome(source, str(output), judged=5, already_done=0)
    log = read_eval_log(str(output))
    assert [str(s.id) for s in log.samples or []] == ["c1", "c2", "c3", "c4", "c5", "c6"]
    assert judged_by(output, JUDGE) == ["c1", "c2", "c3", "c4", "c5"]
    assert log.eval.scorers is not None and log.eval.scorers[0].options == {"by": "inspect"}
    roles = log.eval.model_roles or {}
    assert roles[GRADER_ROLE].model == JUDGE
    # the unanswered case is carried as it was, and counted as not judged
    assert log.samples is not None and log.samples[5].error is not None
    assert log.status == "error" and log.results is not None
    assert (log.results.total_samples, log.results.completed_samples) == (6, 5)
    assert log.stats.model_usage == {JUDGE: usage(50, 10)}  # five judge calls, no answer


def test_the_same_command_again_judges_only_what_is_left(
    tmp_path: Path, source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = tmp_path / "out" / output_name(source, JUDGE, 1, False)
    options = options_for(tmp_path, checkpoint=2)
    stopped = ScriptedJudging(output, stop_after=3)
    with pytest.raises(asyncio.CancelledError):
        run_one(monkeypatch, source, options, stopped)
    # chunk one written whole, then the case judged in chunk two before the interruption
    assert judged_by(output, JUDGE) == ["c1", "c2", "c3"]
    first = read_eval_log(str(output))
    first_identity = first.eval.eval_id
    first_uuids = {str(s.id): s.uuid for s in first.samples or []}

    resumed = ScriptedJudging(output)
    outcome, _ = run_one(monkeypatch, source, options, resumed)
    assert resumed.chunks == [["c4", "c5"]]
    assert (outcome.judged, outcome.already_done) == (2, 3)
    assert judged_by(output, JUDGE) == ["c1", "c2", "c3", "c4", "c5"]
    resumed_log = read_eval_log(str(output))
    assert resumed_log.eval.eval_id == first_identity
    # the resumed log's samples keep the uuids the first run gave them (one each)
    uuids = {str(s.id): s.uuid for s in resumed_log.samples or []}
    assert uuids == first_uuids and len(set(uuids.values()) - {None}) == 6

    again = ScriptedJudging(output)
    outcome, said = run_one(monkeypatch, source, options, again)
    assert again.chunks == [] and said == []
    assert (outcome.judged, outcome.already_done) == (0, 5)


def test_a_run_stopped_in_its_first_chunk_records_the_planned_scorer(
    tmp_path: Path, source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = tmp_path / "out" / output_name(source, JUDGE, 1, False)
    with pytest.raises(asyncio.CancelledError):
        run_one(monkeypatch, source, options_for(tmp_path), ScriptedJudging(output, stop_after=1))
    log = read_eval_log(str(output))
    assert judged_by(output, JUDGE) == ["c1"]
    assert log.eval.scorers is not None
    (entry,) = log.eval.scorers
    assert entry.name == SCORER_NAME
    assert entry.options == {**RECORDED_OPTIONS, "judge_model": JUDGE}


def test_failed_only_judges_the_judge_failures_and_keeps_only_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = [
        sample("ok"),
        sample("judge-failed", judge=None, error="invalid judge reply"),
        sample("unanswered", answer=None, judge=None, error="no answer"),
    ]
    location = write(eval_log(cases), tmp_path / "logs" / "run.eval")
    output = tmp_path / "out" / "run-rejudge-mockllm_model-failed.eval"
    judging = ScriptedJudging(output)
    outcome, _ = run_one(monkeypatch, location, options_for(tmp_path, failed_only=True), judging)
    assert judging.chunks == [["judge-failed"]]
    assert outcome.output == str(output) and outcome.judged == 1
    log = read_eval_log(str(output))
    assert [str(s.id) for s in log.samples or []] == ["judge-failed"]
    assert log.status == "success"
    assert (log.eval.metadata or {})["rejudge"]["failed_only"] is True


def test_a_case_the_new_judge_fails_is_reported_and_judged_again_next_time(
    tmp_path: Path, source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = tmp_path / "out" / output_name(source, JUDGE, 1, False)
    options = options_for(tmp_path)
    outcome, _ = run_one(
        monkeypatch, source, options, ScriptedJudging(output, fail=frozenset({"c2"}))
    )
    assert outcome.failed == ["c2: ValueError: no valid reply for c2"]
    assert outcome.judged == 4
    failed = next(s for s in read_eval_log(str(output)).samples or [] if s.id == "c2")
    assert failed.error is not None
    assert (
        failed.error.message == "judge failed while re-judging: ValueError: no valid reply for c2"
    )
    assert failed.scores == {}
    retry = ScriptedJudging(output)
    outcome, _ = run_one(monkeypatch, source, options, retry)
    assert retry.chunks == [["c2"]] and outcome.already_done == 4


def test_a_log_not_written_by_a_benchmark_task_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = eval_log([sample("c1")], benchmark="not_a_benchmark")
    location = write(other, tmp_path / "logs" / "other.eval")
    judging = ScriptedJudging(tmp_path / "out" / "x.eval")
    outcome, _ = run_one(monkeypatch, location, options_for(tmp_path), judging)
    assert outcome == LogOutcome(
        location, "", skipped="task 'bedside_bench/not_a_benchmark' is not a BedsideBench benchmark"
    )
    assert judging.chunks == [] and not (tmp_path / "out").exists()
