"""The ten tasks end to end through `inspect eval` and Inspect's real provider clients,
against the local provider double: every score equals the protocol's value for the judge's
decisions, computed on an independent path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai import eval_retry
from inspect_ai.log import EvalLog

from bedside_bench.core.benchmarks import BENCHMARK_NAMES, BENCHMARKS_BY_NAME
from bedside_bench.core.contracts import TaskMetadata, metadata_keys
from bedside_bench.core.protocol import PROTOCOL_VERSION
from bedside_bench.doubles import (
    ProviderDouble,
    Script,
    invalid_judge_always,
    invalid_judge_first,
    scripted_answer,
    scripted_decision,
)
from bedside_bench.task import tasks as bedside_tasks
from tests.e2e_helpers import ANSWER_MODEL, assert_bought_once, eval_in_process, eval_ok
from tests.independent import case_score, f1_parts, read_cases
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # Inspect evals and provider doubles

# every case score's metadata keys, written out (not read from the contracts module)
SCORE_KEYS = {
    "decisions",
    "grading_method",
    "judge_model",
    "judge_temperature",
    "answer_temperature",
    "answer_stop_reason",
    "answer_condition",
    "answer_complete",
    "answer_empty",
    "judge_attempts",
    "judge_message_format",
    "severe_gate",
    "judge_usage",
}
SCORE_KEYS_POINTS = SCORE_KEYS | {"matched_signed_points", "available_positive_points"}
SCORE_KEYS_F1 = SCORE_KEYS | {"recall", "precision", "severe_rate"}


def check_log_against_protocol(
    log: EvalLog, release: Path, answer_model_wire: str, severe_gate: bool = False
) -> list[float]:
    """Assert every sample's score and metadata; return the scores in sample order."""
    benchmark = log.eval.task.split("/")[-1]
    cases = {c["case_id"]: c for c in read_cases(release, benchmark)}
    assert log.status == "success", log.error
    assert log.eval.metadata is not None
    assert log.eval.metadata["protocol_version"] == PROTOCOL_VERSION
    assert log.eval.metadata["grading_method"] == BENCHMARKS_BY_NAME[benchmark].grading_method
    assert set(log.eval.metadata) <= metadata_keys(TaskMetadata)
    assert log.samples
    scores = []
    for sample in log.samples:
        case = cases[str(sample.id)]
        score = sample.scores["rubric_judge"]  # type: ignore[index]
        answer = scripted_answer(answer_model_wire, case["prompt"])
        assert score.answer == answer
        expected = {
            i["item_id"]: scripted_decision(answer, i["item_id"]) for i in case["rubric_items"]
        }
        meta = score.metadata or {}
        assert meta["decisions"] == expected
        assert score.value == pytest.approx(case_score(case, expected, severe_gate), abs=1e-12)
        if case["grading_method"] == "points_rubric":
            assert set(meta) == SCORE_KEYS_POINTS
            assert meta["matched_signed_points"] == sum(
                i["points"] for i in case["rubric_items"] if expected[i["item_id"]]
            )
        else:
            assert set(meta) == SCORE_KEYS_F1
            recall, precision, _, severe = f1_parts(case["rubric_items"], expected)
            assert meta["recall"] == pytest.approx(float(recall), abs=1e-12)
            assert meta["precision"] == (
                None if precision is None else pytest.approx(float(precision), abs=1e-12)
            )
            assert meta["severe_rate"] == severe
        assert len(meta["judge_attempts"]) == 1 and meta["judge_attempts"][0]["error"] is None
        # what `inspect view` shows: the score rounded, then one line per item
        assert (score.explanation or "").startswith(f"**Score {float(score.value):.3f}**: ")
        scores.append(float(score.value))  # type: ignore[arg-type]
    return scores


