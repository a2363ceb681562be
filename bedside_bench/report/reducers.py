"""One headline: where Inspect's number for a benchmark is not the protocol's (pure functions).

`--epochs-reducer max` (or `median`, `pass_at_k`, ...) makes Inspect reduce each case's epochs
its own way, and its log, `inspect view` and `evals_df` show that number; the report always
takes the protocol's mean over epochs and cases (its headline, ranking and every interval). A
reader who sees both must be told which is which, at the top: the summary keeps Inspect's
number beside the mean (`inspect_scores`) whenever the two differ, and the report's first
lines name both. The tasks do not fix the reducer: Inspect lets a user ask for another, and a
team may want the best-of-N figure too; what is refused is a second number nobody explains.

With several reducers (`--epochs-reducer max,median`) the log holds one score per reducer and
Inspect's headline shows one of them: which one, Inspect says (`inspect_ai.log.headline_metric`,
read into `InspectMean.headline`), and the note names it as the headline and the others as the
log's other scores.
"""

from __future__ import annotations

from bedside_bench.documents.summary import InspectScore, RunSummary
from bedside_bench.logs.records import newest_first
from bedside_bench.report.groups import RunGroup

# the reducers whose number is the protocol's: Inspect's mean, the tasks' own `case_mean`
# (Inspect's mean with the diagnostics averaged too), and none recorded
MEAN_REDUCERS = frozenset({"", "mean", "case_mean"})
# two means closer than this are the same number summed in another order
SAME = 1e-9


def inspect_scores(group: RunGroup, benchmark: str, mean: float | None) -> list[InspectScore]:
    """Inspect's scores of `benchmark` (its newest log that holds them) whose reducer is not
    the mean and whose number differs from the protocol's `mean`."""
    for log in newest_first(group.logs):
        if log.benchmark != benchmark:
            continue
        found = [m for m in log.inspect_means if m.score == log.scorer]
        if found:
            return [
                InspectScore(reducer=m.reducer, mean=m.mean, headline=m.headline)
                for m in found
                if m.reducer.rsplit("/", 1)[-1] not in MEAN_REDUCERS
                and (mean is None or abs(m.mean - mean) > SAME)
            ]
    return []


def reducer_warnings(summary: RunSummary) -> list[str]:
    """One line per benchmark whose number in Inspect's log is not the report's."""
    found = []
    for name, entry in summary.benchmarks.items():
        for other in entry.inspect_scores or []:
            ours = "n/a" if entry.mean is None else f"{entry.mean:.3f}"
            theirs = (
                f"Inspect's log, `inspect view` and `evals_df` say {other.mean:.3f} "
                f"(epoch reducer `{other.reducer}`)"
                if other.headline
                else f"Inspect's log also holds {other.mean:.3f} (epoch reducer "
                f"`{other.reducer}`, not the headline `inspect view` and `evals_df` show)"
            )
            found.append(
                f"{name}: two numbers: {theirs}; this report says {ours}, the protocol's mean "
                "over epochs and cases, which the ranking and every interval use."
            )
    return found
