"""`sweep/recovery.py`: what killed sweeps leave behind and how a later run tidies it, and which
runs are complete or were interrupted. The leftovers are built in a temporary folder: logs left
"started" (written with Inspect's own writer) and the sample buffers Inspect names after their
writer's pid, in Inspect's data folder (`$XDG_DATA_HOME`, here a temporary one)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, read_eval_log

from bedside_bench.sweep.recovery import (
    complete_runs,
    remove_crash_log,
    remove_superseded_logs,
    run_key,
    was_interrupted,
    writer_gone,
)
from tests.log_factory import ANSWER_MODEL, eval_log, sample, write

# no process has this pid: Linux pids stay below 2**22 (PID_MAX_LIMIT)
GONE_PID = 2**22 + 17
OTHER_MODEL = "anthropic/claude-sonnet-4-6"


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "data-home"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


def buffer_db_path(data_home: Path, log: str, pid: int = GONE_PID) -> Path:
    """Where Inspect keeps the sample buffer of `log` written by process `pid`: its data
    folder, a folder named by the hash of the log folder's URL, `<log file>.<pid>.db`."""
    folder = hashlib.sha256(Path(log).parent.as_uri().encode()).hexdigest()
    return data_home / "inspect_ai" / "samplebuffer" / folder / f"{Path(log).name}.{pid}.db"


def buffer_db(data_home: Path, log: str, pid: int) -> Path:
    """An (empty) sample buffer of `log` written by process `pid`."""
    path = buffer_db_path(data_home, log, pid)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    return path


def log_at(path: Path, **fields: object) -> str:
    return write(eval_log([sample("c1")], **fields), path)  # type: ignore[arg-type]


def finished(location: str) -> EvalLog:
    return read_eval_log(location, header_only=True)


# --------------------------------------------------------------------------------------------
# a killed run's writer


def test_a_writer_is_gone_only_when_its_buffer_names_a_dead_process(
    tmp_path: Path, data_home: Path
) -> None:
    dead = log_at(tmp_path / "logs" / "dead.eval", status="started")
    buffer_db(data_home, dead, GONE_PID)
    assert writer_gone(dead) is True
    alive = log_at(tmp_path / "logs" / "alive.eval", status="started")
    buffer_db(data_home, alive, os.getpid())
    assert writer_gone(alive) is False
    # no local buffer proves nothing (it may be written from another machine)
    remote = log_at(tmp_path / "logs" / "remote.eval", status="started")
    assert writer_gone(remote) is False
    # two writers, one alive: not gone
    both = log_at(tmp_path / "logs" / "both.eval", status="started")
    buffer_db(data_home, both, GONE_PID)
    buffer_db(data_home, both, os.getpid())
    assert writer_gone(both) is False


def test_a_crash_log_goes_with_its_buffer(tmp_path: Path, data_home: Path) -> None:
    log = log_at(tmp_path / "logs" / "dead.eval", status="started")
    db = buffer_db(data_home, log, GONE_PID)
    sidecars = [db.with_name(f"{db.name}-wal"), db.with_name(f"{db.name}-shm")]  # SQLite's
    for path in sidecars:
        path.write_bytes(b"")
    other_log = log_at(tmp_path / "logs" / "other.eval", status="started")
    other = buffer_db(data_home, other_log, GONE_PID)
    remove_crash_log(log)
    assert not Path(log).exists() and not db.exists()
    assert not any(path.exists() for path in sidecars)
    assert other.exists()  # another log's buffer in the same folder stays, and the folder
    remove_crash_log(other_log)
    assert not db.parent.exists()  # its emptied folder goes with the last one


