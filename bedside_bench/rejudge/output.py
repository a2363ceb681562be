"""The new log of a re-judge: its header, its judged and carried samples, and its atomic write."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import uuid
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import shortuuid
from inspect_ai.log import EvalError, recompute_metrics, write_eval_log
from inspect_ai.model import GenerateConfig, ModelConfig, ModelUsage

from bedside_bench.core.contracts import GRADER_ROLE, SCORER_NAME, RejudgeSource
from bedside_bench.core.owned_output import pid_alive
from bedside_bench.core.safe_text import printable
from bedside_bench.logs.read import display_location
from bedside_bench.rejudge.plan import METADATA_KEY

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample
    from inspect_ai.model import ModelUsage

    from bedside_bench.core.options import ScorerOptions


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _sum_usage(parts: Sequence[dict[str, ModelUsage]]) -> dict[str, ModelUsage]:
    total: dict[str, ModelUsage] = {}
    for part in parts:
        for model, u in part.items():
            total[model] = total.get(model, ModelUsage()) + u
    return total


# a judge failure's message quotes the judge's replies: one printable line, bounded
MAX_FAILURE_CHARS = 8_000


def failure_message(failure: BaseException) -> str:
    """A failed judging as one printable line (it may quote what the judge said)."""
    return printable(f"{type(failure).__name__}: {failure}", MAX_FAILURE_CHARS)


def finish_sample(
    sample: EvalSample, failure: BaseException | None, usage: dict[str, ModelUsage]
) -> EvalSample:
    """The judged sample as the new log keeps it: its error (if the judge failed) and the
    tokens this judging spent (the answer's tokens belong to the source log)."""

    total = sum(usage.values(), start=_empty_usage())
    sample.model_usage = dict(usage)
    sample.role_usage = {GRADER_ROLE: total} if usage else {}
    if failure is None:
        sample.error = None
    else:
        message = f"judge failed while re-judging: {failure_message(failure)}"
        sample.error = EvalError(message=message, traceback="", traceback_ansi="")
        sample.scores = {k: v for k, v in (sample.scores or {}).items() if k != SCORER_NAME}
    return sample


def _empty_usage() -> ModelUsage:
    return ModelUsage()


def carried(sample: EvalSample) -> EvalSample:
    """A source sample copied as is (no answer to judge): its tokens stay with the source."""
    return sample.model_copy(update={"model_usage": {}, "role_usage": {}})


# the namespace of the uuids a re-judge gives its samples (uuid5 of the log, case and epoch)
REJUDGED_SAMPLE_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "bedside-bench:rejudged-sample")


def rejudged_uuid(eval_id: str, sample: EvalSample) -> str:
    """The uuid of a sample in the re-judge log `eval_id`: its own, not the source's (Inspect's
    dataframes key samples by uuid, so a copy keeping the source's would drop one of the two
    logs' rows), and derived, not drawn, so a resumed or rewritten log gives it again. In
    Inspect's form (a shortuuid of 22 characters)."""
    name = json.dumps([eval_id, sample.id, sample.epoch])
    return str(shortuuid.encode(uuid.uuid5(REJUDGED_SAMPLE_NAMESPACE, name)))


def new_header(
    source: EvalLog,
    source_location: str,
    judge: str,
    options: ScorerOptions,
    failed_only: bool,
    started_at: str,
) -> EvalLog:
    """The source header with a new identity, the new judge and the provenance of answers."""

    header = source.model_copy(deep=True, update={"samples": None})
    header.eval.eval_id = shortuuid.uuid()
    header.eval.run_id = shortuuid.uuid()
    # a new task id: the report takes usage from the newest log of each task id
    header.eval.task_id = shortuuid.uuid()
    header.eval.created = started_at
    roles = dict(header.eval.model_roles or {})
    roles[GRADER_ROLE] = ModelConfig(model=judge, config=GenerateConfig())
    header.eval.model_roles = roles
    header.eval.task_args = {
        **(header.eval.task_args or {}),
        "judge_model": judge,
        "judge_passes": options.judge_passes,
    }
    provenance = RejudgeSource(
        source_log=display_location(source_location),
        source_eval_id=source.eval.eval_id,
        source_task_id=source.eval.task_id,
        judge=judge,
        failed_only=failed_only,
    )
    header.eval.metadata = {
        **(header.eval.metadata or {}),
        "judge_model": judge,  # the judge of this log, not the source's
        "judge_passes": options.judge_passes,
        METADATA_KEY: provenance,
    }
    header.stats.started_at = started_at
    return header


def assemble(header: EvalLog, samples: list[EvalSample], failed: int) -> EvalLog:
    """Header plus samples, with usage, metrics and status recomputed from the samples (the
    header names the scorers whose metrics are recomputed); each sample gets this log's uuid
    of it (`rejudged_uuid`)."""

    eval_id = header.eval.eval_id
    samples = [s.model_copy(update={"uuid": rejudged_uuid(eval_id, s)}) for s in samples]
    log = header.model_copy(update={"samples": samples})
    usage = _sum_usage([s.model_usage for s in samples])
    log.stats.model_usage = usage
    judge_total = sum(usage.values(), start=_empty_usage())
    log.stats.role_usage = {GRADER_ROLE: judge_total} if usage else {}
    log.stats.completed_at = utc_now()
    if log.results is not None:
        log.results.total_samples = len(samples)
        log.results.completed_samples = sum(1 for s in samples if s.error is None)
    if any(s.scores for s in samples):
        recompute_metrics(log)
    log.status = "error" if failed else "success"
    log.error = (
        EvalError(
            message=f"{failed} case(s) could not be judged; rerun the command to try them again",
            traceback="",
            traceback_ansi="",
        )
        if failed
        else None
    )
    return log


TEMP_MARK = ".rejudge-"  # .<log name>.rejudge-<pid>-<token>.tmp: never listed as a log


def temp_location(location: str) -> str:
    """Where a local log is written before it replaces `location`: beside it (same disk, so
    the rename is atomic), named after the writer's pid (so a later run can tell a dead
    writer's leftover), and not ending in `.eval` (so no reader ever takes it for a log)."""
    folder, name = os.path.split(os.path.abspath(location))
    return os.path.join(folder, f".{name}{TEMP_MARK}{os.getpid()}-{secrets.token_hex(4)}.tmp")


def remove_dead_temps(folder: str) -> list[str]:
    """Temporary logs left in `folder` by a re-judge that is gone (killed with SIGKILL)."""

    removed: list[str] = []
    if "://" in folder or not os.path.isdir(folder):
        return removed
    for name in os.listdir(folder):
        if not (name.startswith(".") and TEMP_MARK in name and name.endswith(".tmp")):
            continue
        pid = name.rsplit(TEMP_MARK, 1)[1].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(folder, name))
            removed.append(name)
    return removed


def write_log(log: EvalLog, location: str) -> None:
    """Local files are replaced atomically, so a kill never leaves half a log behind. Inspect
    creates the file itself, so it gets the mode Inspect's own logs get (the umask's)."""

    if "://" in location:
        write_eval_log(log, location)
        return
    os.makedirs(os.path.dirname(os.path.abspath(location)), exist_ok=True)
    temp = temp_location(location)
    try:
        write_eval_log(log, temp, format="eval")
        os.replace(temp, location)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
