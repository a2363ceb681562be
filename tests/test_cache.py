"""Inspect's `--cache` with the rubric judge: a re-ask and every judge pass reach the provider
as their own calls, a rerun reproduces the first run from the cache with zero provider calls,
and another endpoint is never answered from this one's entries."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bedside_bench.doubles import (
    INVALID_JUDGE_REPLY,
    JudgeInput,
    ParsedRequest,
    ProviderDouble,
    Script,
    invalid_judge_always,
    scripted_answer,
    scripted_decision,
)
from tests.e2e_helpers import decisions_reply, eval_args, judge_by_call, logs_by_task, run_cli
from tests.independent import case_score, read_cases
from tests.release_factory import write_release

BENCHMARKS = ["drug_safety", "safety_diagnostic"]


def flips(k: int, item_id: str) -> bool:
    """Judge call k of a prompt disagrees with the scripted decision on a known subset."""
    return sum(map(ord, item_id)) % (k + 2) == 0


def counting_judge(invalid_first: bool) -> Callable[[ParsedRequest], str]:
    """The k-th judge call per prompt: invalid for k = 0 if asked, else decisions flipped by k."""

    def reply(k: int, parsed: JudgeInput) -> str:
        if invalid_first and k == 0:
            return INVALID_JUDGE_REPLY
        return decisions_reply(
            {i: scripted_decision(parsed.answer, i) != flips(k, i) for i in parsed.item_ids}
        )

    return judge_by_call(reply)


def eval_cached(
    tmp_path: Path, double: ProviderDouble, log_dir: Path, *task_args: str
) -> dict[str, Any]:
    args = eval_args(BENCHMARKS, log_dir, "--cache", task_args=task_args)
    # Inspect's cache lives under the user cache folder: keep it in this test's folder
    env = {**double.subprocess_env(), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    result = run_cli(args, cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return logs_by_task(log_dir)


def sample_scores(logs: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """(benchmark, case id) -> what the judge decided and scored."""
    out = {}
    for benchmark, log in logs.items():
        assert log.status == "success", log.error
        for sample in log.samples or []:
            score = sample.scores["rubric_judge"]
            meta = score.metadata or {}
            out[(benchmark, str(sample.id))] = {
                "value": score.value,
                "decisions": meta["decisions"],
                "passes": sorted(
                    json.dumps(p, sort_keys=True) for p in meta.get("pass_decisions", [])
                ),
                "agreement": meta.get("judge_agreement"),
                "attempts": sorted(
                    (a.get("pass", 1), a["attempt"], a["error"] is None)
                    for a in meta["judge_attempts"]
                ),
                "judge_temperature": meta["judge_temperature"],
                "answer_temperature": meta["answer_temperature"],
            }
    return out


@pytest.mark.slow
def test_a_reask_is_not_answered_from_the_cache_and_a_rerun_makes_no_calls(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    release = tmp_path / "release"
    cases = write_release(release, per_benchmark=2)
    provider_double.configure(script=Script(judge=counting_judge(invalid_first=True)))
    first = eval_cached(tmp_path, provider_double, tmp_path / "logs1", f"data_dir={release}")
    # every case: one answer, an invalid judge reply, and a re-ask that reached the provider
    assert provider_double.count(kind="answer") == 4
    judged = Counter(r.request.judge.prompt for r in provider_double.requests(kind="judge"))
    assert sorted(judged.values()) == [2, 2, 2, 2]
    scores = sample_scores(first)
    for (benchmark, case_id), got in scores.items():
        case = next(c for c in read_cases(release, benchmark) if c["case_id"] == case_id)
        answer = scripted_answer("gpt-4.1-mini", case["prompt"])
        expected = {
            i["item_id"]: scripted_decision(answer, i["item_id"]) != flips(1, i["item_id"])
            for i in case["rubric_items"]
        }
        assert got["attempts"] == [(1, 1, False), (1, 2, True)]
        assert got["decisions"] == expected
        assert got["value"] == pytest.approx(case_score(case, expected), abs=1e-12)
    assert len(cases["drug_safety"]) == 2

    # the same command again: every reply comes from the cache and the scores are the same
    provider_double.reset()
    second = eval_cached(tmp_path, provider_double, tmp_path / "logs2", f"data_dir={release}")
    assert provider_double.requests() == []
    assert sample_scores(second) == scores


@pytest.mark.slow
def test_judge_passes_are_separate_entries_and_the_endpoint_is_part_of_the_key(
    tmp_path: Path, provider_double: ProviderDouble, provider_double_factory: Any
) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=2)
    provider_double.configure(script=Script(judge=counting_judge(invalid_first=False)))
    options = (f"data_dir={release}", "judge_passes=3")
    first = eval_cached(tmp_path, provider_double, tmp_path / "logs1", *options)
    assert provider_double.count(kind="judge") == 12
    scores = sample_scores(first)
    # the passes disagree somewhere: a cache that merged them would show perfect agreement
    assert any(s["agreement"] < 1 for s in scores.values())
    for got in scores.values():
        assert len(got["passes"]) == 3 and len(set(got["passes"])) == 3

    provider_double.reset()
    second = eval_cached(tmp_path, provider_double, tmp_path / "logs2", *options)
    assert provider_double.requests() == []
    assert sample_scores(second) == scores

    # another endpoint (same model names, same requests) is asked, not served from this cache
    other = provider_double_factory()
    eval_cached(tmp_path, other, tmp_path / "logs3", *options)
    assert other.count(kind="answer") == 4
    assert other.count(kind="judge") == 12
    assert provider_double.requests() == []


@pytest.mark.slow
def test_eval_retry_of_a_failed_case_asks_the_judge_again(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """eval-retry keeps the run's cache policy: the failed case's invalid judge replies are
    not kept in the cache, so the retry reaches the judge (the answer comes from the cache)."""
    release = tmp_path / "release"
    cases = write_release(release, per_benchmark=2)
    target = cases["drug_safety"][0]["prompt"]
    provider_double.configure(script=Script(judge=invalid_judge_always(target)))
    env = {**provider_double.subprocess_env(), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    logs = tmp_path / "logs"
    result = run_cli(
        eval_args(
            "drug_safety",
            logs,
            "--cache",
            task_args=[f"data_dir={release}", "judge_retries=1"],
        ),
        cwd=tmp_path,
        env=env,
    )
    (log,) = logs_by_task(logs).values()
    assert log.status == "error", result.stdout[-2000:]
    assert [s.input for s in log.samples or [] if s.error is not None] == [target]
    assert provider_double.count(kind="judge") == 3  # two invalid for the target, one valid

    provider_double.configure(script=Script())
    provider_double.reset()
    retry_dir = tmp_path / "retried"
    log_file = next(p for p in logs.iterdir() if p.suffix == ".eval")
    result = run_cli(
        ["eval-retry", str(log_file), "--log-dir", str(retry_dir), "--display", "plain"],
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (retried,) = logs_by_task(retry_dir).values()
    assert retried.status == "success", retried.error
    assert provider_double.count(kind="answer") == 0  # the answer was cached and kept
    judged = provider_double.requests(kind="judge")
    assert [r.request.judge.prompt for r in judged] == [target]
    scored = {s.input: s.scores["rubric_judge"] for s in retried.samples or []}  # type: ignore[index]
    meta = scored[target].metadata or {}
    assert [a["error"] is None for a in meta["judge_attempts"]] == [True]


def test_endpoint_scope_holds_no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    from inspect_ai.model import CachePolicy, GenerateConfig, get_model

    from bedside_bench.calls.cache import ENDPOINT_SCOPE, endpoint_of, scoped_cache
    from tests.doubles.fixtures import reset_inspect_model_cache

    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://user:tok3n@proxy.example:8443/v1/?key=abc#x")
    reset_inspect_model_cache()
    try:
        model = get_model("openai/gpt-4.1", memoize=False)
        assert endpoint_of(model) == "https://proxy.example:8443/v1"
        assert scoped_cache(model, {"call": "answer"}) is None  # caching is off by default
        cached = get_model(
            "openai/gpt-4.1", config=GenerateConfig(cache=CachePolicy(expiry="1h")), memoize=False
        )
        policy = scoped_cache(cached, {"call": "judge", "pass": "2"})
        assert policy is not None and policy.expiry == "1h"
        assert set(policy.scopes) == {ENDPOINT_SCOPE, "call", "pass"}
        text = policy.model_dump_json()
        assert not any(s in text for s in ("tok3n", "sk-secret", "abc", "proxy.example"))
        monkeypatch.setenv("OPENAI_BASE_URL", "https://other.example/v1")
        other = get_model(
            "openai/gpt-4.1", config=GenerateConfig(cache=CachePolicy(expiry="1h")), memoize=False
        )
        other_policy = scoped_cache(other, {"call": "judge", "pass": "2"})
        assert other_policy is not None
        assert other_policy.scopes[ENDPOINT_SCOPE] != policy.scopes[ENDPOINT_SCOPE]
    finally:
        reset_inspect_model_cache()


def test_paid_calls_are_kept_for_their_run_only_and_released_once_in_the_log(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Without --cache an answer's or a judge call's policy names the run (task id) and the
    case, so only a retry of that run reads it back; the kept entry is released only for a
    sample the written log holds scored; with --cache the chosen policy applies unchanged."""
    from inspect_ai.model import CachePolicy, GenerateConfig, ModelOutput, get_model

    from bedside_bench.calls import cache as call_cache
    from bedside_bench.calls import kept_calls
    from bedside_bench.core.inspect_private import cache_entry, cache_fetch, cache_store
    from tests.doubles.fixtures import reset_inspect_model_cache

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    reset_inspect_model_cache()
    try:
        model = get_model("openai/gpt-4.1-mini", memoize=False)
        assert call_cache.answer_cache(model, "case-1") == (None, False)  # not in a sample

        def policy_in(task_id: str, case: str) -> CachePolicy:
            monkeypatch.setattr(kept_calls, "active_task_id", lambda: task_id)
            policy, kept = call_cache.answer_cache(model, case)
            assert kept and policy is not None
            return policy

        first = policy_in("task-A", "case-1")
        assert first.expiry == call_cache.ANSWER_KEPT_FOR and first.per_epoch
        assert first.scopes[call_cache.RUN_SCOPE] == "task-A"
        assert first.scopes[call_cache.CASE_SCOPE] == "case-1"
        assert first.scopes["call"] == "answer"

        def entry(policy: CachePolicy) -> Any:  # Inspect's CacheEntry
            found = cache_entry(
                base_url=None,
                config=GenerateConfig(temperature=1.0),
                input=[],
                model=str(model),
                policy=policy,
                tool_choice="auto",
                tools=[],
            )
            assert found is not None
            return found

        keys = {
            entry(policy_in(task, case)).key
            for task, case in (("task-A", "case-1"), ("task-B", "case-1"), ("task-A", "case-2"))
        }
        assert len(keys) == 3  # another run or another case never reads this answer
        assert entry(policy_in("task-A", "case-1")).key == entry(first).key  # a retry does

        # a judge call: its pass and attempt in the key, the case from the running sample
        for module in (call_cache, kept_calls):
            monkeypatch.setattr(module, "active_sample_key", lambda: ("case-1", 1))
        judge_scope = {"call": "judge", "pass": "1", "attempt": "1"}
        judged, kept_judge = call_cache.call_policy(model, judge_scope)
        assert kept_judge and judged is not None
        assert judged.scopes[call_cache.CASE_SCOPE] == "case-1"
        assert entry(judged).key != entry(first).key
        again = {**judge_scope, "attempt": "2"}  # a re-ask never reads the first reply
        reask, _ = call_cache.call_policy(model, again)
        assert reask is not None and entry(reask).key != entry(judged).key

        # kept in the run's index; released only once the log holds the sample scored
        monkeypatch.setattr(kept_calls, "active_task_id", lambda: "task-A")
        entries = []
        for sample, policy, reply in (
            (("case-1", 1), first, "an answer"),
            (("case-2", 1), judged, "{}"),
        ):
            monkeypatch.setattr(kept_calls, "active_sample_key", lambda s=sample: s)
            kept = entry(policy)
            cache_store(kept, ModelOutput.from_content(str(model), reply))
            kept_calls.keep(kept)
            entries.append(kept)
        assert [c.sample for c in kept_calls.kept("task-A")] == ["case-1", "case-2"]
        assert kept_calls.release("task-A", {("case-1", 2), ("case-9", 1)}) == 0
        assert all(cache_fetch(e) is not None for e in entries)
        assert kept_calls.release("task-A", {("case-1", 1)}) == 1
        assert cache_fetch(entries[0]) is None and cache_fetch(entries[1]) is not None
        assert [c.sample for c in kept_calls.kept("task-A")] == ["case-2"]
        assert kept_calls.release("task-A", {("case-2", 1)}) == 1
        assert cache_fetch(entries[1]) is None
        assert not kept_calls.index_path("task-A").exists()  # nothing left for a later run
        assert kept_calls.release("task-A", {("case-2", 1)}) == 0  # twice: nothing happens

        chosen = get_model(
            "openai/gpt-4.1-mini",
            config=GenerateConfig(cache=CachePolicy(expiry="1h")),
            memoize=False,
        )
        policy, kept_for_retry = call_cache.answer_cache(chosen, "case-1")
        assert policy is not None and policy.expiry == "1h" and not kept_for_retry
        assert call_cache.RUN_SCOPE not in policy.scopes
    finally:
        reset_inspect_model_cache()


