"""A resume never mixes releases: case files edited (same ids, new prompts) between a run and
its resume are asked afresh, never kept as the answers of the old questions.

A run leaves one case failed (its judge never gives a valid reply) and two scored; then two
case files are edited, one of them a scored case. `inspect eval-retry` reuses the scored
samples by id: the edited one is invalidated and the log is an error naming it, and the next
retry asks it (and only it) afresh. The sweep run again does the same within one command (its
task retry asks the edited case). The ledger shows every new question bought once and no old
answer kept; every sample of the final log is its case as the release holds it now.
"""

from __future__ import annotations

import hashlib
import signal
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from inspect_ai.analysis import samples_df
from inspect_ai.log import read_eval_log, write_eval_log

from bedside_bench import sweep
from bedside_bench.analysis import SAMPLE_COLUMNS
from bedside_bench.doubles import (
    ParsedRequest,
    ProviderDouble,
    Script,
    default_judge,
    invalid_judge_always,
)
from bedside_bench.release.case_model import Case
from bedside_bench.release.dataset import case_sha256
from bedside_bench.task import case_check
from tests.e2e_helpers import (
    ANSWER_MODEL,
    JUDGE_MODEL,
    assert_bought_once,
    assert_scored_once,
    eval_args,
    expected_scores,
    judged_at_least,
    local_path,
    output,
    read_logs,
    run_cli,
    run_sweep_cli,
    run_tool,
    start_sweep,
    stop,
    sweep_args,
    sweep_env,
    wait_for,
)
from tests.release_factory import case_path, write_case, write_release

pytestmark = pytest.mark.slow  # Inspect evals against a provider double

BENCHMARK = "drug_safety"
ASKS = 3  # a failing judge: the first ask and two re-asks
IN_TRANSIT = 0.5  # seconds for a reply already sent to reach a loaded client


def edited(case: dict[str, Any]) -> dict[str, Any]:
    """The same case id with a new prompt (item ids follow the prompt, as the release's do)."""
    prompt = "Edited: " + case["prompt"]
    md5 = hashlib.md5(prompt.encode("utf-8")).hexdigest()
    items = [{**item, "item_id": f"{md5}_{i}"} for i, item in enumerate(case["rubric_items"])]
    return {**case, "prompt": prompt, "rubric_items": items}


@pytest.fixture
def release(tmp_path: Path, provider_double: ProviderDouble) -> dict[str, Any]:
    """Three cases; the judge never gives a valid reply for the third as first written."""
    cases = write_release(tmp_path / "release", per_benchmark=3)[BENCHMARK]
    fails = invalid_judge_always(cases[2]["prompt"])

    def judge(request: ParsedRequest) -> str:
        return fails(request)

    provider_double.configure(script=Script(judge=judge))
    return {"cases": cases, "env": sweep_env(provider_double, tmp_path)}


def edit(tmp_path: Path, cases: list[dict[str, Any]], which: list[int]) -> list[dict[str, Any]]:
    """Edit the files of cases `which`; the cases as the release now holds them."""
    now = list(cases)
    for n in which:
        now[n] = edited(cases[n])
        write_case(case_path(tmp_path / "release", now[n]), now[n])
    return now


def assert_no_old_answers(log: Any, cases: list[dict[str, Any]]) -> None:
    """Every sample is its case as the release holds it now: its question, its recorded digest,
    the header's digest of that case."""
    now = {c["case_id"]: c for c in cases}
    assert log.eval.metadata["case_sha256"] == {
        i: case_sha256(Case.model_validate(c)) for i, c in now.items()
    }
    for sample in log.samples or []:
        case = now[str(sample.id)]
        assert sample.input == case["prompt"]
        assert sample.metadata["case_sha256"] == case_sha256(Case.model_validate(case))


