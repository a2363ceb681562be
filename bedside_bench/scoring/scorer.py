"""The rubric-judge scorer: judge the answer, score the case, pack an Inspect `Score`.

Its options, their defaults and the checks that refuse a bad one are defined once in
`core/options.py`; the scorer takes them by name (`-S`), each None when not given. The score's
metadata is built as `ScoreMetadata` (`core/score_metadata.py`), validated as it is written.

Past 300 lines: the scorer, its judge preflight, the two scores a case can get (judged, or an
answer without text) and what re-scoring a stored log needs stay together, as the one way from
a sample to its `Score`.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Sequence
from typing import Any

from inspect_ai.event import ModelEvent, ScoreEvent
from inspect_ai.log import transcript
from inspect_ai.model import Model, ModelUsage, get_model, model_roles
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState
from inspect_ai.util import RegistryInfo, registry_info

from bedside_bench.calls.answer_facts import answer_facts
from bedside_bench.calls.credentials import redact
from bedside_bench.calls.kept_calls import judging_case, release_case, release_kept_calls
from bedside_bench.core.answer_condition import AnswerState, NoAnswerError, answer_state
from bedside_bench.core.contracts import (
    GRADER_ROLE,
    NOT_RECORDED,
    SCORE_KEY,
    SCORER_NAME,
    Grading,
    GradingMethod,
    JudgeAttempt,
    SampleMetadata,
    SentTemperature,
)
from bedside_bench.core.inspect_private import (
    PrerequisiteError,
    active_model,
    active_run_id,
    registry_add,
    suite_in_use,
)
from bedside_bench.core.model_names import judge_name_problem, unknown_provider
from bedside_bench.core.options import (
    SCORER_DEFAULTS,
    SCORER_OPTIONS,
    JudgeName,
    ScorerOptions,
    check_option_names,
    check_option_values,
    checked,
    default_judge,
    stop_run,
)
from bedside_bench.core.options import (  # re-exported: the refusal is imported from here too
    TaskOptionError as TaskOptionError,
)
from bedside_bench.core.protocol import JUDGE_MESSAGE_FORMAT
from bedside_bench.core.safe_text import encodable, printable
from bedside_bench.core.score_metadata import ScoreMetadata, TokenCounts
from bedside_bench.judging.grading import GradingStrategy, PassResult, grading_strategy
from bedside_bench.judging.judge import judged_once_in_run
from bedside_bench.scoring.agreement import unanimous_share
from bedside_bench.scoring.case_score import F1Score, PointsScore, case_score, decisions_table
from bedside_bench.scoring.metrics import bootstrap_ci95, f1_diagnostics, judge_agreement

_MARKUP = re.compile(r"\[/?[a-z ]+\]")


def _one_line(ex: BaseException) -> str:
    """An exception as one plain line: Inspect's messages carry console markup and breaks."""
    message = getattr(ex, "message", None) or str(ex) or type(ex).__name__
    paragraphs = re.split(r"\n\s*\n", _MARKUP.sub("", str(message)))
    text = ": ".join(" ".join(p.split()) for p in paragraphs if p.strip())
    return redact(text.removeprefix("ERROR: "))


def bound_grader() -> Model | None:
    """The model bound to the `grader` role of this run (the first, for a list), or None."""
    bound = model_roles().get(GRADER_ROLE)
    if isinstance(bound, list):
        return bound[0] if bound else None
    return bound


def preflight_judge(judge_model: str | None) -> Model | None:
    """Resolve the judge, and so initialise its client, while a run's tasks are being built.

    Inside `inspect eval` / `eval-set` tasks are built after the model roles are bound and
    before any sample runs, so a judge with a missing key or an unknown name stops the run
    here, before an answer is bought. So does a `-T judge_model` that names another judge
    than the `grader` role: the role would judge while the task arguments named the other.
    A task built outside a run (Python API, before `eval(task, model_roles=...)`) cannot know
    its grader yet: then nothing is checked.
    """
    if active_model() is None:
        return None
    role = bound_grader()
    if judge_model is not None and role is None:
        # the name is what judges: one that never calls would fail every case after its
        # answer was bought (a misspelt provider is named below, with the way out)
        problem = judge_name_problem(judge_model, "-T judge_model", provider=False)
        if problem is not None:
            raise stop_run(TaskOptionError(f"bedside-bench: {problem}; no case was run"))
    if judge_model is not None and role is not None and str(role) != judge_model:
        raise stop_run(
            TaskOptionError(
                f"bedside-bench: -T judge_model={judge_model} and --model-role grader={role} "
                "name two judges, so no case was run: the grader role would judge and the log "
                "would name both; give one of them"
            )
        )
    judge = default_judge(judge_model)
    try:
        return get_model(role=GRADER_ROLE, default=judge)
    except Exception as ex:
        # a misspelt provider: the closest one Inspect knows, rather than Inspect's message
        unknown = None if role is not None else unknown_provider(judge)
        reason = _one_line(ex) if unknown is None else f"{unknown}."
        raise stop_run(
            PrerequisiteError(
                f"bedside-bench: the judge {role or judge} cannot be used, so no case was run: "
                f"{reason} Bind a usable judge with --model-role grader=... "
                "or -T judge_model=..."
            )
        ) from ex


