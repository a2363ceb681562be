"""Run groups (`report/groups.py`): newest evidence per case, scope, group keys and slugs, on
hand-built records (no I/O)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.logs.records import LogRecord
from bedside_bench.report.groups import (
    GroupKey,
    group_labels,
    group_records,
    group_slugs,
    merge_benchmark,
    slug,
)
from tests.report_helpers import log_record

T1, T2, T3 = ("2026-01-01T10:00:00+00:00", "2026-01-01T11:00:00+00:00", "2026-01-01T12:00:00+00:00")


# --------------------------------------------------------------------------------------------
# newest complete evidence


def test_retry_log_completes_cases_that_errored_earlier() -> None:
    first = log_record({"c1": 0.5, "c2": None, "c3": None}, started_at=T1)
    retry = log_record({"c1": 0.5, "c2": 0.25, "c3": None}, started_at=T2)
    evidence = merge_benchmark("drug_safety", [first, retry])
    assert [c.case_id for c in evidence.completed] == ["c1", "c2"]
    assert evidence.failed == ("c3",)
    assert evidence.scores == [0.5, 0.25]


def test_newest_success_wins_and_a_later_error_does_not_hide_an_earlier_success() -> None:
    old = log_record({"c1": 0.1, "c2": 0.2}, started_at=T1)
    new = log_record({"c1": 0.9, "c2": None}, started_at=T3)
    middle = log_record({"c1": 0.5, "c2": None}, started_at=T2)
    evidence = merge_benchmark("drug_safety", [new, old, middle])
    assert evidence.scores == [0.9, 0.2]
    assert evidence.failed == ()
    assert evidence.logs == (old.location, middle.location, new.location)


def test_cases_never_run_count_as_failed() -> None:
    # a cancelled log lists four cases but only ran two
    partial = log_record(
        {"c1": 0.5, "c2": None},
        started_at=T1,
        sample_ids=("c1", "c2", "c3", "c4"),
        status="cancelled",
    )
    evidence = merge_benchmark("drug_safety", [partial])
    assert evidence.case_ids == ("c1", "c2", "c3", "c4")
    assert evidence.failed == ("c2", "c3", "c4")


def test_dataset_order_comes_from_the_longest_listing() -> None:
    limited = log_record({"b": 0.1}, started_at=T3, sample_ids=("b",))
    full = log_record({"c": 0.3, "a": 0.2, "b": 0.4}, started_at=T1, sample_ids=("c", "a", "b"))
    evidence = merge_benchmark("drug_safety", [limited, full])
    assert evidence.case_ids == ("c", "a", "b")
    assert evidence.scores == [0.3, 0.2, 0.1]


def test_group_completeness() -> None:
    logs = [log_record({"c": 1.0}, started_at=T1, benchmark=b) for b in BENCHMARK_NAMES]
    (group,) = group_records(logs)
    assert group.complete and group.cases_completed == 10 and group.cases_failed == 0
    (group,) = group_records(logs[:-1])
    assert not group.complete and group.missing_benchmarks == ["safety_therapeutic"]
    logs[0] = log_record({"c": None}, started_at=T1, benchmark="drug_safety")
    (group,) = group_records(logs)
    assert not group.complete and group.cases_failed == 1


# --------------------------------------------------------------------------------------------
# scope: how many of how many cases ran


def ten(**fields: Any) -> list[LogRecord]:
    return [log_record({"c1": 0.5}, started_at=T1, benchmark=b, **fields) for b in BENCHMARK_NAMES]


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
    limited = log_record({"c1": 0.5}, started_at=T1, dataset_samples=2, limit="1")
    full = log_record({"c1": 0.5, "c2": 0.25}, started_at=T2, dataset_samples=2)
    others = [log_record({"c1": 0.5}, started_at=T1, benchmark=b) for b in BENCHMARK_NAMES[1:]]
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
        {"demo": True},  # scripted stand-ins never pool with real answers of the same model
    ],
)
def test_every_key_field_splits_groups(change: dict[str, Any]) -> None:
    a = log_record({"c": 0.5}, started_at=T1)
    b = log_record({"c": 0.1}, started_at=T2, **change)
    groups = group_records([a, b])
    assert len(groups) == 2
    ((name, value),) = change.items()
    by_value = {getattr(g.key, name): g.benchmarks["drug_safety"].scores for g in groups}
    # each score stays with its own log's group; none is pooled with the other
    assert by_value == {getattr(GroupKey.of(a), name): [0.5], value: [0.1]}


def test_an_unknown_release_sorts_after_named_ones_and_keeps_old_digests() -> None:
    old = log_record({"c": 0.5}, started_at=T1)  # a log from before releases were recorded
    named = log_record({"c": 0.1}, started_at=T2, release="bedside-bench-public-v1")
    groups = group_records([old, named])
    assert [g.key.release for g in groups] == ["bedside-bench-public-v1", None]
    key = GroupKey.of(old)
    # the digest of a key with the new fields at their defaults is the one it always had
    legacy = {
        k: v
        for k, v in key.as_json().items()
        if k not in ("epochs", "release", "generation", "demo")
    }
    text = json.dumps(legacy, sort_keys=True, separators=(",", ":"))
    assert key.digest() == hashlib.sha256(text.encode()).hexdigest()[:8]
    assert GroupKey.of(named).digest() != key.digest()


def test_slugs_are_filesystem_safe_and_unique() -> None:
    assert slug("openai/gpt-5.4-mini") == "openai_gpt-5.4-mini"
    assert slug("azure:openai/../x y") == "azure_openai_.._x_y"
    assert "/" not in slug("../../etc/passwd") and not slug("../../etc/passwd").startswith(".")
    a = log_record({"c": 0.5}, started_at=T1, answer_model="openai/gpt-5.4-mini")
    b = log_record(
        {"c": 0.5}, started_at=T1, answer_model="openai/gpt-5.4-mini", judge_model="other/judge"
    )
    c = log_record({"c": 0.5}, started_at=T1, answer_model="anthropic/claude")
    groups = group_records([a, b, c])
    slugs = group_slugs(groups)
    assert slugs[0] == "anthropic_claude"
    assert len(set(slugs)) == 3
    assert all(s.startswith("openai_gpt-5.4-mini-") for s in slugs[1:])
    labels = group_labels(groups)
    assert labels[0] == "anthropic/claude" and len(set(labels)) == 3
    assert GroupKey.of(a).digest() == GroupKey.of(a).digest() != GroupKey.of(b).digest()
