"""A resumed run never mixes releases: a sample reused from an earlier run whose case file
changed since is not kept as an answer to the new case.

A retry (`inspect eval-retry`, an eval set's task retry, the same sweep again after a kill)
reuses every sample the earlier log holds scored, by case id and epoch only: Inspect does not
look at what the case said. So if a case file was edited in between (same id, a new prompt or
rubric), the resumed log would carry the new release's digest and the answer to the old
question. Each sample records the digest of the case it asked (`SampleMetadata.case_sha256`)
and the log's header the digest of every case of the task as built now
(`TaskMetadata.case_sha256`). At the task's end (Inspect's `on_task_end` hook, after the final
log write) a sample whose digest is not its case's is invalidated in the log (Inspect's sample
invalidation, naming why) and the log is marked an error naming the cases: no success log holds
an old answer, and the next retry (the eval set's own task retry, the sweep run again, `inspect
eval-retry`) asks those cases afresh. The report refuses such a sample too (`logs/read.py`).

Registered with the task (`bedside_task`), never on import: Inspect lists and calls every hook
registered when it loads the package's entry point, for every eval on the machine; it acts only
on a log whose header has the case digests.
"""

from __future__ import annotations

import logging
from typing import Any

from inspect_ai.hooks import Hooks, TaskEnd, hooks
from inspect_ai.log import (
    EvalError,
    EvalLog,
    EvalSample,
    EvalSampleSummary,
    ProvenanceData,
    invalidate_samples,
    read_eval_log_async,
    read_eval_log_sample_summaries_async,
    write_eval_log_async,
)

from bedside_bench.core.console import warn_visibly
from bedside_bench.core.safe_text import printable

logger = logging.getLogger(__name__)

CASE_DIGESTS_KEY = "case_sha256"  # in the task's and in each sample's metadata
HOOK_NAME = "bedside_bench_case_check"
SHOWN_CASES = 10  # cases named in the log's error; the log's invalidations name every one


def differs(digests: dict[str, str], sample_id: object, metadata: dict[str, Any] | None) -> bool:
    """Whether the sample's recorded case digest is not its case's in the log's release (no
    digest: not proven the same)."""
    return (metadata or {}).get(CASE_DIGESTS_KEY) != digests.get(str(sample_id))


def suspect(digests: dict[str, str], summaries: list[EvalSampleSummary]) -> bool:
    """Whether any answered sample's summary does not show its case's digest: then the full
    samples decide (a summary may lack the metadata: one recovered from a killed run's sample
    buffer has none). Errored samples hold no answer and are redone anyway."""
    return any(s.error is None and differs(digests, s.id, s.metadata) for s in summaries)


def stale_samples(digests: dict[str, str], log: EvalLog) -> list[EvalSample]:
    """Answered samples holding an answer to a case other than the one the log's release has
    under its id (or with no digest to tell)."""
    return [
        s
        for s in log.samples or []
        if s.error is None and s.invalidation is None and differs(digests, s.id, s.metadata)
    ]


def stale_message(location: str, cases: list[str]) -> str:
    shown = ", ".join(cases[:SHOWN_CASES]) + (" ..." if len(cases) > SHOWN_CASES else "")
    return printable(
        f"bedside-bench: {location}: {len(cases)} reused case(s) were answered when their case "
        f"file said something else ({shown}); they are invalidated, and a retry of this log "
        "(the sweep again, inspect eval-retry) asks them afresh"
    )


class CaseCheck(Hooks):
    """Invalidates reused samples of another case at the task's end (see the module)."""

    async def on_task_end(self, data: TaskEnd) -> None:
        log = data.log
        digests = (log.eval.metadata or {}).get(CASE_DIGESTS_KEY)
        if not isinstance(digests, dict) or not log.location:
            return
        if not suspect(digests, await read_eval_log_sample_summaries_async(log.location)):
            return
        full = await read_eval_log_async(log.location)
        stale = stale_samples(digests, full)
        if not stale:
            return
        cases = sorted({str(s.id) for s in stale})
        message = stale_message(log.location, cases)
        full = invalidate_samples(
            full,
            [s.uuid for s in stale if s.uuid is not None],
            ProvenanceData(author="bedside-bench", reason="case file changed since answered"),
        )
        error = EvalError(message=message, traceback=message, traceback_ansi=message)
        full.status = "error"
        full.error = error
        await write_eval_log_async(full, log.location)
        # the log Inspect hands back (an eval set decides its task retries by it) says so too
        log.status = "error"
        log.error = error
        log.invalidated = True
        warn_visibly(logger, message, logging.ERROR)


_registered = False


def check_cases_at_task_end() -> None:
    """Register the hook once a process builds a benchmark task."""
    global _registered
    if not _registered:
        hooks(
            name=HOOK_NAME,
            description="Invalidates reused answers whose case file changed since they were "
            "given, so a retry asks them afresh.",
        )(CaseCheck)
        _registered = True
