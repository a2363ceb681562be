"""Run groups, newest evidence per case, usage and cost, on hand-built records (no I/O)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from bedside_bench.benchmarks import BENCHMARK_NAMES
from bedside_bench.credentials import redact_credentials
from bedside_bench.report.groups import (
    GroupKey,
    group_labels,
    group_records,
    group_slugs,
    merge_benchmark,
    slug,
)
from bedside_bench.report.logs import display_location
from bedside_bench.report.records import CaseRecord, LogRecord, TokenUsage
from bedside_bench.report.usage import (
    check_prices,
    cost_json,
    group_usage,
    split_usage,
    usage_cost,
)

DIGEST = "d" * 64


def rec(
    cases: dict[str, float | None],
    started_at: str,
    benchmark: str = "drug_safety",
    sample_ids: tuple[str, ...] | None = None,
    **fields: Any,
) -> LogRecord:
    return LogRecord(
        location=f"mem://{benchmark}/{started_at}",
        benchmark=benchmark,
        answer_model=fields.pop("answer_model", "test/a"),
        judge_model=fields.pop("judge_model", "test/judge"),
        dataset_sha256=fields.pop("dataset_sha256", DIGEST),
        started_at=started_at,
        completed_at=fields.pop("completed_at", started_at),
        sample_ids=sample_ids if sample_ids is not None else tuple(cases),
        dataset_samples=fields.pop(
            "dataset_samples", len(sample_ids) if sample_ids is not None else len(cases)
        ),
        cases={k: CaseRecord(k, v, None if v is not None else "error") for k, v in cases.items()},
        **fields,
    )


T1, T2, T3 = ("2026-01-01T10:00:00+00:00", "2026-01-01T11:00:00+00:00", "2026-01-01T12:00:00+00:00")


# --------------------------------------------------------------------------------------------
# newest complete evidence


def test_retry_log_completes_cases_that_errored_earlier() -> None:
    first = rec({"c1": 0.5, "c2": None, "c3": None}, T1)
    retry = rec({"c1": 0.5, "c2": 0.25, "c3": None}, T2)
    evidence = merge_benchmark("drug_safety", [first, retry])
    assert [c.case_id for c in evidence.completed] == ["c1", "c2"]
    assert evidence.failed == ("c3",)
    assert evidence.scores == [0.5, 0.25]


def test_newest_success_wins_and_a_later_error_does_not_hide_an_earlier_success() -> None:
    old = rec({"c1": 0.1, "c2": 0.2}, T1)
    new = rec({"c1": 0.9, "c2": None}, T3)
    middle = rec({"c1": 0.5, "c2": None}, T2)
    evidence = merge_benchmark("drug_safety", [new, old, middle])
    assert evidence.scores == [0.9, 0.2]
    assert evidence.failed == ()
    assert evidence.logs == (old.location, middle.location, new.location)


def test_cases_never_run_count_as_failed() -> None:
    # a cancelled log lists four cases but only ran two
    partial = rec(
        {"c1": 0.5, "c2": None}, T1, sample_ids=("c1", "c2", "c3", "c4"), status="cancelled"
    )
    evidence = merge_benchmark("drug_safety", [partial])
    assert evidence.case_ids == ("c1", "c2", "c3", "c4")
    assert evidence.failed == ("c2", "c3", "c4")


def test_dataset_order_comes_from_the_longest_listing() -> None:
    limited = rec({"b": 0.1}, T3, sample_ids=("b",))
    full = rec({"c": 0.3, "a": 0.2, "b": 0.4}, T1, sample_ids=("c", "a", "b"))
    evidence = merge_benchmark("drug_safety", [limited, full])
    assert evidence.case_ids == ("c", "a", "b")
    assert evidence.scores == [0.3, 0.2, 0.1]


def test_group_completeness() -> None:
    logs = [rec({"c": 1.0}, T1, benchmark=b) for b in BENCHMARK_NAMES]
    (group,) = group_records(logs)
    assert group.complete and group.cases_completed == 10 and group.cases_failed == 0
    (group,) = group_records(logs[:-1])
    assert not group.complete and group.missing_benchmarks == ["safety_therapeutic"]
    logs[0] = rec({"c": None}, T1, benchmark="drug_safety")
    (group,) = group_records(logs)
    assert not group.complete and group.cases_failed == 1


# --------------------------------------------------------------------------------------------
# scope: how many of how many cases ran


def ten(**fields: Any) -> list[LogRecord]:
    return [rec({"c1": 0.5}, T1, benchmark=b, **fields) for b in BENCHMARK_NAMES]


def test_a_limited_run_is_never_complete_and_says_why() -> None:
    (group,) = group_records(ten(dataset_samples=25, limit="1"))
    assert group.cases_failed == 0 and not group.missing_benchmarks
    assert not group.full_scope and not group.complete
    evidence = group.benchmarks["drug_safety"]
    assert (evidence.cases_run, evidence.cases_in_benchmark) == (1, 25)
    assert evidence.scope_reasons == ("limit",) and evidence.limits == ("1",)


def test_sample_id_and_smoke_runs_are_partial() -> None:
    (group,) = group_records(ten(dataset_samples=25, sample_id=True))
    assert group.benchmarks["health_equity"].scope_reasons == ("sample_id",)
    assert not group.complete
    # smoke: the dataset is already cut to one case, so only the release's count says how many
    (group,) = group_records(ten(dataset_samples=1, smoke=True))
    evidence = group.benchmarks["drug_safety"]
    assert (evidence.cases_in_benchmark, evidence.scope_reasons) == (None, ("smoke",))
    assert not group.complete
    counts = dict.fromkeys(BENCHMARK_NAMES, 25)
    (group,) = group_records(ten(dataset_samples=1, smoke=True, release_case_counts=counts))
    assert group.benchmarks["drug_safety"].cases_in_benchmark == 25
    assert not group.complete


def test_the_release_count_wins_over_the_dataset_size() -> None:
    counts = {**dict.fromkeys(BENCHMARK_NAMES, 1), "drug_safety": 2}
    (group,) = group_records(ten(dataset_samples=1, release_case_counts=counts))
    assert group.benchmarks["drug_safety"].scope_reasons == ("unknown",)
    assert group.benchmarks["health_equity"].full
    assert not group.complete


def test_a_limited_run_and_a_full_run_of_one_group_cover_every_case() -> None:
    limited = rec({"c1": 0.5}, T1, dataset_samples=2, limit="1")
    full = rec({"c1": 0.5, "c2": 0.25}, T2, dataset_samples=2)
    others = [rec({"c1": 0.5}, T1, benchmark=b) for b in BENCHMARK_NAMES[1:]]
    (group,) = group_records([limited, full, *others])
    evidence = group.benchmarks["drug_safety"]
    assert evidence.full and evidence.scope_reasons == () and group.complete


# --------------------------------------------------------------------------------------------
# group keys


@pytest.mark.parametrize(
    "change",
    [
        {"answer_model": "test/b"},
        {"judge_model": "test/j2"},
        {"dataset_sha256": "e" * 64},
        {"protocol_version": "bedside-bench-three-level-v0"},
        {"severe_gate": True},
        {"judge_passes": 2},
        {"grading": "three_level"},
        {"smoke": True},
        {"epochs": 3},
        {"release": "unrecognised"},
        {"release": "bedside-bench-public-v1"},
    ],
)
def test_every_key_field_splits_groups(change: dict[str, Any]) -> None:
    a = rec({"c": 0.5}, T1)
    b = rec({"c": 0.1}, T2, **change)
    groups = group_records([a, b])
    assert len(groups) == 2
    ((name, value),) = change.items()
    by_value = {getattr(g.key, name): g.benchmarks["drug_safety"].scores for g in groups}
    # each score stays with its own log's group; none is pooled with the other
    assert by_value == {getattr(GroupKey.of(a), name): [0.5], value: [0.1]}


def test_an_unknown_release_sorts_after_named_ones_and_keeps_old_digests() -> None:
    old = rec({"c": 0.5}, T1)  # a log from before releases were recorded
    named = rec({"c": 0.1}, T2, release="bedside-bench-public-v1")
    groups = group_records([old, named])
    assert [g.key.release for g in groups] == ["bedside-bench-public-v1", None]
    key = GroupKey.of(old)
    # the digest of a key with the new fields at their defaults is the one it always had
    legacy = {k: v for k, v in key.as_json().items() if k not in ("epochs", "release")}
    text = json.dumps(legacy, sort_keys=True, separators=(",", ":"))
    assert key.digest() == hashlib.sha256(text.encode()).hexdigest()[:8]
    assert GroupKey.of(named).digest() != key.digest()


def test_slugs_are_filesystem_safe_and_unique() -> None:
    assert slug("openai/gpt-5.4-mini") == "openai_gpt-5.4-mini"
    assert slug("azure:openai/../x y") == "azure_openai_.._x_y"
    assert "/" not in slug("../../etc/passwd") and not slug("../../etc/passwd").startswith(".")
    a = rec({"c": 0.5}, T1, answer_model="openai/gpt-5.4-mini")
    b = rec({"c": 0.5}, T1, answer_model="openai/gpt-5.4-mini", judge_model="other/judge")
    c = rec({"c": 0.5}, T1, answer_model="anthropic/claude")
    groups = group_records([a, b, c])
    slugs = group_slugs(groups)
    assert slugs[0] == "anthropic_claude"
    assert len(set(slugs)) == 3
    assert all(s.startswith("openai_gpt-5.4-mini-") for s in slugs[1:])
    labels = group_labels(groups)
    assert labels[0] == "anthropic/claude" and len(set(labels)) == 3
    assert GroupKey.of(a).digest() == GroupKey.of(a).digest() != GroupKey.of(b).digest()


def test_locations_never_carry_credentials() -> None:
    assert display_location("file:///tmp/logs/x%20y.eval") == "/tmp/logs/x y.eval"
    assert display_location("https://user:secret@host/logs/a.eval") == "https://host/logs/a.eval"
    assert display_location("s3://bucket/logs/a.eval") == "s3://bucket/logs/a.eval"
    assert (
        display_location("hf://doximity/bedside-bench@90d0") == "hf://doximity/bedside-bench@90d0"
    )
    assert redact_credentials("https://x:tok@hf.co/d") == "https://hf.co/d"
    assert redact_credentials("/data/bedside-bench") == "/data/bedside-bench"


# --------------------------------------------------------------------------------------------
# usage and cost


U = TokenUsage(
    input_tokens=100,
    output_tokens=10,
    input_tokens_cache_read=50,
    reasoning_tokens=4,
    total_tokens=160,
)
J = TokenUsage(input_tokens=300, output_tokens=30, total_tokens=330)


def test_split_usage_uses_the_grader_role() -> None:
    answer, judge = split_usage({"m/a": U, "m/j": J}, {"grader": J}, "m/a", "m/j", "grader")
    assert (answer, judge) == (U, J)
    # same model answering and judging: the role usage is taken out of the model's total
    answer, judge = split_usage({"m/a": U + J}, {"grader": J}, "m/a", "m/a", "grader")
    assert (answer, judge) == (U, J)
    # same model and no role usage: not separable
    answer, judge = split_usage({"m/a": U + J}, {}, "m/a", "m/a", "grader")
    assert (answer, judge) == (U + J, None)
    # no role usage, different models: by model name
    assert split_usage({"m/a": U, "m/j": J}, {}, "m/a", "m/j", "grader") == (U, J)


def test_retry_logs_carry_usage_forward_so_only_the_newest_per_task_counts() -> None:
    first = rec(
        {"c": None},
        T1,
        task_id="t1",
        answer_usage=U,
        judge_usage=J,
        completed_at="2026-01-01T10:00:30+00:00",
    )
    retry = rec(
        {"c": 0.5},
        T2,
        task_id="t1",
        answer_usage=U + U,
        judge_usage=J + J,
        completed_at="2026-01-01T11:00:10+00:00",
    )
    other = rec(
        {"d": 0.5},
        T1,
        task_id="t2",
        benchmark="health_equity",
        answer_usage=U,
        judge_usage=J,
        completed_at="2026-01-01T10:01:00+00:00",
    )
    usage = group_usage([first, retry, other])
    assert usage.answer == U + U + U
    assert usage.judge == J + J + J
    assert usage.counted_logs == (other.location, retry.location)
    assert usage.wall_time_sum == 30 + 10 + 60
    assert usage.wall_time_span == 3600 + 10


def test_cost_from_prices_per_million_tokens() -> None:
    price = {"input": 0.25, "output": 2.0, "cached_input": 0.025}
    assert usage_cost(U, price) == pytest.approx((100 * 0.25 + 50 * 0.025 + 10 * 2.0) / 1e6)
    assert usage_cost(U, {"input": 1.0, "output": 1.0}) == pytest.approx(160 / 1e6)
    usage = group_usage(
        [rec({"c": 0.5}, T1, answer_model="openai/gpt-5.4-mini", answer_usage=U, judge_usage=J)]
    )
    prices = check_prices({"openai/gpt-5.4-mini": price, "test/judge": {"input": 1, "output": 3}})
    cost, notes = cost_json("openai/gpt-5.4-mini", "test/judge", usage, prices)
    assert cost is not None and notes == []
    assert cost["answer"] == usage_cost(U, price)
    assert cost["judge"] == pytest.approx((300 * 1 + 30 * 3) / 1e6)
    assert cost["total"] == cost["answer"] + cost["judge"]
    assert cost["prices"] == prices


def test_a_model_missing_from_prices_is_null_never_zero() -> None:
    usage = group_usage([rec({"c": 0.5}, T1, answer_usage=U, judge_usage=J)])
    cost, notes = cost_json(
        "test/a", "test/judge", usage, {"test/a": {"input": 1.0, "output": 1.0}}
    )
    assert cost is not None
    assert cost["judge"] is None and cost["total"] is None and cost["answer"] is not None
    assert notes == ["no price for test/judge in the prices file: cost.judge is null"]
    assert cost_json("test/a", "test/judge", usage, None) == (None, [])


def test_prices_are_matched_with_or_without_provider_prefix() -> None:
    usage = group_usage(
        [rec({"c": 0.5}, T1, answer_model="openai/gpt-x", answer_usage=U, judge_usage=J)]
    )
    cost, _ = cost_json(
        "openai/gpt-x", "test/judge", usage, {"gpt-x": {"input": 1.0, "output": 1.0}}
    )
    assert cost is not None and list(cost["prices"]) == ["gpt-x"]


@pytest.mark.parametrize(
    "bad",
    [
        [],
        {"m": 1},
        {"m": {"input": 1}},
        {"m": {"input": 1, "output": -1}},
        {"m": {"input": 1, "output": 1, "bogus": 2}},
        {"m": {"input": True, "output": 1}},
    ],
)
def test_bad_prices_files_are_rejected(bad: Any) -> None:
    with pytest.raises(ValueError):
        check_prices(bad)
