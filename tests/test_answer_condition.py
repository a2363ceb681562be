"""An answer's condition (`answer_condition`) and its facts read from Inspect's types
(`answer_facts`): which answers are judged, which are scored as stating nothing (no text),
in which condition, and which fail unjudged (the harness never got an answer)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inspect_ai.event import ModelEvent, SampleLimitEvent
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessageAssistant,
    ContentText,
    GenerateConfig,
    ModelCall,
    ModelOutput,
    StopDetails,
)

from bedside_bench.calls.answer_facts import answer_facts
from bedside_bench.core.answer_condition import (
    ANSWER_CONDITIONS,
    NO_ANSWER_PREFIX,
    AnswerFacts,
    NoAnswerError,
    answer_state,
    count_conditions,
    no_answer_reason,
)

STOP_REASONS = ("stop", "max_tokens", "model_length", "tool_calls", "content_filter", "unknown")
LIMITS = ("message", "time", "working", "token", "turn", "cost", "operator", "custom")


@pytest.mark.parametrize(
    ("stop_reason", "refusal", "condition"),
    [
        ("stop", False, "complete"),
        ("max_tokens", False, "truncated"),
        ("model_length", False, "truncated"),
        ("content_filter", False, "filtered"),
        ("content_filter", True, "refused"),
        ("stop", True, "refused"),
        ("tool_calls", False, "unknown"),
        ("unknown", False, "unknown"),
    ],
)
def test_the_condition_of_an_answer_with_text(
    stop_reason: str, refusal: bool, condition: str
) -> None:
    state = answer_state(AnswerFacts(stop_reason, "An answer.", refusal=refusal))
    assert (state.stop_reason, state.condition) == (stop_reason, condition)
    assert state.complete is (condition == "complete")


@pytest.mark.parametrize(
    ("facts", "reason"),
    [
        (
            AnswerFacts("unknown", "", limit="message", limit_message="Message limit reached."),
            "no answer: message limit hit before the answer (Message limit reached.)",
        ),
        (
            AnswerFacts("unknown", "", limit="token", answer_requested=True),
            "no answer: token limit hit during the answer",
        ),
        (
            AnswerFacts("model_length", "prompt is too long", error="prompt is too long"),
            "no answer: the provider answered with an error (stop reason model_length): "
            "prompt is too long",
        ),
    ],
)
def test_an_answer_that_never_came_is_not_judged(facts: AnswerFacts, reason: str) -> None:
    assert no_answer_reason(facts) == reason
    with pytest.raises(NoAnswerError) as raised:
        answer_state(facts)
    # Inspect records an exception's `message` as the sample's error
    assert raised.value.message == str(raised.value) == reason


def shows_nothing(text: str) -> bool:
    """An independent reading of "no text": nothing but whitespace and characters that draw
    nothing (format, control, separator, combining, unassigned, private, surrogate, and the
    Hangul and Braille blanks)."""
    blank = set("\u115f\u1160\u3164\uffa0\u2800")
    drawn_nothing = ("Cc", "Cf", "Cs", "Co", "Cn", "Z", "Me", "Mn")
    return all(
        c.isspace() or c in blank or unicodedata.category(c).startswith(drawn_nothing) for c in text
    )


@given(
    stop_reason=st.sampled_from(STOP_REASONS),
    text=st.text(max_size=20),
    refusal=st.booleans(),
    error=st.none() | st.text(min_size=1, max_size=10),
    limit=st.none() | st.sampled_from(LIMITS),
    requested=st.booleans(),
)
def test_judged_exactly_when_an_answer_with_text_came(
    stop_reason: str,
    text: str,
    refusal: bool,
    error: str | None,
    limit: str | None,
    requested: bool,
) -> None:
    facts = AnswerFacts(stop_reason, text, refusal, error, limit, None, requested)
    # only what the harness never got fails; an answer without text is the model's
    came = limit is None and error is None
    try:
        state = answer_state(facts)
    except NoAnswerError as ex:
        assert not came
        assert str(ex).startswith(NO_ANSWER_PREFIX)
        return
    assert came
    assert state.empty is shows_nothing(text)
    assert state.condition in ANSWER_CONDITIONS
    assert state.complete is (stop_reason == "stop" and not refusal)
    assert (state.condition == "refused") is refusal


@given(st.lists(st.sampled_from([*ANSWER_CONDITIONS, None, "odd"]), max_size=30))
def test_counts_cover_every_answer_but_the_complete_ones(conditions: list[str | None]) -> None:
    counts = count_conditions(conditions)
    assert list(counts) == ["truncated", "filtered", "refused", "unknown", "not_recorded"]
    assert sum(counts.values()) == len([c for c in conditions if c != "complete"])
    assert counts["not_recorded"] == sum(1 for c in conditions if c in (None, "odd"))


# --------------------------------------------------------------------------------------------
# facts from Inspect's output and transcript


def output(
    content: str | list[ContentText],
    stop_reason: str = "stop",
    details: StopDetails | None = None,
    error: str | None = None,
) -> ModelOutput:
    message = ChatMessageAssistant(content=content, model="m", source="generate")
    choice = ChatCompletionChoice(
        message=message,
        stop_reason=stop_reason,  # type: ignore[arg-type]
        stop_details=details,
    )
    return ModelOutput(model="m", choices=[choice], error=error)


def model_event(role: str | None) -> ModelEvent:
    return ModelEvent(
        model="m",
        role=role,
        input=[],
        tools=[],
        tool_choice="none",
        config=GenerateConfig(),
        output=ModelOutput(model="m"),
    )


@pytest.mark.parametrize(
    ("stop_reason", "refusal", "condition"),
    [
        ("max_tokens", False, "truncated"),  # the budget spent on reasoning
        ("model_length", False, "truncated"),
        ("content_filter", False, "filtered"),
        ("content_filter", True, "refused"),
        ("stop", True, "refused"),
        ("stop", False, "complete"),
        ("tool_calls", False, "unknown"),
    ],
)
def test_an_answer_without_text_is_the_models_answer_with_its_condition(
    stop_reason: str, refusal: bool, condition: str
) -> None:
    facts = AnswerFacts(stop_reason, " \n", refusal=refusal, answer_requested=True)
    assert no_answer_reason(facts) is None
    state = answer_state(facts)
    assert (state.stop_reason, state.condition, state.empty) == (stop_reason, condition, True)


def test_anthropic_context_window_exceeded_is_a_cut_answer() -> None:
    """Inspect reports Anthropic's `model_context_window_exceeded` as `unknown`; the reply it
    keeps says the answer was cut where the context window ends."""
    cut = output("The first half of an", "unknown")
    event = model_event(None)
    event.call = ModelCall(request={}, response={"stop_reason": "model_context_window_exceeded"})
    facts = answer_facts(cut, [event])
    assert facts.stop_reason == "model_length"
    assert answer_state(facts).condition == "truncated"
    # any other unknown stop stays unknown; so does one whose reply was not kept
    event.call = ModelCall(request={}, response={"stop_reason": "pause_turn"})
    assert answer_state(answer_facts(cut, [event])).condition == "unknown"
    assert answer_state(answer_facts(cut, [model_event(None)])).condition == "unknown"


def test_a_refusal_part_or_a_refusal_stop_detail_is_a_refusal() -> None:
    part = output([ContentText(text="I can't help with that.", refusal=True)])
    assert answer_state(answer_facts(part, [])).condition == "refused"
    detail = output("Declined.", "content_filter", StopDetails(type="refusal"))
    assert answer_state(answer_facts(detail, [])).condition == "refused"
    filtered = output("Partial.", "content_filter", StopDetails(type="content_filter"))
    assert answer_state(answer_facts(filtered, [])).condition == "filtered"
    plain = output([ContentText(text="An answer.")])
    assert answer_state(answer_facts(plain, [])).condition == "complete"


def test_a_limit_in_the_transcript_means_no_answer_whatever_the_output() -> None:
    limit = SampleLimitEvent(type="message", message="Message limit reached.", limit=1)
    facts = answer_facts(ModelOutput(model="m"), [limit])
    assert (facts.stop_reason, facts.text, facts.limit) == ("unknown", "", "message")
    assert not facts.answer_requested
    # an answer call before the limit: hit during the answer; a judge call does not count
    during = answer_facts(output("Too long."), [model_event("grader"), model_event(None), limit])
    assert during.answer_requested
    judged_only = answer_facts(output("x"), [model_event("grader"), limit])
    assert not judged_only.answer_requested
    assert "during" in str(no_answer_reason(during))


def test_an_output_made_up_from_a_provider_error_is_no_answer() -> None:
    made_up = output("Sorry, but I am unable to help.", "content_filter", error="content filtering")
    with pytest.raises(NoAnswerError, match="provider answered with an error"):
        answer_state(answer_facts(made_up, []))


def test_an_answer_of_invisible_characters_states_nothing() -> None:
    """A zero-width space and a no-break space show nothing: no judge is paid to say so."""
    facts = AnswerFacts("stop", "\u200b\u00a0\u2800", False, None, None, None, True)
    assert answer_state(facts).empty
    assert not answer_state(AnswerFacts("stop", "\u200bx", False, None, None, None, True)).empty
