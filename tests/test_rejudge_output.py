"""`rejudge/output.py`: the new log of a re-judge (its header, its judged and carried samples,
its totals and status) and its atomic write. Logs are built in memory with Inspect's classes
(tests/log_factory.py) and written to a temporary folder; nothing is judged."""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

import pytest
import shortuuid
from inspect_ai.analysis import samples_df
from inspect_ai.log import EvalLog, read_eval_log

from bedside_bench.analysis import SAMPLE_COLUMNS
from bedside_bench.core.contracts import GRADER_ROLE, SCORER_NAME
from bedside_bench.rejudge.output import (
    MAX_FAILURE_CHARS,
    assemble,
    carried,
    failure_message,
    finish_sample,
    new_header,
    rejudged_uuid,
    remove_dead_temps,
    temp_location,
    write_log,
)
from bedside_bench.rejudge.run import scorer_options
from tests.log_factory import (
    ANSWER_MODEL,
    JUDGE_A,
    JUDGE_B,
    STARTED,
    eval_log,
    sample,
    usage,
    write,
)

# no process has this pid: Linux pids stay below 2**22 (PID_MAX_LIMIT)
GONE_PID = 2**22 + 17
NOW = "2026-04-01T12:00:00+00:00"


def source_log() -> EvalLog:
    return eval_log(
        [sample("c1", model_usage={ANSWER_MODEL: usage(100, 50)}), sample("c2")],
        task_id="source-task",
        eval_id="source-eval",
    )


# --------------------------------------------------------------------------------------------
# the header


def test_the_new_header_has_a_new_identity_the_new_judge_and_the_answers_provenance() -> None:
    source = source_log()
    before = source.model_dump()
    options = scorer_options(source, JUDGE_B, 2)
    header = new_header(source, "/logs/run.eval", JUDGE_B, options, True, NOW)

    assert header.samples is None
    ids = (header.eval.eval_id, header.eval.run_id, header.eval.task_id)
    assert len(set(ids)) == 3
    assert not {"source-eval", "source-task", "run-of-source-eval"} & set(ids)
    assert all(re.fullmatch(r"[0-9A-Za-z]{22}", i) for i in ids)  # shortuuid
    assert (header.eval.created, header.stats.started_at) == (NOW, NOW)
    roles = header.eval.model_roles or {}
    assert roles[GRADER_ROLE].model == JUDGE_B
    assert header.eval.model == ANSWER_MODEL  # the answers' model is still the one scored
    assert header.eval.task_args == {"smoke": False, "judge_model": JUDGE_B, "judge_passes": 2}
    metadata = header.eval.metadata or {}
    assert metadata["judge_passes"] == 2
    assert metadata["rejudge"] == {
        "source_log": "/logs/run.eval",
        "source_eval_id": "source-eval",
        "source_task_id": "source-task",
        "judge": JUDGE_B,
        "failed_only": True,
    }
    assert metadata["benchmark"] == "drug_safety"  # the source's task metadata is kept
    assert source.model_dump() == before  # the source is not touched


def test_a_file_url_source_is_recorded_as_its_path() -> None:
    source = source_log()
    options = scorer_options(source, JUDGE_B, None)
    header = new_header(source, "file:///data/logs/a%20b.eval", JUDGE_B, options, False, NOW)
    assert (header.eval.metadata or {})["rejudge"]["source_log"] == "/data/logs/a b.eval"
    assert (header.eval.metadata or {})["judge_passes"] == 1  # as the source


# --------------------------------------------------------------------------------------------
# the samples


def test_a_judged_sample_keeps_the_judging_tokens_under_the_grader_role() -> None:
    spent = {JUDGE_B: usage(300, 40), "openai/gpt-4o": usage(10, 5)}
    judged = finish_sample(sample("c1", judge=JUDGE_B, error="an old error"), None, spent)
    assert judged.error is None
    assert judged.model_usage == spent
    assert judged.role_usage == {GRADER_ROLE: usage(310, 45)}
    assert judged.scores is not None and judged.scores[SCORER_NAME].value == 0.5


def test_a_failed_judging_is_the_case_error_and_drops_only_the_rubric_score() -> None:
    case = sample("c1", judge=JUDGE_A)
    assert case.scores is not None
    case.scores["other_scorer"] = case.scores[SCORER_NAME].model_copy(update={"value": 1.0})
    failed = finish_sample(case, ValueError("invalid reply\nline two"), {})
    assert failed.error is not None
    assert failed.error.message == (
        "judge failed while re-judging: ValueError: invalid reply\\nline two"
    )
    assert failed.scores is not None and list(failed.scores) == ["other_scorer"]
    assert (failed.model_usage, failed.role_usage) == ({}, {})


