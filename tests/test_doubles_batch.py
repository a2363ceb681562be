"""The double's batch endpoints, through the provider SDKs and Inspect's batchers: the shapes
the SDKs parse, lines answered as the same direct calls are, failed and expired lines, and
what the double records."""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest
from anthropic.types.messages import MessageBatch, MessageBatchIndividualResponse
from inspect_ai.model import BatchConfig, GenerateConfig, ModelOutput, get_model
from openai.types import Batch, FileObject
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from bedside_bench.doubles import ProviderDouble, scripted_answer
from tests.doubles.fixtures import reset_inspect_model_cache

pytestmark = pytest.mark.slow  # starts provider doubles

LATENCY = 0.3


@pytest.fixture
def double(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProviderDouble]:
    with ProviderDouble(batch_latency=LATENCY) as server:
        server.apply_env(monkeypatch)
        reset_inspect_model_cache()
        yield server
    reset_inspect_model_cache()


def openai_client(double: ProviderDouble) -> openai.OpenAI:
    return openai.OpenAI(base_url=double.openai_base_url, api_key="sk-test-double")


def wait_openai(client: openai.OpenAI, batch_id: str) -> Batch:
    for _ in range(100):
        batch = client.batches.retrieve(batch_id)
        if batch.status not in ("validating", "in_progress", "finalizing"):
            return batch
        time.sleep(0.1)
    raise AssertionError(f"batch {batch_id} did not end")


def jsonl(lines: list[dict[str, Any]]) -> io.BytesIO:
    return io.BytesIO("".join(json.dumps(line) + "\n" for line in lines).encode())


@pytest.mark.parametrize(
    ("endpoint", "body", "parse"),
    [
        (
            "/v1/chat/completions",
            {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "Q"}]},
            ChatCompletion.model_validate,
        ),
        ("/v1/responses", {"model": "gpt-5.4-mini", "input": "Q"}, Response.model_validate),
    ],
)
def test_openai_batch_lines_parse_as_the_sdk_types_and_fail_as_documented(
    double: ProviderDouble, endpoint: str, body: dict[str, Any], parse: Any
) -> None:
    double.inject_batch("error").inject_batch("expired")
    client = openai_client(double)
    lines = [
        {"custom_id": f"c{n}", "method": "POST", "url": endpoint, "body": body} for n in range(3)
    ]
    upload = client.files.create(file=("batch.jsonl", jsonl(lines)), purpose="batch")
    assert isinstance(upload, FileObject) and upload.purpose == "batch"
    created = client.batches.create(
        input_file_id=upload.id,
        endpoint=endpoint,
        completion_window="24h",  # type: ignore[arg-type]
    )
    assert created.status == "in_progress" and created.output_file_id is None
    done = wait_openai(client, created.id)
    # an expired line means the batch ran out of its window: status "expired"
    assert done.status == "expired"
    assert done.request_counts is not None
    assert (done.request_counts.total, done.request_counts.completed) == (3, 1)
    assert done.output_file_id is not None and done.error_file_id is not None
    output = [json.loads(x) for x in client.files.content(done.output_file_id).text.splitlines()]
    errors = [json.loads(x) for x in client.files.content(done.error_file_id).text.splitlines()]
    [good] = output
    assert good["custom_id"] == "c2" and good["error"] is None
    reply = parse(good["response"]["body"])
    text = (
        reply.choices[0].message.content if endpoint.endswith("completions") else reply.output_text
    )
    assert text == scripted_answer(body["model"], "Q")
    by_id = {e["custom_id"]: e for e in errors}
    assert by_id["c0"]["response"]["status_code"] == 500 and by_id["c0"]["error"] is None
    assert by_id["c1"]["response"] is None and by_id["c1"]["error"]["code"] == "batch_expired"
    # recorded as batched lines, with what became of each
    records = double.requests(batched=True)
    assert [(r.outcome, r.status, r.batch_id) for r in records] == [
        ("batch_error", 500, created.id),
        ("expired", None, created.id),
        ("ok", 200, created.id),
    ]
    assert double.requests(batched=False) == []
    with pytest.raises(openai.NotFoundError):
        client.batches.retrieve("batch_nope")


def test_anthropic_message_batches_parse_as_the_sdk_types(double: ProviderDouble) -> None:
    double.inject_batch("expired", "error")
    client = anthropic.Anthropic(base_url=double.url, api_key="sk-ant-test-double")
    params = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "Q"}],
    }
    created = client.messages.batches.create(
        requests=[{"custom_id": f"c{n}", "params": params} for n in range(3)]  # type: ignore[misc]
    )
    assert isinstance(created, MessageBatch) and created.processing_status == "in_progress"
    assert created.request_counts.processing == 3
    for _ in range(100):
        batch = client.messages.batches.retrieve(created.id)
        if batch.processing_status == "ended":
            break
        time.sleep(0.1)
    counts = batch.request_counts
    assert (counts.succeeded, counts.errored, counts.expired, counts.processing) == (1, 1, 1, 0)
    results = {r.custom_id: r for r in client.messages.batches.results(created.id)}
    assert all(isinstance(r, MessageBatchIndividualResponse) for r in results.values())
    assert results["c0"].result.type == "expired"
    assert results["c1"].result.type == "errored"
    good = results["c2"].result
    assert good.type == "succeeded"
    assert good.message.content[0].text == scripted_answer("claude-sonnet-4-6", "Q")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "model", ["openai/gpt-4.1-mini", "openai/gpt-5.4-mini", "anthropic/claude-sonnet-4-6"]
)
def test_inspect_batched_generate_equals_the_direct_one(double: ProviderDouble, model: str) -> None:
    """Each of Inspect's batchers gets, per request, the output and usage the same direct call
    gets; lines share batches."""
    config = GenerateConfig(batch=BatchConfig(size=3, send_delay=0.2, tick=0.2))
    prompts = [f"question {n}" for n in range(3)]

    async def both() -> tuple[list[ModelOutput], list[ModelOutput]]:
        direct = get_model(model)
        batched = get_model(model, config=config, memoize=False)
        plain = [await direct.generate(p) for p in prompts]
        return plain, list(await asyncio.gather(*(batched.generate(p) for p in prompts)))

    plain, batched = asyncio.run(both())
    assert [o.completion for o in batched] == [o.completion for o in plain]
    assert [o.usage for o in batched] == [o.usage for o in plain]
    lines = double.requests(batched=True)
    assert len(lines) == 3 and len({r.batch_id for r in lines}) == 1
    assert {r.kind for r in double.requests(batched=False)} <= {"answer", "probe"}
    assert double.count(kind="answer", batched=False) == 3
