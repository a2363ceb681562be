"""Scoring stored samples through Inspect's `score_async`, one log after another, checkpointed."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from copy import deepcopy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

import anyio
from fsspec.core import url_to_fs
from inspect_ai import score_async
from inspect_ai.log import read_eval_log_async, transcript
from inspect_ai.model import get_model
from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState
from inspect_ai.util import registry_info

from bedside_bench.calls.credentials import (
    CredentialError,
    apply_aliases,
    check_credentials,
    redact,
)
from bedside_bench.calls.kept_calls import kept_run, release
from bedside_bench.core.contracts import GRADER_ROLE, SCORER_NAME
from bedside_bench.core.model_names import judge_name_problem
from bedside_bench.core.options import SCORER_DEFAULTS, ScorerOptions, checked
from bedside_bench.logs.read import display_location, skip_reason
from bedside_bench.rejudge.output import (
    assemble,
    carried,
    failure_message,
    finish_sample,
    new_header,
    remove_dead_temps,
    utc_now,
    write_log,
)
from bedside_bench.rejudge.plan import (
    PROG,
    LogOutcome,
    RejudgeError,
    RejudgeOptions,
    SampleKey,
    judge_failed,
    judged_ok,
    output_name,
    sample_key,
    source_logs,
    to_judge,
)
from bedside_bench.scoring.scorer import rubric_judge, usage_by_model

if TYPE_CHECKING:
    from inspect_ai.event import Event
    from inspect_ai.log import EvalLog, EvalSample
    from inspect_ai.model import Model, ModelUsage
    from inspect_ai.scorer import Score, Scorer
    from inspect_ai.util import DisplayType
    from typing_extensions import Self

    from bedside_bench.core.options import ScorerOptions


@dataclass
class Judging:
    """What one `score_async` call has done so far, case by case, as each case ends: kept
    outside Inspect so that the cases judged before an interruption are not paid for again."""

    failures: dict[SampleKey, BaseException] = field(default_factory=dict)
    usage: dict[SampleKey, dict[str, ModelUsage]] = field(default_factory=dict)
    scores: dict[SampleKey, Score] = field(default_factory=dict)
    events: dict[SampleKey, list[Event]] = field(default_factory=dict)
    work: EvalLog | None = None  # the samples being scored (Inspect scores them in place)

    def ended(self) -> list[EvalSample]:
        """The samples whose judging ended (scored or failed), each with its score."""
        ended = []
        for sample in (self.work.samples or []) if self.work is not None else []:
            key = sample_key(sample)
            if key in self.failures:
                ended.append(sample)
            elif key in self.scores:
                score = self.scores[key]
                if (sample.scores or {}).get(SCORER_NAME) is not score:
                    # cut off between the judge's answer and Inspect's recording of it
                    sample.scores = {SCORER_NAME: score}
                    sample.events = [*sample.events, *self.events.get(key, [])]
                ended.append(sample)
        return ended


def capturing(inner: Scorer, judging: Judging) -> Scorer:
    """`inner`, but a judge that fails ends only its own case (Inspect's `score_async` would
    stop every case on the first exception); every call's tokens are kept, failed or not, and
    every score as soon as it is there."""

    async def score(state: TaskState, target: Target) -> Score | None:
        key = (str(state.sample_id), state.epoch)
        start = transcript().history.event_count
        try:
            result = await inner(state, target)
        except Exception as ex:
            judging.failures[key] = ex
            return None
        finally:
            events = list(transcript().history.events_from(start))
            judging.usage[key] = usage_by_model(events)
        if result is not None:
            judging.scores[key] = result
            judging.events[key] = events
        return result

    # the same registry identity, so the score is keyed and recorded as rubric_judge: Inspect
    # keeps a scorer's registry name and options as attributes of the scorer function, which
    # `update_wrapper` copies with the rest of its `__dict__` (registry_info raises if not)
    functools.update_wrapper(score, inner)
    assert registry_info(score) == registry_info(inner)
    return score


class ScorerEntry(Protocol):
    """A log's scorer entry (`EvalSpec.scorers`), whose type Inspect exports no name for."""

    name: str

    def model_copy(
        self, *, update: Mapping[str, Any] | None = None, deep: bool = False
    ) -> Self: ...