def test_a_failure_message_is_one_printable_bounded_line() -> None:
    assert failure_message(RuntimeError("a\x1b[31mb\tc")) == "RuntimeError: a\\x1b[31mb\\tc"
    long = failure_message(ValueError("x" * 20_000))
    assert long == "ValueError: " + "x" * (MAX_FAILURE_CHARS - 12) + (
        "... (20012 characters in all)"
    )


def test_a_carried_sample_leaves_its_tokens_with_the_source() -> None:
    original = sample("c1", model_usage={ANSWER_MODEL: usage(100, 50)})
    original.role_usage = {"answer": usage(100, 50)}
    copy = carried(original)
    assert (copy.model_usage, copy.role_usage) == ({}, {})
    assert copy.output == original.output and copy.scores == original.scores
    assert original.model_usage == {ANSWER_MODEL: usage(100, 50)}  # the source's untouched


# --------------------------------------------------------------------------------------------
# the log


def judged_header() -> EvalLog:
    source = source_log()
    return new_header(
        source, "/logs/run.eval", JUDGE_B, scorer_options(source, JUDGE_B, None), False, STARTED
    )


def test_the_log_totals_and_metrics_come_from_its_samples() -> None:
    header = judged_header()
    samples = [
        finish_sample(sample("c1", judge=JUDGE_B, value=0.5), None, {JUDGE_B: usage(200, 20)}),
        finish_sample(sample("c2", judge=JUDGE_B, value=1.0), None, {JUDGE_B: usage(100, 10)}),
        finish_sample(sample("c3", judge=JUDGE_B), ValueError("bad"), {JUDGE_B: usage(7, 3)}),
        carried(sample("c4", answer=None, judge=None, error="no answer")),
    ]
    log = assemble(header, samples, failed=2)
    assert log.samples == [
        s.model_copy(update={"uuid": rejudged_uuid(header.eval.eval_id, s)}) for s in samples
    ]
    assert log.results is not None
    assert (log.results.total_samples, log.results.completed_samples) == (4, 2)
    (rubric,) = log.results.scores
    assert rubric.name == SCORER_NAME
    assert rubric.metrics["mean"].value == 0.75  # (0.5 + 1.0) / 2: failed cases have no score
    assert log.stats.model_usage == {JUDGE_B: usage(307, 33)}
    assert log.stats.role_usage == {GRADER_ROLE: usage(307, 33)}
    assert log.stats.completed_at and log.stats.completed_at > STARTED
    assert log.status == "error"
    assert log.error is not None and log.error.message == (
        "2 case(s) could not be judged; rerun the command to try them again"
    )


def test_a_log_with_every_case_judged_is_a_success() -> None:
    samples = [finish_sample(sample("c1", judge=JUDGE_B), None, {})]
    log = assemble(judged_header(), samples, failed=0)
    assert (log.status, log.error) == ("success", None)
    assert (log.stats.model_usage, log.stats.role_usage) == ({}, {})


# --------------------------------------------------------------------------------------------
# the samples' identity


def uuid_of(eval_id: str, case: str, epoch: int) -> str:
    """A re-judged sample's uuid by hand: uuid5 of the JSON [eval id, case, epoch] in the
    suite's namespace, in Inspect's shortuuid form."""
    namespace = uuid.uuid5(uuid.NAMESPACE_URL, "bedside-bench:rejudged-sample")
    return str(shortuuid.encode(uuid.uuid5(namespace, f'["{eval_id}", "{case}", {epoch}]')))


def with_uuids(log: EvalLog) -> EvalLog:
    """`log` with the uuids an Inspect eval gives its samples (random shortuuids)."""
    for case in log.samples or []:
        case.uuid = shortuuid.uuid()
    return log


def two_epochs_source() -> EvalLog:
    cases = [sample(c, epoch=e, judge=JUDGE_A) for c in ("c1", "c2") for e in (1, 2)]
    return with_uuids(eval_log(cases, task_id="source-task", eval_id="source-eval"))


def rejudged(source: EvalLog, header: EvalLog) -> EvalLog:
    samples = [finish_sample(carried(s), None, {}) for s in source.samples or []]
    return assemble(header, samples, failed=0)


def test_a_rejudged_sample_has_its_own_uuid_derived_from_the_log_case_and_epoch() -> None:
    source = two_epochs_source()
    header = judged_header()
    log = rejudged(source, header)
    eval_id = header.eval.eval_id
    got = [(str(s.id), s.epoch, s.uuid) for s in log.samples or []]
    assert got == [(c, e, uuid_of(eval_id, c, e)) for c in ("c1", "c2") for e in (1, 2)]
    assert len({u for _, _, u in got}) == 4
    assert not {u for _, _, u in got} & {s.uuid for s in source.samples or []}
    assert all(re.fullmatch(r"[0-9A-Za-z]{22}", str(u)) for _, _, u in got)
    # the same log assembled again (a checkpoint, a resume keeping the log's eval id) gives
    # the same uuids; another re-judge log gives others
    assert [s.uuid for s in rejudged(source, header).samples or []] == [u for _, _, u in got]
    other = rejudged(source, judged_header())
    assert not {s.uuid for s in other.samples or []} & {u for _, _, u in got}


