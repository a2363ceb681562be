"""The cases Inspect's `--cost-limit` stopped (a sample whose `limit` is `cost`), named in the
notes, so a reader knows which cases the limit, not the model, left without a score."""

from __future__ import annotations

from bedside_bench.report.groups import RunGroup
from bedside_bench.report.usage import chain_heads


def cost_limit_notes(group: RunGroup) -> list[str]:
    """One note naming, per benchmark, the cases a cost limit stopped in the counted logs and
    still without a score; none when no limit stopped a case that is still failed."""
    stopped: dict[str, set[str]] = {}
    limits: set[float] = set()
    for log in chain_heads(group.logs):
        if log.cost_limited:
            stopped.setdefault(log.benchmark, set()).update(log.cost_limited)
        if log.cost_limit is not None:
            limits.add(log.cost_limit)
    named = {
        name: [c for c in evidence.failed if c in stopped.get(name, set())]
        for name, evidence in group.benchmarks.items()
    }
    named = {name: cases for name, cases in named.items() if cases}
    if not named:
        return []
    count = sum(len(cases) for cases in named.values())
    listed = "; ".join(f"{name}: {', '.join(cases)}" for name, cases in named.items())
    limit = ", ".join(f"${v:g}" for v in sorted(limits)) or "a cost limit"
    return [
        f"{count} failed case(s) were stopped by the cost limit ({limit} per case, "
        f"--cost-limit) before they were scored: {listed}; rerun them with a larger limit"
    ]
