"""The protocol's texts and constants (`core/protocol.py`) against grading_protocol.md: the
physician and judge system messages are its words to the character (copied below as the spec quotes
them), and the numbers are the ones it states."""

from __future__ import annotations

from bedside_bench.core.protocol import (
    ANSWER_TEMPERATURE,
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    JUDGE_SYSTEM_MESSAGE,
    JUDGE_TEMPERATURE,
    PHYSICIAN_SYSTEM_MESSAGE,
    PROTOCOL_VERSION,
)

# grading_protocol.md section 1, as quoted there
SPEC_PHYSICIAN = """
> You are a physician answering a clinical question. Give a direct,
> self-contained answer that addresses the requested evaluation or management.
> Explain essential reasoning, calculations, safety precautions, and follow-up.
> Do not mention benchmarks, rubrics, or grading.
"""

# grading_protocol.md section 2, "the complete judge system message", as quoted there
SPEC_JUDGE = """
> You are grading a clinical answer against independent rubric items.
>
> For every rubric item, decide whether the ANSWER explicitly states or clearly
> entails it.
>
> Rules:
> 1. Judge only information present in the ANSWER. Do not infer omitted content.
> 2. Accept clinically equivalent wording; exact phrase matching is not required.
> 3. A partially stated criterion is false when a clinically essential component
> is missing.
> 4. For a harmful, inappropriate, or negative-point item, true means the ANSWER
> endorses, recommends, or performs that action. Merely mentioning the action to
> reject or warn against it is false.
> 5. Judge each item independently.
> 6. Return exactly one decision for every supplied item_id and no other item_ids.
>
> Return JSON only:
> `{"decisions":[{"item_id":"item_0","matched":true},{"item_id":"item_1","matched":false}]}`
"""


def unquote(block: str) -> str:
    """A Markdown block quote's text: each line without its `> ` (or a lone `>`)."""
    return "\n".join(
        line[2:] if line.startswith("> ") else "" for line in block.strip().split("\n")
    )


def test_physician_system_message_is_the_protocols_verbatim() -> None:
    assert unquote(SPEC_PHYSICIAN) == PHYSICIAN_SYSTEM_MESSAGE


def test_judge_system_message_is_the_protocols_verbatim() -> None:
    assert unquote(SPEC_JUDGE) == JUDGE_SYSTEM_MESSAGE


def test_judge_system_message_is_the_protocol_text() -> None:
    assert JUDGE_SYSTEM_MESSAGE.startswith(
        "You are grading a clinical answer against independent rubric items.\n\n"
    )
    assert (
        "6. Return exactly one decision for every supplied item_id and no other item_ids."
        in JUDGE_SYSTEM_MESSAGE
    )
    assert JUDGE_SYSTEM_MESSAGE.endswith(
        '`{"decisions":[{"item_id":"item_0","matched":true},{"item_id":"item_1","matched":false}]}`'
    )


def test_the_protocols_numbers() -> None:
    assert PROTOCOL_VERSION == "bedside-bench-grading-v1"
    # temperature 1 for the answer, 0 for the judge (sections 1 and 2)
    assert (ANSWER_TEMPERATURE, JUDGE_TEMPERATURE) == (1.0, 0.0)
    # 10,000 resamples and seed 42 (section 4)
    assert (BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED) == (10_000, 42)
