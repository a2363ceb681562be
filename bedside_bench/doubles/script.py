"""The double's "brain": how a request is classified and what is said back (pure functions).

Everything here is deterministic and independent of the HTTP layer, so a test can compute the
expected score of a case from the case data plus `scripted_answer` / `scripted_decision` /
`scripted_three_level`, without talking to the server.

Past 300 lines: the scripted content, usage, the judge message's parsing, the request record
and the ready-made scripts (invalid judges, refused temperatures) are small pieces a test
combines; kept together so a script of one's own finds every piece in one place.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Api = Literal["chat", "responses", "anthropic"]
Kind = Literal["judge", "answer", "probe", "count_tokens", "other"]

JUDGE_SYSTEM_PREFIX = "You are grading a clinical answer against independent rubric items."
THREE_LEVEL_MARKER = "PARTIALLY_MET"
THREE_LEVEL_SCALE = "MET / PARTIALLY_MET / NOT_MET"
PROBE_TEXT = "Please say 'hello, world'"
PROBE_REPLY = "hello, world"
THREE_LEVELS: tuple[str, str, str] = ("MET", "PARTIALLY_MET", "NOT_MET")
NEUTRAL_RATIONALE = "Scripted assessment of the answer against this rubric item."
# words a three-level rationale must never contain (the scripted one is neutral)
NON_NEUTRAL_WORDS: tuple[str, ...] = (
    "partially",
    "missing",
    "could have",
    "fails to",
    "contradicts",
    "dangerous",
)
INVALID_JUDGE_REPLY = "The answer seems broadly reasonable; I would not change much."
RUBRIC_LINE = re.compile(r"^\[([^\]]+)\] points=([+-]\d+) :: (.*)$", re.MULTILINE)


# --------------------------------------------------------------------------------------------
# scripted content


def _hash_int(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def scripted_answer(model: str, prompt: str) -> str:
    """The default answer: names the requested model (as sent on the wire, e.g. "gpt-4.1-mini",
    without the "openai/" prefix) and a short hash of the prompt (the user text)."""
    digest = hashlib.md5(prompt.encode()).hexdigest()[:12]
    return f"Answer from {model}: case {digest}. Recommend standard evaluation and follow-up."


def scripted_decision(answer: str, item_id: str) -> bool:
    """The default two-level judge decision for one rubric item (about 55% matched)."""
    return _hash_int(f"{answer}|{item_id}") % 100 < 55


def scripted_three_level(answer: str, item_id: str) -> str:
    """The default three-level decision: "MET", "PARTIALLY_MET" or "NOT_MET".

    An answer that is empty or whitespace is always "NOT_MET" (there is nothing to quote)."""
    if not answer.strip():
        return "NOT_MET"
    return THREE_LEVELS[_hash_int(f"three-level|{answer}|{item_id}") % 3]


def scripted_evidence(answer: str, item_id: str, decision: str) -> str:
    """A verbatim substring of `answer` (one of its sentences, at most 200 characters) for
    MET / PARTIALLY_MET, and "" for NOT_MET."""
    if decision == "NOT_MET":
        return ""
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", answer) if s.strip()]
    if not sentences:
        return ""
    return sentences[_hash_int(f"evidence|{answer}|{item_id}") % len(sentences)][:200]


# --------------------------------------------------------------------------------------------
# token usage


def estimate_tokens(text: str) -> int:
    """Deterministic token estimate: one token per 4 characters, rounded up."""
    return (len(text) + 3) // 4


def is_reasoning_model(model: str) -> bool:
    """gpt-5 and later (except "-chat" variants) and the o-series "reason" in the double."""
    name = model.lower()
    version = re.search(r"gpt-(\d+)", name)
    if version is not None and int(version.group(1)) >= 5:
        return "-chat" not in name
    return re.match(r"^o\d", name) is not None


@dataclass(frozen=True)
class Usage:
    """Provider-neutral usage; `input_tokens` includes `cached_tokens` and `output_tokens`
    includes `reasoning_tokens` (OpenAI's convention; the Anthropic wire format reports
    `input_tokens - cached_tokens` as its `input_tokens`)."""

    input_tokens: int
    cached_tokens: int
    output_tokens: int
    reasoning_tokens: int

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


def scripted_usage(system: str, input_text: str, output_text: str, reasoning: bool) -> Usage:
    """Usage derived from text lengths only.

    input = tokens(system) + tokens(all non-system message text) + 8;
    cached = tokens(system) // 2; visible output = max(1, tokens(reply));
    reasoning = 2 * visible output when the model reasons, else 0, plus the tokens of a
    scripted reasoning text (`Reasoned`).
    """
    system_tokens = estimate_tokens(system)
    visible = max(1, estimate_tokens(output_text))
    reasoning_tokens = 2 * visible if reasoning else 0
    reasoning_tokens += estimate_tokens(reasoning_of(output_text) or "")
    return Usage(
        input_tokens=system_tokens + estimate_tokens(input_text) + 8,
        cached_tokens=system_tokens // 2,
        output_tokens=visible + reasoning_tokens,
        reasoning_tokens=reasoning_tokens,
    )


# --------------------------------------------------------------------------------------------
# judge prompt parsing


@dataclass(frozen=True)
class RubricLine:
    item_id: str
    points: int
    text: str


@dataclass(frozen=True)
class JudgeInput:
    """The three labelled sections of a judge user message."""

    prompt: str
    answer: str
    items: tuple[RubricLine, ...]

    @property
    def item_ids(self) -> list[str]:
        return [item.item_id for item in self.items]


def _trim_layout_newlines(text: str) -> str:
    """Drop the one newline the package's layout puts after an opening and before a closing tag
    (the content is otherwise kept verbatim)."""
    if text.startswith("\n"):
        text = text[1:]
    if text.endswith("\n"):
        text = text[:-1]
    return text


BOUNDARY_OPEN = re.compile(r'<clinical_prompt boundary="([0-9a-f]+)">')


def _between(text: str, start: str, end: str) -> str:
    return _trim_layout_newlines(text.partition(start)[2].partition(end)[0])


def parse_judge_user(user: str) -> JudgeInput:
    """Parse the judge user message built by the package.

    The package delimits each section with `<name boundary="B">` ... `</name boundary="B">`
    (a boundary no text contains); the content is what lies between, without the single
    newline the layout adds on each side. Without a boundary (the older layout), the answer is
    everything between the first "<answer>" after "</clinical_prompt>" and the LAST
    "</answer>" before the last "<rubric_items>". Rubric lines are matched with `RUBRIC_LINE`.
    """
    found = BOUNDARY_OPEN.search(user)
    if found:
        b = found.group(1)
        prompt, answer, rubric = (
            _between(user, f'<{name} boundary="{b}">', f'</{name} boundary="{b}">')
            for name in ("clinical_prompt", "answer", "rubric_items")
        )
    else:
        head, sep, tail = user.rpartition("<rubric_items>")
        if not sep:
            head, tail = user, ""
        rubric = tail.partition("</rubric_items>")[0]
        prompt_zone, sep, rest = head.partition("</clinical_prompt>")
        if sep:
            prompt = _trim_layout_newlines(prompt_zone.partition("<clinical_prompt>")[2])
        else:
            prompt, rest = "", head
        answer = _trim_layout_newlines(rest.partition("<answer>")[2].rpartition("</answer>")[0])
    items = tuple(
        RubricLine(m.group(1), int(m.group(2)), m.group(3)) for m in RUBRIC_LINE.finditer(rubric)
    )
    return JudgeInput(prompt=prompt, answer=answer, items=items)


# --------------------------------------------------------------------------------------------
# requests


@dataclass
class ParsedRequest:
    """One provider request as the double understood it.

    `system` joins the system/developer texts (and Responses `instructions`) with "\\n\\n";
    `user` joins the user-message texts with "\\n\\n" (a single-turn request: the prompt).
    `temperature` is None when the body has no "temperature" key.
    """

    api: Api
    path: str
    model: str
    system: str
    user: str
    temperature: float | None
    temperature_present: bool
    stream: bool
    input_text: str = ""  # every non-system message text, for usage
    body: dict[str, Any] = field(default_factory=dict, repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def is_three_level(self) -> bool:
        return THREE_LEVEL_MARKER in self.system

    @property
    def kind(self) -> Kind:
        return classify(self)

    @property
    def judge(self) -> JudgeInput:
        """The parsed judge sections (meaningful when `kind == "judge"`)."""
        return parse_judge_user(self.user)


def classify(req: ParsedRequest) -> Kind:
    if req.path.endswith("/count_tokens") or req.path.endswith("/input_tokens"):
        return "count_tokens"
    if req.system.startswith(JUDGE_SYSTEM_PREFIX) or THREE_LEVEL_MARKER in req.system:
        return "judge"
    if req.api == "responses" and req.user.strip() == PROBE_TEXT and not req.system:
        return "probe"
    return "answer"


# --------------------------------------------------------------------------------------------
# replies


# how a scripted answer stops: on its own, at the token limit, by the content filter, as a
# refusal, or at the end of the context window (each wire format says so in its own way; see
# `wire.py`: Anthropic's `model_context_window_exceeded`, the OpenAI APIs' token limit)
Stop = Literal["stop", "max_tokens", "content_filter", "refusal", "model_length"]
STOPS: tuple[Stop, ...] = ("stop", "max_tokens", "content_filter", "refusal", "model_length")


@dataclass(frozen=True)
class Reply:
    """A scripted reply and how it stops; a plain `str` reply stops on its own. An empty
    `text` is an answer with no text. `reasoning`: what the model reasoned before it, sent as
    the API's reasoning (a Responses `reasoning` item with its summary, an Anthropic `thinking`
    block; Chat Completions shows only its tokens) and counted as reasoning tokens. An empty
    `text` with reasoning and `stop="max_tokens"` is a budget spent on reasoning."""

    text: str
    stop: Stop = "stop"
    reasoning: str | None = None


class Reasoned(str):
    """A reply's text that carries the reasoning before it (`Reply.reasoning`) to the wire
    formats; everything else sees the text, which is what the str is."""

    reasoning: str

    def __new__(cls, text: str, reasoning: str) -> Reasoned:
        made = super().__new__(cls, text)
        made.reasoning = reasoning
        return made


def reasoning_of(text: str) -> str | None:
    """The reasoning a reply's text carries (`Reasoned`), else None."""
    return text.reasoning if isinstance(text, Reasoned) else None


