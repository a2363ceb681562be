"""The suite's logs as tidy frames, through Inspect's own dataframe API.

`samples_df(logs, columns=SAMPLE_COLUMNS)` gives one row per case and epoch with the case's
score, the judge that judged it, how its answer ended, and the numbers the score is made of
(recall, precision, points), each its own typed column; `evals_df(logs, columns=EVAL_COLUMNS)`
one row per log with what the report groups runs by; `item_decisions(logs)` one row per
rubric item decision. docs/analysis.md shows them at work. Needs pandas and pyarrow, as
`inspect_ai.analysis` does (`pip install 'bedside-bench[analysis]'`).
"""

from bedside_bench.analysis.columns import EVAL_COLUMNS, SAMPLE_COLUMNS
from bedside_bench.analysis.items import ITEM_COLUMNS, item_decisions

__all__ = ["EVAL_COLUMNS", "ITEM_COLUMNS", "SAMPLE_COLUMNS", "item_decisions"]
