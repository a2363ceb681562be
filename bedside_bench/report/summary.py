"""The per-group summary (protocol section 6) as a `RunSummary` (pure functions).

The numbers come from `bedside_bench.scoring.stats`; this module only decides which case
scores go in, in which order (registry order of benchmarks, dataset order of cases), and what
to write down beside them so that a reader can judge comparability. Past 300 lines with the
notes every condition adds (scope, completeness, failed cases' advice, answer conditions); the
document's shape is `documents/summary.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.contracts import NOT_RECORDED, SentTemperature
from bedside_bench.core.protocol import (
    ANSWER_TEMPERATURE,
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    JUDGE_TEMPERATURE,
    PROTOCOL_VERSION,
    THREE_LEVEL_PROTOCOL_VERSION,
)
from bedside_bench.documents.base import BootstrapSettings
from bedside_bench.documents.summary import (
    AnswerConditions,
    AnswersWithoutText,
    BenchmarkSummary,
    InspectScore,
    OverallScore,
    RunSummary,
    Scope,
    Temperature,
)
from bedside_bench.judging.failures import judge_failure_notes
from bedside_bench.logs.records import CaseRecord, parse_time
from bedside_bench.release.known import UNRECOGNISED
from bedside_bench.report.answers import answered_again, rejudged_notes
from bedside_bench.report.conditions import (
    answer_condition_notes,
    answer_conditions,
    answers_without_text,
    generation_notes,
    no_answer_notes,
    without_text_notes,
)
from bedside_bench.report.cost_limit import cost_limit_notes
from bedside_bench.report.groups import BenchmarkEvidence, RunGroup
from bedside_bench.report.reducers import inspect_scores
from bedside_bench.report.scope import release_case_counts, release_counts_text, scope_json
from bedside_bench.report.usage import Prices, cost_json, group_usage, usage_json, with_full_run
from bedside_bench.report.within import (
    Within,
    group_within,
    joint_entries,
    joint_notes,
)
from bedside_bench.scoring.agreement import pooled_kappa
from bedside_bench.scoring.joint import (
    Over,
    WithinCase,
    joint_bootstrap,
    joint_stratified_bootstrap,
)
from bedside_bench.scoring.stats import (
    Interval,
    macro_mean,
    percentile_bootstrap,
    stratified_bootstrap,
)

PUBLIC_SPLIT_N = 25
FULL_N = 50
PUBLIC_SPLIT_NOTE = "public split: n = 25 per benchmark; not comparable with 50-case results"


@dataclass(frozen=True)
class BootstrapOptions:
    resamples: int = BOOTSTRAP_RESAMPLES
    seed: int = BOOTSTRAP_SEED

    def settings(self) -> BootstrapSettings:
        return BootstrapSettings.of(self.resamples, self.seed)


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(np.mean(np.array(present, dtype=np.float64))) if present else None


def judge_kappa(cases: Sequence[CaseRecord]) -> float | None:
    """The judge metric's kappa (`agreement.pooled_kappa`, decisions or levels) over the cases.
    None when any case lacks usable per-pass decisions."""
    # with several epochs each epoch's answer is rated on its own: its items are subjects too
    # an answer without text was not judged: it has no passes to agree or disagree
    records = [r for case in cases for r in (case.epoch_records or (case,)) if not r.answer_empty]
    if not records or any(not r.pass_decisions for r in records):
        return None
    return pooled_kappa(r.pass_decisions for r in records if r.pass_decisions)


class Diagnostics(TypedDict, total=False):
    """The keys a benchmark entry has only when they apply: F1's, and several passes'."""

    mean_recall: float | None
    mean_precision: float | None
    severe_rate: float | None
    judge_agreement: float | None
    judge_kappa: float | None
    inspect_scores: list[InspectScore]


def benchmark_entry(
    evidence: BenchmarkEvidence,
    options: BootstrapOptions,
    judge_passes: int,
    epochs: int = 1,
    within: Within = None,
    group: RunGroup | None = None,
) -> BenchmarkSummary:
    scores = np.array(evidence.scores, dtype=np.float64)

    def joint(over: Over) -> Interval | None:
        if not isinstance(within, WithinCase):
            return None
        return joint_bootstrap(scores, within, over, options.resamples, options.seed)

    diagnostics: Diagnostics = {}
    if evidence.grading_method == "f1_weighted_rubric":
        diagnostics["mean_recall"] = _mean(c.recall for c in evidence.completed)
        diagnostics["mean_precision"] = _mean(c.precision for c in evidence.completed)
        diagnostics["severe_rate"] = _mean(c.severe_rate for c in evidence.completed)
    if judge_passes > 1:
        diagnostics["judge_agreement"] = _mean(c.judge_agreement for c in evidence.completed)
        diagnostics["judge_kappa"] = judge_kappa(evidence.completed)
    mean = float(scores.mean()) if scores.size else None
    # Inspect's number where another epoch reducer makes it differ (`report/reducers.py`)
    others = inspect_scores(group, evidence.benchmark, mean) if group is not None else []
    if others:
        diagnostics["inspect_scores"] = others
    return BenchmarkSummary(
        grading_method=evidence.grading_method,
        n=int(scores.size),
        failed=len(evidence.failed),
        mean=mean,
        ci95=list(percentile_bootstrap(scores, options.resamples, options.seed).as_tuple())
        if scores.size
        else None,
        answer_conditions=AnswerConditions(**answer_conditions(evidence.completed)),
        answers_without_text=AnswersWithoutText(**answers_without_text(evidence.completed)),
        failed_no_answer=len(evidence.no_answer),
        **diagnostics,
        **joint_entries(judge_passes, epochs, joint),
    )


def overall_entry(
    group: RunGroup, options: BootstrapOptions, within: Mapping[str, Within] | None = None
) -> OverallScore | None:
    """Macro-average and stratified interval; None unless all ten benchmarks have scores."""
    if group.missing_benchmarks or any(not b.completed for b in group.benchmarks.values()):
        return None
    strata = [np.array(group.benchmarks[name].scores, dtype=np.float64) for name in BENCHMARK_NAMES]
    lo, hi = stratified_bootstrap(strata, options.resamples, options.seed).as_tuple()
    found = group_within(group) if within is None else within
    cases = [found[name] for name in BENCHMARK_NAMES]

    def joint(over: Over) -> Interval | None:
        usable = [w for w in cases if isinstance(w, WithinCase)]
        if len(usable) != len(cases):
            return None
        return joint_stratified_bootstrap(strata, usable, over, options.resamples, options.seed)

    return OverallScore(
        mean=macro_mean(strata),
        ci95=[lo, hi],
        n=int(sum(s.size for s in strata)),
        **joint_entries(group.key.judge_passes, group.key.epochs, joint),
    )


def single_value(values: Sequence[SentTemperature], what: str, notes: list[str]) -> Temperature:
    """The one value the cases agree on, else the distinct values (and a note saying so):
    numbers first, then "not sent" (None), then "not recorded"."""
    distinct = sorted(
        set(values),
        key=lambda v: (2, 0.0) if v == NOT_RECORDED else (1, 0.0) if v is None else (0, float(v)),
    )
    if not distinct:
        return None
    if len(distinct) == 1:
        return distinct[0]
    notes.append(f"{what} differs between cases: {distinct}")
    return distinct


def not_recorded_notes(**asked: tuple[float, Sequence[SentTemperature]]) -> list[str]:
    """Say which temperatures are not known and why: a temperature is read back from the
    request Inspect logged, and some calls have no such record."""
    notes = []
    for who, (requested, values) in asked.items():
        unknown = sum(v == NOT_RECORDED for v in values)
        if unknown:
            notes.append(
                f"{who}_temperature not recorded for {unknown} of {len(values)} cases: the log "
                "keeps no record of those requests (scores of `inspect score` or "
                "`bedside-bench rejudge`, a run with --no-log-model-api); they were asked at "
                f"{requested:g}, and whether the provider received it is not known"
            )
    return notes


def n_note(group: RunGroup) -> str | None:
    """What the dataset size means for comparability (the cases the benchmark has, not the
    cases a limited run happened to cover)."""
    sizes = {
        name: b.cases_in_benchmark if b.cases_in_benchmark is not None else len(b.case_ids)
        for name, b in group.benchmarks.items()
    }
    if sizes and set(sizes.values()) == {PUBLIC_SPLIT_N}:
        return PUBLIC_SPLIT_NOTE
    if not sizes or set(sizes.values()) == {FULL_N}:
        return None
    listed = ", ".join(f"{name} {n}" for name, n in sizes.items())
    return f"n per benchmark (cases in the dataset): {listed}; not comparable with 50-case results"


# the first note of a group with a demo's log (`LogRecord.demo`); the report's top says it too
DEMO_NOTE = (
    "DEMO: every answer and judge decision is a scripted stand-in from the provider doubles "
    "(`bedside-bench demo`), not model output; these scores say nothing about any model"
)


def comparability_notes(group: RunGroup) -> list[str]:
    key = group.key
    notes = []
    if key.smoke:
        notes.append("smoke run: one case per benchmark; a set-up check, not a result")
    if key.release is None:
        notes.append("release: unknown (the logs do not record which release the cases came from)")
    elif key.release == UNRECOGNISED:
        notes.append(
            "release: unrecognised (the cases match no known release); cases found: "
            + release_counts_text(release_case_counts(group))
        )
    if key.protocol_version == THREE_LEVEL_PROTOCOL_VERSION:
        notes.append(
            f"{key.protocol_version} is a non-reference variant; never comparable with "
            f"{PROTOCOL_VERSION} results"
        )
    elif key.protocol_version != PROTOCOL_VERSION:
        notes.append(f"protocol version {key.protocol_version} is not {PROTOCOL_VERSION}")
    if key.severe_gate:
        notes.append(
            "severe_gate=true: F1 cases zeroed on a missed +3 or matched -3 item (earlier "
            f"revision); not comparable with {PROTOCOL_VERSION} reference results"
        )
    if key.grading != "binary":
        notes.append(f"grading={key.grading} (reference grading is binary)")
    if key.judge_passes != 1:
        notes.append(f"{key.judge_passes} judge passes per answer (reference: 1)")
    return notes


def failed_case_advice(group: RunGroup) -> str:
    """What to do about the failed cases: `inspect eval-retry` redoes a case that errored, but
    not one another scorer re-scored (no error to redo), and it keeps the limits a case without
    an answer hit; each kind gets its own advice."""
    rescored = sum(len(b.rescored) for b in group.benchmarks.values())
    no_answer = sum(len(b.no_answer) for b in group.benchmarks.values())
    others = group.cases_failed - rescored - no_answer
    if not rescored and not no_answer:
        return "redo them with `inspect eval-retry`"
    parts = []
    if rescored:
        parts.append(
            f"{rescored} of them were scored by another scorer, not by this suite's judge: "
            "re-score those with `inspect score LOG --scorer bedside_bench/rubric_judge` or "
            "`bedside-bench rejudge` (`inspect eval-retry` does not redo a case without an "
            "error)"
        )
    if no_answer:
        parts.append(
            f"{no_answer} of them have no answer (a limit, or a provider error): rerun those "
            "without the limit (`inspect eval-retry` keeps the run's limits)"
        )
    if others > 0:
        parts.append("redo the others with `inspect eval-retry`")
    return "; ".join(parts)


def completeness_notes(group: RunGroup) -> list[str]:
    notes = []
    if group.cases_failed:
        failed = ", ".join(
            f"{b.benchmark} {len(b.failed)}" for b in group.benchmarks.values() if b.failed
        )
        redo = failed_case_advice(group)
        notes.append(
            f"incomplete: {group.cases_failed} case(s) have no successful score ({failed}); "
            f"they are left out of the means, not scored 0; {redo}"
        )
        notes += judge_failure_notes(group.failed_case_errors(), group.log_folder)
    if group.missing_benchmarks:
        notes.append(f"missing benchmarks: {', '.join(group.missing_benchmarks)}; no overall score")
    elif any(not b.completed for b in group.benchmarks.values()):
        notes.append("a benchmark has no completed case; no overall score")
    if group.key.epochs > 1:
        notes.append(
            f"{group.key.epochs} epochs per case: a case's score is the mean over its epochs "
            "(Inspect's mean reducer) and counts only when every epoch scored; the protocol's "
            "intervals (ci95) resample cases, ci95_cases_and_epochs cases and their epochs; "
            "usage counts every epoch (usage.by_epoch)"
        )
    reducers = {log.epochs_reducer for log in group.logs if log.epochs_reducer}
    if reducers - {("mean",)}:
        shown = ", ".join(sorted("+".join(r) for r in reducers))
        notes.append(
            f"the logs asked Inspect for epoch reducer(s) {shown}; this report always uses "
            "the protocol's mean over epochs (where Inspect's number differs, the summary "
            "gives it as `inspect_scores` and the report's top names both)"
        )
    return notes


def scope_notes(group: RunGroup, scope: Scope) -> list[str]:
    notes = [] if scope.full else [f"scope: {scope.description}; not a full result"]
    mixed = sorted({j for log in group.logs for j in log.judges_seen})
    if mixed:
        notes.append(
            f"scores of one log name several judges ({', '.join(mixed)}): filed as their own "
            "group, never pooled with a single judge's"
        )
    return notes


def skipped_notes(skipped: Sequence[tuple[str, str]]) -> list[str]:
    return [f"skipped log {location}: {reason}" for location, reason in skipped]


def _times(group: RunGroup) -> tuple[str | None, str | None]:
    starts = [
        (t, log.started_at) for log in group.logs if (t := parse_time(log.started_at)) is not None
    ]
    ends = [
        (t, log.completed_at)
        for log in group.logs
        if (t := parse_time(log.completed_at)) is not None
    ]
    first = min(starts, key=lambda p: p[0].timestamp())[1] if starts else None
    last = max(ends, key=lambda p: p[0].timestamp())[1] if ends else None
    return first, last


def _data_source(group: RunGroup, notes: list[str]) -> str | None:
    sources = list(
        dict.fromkeys(
            log.data_source for log in reversed(group.logs) if log.data_source is not None
        )
    )
    if len(sources) > 1:
        notes.append(f"logs name several data sources with the same digest: {sources}")
    return sources[0] if sources else None


def summarise(
    group: RunGroup,
    options: BootstrapOptions,
    prices: Prices | None = None,
    skipped: Sequence[tuple[str, str]] = (),
) -> RunSummary:
    """The summary of one run group, keys in the documented order; `skipped` are the logs that
    were found but not used (unreadable or not BedsideBench's), listed in the notes."""
    key = group.key
    # a demo says so before anything else
    notes: list[str] = [DEMO_NOTE] if any(log.demo for log in group.logs) else []
    # and so does a re-judged one
    notes += rejudged_notes(group)
    completed = [c for b in group.benchmarks.values() for c in b.completed]
    scope = scope_json(group)
    note = n_note(group)
    if note:
        notes.append(note)
    notes += scope_notes(group, scope)
    notes += comparability_notes(group)
    notes += completeness_notes(group)
    within = group_within(group)
    notes += joint_notes(group, within)
    notes += answered_again(group)
    notes += answer_condition_notes(group)
    notes += without_text_notes(group)
    notes += no_answer_notes(group)
    notes += cost_limit_notes(group)
    notes += generation_notes(group)
    notes += skipped_notes(skipped)
    answer_temperatures = [c.answer_temperature for c in completed]
    judge_temperatures = [c.judge_temperature for c in completed if not c.answer_empty]
    answer_temperature = single_value(answer_temperatures, "answer_temperature", notes)
    judge_temperature = single_value(judge_temperatures, "judge_temperature", notes)
    notes += not_recorded_notes(
        answer=(ANSWER_TEMPERATURE, answer_temperatures),
        judge=(JUDGE_TEMPERATURE, judge_temperatures),
    )
    data_source = _data_source(group, notes)
    usage = group_usage(group.logs)
    notes += usage.notes
    cost, cost_notes = cost_json(key.answer_model, key.judge_model, usage, prices)
    notes += cost_notes
    cases_run = group.cases_completed + group.cases_failed
    cost = with_full_run(cost, cases_run, release_case_counts(group))
    notes.append(
        f"intervals drawn with numpy {np.__version__} (default_rng); other numpy releases may "
        "draw differently"
    )
    started_at, finished_at = _times(group)
    return RunSummary(
        protocol_version=key.protocol_version,
        answer_model=key.answer_model,
        judge_model=key.judge_model,
        judge_passes_per_answer=key.judge_passes,
        answer_temperature=answer_temperature,
        judge_temperature=judge_temperature,
        dataset_sha256=key.dataset_sha256,
        data_source=data_source,
        cases_completed=group.cases_completed,
        cases_failed=group.cases_failed,
        complete=group.complete,
        benchmarks={
            name: benchmark_entry(
                evidence, options, key.judge_passes, key.epochs, within[name], group
            )
            for name, evidence in group.benchmarks.items()
        },
        overall=overall_entry(group, options, within),
        missing_benchmarks=list(group.missing_benchmarks),
        bootstrap=options.settings(),
        logs=[log.location for log in group.logs],
        started_at=started_at,
        finished_at=finished_at,
        notes=notes,
        usage=usage_json(usage),
        cost=cost,
        epochs=key.epochs,
        release=key.release,
        release_case_counts=release_case_counts(group),
        scope=scope,
        generation_settings=dict(group.logs[-1].generation) if group.logs else {},
    )
