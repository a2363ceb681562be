"""`sweep/options.py`: what a sweep is asked (options, their checks, the task arguments and the
generation options it hands to Inspect, the answer models and the judge role). Pure, no call;
the sweeps themselves run end to end in tests/test_sweep*.py."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from inspect_ai.model import BatchConfig, Model

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.contracts import GRADER_ROLE
from bedside_bench.core.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.core.ranges import ABANDONED_ATTEMPTS_RETRIES
from bedside_bench.sweep.options import (
    SweepError,
    SweepFields,
    SweepOptions,
    answer_model,
    answer_models,
    check_benchmarks,
    check_model_name,
    eval_config_args,
    generate_config_args,
    judge_connections,
    judge_passes,
    judge_role,
    max_samples,
    parse_task_arg,
    split_list,
    task_arguments,
)
from bedside_bench.sweep.shard import Shard

MODELS = ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6"]


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Provider clients are built (never called) only with a key in the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unit")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-unit")


# --------------------------------------------------------------------------------------------
# lists and names


@pytest.mark.parametrize(
    ("given", "items"),
    [
        (None, []),
        ("a", ["a"]),
        (" a, b,,a ,", ["a", "b"]),
        (["a,b", "c", "b,a"], ["a", "b", "c"]),
        ([], []),
    ],
)
def test_comma_lists_keep_their_order_without_repeats(
    given: str | list[str] | None, items: list[str]
) -> None:
    assert split_list(given) == items


@pytest.mark.parametrize("name", ["gpt-5.4-mini", "/gpt", "openai/", ""])
def test_a_model_name_needs_a_provider(name: str) -> None:
    with pytest.raises(SweepError) as refused:
        check_model_name(name, "judge")
    assert str(refused.value) == (
        f"judge {name!r} is not an Inspect model name such as openai/gpt-5.4-mini"
    )


def test_a_provider_model_name_is_taken_as_given() -> None:
    assert check_model_name("openai/azure/gpt-4o", "model") == "openai/azure/gpt-4o"


def test_benchmarks_run_in_registry_order_and_unknown_ones_are_named() -> None:
    assert check_benchmarks(["safety_therapeutic", "drug_safety"]) == [
        "drug_safety",
        "safety_therapeutic",
    ]
    assert check_benchmarks(list(reversed(BENCHMARK_NAMES))) == list(BENCHMARK_NAMES)
    with pytest.raises(SweepError) as refused:
        check_benchmarks(["drug_safety", "dermatology", "x"])
    assert str(refused.value) == (
        f"unknown benchmark(s) dermatology, x; choose from {', '.join(BENCHMARK_NAMES)}"
    )


# --------------------------------------------------------------------------------------------
# -T arguments


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("severe_gate=true", ("severe_gate", True)),
        ("judge_passes=3", ("judge_passes", 3)),
        ("x=0.5", ("x", 0.5)),
        ("grading=three_level", ("grading", "three_level")),
        ("data_dir=/data/release", ("data_dir", "/data/release")),
        (" revision = abc123", ("revision", "abc123")),
        ("ids=[1, 2]", ("ids", [1, 2])),
        ("text=a=b", ("text", "a=b")),
        ("broken=[1, 2", ("broken", "[1, 2")),  # not YAML: the text itself
    ],
)
def test_task_arguments_are_read_as_yaml_like_inspect_reads_t(
    text: str, parsed: tuple[str, object]
) -> None:
    assert parse_task_arg(text) == parsed


@pytest.mark.parametrize("text", ["nil=null", "nil=~", "nil=Null"])
def test_a_task_argument_that_is_yamls_null_is_refused(text: str) -> None:
    with pytest.raises(SweepError) as refused:
        parse_task_arg(text)
    assert str(refused.value) == (
        f"task argument {text} is YAML's null: leave -T nil out for its default"
    )


@pytest.mark.parametrize("text", ["empty=", "empty=  "])
def test_a_task_argument_without_a_value_is_refused(text: str) -> None:
    """YAML reads nothing as null, which is each option's default: not what was typed."""
    with pytest.raises(SweepError) as refused:
        parse_task_arg(text)
    assert str(refused.value) == (
        "task argument empty= has no value: give one, or leave -T empty out for its default"
    )


