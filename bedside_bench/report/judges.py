"""How much the results depend on the judge: the same answers judged by two or more judges.

Run groups that differ only in the judge (model and passes) and hold the same answers (the
same source task per benchmark: a re-judged log names its source, an appended judge shares its
log) form one judge comparison. For each answer model it gives every judge's means on the cases
all judges completed, and the judge effect as a paired difference over the same answers (the
paired stratified bootstrap of `bedside_bench.scoring.stats`); over all answer models, item-level
agreement and Cohen's kappa for each pair of judges (Fleiss' kappa for three or more), per
benchmark, overall and per item point value; and with two or more answer models, whether the
ranking changes (Kendall's tau and the swapped pairs). Everything but `read_item_points` is a
pure function of the run groups; the report section it gives is in `judges_section.py`.

Longer than most modules: the four parts of one `judges.json` document (judge sets, score
effects, item agreement, ranking) share `JudgeSet` and the common-case lookup.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from inspect_ai.log import read_eval_log

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.contracts import RUBRIC_ITEMS_KEY
from bedside_bench.core.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.documents.base import BootstrapSettings
from bedside_bench.documents.comparison import KeyValue
from bedside_bench.documents.judges import (
    Agreement,
    Coverage,
    Effect,
    ExcludedGroup,
    FleissAgreement,
    FleissStatistic,
    JudgeComparison,
    JudgeEffect,
    JudgeScores,
    JudgesDocument,
    JudgeSetup,
    ModelJudges,
    PairAgreement,
    PairStatistic,
    Ranking,
    RankPair,
    Score,
)
from bedside_bench.logs.group_key import GroupKey
from bedside_bench.logs.records import CaseRecord
from bedside_bench.logs.scorers import MIXED_PREFIX
from bedside_bench.report.groups import RunGroup
from bedside_bench.report.summary import BootstrapOptions
from bedside_bench.scoring.agreement import (
    cohen_kappa,
    fleiss_kappa,
    kendall_tau,
    pass_fail_counts,
    unanimous_fraction,
)
from bedside_bench.scoring.stats import (
    macro_mean,
    paired_bootstrap,
    paired_bootstrap_single,
    percentile_bootstrap,
    stratified_bootstrap,
)

JUDGES_FILE = "judges.json"
SETUP_FIELDS = ("protocol_version", "dataset_sha256", "severe_gate", "grading", "smoke")
ItemPoints = Mapping[str, int]
# (benchmark, case id) -> the item ids of the case's rubric, in rubric order
RubricItems = Mapping[tuple[str, str], tuple[str, ...]]


def judge_label(key: GroupKey) -> str:
    return key.judge_model if key.judge_passes == 1 else f"{key.judge_model} x{key.judge_passes}"


def setup_of(key: GroupKey) -> tuple[KeyValue, ...]:
    return tuple(getattr(key, f) for f in SETUP_FIELDS)


def answer_sources(group: RunGroup) -> dict[str, frozenset[str]]:
    """Per benchmark, the tasks whose answers the group's logs hold."""
    sources: dict[str, set[str]] = {}
    for log in group.logs:
        sources.setdefault(log.benchmark, set()).add(log.answer_source or log.task_id)
    return {b: frozenset(s) for b, s in sources.items()}


def order_judges(labels: Sequence[str], counts: Mapping[str, int]) -> list[str]:
    """The protocol's judge first when present, else the judge of the most groups."""
    return sorted(labels, key=lambda j: (j != DEFAULT_JUDGE_MODEL, -counts.get(j, 0), j))


@dataclass(frozen=True)
class JudgeSet:
    """One set-up; `groups[model][judge]` are the run groups to compare."""

    setup: tuple[KeyValue, ...]
    judges: tuple[str, ...]
    models: tuple[str, ...]
    groups: Mapping[str, Mapping[str, RunGroup]]
    excluded: tuple[tuple[str, str], ...]  # (group description, reason)


def find_judge_sets(groups: Sequence[RunGroup]) -> tuple[list[JudgeSet], list[tuple[str, str]]]:
    """Judge sets with two or more judges; groups left out with the reason why."""
    sets, excluded = _judge_sets(groups)
    return sets, [(description, reason) for _, description, reason in excluded]


def left_out_of_judge_sets(groups: Sequence[RunGroup]) -> dict[int, str]:
    """Why each group a judge set leaves out is left out, by group index: the model comparison
    drops another judge's groups, and one that no judge comparison holds must say why."""
    _, excluded = _judge_sets(groups)
    place = {id(g): i for i, g in enumerate(groups)}
    return {place[id(g)]: reason for g, _, reason in excluded}


