"""Per-item results from Inspect logs, as a Hugging Face `datasets.Dataset` saved as Parquet.

One row per (log task, case, epoch, rubric item): what the judge decided for that item and the
case's score. Results can then be analysed in pandas or published on the Hub as a results
dataset, like public leaderboards' detail datasets. Logs are read through `inspect_ai.log`
only, so `s3://` and other remote log stores work as local folders do.

A case scored in several logs of the same task (a run resumed after a crash or retried) appears
once, from the newest log that scored it. Cases that no log scored are not rows: they are
returned by name so the caller can say so (a missing score is never a zero). A log that cannot
be read is skipped with its reason, as the report skips it. The output folder is owned and
replaced whole (`owned_output`): it holds this export or the previous one, never a fragment.
"""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from inspect_ai.log import read_eval_log, read_eval_log_samples

from bedside_bench.core.contracts import RUBRIC_ITEMS_KEY, SCORER_NAME, TaskMetadata
from bedside_bench.core.owned_output import check_owned, replacing_folder, write_file
from bedside_bench.judging.three_level import MATCH_VALUE
from bedside_bench.logs.read import (
    benchmark_of,
    display_location,
    judge_of,
    resolve_locations,
    skip_reason,
    unreadable,
)
from bedside_bench.logs.values import REPORT_KEYS, rubric_items, score_values

if TYPE_CHECKING:
    from datasets import Dataset, Features
    from inspect_ai.log import EvalLog, EvalSample

RESULTS_FILE = "results.parquet"
# the score metadata keys a row takes: the report's, and the grading method
EXPORT_KEYS: tuple[str, ...] = (*REPORT_KEYS, "grading_method")
# sample fields the rows do not need; skipping them keeps reading large logs cheap
_HEAVY_FIELDS = {"messages", "events", "attachments", "store", "events_data", "timelines"}

# (column, datasets dtype) in output order
COLUMNS: tuple[tuple[str, str], ...] = (
    ("answer_model", "string"),
    ("judge_model", "string"),
    ("benchmark", "string"),
    ("grading_method", "string"),
    ("case_id", "string"),
    ("epoch", "int64"),
    ("item_id", "string"),
    ("points", "int64"),
    ("decision", "string"),  # matched / not_matched; MET / PARTIALLY_MET / NOT_MET (three-level)
    ("match_value", "float64"),  # 1.0 / 0.0; 1.0 / 0.5 / 0.0 (three-level)
    ("case_score", "float64"),
    # f1_weighted_rubric cases: the case's weighted recall and precision (precision null when no
    # item was matched); null for points_rubric cases
    ("recall", "float64"),
    ("precision", "float64"),
    # how the answer ended: Inspect's stop reason, and its condition (`answer_condition`:
    # complete, truncated, filtered, refused, unknown; null in scores that predate it)
    ("answer_stop_reason", "string"),
    ("answer_condition", "string"),
    ("dataset_sha256", "string"),
    ("protocol_version", "string"),
    ("task_id", "string"),
    ("log", "string"),
)


class ExportError(ValueError):
    """A log that cannot be turned into rows, named with the case and item."""


@dataclass
class Export:
    rows: list[dict[str, Any]] = field(default_factory=list)
    logs: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (log, reason)
    unscored: list[str] = field(default_factory=list)  # "model benchmark case_id epoch N"

    @property
    def cases(self) -> int:
        return len({(r["task_id"], r["case_id"], r["epoch"]) for r in self.rows})


def features() -> Features:
    from datasets import Features, Value  # lazy: the `export` extra, needed by this command only

    return Features({name: Value(dtype) for name, dtype in COLUMNS})


def decision_and_value(value: Any, where: str) -> tuple[str, float]:
    """A stored item decision as its name and match value (`where` names it when it is
    neither a boolean nor a level); the export and the analysis frames share it."""
    if isinstance(value, bool):
        return ("matched" if value else "not_matched"), (1.0 if value else 0.0)

    if value in MATCH_VALUE:
        return str(value), MATCH_VALUE[value]
    raise ExportError(f"{where}: decision {value!r} is neither a boolean nor a rubric level")


def _stop_reason(recorded: str | None, sample: EvalSample) -> str | None:
    """The score's record of the answer's stop reason, else the stored output's."""
    if recorded is not None:
        return recorded
    choices = sample.output.choices if sample.output is not None else []
    return choices[0].stop_reason if choices else None


