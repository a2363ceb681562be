"""Local HTTP doubles of the OpenAI (Chat Completions, Responses) and Anthropic (Messages) APIs,
and of their batch APIs (OpenAI Files + Batches, Anthropic Message Batches).

Typical use::

    from tests.doubles import ProviderDouble, scripted_answer, scripted_decision

    with ProviderDouble(latency=0.1) as server:
        env = server.env()  # OPENAI_BASE_URL, OPENAI_API_KEY, ANTHROPIC_BASE_URL, ...
        ...
        assert server.count(kind="judge") == 3

Fixtures for a conftest live in `tests.doubles.fixtures`; `python -m tests.doubles --port N`
runs a standalone server.
"""

from .batches import LINE_FAULTS, BatchCall
from .script import (
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
from .server import (
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
    "omit_last_item_reply",
    "refusing_temperature",
    "parse_judge_user",
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