Entry = TypeVar("Entry", bound=ScorerEntry)


def planned_scorers(entries: Sequence[Entry], options: ScorerOptions) -> list[Entry] | None:
    """The scorer entry the new log records before Inspect has given its own (a run stopped
    in its first cases): the source's rubric_judge entry (of `source.eval.scorers`) with the
    new options."""
    for entry in entries:
        if entry.name.rsplit("/", 1)[-1] == SCORER_NAME:
            return [entry.model_copy(update={"options": options.model_dump()})]
    return None


def scorer_options(source: EvalLog, judge: str, passes: int | None) -> ScorerOptions:
    """The source run's scorer options (as its scorer entry recorded them, else its task
    metadata, else the default), with the new judge (and passes, when given)."""

    recorded: dict[str, object] = {}
    for entry in source.eval.scorers or []:
        if entry.name.rsplit("/", 1)[-1] == SCORER_NAME:
            recorded = {k: v for k, v in (entry.options or {}).items() if v is not None}
            break
    metadata = {k: v for k, v in (source.eval.metadata or {}).items() if v is not None}
    options = {
        k: recorded.get(k, metadata.get(k, v)) for k, v in SCORER_DEFAULTS.model_dump().items()
    }
    options["judge_model"] = judge
    if passes is not None:
        options["judge_passes"] = passes
    return checked(ScorerOptions, options)


async def judge_samples(
    header: EvalLog,
    samples: list[EvalSample],
    judge: Model,
    options: ScorerOptions,
    display: str,
    judging: Judging,
) -> EvalLog:
    """Score `samples` (copies) with Inspect's `score_async`, overwriting their scores."""

    judging.work = header.model_copy(update={"samples": [deepcopy(s) for s in samples]})
    return await score_async(
        judging.work,
        [capturing(rubric_judge(**options.model_dump()), judging)],
        model=judge,  # the answer model is never even created
        model_roles={GRADER_ROLE: judge},
        action="overwrite",
        # Inspect sets the display up with this when nothing in the process has yet (a
        # rejudge command); an eval before it in the same process keeps that one's display
        display=cast("DisplayType", display),
        copy=False,
    )


def _exists(location: str) -> bool:
    """Whether a log exists, on any store Inspect writes to (local, s3://, ...): fsspec, as
    Inspect opens them, without its listings cache (a log just written must be seen)."""

    store, path = url_to_fs(location, use_listings_cache=False)
    return bool(store.exists(path))


def answer_was_empty(sample: EvalSample) -> bool:
    """The answer had no text: scored as stating nothing, no judge asked (`answer_empty`)."""
    return any(
        (s.metadata or {}).get("answer_empty") is True for s in (sample.scores or {}).values()
    )


