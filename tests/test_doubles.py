"""The provider doubles, proven through Inspect's real OpenAI and Anthropic providers."""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from tenacity import wait_fixed

from bedside_bench.core import exit_codes
from bedside_bench.doubles import (
    DEFAULT_ANTHROPIC_KEY,
    DEFAULT_OPENAI_KEY,
    JUDGE_SYSTEM_PREFIX,
    NEUTRAL_RATIONALE,
    NON_NEUTRAL_WORDS,
    PROBE_TEXT,
    STOPS,
    THREE_LEVELS,
    Endpoints,
    ParsedRequest,
    ProviderDouble,
    Script,
    ScriptedError,
    default_judge,
    invalid_judge_always,
    invalid_judge_first,
    noisy_judge,
    parse_judge_user,
    provider_doubles,
    scripted_answer,
    scripted_decision,
    scripted_evidence,
    scripted_three_level,
    two_level_decisions,
)
from bedside_bench.doubles.command import configure_parser, double_from_args
from bedside_bench.doubles.script import Reasoned, Stop
from tests.doubles import fixtures
from tests.e2e_helpers import (
    ANTHROPIC_SECRET,
    OPENAI_SECRET,
    bedside_bench_in_process,
    credential_sent,
    wire_name,
)

REPO = Path(__file__).resolve().parents[1]
SYSTEM = "You are a physician answering a clinical question."
PROMPT = "A 67-year-old with new atrial fibrillation: which anticoagulant and why?"
TWO_LEVEL_SYSTEM = JUDGE_SYSTEM_PREFIX + "\n\nReturn JSON only."
THREE_LEVEL_SYSTEM = (
    "You are grading a clinical answer item by item.\n"
    "Decide MET / PARTIALLY_MET / NOT_MET for every rubric item and quote evidence."
)
RUBRIC = [("item_0", 2, "Recommends a DOAC"), ("item_1", -1, "Recommends aspirin alone")]
RUBRIC += [(f"item_{i}", 1, f"Criterion {i}") for i in range(2, 8)]

# (model, model args, api the double should see)
ANSWER_ROUTES = [
    ("openai/gpt-4.1-mini", {}, "chat"),
    ("openai/gpt-5.4-mini", {}, "responses"),
    ("openai/gpt-5.4-mini", {"responses_api": False}, "chat"),
    ("openai/gpt-4.1-mini", {"streaming": True}, "chat"),
    ("openai/gpt-5.4-mini", {"streaming": True}, "responses"),
    ("anthropic/claude-sonnet-4-6", {}, "anthropic"),
]


# the shared fixtures, used here exactly as a conftest would import them
provider_double = fixtures.provider_double
provider_env = fixtures.provider_env


@pytest.fixture
def double(provider_env: ProviderDouble) -> ProviderDouble:
    return provider_env.configure(stall_seconds=10)


def judge_user(prompt: str, answer: str, rubric: list[tuple[str, int, str]]) -> str:
    lines = "\n".join(f"[{i}] points={p:+d} :: {t}" for i, p, t in rubric)
    return (
        f"<clinical_prompt>\n{prompt}\n</clinical_prompt>\n\n"
        f"<answer>\n{answer}\n</answer>\n\n"
        f"<rubric_items>\n{lines}\n</rubric_items>"
    )


def judge_request(
    system: str,
    rubric: list[tuple[str, int, str]],
    answer: str = "Apixaban 5 mg twice daily. Check renal function.",
) -> ParsedRequest:
    """A judge request as the double parses it off the wire."""
    return ParsedRequest(
        api="chat",
        path="/v1/chat/completions",
        model="m",
        system=system,
        user=judge_user(PROMPT, answer, rubric),
        temperature=0.0,
        temperature_present=True,
        stream=False,
    )


def model(name: str, **args: Any) -> Model:
    return get_model(name, memoize=False, **args)


def generate(m: Model, system: str, user: str, **config: Any) -> ModelOutput:
    messages = [ChatMessageSystem(content=system), ChatMessageUser(content=user)]
    return asyncio.run(m.generate(messages, config=GenerateConfig(**config)))


def fast_retries(m: Model) -> Model:
    """Inspect waits >= 3 s between its own retries; shorten that for tests."""
    m.api.retry_wait = lambda: wait_fixed(0.05)  # type: ignore[method-assign]
    return m


# --------------------------------------------------------------------------------------------
# pure functions


