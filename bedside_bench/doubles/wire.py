"""Wire formats of the three provider APIs: reading request bodies, writing bodies and SSE.

Shapes follow the openai (3.x) and anthropic (2.x) SDK response types, so every body here
validates against `ChatCompletion`, `ChatCompletionChunk`, `Response`, the Responses stream
events, `anthropic.types.Message` and the Anthropic raw stream events.

Past 300 lines: three APIs, each with a body and an event stream that must match the SDKs'
types field for field; one function per shape, no logic to split off.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from bedside_bench.doubles.script import (
    Api,
    ParsedRequest,
    Stop,
    Usage,
    reasoning_of,
    text_blocks,
)


@dataclass(frozen=True)
class ErrorReply:
    """An error the double answers a model request with (HTTP status and provider body)."""

    status: int
    body: dict[str, Any]
    outcome: str
    retry_after: float | None = None


STREAM_CHUNK_CHARS = 16


# --------------------------------------------------------------------------------------------
# request parsing


def _content_text(content: Any) -> str:
    """Text of a message content: a string, or a list of text-bearing parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                texts.append(part["text"])
        return "\n".join(texts)
    return ""


def _messages(api: Api, body: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(role, text) pairs; system/developer roles are reported as "system"."""
    pairs: list[tuple[str, str]] = []
    if api == "anthropic":
        system = body.get("system")
        if system:
            pairs.append(("system", _content_text(system)))
        items: Any = body.get("messages") or []
    elif api == "responses":
        if isinstance(body.get("instructions"), str) and body["instructions"]:
            pairs.append(("system", body["instructions"]))
        raw = body.get("input")
        items = [{"role": "user", "content": raw}] if isinstance(raw, str) else (raw or [])
    else:
        items = body.get("messages") or []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        if item.get("type", "message") != "message" or "role" not in item:
            continue
        role = str(item["role"])
        if role == "developer":
            role = "system"
        pairs.append((role, _content_text(item.get("content"))))
    return pairs


def parse_request(
    api: Api, path: str, body: Mapping[str, Any], headers: Mapping[str, str]
) -> ParsedRequest:
    pairs = _messages(api, body)
    temperature = body.get("temperature")
    return ParsedRequest(
        api=api,
        path=path,
        model=str(body.get("model", "")),
        system="\n\n".join(text for role, text in pairs if role == "system"),
        user="\n\n".join(text for role, text in pairs if role == "user"),
        temperature=float(temperature) if isinstance(temperature, int | float) else None,
        temperature_present="temperature" in body,
        stream=body.get("stream") is True,
        input_text="\n\n".join(text for role, text in pairs if role != "system"),
        body=dict(body),
        headers=dict(headers),
    )


# --------------------------------------------------------------------------------------------
# helpers


def sse(data: Mapping[str, Any] | str, event: str | None = None) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def chunks(text: str, size: int = STREAM_CHUNK_CHARS) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def now() -> int:
    return int(time.time())


# --------------------------------------------------------------------------------------------
# OpenAI Chat Completions

# a refusal is a `refusal` text instead of `content`, with finish reason "stop"; the end of
# the context window is the token limit's "length" (no finish reason of its own); reasoning
# shows only as reasoning tokens (the API returns no reasoning text)
CHAT_FINISH: dict[Stop, str] = {
    "stop": "stop",
    "max_tokens": "length",
    "content_filter": "content_filter",
    "refusal": "stop",
    "model_length": "length",
}


def chat_usage(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": usage.reasoning_tokens,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def chat_completion(
    rid: str, model: str, text: str, usage: Usage, stop: Stop = "stop"
) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "chat.completion",
        "created": now(),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None if stop == "refusal" else text,
                    "refusal": text if stop == "refusal" else None,
                    "annotations": [],
                },
                "logprobs": None,
                "finish_reason": CHAT_FINISH[stop],
            }
        ],
        "usage": chat_usage(usage),
        "service_tier": "default",
        "system_fingerprint": "fp_double",
    }


def chat_stream(
    rid: str, model: str, text: str, usage: Usage, include_usage: bool, stop: Stop = "stop"
) -> Iterator[bytes]:
    created = now()

    def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": rid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "service_tier": "default",
            "system_fingerprint": "fp_double",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if include_usage:
            body["usage"] = None
        return body

    field = "refusal" if stop == "refusal" else "content"
    yield sse(chunk({"role": "assistant", "content": "", "refusal": None}, None))
    for piece in chunks(text):
        if piece:
            yield sse(chunk({field: piece}, None))
    yield sse(chunk({}, CHAT_FINISH[stop]))
    if include_usage:
        final = chunk({}, None)
        final["choices"] = []
        final["usage"] = chat_usage(usage)
        yield sse(final)
    yield sse("[DONE]")


# --------------------------------------------------------------------------------------------
# OpenAI Responses


def responses_usage(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": usage.cached_tokens, "cache_write_tokens": 0},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": usage.total_tokens,
    }


# a stop other than "stop" and "refusal" leaves the response `incomplete`, with this reason
RESPONSES_INCOMPLETE: dict[Stop, str] = {
    "max_tokens": "max_output_tokens",
    "content_filter": "content_filter",
    "model_length": "max_output_tokens",
}


def _output_text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def _output_part(text: str, stop: Stop) -> dict[str, Any]:
    """The one content part: the text, or a `refusal` part for a refusal."""
    if stop == "refusal":
        return {"type": "refusal", "refusal": text}
    return _output_text(text)


def _output_message(mid: str, text: str | None, status: str, stop: Stop = "stop") -> dict[str, Any]:
    return {
        "id": mid,
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": [] if text is None else [_output_part(text, stop)],
    }


def _reasoning_item(rid: str, reasoning: str) -> dict[str, Any]:
    """A Responses `reasoning` output item with its summary (what the API shows of it)."""
    return {
        "id": "rs_" + rid.removeprefix("resp_"),
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": reasoning}],
        "encrypted_content": None,
        "status": None,
    }


def response_output(rid: str, mid: str, text: str, status: str, stop: Stop) -> list[dict[str, Any]]:
    """The output items: the reasoning (when scripted), then the message; a reply whose text
    is empty after reasoning has no message (its budget went to the reasoning), unless it is a
    refusal (its refusal part is the message)."""
    reasoning = reasoning_of(text)
    if reasoning is None:
        return [_output_message(mid, text, status, stop)]
    reasoned = [_reasoning_item(rid, reasoning)]
    said = text or stop == "refusal"
    return reasoned + ([_output_message(mid, text, status, stop)] if said else [])


def response_object(
    rid: str,
    mid: str,
    body: Mapping[str, Any],
    text: str | None,
    usage: Usage | None,
    created: int | None = None,
    stop: Stop = "stop",
) -> dict[str, Any]:
    """A Response; `text=None` gives the in-progress shell used by the first stream events."""
    incomplete = RESPONSES_INCOMPLETE.get(stop) if text is not None else None
    status = "in_progress" if text is None else "incomplete" if incomplete else "completed"
    raw_reasoning = body.get("reasoning")
    reasoning: Mapping[str, Any] = raw_reasoning if isinstance(raw_reasoning, Mapping) else {}
    return {
        "id": rid,
        "object": "response",
        "created_at": created or now(),
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": {"reason": incomplete} if incomplete else None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "model": str(body.get("model", "")),
        "output": [] if text is None else response_output(rid, mid, text, status, stop),
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {
            "effort": reasoning.get("effort"),
            "summary": reasoning.get("summary"),
        },
        "service_tier": "default",
        "store": bool(body.get("store", True)),
        "temperature": body.get("temperature", 1.0),
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [],
        "top_p": body.get("top_p", 1.0),
        "truncation": "disabled",
        "usage": None if usage is None else responses_usage(usage),
        "user": None,
        "metadata": {},
    }


def responses_stream(
    rid: str, mid: str, body: Mapping[str, Any], text: str, usage: Usage, stop: Stop = "stop"
) -> Iterator[bytes]:
    created = now()
    seq = 0

    def event(kind: str, **fields: Any) -> bytes:
        nonlocal seq
        data = {"type": kind, "sequence_number": seq, **fields}
        seq += 1
        return sse(data, event=kind)

    shell = response_object(rid, mid, body, None, None, created)
    yield event("response.created", response=shell)
    yield event("response.in_progress", response=shell)
    final = response_object(rid, mid, body, text, usage, created, stop)
    terminal = "response.completed" if final["status"] == "completed" else "response.incomplete"
    if reasoning_of(text) is not None:  # the reasoning item, whole, before the message
        item = final["output"][0]
        yield event("response.output_item.added", output_index=0, item=item)
        yield event("response.output_item.done", output_index=0, item=item)
        if len(final["output"]) == 1:  # the budget went to the reasoning: no message follows
            yield event(terminal, response=final)
            return
    index = len(final["output"]) - 1
    yield event(
        "response.output_item.added",
        output_index=index,
        item=_output_message(mid, None, "in_progress"),
    )
    part: dict[str, Any] = {"item_id": mid, "output_index": index, "content_index": 0}
    yield event("response.content_part.added", **part, part=_output_part("", stop))
    if stop == "refusal":
        for piece in chunks(text):
            if piece:
                yield event("response.refusal.delta", **part, delta=piece)
        yield event("response.refusal.done", **part, refusal=text)
    else:
        for piece in chunks(text):
            if piece:
                yield event("response.output_text.delta", **part, delta=piece, logprobs=[])
        yield event("response.output_text.done", **part, text=text, logprobs=[])
    yield event("response.content_part.done", **part, part=_output_part(text, stop))
    yield event("response.output_item.done", output_index=index, item=final["output"][index])
    yield event(terminal, response=final)


# --------------------------------------------------------------------------------------------
# Anthropic Messages


def anthropic_usage(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens - usage.cached_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": usage.cached_tokens,
        "output_tokens": usage.output_tokens,
        "service_tier": "standard",
    }


# Anthropic has no content filter of its own: its `refusal` stop is what Inspect maps to
# `content_filter`; a scripted refusal also carries `stop_details` (type "refusal"), as the
# models that report them do, and a scripted content filter carries none
ANTHROPIC_STOP: dict[Stop, str] = {
    "stop": "end_turn",
    "max_tokens": "max_tokens",
    "content_filter": "refusal",
    "refusal": "refusal",
    "model_length": "model_context_window_exceeded",
}
# what a scripted thinking block is signed with (the API signs it so it can be sent back)
THINKING_SIGNATURE = "double-signature"
ANTHROPIC_REFUSAL_DETAILS = {
    "type": "refusal",
    "category": None,
    "explanation": "The request was declined.",
}


def _anthropic_stop(stop: Stop) -> dict[str, Any]:
    details = ANTHROPIC_REFUSAL_DETAILS if stop == "refusal" else None
    return {"stop_reason": ANTHROPIC_STOP[stop], "stop_details": details}


def _thinking(text: str) -> list[dict[str, Any]]:
    """The thinking block before the text, when the reply carries reasoning (`Reasoned`)."""
    reasoning = reasoning_of(text)
    if reasoning is None:
        return []
    return [{"type": "thinking", "thinking": reasoning, "signature": THINKING_SIGNATURE}]


def anthropic_message(
    mid: str, model: str, text: str, usage: Usage, stop: Stop = "stop"
) -> dict[str, Any]:
    said = [{"type": "text", "text": block} for block in text_blocks(text)] if text else []
    return {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _thinking(text) + said,
        **_anthropic_stop(stop),
        "stop_sequence": None,
        "usage": anthropic_usage(usage),
    }


def anthropic_stream(
    mid: str, model: str, text: str, usage: Usage, stop: Stop = "stop"
) -> Iterator[bytes]:
    start_usage = anthropic_usage(usage) | {"output_tokens": 1}
    message: dict[str, Any] = {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    yield sse({"type": "message_start", "message": message}, event="message_start")
    blocks = text_blocks(text) if text else []  # an answer with no text has no content block
    thinking = _thinking(text)
    for think in thinking:  # index 0, before the text
        start = {"type": "thinking", "thinking": "", "signature": ""}
        yield sse(
            {"type": "content_block_start", "index": 0, "content_block": start},
            event="content_block_start",
        )
        for piece in chunks(think["thinking"]):
            delta = {"type": "thinking_delta", "thinking": piece}
            yield sse(
                {"type": "content_block_delta", "index": 0, "delta": delta},
                event="content_block_delta",
            )
        signature = {"type": "signature_delta", "signature": THINKING_SIGNATURE}
        yield sse(
            {"type": "content_block_delta", "index": 0, "delta": signature},
            event="content_block_delta",
        )
        yield sse({"type": "content_block_stop", "index": 0}, event="content_block_stop")
    if not blocks:
        yield sse({"type": "ping"}, event="ping")
    for index, block in enumerate(blocks, start=len(thinking)):
        yield sse(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            },
            event="content_block_start",
        )
        if index == len(thinking):
            yield sse({"type": "ping"}, event="ping")
        for piece in chunks(block):
            if piece:
                yield sse(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "text_delta", "text": piece},
                    },
                    event="content_block_delta",
                )
        yield sse({"type": "content_block_stop", "index": index}, event="content_block_stop")
    final_usage = anthropic_usage(usage)
    final_usage.pop("service_tier")
    yield sse(
        {
            "type": "message_delta",
            "delta": {**_anthropic_stop(stop), "stop_sequence": None},
            "usage": final_usage,
        },
        event="message_delta",
    )
    yield sse({"type": "message_stop"}, event="message_stop")


# --------------------------------------------------------------------------------------------
# any API


def reply_body(
    parsed: ParsedRequest, seq: int, text: str, usage: Usage, stop: Stop = "stop"
) -> dict[str, Any]:
    """The non-streaming body of a successful reply in the request's API."""
    if parsed.api == "chat":
        return chat_completion(f"chatcmpl-dbl{seq:08d}", parsed.model, text, usage, stop)
    if parsed.api == "responses":
        return response_object(
            f"resp_dbl{seq:08d}", f"msg_dbl{seq:08d}", parsed.body, text, usage, stop=stop
        )
    return anthropic_message(f"msg_dbl{seq:08d}", parsed.model, text, usage, stop)


# --------------------------------------------------------------------------------------------
# errors

_OPENAI_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    404: "invalid_request_error",
    429: "requests",
    500: "server_error",
    503: "server_error",
}
_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def error_body(
    api: Api,
    status: int,
    message: str,
    error_type: str | None = None,
    param: str | None = None,
    code: str | None = None,
    request_id: str | None = None,
) -> dict[str, Any]:
    if api == "anthropic":
        body: dict[str, Any] = {
            "type": "error",
            "error": {
                "type": error_type or _ANTHROPIC_TYPES.get(status, "api_error"),
                "message": message,
            },
        }
        if request_id:
            body["request_id"] = request_id
        return body
    return {
        "error": {
            "message": message,
            "type": error_type or _OPENAI_TYPES.get(status, "server_error"),
            "param": param,
            "code": code,
        }
    }


def fault_500(api: Api) -> tuple[int, dict[str, Any]]:
    if api == "anthropic":
        return 500, error_body(api, 500, "Internal server error")
    return 500, error_body(
        api,
        500,
        "The server had an error while processing your request. Sorry about that!",
    )


def fault_429(api: Api) -> tuple[int, dict[str, Any]]:
    if api == "anthropic":
        return 429, error_body(
            api, 429, "This request would exceed the rate limit for your organization."
        )
    return 429, error_body(
        api,
        429,
        "Rate limit reached for requests per min (RPM): Limit 500, Used 500, "
        "Requested 1. Please try again in 1s.",
        code="rate_limit_exceeded",
    )


def temperature_refusal(api: Api, model: str) -> tuple[int, dict[str, Any]]:
    if api == "anthropic":
        return 400, error_body(
            api, 400, f"temperature: temperature is not supported with the model {model}."
        )
    return 400, error_body(
        api,
        400,
        "Unsupported parameter: 'temperature' is not supported with this model.",
        param="temperature",
        code="unsupported_parameter",
    )