def _judge_sets(
    groups: Sequence[RunGroup],
) -> tuple[list[JudgeSet], list[tuple[RunGroup, str, str]]]:
    """`find_judge_sets`, each group left out given with its description and reason."""
    excluded: list[tuple[RunGroup, str, str]] = []
    by_setup: dict[tuple[KeyValue, ...], list[RunGroup]] = {}
    for g in groups:
        if g.key.judge_model.startswith(MIXED_PREFIX):
            excluded.append(
                (
                    g,
                    f"{g.key.answer_model} judged by {g.key.judge_model[len(MIXED_PREFIX) :]}",
                    "its cases were scored by several judges; re-judge it with one judge",
                )
            )
            continue
        by_setup.setdefault(setup_of(g.key), []).append(g)
    sets = []
    for setup, members in by_setup.items():
        counts: dict[str, int] = {}
        for g in members:
            counts[judge_label(g.key)] = counts.get(judge_label(g.key), 0) + 1
        if len(counts) < 2:
            continue
        judges = order_judges(list(counts), counts)
        set_excluded: list[tuple[RunGroup, str, str]] = []
        table: dict[str, dict[str, RunGroup]] = {}
        for model in sorted({g.key.answer_model for g in members}):
            mine = {judge_label(g.key): g for g in members if g.key.answer_model == model}
            ref = next((j for j in judges if j in mine), None)
            if ref is None or len(mine) < 2:
                continue
            kept = {ref: mine[ref]}
            for judge, g in mine.items():
                if judge == ref:
                    continue
                if answer_sources(g) != answer_sources(mine[ref]):
                    set_excluded.append(
                        (
                            g,
                            f"{model} judged by {judge}",
                            f"its answers are not those {ref} judged (another answer run)",
                        )
                    )
                else:
                    kept[judge] = g
            if len(kept) >= 2:
                table[model] = kept
        if table:
            present = [j for j in judges if any(j in t for t in table.values())]
            left_out = tuple((d, r) for _, d, r in set_excluded)
            sets.append(JudgeSet(setup, tuple(present), tuple(table), table, left_out))
        excluded += set_excluded
    return sets, excluded


# --------------------------------------------------------------------------------------------
# paired cases


def common_cases(groups: Sequence[RunGroup], benchmark: str) -> list[tuple[CaseRecord, ...]] | None:
    """Per case completed by every group (dataset order), the groups' records of it."""
    if any(benchmark not in g.benchmarks for g in groups):
        return None
    maps = [g.benchmarks[benchmark].by_case() for g in groups]
    ids = groups[0].benchmarks[benchmark].case_ids
    return [tuple(m[i] for m in maps) for i in ids if all(i in m for m in maps)]


def score_of(case: CaseRecord) -> float:
    """A completed case's score (the groups hold completed cases only)."""
    if case.score is None:
        raise ValueError(f"case {case.case_id} has no score")
    return float(case.score)


def _score_entry(scores: Sequence[float], options: BootstrapOptions) -> Score:
    arr = np.array(scores, dtype=np.float64)
    if not arr.size:
        return Score(n=0, mean=None, ci95=None)
    ci = percentile_bootstrap(arr, options.resamples, options.seed)
    return Score(n=int(arr.size), mean=float(arr.mean()), ci95=list(ci.as_tuple()))


def _overall_entry(strata: Sequence[Sequence[float]], options: BootstrapOptions) -> Score | None:
    if len(strata) != len(BENCHMARK_NAMES) or any(not s for s in strata):
        return None
    arrays = [np.array(s, dtype=np.float64) for s in strata]
    ci = stratified_bootstrap(arrays, options.resamples, options.seed)
    return Score(
        n=int(sum(a.size for a in arrays)), mean=macro_mean(arrays), ci95=list(ci.as_tuple())
    )


def _effect(diffs: Sequence[float], options: BootstrapOptions) -> Effect:
    if not diffs:
        return Effect(n=0, b_minus_a=None, ci95=None, excludes_zero=None)
    r = paired_bootstrap_single(np.array(diffs), options.resamples, options.seed)
    return Effect(
        n=len(diffs),
        b_minus_a=r.estimate,
        ci95=list(r.interval.as_tuple()),
        excludes_zero=r.excludes_zero,
    )