def test_parse_judge_user_handles_tags_inside_the_answer() -> None:
    answer = "Use apixaban.\n</answer>\nNot the end.\n<answer> still the answer"
    parsed = parse_judge_user(judge_user(PROMPT, answer, RUBRIC))
    assert parsed.prompt == PROMPT
    assert parsed.answer == answer
    assert [(i.item_id, i.points, i.text) for i in parsed.items] == RUBRIC


def test_scripted_functions_are_deterministic_and_mixed() -> None:
    assert scripted_answer("m1", "p") == scripted_answer("m1", "p")
    assert scripted_answer("m1", "p") != scripted_answer("m2", "p")
    decisions = [scripted_decision(f"answer {n}", "item_0") for n in range(400)]
    assert 0.45 < sum(decisions) / len(decisions) < 0.65
    levels = {scripted_three_level(f"answer {n}", "item_0") for n in range(50)}
    assert levels == {"MET", "PARTIALLY_MET", "NOT_MET"}
    assert scripted_three_level("   ", "item_0") == "NOT_MET"


def _sse_payloads(events: Any) -> list[Any]:
    payloads = []
    for event in events:
        data = event.decode().split("data: ", 1)[1].strip()
        payloads.append(data if data == "[DONE]" else json.loads(data))
    return payloads


def test_wire_bodies_validate_against_sdk_types() -> None:
    """Strict pydantic validation (the SDKs themselves parse leniently)."""
    from anthropic.types import Message, RawMessageStreamEvent
    from openai.types.chat import ChatCompletion, ChatCompletionChunk
    from openai.types.responses import Response, ResponseStreamEvent
    from pydantic import TypeAdapter

    from bedside_bench.doubles import wire
    from bedside_bench.doubles.script import scripted_usage

    usage = scripted_usage("system text " * 20, "user", "reply text", reasoning=True)
    body = {"model": "gpt-5.4-mini", "reasoning": {"summary": "auto"}}
    ChatCompletion.model_validate(wire.chat_completion("c1", "m", "reply text", usage))
    chunks = _sse_payloads(wire.chat_stream("c1", "m", "reply text " * 5, usage, True))
    assert chunks[-1] == "[DONE]"
    for chunk in chunks[:-1]:
        ChatCompletionChunk.model_validate(chunk)
    Response.model_validate(wire.response_object("r1", "m1", body, "reply text", usage))
    stream_event: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    events = _sse_payloads(wire.responses_stream("r1", "m1", body, "reply text " * 5, usage))
    for event in events:
        stream_event.validate_python(event)
    assert events[-1]["response"]["output"][0]["content"][0]["text"] == "reply text " * 5
    Message.model_validate(wire.anthropic_message("msg1", "claude", "reply text", usage))
    raw_event: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)
    kinds = []
    for event in _sse_payloads(wire.anthropic_stream("msg1", "claude", "reply text", usage)):
        kinds.append(event["type"])
        if event["type"] != "ping":
            raw_event.validate_python(event)
    assert kinds == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


def test_invalid_judge_helpers() -> None:
    def req(prompt: str, answer: str = "A.") -> ParsedRequest:
        return ParsedRequest(
            api="chat",
            path="/v1/chat/completions",
            model="m",
            system=TWO_LEVEL_SYSTEM,
            user=judge_user(prompt, answer, RUBRIC[:2]),
            temperature=None,
            temperature_present=False,
            stream=False,
        )

    first = invalid_judge_first(2, prompt="chest pain")
    replies = [first(req("chest pain at rest")) for _ in range(3)]
    assert [r.startswith('{"decisions"') for r in replies] == [False, False, True]
    assert first(req("headache")).startswith('{"decisions"')  # other prompts unaffected

    per_answer = invalid_judge_first(1, per_answer=True)
    assert not per_answer(req("p", "answer A")).startswith("{")
    assert not per_answer(req("p", "answer B")).startswith("{")
    assert per_answer(req("p", "answer A")).startswith("{")

    always = invalid_judge_always("chest pain", reply="nope")
    assert [always(req("chest pain")) for _ in range(3)] == ["nope"] * 3


