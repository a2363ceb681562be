"""A run group's scope (full, smoke or partial, and why) and its release case counts, as the
summary records them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.documents.summary import SCOPE_REASONS, BenchmarkScope, Scope, ScopeReason
from bedside_bench.report.groups import RunGroup

# "ten" while core/benchmarks.py lists ten; the number itself once it lists another count
ALL_BENCHMARKS = "ten" if len(BENCHMARK_NAMES) == 10 else str(len(BENCHMARK_NAMES))


def release_case_counts(group: RunGroup) -> dict[str, int] | None:
    """The newest log's count of cases per benchmark in the release (None: not recorded)."""
    for log in reversed(group.logs):
        if log.release_case_counts is not None:
            return dict(log.release_case_counts)
    return None


def release_counts_text(counts: Mapping[str, int] | None) -> str:
    if counts is None:
        return "not recorded"
    return ", ".join(f"{name} {n}" for name, n in counts.items()) or "none"


def _limits_text(limits: Sequence[str]) -> str:
    return ", ".join(f"--limit {v}" for v in limits)


def _kind(scope: Scope) -> str:
    if scope.full:
        return "full"
    return "smoke" if "smoke" in scope.reasons else "partial"


def scope_words(scope: Scope) -> str:
    """The scope in one line: full, or how many of how many cases ran and why not all."""
    run, total = scope.cases_run, scope.cases_in_benchmarks
    of = f"{run} of {total}" if total is not None else f"{run} of an unrecorded number of"
    missing = scope.missing_benchmarks
    present = len(BENCHMARK_NAMES) - len(missing)
    if scope.full:
        return f"full: all {run} cases of the {ALL_BENCHMARKS} benchmarks ran"
    why = []
    for reason in scope.reasons:
        if reason == "smoke":
            why.append("smoke run, one case per benchmark")
        elif reason == "limit":
            why.append(_limits_text(scope.limits) or "--limit")
        elif reason == "sample_id":
            why.append("--sample-id")
        else:
            why.append("cause not recorded in the logs")
    if missing:
        why.append(f"{len(missing)} benchmark(s) not run: {', '.join(missing)}")
    kind = _kind(scope)
    where = f" of the {present} benchmark(s) run" if missing else ""
    return f"{kind}: {of} cases ran{where} ({'; '.join(why)})"


def scope_cell(scope: Scope) -> str:
    """The scope in a table cell: its kind and how many cases ran ("partial, 3 of 25"); the
    sentence (`scope_words`) says why, above the table."""
    total = scope.cases_in_benchmarks
    of = total if total is not None else "an unrecorded number"
    return f"{_kind(scope)}, {scope.cases_run} of {of}"


def _reasons(found: Iterable[str]) -> list[ScopeReason]:
    """The reasons found, in `SCOPE_REASONS` order."""
    found = set(found)
    return [r for r in SCOPE_REASONS if r in found]


def scope_json(group: RunGroup) -> Scope:
    """The summary's `scope`: per benchmark and in all, with its sentence (`scope_words`)."""
    benchmarks = {
        name: BenchmarkScope(
            cases_run=b.cases_run,
            cases_in_benchmark=b.cases_in_benchmark,
            full=b.full,
            reasons=_reasons(b.scope_reasons),
        )
        for name, b in group.benchmarks.items()
    }
    totals = [b.cases_in_benchmark for b in group.benchmarks.values()]
    reasons = {r for b in group.benchmarks.values() for r in b.scope_reasons}
    scope = Scope(
        full=group.full_scope,
        cases_run=sum(b.cases_run for b in group.benchmarks.values()),
        cases_in_benchmarks=None if None in totals else sum(t for t in totals if t),
        reasons=_reasons(reasons),
        limits=list(dict.fromkeys(v for b in group.benchmarks.values() for v in b.limits)),
        missing_benchmarks=list(group.missing_benchmarks),
        benchmarks=benchmarks,
        description="",
    )
    return scope.model_copy(update={"description": scope_words(scope)})