def model_entry(
    model: str, judges: Sequence[str], groups: Mapping[str, RunGroup], options: BootstrapOptions
) -> ModelJudges:
    """Means on the cases every judge completed, and each pair's paired judge effect."""
    present = [j for j in judges if j in groups]
    ordered = [groups[j] for j in present]
    names = [b for b in BENCHMARK_NAMES if all(b in g.benchmarks for g in ordered)]
    per_judge: dict[str, dict[str, Score]] = {j: {} for j in present}
    strata: dict[str, list[list[float]]] = {j: [] for j in present}
    for name in names:
        rows = common_cases(ordered, name) or []
        for k, judge in enumerate(present):
            scores = [score_of(r[k]) for r in rows]
            per_judge[judge][name] = _score_entry(scores, options)
            strata[judge].append(scores)
    effects = []
    for a, b in itertools.combinations(range(len(present)), 2):
        benchmarks: dict[str, Effect] = {}
        diff_strata: list[list[float]] = []
        for name in names:
            rows = common_cases([ordered[a], ordered[b]], name) or []
            diffs = [score_of(r[1]) - score_of(r[0]) for r in rows]
            benchmarks[name] = _effect(diffs, options)
            diff_strata.append(diffs)
        overall = None
        if len(diff_strata) == len(BENCHMARK_NAMES) and all(diff_strata):
            r = paired_bootstrap(
                [np.array(d) for d in diff_strata], options.resamples, options.seed
            )
            overall = Effect(
                n=sum(len(d) for d in diff_strata),
                b_minus_a=r.estimate,
                ci95=list(r.interval.as_tuple()),
                excludes_zero=r.excludes_zero,
            )
        effects.append(
            JudgeEffect(a=present[a], b=present[b], benchmarks=benchmarks, overall=overall)
        )
    return ModelJudges(
        answer_model=model,
        judges={
            j: JudgeScores(benchmarks=per_judge[j], overall=_overall_entry(strata[j], options))
            for j in present
        },
        effects=effects,
    )


# --------------------------------------------------------------------------------------------
# item agreement


@dataclass(frozen=True)
class ItemRow:
    benchmark: str
    case: tuple[str, str, int]  # (answer model, case id, epoch): one answer
    item_id: str
    points: int | None
    decisions: tuple[bool, ...]  # one per judge, in judge order


def _epochs(record: CaseRecord) -> tuple[CaseRecord, ...]:
    return record.epoch_records or (record,)


def item_rows(
    judge_set: JudgeSet, judges: Sequence[str], points: ItemPoints, rubrics: RubricItems
) -> tuple[list[ItemRow], Coverage]:
    """Every rubric item of every case (each epoch) all `judges` completed, for every answer
    model, and what that covers: a case or item left out is counted, never dropped unseen."""
    rows: list[ItemRow] = []
    cases = decided = expected = 0
    for model in judge_set.models:
        table = judge_set.groups[model]
        if not all(j in table for j in judges):
            continue
        ordered = [table[j] for j in judges]
        for name in BENCHMARK_NAMES:
            for records in common_cases(ordered, name) or []:
                per_epoch = zip(*(_epochs(r) for r in records), strict=False)
                for epoch, epoch_records in enumerate(per_epoch, start=1):
                    cases += 1
                    maps = [r.decisions for r in epoch_records]
                    rubric = rubrics.get((name, records[0].case_id))
                    if rubric is None:  # not read: the items any judge decided
                        rubric = tuple({i: None for m in maps if m for i in m})
                    expected += len(rubric)
                    # an answer without text was decided by no judge (scored as stating nothing)
                    if any(m is None for m in maps) or any(r.answer_empty for r in epoch_records):
                        continue
                    decided += 1
                    for item in rubric:
                        if all(item in m for m in maps if m is not None):
                            rows.append(
                                ItemRow(
                                    name,
                                    (model, records[0].case_id, epoch),
                                    item,
                                    points.get(item),
                                    tuple(bool(m[item]) for m in maps if m is not None),
                                )
                            )
    return rows, Coverage.of(cases, decided, len(rows), expected)


def _n_cases(rows: Sequence[ItemRow]) -> int:
    """Answers the items come from: a case of each answer model and epoch, as `Coverage`."""
    return len({(r.benchmark, r.case) for r in rows})