async def rejudge_log(
    location: str, options: RejudgeOptions, judge: Model, say: Callable[[str], None]
) -> LogOutcome:
    shown = display_location(location)
    source = await read_eval_log_async(location)
    reason = skip_reason(source)
    if reason is not None:
        return LogOutcome(shown, "", skipped=reason)
    opts = scorer_options(source, options.judge, options.judge_passes)
    name = output_name(location, options.judge, opts.judge_passes, options.failed_only)
    output = options.output_dir.rstrip("/") + "/" + name
    outcome = LogOutcome(shown, display_location(output))

    previous = await read_eval_log_async(output) if _exists(output) else None
    kept: dict[SampleKey, EvalSample] = {}
    if previous is not None:
        kept = {sample_key(s): s for s in previous.samples or []}
    done = {k for k, s in kept.items() if judged_ok(s, str(judge))}
    outcome.already_done = len(done)
    pending = to_judge(source.samples or [], done, options.failed_only)
    if not pending:
        return outcome  # nothing (left) to judge: no new log

    started = previous.stats.started_at if previous is not None else utc_now()
    header = new_header(source, location, options.judge, opts, options.failed_only, started)
    if previous is not None:  # keep the identity (and the scorers) of the log being resumed
        header.eval = previous.eval.model_copy(deep=True)
    else:  # Inspect's own entry once a chunk is scored (`planned_scorers` if none is)
        header.eval.scorers = None
    order = [
        sample_key(s)
        for s in source.samples or []
        if (judge_failed(s) if options.failed_only else True) or sample_key(s) in kept
    ]
    by_key = {sample_key(s): carried(s) for s in source.samples or []}
    done_count = 0
    # the same command again is the same run: the source's task, the judge, the output log
    run = f"rejudge:{source.eval.task_id}:{judge}:{output}"

    def keep(ended: list[EvalSample], judging: Judging) -> None:
        nonlocal done_count
        for sample in ended:
            key = sample_key(sample)
            failure = judging.failures.get(key)
            kept[key] = finish_sample(sample, failure, judging.usage.get(key, {}))
            if failure is not None:
                outcome.failed.append(f"{sample.id}: {failure_message(failure)}")
            else:
                outcome.judged += 1
                outcome.empty += answer_was_empty(kept[key])
        done_count += len(ended)
        samples = [kept.get(k, by_key[k]) for k in order]
        failed = sum(1 for s in samples if s.error is not None)
        write_log(assemble(header, samples, failed), output)
        # written: the judge calls kept for a rerun of this command are no longer needed
        release(run, {(str(s.id), s.epoch) for s in ended if s.error is None})
        say(f"{PROG}: {shown}: {done_count}/{len(pending)} cases judged -> {output}")

    for start in range(0, len(pending), options.checkpoint):
        chunk = pending[start : start + options.checkpoint]
        judging = Judging()
        try:
            # judge calls paid for a case not yet written are read back by a rerun, even
            # after a SIGKILL between checkpoints (kept_calls)
            with kept_run(run):
                scored = await judge_samples(source, chunk, judge, opts, options.display, judging)
        except BaseException:
            # interrupted (Ctrl-C, SIGTERM) or failed: what was judged is kept, then it stops
            ended = judging.ended()
            if ended:
                planned = planned_scorers(source.eval.scorers or [], opts)
                header.eval.scorers = header.eval.scorers or planned
                keep(ended, judging)
            raise
        header.eval.scorers = scored.eval.scorers
        keep(scored.samples or [], judging)
    return outcome


async def rejudge_async(
    options: RejudgeOptions, say: Callable[[str], None] | None = None
) -> list[LogOutcome]:
    say = say or (lambda text: print(text, file=sys.stderr, flush=True))
    if (problem := judge_name_problem(options.judge)) is not None:
        raise RejudgeError(problem)  # a misspelt provider is named with the closest known one
    apply_aliases()
    try:
        check_credentials([], options.judge)  # before any log is read or any call is made
        judge = get_model(options.judge)
    except CredentialError as ex:
        raise RejudgeError(str(ex)) from ex
    except Exception as ex:  # an unknown provider or model name
        raise RejudgeError(f"cannot use judge {options.judge!r}: {redact(str(ex))}") from ex
    locations = await source_logs(options)
    if "://" not in options.output_dir:  # what a re-judge killed outright left behind
        remove_dead_temps(options.output_dir)
    if not locations:
        raise RejudgeError(f"no Inspect logs in {', '.join(options.log_paths)}")
    # one log after another: each log's cases are judged concurrently by `score_async`, and
    # Inspect's scoring context (display, transcript, task context) is not meant to be shared
    # by several concurrent `score_async` calls
    return [await rejudge_log(loc, options, judge, say) for loc in locations]


def rejudge(options: RejudgeOptions) -> list[LogOutcome]:
    """Run as the `inspect` command runs an eval, on Inspect's configured async backend;
    Inspect's platform set-up (hooks, exception hook) runs as the judge model is created."""

    backend = os.environ.get("INSPECT_ASYNC_BACKEND", "").strip().lower() or "asyncio"
    if backend not in ("asyncio", "trio"):
        raise RejudgeError(f"INSPECT_ASYNC_BACKEND={backend!r}: use asyncio or trio")
    return anyio.run(functools.partial(rejudge_async, options), backend=backend)
