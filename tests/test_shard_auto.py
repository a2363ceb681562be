"""`bedside-bench sweep --shard auto`: the share from the array job the task runs in.

Each engine's variables are set as the engine sets them (Kubernetes Indexed Jobs:
`JOB_COMPLETION_INDEX`; SLURM job arrays: `SLURM_ARRAY_TASK_*`; AWS Batch array jobs:
`AWS_BATCH_JOB_ARRAY_INDEX` and `_SIZE`), and the share is checked against the index counted by
hand; every task of an array between them takes every share exactly once. Through the command
line, the sweep itself is replaced by one that records its options (nothing is evaluated).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bedside_bench.core import exit_codes
from bedside_bench.sweep.options import SweepOptions
from bedside_bench.sweep.shard import (
    MAX_ARRAY_TASKS,
    AutoShard,
    Shard,
    ShardEnvironmentError,
    scheduler_shard,
)
from tests.e2e_helpers import swept_options
from tests.log_factory import ANSWER_MODEL

AUTO = AutoShard()


def slurm(task: int, count: int, low: int, high: int, step: int | None = None) -> dict[str, str]:
    env = {
        "SLURM_ARRAY_TASK_ID": str(task),
        "SLURM_ARRAY_TASK_COUNT": str(count),
        "SLURM_ARRAY_TASK_MIN": str(low),
        "SLURM_ARRAY_TASK_MAX": str(high),
    }
    if step is not None:
        env["SLURM_ARRAY_TASK_STEP"] = str(step)
    return env


def test_auto_parses_with_and_without_a_size() -> None:
    assert AutoShard.parse("auto") == AutoShard(None)
    assert AutoShard.parse(" auto / 4 ") == AutoShard(4)
    assert AutoShard.parse("2/3") is None and AutoShard.parse("automatic") is None
    with pytest.raises(ValueError, match="N must be from 1 to 1,000,000"):
        AutoShard.parse("auto/0")


def test_kubernetes_indexed_job_takes_its_size_from_auto_n() -> None:
    env = {"JOB_COMPLETION_INDEX": "2"}
    assert scheduler_shard(AutoShard(4), env) == (
        Shard(3, 4),
        "shard 3/4 from a Kubernetes Indexed Job",
    )
    with pytest.raises(ShardEnvironmentError) as refused:
        scheduler_shard(AUTO, env)
    assert str(refused.value) == (
        "--shard auto: Kubernetes Indexed Job (JOB_COMPLETION_INDEX=2) does not say how many "
        "shards there are: give --shard auto/N with N the Job's spec.completions"
    )
    with pytest.raises(ShardEnvironmentError, match="index 4 is not below the size 4"):
        scheduler_shard(AutoShard(4), {"JOB_COMPLETION_INDEX": "4"})


def test_slurm_arrays_from_one_from_zero_and_with_a_step() -> None:
    # sbatch --array=1-3: ids 1, 2, 3
    assert scheduler_shard(AUTO, slurm(1, 3, 1, 3))[0] == Shard(1, 3)
    assert scheduler_shard(AUTO, slurm(3, 3, 1, 3))[0] == Shard(3, 3)
    # --array=0-9
    assert scheduler_shard(AUTO, slurm(7, 10, 0, 9))[0] == Shard(8, 10)
    # --array=0-15:4: ids 0, 4, 8, 12
    assert scheduler_shard(AUTO, slurm(8, 4, 0, 12, step=4))[0] == Shard(3, 4)
    # an explicit size that agrees is fine
    assert scheduler_shard(AutoShard(3), slurm(2, 3, 1, 3))[0] == Shard(2, 3)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        # --array=1,2,7: no rule gives a task's place in the list from its id alone
        (slurm(2, 3, 1, 7), "is not an evenly spaced range of task ids holding this task"),
        (slurm(9, 3, 1, 3), "is not an evenly spaced range of task ids holding this task"),
        (slurm(2, 2, 0, 4, step=4), "is not an evenly spaced range of task ids holding this"),
        ({"SLURM_ARRAY_TASK_ID": "2"}, "without SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_MIN, "),
        ({**slurm(1, 3, 1, 3), "SLURM_ARRAY_TASK_ID": "x1"}, "'x1' is not a whole number"),
        # digits other than ASCII's (str.isdigit takes them), and a size past any array job
        ({**slurm(1, 3, 1, 3), "SLURM_ARRAY_TASK_ID": "\uff11"}, "is not a whole number from 0"),
        (slurm(1, 10**20, 1, 10**20), "SLURM_ARRAY_TASK_COUNT='1" + "0" * 20 + "' is not"),
    ],
)
def test_slurm_values_that_make_no_share_are_refused(env: dict[str, str], message: str) -> None:
    with pytest.raises(ShardEnvironmentError, match=message) as refused:
        scheduler_shard(AUTO, env)
    assert "\n" not in str(refused.value) and str(refused.value).startswith("--shard auto: ")


def test_an_explicit_size_that_contradicts_the_engine_is_refused() -> None:
    with pytest.raises(ShardEnvironmentError) as refused:
        scheduler_shard(AutoShard(4), slurm(2, 3, 1, 3))
    assert str(refused.value) == (
        "--shard auto/4: --shard auto/4 contradicts SLURM job array (SLURM_ARRAY_TASK_ID=2, "
        "SLURM_ARRAY_TASK_COUNT=3, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=3), which "
        "has 3 tasks"
    )


def test_aws_batch_size_from_its_variable_or_auto_n() -> None:
    env = {"AWS_BATCH_JOB_ARRAY_INDEX": "0", "AWS_BATCH_JOB_ARRAY_SIZE": "5"}
    assert scheduler_shard(AUTO, env) == (Shard(1, 5), "shard 1/5 from an AWS Batch array job")
    assert scheduler_shard(AutoShard(5), env)[0] == Shard(1, 5)
    assert scheduler_shard(AutoShard(2), {"AWS_BATCH_JOB_ARRAY_INDEX": "1"})[0] == Shard(2, 2)
    with pytest.raises(ShardEnvironmentError, match="AWS_BATCH_JOB_ARRAY_SIZE is not set"):
        scheduler_shard(AUTO, {"AWS_BATCH_JOB_ARRAY_INDEX": "1"})
    with pytest.raises(ShardEnvironmentError, match="contradicts AWS Batch array job"):
        scheduler_shard(AutoShard(4), env)


def test_nothing_found_or_two_engines_at_once_is_refused() -> None:
    with pytest.raises(ShardEnvironmentError) as refused:
        scheduler_shard(AUTO, {"JOB_COMPLETION_INDEX": " "})
    assert str(refused.value) == (
        "--shard auto: no array job found (none of JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, "
        "AWS_BATCH_JOB_ARRAY_INDEX is set); give --shard K/N"
    )
    with pytest.raises(ShardEnvironmentError, match="found a Kubernetes Indexed Job"):
        scheduler_shard(AutoShard(3), {"JOB_COMPLETION_INDEX": "1", **slurm(2, 3, 1, 3)})


@given(
    low=st.integers(0, 50),
    count=st.integers(1, 12),
    step=st.integers(1, 6),
    stated=st.booleans(),
)
def test_every_task_of_a_slurm_range_takes_a_different_share(
    low: int, count: int, step: int, stated: bool
) -> None:
    """`--array=LOW-HIGH:STEP`: the tasks between them take shares 1..N, each once."""
    high = low + step * (count - 1)
    shares = [
        scheduler_shard(AUTO, slurm(task, count, low, high, step if stated or step > 1 else None))
        for task in range(low, high + 1, step)
    ]
    assert sorted(s.index for s, _ in shares) == list(range(1, count + 1))
    assert {s.count for s, _ in shares} == {count}


# --------------------------------------------------------------------------------------------
# through `bedside-bench sweep`


def sweep_with(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], shard: str
) -> tuple[int, list[SweepOptions]]:
    for name in ("JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return swept_options(
        monkeypatch, "--model", ANSWER_MODEL, "--shard", shard, "--log-dir", "s3://b/s"
    )


@pytest.mark.parametrize(
    ("env", "shard", "expected"),
    [
        ({"JOB_COMPLETION_INDEX": "0"}, "auto/3", Shard(1, 3)),
        (slurm(4, 4, 1, 4), "auto", Shard(4, 4)),
        ({"AWS_BATCH_JOB_ARRAY_INDEX": "1", "AWS_BATCH_JOB_ARRAY_SIZE": "2"}, "auto", Shard(2, 2)),
    ],
)
def test_the_sweep_runs_the_share_its_engine_gives(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    env: dict[str, str],
    shard: str,
    expected: Shard,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, seen = sweep_with(monkeypatch, env, shard)
    assert code == exit_codes.OK and [o.shard for o in seen] == [expected]
    assert capsys.readouterr().out.splitlines()[0].startswith(f"sweep: shard {expected} from ")


def test_the_sweep_says_in_one_line_when_auto_finds_no_array_job(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    code, seen = sweep_with(monkeypatch, {}, "auto")
    assert (code, seen) == (exit_codes.ERROR, [])
    assert capsys.readouterr().err.splitlines() == [
        "bedside-bench sweep: error: --shard auto: no array job found (none of "
        "JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX is set); "
        "give --shard K/N"
    ]


def test_a_typed_shard_takes_ascii_digits_only() -> None:
    with pytest.raises(ValueError, match="is not K/N"):
        Shard.parse("\uff11/3")
    assert AutoShard.parse("auto/\uff13") is None  # not auto/N: refused as K/N after it


@pytest.mark.parametrize("text", ["1/1000001", "1/99999999999999999999", "auto/1000001"])
def test_a_share_count_past_any_array_job_is_refused(text: str) -> None:
    """The same ceiling as the engines' variables (`MAX_ARRAY_TASKS`): a typed N too."""
    with pytest.raises(ValueError, match="1,000,000"):
        AutoShard.parse(text) or Shard.parse(text)
    assert Shard.parse(f"1/{MAX_ARRAY_TASKS}") == Shard(1, MAX_ARRAY_TASKS)