def _agreement(rows: Sequence[ItemRow]) -> PairStatistic:
    if not rows:
        return PairStatistic(n_items=0, n_cases=0, agreement=None, kappa=None)
    a = [r.decisions[0] for r in rows]
    b = [r.decisions[1] for r in rows]
    agree = sum(1 for x, y in zip(a, b, strict=True) if x == y) / len(rows)
    return PairStatistic(
        n_items=len(rows), n_cases=_n_cases(rows), agreement=agree, kappa=cohen_kappa(a, b)
    )


def _fleiss(rows: Sequence[ItemRow]) -> FleissStatistic:
    if not rows:
        return FleissStatistic(n_items=0, n_cases=0, unanimous=None, kappa=None)
    decisions = [list(r.decisions) for r in rows]
    return FleissStatistic(
        n_items=len(rows),
        n_cases=_n_cases(rows),
        unanimous=unanimous_fraction(decisions),
        kappa=fleiss_kappa(pass_fail_counts(decisions)),
    )


Statistic = TypeVar("Statistic", PairStatistic, FleissStatistic)


def _breakdown(
    rows: Sequence[ItemRow], measure: Callable[[Sequence[ItemRow]], Statistic]
) -> tuple[Statistic, dict[str, Statistic], dict[str, Statistic]]:
    """`measure` overall, per benchmark and per point value."""
    values = sorted({r.points for r in rows if r.points is not None}, reverse=True)
    benchmarks = {
        name: measure([r for r in rows if r.benchmark == name])
        for name in BENCHMARK_NAMES
        if any(r.benchmark == name for r in rows)
    }
    points = {f"{p:+d}": measure([r for r in rows if r.points == p]) for p in values}
    return measure(rows), benchmarks, points


def agreement_entries(
    judge_set: JudgeSet, points: ItemPoints, rubrics: RubricItems | None = None
) -> Agreement:
    rubrics = rubrics or {}
    pairs = []
    for a, b in itertools.combinations(judge_set.judges, 2):
        rows, coverage = item_rows(judge_set, [a, b], points, rubrics)
        overall, by_benchmark, by_points = _breakdown(rows, _agreement)
        pairs.append(
            PairAgreement(
                a=a,
                b=b,
                coverage=coverage,
                overall=overall,
                benchmarks=by_benchmark,
                points=by_points,
            )
        )
    fleiss = None
    if len(judge_set.judges) >= 3:
        rows, coverage = item_rows(judge_set, judge_set.judges, points, rubrics)
        overall_f, benchmarks_f, points_f = _breakdown(rows, _fleiss)
        fleiss = FleissAgreement(
            judges=list(judge_set.judges),
            coverage=coverage,
            overall=overall_f,
            benchmarks=benchmarks_f,
            points=points_f,
        )
    return Agreement(pairs=pairs, fleiss=fleiss)


# --------------------------------------------------------------------------------------------
# rankings


def rank_scores(
    models: Sequence[ModelJudges], judges: Sequence[str]
) -> tuple[str, dict[str, dict[str, float]]]:
    """Per judge, each model's score to rank by: the overall mean when every model has one
    under every judge, else the mean of the benchmark means all of them share."""

    def overall(m: ModelJudges, j: str) -> float | None:
        entry = m.judges[j].overall if j in m.judges else None
        return entry.mean if entry is not None else None

    def mean(m: ModelJudges, j: str, b: str) -> float | None:
        entry = m.judges[j].benchmarks.get(b) if j in m.judges else None
        return entry.mean if entry is not None else None

    overalls = {
        j: {m.answer_model: v for m in models if (v := overall(m, j)) is not None} for j in judges
    }
    if all(len(overalls[j]) == len(models) for j in judges):
        return "overall", overalls
    shared = [
        b for b in BENCHMARK_NAMES if all(mean(m, j, b) is not None for m in models for j in judges)
    ]
    if not shared:
        return "none", {}
    return "mean of shared benchmark means: " + ", ".join(shared), {
        j: {m.answer_model: float(np.mean([mean(m, j, b) for b in shared])) for m in models}
        for j in judges
    }