def test_a_noisy_judge_departs_from_the_script_at_its_rate_afresh_for_each_call() -> None:
    items = [(f"item-{n}", 1, f"Item {n}.") for n in range(400)]
    two, three = judge_request(TWO_LEVEL_SYSTEM, items), judge_request(THREE_LEVEL_SYSTEM, items)
    answer = two.judge.answer
    judge = noisy_judge(0.25, seed=3)
    passes = [json.loads(judge(two))["decisions"] for _ in range(3)]
    for decisions in passes:
        assert [d["item_id"] for d in decisions] == [i for i, _, _ in items]
        flipped = sum(d["matched"] != scripted_decision(answer, d["item_id"]) for d in decisions)
        assert 60 <= flipped <= 140  # 100 expected of 400 at 25%
    assert passes[0] != passes[1] != passes[2]  # drawn afresh for each call
    # the same seed and order of calls: the same replies; another seed: others
    again = noisy_judge(0.25, seed=3)
    assert [json.loads(again(two))["decisions"] for _ in range(3)] == passes
    assert json.loads(noisy_judge(0.25, seed=4)(two))["decisions"] != passes[0]
    # three levels: a departure is one of the two other levels, with its own evidence
    (levels,) = [json.loads(noisy_judge(0.25, seed=3)(three))["decisions"]]
    moved = [d for d in levels if d["decision"] != scripted_three_level(answer, d["item_id"])]
    assert 60 <= len(moved) <= 140
    assert {d["decision"] for d in moved} == set(THREE_LEVELS)
    for d in levels:
        assert d["evidence"] == scripted_evidence(answer, d["item_id"], d["decision"])
    # the ends of the range
    assert json.loads(noisy_judge(0.0)(two))["decisions"] == two_level_decisions(two.judge)
    assert all(
        d["matched"] != scripted_decision(answer, d["item_id"])
        for d in json.loads(noisy_judge(1.0)(two))["decisions"]
    )
    with pytest.raises(ValueError, match="flip_rate must be in"):
        noisy_judge(1.5)


def test_serve_takes_a_judge_flip_rate() -> None:
    parser = argparse.ArgumentParser()
    configure_parser(parser)
    args = parser.parse_args(["serve", "--judge-flip-rate", "0.2", "--seed", "5"])
    server = double_from_args(args)  # made, not started
    requests = [judge_request(TWO_LEVEL_SYSTEM, RUBRIC) for _ in range(3)]
    expected = noisy_judge(0.2, seed=5)
    assert [server.script.judge(r) for r in requests] == [expected(r) for r in requests]
    plain = double_from_args(parser.parse_args(["serve"]))
    assert plain.script.judge is default_judge


# --------------------------------------------------------------------------------------------
# answers, judges and usage through Inspect's providers


@pytest.mark.parametrize(("name", "args", "api"), ANSWER_ROUTES)
@pytest.mark.slow
def test_generate_returns_scripted_answer(
    double: ProviderDouble, name: str, args: dict[str, Any], api: str
) -> None:
    output = generate(model(name, **args), SYSTEM, PROMPT)
    wire_model = name.split("/", 1)[1]
    assert output.completion == scripted_answer(wire_model, PROMPT)

    [record] = double.requests(kind="answer")
    assert record.api == api and record.status == 200 and record.model == wire_model
    assert record.request.system == SYSTEM and record.request.user == PROMPT
    assert record.stream == (api == "anthropic" or args.get("streaming") is True)
    # the probe: one per Responses-API model instance with reasoning options
    assert double.count(kind="probe") == (1 if api == "responses" else 0)

    # Inspect's usage is the double's deterministic usage, mapped
    usage, recorded = output.usage, record.usage
    assert usage is not None and recorded is not None
    assert usage.input_tokens == recorded.input_tokens - recorded.cached_tokens
    assert usage.output_tokens == recorded.output_tokens
    assert (usage.input_tokens_cache_read or 0) == recorded.cached_tokens > 0
    assert usage.total_tokens == recorded.total_tokens
    assert (usage.reasoning_tokens or 0) == recorded.reasoning_tokens
    assert (recorded.reasoning_tokens > 0) == ("gpt-5" in name)


@pytest.mark.slow
def test_probe_is_once_per_model_instance(double: ProviderDouble) -> None:
    m = model("openai/gpt-5.4-mini")
    for prompt in ("one", "two"):
        assert generate(m, SYSTEM, prompt).completion == scripted_answer("gpt-5.4-mini", prompt)
    [probe] = double.requests(kind="probe")
    assert probe.request.user == PROBE_TEXT and probe.reply == "hello, world"
    assert double.count(kind="answer") == 2


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("openai/gpt-4.1-mini", {}),
        ("anthropic/claude-sonnet-4-6", {}),
        ("openai/gpt-5.4-mini", {"streaming": True}),
    ],
)
@pytest.mark.slow
def test_two_level_judge(double: ProviderDouble, name: str, args: dict[str, Any]) -> None:
    answer = scripted_answer("gpt-4.1-mini", PROMPT)
    output = generate(model(name, **args), TWO_LEVEL_SYSTEM, judge_user(PROMPT, answer, RUBRIC))
    reply = json.loads(output.completion)
    expected = [{"item_id": i, "matched": scripted_decision(answer, i)} for i, _, _ in RUBRIC]
    assert reply == {"decisions": expected}
    assert {d["matched"] for d in expected} == {True, False}
    [record] = double.requests(kind="judge")
    assert record.request.judge.answer == answer


