"""A reviewer's labels file (format `bedside-bench-labels-v2`), read strictly.

A labels file proves what it labels. It lists every item its review page showed
(`review_items`: answer model, case, epoch, item, benchmark and the answer's SHA-256), names
its review by the digest of that list (`review_id`, the page's own), and each label repeats its
item's entry. So a label is never scored against another run's answer to the case (the
SHA-256 is required), a file edited to name another review no longer matches its list, and
files of two reviews are never pooled (`read_all`). The file is strict JSON (no key twice, no
NaN, bounded size and depth) with every field typed and every string text (no lone
surrogate): what cannot be checked is refused in one line naming the file and the field,
never taken on trust.

`matched` is true, false, or null for "unsure" (counted apart, never as a decision). A
reviewer is one person however the name is cased, spaced or padded with invisible characters
("dr adv", "Dr  Adv", "Dr\\u200b Adv" are one reviewer): `reviewer_name`; a name mixing Latin,
Greek and Cyrillic letters (a lookalike Greek capital alpha in "Dr A") is refused.

Past 300 lines: the file's format, its review's proof and the reviewer's name are one reading
of one file, and the refusals they give are written beside the checks.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
)

from bedside_bench.core.safe_text import printable
from bedside_bench.core.small_files import RepeatedKeyError, unique_keys
from bedside_bench.review.logs import ReviewInputError
from bedside_bench.review.records import ItemKey

LABELS_FORMAT = "bedside-bench-labels-v2"
EARLIER_FORMATS = ("bedside-bench-labels-v1",)
# a review page's download is a few kB per item; a notes-heavy review of thousands of items
# stays far below this, and the file is read whole
MAX_LABELS_BYTES = 64 * 1024 * 1024
MAX_REVIEWER_CHARS = 200
SHOWN_CHARS = 100  # of a text from a file, in a message


def shown(text: object, limit: int = SHOWN_CHARS) -> str:
    """A text from a file (or a command line) as a message may show it: one printable line."""
    return printable(str(text), limit)


def _text(value: str) -> str:
    """A string that is text: a lone surrogate (a JSON `\\ud800` escape) is no character, no
    writer encodes it, and no reviewer typed it."""
    for char in value:
        if "\ud800" <= char <= "\udfff":
            raise ValueError(f"not text: it holds a lone surrogate ({ascii(char)[1:-1]})")
    return value


Text = Annotated[str, AfterValidator(_text)]
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
ReviewId = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]


class ReviewedItem(BaseModel):
    """An item a review page showed: the answer it is read against, and its rubric item."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    answer_model: Text
    case_id: Text
    epoch: int = Field(ge=1)
    item_id: Text
    benchmark: Text
    answer_sha256: Sha256

    @property
    def key(self) -> ItemKey:
        return (self.answer_model, self.case_id, self.epoch, self.item_id)

    def entry(self) -> tuple[str, str, int, str, str, str]:
        return (*self.key, self.benchmark, self.answer_sha256)


class Label(ReviewedItem):
    matched: bool | None
    note: Text = ""


class LabelsFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    format: Literal["bedside-bench-labels-v2"]
    reviewer: Text
    review_id: ReviewId
    review_items: list[ReviewedItem] = Field(min_length=1)
    labels: list[Label]


def review_digest(entries: Sequence[tuple[str, str, int, str, str, str]]) -> str:
    """A review's id: the digest of the items its page shows, in page order (answer model,
    case, epoch, item, benchmark, the answer's SHA-256). The page and `review score` compute
    it alike, so a labels file's `review_id` is checked against its own `review_items`."""
    body = json.dumps([list(e) for e in entries], ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(body.encode("ascii", "backslashreplace")).hexdigest()[:16]


# characters a name may hold that show nothing (beyond the format and control categories):
# combining grapheme joiner, Hangul and Khmer fillers, Mongolian selectors, variation selectors
_INVISIBLE = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0}
_INVISIBLE_RANGES = ((0x180B, 0x180F), (0xFE00, 0xFE0F), (0xE0100, 0xE01EF))


def _invisible(char: str) -> bool:
    code = ord(char)
    return (
        unicodedata.category(char) in {"Cc", "Cf", "Cs", "Cn"}
        or code in _INVISIBLE
        or any(low <= code <= high for low, high in _INVISIBLE_RANGES)
    )


