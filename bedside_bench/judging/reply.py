"""Building the judge's user message and strictly parsing its reply (pure functions).

An invalid reply is never repaired: it is rejected with a reason, and the caller asks again.
The answer comes from the model under evaluation, so the message is delimited such that no
text inside a section can close it or open another (see `judge_user_message`); the reply
comes from another model, so parsing has a bounded cost whatever it contains.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from bedside_bench.core.contracts import RubricItem
from bedside_bench.core.protocol import JUDGE_MESSAGE_INTRO
from bedside_bench.core.safe_text import encodable, printable

_FENCE = re.compile(r"\A```[A-Za-z0-9_-]*[ \t]*\n(?P<body>.*)\n```\Z", re.DOTALL)

SECTIONS = ("clinical_prompt", "answer", "rubric_items")
BOUNDARY_CHARS = 16

# Bounds on a judge reply. A valid reply for the largest real case (41 items, three-level with
# rationales) is a few tens of kB and three levels deep; these leave a wide margin.
MAX_REPLY_CHARS = 1_000_000
MAX_NESTING = 32
MAX_KEYS_PER_OBJECT = 64
MAX_TOTAL_KEYS = 100_000
MAX_ERROR_CHARS = 1_000
MAX_LISTED_IDS = 10

# one left-to-right pass: escapes, quotes and brackets (an escaped quote is one token)
_TOKEN = re.compile(r'\\.|"|[\[\]{}]', re.DOTALL)


class JudgeReplyError(ValueError):
    """The judge's reply is not a valid set of decisions; the message is the reason.

    The reason quotes the reply (item ids, values), so it is made one printable, bounded line
    here, once for every reason: it goes to the transcript, the log and the terminal.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(printable(reason, MAX_ERROR_CHARS))


def format_points(points: int) -> str:
    return f"{points:+d}"


def rubric_line(item: RubricItem) -> str:
    return f"[{item.item_id}] points={format_points(item.points)} :: {item.text}"


def message_boundary(texts: Sequence[str]) -> str:
    """A token that occurs in none of `texts`, derived from them alone.

    Deterministic (a hash of the texts), so the same case and answer give the same message and
    Inspect's cache still hits; an answer cannot contain it without knowing its own hash.
    """
    digest = hashlib.sha256()
    for text in texts:
        # surrogatepass: an answer may hold a lone surrogate, and hashing it must not fail
        digest.update(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest())
    return boundary_from_seed(digest.hexdigest(), texts)


def boundary_from_seed(seed: str, texts: Sequence[str]) -> str:
    """The first derivation of `seed` that none of `texts` contains."""
    for counter in range(1_000):
        boundary = hashlib.sha256(f"{seed}:{counter}".encode()).hexdigest()[:BOUNDARY_CHARS]
        if not any(boundary in text for text in texts):
            return boundary
    raise ValueError("no section boundary avoids the texts")  # pragma: no cover


def open_marker(section: str, boundary: str) -> str:
    return f'<{section} boundary="{boundary}">'


def close_marker(section: str, boundary: str) -> str:
    return f'</{section} boundary="{boundary}">'


def judge_user_message(prompt: str, answer: str, items: Sequence[RubricItem]) -> str:
    """The protocol's labelled sections (clinical prompt, answer, rubric items), delimited.

    Every section opens and closes with a marker carrying a boundary that none of the texts
    contains, so tags, forged rubric lines or instructions inside the prompt or the answer stay
    inside their section. The rubric lines keep the protocol's `[item_id] points=+N :: text`.
    A lone surrogate in the answer (or prompt) is written as its escape, so the message always
    encodes and the judge can be asked (`safe_text.encodable`).
    """
    prompt, answer = encodable(prompt), encodable(answer)
    rubric = "\n".join(rubric_line(item) for item in items)
    boundary = message_boundary([prompt, answer, rubric])
    sections = dict(zip(SECTIONS, (prompt, answer, rubric), strict=True))
    intro = JUDGE_MESSAGE_INTRO.format(boundary=boundary)
    body = "\n\n".join(
        f"{open_marker(name, boundary)}\n{text}\n{close_marker(name, boundary)}"
        for name, text in sections.items()
    )
    return f"{intro}\n\n{body}"