@pytest.mark.slow
def test_three_level_judge(double: ProviderDouble) -> None:
    answer = "Start apixaban 5 mg twice daily. Check renal function. Review bleeding risk."
    output = generate(
        model("openai/gpt-5.4-mini"), THREE_LEVEL_SYSTEM, judge_user(PROMPT, answer, RUBRIC)
    )
    decisions = json.loads(output.completion)["decisions"]
    assert [d["item_id"] for d in decisions] == [i for i, _, _ in RUBRIC]
    for d in decisions:
        assert d["decision"] == scripted_three_level(answer, d["item_id"])
        assert d["evidence"] == scripted_evidence(answer, d["item_id"], d["decision"])
        assert (
            (d["evidence"] in answer and d["evidence"])
            if d["decision"] != "NOT_MET"
            else d["evidence"] == ""
        )
        assert d["rationale"] == NEUTRAL_RATIONALE
        assert not any(word in d["rationale"].lower() for word in NON_NEUTRAL_WORDS)
    assert len({d["decision"] for d in decisions}) >= 2


@pytest.mark.slow
def test_judge_script_override(double: ProviderDouble) -> None:
    double.script = Script(judge=invalid_judge_first(1, prompt="atrial fibrillation"))
    m = model("anthropic/claude-sonnet-4-6")
    user = judge_user(PROMPT, "Apixaban.", RUBRIC[:2])
    first = generate(m, TWO_LEVEL_SYSTEM, user).completion
    second = generate(m, TWO_LEVEL_SYSTEM, user).completion
    assert not first.startswith("{")
    assert json.loads(second)["decisions"][0]["item_id"] == "item_0"
    assert double.count(kind="judge") == 2


def test_bedside_judge_system_message_is_recognized() -> None:
    from bedside_bench.core.protocol import JUDGE_SYSTEM_MESSAGE

    assert JUDGE_SYSTEM_MESSAGE.startswith(JUDGE_SYSTEM_PREFIX)


# --------------------------------------------------------------------------------------------
# temperature


@pytest.mark.parametrize(
    ("name", "args", "sent"),
    [
        ("openai/gpt-4.1-mini", {}, 1.0),
        ("openai/gpt-5.4-mini", {"responses_api": False}, None),  # chat: dropped for gpt-5
        ("openai/gpt-5.4-mini", {}, 1.0),  # responses: kept (5.1-5.4 do not reason by default)
        ("anthropic/claude-sonnet-4-6", {}, None),  # never sent (API version 2026-10-21)
    ],
)
@pytest.mark.slow
def test_recorded_temperature_is_what_inspect_sent(
    double: ProviderDouble, name: str, args: dict[str, Any], sent: float | None
) -> None:
    generate(model(name, **args), SYSTEM, PROMPT, temperature=1)
    [record] = double.requests(kind="answer")
    assert record.temperature == sent
    assert record.temperature_present == (sent is not None)


@pytest.mark.slow
def test_temperature_refusal_raises_and_omission_succeeds(double: ProviderDouble) -> None:
    double.configure(refuse_temperature_for={"openai/gpt-4.1-mini"})
    m = model("openai/gpt-4.1-mini")
    with pytest.raises(Exception) as raised:
        generate(m, SYSTEM, PROMPT, temperature=0)
    assert getattr(raised.value, "status_code", None) == 400
    assert "'temperature' is not supported" in str(raised.value)
    assert generate(m, SYSTEM, PROMPT).completion == scripted_answer("gpt-4.1-mini", PROMPT)
    assert [r.status for r in double.requests()] == [400, 200]


@pytest.mark.slow
def test_anthropic_error_shape_for_temperature(double: ProviderDouble) -> None:
    from anthropic import AsyncAnthropic, BadRequestError

    double.configure(refuse_temperature_for=lambda model: model.startswith("claude"))

    async def call() -> None:
        client = AsyncAnthropic(base_url=double.url, api_key="k", max_retries=0)
        await client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=64,
            messages=[{"role": "user", "content": "x"}],
            extra_body={"temperature": 0.0},
        )

    with pytest.raises(BadRequestError) as raised:
        asyncio.run(call())
    body = raised.value.body
    assert isinstance(body, dict) and body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    assert body["error"]["message"].startswith("temperature:")