def test_the_release_hook_acts_only_at_the_end_of_a_task_of_this_suite(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Once our scorer is built, the hook is called at the end of every task of the process:
    it releases the kept calls of a task whose log names our scorer, and for another suite's
    task touches nothing, not even Inspect's cache folder."""
    import asyncio

    from inspect_ai.hooks import TaskEnd
    from inspect_ai.log import EvalLog, EvalSpec
    from inspect_ai.model import CachePolicy, GenerateConfig, ModelOutput

    from bedside_bench.calls import kept_calls
    from bedside_bench.calls.running_tasks import RunningTask
    from bedside_bench.core.inspect_private import cache_entry, cache_fetch, cache_store
    from bedside_bench.scoring.scorer import rubric_judge
    from tests import log_factory

    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    rubric_judge()
    hook = kept_calls.ReleaseKeptCalls()

    def end(log: EvalLog, name: str) -> None:
        log.location = log_factory.write(log, tmp_path / "logs" / f"{name}.eval")
        data = TaskEnd(eval_set_id=None, run_id="run-1", eval_id=log.eval.eval_id, log=log)
        asyncio.run(hook.on_task_end(data))

    other = log_factory.eval_log([log_factory.sample("case-1")], task_id="task-other")
    other.eval = EvalSpec.model_validate(
        {**other.eval.model_dump(), "task": "greeting", "scorers": [{"name": "exact"}]}
    )
    end(other, "other")
    assert not (tmp_path / "cache").exists()

    monkeypatch.setattr(kept_calls, "running_task", lambda: RunningTask("task-ours", None))
    monkeypatch.setattr(kept_calls, "active_sample_key", lambda: ("case-1", 1))
    entry = cache_entry(
        base_url=None,
        config=GenerateConfig(temperature=1.0),
        input=[],
        model=log_factory.ANSWER_MODEL,
        policy=CachePolicy(scopes={"call": "answer"}),
        tool_choice="auto",
        tools=[],
    )
    assert entry is not None
    cache_store(entry, ModelOutput.from_content(log_factory.ANSWER_MODEL, "an answer"))
    kept_calls.keep(entry)
    end(log_factory.eval_log([log_factory.sample("case-1")], task_id="task-ours"), "ours")
    assert cache_fetch(entry) is None
    assert not kept_calls.index_path("task-ours").exists()
