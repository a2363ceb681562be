"""What `review score` and `report --labels` read: a mix of labels files, logs and (optionally)
the export's `review_items.json`, told apart by content, scored into `review.json`. Given the
items file, the labels must be of that page: a labels file is checked against its own list of
items (its `review_id` is their digest), and the page's file says which list the page showed."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bedside_bench.review.labels import (
    MAX_LABELS_BYTES,
    LabelsFile,
    ReviewLabels,
    combine_labels,
    parse_labels,
    read_json,
    shown,
)
from bedside_bench.review.logs import ReviewInputError, read_source
from bedside_bench.review.score import review_document

if TYPE_CHECKING:
    from bedside_bench.documents.review import ReviewDocument

PROG = "bedside-bench review"


def score_inputs(inputs: list[str], resamples: int, seed: int) -> ReviewDocument:
    """`review.json` from a mix of labels files and log paths (told apart by content)."""
    json_files = [p for p in inputs if is_labels_file(p)]
    logs = [p for p in inputs if p not in json_files]
    if not json_files:  # only review pages among them: said when they are read, once
        raise ReviewInputError("no labels file given (a labels file from the review page)")
    if not logs:
        raise ReviewInputError("no log path given (the logs the review was exported from)")
    return score_label_inputs(read_label_inputs(json_files), logs, resamples, seed)


@dataclass(frozen=True)
class LabelInputs:
    """The reviewers' labels of one review, checked against the review pages given with them
    (each page's file: the review id it exported)."""

    labels: ReviewLabels
    pages: dict[str, str]


def read_label_inputs(paths: Sequence[str]) -> LabelInputs:
    """Labels files and the export's `review_items.json`, told apart by content, each read
    once (a pipe can be read only once). Given a page, the labels must be of that page."""
    files: list[tuple[str | Path, LabelsFile]] = []
    pages: dict[str, str] = {}
    for path in paths:
        data = read_json(path)
        if _is_items_data(data):
            pages[path] = exported_review_id(path, data)
        else:
            files.append((path, parse_labels(path, data)))
    if not files:
        raise ReviewInputError("no labels file given (a labels file from the review page)")
    labels = combine_labels(files)
    for page, exported in pages.items():
        if exported != labels.review_id:
            raise ReviewInputError(
                f"{shown(page, 300)}: field review_id: the review page exported review "
                f"{exported}, but the labels are of review {labels.review_id}: they list "
                "items that page never showed"
            )
    return LabelInputs(labels, pages)


def score_label_inputs(
    inputs: LabelInputs, logs: Sequence[str], resamples: int, seed: int
) -> ReviewDocument:
    """`review.json`: the labels read against the judges' decisions in `logs`."""
    source = read_source(list(logs))
    for location, reason in source.skipped:
        print(f"{PROG}: skipped {shown(location, 300)}: {shown(reason, 500)}", file=sys.stderr)
    document = review_document(source, inputs.labels, resamples, seed)
    if not any(e.n for e in document.judges.values()):
        print(
            f"{PROG}: warning: no decided label meets a judge's decision "
            "(empty or all-unsure labels?): no accuracy can be given",
            file=sys.stderr,
        )
    return document


def split_labels_option(paths: Sequence[str]) -> tuple[list[str], list[str]]:
    """`report --labels` takes one or more paths, so log paths typed after it land there too:
    (labels, logs). A folder, an `.eval` file or a JSON Inspect log is a log; anything else is
    read as labels (a pipe, `/dev/stdin`, a file of any name), so what is not a labels file is
    refused by name rather than taken for a log."""
    labels: list[str] = []
    logs: list[str] = []
    for path in paths:
        is_log = Path(path).is_dir() or path.lower().endswith(".eval")
        if not is_log and path.lower().endswith(".json") and Path(path).is_file():
            is_log = not is_labels_file(path)
        (logs if is_log else labels).append(path)
    return labels, logs


def is_labels_file(path: str) -> bool:
    """A JSON file that is not an Inspect log is taken for a labels file (so a malformed one
    is refused by name rather than skipped as an unreadable log), and so is a pipe or a file
    of any other name than a log's. A JSON file larger than any labels file is left to the log
    reader, which reads logs of any size."""

    here = Path(path)
    if here.exists() and not here.is_dir() and not here.is_file():
        return True  # a pipe, `/dev/stdin`: read once, as labels
    if here.is_file() and not path.lower().endswith((".json", ".eval")):
        return True  # no log's name: refused by name if it is not a labels file either
    if not path.lower().endswith(".json"):
        return False
    try:
        if not Path(path).is_file() or Path(path).stat().st_size > MAX_LABELS_BYTES:
            return False
        # leniently: a log may hold what a labels file may not (NaN), and is still a log
        data = json.loads(Path(path).read_bytes().decode("utf-8"))
    except RecursionError:
        raise ReviewInputError(
            f"{shown(path, 300)}: its JSON nests too deeply for a labels file or a log"
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as ex:
        raise ReviewInputError(
            f"{shown(path, 300)}: not readable JSON ({shown(ex, 200)})"
        ) from None
    if isinstance(data, dict) and "eval" in data and "version" in data:
        return False  # an Inspect log written as JSON
    if not isinstance(data, dict):
        raise ReviewInputError(f"{shown(path, 300)}: neither a labels file nor an Inspect log")
    return True


def _is_items_data(data: object) -> bool:
    return isinstance(data, dict) and "format" not in data and {"review_id", "items"} <= set(data)


def is_items_file(path: str) -> bool:
    """The export's `review_items.json` (a JSON object with the review's id and its items,
    and no labels format), told from a labels file by content."""
    return _is_items_data(read_json(path))


def exported_review_id(path: str, data: object) -> str:
    """The review id `review export` wrote into its `review_items.json` (`data`, read from
    `path`): the labels of that page carry it, so labels listing any other items are of another
    page (or forged)."""
    found = data.get("review_id") if isinstance(data, dict) else None
    if not isinstance(found, str) or len(found) != 16 or not found.isascii():
        raise ReviewInputError(
            f"{shown(path, 300)}: field review_id: not a review id (16 hex digits) of a "
            "`review export`"
        )
    try:
        int(found, 16)
    except ValueError:
        raise ReviewInputError(
            f"{shown(path, 300)}: field review_id: {shown(found)} is not 16 hex digits"
        ) from None
    return found