# --------------------------------------------------------------------------------------------
# faults


@pytest.mark.parametrize("name", ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6"])
@pytest.mark.parametrize("fault", ["500", "429", "drop", "stall"])
@pytest.mark.slow
def test_fault_then_success_through_inspect_retries(
    double: ProviderDouble, name: str, fault: str
) -> None:
    # SDK retries off, so Inspect's own retry loop (with a short wait) does the work;
    # attempt_timeout is the short client timeout that ends a stall
    m = fast_retries(model(name, max_retries=0))
    double.inject(fault)
    output = generate(m, SYSTEM, PROMPT, max_retries=2, timeout=20, attempt_timeout=1)
    assert output.completion == scripted_answer(name.split("/", 1)[1], PROMPT)
    outcomes = [(r.fault, r.status) for r in double.requests()]
    expected_status = {"500": 500, "429": 429}.get(fault)
    assert outcomes == [(fault, expected_status), (None, 200)]


@pytest.mark.slow
def test_429_carries_retry_after_which_the_sdk_honours(double: ProviderDouble) -> None:
    async def raw() -> tuple[int, str | None, Any]:
        async with aiohttp.ClientSession() as session:
            double.inject("429")
            async with session.post(
                f"{double.openai_base_url}/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
            ) as response:
                return response.status, response.headers.get("Retry-After"), await response.json()

    status, retry_after, body = asyncio.run(raw())
    assert (status, retry_after) == (429, "1")
    assert body["error"]["code"] == "rate_limit_exceeded"

    double.reset()
    # default SDK retries (2): the SDK waits Retry-After (how long it waits:
    # benchmarks/bench_time_bounds.py), then succeeds
    double.inject("429")
    output = generate(model("openai/gpt-4.1-mini"), SYSTEM, PROMPT)
    assert output.completion == scripted_answer("gpt-4.1-mini", PROMPT)
    assert [(r.fault, r.status) for r in double.requests()] == [("429", 429), (None, 200)]


def test_random_faults_are_seeded_and_drawn_per_request() -> None:
    def draws(seed: int) -> list[str | None]:
        server = ProviderDouble(fault_rate=0.5, faults=["500", "429"], seed=seed)
        return [server._draw_fault("answer") for _ in range(40)]

    assert draws(7) == draws(7)
    assert draws(7) != draws(8)
    assert {None, "500", "429"} == set(draws(7))
    server = ProviderDouble(fault_rate=1.0, faults=["500"], fault_kinds={"judge"})
    assert server._draw_fault("answer") is None and server._draw_fault("judge") == "500"


@pytest.mark.slow
def test_scripted_error(double: ProviderDouble) -> None:
    def answer(req: ParsedRequest) -> str:
        raise ScriptedError(404, f"The model `{req.model}` does not exist", code="model_not_found")

    double.script = Script(answer=answer)
    with pytest.raises(Exception, match="does not exist"):
        generate(model("openai/gpt-4.1-mini"), SYSTEM, PROMPT)


# --------------------------------------------------------------------------------------------
# concurrency, recording, in-process eval, standalone process


def wait_until(condition: Callable[[], bool], what: str, limit: float = 60.0) -> None:
    """Poll for an event; the limit only stops a broken test from hanging."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        time.sleep(0.01)


async def post_messages(url: str, count: int, first: int = 0) -> list[int]:
    """POST `count` Anthropic Messages requests at once (every other one streamed)."""
    connector = aiohttp.TCPConnector(limit=100)
    timeout = aiohttp.ClientTimeout(total=120)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

        async def one(n: int) -> int:
            async with session.post(
                f"{url}/v1/messages",
                json={
                    "model": "claude-sonnet-4-6",
                    "max_tokens": 64,
                    "stream": n % 2 == 0,
                    "messages": [{"role": "user", "content": f"question {n}"}],
                },
            ) as response:
                await response.read()
                return response.status

        return list(await asyncio.gather(*(one(n) for n in range(first, first + count))))


@pytest.mark.slow
def test_held_requests_wait_for_each_other(double: ProviderDouble) -> None:
    double.configure(hold_until_in_flight=3)
    statuses: list[int] = []
    early = threading.Thread(
        target=lambda: statuses.extend(asyncio.run(post_messages(double.url, 2)))
    )
    early.start()
    wait_until(lambda: double.in_flight == 2, "two requests are in flight")
    # both are held: no reply can have been written before a third request arrives
    assert [(r.status, r.outcome) for r in double.requests()] == [(None, "pending")] * 2
    assert asyncio.run(post_messages(double.url, 1, first=2)) == [200]
    early.join(60)
    assert statuses == [200, 200] and double.max_in_flight == 3


@pytest.mark.slow
def test_fifty_concurrent_slow_requests(double: ProviderDouble) -> None:
    # The double lets the requests go only once all sixty are in flight at the same time, so
    # they are answered only if it serves them concurrently, however busy the machine is.
    double.configure(latency=0.5, hold_until_in_flight=60)
    statuses = asyncio.run(post_messages(double.url, 60))
    assert statuses == [200] * 60
    assert double.max_in_flight == 60
    assert double.count(kind="answer", status=200) == 60
    double.reset()
    assert double.count() == 0 and double.max_in_flight == 0


@pytest.mark.slow
def test_in_process_eval(double: ProviderDouble, tmp_path: Path) -> None:
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.event import ModelEvent
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate as generate_solver

    task = Task(
        dataset=[Sample(input=q, target="Recommend") for q in ("Q1", "Q2")],
        solver=generate_solver(),
        scorer=includes(),
    )
    [log] = inspect_eval(
        task, model="openai/gpt-4.1-mini", log_dir=str(tmp_path), display="none", temperature=0.5
    )
    assert log.status == "success" and log.samples is not None
    for sample in log.samples:
        assert sample.output.completion == scripted_answer("gpt-4.1-mini", str(sample.input))
        [event] = [e for e in sample.events if isinstance(e, ModelEvent)]
        assert event.call is not None and event.call.request["temperature"] == 0.5
        dumped = json.dumps(event.call.model_dump()).lower()
        assert "authorization" not in dumped and "sk-test-double" not in dumped
        assert event.request_ids and event.request_ids[0].header == "x-request-id"
    assert [r.temperature for r in double.requests()] == [0.5, 0.5]


@pytest.mark.slow
def test_stop_is_prompt_with_a_stalled_request() -> None:
    server = ProviderDouble(stall_seconds=600).start()
    server.inject("stall")
    outcome: list[Any] = []

    async def call() -> None:
        try:
            async with (
                aiohttp.ClientSession() as session,
                session.post(f"{server.url}/v1/chat/completions", json={"model": "m"}) as reply,
            ):
                outcome.append(reply.status)
        except aiohttp.ClientError as ex:
            outcome.append(ex)

    client = threading.Thread(target=lambda: asyncio.run(call()))
    client.start()
    wait_until(lambda: [r.outcome for r in server.requests()] == ["stall"], "the stall began")
    server.stop(timeout=60)
    client.join(60)
    # a stop that waited for the 600 s stall would leave the server thread and the client alive
    assert not server.running and not client.is_alive()
    assert isinstance(outcome[0], aiohttp.ServerDisconnectedError)
    assert [(r.fault, r.outcome, r.status) for r in server.requests()] == [("stall", "stall", None)]


@pytest.mark.slow
def test_env_helpers(double: ProviderDouble, monkeypatch: pytest.MonkeyPatch) -> None:
    env = double.env(openai_api_key="sk-a", anthropic_api_key="sk-b")
    assert env["OPENAI_BASE_URL"] == f"http://127.0.0.1:{double.port}/v1"
    assert env["ANTHROPIC_BASE_URL"] == f"http://127.0.0.1:{double.port}"
    assert (env["OPENAI_API_KEY"], env["ANTHROPIC_API_KEY"]) == ("sk-a", "sk-b")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "oauth")
    child = double.subprocess_env()
    assert "ANTHROPIC_AUTH_TOKEN" not in child and child["OPENAI_API_KEY"] == "sk-test-double"


@pytest.mark.slow
def test_standalone_process(tmp_path: Path) -> None:
    """`bedside-bench doubles serve` as a script starts it: the port, the export lines on stdout
    and in the env file (removed when the doubles stop), a request recorded."""
    record = tmp_path / "requests.jsonl"
    env_file = tmp_path / "doubles.env"
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "bedside-bench"),
            "doubles",
            "serve",
            "--port",
            "0",
            "--print-env",
            "--record",
            str(record),
            "--env-file",
            str(env_file),
            "--duration",
            "20",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        exports = [process.stdout.readline() for _ in range(6)]
        assert exports[0] == f"export OPENAI_BASE_URL=http://127.0.0.1:{port}/v1\n"
        assert env_file.read_text() == "".join(exports)

        async def call() -> dict[str, Any]:
            async with (
                aiohttp.ClientSession() as session,
                session.post(
                    f"http://127.0.0.1:{port}/v1/responses",
                    json={"model": "gpt-5.4-mini", "input": "hello"},
                ) as response,
            ):
                return dict(await response.json())

        body = asyncio.run(call())
        assert body["output"][0]["content"][0]["text"] == scripted_answer("gpt-5.4-mini", "hello")
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=10)
    assert process.returncode == 0, stderr
    assert "bedside-bench doubles: stopped after 1 requests" in stderr
    assert not env_file.exists()
    [line] = record.read_text().splitlines()
    assert json.loads(line)["kind"] == "answer"


@pytest.mark.parametrize(
    ("words", "error"),
    [
        (("--fault-rate", "1.5"), "argument --fault-rate: must be between 0 and 1, got 1.5"),
        (("--faults", "500,404"), "argument --faults: 404 not one of 500,429,stall,drop"),
        (
            ("--fault-kinds", "judges"),
            "argument --fault-kinds: judges not one of judge,answer,probe,count_tokens",
        ),
        (("--latency", "-1"), "argument --latency: must be non-negative, got -1"),
        (("--port", "65536"), "argument --port: must be a port number 0-65535, got 65536"),
    ],
)
def test_serve_refuses_a_bad_value_before_it_starts(words: tuple[str, ...], error: str) -> None:
    result = bedside_bench_in_process("doubles", "serve", *words)
    assert result.returncode == exit_codes.USAGE
    assert result.stderr.splitlines()[-1] == f"bedside-bench doubles serve: error: {error}"


def test_serve_never_overwrites_an_existing_env_file(tmp_path: Path) -> None:
    """The env file is removed when the doubles stop, so one that exists (a user's `.env`
    with real keys) is refused before anything starts, and left as it was."""
    user_env = tmp_path / ".env"
    user_env.write_text("OPENAI_API_KEY=sk-the-users-own\n")
    result = bedside_bench_in_process(
        "doubles", "serve", "--port", "0", "--env-file", str(user_env), "--duration", "0"
    )
    assert result.returncode == exit_codes.USAGE
    assert result.stderr.splitlines()[-1].startswith(
        f"bedside-bench doubles serve: error: argument --env-file: {user_env} exists"
    )
    assert user_env.read_text() == "OPENAI_API_KEY=sk-the-users-own\n"
    assert result.stdout == ""  # no port: nothing was started


def test_model_args_only_for_the_apis_the_doubles_speak() -> None:
    endpoints = Endpoints(ProviderDouble())  # made, not started
    for name in ("google/gemini-2.5-pro", "openai/azure/gpt-4.1", "anthropic/vertex/x", "openai"):
        with pytest.raises(ValueError, match="openai/<model> and anthropic/<model> only"):
            endpoints.model_args(name)


@pytest.mark.slow
def test_provider_doubles_reach_a_model_whatever_the_environment_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Python API: `provider_doubles` yields where the doubles are, and a model made with
    `model_args` talks to them with their own key, although the environment names a closed
    port and a user's keys (which must reach nothing); the doubles stop on the way out."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_SECRET)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_SECRET)
    names = ("openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6")
    with provider_doubles() as doubles:
        url = f"http://127.0.0.1:{doubles.server.port}"
        assert (doubles.openai_base_url, doubles.anthropic_base_url) == (f"{url}/v1", url)
        assert doubles.model_args(names[0]) == {
            "base_url": f"{url}/v1",
            "api_key": "sk-test-double",
        }
        assert doubles.env()["ANTHROPIC_BASE_URL"] == url
        completions = [
            generate(model(name, **doubles.model_args(name)), SYSTEM, PROMPT).completion
            for name in names
        ]
        sent = [credential_sent(r) for r in doubles.server.requests()]
    assert completions == [scripted_answer(wire_name(name), PROMPT) for name in names]
    assert sent == [DEFAULT_OPENAI_KEY, DEFAULT_ANTHROPIC_KEY]
    assert not doubles.server.running


@pytest.mark.parametrize("stop", STOPS)
@pytest.mark.parametrize(
    "text",
    [
        "reply text " * 5,
        "",
        Reasoned("", "weighing the options " * 3),  # the budget spent on reasoning
        Reasoned("reply text " * 5, "weighing the options"),
    ],
    ids=["text", "empty", "reasoning-only", "reasoning-and-text"],
)
def test_every_stop_validates_against_sdk_types(stop: Stop, text: str) -> None:
    """Each scripted stop (and an answer with no text, with reasoning or without) in all three
    wire formats, streamed and not, parses strictly as the SDKs' types and says its stop the
    provider's way."""
    from anthropic.types import Message, RawMessageStreamEvent
    from openai.types.chat import ChatCompletion, ChatCompletionChunk
    from openai.types.responses import Response, ResponseStreamEvent
    from pydantic import TypeAdapter

    from bedside_bench.doubles import wire
    from bedside_bench.doubles.script import scripted_usage

    usage = scripted_usage("system", "user", text, reasoning=False)
    body = {"model": "gpt-5.4-mini"}
    chat = ChatCompletion.model_validate(wire.chat_completion("c1", "m", text, usage, stop))
    assert chat.choices[0].finish_reason == wire.CHAT_FINISH[stop]
    assert (chat.choices[0].message.refusal == text) == (stop == "refusal")
    chunks = _sse_payloads(wire.chat_stream("c1", "m", text, usage, True, stop))
    for chunk in chunks[:-1]:
        ChatCompletionChunk.model_validate(chunk)
    response = Response.model_validate(
        wire.response_object("r1", "m1", body, text, usage, stop=stop)
    )
    reason = wire.RESPONSES_INCOMPLETE.get(stop)
    assert response.status == ("incomplete" if reason else "completed")
    assert (response.incomplete_details.reason if response.incomplete_details else None) == reason
    messages = [item for item in response.output if item.type == "message"]
    reasoned = [item for item in response.output if item.type == "reasoning"]
    assert len(reasoned) == (1 if isinstance(text, Reasoned) else 0)
    if messages:
        part = messages[0].content[0]
        assert part.type == ("refusal" if stop == "refusal" else "output_text")
    else:  # only a budget spent on reasoning leaves no message
        assert isinstance(text, Reasoned) and not text and stop != "refusal"
    stream_event: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    events = _sse_payloads(wire.responses_stream("r1", "m1", body, text, usage, stop))
    for event in events:
        stream_event.validate_python(event)
    assert events[-1]["type"] == ("response.incomplete" if reason else "response.completed")
    message = Message.model_validate(wire.anthropic_message("msg1", "claude", text, usage, stop))
    assert message.stop_reason == wire.ANTHROPIC_STOP[stop]
    thinking = [block for block in message.content if block.type == "thinking"]
    assert len(thinking) == (1 if isinstance(text, Reasoned) else 0)
    raw_event: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)
    for event in _sse_payloads(wire.anthropic_stream("msg1", "claude", text, usage, stop)):
        if event["type"] != "ping":
            raw_event.validate_python(event)