def test_eval_retry_after_case_edits_asks_the_edited_cases_afresh(
    tmp_path: Path, provider_double: ProviderDouble, release: dict[str, Any]
) -> None:
    cases, env = release["cases"], release["env"]
    logs = tmp_path / "logs"
    first = run_cli(
        eval_args(BENCHMARK, logs, task_args=[f"data_dir={tmp_path / 'release'}"]), tmp_path, env
    )
    assert first.returncode == 0, output(first)
    (failed,) = read_logs(logs)
    assert failed.status == "error", failed.status
    assert_bought_once(provider_double, cases, [ANSWER_MODEL], {cases[2]["case_id"]: ASKS, "*": 1})

    now = edit(tmp_path, cases, [0, 2])
    provider_double.configure(script=Script(judge=default_judge))
    provider_double.reset()
    retry = ["eval-retry", "--log-dir", str(logs), "--display", "plain"]
    second = run_cli([*retry, failed.location], tmp_path, env)
    assert second.returncode == 0, output(second)
    (resumed,) = [log for log in read_logs(logs) if log.location != failed.location]
    # the edited scored case was reused by id: refused, named, invalidated; never a success
    assert resumed.status == "error"
    assert resumed.error is not None and cases[0]["case_id"] in resumed.error.message
    assert cases[1]["case_id"] not in resumed.error.message
    invalid = {str(s.id) for s in resumed.samples or [] if s.invalidation is not None}
    assert invalid == {cases[0]["case_id"]}
    # the analysis frame agrees with the report: the invalidated case has no score, and why
    frame = samples_df(resumed.location, columns=SAMPLE_COLUMNS, quiet=True)
    row = frame[frame["case_id"] == cases[0]["case_id"]].iloc[0]
    assert pd.isna(row["score"]) and row["error"].startswith("invalidated: "), row
    kept = frame[frame["case_id"] != cases[0]["case_id"]]
    assert all(not pd.isna(v) or e for v, e in zip(kept["score"], kept["error"], strict=True))
    # only the failed case was asked (its new question); the edited scored case was not yet
    assert_bought_once(provider_double, [now[2]], [ANSWER_MODEL])

    provider_double.reset()
    third = run_cli([*retry, resumed.location], tmp_path, env)
    assert third.returncode == 0, output(third)
    (final,) = [
        log for log in read_logs(logs) if log.location not in (failed.location, resumed.location)
    ]
    assert final.status == "success", final.error
    assert_no_old_answers(final, now)
    assert_bought_once(provider_double, [now[0]], [ANSWER_MODEL])  # the edited case, afresh
    expected = expected_scores(tmp_path / "release", [ANSWER_MODEL], [BENCHMARK])
    assert_scored_once([final], expected, 3)

    # the report reads the final log as written, and refuses a score edited by hand (in range)
    # by log, case and field
    location = str(local_path(final.location))
    report = ["report", location, "--resamples", "200", "-o"]
    honest = run_tool("bedside-bench", *report, str(tmp_path / "honest"), env=env, cwd=tmp_path)
    assert honest.returncode == 0, output(honest)
    assert "report: failed" not in honest.stderr, output(honest)
    edited = read_eval_log(location)
    target = next(s for s in edited.samples or [] if str(s.id) == now[1]["case_id"])
    score = target.scores["rubric_judge"]
    true_value = float(score.value)  # type: ignore[arg-type]
    score.value = 0.5 if abs(true_value - 0.5) > 0.1 else 0.9
    write_eval_log(edited, location)
    checked = run_tool("bedside-bench", *report, str(tmp_path / "edited"), env=env, cwd=tmp_path)
    assert (
        f"report: failed {location}: case {now[1]['case_id']}: score value: {score.value!r} is "
        f"not the score its stored decisions give ({true_value!r})" in checked.stderr
    ), output(checked)


def test_the_sweep_run_again_after_case_edits_asks_the_edited_cases_afresh(
    tmp_path: Path, provider_double: ProviderDouble, release: dict[str, Any]
) -> None:
    cases, env = release["cases"], release["env"]
    logs = tmp_path / "logs"

    def args(retries: int) -> list[str]:
        return sweep_args(
            [ANSWER_MODEL],
            logs,
            "--judge",
            JUDGE_MODEL,
            "--benchmarks",
            BENCHMARK,
            "--retry-attempts",
            str(retries),
            data_dir=tmp_path / "release",
        )

    first = run_sweep_cli(args(0), env, tmp_path)
    assert first.returncode == sweep.EXIT_INCOMPLETE, output(first)

    now = edit(tmp_path, cases, [0, 2])
    provider_double.configure(script=Script(judge=default_judge))
    provider_double.reset()
    # the same sweep again: the resume refuses the reused answer to the edited case, and its
    # task retry asks that case afresh
    again = run_sweep_cli(args(1), env, tmp_path)
    assert again.returncode == 0, output(again)
    final = [log for log in read_logs(logs) if log.status == "success"]
    assert len(final) == 1, [(log.location, log.status) for log in read_logs(logs)]
    assert_no_old_answers(final[0], now)
    # each new question bought once: the failed case, and the edited scored case once refused
    assert_bought_once(provider_double, [now[0], now[2]], [ANSWER_MODEL])
    expected = expected_scores(tmp_path / "release", [ANSWER_MODEL], [BENCHMARK])
    assert_scored_once(final, expected, 3)


def test_a_killed_sweep_resumed_after_case_edits_asks_every_edited_case_afresh(
    tmp_path: Path, provider_double: ProviderDouble, caplog: pytest.LogCaptureFixture
) -> None:
    """SIGKILL half-way (cases judged and in Inspect's sample buffer), every case file edited,
    then the same command: the cases recovered from the killed run are not kept as answers,
    and every case's new question is bought once."""
    cases = write_release(tmp_path / "release", per_benchmark=6)[BENCHMARK]
    env = sweep_env(provider_double, tmp_path)
    logs = tmp_path / "logs"
    args = sweep_args(
        [ANSWER_MODEL],
        logs,
        "--judge",
        JUDGE_MODEL,
        "--benchmarks",
        BENCHMARK,
        "--max-connections",
        "2",
        data_dir=tmp_path / "release",
    )
    provider_double.configure(latency=0.25)
    process = start_sweep(args, env, tmp_path)
    try:
        wait_for(judged_at_least(provider_double, 3), 120, process)
        provider_double.configure(latency=3600)  # nothing more completes before the kill
        time.sleep(IN_TRANSIT)
        stop(process, signal.SIGKILL)
    finally:
        stop(process)
    assert process.returncode == -signal.SIGKILL

    now = edit(tmp_path, cases, list(range(len(cases))))
    provider_double.reset()
    provider_double.configure(latency=0.02)
    again = run_sweep_cli(args, env, tmp_path)
    assert again.returncode == 0, output(again)
    # cases of the killed run were recovered and refused as answers to the old questions
    refusals = [r.getMessage() for r in caplog.records if r.name == case_check.__name__]
    assert refusals and "were answered when their case file said something else" in refusals[0]
    (final,) = [log for log in read_logs(logs) if log.status == "success"]
    assert_no_old_answers(final, now)
    assert_bought_once(provider_double, now, [ANSWER_MODEL])
