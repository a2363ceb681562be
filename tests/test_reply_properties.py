"""Property tests through the real judge-reply parsers: whatever a judge says (any unicode,
lone surrogates, control characters, huge texts, fences with LF/CRLF/CR line ends, a reply
split over several text blocks), the parser either accepts it with exactly the decisions it
states or rejects it with a `JudgeReplyError` whose reason is one printable, bounded line
that encodes to UTF-8. Nothing else is raised. The rules are in docs/inputs.md."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessageAssistant,
    ContentReasoning,
    ContentText,
    ModelOutput,
)

from bedside_bench.calls.model_calls import reply_text
from bedside_bench.core.contracts import RubricItem
from bedside_bench.core.safe_text import encodable, printable
from bedside_bench.judging.judge import JudgeFailedError
from bedside_bench.judging.reply import (
    MAX_ERROR_CHARS,
    JudgeReplyError,
    judge_user_message,
    parse_decisions,
)
from bedside_bench.judging.three_level import parse_three_level

IDS = [f"{'a' * 32}_{n}" for n in range(4)]
ANSWER = "Stop ibuprofen. Check the INR in three days."
# every code point, lone surrogates included (hypothesis leaves them out unless asked)
ANY_CHAR = st.characters(exclude_categories=())
HOSTILE = st.sampled_from(
    ["\ud800", "\udfff", "\x00", "\x1b[31m", "\n", "\r", "\u2028", "\u200b", "\x7f", "[/bold]"]
)
ANY_TEXT = st.lists(st.one_of(ANY_CHAR, HOSTILE), max_size=60).map("".join)
PROPERTY_SETTINGS = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def assert_safe_reason(message: str, limit: int = MAX_ERROR_CHARS) -> None:
    """One line, printable, bounded, encodable: safe for a log, a message and a terminal."""
    assert message.isprintable(), ascii(message[:200])
    assert "\n" not in message and "\r" not in message
    assert len(message) <= limit + len("... (99999999 characters in all)")
    message.encode("utf-8")


def parse_or_reason(parse: Any, text: str) -> Any:
    try:
        return parse(text)
    except JudgeReplyError as ex:
        assert_safe_reason(str(ex))
        return ex


def fenced(body: str, line_end: str, language: str) -> str:
    return f"```{language}{line_end}{body}{line_end}```"


def split_output(text: str, cuts: list[int]) -> ModelOutput:
    """A reply whose text comes in several blocks cut at `cuts` (with a reasoning block
    first, which is not part of the text), as Anthropic's content blocks give it."""
    points = sorted({min(max(c, 0), len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    content: list[Any] = [ContentReasoning(reasoning="thinking")]
    content += [ContentText(text=piece) for piece in pieces]
    message = ChatMessageAssistant(content=content)
    return ModelOutput(model="m", choices=[ChatCompletionChoice(message=message)])


decisions_strategy = st.lists(st.booleans(), min_size=len(IDS), max_size=len(IDS))


@PROPERTY_SETTINGS
@given(
    matched=decisions_strategy,
    line_end=st.sampled_from(["\n", "\r\n", "\r"]),
    language=st.sampled_from(["", "json", "JSON"]),
    fence=st.booleans(),
    indent=st.sampled_from([None, 1, 2]),
    ascii_only=st.booleans(),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=4),
)
def test_a_valid_reply_parses_to_exactly_its_decisions_however_it_is_laid_out(
    matched: list[bool],
    line_end: str,
    language: str,
    fence: bool,
    indent: int | None,
    ascii_only: bool,
    cuts: list[int],
) -> None:
    decisions = dict(zip(IDS, matched, strict=True))
    body = json.dumps(
        {"decisions": [{"item_id": i, "matched": m} for i, m in decisions.items()]},
        indent=indent,
        ensure_ascii=ascii_only,
    ).replace("\n", line_end)
    text = fenced(body, line_end, language) if fence else body
    joined = reply_text(split_output(text, cuts))
    assert joined == text
    assert parse_decisions(joined, IDS) == decisions


@PROPERTY_SETTINGS
@given(
    junk=ANY_TEXT,
    position=st.integers(min_value=0, max_value=300),
    hostile_id=ANY_TEXT,
    where=st.sampled_from(["insert", "id", "extra-id", "value", "fence", "prefix"]),
    line_end=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_any_mutated_reply_is_accepted_exactly_or_rejected_with_a_safe_reason(
    junk: str, position: int, hostile_id: str, where: str, line_end: str
) -> None:
    entries: list[dict[str, Any]] = [
        {"item_id": i, "matched": n % 2 == 0} for n, i in enumerate(IDS)
    ]
    if where == "id":
        entries[0]["item_id"] = hostile_id
    elif where == "extra-id":
        entries.append({"item_id": hostile_id, "matched": True})
    elif where == "value":
        entries[1]["matched"] = hostile_id
    body = json.dumps({"decisions": entries}, ensure_ascii=position % 2 == 0)
    if where == "insert":
        body = body[:position] + junk + body[position:]
    elif where == "fence":
        body = f"```{junk}{line_end}{body}{line_end}```"
    elif where == "prefix":
        body = junk + body
    binary = parse_or_reason(lambda t: parse_decisions(t, IDS), body)
    if not isinstance(binary, JudgeReplyError):  # accepted: exactly what it says
        stated = json.loads(body[body.index("{") : body.rindex("}") + 1])
        assert binary == {e["item_id"]: e["matched"] for e in stated["decisions"]}
        assert list(binary) == IDS or sorted(binary) == sorted(IDS)
    three = parse_or_reason(lambda t: parse_three_level(t, ANSWER, IDS), body)
    assert isinstance(three, JudgeReplyError)  # binary decisions are no three-level reply


@PROPERTY_SETTINGS
@given(text=ANY_TEXT)
def test_arbitrary_text_never_raises_anything_but_a_safe_reason(text: str) -> None:
    for candidate in (text, "{" + text + "}", f'{{"decisions": [{text}]}}'):
        parse_or_reason(lambda t: parse_decisions(t, IDS), candidate)
        parse_or_reason(lambda t: parse_three_level(t, ANSWER, IDS), candidate)


@PROPERTY_SETTINGS
@given(
    evidence=ANY_TEXT,
    rationale=ANY_TEXT,
    decision=st.one_of(ANY_TEXT, st.sampled_from(["MET", "PARTIALLY_MET", "NOT_MET"])),
    item_id=st.one_of(st.sampled_from(IDS), ANY_TEXT),
)
def test_three_level_replies_with_hostile_fields_are_rejected_safely_or_exact(
    evidence: str, rationale: str, decision: str, item_id: str
) -> None:
    entries = [
        {"item_id": i, "decision": "NOT_MET", "rationale": "r", "evidence": ""} for i in IDS[1:]
    ]
    entries.insert(
        0, {"item_id": item_id, "decision": decision, "rationale": rationale, "evidence": evidence}
    )
    result = parse_or_reason(
        lambda t: parse_three_level(t, ANSWER, IDS), json.dumps({"decisions": entries})
    )
    if not isinstance(result, JudgeReplyError):
        assert [(j.item_id, j.decision, j.rationale, j.evidence) for j in result] == [
            (e["item_id"], e["decision"], e["rationale"], e["evidence"]) for e in entries
        ]


@pytest.mark.parametrize(
    "text",
    [
        "x" * 1_000_001,  # past the size bound
        '{"decisions": [' + ",".join(['{"item_id": "\\ud800", "matched": true}'] * 30_000) + "]}",
        '{"decisions": [{"item_id": "' + "\\u0007\\u001b" * 200_000 + '", "matched": true}]}',
        '{"decisions": [{"item_id": "x", "matched": ' + "9" * 5_000 + "}]}",
        "[" * 100_000,
    ],
    ids=["huge", "many-surrogate-ids", "megabyte-control-id", "huge-int", "deep"],
)
def test_huge_and_hostile_replies_are_rejected_with_a_safe_reason(text: str) -> None:
    for parse in (
        lambda t: parse_decisions(t, IDS),
        lambda t: parse_three_level(t, ANSWER, IDS),
    ):
        assert isinstance(parse_or_reason(parse, text), JudgeReplyError)


@PROPERTY_SETTINGS
@given(reasons=st.lists(ANY_TEXT, min_size=1, max_size=3))
def test_a_failed_judge_message_is_safe_whatever_the_reasons(reasons: list[str]) -> None:
    attempts = [{"attempt": n, "error": str(JudgeReplyError(r))} for n, r in enumerate(reasons)]
    assert_safe_reason(str(JudgeFailedError(attempts, "test/judge")), limit=8_000)


@PROPERTY_SETTINGS
@given(text=ANY_TEXT, limit=st.integers(min_value=1, max_value=80))
def test_printable_is_one_bounded_printable_line_and_encodable_keeps_all_but_surrogates(
    text: str, limit: int
) -> None:
    assert_safe_reason(printable(text, limit), limit)
    if text.isprintable() and len(text) <= limit:
        assert printable(text, limit) == text  # nothing to make safe: unchanged
    kept = encodable(text)
    kept.encode("utf-8")
    assert kept == text or any(0xD800 <= ord(c) <= 0xDFFF for c in text)


# --------------------------------------------------------------------------------------------
# the rules by example (docs/inputs.md, "The judge's reply")

REPLY = '{"decisions": [' + ", ".join(f'{{"item_id": "{i}", "matched": true}}' for i in IDS) + "]}"


@pytest.mark.parametrize("line_end", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_a_fence_parses_alike_with_lf_crlf_or_cr_line_ends(line_end: str) -> None:
    text = f"```json{line_end}{REPLY.replace(', ', ',' + line_end)}{line_end}```{line_end}"
    assert parse_decisions(text, IDS) == dict.fromkeys(IDS, True)


def test_a_line_break_inside_a_json_string_is_refused_whatever_its_kind() -> None:
    for line_end in ("\n", "\r\n", "\r"):
        broken = REPLY.replace(IDS[0], IDS[0][:5] + line_end + IDS[0][5:])
        with pytest.raises(JudgeReplyError, match="Invalid control character at line"):
            parse_decisions(broken, IDS)


def test_text_blocks_join_in_order_without_a_separator_and_skip_reasoning() -> None:
    cut = REPLY.index(IDS[2]) + 7  # inside an item id
    output = split_output(REPLY, [cut])
    assert [c.type for c in output.message.content] == ["reasoning", "text", "text"]
    assert output.completion != REPLY  # Inspect's completion puts a line break between them
    assert reply_text(output) == REPLY
    assert parse_decisions(reply_text(output), IDS) == dict.fromkeys(IDS, True)
    with pytest.raises(JudgeReplyError):
        parse_decisions(output.completion, IDS)


def test_text_around_the_fence_or_a_second_fence_is_refused() -> None:
    for text in (f"Here:\n```json\n{REPLY}\n```", f"```json\n{REPLY}\n```\n```\n{{}}\n```"):
        with pytest.raises(JudgeReplyError):
            parse_decisions(text, IDS)


@PROPERTY_SETTINGS
@given(prompt=ANY_TEXT, answer=ANY_TEXT)
def test_the_judge_message_is_built_whatever_the_answer_holds(prompt: str, answer: str) -> None:
    items = [RubricItem(item_id=IDS[0], text="Stops ibuprofen.", points=2)]
    message = judge_user_message(prompt, answer, items)
    assert judge_user_message(prompt, answer, items) == message
    # a lone surrogate is written as its escape, so the message always encodes and is sent
    assert encodable(answer) in message
    message.encode("utf-8")
