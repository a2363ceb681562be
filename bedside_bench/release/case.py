"""Validation and canonical form of one BedsideBench case (a value read from a case file): the
`Case` model (`release/case_model.py`) is built only once no rule found a violation.

Every violation is collected, not just the first, so that a broken release is fixed in one pass.
Past 300 lines because every rule about one case's content (schema, ids, points, text that is
really text and shows something) feeds one violation list with one way of naming a place.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bedside_bench.core.benchmarks import BENCHMARKS_BY_NAME
from bedside_bench.core.contracts import GradingMethod
from bedside_bench.core.inspect_private import PrerequisiteError
from bedside_bench.core.safe_text import is_blank as is_blank
from bedside_bench.core.safe_text import printable
from bedside_bench.release.case_model import Case
from bedside_bench.release.case_schema import case_validator

CASE_KEYS = frozenset({"case_id", "benchmark", "grading_method", "prompt", "rubric_items", "split"})
# matched whole (`fullmatch`): a regex `$` also matches before a final line break, and so does
# the schema's pattern as Python's jsonschema applies it, so "..._0\n" would pass as an id
CASE_ID_PATTERN = re.compile(r"[0-9a-f]{32}")
CANONICAL_ITEM_ID = re.compile(r"(?P<prefix>[0-9a-f]{32})_(?P<index>[0-9]+)")
LEGACY_ITEM_ID = re.compile(r"item_(?P<index>[0-9]+)")
SCHEMA_CASE_ID = re.compile(r"^[0-9a-f]{32}$")  # as jsonschema searches
SCHEMA_ITEM_ID = re.compile(r"^([0-9a-f]{32}_[0-9]+|item_[0-9]+)$")  # as jsonschema searches
# characters that show nothing: categories beyond whitespace, and blank letters and symbols

# Generous bounds (the public release's largest: prompt 1,396 characters, item text 489, 41
# items, file 8.7 kB); the schemas carry the same numbers. Points are the protocol's -3..+3.
MAX_PROMPT_CHARS = 100_000
MAX_ITEM_TEXT_CHARS = 10_000
MAX_ITEMS = 500
MAX_CASE_FILE_BYTES = 1_000_000
POINTS_RANGE = (-3, 3)
MAX_MESSAGE_CHARS = 300


def short(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """A message that quotes data (a schema error repeats the offending value) as one
    printable, bounded line."""
    return printable(text, limit)


def first_surrogate(text: str) -> int | None:
    """The position of the first lone surrogate in `text` (JSON's `"\\ud800"` decodes to
    one), which no UTF-8 encoder takes; None when there is none."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as ex:
        return ex.start
    return None


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(dotted path, text) of every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield path or "(key)", key
            yield from _strings(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}.{index}" if path else str(index))


@dataclass(frozen=True)
class Violation:
    """One problem in the data, with enough context to find it."""

    file: str
    message: str
    case_id: str | None = None
    item_id: str | None = None
    field: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", short(self.message))

    def __str__(self) -> str:
        # the ids and the path come from the data (a file name may hold any byte): one line
        where = [printable(self.file)]
        if self.case_id:
            where.append(f"case {printable(self.case_id, 100)}")
        if self.item_id:
            where.append(f"item {printable(self.item_id, 100)}")
        if self.field:
            where.append(f"field {printable(self.field, 200)}")
        return f"{', '.join(where)}: {self.message}"


class DatasetError(PrerequisiteError, ValueError):
    """The dataset is invalid; lists every violation found.

    A PrerequisiteError, so the `inspect` command prints the list without a traceback.
    """

    def __init__(self, violations: list[Violation]) -> None:
        self.violations = violations
        lines = "\n".join(f"  - {v}" for v in violations)
        text = (
            f"invalid BedsideBench data ({len(violations)} problem"
            f"{'s' if len(violations) != 1 else ''}); nothing was evaluated:\n{lines}"
        )
        ValueError.__init__(self, text)
        self.message = text


def prompt_md5(prompt: str) -> str:
    return hashlib.md5(prompt.encode("utf-8")).hexdigest()


def canonical_item_id(prompt: str, index: int) -> str:
    return f"{prompt_md5(prompt)}_{index}"


