"""The physician solver (protocol section 1): fixed system message, the prompt unchanged."""

from __future__ import annotations

from inspect_ai.model import ChatMessageSystem, ChatMessageUser, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from bedside_bench.calls.cache import answer_cache
from bedside_bench.calls.kept_calls import release_kept_calls
from bedside_bench.calls.model_calls import generate_with_temperature
from bedside_bench.core.contracts import ANSWER_TEMPERATURE_KEY
from bedside_bench.core.protocol import ANSWER_TEMPERATURE, PHYSICIAN_SYSTEM_MESSAGE


@solver
def physician_answer() -> Solver:
    """Answer the case as a physician at temperature 1, recording the temperature sent."""
    release_kept_calls(physician_answer)  # its answers are kept until their case is logged

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.messages = [
            ChatMessageSystem(content=PHYSICIAN_SYSTEM_MESSAGE),
            ChatMessageUser(content=state.input_text),
        ]
        # kept for a retry of this run until the case is in the log: an answer is bought once
        model = get_model()
        policy, kept = answer_cache(model, str(state.sample_id))
        result = await generate_with_temperature(
            model, state.messages, ANSWER_TEMPERATURE, policy=policy, kept=kept
        )
        state.output = result.output
        state.messages.append(result.output.message)
        state.metadata[ANSWER_TEMPERATURE_KEY] = result.temperature_sent
        return state

    return solve
