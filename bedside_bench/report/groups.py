"""Run groups and completeness (pure functions).

A run group is everything that must match for case scores to be pooled: answer model, judge
model, protocol version, dataset digest, grading options, epochs and the release. Within a group
each case takes the newest successful score found in any of its logs, so a case that errored and
was later completed by `inspect eval-retry` or `eval_set` counts once, as completed. A case no log
scored is failed: it is left out of means and counted, never scored 0.

A group is complete only when every case of every benchmark ran and scored: a run limited by
`--limit`, `--sample-id` or `smoke` never is, and its scope says how many of how many cases ran.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bedside_bench.core.answer_condition import NO_ANSWER_PREFIX
from bedside_bench.core.benchmarks import BENCHMARK_NAMES, get_benchmark
from bedside_bench.core.contracts import GradingMethod
from bedside_bench.core.safe_text import printable
from bedside_bench.logs.group_key import GroupKey
from bedside_bench.logs.records import FOREIGN_SCORES_MARK, CaseRecord, LogRecord, newest_first

SCOPE_REASONS = ("smoke", "limit", "sample_id", "unknown")


@dataclass(frozen=True)
class BenchmarkEvidence:
    """One benchmark of one group: which cases were expected, completed and failed."""

    benchmark: str
    grading_method: GradingMethod
    case_ids: tuple[str, ...]  # every expected case, in dataset order
    completed: tuple[CaseRecord, ...]  # newest successful score per case, in dataset order
    failed: tuple[str, ...]
    logs: tuple[str, ...]
    # how many cases the benchmark has (None: the logs do not say) and why fewer ran
    cases_in_benchmark: int | None = None
    scope_reasons: tuple[str, ...] = ()
    limits: tuple[str, ...] = ()  # the --limit values of the logs, as given
    # failed cases whose newest record says their answer never came (`answer_condition`)
    no_answer: tuple[str, ...] = ()
    # failed cases whose newest scores another scorer wrote (`inspect score --scorer match`)
    rescored: tuple[str, ...] = ()

    @property
    def cases_run(self) -> int:
        return len(self.case_ids)

    @property
    def full(self) -> bool:
        """Every case of the benchmark ran (smoke never counts as full)."""
        return (
            "smoke" not in self.scope_reasons
            and self.cases_in_benchmark is not None
            and self.cases_run >= self.cases_in_benchmark
        )

    @property
    def scores(self) -> list[float]:
        return [c.score for c in self.completed if c.score is not None]

    def by_case(self) -> dict[str, CaseRecord]:
        return {c.case_id: c for c in self.completed}


@dataclass(frozen=True)
class RunGroup:
    key: GroupKey
    logs: tuple[LogRecord, ...]  # oldest first
    benchmarks: Mapping[str, BenchmarkEvidence]  # registry order, present benchmarks only

    def failed_case_errors(self) -> list[str | None]:
        """The newest error recorded for each failed case (None where no log has one)."""
        newest = newest_first(self.logs)
        return [
            next((log.cases[case].error for log in newest if case in log.cases), None)
            for evidence in self.benchmarks.values()
            for case in evidence.failed
        ]

    @property
    def log_folder(self) -> str:
        """The folder of the group's newest log (what a follow-up command is pointed at)."""
        return self.logs[-1].location.rsplit("/", 1)[0] if self.logs else "LOG_DIR"

    @property
    def missing_benchmarks(self) -> list[str]:
        return [name for name in BENCHMARK_NAMES if name not in self.benchmarks]

    @property
    def cases_completed(self) -> int:
        return sum(len(b.completed) for b in self.benchmarks.values())

    @property
    def cases_failed(self) -> int:
        return sum(len(b.failed) for b in self.benchmarks.values())

    @property
    def full_scope(self) -> bool:
        return not self.missing_benchmarks and all(b.full for b in self.benchmarks.values())

    @property
    def complete(self) -> bool:
        return self.cases_failed == 0 and self.full_scope


def expected_case_ids(logs: Sequence[LogRecord]) -> tuple[str, ...]:
    """Union of the logs' dataset ids in dataset order.

    The longest listing (newest on ties) leads, so a full run's order wins over a run limited to
    a prefix; ids only other logs know are appended.
    """
    ordered = sorted(newest_first(logs), key=lambda r: len(r.sample_ids), reverse=True)
    ids: dict[str, None] = {}
    for log in ordered:
        ids.update(dict.fromkeys(log.sample_ids))
    for log in ordered:
        ids.update(dict.fromkeys(log.cases))
    return tuple(ids)