ReplyFn = Callable[[ParsedRequest], "str | Reply"]


class ScriptedError(Exception):
    """Raise from a script callable to answer with an HTTP error in the provider's shape."""

    def __init__(
        self,
        status: int,
        message: str,
        error_type: str | None = None,
        retry_after: float | None = None,
        param: str | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.error_type = error_type
        self.retry_after = retry_after
        self.param = param
        self.code = code


class TextBlocks(str):
    """A reply in several text blocks: the Anthropic double sends each as its own content
    block (a provider may split one text anywhere, even inside a JSON string); every other API
    and the usage see the blocks joined, which is what the str is."""

    blocks: tuple[str, ...]

    def __new__(cls, blocks: list[str]) -> TextBlocks:
        text = super().__new__(cls, "".join(blocks))
        text.blocks = tuple(blocks)
        return text


def text_blocks(text: str) -> list[str]:
    """The blocks of a reply: those of `TextBlocks`, else the one text."""
    return list(text.blocks) if isinstance(text, TextBlocks) else [text]


def temperature_refusal_error(api: Api, code: str = "unsupported_value") -> ScriptedError:
    """The provider's own refusal of the temperature parameter, in its shape: OpenAI names
    the parameter (`param`) and why (`code`); Anthropic says it in an invalid_request_error."""
    if api == "anthropic":
        return ScriptedError(
            400, "temperature: Extra inputs are not permitted", "invalid_request_error"
        )
    return ScriptedError(
        400,
        "Unsupported value: 'temperature' does not support 1.0 with this model. "
        "Only the default (1) value is supported.",
        "invalid_request_error",
        param="temperature",
        code=code,
    )


def unrelated_bad_request(api: Api) -> ScriptedError:
    """An HTTP 400 about another parameter (an invalid max_output_tokens); Inspect's error
    text still names the temperature, since it quotes the request."""
    if api == "anthropic":
        return ScriptedError(
            400, "max_tokens: Input should be greater than or equal to 1", "invalid_request_error"
        )
    return ScriptedError(
        400,
        "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16.",
        "invalid_request_error",
        param="max_output_tokens",
        code="integer_below_min_value",
    )


def refusing_temperature(then: ReplyFn, code: str = "unsupported_value") -> ReplyFn:
    """A script that refuses every request carrying a temperature, as a provider whose model
    takes none does, and answers `then` otherwise."""

    def reply(req: ParsedRequest) -> str | Reply:
        if req.temperature_present:
            raise temperature_refusal_error(req.api, code)
        return then(req)

    return reply


def default_answer(req: ParsedRequest) -> str:
    return scripted_answer(req.model, req.user)


def two_level_decisions(judge: JudgeInput) -> list[dict[str, Any]]:
    return [
        {"item_id": item_id, "matched": scripted_decision(judge.answer, item_id)}
        for item_id in judge.item_ids
    ]


def three_level_decisions(judge: JudgeInput) -> list[dict[str, Any]]:
    decisions = []
    for item_id in judge.item_ids:
        decision = scripted_three_level(judge.answer, item_id)
        decisions.append(
            {
                "item_id": item_id,
                "decision": decision,
                "rationale": NEUTRAL_RATIONALE,
                "evidence": scripted_evidence(judge.answer, item_id, decision),
            }
        )
    return decisions


def _judge_decisions(req: ParsedRequest) -> list[dict[str, Any]]:
    """The scripted decision of every rubric item; three-level when the system message says so."""
    judge = req.judge
    return three_level_decisions(judge) if req.is_three_level else two_level_decisions(judge)


def default_judge(req: ParsedRequest) -> str:
    """`{"decisions": [...]}` as plain JSON text."""
    return json.dumps({"decisions": _judge_decisions(req)})


def default_probe(req: ParsedRequest) -> str:
    return PROBE_REPLY


def noisy_judge(flip_rate: float, seed: int = 0) -> ReplyFn:
    """A judge whose every decision departs from the scripted one with probability
    `flip_rate`, drawn afresh for each call on the same answer: judge passes (and a judge asked
    again) disagree as a real judge's do, so the report's interval over cases and judge passes
    has noise to show. Two-level decisions flip; a three-level one moves to one of the other
    two levels. Deterministic given `seed` and the order of the calls on each answer."""
    if not 0.0 <= flip_rate <= 1.0:
        raise ValueError(f"flip_rate must be in [0, 1], got {flip_rate!r}")
    calls: dict[tuple[str, str], int] = {}
    lock = threading.Lock()

    def judge(req: ParsedRequest) -> str:
        parsed = req.judge
        with lock:
            k = calls.get((parsed.prompt, parsed.answer), 0)
            calls[(parsed.prompt, parsed.answer)] = k + 1

        def flips(item_id: str) -> int | None:
            draw = _hash_int(f"noisy|{seed}|{k}|{parsed.prompt}|{parsed.answer}|{item_id}")
            return draw % 2 if (draw >> 1) % 10_000 < flip_rate * 10_000 else None

        decisions = _judge_decisions(req)
        for decision in decisions:
            shift = flips(decision["item_id"])
            if shift is None:
                continue
            if "matched" in decision:
                decision["matched"] = not decision["matched"]
            else:
                others = [level for level in THREE_LEVELS if level != decision["decision"]]
                decision["decision"] = others[shift]
                decision["evidence"] = scripted_evidence(
                    parsed.answer, decision["item_id"], decision["decision"]
                )
        return json.dumps({"decisions": decisions})

    return judge


def omit_last_item_reply(req: ParsedRequest) -> str:
    """A well-formed judge reply that leaves out the last rubric item (invalid by protocol)."""
    return json.dumps({"decisions": _judge_decisions(req)[:-1]})


def _prompt_matcher(prompt: str | Callable[[str], bool] | None) -> Callable[[str], bool]:
    if prompt is None:
        return lambda _: True
    if callable(prompt):
        return prompt
    return lambda text: prompt in text


def invalid_judge_first(
    n: int,
    prompt: str | Callable[[str], bool] | None = None,
    reply: str | ReplyFn = INVALID_JUDGE_REPLY,
    then: ReplyFn = default_judge,
    per_answer: bool = False,
) -> ReplyFn:
    """A judge that answers `reply` to the first `n` judge calls for each matching clinical
    prompt, then defers to `then`.

    `prompt`: None matches every prompt (each prompt counted separately); a string matches
    prompts containing it; or a predicate on the prompt text. With `per_answer=True` calls are
    counted per (prompt, answer) pair, i.e. separately for each answering model.
    """
    matches = _prompt_matcher(prompt)
    counts: dict[tuple[str, str], int] = {}
    lock = threading.Lock()

    def judge(req: ParsedRequest) -> str | Reply:
        parsed = req.judge
        if not matches(parsed.prompt):
            return then(req)
        key = (parsed.prompt, parsed.answer if per_answer else "")
        with lock:
            seen = counts.get(key, 0)
            counts[key] = seen + 1
        if seen < n:
            return reply(req) if callable(reply) else reply
        return then(req)

    return judge


def invalid_judge_always(
    prompt: str | Callable[[str], bool] | None,
    reply: str | ReplyFn = INVALID_JUDGE_REPLY,
    then: ReplyFn = default_judge,
) -> ReplyFn:
    """A judge that always answers `reply` for matching clinical prompts."""
    matches = _prompt_matcher(prompt)

    def judge(req: ParsedRequest) -> str | Reply:
        if matches(req.judge.prompt):
            return reply(req) if callable(reply) else reply
        return then(req)

    return judge


@dataclass
class Script:
    """What the double says: one callable per request kind (each may raise `ScriptedError`).

    Callables run on the server's event-loop thread; keep them quick and non-blocking."""

    answer: ReplyFn = default_answer
    judge: ReplyFn = default_judge
    probe: ReplyFn = default_probe

    def reply(self, req: ParsedRequest) -> str | Reply:
        kind = req.kind
        if kind == "judge":
            return self.judge(req)
        if kind == "probe":
            return self.probe(req)
        return self.answer(req)
