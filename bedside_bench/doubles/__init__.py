"""Local stand-ins of the OpenAI and Anthropic HTTP APIs, for running the suite (or any
Inspect task) without a key or a bill: OpenAI Chat Completions and Responses, Anthropic
Messages, and their batch APIs (OpenAI Files + Batches, Anthropic Message Batches), on
127.0.0.1 only. Answers and judge decisions are scripted (`script.py`), never model output;
faults (HTTP 500 and 429, stalled and dropped connections, refused temperatures, failed or
expired batch lines) can be injected. docs/doubles.md says what they answer and what they do
not model.

    from bedside_bench.doubles import provider_doubles

    with provider_doubles() as doubles:
        doubles.openai_base_url, doubles.anthropic_base_url  # http://127.0.0.1:PORT/v1, ...
        env = doubles.env()  # OPENAI_BASE_URL, OPENAI_API_KEY, ... for a subprocess
        get_model("openai/gpt-4.1-mini", **doubles.model_args("openai/gpt-4.1-mini"))
        doubles.server.count(kind="judge")  # what they were asked

From a shell: `bedside-bench doubles serve --port 0 --print-env` (`command.py`). The package's
own tests run against the same code. It depends on nothing of the package but `core/`.
"""

from bedside_bench.doubles.batches import LINE_FAULTS, BatchCall
from bedside_bench.doubles.endpoints import Endpoints, provider_doubles
from bedside_bench.doubles.script import (
    INVALID_JUDGE_REPLY,
    JUDGE_SYSTEM_PREFIX,
    NEUTRAL_RATIONALE,
    NON_NEUTRAL_WORDS,
    PROBE_REPLY,
    PROBE_TEXT,
    STOPS,
    THREE_LEVEL_MARKER,
    THREE_LEVELS,
    JudgeInput,
    ParsedRequest,
    Reply,
    RubricLine,
    Script,
    ScriptedError,
    TextBlocks,
    Usage,
    classify,
    default_answer,
    default_judge,
    default_probe,
    estimate_tokens,
    invalid_judge_always,
    invalid_judge_first,
    is_reasoning_model,
    noisy_judge,
    omit_last_item_reply,
    parse_judge_user,
    refusing_temperature,
    scripted_answer,
    scripted_decision,
    scripted_evidence,
    scripted_three_level,
    scripted_usage,
    temperature_refusal_error,
    text_blocks,
    three_level_decisions,
    two_level_decisions,
    unrelated_bad_request,
)
from bedside_bench.doubles.server import (
    CONFLICTING_ENV,
    DEFAULT_ANTHROPIC_KEY,
    DEFAULT_OPENAI_KEY,
    FAULTS,
    ProviderDouble,
    RecordedRequest,
)

__all__ = [
    "CONFLICTING_ENV",
    "DEFAULT_ANTHROPIC_KEY",
    "DEFAULT_OPENAI_KEY",
    "FAULTS",
    "INVALID_JUDGE_REPLY",
    "JUDGE_SYSTEM_PREFIX",
    "LINE_FAULTS",
    "NEUTRAL_RATIONALE",
    "NON_NEUTRAL_WORDS",
    "PROBE_REPLY",
    "PROBE_TEXT",
    "STOPS",
    "THREE_LEVELS",
    "THREE_LEVEL_MARKER",
    "BatchCall",
    "Endpoints",
    "JudgeInput",
    "ParsedRequest",
    "ProviderDouble",
    "RecordedRequest",
    "Reply",
    "RubricLine",
    "Script",
    "ScriptedError",
    "TextBlocks",
    "Usage",
    "classify",
    "default_answer",
    "default_judge",
    "default_probe",
    "estimate_tokens",
    "invalid_judge_always",
    "invalid_judge_first",
    "is_reasoning_model",
    "noisy_judge",
    "omit_last_item_reply",
    "refusing_temperature",
    "parse_judge_user",
    "provider_doubles",
    "temperature_refusal_error",
    "text_blocks",
    "unrelated_bad_request",
    "scripted_answer",
    "scripted_decision",
    "scripted_evidence",
    "scripted_three_level",
    "scripted_usage",
    "three_level_decisions",
    "two_level_decisions",
]