def cases_in_benchmark(benchmark: str, logs: Sequence[LogRecord]) -> int | None:
    """From the release's own count when the task recorded it (newest log first), else from
    the dataset size Inspect recorded before any --limit / --sample-id (not for smoke, whose
    dataset is already cut to one case)."""
    for log in newest_first(logs):
        if log.release_case_counts is not None and benchmark in log.release_case_counts:
            return log.release_case_counts[benchmark]
    sizes = [log.dataset_samples for log in logs if not log.smoke and log.dataset_samples]
    return max(sizes) if sizes else None


def scope_reasons(logs: Sequence[LogRecord], cases_run: int, total: int | None) -> tuple[str, ...]:
    """Why fewer cases ran than the benchmark has: empty when all ran."""
    smoke = any(log.smoke for log in logs)
    if not smoke and total is not None and cases_run >= total:
        return ()
    found = {
        "smoke": smoke,
        "limit": any(log.limit is not None for log in logs),
        "sample_id": any(log.sample_id for log in logs),
    }
    reasons = tuple(r for r in SCOPE_REASONS if found.get(r))
    return reasons or ("unknown",)


def merge_benchmark(benchmark: str, logs: Sequence[LogRecord]) -> BenchmarkEvidence:
    """The newest successful score of every case across the logs of one benchmark."""
    newest = newest_first(logs)
    completed: list[CaseRecord] = []
    failed: list[str] = []
    no_answer: list[str] = []
    rescored: list[str] = []
    case_ids = expected_case_ids(logs)
    for case_id in case_ids:
        found = next(
            (
                log.cases[case_id]
                for log in newest
                if case_id in log.cases and log.cases[case_id].completed
            ),
            None,
        )
        if found is None:
            failed.append(case_id)
            newest_error = next(
                (log.cases[case_id].error for log in newest if case_id in log.cases), None
            )
            if newest_error is not None and NO_ANSWER_PREFIX in newest_error:
                no_answer.append(case_id)
            if newest_error is not None and FOREIGN_SCORES_MARK in newest_error:
                rescored.append(case_id)
        else:
            completed.append(found)
    total = cases_in_benchmark(benchmark, logs)
    return BenchmarkEvidence(
        benchmark=benchmark,
        grading_method=get_benchmark(benchmark).grading_method,
        case_ids=case_ids,
        completed=tuple(completed),
        failed=tuple(failed),
        logs=tuple(log.location for log in reversed(newest)),
        cases_in_benchmark=total,
        scope_reasons=scope_reasons(logs, len(case_ids), total),
        limits=tuple(dict.fromkeys(log.limit for log in reversed(newest) if log.limit)),
        no_answer=tuple(no_answer),
        rescored=tuple(rescored),
    )


def group_records(records: Iterable[LogRecord]) -> list[RunGroup]:
    """Split logs into run groups (sorted by key) and merge each benchmark's evidence."""
    by_key: dict[GroupKey, list[LogRecord]] = {}
    for record in records:
        by_key.setdefault(GroupKey.of(record), []).append(record)
    groups = []
    for key in sorted(by_key, key=GroupKey.sort_key):
        logs = list(reversed(newest_first(by_key[key])))
        benchmarks = {
            name: merge_benchmark(name, [log for log in logs if log.benchmark == name])
            for name in BENCHMARK_NAMES
            if any(log.benchmark == name for log in logs)
        }
        groups.append(RunGroup(key=key, logs=tuple(logs), benchmarks=benchmarks))
    return groups


def slug(text: str) -> str:
    """Filesystem-safe on every OS: letters, digits, '.', '_' and '-' only."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._-") or "model"


def group_slugs(groups: Sequence[RunGroup]) -> list[str]:
    """File stem per group: the answer model, plus the key's hash when a model has several."""
    base = [slug(g.key.answer_model) for g in groups]
    return [
        f"{b}-{g.key.digest()}" if base.count(b) > 1 else b
        for b, g in zip(base, groups, strict=True)
    ]


# a label longer than this (a model name nobody types) is cut, with its length said
LABEL_LIMIT = 200


def group_labels(groups: Sequence[RunGroup]) -> list[str]:
    """Human label per group, unique: the answer model, plus the key's hash when needed.

    The model name comes from a log, which anyone can write: the label is it made one
    printable line (`printable`: a line break, a terminal escape, a bidi override or a lone
    surrogate written as its escape), since every table, heading, plot and terminal line of
    the report names groups by it. Two names alike once so shown get the hash as well."""
    shown = [printable(g.key.answer_model, LABEL_LIMIT) for g in groups]
    return [
        f"{m} [{g.key.digest()}]" if shown.count(m) > 1 else m
        for m, g in zip(shown, groups, strict=True)
    ]
