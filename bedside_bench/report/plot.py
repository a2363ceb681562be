"""Forest plot of benchmark means with intervals, one colour per model (optional matplotlib).

matplotlib is the `report` extra; without it `forest_png` returns None and the report says how
to get the plot instead of failing.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

from bedside_bench.documents.summary import BenchmarkSummary, OverallScore, RunSummary
from bedside_bench.report.document import benchmark_names


def matplotlib_available() -> bool:
    try:
        import matplotlib  # noqa: F401  # lazy: the optional `report` extra
    except ImportError:
        return False
    return True


def drawable(summary: RunSummary, name: str) -> tuple[float, float, float] | None:
    """(mean, lo, hi) of a benchmark (or "overall") when all three are finite numbers; None
    for a missing benchmark, a benchmark without a completed case, or a NaN."""
    entry: BenchmarkSummary | OverallScore | None = (
        summary.overall if name == "overall" else summary.benchmarks.get(name)
    )
    if entry is None or entry.mean is None or entry.ci95 is None:
        return None
    mean, lo, hi = entry.mean, *entry.ci95
    if not all(math.isfinite(v) for v in (mean, lo, hi)):
        return None
    return mean, min(lo, hi), max(lo, hi)


def forest_png(summaries: Sequence[RunSummary], labels: Sequence[str]) -> bytes | None:
    """PNG bytes of the plot, or None when matplotlib is not installed."""
    if not matplotlib_available():
        return None
    import matplotlib  # lazy: the optional `report` extra

    matplotlib.use("Agg")  # no display needed, and no GUI toolkit imported
    import matplotlib.pyplot as plt  # lazy: after the backend is chosen

    rows = [*benchmark_names(summaries), "overall"]
    k = len(summaries)
    step = 0.7 / max(k, 1)
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) * max(1, k / 2) + 0.4 * (k // 3) + 1.5))
    colours = plt.get_cmap("tab10")
    try:
        for m, (label, summary) in enumerate(zip(labels, summaries, strict=True)):
            colour = colours(m % 10)
            points = [
                (r + (m - (k - 1) / 2) * step, *found)
                for r, name in enumerate(rows)
                if (found := drawable(summary, name)) is not None
            ]
            ys = [p[0] for p in points]
            # the interval as drawn from its own bounds, never as the mean plus or minus an
            # error: a bound can differ from the mean in the last bit (one case per
            # benchmark), and an error bar may not be negative
            ax.hlines(ys, [p[2] for p in points], [p[3] for p in points], color=colour)
            ax.plot([p[2] for p in points], ys, "|", color=colour, markersize=6)
            ax.plot([p[3] for p in points], ys, "|", color=colour, markersize=6)
            ax.plot([p[1] for p in points], ys, "o", color=colour, markersize=4, label=label)
        ax.set_yticks(range(len(rows)), rows)
        ax.invert_yaxis()
        ax.axhline(len(rows) - 1.5, color="#999", linewidth=0.6)
        ax.set_xlim(-0.02, 1.02)  # room for interval caps at 0 and 1
        ax.set_xlabel("mean case score (95% bootstrap interval)")
        ax.grid(axis="x", alpha=0.3)
        ax.legend(
            loc="lower center",
            bbox_to_anchor=(0.5, 1.0),
            ncol=max(1, min(k, 3)),
            frameon=False,
            fontsize="small",
        )
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
        return buffer.getvalue()
    finally:
        plt.close(fig)