def test_the_logs_eval_set_returned_supersede_the_other_logs_of_their_runs(
    tmp_path: Path, data_home: Path
) -> None:
    logs = tmp_path / "logs"
    # t1 finished: its failed and cancelled tries, the log recovered from a killed run and the
    # killed run's own log (its writer dead) are superseded
    crashed = log_at(logs / "t1-crashed.eval", task_id="t1", status="started")
    buffer_db(data_home, crashed, GONE_PID)
    recovered = log_at(logs / "t1-crashed-recovered.eval", task_id="t1", status="error")
    failed = log_at(logs / "t1-failed.eval", task_id="t1", status="error")
    cancelled = log_at(logs / "t1-cancelled.eval", task_id="t1", status="cancelled")
    done = log_at(logs / "t1-done.eval", task_id="t1")
    # t2 failed again: its earlier try goes, a killed run's log stays (its cases are not all
    # in a successful log yet)
    orphan = log_at(logs / "t2-crashed.eval", task_id="t2", status="started")
    buffer_db(data_home, orphan, GONE_PID)
    t2_first = log_at(logs / "t2-first.eval", task_id="t2", status="error")
    t2_last = log_at(logs / "t2-last.eval", task_id="t2", status="error")
    # t3: a "started" log whose writer is alive, t4: one written elsewhere (no local buffer)
    running = log_at(logs / "t3-running.eval", task_id="t3", status="started")
    buffer_db(data_home, running, os.getpid())
    t3_done = log_at(logs / "t3-done.eval", task_id="t3")
    remote = log_at(logs / "t4-remote.eval", task_id="t4", status="started")
    t4_done = log_at(logs / "t4-done.eval", task_id="t4")
    # t5 is not a run of this sweep: nothing of it is touched
    other = log_at(logs / "t5-other.eval", task_id="t5", status="error")
    # the superseded logs look newer than the ones that ended their runs: times decide nothing
    for path in (crashed, recovered, failed, cancelled, orphan, t2_first, running, remote):
        os.utime(path, (2**31, 2**31))

    returned = [finished(p) for p in (done, t2_last, t3_done, t4_done)]
    # eval_set returns a local log's location as a path, a listing names it by `file:` URL
    assert not returned[0].location.startswith("file:")
    removed = remove_superseded_logs(str(logs), returned)
    assert sorted(removed) == sorted(
        Path(p).as_uri() for p in (crashed, recovered, failed, cancelled, t2_first)
    )
    assert not Path(crashed).exists() and not buffer_db_path(data_home, crashed).exists()
    left = sorted(p.name for p in logs.iterdir())
    assert left == sorted(
        Path(p).name for p in (done, orphan, t2_last, running, t3_done, remote, t4_done, other)
    )
    assert remove_superseded_logs(str(logs), returned) == []  # nothing left to tidy


# --------------------------------------------------------------------------------------------
# complete and interrupted runs


def test_a_run_is_its_model_and_unprefixed_benchmark() -> None:
    assert run_key(eval_log()) == (ANSWER_MODEL, "drug_safety")
    plain = eval_log()
    plain.eval.task = "safety_therapeutic"
    assert run_key(plain) == (ANSWER_MODEL, "safety_therapeutic")


def test_a_run_is_complete_with_a_successful_log_of_every_case() -> None:
    whole = eval_log([sample("c1"), sample("c2")])
    partial = eval_log([sample("c1"), sample("c2", error="429")], model=OTHER_MODEL)
    partial.status = "success"  # a success that still lacks a case (counted per run)
    errored = eval_log([sample("c1")], benchmark="safety_therapeutic", status="error")
    no_results = eval_log([sample("c1")], benchmark="triage")
    no_results.results = None
    assert complete_runs([whole, partial, errored, no_results]) == {(ANSWER_MODEL, "drug_safety")}
    # a second, older log of the same run changes nothing
    assert complete_runs([whole, eval_log([sample("c1")], status="error")]) == {
        (ANSWER_MODEL, "drug_safety")
    }