def test_a_resumed_log_from_before_keeps_no_source_uuid() -> None:
    """A log written before samples got their own uuids holds the source's: assembling it
    again (the next checkpoint of a resume) gives them this log's."""
    source = two_epochs_source()
    header = judged_header()
    old = [carried(s) for s in source.samples or []]  # the source's uuids, as written before
    log = assemble(header, old, failed=0)
    assert [s.uuid for s in log.samples or []] == [
        uuid_of(header.eval.eval_id, str(s.id), s.epoch) for s in old
    ]


def test_the_frames_over_a_source_and_its_rejudged_log_keep_both_logs_rows(
    tmp_path: Path,
) -> None:
    source = two_epochs_source()
    header = judged_header()
    log = rejudged(source, header)
    paths = [write(source, tmp_path / "source.eval"), write(log, tmp_path / "rejudged.eval")]
    read_back = {(s.id, s.epoch): s.uuid for s in read_eval_log(paths[1]).samples or []}
    assert read_back == {(s.id, s.epoch): s.uuid for s in log.samples or []}

    frame = samples_df(paths, columns=SAMPLE_COLUMNS, quiet=True)
    assert len(frame) == 8  # 2 cases x 2 epochs, in each of the two logs
    columns = ("eval_id", "case_id", "epoch", "sample_id")
    rows = sorted(zip(*(frame[c] for c in columns), strict=True))
    expected = sorted(
        [("source-eval", str(s.id), s.epoch, s.uuid) for s in source.samples or []]
        + [(header.eval.eval_id, str(s.id), s.epoch, s.uuid) for s in log.samples or []]
    )
    assert rows == expected


# --------------------------------------------------------------------------------------------
# the write


def test_a_temporary_log_lies_beside_its_target_named_after_its_writer(tmp_path: Path) -> None:
    target = tmp_path / "out" / "run-rejudge-x.eval"
    first, second = temp_location(str(target)), temp_location(str(target))
    assert Path(first).parent == target.parent
    pattern = rf"\.run-rejudge-x\.eval\.rejudge-{os.getpid()}-[0-9a-f]{{8}}\.tmp"
    assert re.fullmatch(pattern, Path(first).name)
    assert first != second  # two writes never share a temporary file


def test_a_log_is_written_whole_with_the_mode_inspect_gives(tmp_path: Path) -> None:
    samples = [finish_sample(sample("c1", judge=JUDGE_B), None, {JUDGE_B: usage(5, 1)})]
    log = assemble(judged_header(), samples, failed=0)
    target = tmp_path / "new" / "folder" / "run-rejudge.eval"
    write_log(log, str(target))
    assert os.listdir(target.parent) == [target.name]  # no temporary file left
    back = read_eval_log(str(target))
    assert back.samples is not None and [s.id for s in back.samples] == ["c1"]
    assert back.eval.task_id == log.eval.task_id
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_write_that_fails_leaves_the_previous_log_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "run-rejudge.eval"
    write_log(assemble(judged_header(), [sample("old", judge=JUDGE_B)], 0), str(target))
    before = target.read_bytes()

    def half_written(log: EvalLog, location: str, format: str = "auto") -> None:
        Path(location).write_bytes(b"half a log")
        raise OSError("disk full")

    monkeypatch.setattr("bedside_bench.rejudge.output.write_eval_log", half_written)
    with pytest.raises(OSError, match="disk full"):
        write_log(assemble(judged_header(), [sample("new", judge=JUDGE_B)], 0), str(target))
    assert target.read_bytes() == before
    assert os.listdir(tmp_path) == [target.name]


def test_only_temporaries_of_dead_writers_are_removed(tmp_path: Path) -> None:
    dead = f".run.eval.rejudge-{GONE_PID}-0a1b2c3d.tmp"
    mine = f".run.eval.rejudge-{os.getpid()}-0a1b2c3d.tmp"
    others = ["run.eval", f"run.eval.rejudge-{GONE_PID}-0a1b2c3d.tmp", f".x.rejudge-{GONE_PID}"]
    for name in [dead, mine, *others]:
        (tmp_path / name).write_bytes(b"")
    assert remove_dead_temps(str(tmp_path)) == [dead]
    assert sorted(os.listdir(tmp_path)) == sorted([mine, *others])
    assert remove_dead_temps(str(tmp_path / "missing")) == []
    assert remove_dead_temps("s3://bucket/out") == []