def _schema_violations(case: dict[str, Any], file: str, case_id: str | None) -> list[Violation]:
    f1 = case.get("grading_method") == "f1_weighted_rubric"
    method: GradingMethod = "f1_weighted_rubric" if f1 else "points_rubric"
    found = []
    errors = case_validator(method).iter_errors(case)
    for error in sorted(errors, key=lambda e: str(list(e.path))):
        path = list(error.absolute_path)
        if not path and error.validator in ("required", "additionalProperties"):
            continue  # the key-set check says this more plainly
        item_id = None
        field = ".".join(str(p) for p in path) or None
        if len(path) >= 2 and path[0] == "rubric_items" and isinstance(path[1], int):
            items = case.get("rubric_items")
            if isinstance(items, list) and isinstance(items[path[1]], dict):
                raw_id = items[path[1]].get("item_id")
                item_id = raw_id if isinstance(raw_id, str) else None
        found.append(Violation(file, _schema_message(error), case_id, item_id, field))
    return found


def _schema_message(error: Any) -> str:
    """A schema error in words that do not repeat a long value."""
    value = error.instance
    if error.validator == "maxLength" and isinstance(value, str):
        return f"is {len(value)} characters long; at most {error.validator_value} are allowed"
    if error.validator == "maxItems" and isinstance(value, list):
        return f"has {len(value)} items; at most {error.validator_value} are allowed"
    return str(error.message)


def validate_case(
    case: Any, *, file: str, expected_case_id: str, expected_benchmark: str
) -> tuple[Case | None, list[Violation]]:
    """Check one case; return its canonical form (None when invalid) and the violations.

    The canonical form rewrites legacy per-case item ids (`item_<index>`) to
    `{md5(prompt)}_{index}`, so that the judge, the scores and the logs only see one form.
    """
    if not isinstance(case, dict):
        return None, [Violation(file, f"a case must be a JSON object, got {type(case).__name__}")]
    raw_case_id = case.get("case_id")
    case_id = raw_case_id if isinstance(raw_case_id, str) else None
    # a lone surrogate is reported, and the rest is still checked (no md5 of such a prompt)
    violations = _surrogate_violations(case, file, case_id)

    keys = set(case)
    if keys != CASE_KEYS:
        missing = sorted(CASE_KEYS - keys)
        extra = sorted(keys - CASE_KEYS)
        parts = []
        if missing:
            parts.append(f"missing keys {missing}")
        if extra:
            parts.append(f"unexpected keys {extra}")
        violations.append(
            Violation(
                file,
                "the key set must be exactly the six documented keys: " + "; ".join(parts),
                case_id,
            )
        )
    violations.extend(_schema_violations(case, file, case_id))

    if case_id is not None and not CASE_ID_PATTERN.fullmatch(case_id):
        if SCHEMA_CASE_ID.search(case_id):  # the schema says so for every other value
            violations.append(
                Violation(
                    file,
                    f"case_id {case_id!r} is not 32 lowercase hexadecimal digits",
                    case_id,
                    field="case_id",
                )
            )
    elif case_id is not None and case_id != expected_case_id:
        violations.append(
            Violation(
                file,
                f"case_id does not equal the file name ({expected_case_id})",
                case_id,
                field="case_id",
            )
        )
    if case.get("benchmark") != expected_benchmark:
        violations.append(
            Violation(
                file,
                f"benchmark {case.get('benchmark')!r} does not equal its folder "
                f"{expected_benchmark!r}",
                case_id,
                field="benchmark",
            )
        )
    benchmark = BENCHMARKS_BY_NAME.get(expected_benchmark)
    if benchmark is not None and case.get("grading_method") != benchmark.grading_method:
        violations.append(
            Violation(
                file,
                f"grading_method {case.get('grading_method')!r} is not "
                f"{expected_benchmark}'s {benchmark.grading_method!r}",
                case_id,
                field="grading_method",
            )
        )
    prompt = case.get("prompt")
    if isinstance(prompt, str) and is_blank(prompt):
        violations.append(
            Violation(
                file,
                "the prompt is empty (only whitespace or invisible characters)",
                case_id,
                field="prompt",
            )
        )

    items = case.get("rubric_items")
    canonical_items: list[dict[str, Any]] = []
    if isinstance(items, list):
        item_violations, canonical_items = check_rubric_items(
            items, prompt if isinstance(prompt, str) else None, file, case_id
        )
        violations.extend(item_violations)

    if violations:
        return None, violations
    # every key and type is the schema's by now: the model cannot refuse what passed
    return Case.model_validate({**case, "rubric_items": canonical_items}), []


