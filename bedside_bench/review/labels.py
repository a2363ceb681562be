"""A reviewer's labels file (`labels.json`, format `bedside-bench-labels-v1`), read strictly.

`matched` is true, false, or null for "unsure" (counted apart, never as a decision). Each label
names the answer it was given on (answer model, case, epoch) and, as the review page writes it,
the answer's SHA-256, so a label is never matched against another run's answer to the case.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from bedside_bench.review.logs import ReviewInputError
from bedside_bench.review.records import ItemKey

LABELS_FORMAT = "bedside-bench-labels-v1"


class Label(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    case_id: str
    item_id: str
    answer_model: str
    epoch: int
    matched: bool | None
    note: str = ""
    answer_sha256: str | None = None
    benchmark: str | None = None

    @property
    def key(self) -> ItemKey:
        return (self.answer_model, self.case_id, self.epoch, self.item_id)


class LabelsFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    format: str
    reviewer: str
    review_id: str | None = None
    labels: list[Label]


def read_labels(path: str | Path) -> LabelsFile:
    """One labels file; a malformed file, or one item labelled twice, is refused by name."""
    where = str(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as ex:
        raise ReviewInputError(f"{where}: not a readable JSON labels file ({ex})") from ex
    if not isinstance(data, dict) or data.get("format") != LABELS_FORMAT:
        raise ReviewInputError(f"{where}: not a labels file (format must be {LABELS_FORMAT!r})")
    try:
        labels = LabelsFile.model_validate(data)
    except ValidationError as ex:
        first = ex.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise ReviewInputError(f"{where}: field {field}: {first['msg']}") from ex
    if not labels.reviewer.strip():
        raise ReviewInputError(f"{where}: the reviewer has no name")
    # "Dr A" and "Dr A " are one person
    labels = labels.model_copy(update={"reviewer": " ".join(labels.reviewer.split())})
    seen: set[ItemKey] = set()
    for label in labels.labels:
        if label.key in seen:
            raise ReviewInputError(
                f"{where}: reviewer {labels.reviewer!r} labelled item {label.item_id} of case "
                f"{label.case_id} ({label.answer_model}, epoch {label.epoch}) twice"
            )
        seen.add(label.key)
    return labels


def read_all(paths: Sequence[str | Path]) -> dict[str, dict[ItemKey, Label]]:
    """{reviewer: {item: label}} over every file; one reviewer's files are combined, and an
    item that reviewer labelled in two files is refused by name."""
    by_reviewer: dict[str, dict[ItemKey, Label]] = {}
    where: dict[tuple[str, ItemKey], str] = {}
    for path in paths:
        labels = read_labels(path)
        mine = by_reviewer.setdefault(labels.reviewer, {})
        for label in labels.labels:
            if label.key in mine:
                raise ReviewInputError(
                    f"{path}: reviewer {labels.reviewer!r} labelled item {label.item_id} of "
                    f"case {label.case_id} ({label.answer_model}, epoch {label.epoch}) "
                    f"already in {where[(labels.reviewer, label.key)]}"
                )
            mine[label.key] = label
            where[(labels.reviewer, label.key)] = str(path)
    return by_reviewer
