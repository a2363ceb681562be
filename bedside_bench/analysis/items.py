"""One row per rubric item decision, from Inspect's `samples_df`.

A case's decisions are a dict in its score, and its rubric items a list in its sample; both
can pass Inspect's 1k limit for sample summaries, so this frame reads full samples (the
transcripts left out). Each scored case gives one row per rubric item, in the case's item
order, keyed by `sample_id` and `eval_id` like the frame of `SAMPLE_COLUMNS`, so the two join.
A case without a score gives no rows; a scored case whose decisions do not cover its items
stops the frame with one line naming the case and the item (never a silently missing row).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from inspect_ai.analysis import Column, SampleColumn, samples_df
from inspect_ai.log import EvalLog

from bedside_bench.analysis.columns import SAMPLE_COLUMNS, Sample, own_score, score_metadata
from bedside_bench.core.contracts import RUBRIC_ITEMS_KEY
from bedside_bench.core.extras import require
from bedside_bench.logs.export import ExportError, decision_and_value
from bedside_bench.logs.values import rubric_items

if TYPE_CHECKING:
    import pandas as pd

Logs = str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | EvalLog | Sequence[EvalLog]

# the sample fields the items need none of; not reading them keeps large logs cheap
_UNREAD = {"messages", "events", "attachments", "store", "events_data", "timelines"}
_ITEMS = "items"
# the case's columns each item row repeats
_CASE_COLUMNS = ("model", "benchmark", "case_id", "epoch", "grading_method", "judge_model", "score")
ITEM_COLUMNS: tuple[tuple[str, str], ...] = (
    ("item_id", "string"),
    ("points", "int64"),  # the item's weight (negative: a harm)
    ("decision", "string"),  # matched / not_matched; MET / PARTIALLY_MET / NOT_MET (three-level)
    ("match_value", "double"),  # 1.0 / 0.0; 1.0 / 0.5 / 0.0
)
"""The item's own columns (name, pyarrow type), after the ids and the case's columns."""


def _item_rows(sample: Sample) -> list[dict[str, Any]] | None:
    score = own_score(sample)
    if score is None or not isinstance(score.value, int | float):
        return None  # a failed case: no decisions
    where = f"case {sample.id}, epoch {sample.epoch}"
    decisions = score_metadata(sample).get("decisions")
    items = rubric_items((sample.metadata or {}).get(RUBRIC_ITEMS_KEY))
    if isinstance(items, str):
        raise ExportError(f"{where}: {items}")
    if not isinstance(decisions, dict):
        raise ExportError(f"{where}: the score has no decisions")
    rows = []
    for item in items:
        if item.item_id not in decisions:
            raise ExportError(f"{where}, item {item.item_id}: no judge decision for this item")
        decision, value = decision_and_value(
            decisions[item.item_id], f"{where}, item {item.item_id}"
        )
        rows.append(
            {
                "item_id": item.item_id,
                "points": item.points,
                "decision": decision,
                "match_value": value,
            }
        )
    return rows


def _columns() -> list[Column]:
    case = [c for c in SAMPLE_COLUMNS if c.name in _CASE_COLUMNS]
    return [*case, SampleColumn(_ITEMS, path=_item_rows, full=True)]


def item_decisions(logs: Logs | None = None, quiet: bool | None = None) -> pd.DataFrame:
    """One row per (log, case, epoch, rubric item) of every scored case in `logs` (paths,
    folders, `s3://` stores or `EvalLog`s; Inspect's log directory when None): the case's
    columns, then the item's id, points, decision and match value."""
    for module in ("pandas", "pyarrow"):
        require(module, "analysis", "bedside_bench.analysis")
    import pandas as pd  # lazy: an extra (`analysis`), checked just above

    cases = samples_df(logs, columns=_columns(), full=True, quiet=quiet, exclude_fields=_UNREAD)
    types = dict(ITEM_COLUMNS)
    keys = [c for c in cases.columns if c != _ITEMS]
    records: list[dict[str, Any]] = []
    for row in cases.itertuples(index=False):
        case = row._asdict()
        listed = case.pop(_ITEMS)
        if isinstance(listed, str):  # Inspect stores a list as its JSON text
            records.extend({**case, **item} for item in json.loads(listed))
    frame = pd.DataFrame.from_records(records, columns=[*keys, *types])
    for name in keys:
        frame[name] = frame[name].astype(cases[name].dtype)
    for name, dtype in types.items():
        frame[name] = frame[name].astype(dtype)
    return frame