def test_all_ten_tasks_through_the_inspect_cli(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    release = tmp_path / "release"
    written = write_release(release, per_benchmark=2)
    logs = tmp_path / "logs"
    # from the repository root, where `bedside_bench/` and its egg-info sit beside the console
    # script's working directory (every other `inspect eval` test runs from a temporary one)
    workdir = Path(__file__).resolve().parent.parent
    by_task = eval_ok(
        BENCHMARK_NAMES,
        logs,
        grader="openai/gpt-5.6-sol",
        task_args=[f"data_dir={release}"],
        cwd=workdir,
        env=provider_double.subprocess_env(),
    )
    assert sorted(by_task) == sorted(BENCHMARK_NAMES)
    for benchmark, log in by_task.items():
        scores = check_log_against_protocol(log, release, "gpt-4.1-mini")
        assert log.results is not None
        metrics = log.results.scores[0].metrics
        assert metrics["mean"].value == pytest.approx(sum(scores) / len(scores))
        assert {"stderr", "ci95_lo", "ci95_hi"} <= set(metrics)
        f1 = BENCHMARKS_BY_NAME[benchmark].grading_method == "f1_weighted_rubric"
        assert ({"recall", "precision", "severe_rate"} <= set(metrics)) == f1
        for sample in log.samples or []:
            meta = sample.scores["rubric_judge"].metadata  # type: ignore[index, union-attr]
            assert meta["judge_model"] == "openai/gpt-5.6-sol"
            assert meta["answer_temperature"] == 1.0
    # what the provider received: answers at temperature 1, and the judge's temperature is
    # recorded exactly as sent (Inspect drops it for reasoning models such as gpt-5.6)
    answers = provider_double.requests(kind="answer")
    judges = provider_double.requests(kind="judge")
    assert_bought_once(provider_double, written, [ANSWER_MODEL])
    assert {(r.api, r.temperature) for r in answers} == {("chat", 1.0)}
    sent = {r.temperature for r in judges}
    assert len(sent) == 1
    recorded = {
        s.scores["rubric_judge"].metadata["judge_temperature"]  # type: ignore[index, union-attr]
        for log in by_task.values()
        for s in log.samples or []
    }
    assert recorded == sent
    assert {r.api for r in judges} == {"responses"}


def in_process(
    task_args: dict[str, Any], model: str, log_dir: Path, benchmark: str = "drug_safety"
) -> EvalLog:
    """The registered @task, as users get it, judged by gpt-4.1, in this process."""
    return eval_in_process(getattr(bedside_tasks, benchmark)(**task_args), log_dir, model)


def test_anthropic_answers_record_null_temperature(
    tmp_path: Path, provider_env: ProviderDouble
) -> None:
    release = tmp_path / "release"
    written = write_release(release, per_benchmark=2)
    log = in_process(
        {"data_dir": str(release)},
        "anthropic/claude-sonnet-4-6",
        tmp_path / "logs",
        "safety_diagnostic",
    )
    check_log_against_protocol(log, release, "claude-sonnet-4-6")
    for sample in log.samples or []:
        meta = sample.scores["rubric_judge"].metadata  # type: ignore[index, union-attr]
        assert meta["answer_temperature"] is None
        assert meta["judge_temperature"] == 0.0
    assert all(not r.temperature_present for r in provider_env.requests(kind="answer"))
    # gpt-4.1 takes temperature: the judge received 0 and the log says so (above)
    assert {r.temperature for r in provider_env.requests(kind="judge")} == {0.0}
    assert_bought_once(provider_env, written["safety_diagnostic"], ["anthropic/claude-sonnet-4-6"])


def test_refused_temperature_is_asked_again_without_it(
    tmp_path: Path, provider_env: ProviderDouble
) -> None:
    release = tmp_path / "release"
    written = write_release(release, per_benchmark=2)
    provider_env.configure(refuse_temperature_for={"gpt-4.1-mini"})
    log = in_process({"data_dir": str(release)}, "openai/gpt-4.1-mini", tmp_path / "logs")
    check_log_against_protocol(log, release, "gpt-4.1-mini")
    for sample in log.samples or []:
        meta = sample.scores["rubric_judge"].metadata  # type: ignore[index, union-attr]
        assert meta["answer_temperature"] is None
    answers = provider_env.requests(kind="answer")
    assert [(r.status, r.temperature_present) for r in answers] == [
        (400, True),
        (200, False),
        (400, True),
        (200, False),
    ] or sorted((r.status or 0, r.temperature_present) for r in answers) == [
        (200, False),
        (200, False),
        (400, True),
        (400, True),
    ]
    assert_bought_once(provider_env, written["drug_safety"], [ANSWER_MODEL])  # refusals are free


def test_invalid_judge_reply_is_asked_again_and_scored(
    tmp_path: Path, provider_env: ProviderDouble
) -> None:
    release = tmp_path / "release"
    cases = write_release(release, per_benchmark=2)
    target = cases["drug_safety"][1]["prompt"]
    provider_env.configure(script=Script(judge=invalid_judge_first(1, target)))
    log = in_process({"data_dir": str(release)}, "openai/gpt-4.1-mini", tmp_path / "logs")
    sample = next(s for s in log.samples or [] if s.input == target)
    attempts = sample.scores["rubric_judge"].metadata["judge_attempts"]  # type: ignore[index, union-attr]
    assert [a["attempt"] for a in attempts] == [1, 2]
    assert attempts[0]["error"].startswith("not JSON") and attempts[1]["error"] is None
    assert attempts[0]["raw"]
    # the re-asked case scores exactly as a first-time valid one
    for sample in log.samples or []:
        sample.scores["rubric_judge"].metadata["judge_attempts"] = attempts[-1:]  # type: ignore[index, union-attr]
    check_log_against_protocol(log, release, "gpt-4.1-mini")
    reasked = cases["drug_safety"][1]["case_id"]
    assert_bought_once(provider_env, cases["drug_safety"], [ANSWER_MODEL], {reasked: 2, "*": 1})


def test_always_invalid_judge_fails_the_case_and_eval_retry_redoes_it(
    tmp_path: Path, provider_env: ProviderDouble
) -> None:
    release = tmp_path / "release"
    cases = write_release(release, per_benchmark=2)
    target = cases["drug_safety"][0]["prompt"]
    provider_env.configure(script=Script(judge=invalid_judge_always(target)))
    log = in_process(
        {"data_dir": str(release), "judge_retries": 1},
        "openai/gpt-4.1-mini",
        tmp_path / "logs",
    )
    assert log.status == "error"
    failed = [s for s in log.samples or [] if s.error is not None]
    assert [s.input for s in failed] == [target]
    assert not failed[0].scores  # a failed case has no score at all, never a 0
    assert "attempt 1: not JSON" in failed[0].error.message  # type: ignore[union-attr]
    assert "attempt 2: not JSON" in failed[0].error.message  # type: ignore[union-attr]
    # the other case was scored and the run went on
    assert sum(1 for s in log.samples or [] if s.scores) == 1
    failing = cases["drug_safety"][0]["case_id"]
    assert_bought_once(provider_env, cases["drug_safety"], [ANSWER_MODEL], {failing: 2, "*": 1})
    # fixed judge: eval-retry judges only the failed case, from its stored answer
    provider_env.configure(script=Script())
    provider_env.reset()
    (retried,) = eval_retry(log, log_dir=str(tmp_path / "logs"), display="none")
    check_log_against_protocol(retried, release, "gpt-4.1-mini")
    assert_bought_once(
        provider_env, cases["drug_safety"], [ANSWER_MODEL], {failing: 1}, answers_per_case=0
    )


@pytest.mark.parametrize("severe_gate", [False, True])
def test_severe_gate_option(
    tmp_path: Path, provider_env: ProviderDouble, severe_gate: bool
) -> None:
    release = tmp_path / "release"
    written = write_release(release, per_benchmark=2)
    log = in_process(
        {"data_dir": str(release), "severe_gate": severe_gate},
        "openai/gpt-4.1-mini",
        tmp_path / "logs",
        "safety_therapeutic",
    )
    check_log_against_protocol(log, release, "gpt-4.1-mini", severe_gate=severe_gate)
    assert log.eval.metadata["severe_gate"] is severe_gate  # type: ignore[index]
    assert_bought_once(provider_env, written["safety_therapeutic"], [ANSWER_MODEL])


def test_real_release_smoke_all_ten(
    tmp_path: Path, provider_env: ProviderDouble, real_release: str
) -> None:
    tasks = [getattr(bedside_tasks, b)(smoke=True) for b in BENCHMARK_NAMES]
    logs = inspect_eval(
        tasks,
        model="openai/gpt-5.4-mini",
        model_roles={"grader": "openai/gpt-4.1"},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    digests = set()
    for log in logs:
        assert len(log.samples or []) == 1
        check_log_against_protocol(log, Path(real_release), "gpt-5.4-mini")
        digests.add(log.eval.metadata["dataset_sha256"])  # type: ignore[index]
        assert log.eval.metadata["data_source"] == real_release  # type: ignore[index]
    assert len(digests) == 1
    smoke = [read_cases(Path(real_release), b)[0] for b in BENCHMARK_NAMES]
    assert_bought_once(provider_env, smoke, ["openai/gpt-5.4-mini"])