def sample_rows(header: EvalLog, sample: EvalSample) -> list[dict[str, Any]] | None:
    """The rows of one scored sample; None when it has no rubric_judge score."""
    score = (sample.scores or {}).get(SCORER_NAME)
    if sample.error is not None or score is None or not isinstance(score.value, int | float):
        return None
    location = display_location(header.location)
    where = f"{location}, case {sample.id}, epoch {sample.epoch}"
    # the values a row takes from the log, checked as the report checks them (`log_values`)
    checked = score_values(score.metadata or {}, keys=EXPORT_KEYS)
    if isinstance(checked, str):
        raise ExportError(f"{where}: {checked}")
    decisions = checked.decisions
    listed = (sample.metadata or {}).get(RUBRIC_ITEMS_KEY)
    if decisions is None or not isinstance(listed, list):
        raise ExportError(f"{where}: the score has no decisions or the sample no rubric_items")
    items = rubric_items(listed)
    if isinstance(items, str):
        raise ExportError(f"{where}: {items}")
    task_meta = cast(TaskMetadata, header.eval.metadata or {})
    rows = []
    for item in items:
        item_id = item.item_id
        if item_id not in decisions:
            raise ExportError(f"{where}, item {item_id}: no judge decision for this item")
        decision, value = decision_and_value(decisions[item_id], f"{where}, item {item_id}")
        rows.append(
            {
                "answer_model": header.eval.model,
                "judge_model": checked.judge_model or judge_of(header),
                "benchmark": benchmark_of(header),
                "grading_method": checked.grading_method
                or (sample.metadata or {}).get("grading_method"),
                "case_id": str(sample.id),
                "epoch": sample.epoch,
                "item_id": item_id,
                "points": item.points,
                "decision": decision,
                "match_value": value,
                "case_score": float(score.value),
                "recall": checked.recall,
                "precision": checked.precision,
                "answer_stop_reason": _stop_reason(checked.answer_stop_reason, sample),
                "answer_condition": checked.answer_condition,
                "dataset_sha256": task_meta.get("dataset_sha256"),
                "protocol_version": task_meta.get("protocol_version"),
                "task_id": header.eval.task_id,
                "log": location,
            }
        )
    return rows


def collect(log_paths: Sequence[str]) -> Export:
    """Rows from every BedsideBench log under `log_paths` (files or directories)."""

    locations = asyncio.run(resolve_locations(log_paths))
    export = Export()
    headers = []
    for location in locations:
        try:
            headers.append(read_eval_log(location, header_only=True))
        except Exception as ex:  # one unreadable log must not hide the others
            export.skipped.append((display_location(location), unreadable(ex)))
    scored: set[tuple[str, str, int]] = set()
    unscored: dict[tuple[str, str, int], str] = {}
    # newest first: the first log to score a case is the one its row comes from
    for header in sorted(headers, key=lambda h: (h.eval.created, h.location), reverse=True):
        reason = skip_reason(header)
        if reason is not None:
            export.skipped.append((display_location(header.location), reason))
            continue
        try:
            taken = _log_rows(header, scored)
        except ExportError:
            raise
        except Exception as ex:  # a log whose samples cannot be read, like one whose header
            export.skipped.append((display_location(header.location), unreadable(ex)))
            continue
        export.logs += 1
        for key, rows in taken.items():
            if rows is None:
                if key not in scored:
                    unscored.setdefault(key, _unscored_name(header, key))
                continue
            scored.add(key)
            unscored.pop(key, None)
            export.rows.extend(rows)
    export.rows.sort(key=_row_order)
    export.unscored = sorted(unscored.values())
    return export


def _log_rows(
    header: EvalLog, scored: set[tuple[str, str, int]]
) -> dict[tuple[str, str, int], list[dict[str, Any]] | None]:
    """The rows of every sample of one log not scored by a newer log (None: no score); read
    whole before any is kept, so a log that fails half-way gives no rows at all."""

    taken: dict[tuple[str, str, int], list[dict[str, Any]] | None] = {}
    samples = read_eval_log_samples(
        header.location, all_samples_required=False, exclude_fields=_HEAVY_FIELDS
    )
    for sample in samples:
        key = (header.eval.task_id, str(sample.id), sample.epoch)
        if key not in scored:
            taken[key] = sample_rows(header, sample)
    return taken


def _unscored_name(header: EvalLog, key: tuple[str, str, int]) -> str:
    return f"{header.eval.model} {benchmark_of(header)} {key[1]} epoch {key[2]}"


def _row_order(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row["answer_model"], row["judge_model"], row["benchmark"], row["case_id"], row["epoch"])


def to_dataset(rows: Iterable[dict[str, Any]]) -> Dataset:
    from datasets import Dataset  # lazy: the `export` extra, needed by this command only

    rows = list(rows)
    return Dataset.from_dict(
        {name: [row[name] for row in rows] for name, _ in COLUMNS}, features=features()
    )


def export_file(name: str) -> bool:
    """A file name the export writes: what its folder may hold (it owns that folder)."""
    return name == RESULTS_FILE


def check_out_dir(out_dir: Path) -> None:
    """Refuse at once (before any log is read) a folder the export could not own."""
    check_owned(Path(os.path.abspath(out_dir)), "export", export_file)


def write_parquet(rows: Iterable[dict[str, Any]], out_dir: Path) -> Path:
    """DIR/results.parquet, swapped in whole: DIR holds this export or the previous one.
    Raises `OutputError` (one line) when it cannot be written."""
    buffer = io.BytesIO()
    to_dataset(rows).to_parquet(buffer)
    with replacing_folder(out_dir, "export", export_file) as stage:
        write_file(stage / RESULTS_FILE, buffer.getvalue())
    return out_dir / RESULTS_FILE