def test_ctrl_c_is_seen_in_the_result_or_on_disk_for_this_sweeps_runs(tmp_path: Path) -> None:
    a = (ANSWER_MODEL, "drug_safety")
    b = (OTHER_MODEL, "drug_safety")
    ok_a = eval_log()
    runs = {a, b}
    assert was_interrupted(str(tmp_path), [ok_a, eval_log(model=OTHER_MODEL)], runs) is False
    assert was_interrupted(str(tmp_path), [eval_log(status="cancelled")], {a}) is True

    # eval_set returned only the finished run: the log folder tells why the other is missing
    logs = tmp_path / "logs"
    log_at(logs / "b-error.eval", model=OTHER_MODEL, status="error")
    assert was_interrupted(str(logs), [ok_a], runs) is False
    log_at(logs / "other-run-cancelled.eval", model="openai/gpt-4o", status="cancelled")
    assert was_interrupted(str(logs), [ok_a], runs) is False  # not a run of this sweep
    log_at(logs / "b-cancelled.eval", model=OTHER_MODEL, status="cancelled")
    assert was_interrupted(str(logs), [ok_a], runs) is True


# --------------------------------------------------------------------------------------------
# what failed cases say


def test_a_case_its_judge_failed_costs_the_calls_of_every_try_the_log_keeps() -> None:
    from inspect_ai.log import EvalError

    from bedside_bench.judging.failures import (
        JudgeFailure,
        JudgeFailureCount,
        judge_failed_message,
        not_asked_again_message,
    )
    from bedside_bench.sweep.run import case_judge_failure, judge_failures

    judge = "openai/gpt-4.1"
    case = sample("c1", judge=None, error=judge_failed_message(judge, 3, "attempt 1: not JSON"))
    case.error_retries = [
        EvalError(message=judge_failed_message(judge, 3, "x"), traceback="", traceback_ansi=""),
        EvalError(message=not_asked_again_message(judge, 3), traceback="", traceback_ansi=""),
        EvalError(message="RateLimitError: 429", traceback="", traceback_ansi=""),
    ]
    assert case_judge_failure(case) == (JudgeFailure(judge, 3), 6)  # 3 + 3 + 0 + 0
    assert case_judge_failure(sample("c2", judge=None, error="RateLimitError: 429")) is None
    assert case_judge_failure(sample("c3")) is None

    failed = eval_log([case, sample("c2")], status="error")
    complete = eval_log([sample("c9", judge=None, error=judge_failed_message(judge, 3, "x"))])
    complete.results.completed_samples = 1  # type: ignore[union-attr]  # counted complete
    assert judge_failures([failed, complete]) == [
        JudgeFailureCount(judge=judge, cases=1, asks=3, calls=6)
    ]


def test_the_errors_shown_are_the_three_most_frequent_and_a_count_of_the_rest() -> None:
    from collections import Counter

    from bedside_bench.sweep.failures import describe

    errors = Counter({"a": 1, "b": 5, "c": 3, "d": 2, "e": 1})
    assert describe(errors) == [
        "5 case(s): b",
        "3 case(s): c",
        "2 case(s): d",
        "and 2 other error(s): see `inspect view`",
    ]
    assert describe(Counter()) == []


def test_a_failed_log_without_failed_cases_counts_under_its_own_error(tmp_path: Path) -> None:
    from inspect_ai.log import EvalError

    from bedside_bench.sweep.failures import MAX_CHARS, failed_case_errors

    crashed = eval_log([sample("c1")], status="error")
    crashed.error = EvalError(message="  Boom:\n  detail", traceback="", traceback_ansi="")
    crashed.location = write(crashed, tmp_path / "crashed.eval")
    long = eval_log([sample("c1", judge=None, error="E" * 500)], status="error")
    long.location = write(long, tmp_path / "long.eval")
    fine = eval_log([sample("c1")])
    fine.location = str(tmp_path / "never-read.eval")  # a success is not read at all
    # a model's or a provider's text: shown escaped, moving no cursor, reordering nothing
    hostile = eval_log([sample("c1", judge=None, error="\x1b[2J\u202eevig TON")], status="error")
    hostile.location = write(hostile, tmp_path / "hostile.eval")
    assert failed_case_errors([crashed, long, fine, hostile]) == {
        "Boom:": 1,
        "E" * (MAX_CHARS - 3) + "...": 1,
        "\\x1b[2J\\u202eevig TON": 1,
    }