def score_metadata(result: PointsScore | F1Score, grading_method: GradingMethod) -> dict[str, Any]:
    """The case score's keys of a score's metadata (`ScoreMetadata.logged()`)."""
    if isinstance(result, PointsScore):
        return ScoreMetadata(
            grading_method=grading_method,
            matched_signed_points=result.matched_signed_points,
            available_positive_points=result.available_positive_points,
        ).logged()
    return ScoreMetadata(
        grading_method=grading_method,
        recall=result.recall,
        precision=result.precision,
        severe_rate=result.severe_rate,
    ).logged()


def _pass_metadata(results: Sequence[PassResult], pass_scores: Sequence[float]) -> dict[str, Any]:
    """What repeated judging adds: every pass's decisions, the case score each pass alone
    gives (what the report's intervals over judge passes resample), and their agreement."""
    if len(results) < 2:
        return {}
    return ScoreMetadata(
        judge_passes=len(results),
        pass_decisions=[r.decisions for r in results],
        pass_scores=list(pass_scores),
        judge_agreement=unanimous_share([r.decisions for r in results]),
    ).logged()


def _unasked_passes(score: float, passes: int) -> dict[str, Any]:
    """The passes of an answer without text: each alone scores the case the same, and no pass
    was asked anything (no per-pass decisions or agreement to pool into the judge's kappa)."""
    return ScoreMetadata(pass_scores=[score] * passes).logged() if passes > 1 else {}


def _attempts(results: Sequence[PassResult]) -> list[JudgeAttempt]:
    """Every judge attempt of the case; with several passes each says which pass it was of."""
    if len(results) == 1:
        return results[0].attempts
    return [
        {
            "pass": n,
            "attempt": a["attempt"],
            "raw": a["raw"],
            "raw_chars": a["raw_chars"],
            "error": a["error"],
        }
        for n, r in enumerate(results, start=1)
        for a in r.attempts
    ]


def states_nothing(
    answered: AnswerState,
    strategy: GradingStrategy[Any],
    sample: SampleMetadata,
    opts: ScorerOptions,
    judge: str,
) -> Score:
    """The score of an answer without text, with no judge call: it states nothing, so the
    protocol's judge could match no item (every decision not matched) and the case scores what
    that gives (0 on either grading method; an F1 case's precision is undefined). Recorded with
    its condition and `answer_empty`, so the report counts it; `judge_model` is the run's
    judge (whose group the case belongs to) and `judge_attempts` is empty: none was asked."""
    items = sample.rubric_items
    decisions = strategy.nothing_stated(items)
    matches = strategy.matches(decisions, items)
    result = case_score(sample.grading_method, items, matches, severe_gate=opts.severe_gate)
    metadata = ScoreMetadata(
        decisions=decisions,
        **score_metadata(result, sample.grading_method),
        judge_model=judge,
        judge_temperature=None,
        answer_temperature=sample.answer_temperature,
        answer_stop_reason=answered.stop_reason,
        answer_condition=answered.condition,
        answer_complete=answered.complete,
        answer_empty=True,
        judge_attempts=[],
        judge_message_format=JUDGE_MESSAGE_FORMAT,
        severe_gate=opts.severe_gate,
        judge_usage={},
        **_unasked_passes(result.score, opts.judge_passes),
        **strategy.score_details([], matches),
    )
    said = (
        f"**The answer has no text** (stop reason {answered.stop_reason}, "
        f"{answered.condition}): it states nothing, so no rubric item is matched; no judge "
        "was asked."
    )
    return Score(
        value=result.score,
        answer="",
        explanation=said + "\n\n" + decisions_table(items, decisions, result),
        metadata=metadata.logged(),
    )


def _judge_temperature(results: Sequence[PassResult]) -> SentTemperature:
    """The temperature the judge received: every pass asks the same model at the same
    temperature, so the first pass whose request Inspect kept says it."""
    recorded = (r.temperature_sent for r in results if r.temperature_sent != NOT_RECORDED)
    return next(recorded, NOT_RECORDED)