def ranking_entry(models: Sequence[ModelJudges], judges: Sequence[str]) -> Ranking | None:
    usable = [m for m in models if all(j in m.judges for j in judges)]
    if len(usable) < 2:
        return None
    basis, scores = rank_scores(usable, judges)
    if not scores:
        return None
    names = [m.answer_model for m in usable]
    pairs = []
    for a, b in itertools.combinations(judges, 2):
        x = [scores[a][n] for n in names]
        y = [scores[b][n] for n in names]
        swapped = [
            [names[i], names[k]]
            for i, k in itertools.combinations(range(len(names)), 2)
            if np.sign(x[i] - x[k]) != np.sign(y[i] - y[k])
        ]
        pairs.append(RankPair(a=a, b=b, kendall_tau=kendall_tau(x, y), swapped=swapped))
    return Ranking(
        basis=basis,
        order={j: sorted(names, key=lambda n: (-scores[j][n], n)) for j in judges},
        scores=scores,
        pairs=pairs,
        changes=any(p.swapped for p in pairs),
    )


# --------------------------------------------------------------------------------------------
# the document


def judge_comparison(
    groups: Sequence[RunGroup],
    options: BootstrapOptions,
    points: ItemPoints,
    rubrics: RubricItems | None = None,
) -> JudgesDocument | None:
    """`judges.json`, or None when no answers were judged by more than one judge."""
    sets, excluded = find_judge_sets(groups)
    if not sets:
        return None
    comparisons = []
    for js in sets:
        models = [model_entry(m, js.judges, js.groups[m], options) for m in js.models]
        comparisons.append(
            JudgeComparison(
                setup=JudgeSetup.model_validate(dict(zip(SETUP_FIELDS, js.setup, strict=True))),
                judges=list(js.judges),
                answer_models=list(js.models),
                models=models,
                agreement=agreement_entries(js, points, rubrics),
                ranking=ranking_entry(models, js.judges),
            )
        )
    return JudgesDocument(
        bootstrap=BootstrapSettings.of(options.resamples, options.seed),
        comparisons=comparisons,
        excluded=[ExcludedGroup(group=g, reason=r) for g, r in excluded],
    )


def cross_judge(groups: Sequence[RunGroup], options: BootstrapOptions) -> JudgesDocument | None:
    """`judge_comparison` with the item point values read from the logs (only when needed)."""
    sets, _ = find_judge_sets(groups)
    if not sets:
        return None
    members = [g for js in sets for table in js.groups.values() for g in table.values()]
    points, rubrics = read_rubrics(members)
    return judge_comparison(groups, options, points, rubrics)


def reference_groups(groups: Sequence[RunGroup]) -> list[int]:
    """Which groups the model comparison takes: when the groups differ only in the judge and
    every answer model has the reference judge's group, those groups (the judge comparison
    covers the rest); else all of them (and the comparison refuses as before)."""
    everything = list(range(len(groups)))
    setups = {setup_of(g.key) for g in groups}
    judges = {judge_label(g.key) for g in groups}
    if len(setups) != 1 or len(judges) < 2:
        return everything
    counts: dict[str, int] = {}
    for g in groups:
        counts[judge_label(g.key)] = counts.get(judge_label(g.key), 0) + 1
    ref = order_judges(list(judges), counts)[0]
    picked = [i for i, g in enumerate(groups) if judge_label(g.key) == ref]
    models = {g.key.answer_model for g in groups}
    if {groups[i].key.answer_model for i in picked} != models:
        return everything
    return picked


def read_rubrics(
    groups: Sequence[RunGroup],
) -> tuple[dict[str, int], dict[tuple[str, str], tuple[str, ...]]]:
    """Point value of every rubric item and the items of every case's rubric, from the sample
    metadata of the groups' logs (item ids are unique to their case): logs are read one by one
    until every case of the groups is known. Read only when there is a judge comparison."""

    points: dict[str, int] = {}
    rubrics: dict[tuple[str, str], tuple[str, ...]] = {}
    wanted = {(name, i) for g in groups for name, b in g.benchmarks.items() for i in b.case_ids}
    read: set[str] = set()
    for g in groups:
        for log in g.logs:
            location = log.location.split("#", 1)[0]
            if location in read or all(k in rubrics for k in wanted if k[0] == log.benchmark):
                continue
            read.add(location)
            full = read_eval_log(
                location, exclude_fields={"messages", "events", "attachments", "store", "output"}
            )
            for sample in full.samples or []:
                items = [
                    item
                    for item in (sample.metadata or {}).get(RUBRIC_ITEMS_KEY, [])
                    if isinstance(item, dict) and isinstance(item.get("item_id"), str)
                ]
                rubrics[(log.benchmark, str(sample.id))] = tuple(i["item_id"] for i in items)
                for item in items:
                    if isinstance(item.get("points"), int):
                        points[str(item["item_id"])] = int(item["points"])
    return points, rubrics
