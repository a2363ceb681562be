"""Real Inspect logs of the ten tasks for the report tests, hand-built records for the pure
ones, and an independent recomputation.

Models are scripted in-process (no network): `bbscript/<name>` is a tiny Inspect model API whose
replies come from `BRAIN`, a callable with mockllm's `custom_outputs` signature
(input, tools, tool_choice, config) -> ModelOutput. It is a registered provider rather than
`mockllm/model` because `inspect_ai.eval_retry` rebuilds models from the log by name, and a
callable passed to mockllm is not recorded in the log. Usage is always set on the output
(mockllm would otherwise count tokens with tiktoken, which downloads an encoding).

`log_record` and `case_record` build the report's records directly (no log written), for the
tests of grouping, statistics and rendering.

The recomputation (`expected_*`) reads full logs with `read_eval_log` and redoes the statistics
with plain numpy, never through `bedside_bench.report` or `bedside_bench.scoring.stats`.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import statistics
import threading
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st
from inspect_ai import eval as inspect_eval
from inspect_ai import eval_retry
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.documents.summary import RunSummary
from bedside_bench.doubles.script import parse_judge_user
from bedside_bench.logs.records import CaseRecord, LogRecord
from bedside_bench.report.document import ReportContext
from bedside_bench.report.groups import RunGroup, group_records
from bedside_bench.report.run import Analysis, ReportDocuments
from bedside_bench.report.summary import BootstrapOptions, summarise
from bedside_bench.task import tasks as bedside_tasks
from tests.scripted_model import InProcessAPI, Outputs

JUDGE_PREFIX = "You are grading a clinical answer"
RUBRIC_LINE = re.compile(r"^\[([^\]]+)\] points=([+-]\d+) :: ", re.MULTILINE)
# the tokens of every scripted answer and judge call (also as the report's `TokenUsage`)
ANSWER_TOKENS = {
    "input_tokens": 100,
    "output_tokens": 20,
    "input_tokens_cache_read": 40,
    "reasoning_tokens": 8,
    "total_tokens": 160,
}
JUDGE_TOKENS = {"input_tokens": 300, "output_tokens": 30, "total_tokens": 330}
ANSWER_USAGE = ModelUsage(**ANSWER_TOKENS)
JUDGE_USAGE = ModelUsage(**JUDGE_TOKENS)
JUDGE = "bbscript/judge"


def _hash(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def prompt_md5(prompt: str) -> str:
    return hashlib.md5(prompt.encode("utf-8")).hexdigest()


@dataclass
class Brain:
    """Scripted answers and judge decisions.

    The answer names the answering model, so decisions (a hash of answer and item id) differ
    between models. The judge answers with invalid JSON for every prompt whose md5 is in
    `poisoned` (item ids start with md5(prompt)), so those samples error when judge_retries=0.
    With `flip_percent` the judge is noisy: the k-th judging of an answer flips each decision
    whose hash with k falls under it, so repeated passes disagree (which pass is the k-th
    depends on the order the calls arrive in: read the decisions back from the log).
    """

    poisoned: set[str] = field(default_factory=set)
    match_percent: int = 55
    flip_percent: int = 0
    calls: dict[str, int] = field(default_factory=dict)
    judged: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, model: str) -> Outputs:
        def outputs(
            input: list[ChatMessage],
            tools: list[ToolInfo],
            tool_choice: ToolChoice,
            config: GenerateConfig,
        ) -> ModelOutput:
            system = input[0].text if input and input[0].role == "system" else ""
            user = input[-1].text
            with self.lock:
                self.calls[model] = self.calls.get(model, 0) + 1
            if system.startswith(JUDGE_PREFIX):
                ids = [m.group(1) for m in RUBRIC_LINE.finditer(user)]
                if any(md5 in user for md5 in self.poisoned):
                    content = "I think the answer is fine."
                else:
                    answer = parse_judge_user(user).answer
                    with self.lock:
                        k = self.judged[answer] = self.judged.get(answer, 0) + 1
                    content = json.dumps(
                        {
                            "decisions": [
                                {
                                    "item_id": i,
                                    "matched": (_hash(f"{answer}|{i}") % 100 < self.match_percent)
                                    != (_hash(f"{answer}|{i}|{k}") % 100 < self.flip_percent),
                                }
                                for i in ids
                            ]
                        }
                    )
                usage = JUDGE_USAGE
            else:
                content = f"{model} recommends plan {prompt_md5(user)[:10]}."
                usage = ANSWER_USAGE
            output = ModelOutput.from_content(model=model, content=content)
            output.usage = usage.model_copy()
            return output

        return outputs


BRAIN = Brain()


@modelapi(name="bbscript")
class ScriptedModelAPI(InProcessAPI):
    """`bbscript/<name>`: replies from `BRAIN`; records the temperature it was sent."""

    def outputs(self) -> Outputs:
        return BRAIN(f"bbscript/{self.model_name}")


# --------------------------------------------------------------------------------------------
# hand-built records

DIGEST = "d" * 64
STARTED_AT = "2026-01-01T00:00:00+00:00"


def case_record(
    case_id: str, score: float | None, error: str | None = None, **fields: Any
) -> CaseRecord:
    """A case that scored, or (score None) one that failed with `error` (default "failed")."""
    if score is None and error is None:
        error = "failed"
    return CaseRecord(case_id, score, error, **fields)


def log_record(
    cases: Mapping[str, float | None | CaseRecord],
    *,
    benchmark: str = "drug_safety",
    answer_model: str = "test/a",
    judge_model: str = "test/judge",
    started_at: str = STARTED_AT,
    sample_ids: Sequence[str] | None = None,
    **fields: Any,
) -> LogRecord:
    """One log's record: `cases` maps case id to a score (None: failed) or a `CaseRecord`; the
    header lists `sample_ids` (default: those cases) of a dataset that size; any other
    `LogRecord` field may be given."""
    ids = tuple(sample_ids) if sample_ids is not None else tuple(cases)
    defaults: dict[str, Any] = {
        "location": f"mem://{answer_model}/{benchmark}/{started_at}",
        "dataset_sha256": DIGEST,
        "completed_at": started_at,
        "task_id": f"{answer_model}-{benchmark}",
        "dataset_samples": len(ids),
    }
    return LogRecord(
        benchmark=benchmark,
        answer_model=answer_model,
        judge_model=judge_model,
        started_at=started_at,
        sample_ids=ids,
        cases={k: v if isinstance(v, CaseRecord) else case_record(k, v) for k, v in cases.items()},
        **{**defaults, **fields},
    )


CaseValue = float | None | CaseRecord  # a score, a failed case, or a whole record


@st.composite
def a_run(
    draw: st.DrawFn,
    model: str,
    case: Callable[[str], st.SearchStrategy[CaseValue]],
    *,
    max_cases: int = 3,
    passes: int = 1,
) -> list[LogRecord]:
    """One model's logs, for the report's property tests: a full, smoke or partial (--limit)
    run, some benchmarks maybe missing, each case drawn by `case` from its id."""
    kind = draw(st.sampled_from(["full", "full", "full", "smoke", "partial"]))
    everything = draw(st.booleans()) or kind == "smoke"
    names = (
        BENCHMARK_NAMES
        if everything
        else draw(st.lists(st.sampled_from(BENCHMARK_NAMES), min_size=1, max_size=9, unique=True))
    )
    n = 1 if kind == "smoke" else draw(st.integers(1, max_cases))
    records = []
    for name in names:
        cases = {f"{name}-{i}": draw(case(f"{name}-{i}")) for i in range(n)}
        fields: dict[str, Any] = {"task_id": f"{model}-{name}", "judge_passes": passes}
        if kind == "smoke":
            fields.update(smoke=True, dataset_samples=1)
        elif kind == "partial":
            fields.update(limit=str(n), dataset_samples=n + 2)
        records.append(log_record(cases, benchmark=name, answer_model=model, **fields))
    return records


def scores_for(benchmark: str, n: int, offset: float = 0.0) -> dict[str, float]:
    """Deterministic varied scores in [0, 1]; ids in a fixed (non-sorted) order."""
    rng = np.random.default_rng(zlib.crc32(benchmark.encode()))
    values = np.clip(rng.random(n) + offset, 0, 1)
    return {f"{benchmark}-{(7 * i) % n:03d}": float(v) for i, v in enumerate(values)}


def full_group(n: int = 25, model: str = "test/a", offset: float = 0.0) -> RunGroup:
    """One group of all ten benchmarks, `n` cases each (`scores_for`)."""
    records = [
        log_record(scores_for(b, n, offset), benchmark=b, answer_model=model)
        for b in BENCHMARK_NAMES
    ]
    (group,) = group_records(records)
    return group


# --------------------------------------------------------------------------------------------
# running the tasks


def run_tasks(
    release: Path | str,
    models: Sequence[str],
    log_dir: Path,
    benchmarks: Sequence[str] = BENCHMARK_NAMES,
    judge: str = JUDGE,
    epochs: int = 1,
    **task_args: Any,
) -> list[EvalLog]:
    """Every benchmark for every model, in-process, judge via the `grader` role (`epochs`:
    Inspect's `--epochs`)."""
    args = {"data_dir": str(release), "judge_retries": 0, **task_args}
    tasks = [getattr(bedside_tasks, name)(**args) for name in benchmarks]
    return inspect_eval(
        tasks,
        model=list(models),
        model_roles={"grader": judge},
        log_dir=str(log_dir),
        display="none",
        max_tasks=len(tasks) * len(models),
        max_samples=50,
        log_level="error",
        epochs=epochs,
    )


def retry(logs: Iterable[EvalLog], log_dir: Path) -> list[EvalLog]:
    """`inspect eval-retry` of the logs that did not succeed (a new log for each)."""
    failed = [log.location for log in logs if log.status != "success"]
    if not failed:
        return []
    return eval_retry(failed, log_dir=str(log_dir), display="none", log_level="error")


def poison(release_cases: Iterable[dict[str, Any]]) -> set[str]:
    return {prompt_md5(case["prompt"]) for case in release_cases}


# --------------------------------------------------------------------------------------------
# independent recomputation from the logs


def _score(sample: Any) -> float | None:
    if sample.error is not None or not sample.scores or "rubric_judge" not in sample.scores:
        return None
    return float(sample.scores["rubric_judge"].value)


def expected_cases(
    log_dir: Path, answer_model: str
) -> dict[str, tuple[list[str], dict[str, dict[str, Any]]]]:
    """Per benchmark: case ids in dataset order, and {case_id: score metadata + value} of the
    newest successful sample of each case, from fully read logs (each log's header says whose
    it is: only that model's logs are read in full)."""
    infos = list_eval_logs(str(log_dir))
    mine_only = [
        info.name
        for info in infos
        if read_eval_log(info.name, header_only=True).eval.model == answer_model
    ]
    logs = [read_eval_log(name) for name in mine_only]
    assert all(log.eval.model == answer_model for log in logs)
    logs.sort(key=lambda log: datetime.fromisoformat(log.stats.started_at), reverse=True)
    result: dict[str, tuple[list[str], dict[str, dict[str, Any]]]] = {}
    for name in BENCHMARK_NAMES:
        mine = [log for log in logs if log.eval.task.split("/")[-1] == name]
        if not mine:
            continue
        longest = max(mine, key=lambda log: len(log.eval.dataset.sample_ids or []))
        ids = [str(i) for i in longest.eval.dataset.sample_ids or []]
        scored: dict[str, dict[str, Any]] = {}
        for log in mine:  # newest first: keep the first success seen
            for sample in log.samples or []:
                value = _score(sample)
                if value is not None and sample.scores and str(sample.id) not in scored:
                    meta = dict(sample.scores["rubric_judge"].metadata or {})
                    scored[str(sample.id)] = {**meta, "value": value}
        result[name] = (ids, scored)
    return result


def expected_interval(
    scores: Sequence[float], resamples: int = 10_000, seed: int = 42
) -> list[float]:
    values = np.asarray(scores, dtype=float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(values), size=(resamples, len(values)))
    return [float(x) for x in np.percentile(values[idx].mean(axis=1), [2.5, 97.5])]


def expected_stratified(
    strata: Sequence[Sequence[float]], resamples: int = 10_000, seed: int = 42
) -> list[float]:
    rng = np.random.default_rng(seed)
    means = []
    for stratum in strata:
        values = np.asarray(stratum, dtype=float)
        idx = rng.integers(0, len(values), size=(resamples, len(values)))
        means.append(values[idx].mean(axis=1))
    overall = np.stack(means).mean(axis=0)
    return [float(x) for x in np.percentile(overall, [2.5, 97.5])]


Cases = dict[str, tuple[list[str], dict[str, dict[str, Any]]]]


def expected_summary_numbers(
    log_dir: Path,
    answer_model: str,
    resamples: int = 10_000,
    seed: int = 42,
    cases: Cases | None = None,
) -> dict[str, Any]:
    """Per benchmark mean, interval, n, failed; overall macro-average and interval (`cases`:
    `expected_cases(log_dir, answer_model)` when the caller has already read them)."""
    benchmarks: dict[str, Any] = {}
    strata = []
    if cases is None:
        cases = expected_cases(log_dir, answer_model)
    for name, (ids, scored) in cases.items():
        scores = [scored[i]["value"] for i in ids if i in scored]
        benchmarks[name] = {
            "n": len(scores),
            "failed": len([i for i in ids if i not in scored]),
            "mean": float(np.mean(scores)),
            "ci95": expected_interval(scores, resamples, seed),
        }
        strata.append(scores)
    overall = None
    if len(strata) == len(BENCHMARK_NAMES):
        overall = {
            "mean": float(np.mean([np.mean(s) for s in strata])),
            "ci95": expected_stratified(strata, resamples, seed),
            "n": sum(len(s) for s in strata),
        }
    return {"benchmarks": benchmarks, "overall": overall}


# one case as the intervals over cases and judge passes or epochs read it: its score in each
# epoch, and each epoch's pass scores (None: one judge pass)
JointCase = tuple[list[float], list[list[float]] | None]
JOINT_BLOCK = 1_000  # resamples drawn at once (docs/statistics.md)


def _mean_in_order(values: Sequence[float]) -> float:
    """Added left to right, then divided: the order docs/statistics.md gives."""
    total = values[0]
    for v in values[1:]:
        total += v
    return total / len(values)


def expected_joint(
    strata: Sequence[Sequence[float]],
    sources: Sequence[Sequence[tuple[float, Sequence[JointCase]]]],
    over: str,
    resamples: int = 10_000,
    seed: int = 42,
) -> tuple[float, float]:
    """The interval over cases and judge passes (`over="judge"`) or epochs, written from
    docs/statistics.md one drawn case at a time: the protocol's case draws, then per block of
    resamples and per source (a model; A then B for a difference, signs +1 and -1) each drawn
    case's pass draw as one code whose base-K digits are the passes, then its epochs; each
    resampled mean kept within [0, 1] (a difference: [-1, 1])."""
    case_rng = np.random.default_rng(seed)
    within_rng = np.random.default_rng([seed, 1])
    per_stratum = []
    for scores, stratum_sources in zip(strata, sources, strict=True):
        n = len(scores)
        idx = case_rng.integers(0, n, size=(resamples, n))
        shift = [[0.0] * n for _ in range(resamples)]
        for start in range(0, resamples, JOINT_BLOCK):
            rows = list(range(start, min(start + JOINT_BLOCK, resamples)))
            for sign, cases in stratum_sources:
                epochs = len(cases[0][0])
                first_passes = cases[0][1]
                if over == "judge" and first_passes is None:
                    continue
                k = len(first_passes[0]) if first_passes is not None else 0
                codes = (
                    within_rng.integers(0, k**k, size=(len(rows), n, epochs))
                    if first_passes is not None
                    else None
                )
                picks = (
                    within_rng.integers(0, epochs, size=(len(rows), n, epochs))
                    if over == "epochs"
                    else None
                )
                for a, row in enumerate(rows):
                    for j in range(n):
                        ys, ss = cases[int(idx[row, j])]
                        values = []
                        for e in range(epochs):
                            value = ys[e]
                            if ss is not None and codes is not None:
                                u = int(codes[a, j, e])
                                drawn = [ss[e][(u // k ** (k - 1 - d)) % k] for d in range(k)]
                                value = value + (_mean_in_order(drawn) - _mean_in_order(ss[e]))
                            values.append(value)
                        if picks is not None:
                            values = [values[int(picks[a, j, e])] for e in range(epochs)]
                        shift[row][j] += sign * (_mean_in_order(values) - _mean_in_order(ys))
        per_stratum.append(
            [
                float(np.mean([scores[int(idx[row, j])] + shift[row][j] for j in range(n)]))
                for row in range(resamples)
            ]
        )
    overall = np.stack([np.array(m) for m in per_stratum]).mean(axis=0)
    paired = any(sign < 0 for stratum in sources for sign, _ in stratum)
    low = -1.0 if paired else 0.0
    kept = [min(1.0, max(low, float(m))) for m in overall]
    lo, hi = np.percentile(kept, [2.5, 97.5])
    return float(lo), float(hi)


def expected_cases_needed(strata: Sequence[Sequence[float]]) -> int | None:
    """Paired cases for 80% power at the two-sided 5% level, from docs/statistics.md: the
    stratified normal approximation, every stratum grown in proportion, at least two cases a
    stratum (plain Python: `statistics`, not numpy)."""
    if any(len(s) < 2 for s in strata):
        return None
    difference = statistics.fmean(statistics.fmean(s) for s in strata)
    if abs(difference) <= 1e-12:  # a zero within the rounding of float sums of fractions
        return None
    normal = statistics.NormalDist()
    z = normal.inv_cdf(0.975) + normal.inv_cdf(0.80)
    variance = sum(statistics.variance(s) / len(s) for s in strata) / len(strata) ** 2
    paired = sum(len(s) for s in strata)
    return max(math.ceil(z**2 * variance / difference**2 * paired), 2 * len(strata))


def cases_needed_text(needed: int | None, n: int, difference: float | None = None) -> str:
    """What a `not distinguishable` verdict line adds: the paired cases needed, two
    significant figures from 100 on, and how many times the cases paired; for a difference of
    exactly 0, that none would do."""
    if needed is None:
        if difference == 0.0:
            return "; they score the same on them, a difference no number of cases detects"
        return ""
    magnitude = 10 ** (len(str(needed)) - 2) if needed >= 100 else 1
    shown = f"{(needed + magnitude // 2) // magnitude * magnitude:,}"
    return (
        f"; about {shown} paired cases would be needed to detect a difference of this size "
        f"(80% power), {needed / n:,.1f}x these"
    )


# a pair of runs judged once per answer, one epoch: nothing varies within a case
NO_JOINT: dict[str, Any] = {"ci95_cases_and_judge": None, "ci95_cases_and_epochs": None}


def verdict(lo: float, hi: float, n: int) -> dict[str, Any]:
    """The protocol's reading of a paired interval: no verdict on fewer than 10 pairs."""
    if n < 10:
        return {"excludes_zero": None, "verdict_withheld": f"fewer than 10 paired cases (n={n})"}
    return {"excludes_zero": lo > 0 or hi < 0, "verdict_withheld": None}


def expected_paired(
    log_dir: Path,
    a: str,
    b: str,
    resamples: int = 10_000,
    seed: int = 42,
    cases: Mapping[str, Cases] | None = None,
) -> dict[str, Any]:
    """A minus B on the cases both completed, per benchmark and stratified overall (both
    groups full runs, one judge pass and one epoch: no interval over passes or epochs;
    `cases`: `expected_cases` by answer model when the caller has already read them)."""
    if cases is None:
        cases = {a: expected_cases(log_dir, a), b: expected_cases(log_dir, b)}
    cases_a, cases_b = cases[a], cases[b]
    result: dict[str, Any] = {}
    strata = []
    for name, (ids, scored_a) in cases_a.items():
        scored_b = cases_b[name][1]
        diffs = [
            scored_a[i]["value"] - scored_b[i]["value"]
            for i in ids
            if i in scored_a and i in scored_b
        ]
        lo, hi = expected_interval(diffs, resamples, seed)
        result[name] = {
            "n": len(diffs),
            "difference": float(np.mean(diffs)),
            "ci95": [lo, hi],
            **NO_JOINT,
            "cases_needed_for_80_power": expected_cases_needed([diffs]),
            **verdict(lo, hi, len(diffs)),
        }
        strata.append(diffs)
    lo, hi = expected_stratified(strata, resamples, seed)
    n = sum(len(s) for s in strata)
    result["overall"] = {
        "n": n,
        "difference": float(np.mean([np.mean(s) for s in strata])),
        "ci95": [lo, hi],
        **NO_JOINT,
        "cases_needed_for_80_power": expected_cases_needed(strata),
        **verdict(lo, hi, n),
    }
    return result


def run_summary(**fields: Any) -> RunSummary:
    """A valid summary (of a one-case-per-benchmark group) with `fields` replaced, each
    validated as the summary's own field would be."""
    base = summarise(full_group(n=1), BootstrapOptions(resamples=10, seed=1))
    return RunSummary.model_validate({**dict(base), **fields})


def context_of(analysis: Analysis, png: bytes | None = None) -> ReportContext:
    """What the report's sections read for `analysis` alone (no judges, review, estimate or
    prices), built the way `bedside-bench report` builds it."""
    return ReportDocuments(
        analysis=analysis,
        judges=None,
        review=None,
        estimates=[],
        png=png,
        skipped=[],
        prices=None,
    ).context()