def reviewer_name(raw: str) -> str:
    """A reviewer's name as it is counted and shown: compatibility forms folded (NFKC: a
    full-width "Ｄｒ" is "Dr"), invisible characters dropped, any run of spaces one space."""
    folded = unicodedata.normalize("NFKC", raw)
    kept = "".join(" " if c.isspace() else c for c in folded if c.isspace() or not _invisible(c))
    return " ".join(kept.split())


# scripts whose capitals (and some small letters) look like one another: A, Α and А
LOOKALIKE_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC")


def lookalike_scripts(name: str) -> list[str]:
    """Which of `LOOKALIKE_SCRIPTS` the letters of `name` are written in (in that order).

    Case, spacing and invisible characters are folded before names are counted, but a letter
    of another script that looks the same is not: "Dr A" and "Dr \u0391" (Greek capital
    alpha) would be two reviewers. Folding every lookalike needs Unicode's confusables table;
    a name whose letters mix these scripts is refused instead, so a lookalike cannot slip into
    a name otherwise written in one script. (Two names wholly in different scripts are two
    names.)"""
    found = {
        script
        for char in name
        if char.isalpha()
        for script in LOOKALIKE_SCRIPTS
        if unicodedata.name(char, "").startswith(script + " ")
    }
    return [script.capitalize() for script in LOOKALIKE_SCRIPTS if script in found]


def reviewer_key(raw: str) -> str:
    """Who a name is: "Dr Adv" and "dr adv" are one reviewer."""
    return reviewer_name(raw).casefold()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def read_json(path: str | Path) -> object:
    """A labels file's JSON, strictly: bounded size, UTF-8, no key twice, no NaN or
    Infinity; a depth or a number Python refuses is refused by name too."""
    where = shown(path, 300)
    try:
        with open(path, "rb") as stream:
            raw = stream.read(MAX_LABELS_BYTES + 1)
        if len(raw) > MAX_LABELS_BYTES:
            raise ReviewInputError(
                f"{where}: more than {MAX_LABELS_BYTES} bytes, too large for a labels file"
            )
        return json.loads(
            raw.decode("utf-8"), object_pairs_hook=unique_keys, parse_constant=_no_constant
        )
    except RepeatedKeyError as ex:
        raise ReviewInputError(f"{where}: {ex}") from None
    except RecursionError:
        raise ReviewInputError(f"{where}: its JSON nests too deeply for a labels file") from None
    except (OSError, UnicodeDecodeError, ValueError) as ex:
        reason = shown(ex.strerror if isinstance(ex, OSError) and ex.strerror else ex, 200)
        raise ReviewInputError(f"{where}: not a readable JSON labels file ({reason})") from None


def _field(location: Sequence[int | str]) -> str:
    return shown(".".join(str(p) for p in location), 200)


def parse_labels(path: str | Path, data: object) -> LabelsFile:
    """One labels file's content, checked: the format, every field, the reviewer's name,
    the review's id against its items, and every label against its review's entry."""
    where = shown(path, 300)
    if not isinstance(data, dict):
        raise ReviewInputError(f"{where}: not a labels file (a JSON object with a format)")
    found = data.get("format")
    if found in EARLIER_FORMATS:
        raise ReviewInputError(
            f"{where}: format {found!r} is from an earlier review page, whose labels do not "
            f"list their review's items; export the review page again and label it there "
            f"(format {LABELS_FORMAT!r})"
        )
    if found != LABELS_FORMAT:
        raise ReviewInputError(
            f"{where}: not a labels file (format must be {LABELS_FORMAT!r}, "
            f"got {shown(repr(found), 60)})"
        )
    try:
        labels = LabelsFile.model_validate(data)
    except ValidationError as ex:
        first = ex.errors(include_url=False, include_input=False)[0]
        message = first["msg"].removeprefix("Value error, ")
        raise ReviewInputError(
            f"{where}: field {_field(first['loc'])}: {shown(message, 200)}"
        ) from None
    name = reviewer_name(labels.reviewer)
    if not name:
        raise ReviewInputError(
            f"{where}: field reviewer: no name (only spaces or invisible characters)"
        )
    if len(name) > MAX_REVIEWER_CHARS:
        raise ReviewInputError(
            f"{where}: field reviewer: {len(name)} characters, at most {MAX_REVIEWER_CHARS}"
        )
    mixed = lookalike_scripts(name)
    if len(mixed) > 1:
        raise ReviewInputError(
            f"{where}: field reviewer: '{shown(name)}' mixes {' and '.join(mixed)} letters, "
            "which look alike (a Greek \u0391 for a Latin A would count one person twice); "
            "write the name in one of them"
        )
    entries = [item.entry() for item in labels.review_items]
    if review_digest(entries) != labels.review_id:
        raise ReviewInputError(
            f"{where}: field review_id: {labels.review_id} is not the id of the review its "
            f"review_items list ({review_digest(entries)}); the file was edited or mixes two "
            "reviews"
        )
    listed: dict[ItemKey, tuple[str, str, int, str, str, str]] = {}
    for n, item in enumerate(labels.review_items):
        if item.key in listed:
            raise ReviewInputError(
                f"{where}: field review_items.{n}: item {shown(item.item_id)} of case "
                f"{shown(item.case_id)} is listed twice"
            )
        listed[item.key] = item.entry()
    seen: set[ItemKey] = set()
    for n, label in enumerate(labels.labels):
        what = f"item {shown(label.item_id)} of case {shown(label.case_id)}"
        entry = listed.get(label.key)
        if entry is None:
            raise ReviewInputError(
                f"{where}: field labels.{n}: {what} is not an item of review {labels.review_id}"
            )
        if entry != label.entry():
            field = "benchmark" if entry[4] != label.benchmark else "answer_sha256"
            raise ReviewInputError(
                f"{where}: field labels.{n}.{field}: {what} differs from its review's entry"
            )
        if label.key in seen:
            raise ReviewInputError(
                f"{where}: reviewer '{shown(name)}' labelled {what} "
                f"({shown(label.answer_model)}, epoch {label.epoch}) twice"
            )
        seen.add(label.key)
    return labels.model_copy(update={"reviewer": name})