def _surrogate_violations(case: dict[str, Any], file: str, case_id: str | None) -> list[Violation]:
    """A violation for every string (key or value) holding a lone surrogate."""
    found = []
    for path, text in _strings(case, ""):
        position = first_surrogate(text)
        if position is None:
            continue
        item_id = None
        parts = path.split(".")
        items = case.get("rubric_items")
        if parts[0] == "rubric_items" and len(parts) > 1 and isinstance(items, list):
            item = items[int(parts[1])]
            raw_id = item.get("item_id") if isinstance(item, dict) else None
            item_id = raw_id if isinstance(raw_id, str) else None
        found.append(
            Violation(
                file,
                f"holds a lone surrogate ({ascii(text[position])} at character {position}), "
                "which is not text",
                case_id if case_id is not None and first_surrogate(case_id) is None else None,
                item_id,
                path,
            )
        )
    return found


def check_rubric_items(
    items: list[Any], prompt: str | None, file: str, case_id: str | None
) -> tuple[list[Violation], list[dict[str, Any]]]:
    """The rubric rules the JSON schema cannot say; shared by cases and judge-check pairs."""
    violations: list[Violation] = []
    canonical: list[dict[str, Any]] = []
    seen: set[str] = set()
    if prompt is not None and first_surrogate(prompt) is not None:
        prompt = None  # not text (the caller reports it): no md5 to compare ids with
    has_positive = False
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue  # reported by the schema
        item_id = item.get("item_id")
        points = item.get("points")
        if isinstance(points, int) and not isinstance(points, bool):
            has_positive = has_positive or points > 0
        if isinstance(points, float) and points.is_integer():
            # the schema's "integer" accepts 1.0 (a fraction is its error); points are integers
            violations.append(
                Violation(
                    file,
                    f"points must be written as a JSON integer, got {points!r}",
                    case_id,
                    item_id if isinstance(item_id, str) else None,
                    f"rubric_items.{index}.points",
                )
            )
        text = item.get("text")
        if isinstance(text, str) and text and is_blank(text):
            violations.append(
                Violation(
                    file,
                    "the item text is empty (only whitespace or invisible characters)",
                    case_id,
                    item_id if isinstance(item_id, str) else None,
                    f"rubric_items.{index}.text",
                )
            )
        if isinstance(text, str) and len(text.splitlines()) > 1:
            # the judge message has one rubric line per item; a line break would add lines
            violations.append(
                Violation(
                    file,
                    "the item text must be one line (the judge message has one line per item)",
                    case_id,
                    item_id if isinstance(item_id, str) else None,
                    f"rubric_items.{index}.text",
                )
            )
        if not isinstance(item_id, str):
            continue
        if item_id in seen:
            violations.append(Violation(file, "duplicate item_id", case_id, item_id, "item_id"))
        seen.add(item_id)
        new_id = item_id
        legacy = LEGACY_ITEM_ID.fullmatch(item_id)
        canonical_match = CANONICAL_ITEM_ID.fullmatch(item_id)
        if not legacy and not canonical_match and SCHEMA_ITEM_ID.search(item_id):
            # the schema's pattern says so for every other id (see CASE_ID_PATTERN)
            violations.append(
                Violation(
                    file,
                    f"item_id {item_id!r} is neither {{md5(prompt)}}_{{index}} nor item_{{index}}",
                    case_id,
                    item_id,
                    f"rubric_items.{index}.item_id",
                )
            )
        elif legacy:
            if int(legacy["index"]) != index:
                violations.append(
                    Violation(
                        file,
                        f"legacy item id index {legacy['index']} does not equal the item's "
                        f"position {index}",
                        case_id,
                        item_id,
                        "item_id",
                    )
                )
            elif prompt is not None:
                new_id = canonical_item_id(prompt, index)
        elif canonical_match:
            if prompt is not None and canonical_match["prefix"] != prompt_md5(prompt):
                violations.append(
                    Violation(
                        file,
                        f"item id prefix is not md5(prompt) = {prompt_md5(prompt)}",
                        case_id,
                        item_id,
                        "item_id",
                    )
                )
            if int(canonical_match["index"]) != index:
                violations.append(
                    Violation(
                        file,
                        f"item id index {canonical_match['index']} does not equal the "
                        f"item's position {index}",
                        case_id,
                        item_id,
                        "item_id",
                    )
                )
        canonical.append({**item, "item_id": new_id})
    if items and not has_positive:
        violations.append(
            Violation(file, "the rubric has no positive-point item", case_id, field="rubric_items")
        )
    return violations, canonical
