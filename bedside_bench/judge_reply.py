"""Building the judge's user message and strictly parsing its reply (pure functions).

An invalid reply is never repaired: it is rejected with a reason, and the caller asks again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from bedside_bench.scoring import RubricItem

_FENCE = re.compile(r"\A```[A-Za-z0-9_-]*[ \t]*\n(?P<body>.*)\n```\Z", re.DOTALL)


class JudgeReplyError(ValueError):
    """The judge's reply is not a valid set of decisions; the message is the reason."""


def format_points(points: int) -> str:
    return f"{points:+d}"


def rubric_line(item: RubricItem) -> str:
    return f"[{item.item_id}] points={format_points(item.points)} :: {item.text}"


def judge_user_message(prompt: str, answer: str, items: Sequence[RubricItem]) -> str:
    """The protocol's labelled sections: clinical prompt, answer, rubric items."""
    rubric = "\n".join(rubric_line(item) for item in items)
    return (
        f"<clinical_prompt>\n{prompt}\n</clinical_prompt>\n\n"
        f"<answer>\n{answer}\n</answer>\n\n"
        f"<rubric_items>\n{rubric}\n</rubric_items>"
    )


def strip_single_fence(text: str) -> str:
    """Remove one Markdown code fence around the whole reply, if there is one."""
    stripped = text.strip()
    if not stripped.startswith("```"):
        return stripped
    match = _FENCE.match(stripped)
    if match is None or "```" in match["body"]:
        raise JudgeReplyError("the reply opens a code fence but is not exactly one fenced block")
    return match["body"].strip()


def _reject_constant(name: str) -> Any:
    raise JudgeReplyError(f"not JSON: {name} is not a JSON value")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise JudgeReplyError(f"duplicate JSON keys {duplicates}")
    return dict(pairs)


def load_reply_object(text: str) -> dict[str, Any]:
    """Parse the reply as exactly one JSON object (optionally in a single code fence)."""
    body = strip_single_fence(text)
    if not body:
        raise JudgeReplyError("empty reply")
    try:
        value = json.loads(
            body, parse_constant=_reject_constant, object_pairs_hook=_no_duplicate_keys
        )
    except json.JSONDecodeError as ex:
        raise JudgeReplyError(f"not JSON: {ex.msg} at line {ex.lineno} column {ex.colno}") from None
    if not isinstance(value, dict):
        raise JudgeReplyError(f"the reply must be a JSON object, got {type(value).__name__}")
    return value


def check_item_ids(seen: Sequence[str], expected_ids: Sequence[str]) -> None:
    """Exactly one decision for every supplied item_id and no other item_ids."""
    expected = set(expected_ids)
    counts: dict[str, int] = {}
    for item_id in seen:
        counts[item_id] = counts.get(item_id, 0) + 1
    duplicates = sorted(i for i, n in counts.items() if n > 1)
    unknown = sorted(i for i in counts if i not in expected)
    missing = [i for i in expected_ids if i not in counts]
    problems = []
    if duplicates:
        problems.append(f"duplicate item_id {', '.join(duplicates)}")
    if unknown:
        problems.append(f"unknown item_id {', '.join(unknown)}")
    if missing:
        problems.append(f"missing item_id {', '.join(missing)}")
    if problems:
        raise JudgeReplyError("; ".join(problems))


def decision_entries(value: dict[str, Any], allowed_keys: set[str]) -> list[dict[str, Any]]:
    """The `decisions` list, with every entry an object of exactly `allowed_keys`."""
    if set(value) != {"decisions"}:
        extra = sorted(set(value) - {"decisions"})
        if extra:
            raise JudgeReplyError(f"unexpected top-level keys {extra}; only 'decisions' is allowed")
        raise JudgeReplyError("missing top-level key 'decisions'")
    entries = value["decisions"]
    if not isinstance(entries, list):
        raise JudgeReplyError(f"'decisions' must be a list, got {type(entries).__name__}")
    for position, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise JudgeReplyError(f"decision {position} is not an object")
        keys = set(entry)
        if keys != allowed_keys:
            missing = sorted(allowed_keys - keys)
            extra = sorted(keys - allowed_keys)
            detail = "; ".join(
                part
                for part in (
                    f"missing {missing}" if missing else "",
                    f"unexpected {extra}" if extra else "",
                )
                if part
            )
            raise JudgeReplyError(
                f"decision {position} must have exactly the keys {sorted(allowed_keys)}: {detail}"
            )
        if not isinstance(entry["item_id"], str):
            raise JudgeReplyError(f"decision {position}: item_id must be a string")
    return entries


def parse_decisions(text: str, expected_ids: Sequence[str]) -> dict[str, bool]:
    """`{"decisions": [{"item_id": str, "matched": bool}, ...]}` -> {item_id: matched}."""
    entries = decision_entries(load_reply_object(text), {"item_id", "matched"})
    for position, entry in enumerate(entries):
        if not isinstance(entry["matched"], bool):
            raise JudgeReplyError(
                f"decision {position} ({entry['item_id']}): matched must be a JSON boolean, "
                f"got {json.dumps(entry['matched'])}"
            )
    check_item_ids([e["item_id"] for e in entries], expected_ids)
    return {e["item_id"]: e["matched"] for e in entries}