def read_labels(path: str | Path) -> LabelsFile:
    """One labels file; anything malformed, unproven or labelled twice is refused by name."""
    return parse_labels(path, read_json(path))


@dataclass(frozen=True)
class ReviewLabels:
    """Every reviewer's labels of one review, and where each label was read (file and field),
    so a label the logs refuse is named where it is."""

    review_id: str
    by_reviewer: dict[str, dict[ItemKey, Label]]  # shown name -> item -> label
    origins: dict[tuple[str, ItemKey], str] = field(default_factory=dict)

    def origin(self, reviewer: str, key: ItemKey, field: str = "") -> str:
        """ "FILE: field labels.N<field>: " for a label read from a file, else nothing."""
        found = self.origins.get((reviewer, key))
        return f"{found}{field}: " if found is not None else ""


def read_all(paths: Sequence[str | Path]) -> ReviewLabels:
    """Labels of one review over every file, by reviewer (`combine_labels`)."""
    return combine_labels([(path, read_labels(path)) for path in paths])


def combine_labels(files: Sequence[tuple[str | Path, LabelsFile]]) -> ReviewLabels:
    """Labels of one review over every file read, by reviewer. One reviewer's files are
    combined (names compared as `reviewer_key` does; shown as the first file writes it), an
    item that reviewer labelled in two files is refused by name, and so is a file of another
    review."""
    by_key: dict[str, dict[ItemKey, Label]] = {}
    names: dict[str, str] = {}
    origins: dict[tuple[str, ItemKey], str] = {}
    review: tuple[str, str] | None = None  # (review id, the first file naming it)
    for path, labels in files:
        if review is None:
            review = (labels.review_id, str(path))
        elif labels.review_id != review[0]:
            raise ReviewInputError(
                f"{shown(path, 300)}: field review_id: labels of review {labels.review_id}, "
                f"but {shown(review[1], 300)} holds labels of review {review[0]}; score the "
                "labels of one review at a time"
            )
        key = reviewer_key(labels.reviewer)
        name = names.setdefault(key, labels.reviewer)
        mine = by_key.setdefault(key, {})
        for n, label in enumerate(labels.labels):
            here = f"{shown(path, 300)}: field labels.{n}"
            if label.key in mine:
                raise ReviewInputError(
                    f"{here}: reviewer '{shown(name)}' labelled item {shown(label.item_id)} of "
                    f"case {shown(label.case_id)} ({shown(label.answer_model)}, epoch "
                    f"{label.epoch}) already in {origins[(name, label.key)]}"
                )
            mine[label.key] = label
            origins[(name, label.key)] = here
    if review is None:
        raise ReviewInputError("no labels file given (a labels file from the review page)")
    return ReviewLabels(review[0], {names[k]: v for k, v in by_key.items()}, origins)