def test_the_proxy_exceptions_keep_every_host_of_both_spellings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A user's `no_proxy` and `NO_PROXY` may differ; Python honours either, so the doubles'
    environment keeps the hosts of both (once each) and adds the loopback ones."""
    monkeypatch.setenv("NO_PROXY", "corp.example, 127.0.0.1")
    monkeypatch.setenv("no_proxy", "internal.example")
    env = ProviderDouble().env()
    expected = "corp.example,127.0.0.1,internal.example,localhost"
    assert (env["NO_PROXY"], env["no_proxy"]) == (expected, expected)
    monkeypatch.delenv("NO_PROXY")
    monkeypatch.delenv("no_proxy")
    env = ProviderDouble().env()
    assert (env["NO_PROXY"], env["no_proxy"]) == ("127.0.0.1,localhost", "127.0.0.1,localhost")


@pytest.mark.slow
def test_serve_on_a_port_in_use_says_so_in_one_line() -> None:
    """A CI step with a fixed port another process holds: one line naming the port, exit 1,
    and no port on stdout (a script reading it must not take it for the doubles')."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = bedside_bench_in_process(
            "doubles", "serve", "--port", str(port), "--duration", "0"
        )
    assert result.returncode == exit_codes.ERROR
    assert result.stderr.splitlines() == [
        f"bedside-bench doubles serve: error: cannot listen on 127.0.0.1:{port}: "
        "address already in use"
    ]
    assert result.stdout == ""


@pytest.mark.parametrize("flag", ["--record", "--env-file"])
def test_serve_refuses_a_file_in_a_missing_folder_before_it_starts(
    tmp_path: Path, flag: str
) -> None:
    """A misspelt folder for the record or the env file: one line before anything starts,
    not a traceback (--env-file) or an HTTP 500 to every request the doubles get (--record)."""
    path = tmp_path / "missing" / "file"
    result = bedside_bench_in_process("doubles", "serve", "--port", "0", flag, str(path))
    assert result.returncode == exit_codes.USAGE
    assert result.stderr.splitlines()[-1] == (
        f"bedside-bench doubles serve: error: argument {flag}: no folder {path.parent}"
    )
    assert result.stdout == ""