def normalise_line_ends(text: str) -> str:
    """CRLF and lone CR as LF. JSON takes all three as whitespace between tokens and none
    inside a string, so a reply parses the same whichever it uses; the fence needs LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def strip_single_fence(text: str) -> str:
    """Remove one Markdown code fence around the whole reply, if there is one (LF line ends:
    see `normalise_line_ends`)."""
    stripped = text.strip()
    if not stripped.startswith("```"):
        return stripped
    match = _FENCE.match(stripped)
    if match is None or "```" in match["body"]:
        raise JudgeReplyError("the reply opens a code fence but is not exactly one fenced block")
    return match["body"].strip()


def _reject_constant(name: str) -> Any:
    raise JudgeReplyError(f"not JSON: {name} is not a JSON value")


def nesting_depth(text: str) -> int:
    """Deepest bracket nesting outside JSON strings, in linear time and without recursion."""
    depth = deepest = 0
    in_string = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == '"':
            in_string = not in_string
        elif in_string or token[0] == "\\":
            continue
        elif token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def listed(ids: Sequence[str]) -> str:
    """At most MAX_LISTED_IDS ids, then how many more: error messages stay short."""
    shown = ", ".join(ids[:MAX_LISTED_IDS])
    more = len(ids) - MAX_LISTED_IDS
    return f"{shown} and {more} more" if more > 0 else shown


class _KeyCheck:
    """object_pairs_hook: refuses duplicate keys (linear) and bounds the key counts."""

    def __init__(self) -> None:
        self.total = 0

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        if len(pairs) > MAX_KEYS_PER_OBJECT:
            raise JudgeReplyError(
                f"an object has {len(pairs)} keys; at most {MAX_KEYS_PER_OBJECT} are allowed"
            )
        self.total += len(pairs)
        if self.total > MAX_TOTAL_KEYS:
            raise JudgeReplyError(f"the reply has more than {MAX_TOTAL_KEYS} keys")
        value = dict(pairs)
        if len(value) != len(pairs):
            counts = Counter(k for k, _ in pairs)
            duplicates = sorted(k for k, n in counts.items() if n > 1)
            raise JudgeReplyError(f"duplicate JSON keys [{listed([repr(k) for k in duplicates])}]")
        return value


def load_reply_object(text: str) -> dict[str, Any]:
    """Parse the reply as exactly one JSON object (optionally in a single code fence), with
    LF, CRLF or CR line ends.

    The cost is bounded: the size and the nesting depth are checked before parsing, the key
    counts while parsing. Every failure is a `JudgeReplyError`.
    """
    if len(text) > MAX_REPLY_CHARS:
        raise JudgeReplyError(
            f"the reply has {len(text)} characters; at most {MAX_REPLY_CHARS} are allowed"
        )
    body = strip_single_fence(normalise_line_ends(text))
    if not body:
        raise JudgeReplyError("empty reply")
    depth = nesting_depth(body)
    if depth > MAX_NESTING:
        raise JudgeReplyError(f"the reply nests {depth} levels deep; at most {MAX_NESTING}")
    try:
        value = json.loads(body, parse_constant=_reject_constant, object_pairs_hook=_KeyCheck())
    except JudgeReplyError:
        raise
    except json.JSONDecodeError as ex:
        reason = ex.msg.removesuffix(" at")  # "Invalid control character at"
        raise JudgeReplyError(f"not JSON: {reason} at line {ex.lineno} column {ex.colno}") from None
    except ValueError as ex:  # e.g. an integer of more digits than Python converts
        raise JudgeReplyError(f"not JSON: {ex}") from None
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise JudgeReplyError("the reply nests too deeply") from None
    if not isinstance(value, dict):
        raise JudgeReplyError(f"the reply must be a JSON object, got {type(value).__name__}")
    return value


def check_item_ids(seen: Sequence[str], expected_ids: Sequence[str]) -> None:
    """Exactly one decision for every supplied item_id and no other item_ids."""
    expected = set(expected_ids)
    counts = Counter(seen)
    duplicates = sorted(i for i, n in counts.items() if n > 1)
    unknown = sorted(i for i in counts if i not in expected)
    missing = [i for i in expected_ids if i not in counts]
    problems = []
    if duplicates:
        problems.append(f"duplicate item_id {listed(duplicates)}")
    if unknown:
        problems.append(f"unknown item_id {listed(unknown)}")
    if missing:
        problems.append(f"missing item_id {listed(missing)}")
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