@pytest.mark.parametrize("text", ["severe_gate", "=true", "1x=3", "a-b=1", "a b=1"])
def test_a_task_argument_is_name_equals_value(text: str) -> None:
    with pytest.raises(SweepError) as refused:
        parse_task_arg(text)
    assert str(refused.value) == f"task argument {text!r} is not NAME=VALUE"


def test_task_arguments_are_the_same_on_every_run_of_one_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    options = SweepOptions(
        models=MODELS,
        data_dir="release",
        revision="abc123",
        judge_retries=0,
        task_args={"severe_gate": True, "smoke": True},
    )
    assert task_arguments(options) == {
        "smoke": True,  # -T wins over --smoke's default
        "data_dir": str(tmp_path / "release"),  # absolute: eval_set hashes it
        "revision": "abc123",
        "judge_retries": 0,
        "severe_gate": True,
    }
    assert task_arguments(SweepOptions(models=MODELS)) == {"smoke": False}
    home = task_arguments(SweepOptions(models=MODELS, data_dir="~/rel"))["data_dir"]
    assert home == str(Path("~/rel").expanduser().resolve())


@pytest.mark.parametrize(("value", "passes"), [(3, 3), (1, 1), (0, 1), ("3", 1), (None, 1)])
def test_judge_passes_count_only_as_a_whole_number_of_at_least_one(
    value: object, passes: int
) -> None:
    args = {} if value is None else {"judge_passes": value}
    assert judge_passes(SweepOptions(models=MODELS, task_args=args)) == passes


# --------------------------------------------------------------------------------------------
# generation options, answer models and the judge role


def test_only_the_generation_options_given_reach_inspect() -> None:
    assert generate_config_args(SweepOptions(models=MODELS)) == {}
    batch = BatchConfig(size=20, send_delay=0.5)
    every = SweepOptions(
        models=MODELS,
        max_connections=8,
        max_retries=0,
        timeout=600,
        attempt_timeout=60,
        batch=batch,
    )
    config = generate_config_args(every)
    assert config == {
        "max_connections": 8,
        "max_retries": 0,  # 0 is a value, not "not given"
        "timeout": 600,
        "attempt_timeout": 60,
        "batch": batch,
    }
    assert config["batch"] is batch
    # eval_set is given all but max_connections, which a role would inherit over its own
    assert eval_config_args(every) == {
        "max_retries": 0,
        "timeout": 600,
        "attempt_timeout": 60,
        "batch": batch,
    }
    for value in (True, 250):
        assert generate_config_args(SweepOptions(models=MODELS, batch=value)) == {"batch": value}


def test_an_attempt_timeout_alone_abandons_a_bounded_number_of_attempts() -> None:
    """An abandoned attempt may be paid: with --attempt-timeout and neither --max-retries nor
    --timeout, a call is retried at most ABANDONED_ATTEMPTS_RETRIES times (Inspect's default
    is without limit); either of those flags is a bound of the user's own and stands."""
    alone = generate_config_args(SweepOptions(models=MODELS, attempt_timeout=5))
    assert ABANDONED_ATTEMPTS_RETRIES == 5  # docs/inputs.md says so
    assert alone == {"attempt_timeout": 5, "max_retries": 5}
    assert generate_config_args(SweepOptions(models=MODELS, attempt_timeout=5, timeout=60)) == {
        "attempt_timeout": 5,
        "timeout": 60,
    }
    assert generate_config_args(SweepOptions(models=MODELS, attempt_timeout=5, max_retries=9)) == {
        "attempt_timeout": 5,
        "max_retries": 9,
    }
    assert generate_config_args(SweepOptions(models=MODELS, timeout=60)) == {"timeout": 60}


