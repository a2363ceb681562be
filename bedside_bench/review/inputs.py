"""What `review score` and `report --labels` read: a mix of labels files, logs and (optionally)
the export's `review_items.json`, told apart by content, scored into `review.json`. Given the
items file, the labels must be of that page: a labels file is checked against its own list of
items (its `review_id` is their digest), and the page's file says which list the page showed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bedside_bench.review.labels import MAX_LABELS_BYTES, read_all, read_json, shown
from bedside_bench.review.logs import ReviewInputError, read_source
from bedside_bench.review.score import review_document

if TYPE_CHECKING:
    from bedside_bench.documents.review import ReviewDocument

PROG = "bedside-bench review"


def score_inputs(inputs: list[str], resamples: int, seed: int) -> ReviewDocument:
    """`review.json` from a mix of labels files and log paths (told apart by content)."""
    json_files = [p for p in inputs if is_labels_file(p)]
    logs = [p for p in inputs if p not in json_files]
    pages = [p for p in json_files if is_items_file(p)]
    labels_files = [p for p in json_files if p not in pages]
    if not labels_files:
        raise ReviewInputError("no labels file given (a labels file from the review page)")
    if not logs:
        raise ReviewInputError("no log path given (the logs the review was exported from)")
    labels = read_all(labels_files)
    for page in pages:
        exported = exported_review_id(page)
        if exported != labels.review_id:
            raise ReviewInputError(
                f"{shown(page, 300)}: field review_id: the review page exported review "
                f"{exported}, but the labels are of review {labels.review_id}: they list "
                "items that page never showed"
            )
    source = read_source(logs)
    for location, reason in source.skipped:
        print(f"{PROG}: skipped {shown(location, 300)}: {shown(reason, 500)}", file=sys.stderr)
    document = review_document(source, labels, resamples, seed)
    if not any(e.n for e in document.judges.values()):
        print(
            f"{PROG}: warning: no decided label meets a judge's decision "
            "(empty or all-unsure labels?): no accuracy can be given",
            file=sys.stderr,
        )
    return document


def is_labels_file(path: str) -> bool:
    """A JSON file that is not an Inspect log is taken for a labels file (so a malformed one
    is refused by name rather than skipped as an unreadable log). A JSON file larger than
    any labels file is left to the log reader, which reads logs of any size."""

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


def is_items_file(path: str) -> bool:
    """The export's `review_items.json` (a JSON object with the review's id and its items,
    and no labels format), told from a labels file by content."""
    data = read_json(path)
    return isinstance(data, dict) and "format" not in data and {"review_id", "items"} <= set(data)


def exported_review_id(path: str) -> str:
    """The review id `review export` wrote into its `review_items.json`: the labels of that
    page carry it, so labels listing any other items are of another page (or forged)."""
    data = read_json(path)
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
