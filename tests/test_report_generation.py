"""Generation settings as part of a run's identity (`report.generation`, the group key) and
answer conditions in the summary."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from inspect_ai.model import GenerateConfig

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.logs.generation import (
    DEFAULTS_TEXT,
    OPERATIONAL,
    answer_settings,
    settings_text,
)
from bedside_bench.report.groups import GroupKey, group_records
from bedside_bench.report.summary import BootstrapOptions, summarise
from tests.report_helpers import case_record, log_record, scores_for

SMALL = BootstrapOptions(resamples=200, seed=1)


def test_the_eval_config_wins_and_operational_settings_are_left_out() -> None:
    model = GenerateConfig(max_tokens=100, top_p=0.9, max_connections=8, timeout=30)
    run = GenerateConfig(max_tokens=300, seed=7, reasoning_effort="high", max_retries=3)
    settings = answer_settings(
        model.model_dump(mode="json", exclude_none=True),
        run.model_dump(mode="json", exclude_none=True),
    )
    assert settings == {"max_tokens": 300, "reasoning_effort": "high", "seed": 7, "top_p": 0.9}
    assert list(settings) == sorted(settings)
    assert settings_text(settings) == 'max_tokens=300, reasoning_effort="high", seed=7, top_p=0.9'
    assert answer_settings({}, {}) == {} and settings_text({}) == DEFAULTS_TEXT


def test_every_setting_inspect_knows_is_counted_unless_operational() -> None:
    """A setting Inspect adds later counts (changes identity) until named operational here."""
    names = set(GenerateConfig.model_fields)
    assert names >= OPERATIONAL  # no stale name
    assert {"max_tokens", "seed", "top_p", "reasoning_effort"} <= names - OPERATIONAL
    # the solver asks for the protocol's temperature on every call: --temperature decides none
    assert "temperature" in OPERATIONAL
    assert {"reasoning_tokens", "effort", "verbosity", "stop_seqs"} <= names - OPERATIONAL


JSON_VALUES = st.recursive(
    st.none() | st.integers() | st.text(max_size=5),  # (False == 0 in Python, not in JSON)
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=5,
)
SETTINGS = st.dictionaries(
    st.sampled_from(["max_tokens", "seed", "top_p", "stop_seqs"]), JSON_VALUES
)


@given(SETTINGS, SETTINGS)
def test_the_text_is_equal_exactly_when_the_settings_are(
    a: dict[str, Any], b: dict[str, Any]
) -> None:
    a, b = answer_settings(a, {}), answer_settings(b, {})
    assert (settings_text(a) == settings_text(b)) == (a == b)


def test_runs_with_other_settings_are_never_pooled() -> None:
    plain = log_record({"c1": 0.5, "c2": 0.25})
    capped = log_record({"c1": 0.0}, generation={"max_tokens": 300}, started_at="2026-01-02")
    groups = group_records([plain, capped])
    assert [g.key.generation for g in groups] == ["max_tokens=300", DEFAULTS_TEXT]
    assert [len(g.benchmarks["drug_safety"].completed) for g in groups] == [1, 2]
    # a key at the default settings keeps the digest it had before settings were recorded
    assert GroupKey.of(plain).digest() == GroupKey.of(log_record({"c9": 1.0})).digest()
    assert GroupKey.of(capped).digest() != GroupKey.of(plain).digest()


def test_the_summary_counts_answer_conditions_and_names_the_settings() -> None:
    judged = {
        "c1": case_record("c1", 0.5, answer_condition="complete"),
        "c2": case_record("c2", 0.25, answer_condition="truncated"),
        "c3": case_record("c3", 0.0, answer_condition="refused"),
        "c4": case_record("c4", 1.0),  # a score from before conditions were recorded
        "c5": case_record("c5", None, "no answer: message limit hit before the answer"),
        "c6": case_record("c6", None, "judge failed"),
    }
    records = [log_record(scores_for(b, 3), benchmark=b) for b in BENCHMARK_NAMES[1:]]
    records.append(log_record(judged, benchmark="drug_safety"))
    records = [
        log_record(dict(r.cases), benchmark=r.benchmark, generation={"seed": 7}) for r in records
    ]
    summary = summarise(group_records(records)[0], SMALL).as_json()
    entry = summary["benchmarks"]["drug_safety"]
    assert entry["answer_conditions"] == {
        "truncated": 1,
        "filtered": 0,
        "refused": 1,
        "unknown": 0,
        "not_recorded": 1,
    }
    assert (entry["n"], entry["failed"], entry["failed_no_answer"]) == (4, 2, 1)
    assert summary["generation_settings"] == {"seed": 7}
    notes = summary["notes"]
    assert any(
        n.startswith(
            "drug_safety: judged answers that did not end on their own: 1 truncated, 1 refused"
        )
        for n in notes
    )
    assert any("1 failed case(s) have no answer (drug_safety 1)" in n for n in notes)
    assert any(n.startswith("answer generation settings: seed=7;") for n in notes)