def test_answer_models_carry_their_own_connection_limit(keys: None) -> None:
    models = ["openai/gpt-4.1-mini", "openai/gpt-4.1-nano"]  # one provider SDK to load
    plain = SweepOptions(models=models)
    assert answer_model(plain, models[0]) == models[0]
    assert answer_models(plain, models) == models
    limited = SweepOptions(models=models, max_connections=3)
    model = answer_model(limited, models[0])
    assert isinstance(model, Model) and str(model) == models[0]
    assert model.config.max_connections == 3
    both = answer_models(limited, models)
    assert [str(m) for m in both] == models
    assert all(isinstance(m, Model) and m.config.max_connections == 3 for m in both)
    assert answer_models(limited, []) == []


def test_the_judge_role_is_a_name_unless_it_needs_options_of_its_own(keys: None) -> None:
    assert judge_role(SweepOptions(models=MODELS)) == DEFAULT_JUDGE_MODEL
    assert judge_role(SweepOptions(models=MODELS, judge="openai/gpt-4o")) == "openai/gpt-4o"
    options = SweepOptions(
        models=MODELS,
        judge="openai/gpt-4o",
        max_connections=2,
        max_retries=4,
        timeout=300,
        attempt_timeout=30,
        batch=100,
    )
    judge = judge_role(options)
    assert isinstance(judge, Model) and str(judge) == "openai/gpt-4o"
    assert judge.role == GRADER_ROLE
    config = judge.config
    assert (config.max_retries, config.timeout, config.attempt_timeout, config.batch) == (
        4,
        300,
        30,
        100,
    )
    # 2 headroom x 2 connections x 1 pass x 2 answer models
    assert config.max_connections == 8


@pytest.mark.parametrize(
    ("fields", "judge", "samples"),
    [
        ({}, None, None),  # Inspect's adaptive limits
        ({"max_connections": 4}, 16, 24),  # 2 x 4 x 1 x 2; 2 x 4 + 16
        ({"max_connections": 4, "task_args": {"judge_passes": 3}}, 48, 56),
        ({"max_connections": 4, "judge_max_connections": 5}, 5, 13),
        ({"judge_max_connections": 5}, 5, None),  # no answer limit: Inspect's default
    ],
)
def test_the_judge_pool_and_the_cases_in_flight_follow_the_answer_pools(
    fields: dict[str, object], judge: int | None, samples: int | None
) -> None:
    options = SweepOptions(models=MODELS, **fields)  # type: ignore[arg-type]
    assert judge_connections(options) == judge
    assert max_samples(options) == samples


# --------------------------------------------------------------------------------------------
# where a sweep writes


@pytest.mark.parametrize(
    ("log_dir", "shard", "run_dir"),
    [
        ("logs/sweep", Shard(1, 1), "logs/sweep"),
        ("logs/sweep/", Shard(2, 3), "logs/sweep/shard-2-of-3"),
        ("s3://bucket/team/sweep", Shard(3, 3), "s3://bucket/team/sweep/shard-3-of-3"),
    ],
)
def test_a_shard_writes_a_folder_of_its_own(log_dir: str, shard: Shard, run_dir: str) -> None:
    assert SweepOptions(models=MODELS, log_dir=log_dir, shard=shard).run_log_dir == run_dir


def test_the_report_goes_beside_local_logs_and_to_reports_for_remote_ones() -> None:
    local = SweepOptions(models=MODELS, log_dir="runs/a")
    assert local.report_out_dir == Path("runs/a/report")
    assert SweepOptions(models=MODELS, log_dir="s3://b/p").report_out_dir == Path("reports")
    given = SweepOptions(models=MODELS, log_dir="s3://b/p", report_dir="out")
    assert given.report_out_dir == Path("out")


# --------------------------------------------------------------------------------------------
# the package's typed surface


def test_run_sweeps_keywords_are_the_options_fields_name_for_name_and_type_for_type() -> None:
    fields = {f.name: f.type for f in dataclasses.fields(SweepOptions)}
    # TypedDict keeps postponed annotations as forward references
    keywords = {name: ref.__forward_arg__ for name, ref in SweepFields.__annotations__.items()}
    assert keywords == fields
    assert SweepFields.__required_keys__ == frozenset()  # type: ignore[attr-defined]
