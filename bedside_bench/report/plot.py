"""Forest plot of benchmark means with intervals, one colour per model (optional matplotlib).

matplotlib is the `report` extra; without it `forest_png` returns None and the report says how
to get the plot instead of failing.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from bedside_bench.report.document import benchmark_names


def matplotlib_available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def forest_png(summaries: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> bytes | None:
    """PNG bytes of the plot, or None when matplotlib is not installed."""
    if not matplotlib_available():
        return None
    import matplotlib

    matplotlib.use("Agg")  # no display needed, and no GUI toolkit imported
    import matplotlib.pyplot as plt

    rows = [*benchmark_names(summaries), "overall"]
    k = len(summaries)
    step = 0.7 / max(k, 1)
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) * max(1, k / 2) + 0.4 * (k // 3) + 1.5))
    colours = plt.get_cmap("tab10")
    try:
        for m, (label, summary) in enumerate(zip(labels, summaries, strict=True)):
            ys, means, lows, highs = [], [], [], []
            for r, name in enumerate(rows):
                entry = summary["overall"] if name == "overall" else summary["benchmarks"].get(name)
                if not entry or entry.get("mean") is None or not entry.get("ci95"):
                    continue
                ys.append(r + (m - (k - 1) / 2) * step)
                means.append(entry["mean"])
                # a bootstrap interval of one case is [x, x] with x summed in another order
                # than the mean, so it can miss the mean by a rounding error; matplotlib
                # refuses a negative error bar
                lows.append(max(0.0, entry["mean"] - entry["ci95"][0]))
                highs.append(max(0.0, entry["ci95"][1] - entry["mean"]))
            ax.errorbar(
                means,
                ys,
                xerr=[lows, highs],
                fmt="o",
                capsize=3,
                markersize=4,
                color=colours(m % 10),
                label=label,
            )
        ax.set_yticks(range(len(rows)), rows)
        ax.invert_yaxis()
        ax.axhline(len(rows) - 1.5, color="#999", linewidth=0.6)
        ax.set_xlim(-0.02, 1.02)  # room for interval caps at 0 and 1
        ax.set_xlabel("mean case score (95% bootstrap interval)")
        ax.grid(axis="x", alpha=0.3)
        ax.legend(
            loc="lower center",
            bbox_to_anchor=(0.5, 1.0),
            ncol=min(k, 3),
            frameon=False,
            fontsize="small",
        )
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
        return buffer.getvalue()
    finally:
        plt.close(fig)