def judged_score(
    answered: AnswerState,
    strategy: GradingStrategy[Any],
    sample: SampleMetadata,
    opts: ScorerOptions,
    judge: str,
    answer: str,
    results: Sequence[PassResult],
    usage: dict[str, TokenCounts],
) -> Score:
    """The score of a judged answer from its passes (`judge_passes` of them): the case's
    decisions combined over the passes, its score, and the metadata recording how it came."""
    items = sample.rubric_items
    method = sample.grading_method
    gate = opts.severe_gate
    combined = strategy.combine([r.decisions for r in results])
    matches = strategy.matches(combined, items)
    result = case_score(method, items, matches, severe_gate=gate)
    pass_scores = [
        case_score(method, items, strategy.matches(r.decisions, items), gate).score for r in results
    ]
    metadata = ScoreMetadata(
        decisions=combined,
        **score_metadata(result, method),
        judge_model=judge,
        judge_temperature=_judge_temperature(results),
        answer_temperature=sample.answer_temperature,
        answer_stop_reason=answered.stop_reason,
        answer_condition=answered.condition,
        answer_complete=answered.complete,
        answer_empty=False,
        judge_attempts=_attempts(results),
        judge_message_format=JUDGE_MESSAGE_FORMAT,
        severe_gate=gate,
        judge_usage=usage,
        **_pass_metadata(results, pass_scores),
        **strategy.score_details(results, matches),
    )
    return Score(
        value=result.score,
        answer=answer,
        explanation=decisions_table(items, combined, result),
        metadata=metadata.logged(),
    )


# --------------------------------------------------------------------------------------------
# re-scoring a stored log (`inspect score`, `bedside-bench rejudge`)


def logged_options() -> dict[str, object]:
    """The scorer options this sample was scored with before, read from the score events
    Inspect recorded in its transcript (empty while a sample is first scored)."""
    options: dict[str, object] = {}
    for event in transcript().events:
        if isinstance(event, ScoreEvent) and SCORE_KEY.match(event.scorer or ""):
            args = event.scorer_args or {}
            options.update({k: v for k, v in args.items() if k in SCORER_OPTIONS and v is not None})
    return options


def usage_by_model(events: Sequence[object]) -> dict[str, ModelUsage]:
    """Tokens of the model calls among `events`, summed by model."""
    usage: dict[str, ModelUsage] = {}
    for event in events:
        if isinstance(event, ModelEvent) and event.output.usage is not None:
            usage[event.model] = usage.get(event.model, ModelUsage()) + event.output.usage
    return usage


def judge_usage(events: Sequence[object]) -> dict[str, TokenCounts]:
    """Tokens of the judge calls among `events`, by model: `inspect score` does not add them
    to the log's stats, so the score carries them for the report."""
    return {
        model: TokenCounts(
            input_tokens=u.input_tokens,
            output_tokens=u.output_tokens,
            input_tokens_cache_read=u.input_tokens_cache_read or 0,
            input_tokens_cache_write=u.input_tokens_cache_write or 0,
            reasoning_tokens=u.reasoning_tokens or 0,
            total_tokens=u.total_tokens,
        )
        for model, u in usage_by_model(events).items()
    }


def _resolve_judge(explicit: str | None, logged: object) -> Model:
    """The `grader` role, unless a `judge_model` other than the role's is asked for
    (`inspect score -S judge_model=M` over a log that bound the role to another judge); with no
    role bound, `judge_model`, else the one the sample was scored with, else the protocol's."""
    role = bound_grader()
    if explicit is not None and role is not None and str(role) != explicit:
        return get_model(explicit)
    logged_judge = logged if isinstance(logged, str) else None
    return get_model(role=GRADER_ROLE, default=default_judge(explicit or logged_judge))


@scorer(metrics=[mean(), stderr(), bootstrap_ci95(), f1_diagnostics(), judge_agreement()])
def rubric_judge(
    judge_model: JudgeName | None = None,
    judge_retries: int | None = None,
    severe_gate: bool | None = None,
    judge_passes: int | None = None,
    grading: Grading | None = None,
    **unknown: object,
) -> Scorer:
    """Judge every rubric item of the case, then score it as protocol section 3 says.

    The judge is the model bound to the `grader` role, else `judge_model`. With
    `judge_passes` > 1 the passes are independent calls and an item's decision is their
    strict majority (a tie is not matched). An option left out takes the value the sample was
    scored with before (so `inspect score --scorer bedside_bench/rubric_judge -S ...` keeps
    the run's other options), else the protocol default (`options.ScorerOptions`). Any other
    `-S` name, a value of the wrong type or out of range is refused.
    """
    suite_in_use()  # what degraded when the package was imported, said now
    check_option_names(list(unknown), SCORER_OPTIONS, "-S")
    release_kept_calls(rubric_judge)  # its judge replies are kept until their case is logged
    given = {
        "judge_model": judge_model,
        "judge_retries": judge_retries,
        "severe_gate": severe_gate,
        "judge_passes": judge_passes,
        "grading": grading,
    }
    check_option_values(given)
    # built outside a run (`inspect score -S judge_model=...`), where no preflight checks it
    outside_run = judge_model is not None and active_model() is None
    if outside_run and (misspelt := unknown_provider(str(judge_model), "judge_model")):
        raise stop_run(TaskOptionError(f"bedside-bench: {misspelt}; no case was scored"))
    explicit = {k: v for k, v in given.items() if v is not None}

    async def score(state: TaskState, target: Target) -> Score:
        # a case whose answer never came fails here, before anything is bought for it
        try:
            answered = answer_state(answer_facts(state.output, transcript().events))
        except NoAnswerError:
            release_case()  # its retry asks for an answer again instead of replaying this one
            raise
        logged = logged_options() if len(explicit) < len(SCORER_OPTIONS) else {}
        # each option: as given, else as the sample was scored before, else the default
        opts = checked(ScorerOptions, {**SCORER_DEFAULTS.model_dump(), **logged, **explicit})
        judge = _resolve_judge(judge_model, logged.get("judge_model"))
        strategy = grading_strategy(opts.grading)
        sample = bedside_case(state)
        if answered.empty:  # the model's answer states nothing: no judge is paid to say so
            return states_nothing(answered, strategy, sample, opts, str(judge))
        passes = opts.judge_passes
        first_event = transcript().history.event_count
        items = sample.rubric_items
        # a lone surrogate cannot be sent or logged: kept as its escape (`safe_text`)
        answer = encodable(state.output.completion)
        retries = opts.judge_retries
        # a judge that failed this case in this run is not asked again (see judging/judge.py)
        # keyed by answer model too: one model's failure never stops another model's judging
        case = (f"{state.model}/{state.sample_id}", state.epoch, answer, str(judge))
        with (
            judged_once_in_run(active_run_id(), *case),
            judging_case(str(state.sample_id), state.epoch),  # kept calls' case (rejudge)
        ):
            # each pass is its own cache entry (see model_calls): passes must stay independent
            outcomes = await asyncio.gather(
                *(
                    strategy.ask(judge, state.input_text, answer, items, retries, {"pass": str(n)})
                    for n in range(1, passes + 1)
                )
            )
        results = [strategy.to_pass(outcome, items) for outcome in outcomes]
        usage = judge_usage(transcript().history.events_from(first_event))
        return judged_score(answered, strategy, sample, opts, str(judge), answer, results, usage)

    return score


def bedside_case(state: TaskState) -> SampleMetadata:
    """The sample's case, or one line saying the sample is not a BedsideBench case: the
    short scorer name `rubric_judge` that `inspect score` resolves (`_register_logged_name`)
    may be asked to score another suite's log, and nothing is bought for it."""
    try:
        return state.metadata_as(SampleMetadata)
    except ValueError:  # Inspect wraps pydantic's ValidationError in one
        raise ValueError(
            f"sample {printable(str(state.sample_id), 80)} holds no BedsideBench case (its "
            "metadata has no rubric items): `rubric_judge` here is bedside_bench's scorer, "
            "which scores only logs of bedside_bench tasks"
        ) from None


def _register_logged_name() -> None:
    """Make the name a log records resolvable by `inspect score LOG`.

    Inspect records a scorer without its package prefix (`rubric_judge`) but looks package
    scorers up only as `bedside_bench/rubric_judge`; registering the short name as well (it is
    loaded through the package's entry point) lets `inspect score` rebuild the scorer with the
    options the log recorded.
    """
    if registry_info(rubric_judge).name == SCORER_NAME:
        return  # not installed as a package: already registered under the short name

    @functools.wraps(rubric_judge)
    def by_logged_name(*args: Any, **kwargs: Any) -> Scorer:
        return rubric_judge(*args, **kwargs)

    registry_add(
        by_logged_name,
        RegistryInfo(
            type="scorer", name=SCORER_NAME, metadata=registry_info(rubric_judge).metadata
        ),
    )


_register_logged_name()
