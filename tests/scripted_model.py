"""An in-process Inspect model whose replies a test scripts, for the unit tests of one model call.

`scripted_model(name, replies)` gives the model `unitscript/<name>`: each call takes the next
reply (a text, or an exception to raise) and records the messages and temperature it was sent.
Its request record names the temperature, as a provider's would, so `model_calls` reads it back
the same way. No network, no eval and no tiktoken (usage is set on every output, which mockllm
would count with a downloaded encoding), so these tests stay in the fast tier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Model,
    ModelAPI,
    ModelCall,
    ModelOutput,
    ModelUsage,
    get_model,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo


@dataclass(frozen=True)
class Call:
    messages: list[ChatMessage]
    temperature: float | None


# mockllm's `custom_outputs` signature: (input, tools, tool_choice, config) -> ModelOutput
Outputs = Callable[[list[ChatMessage], list[ToolInfo], ToolChoice, GenerateConfig], ModelOutput]


@dataclass
class Script:
    """The replies of `unitscript/<name>`, in order, and the calls it received."""

    name: str
    replies: list[str | Exception]
    calls: list[Call] = field(default_factory=list)

    def __call__(
        self, input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        self.calls.append(Call(list(input), config.temperature))
        if not self.replies:
            raise AssertionError(f"unitscript/{self.name} was called more than scripted")
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        output = ModelOutput.from_content(model=self.name, content=reply)
        output.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
        return output


SCRIPTS: dict[str, Script] = {}


def scripted_model(name: str, replies: Iterable[str | Exception]) -> tuple[Model, Script]:
    """The model `unitscript/<name>` and the script it answers from (a fresh one each time)."""
    script = Script(name, list(replies))
    SCRIPTS[name] = script
    return get_model(f"unitscript/{name}"), script


class ProviderError(Exception):
    """An HTTP error as provider clients raise it (`status_code` and a message)."""

    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code


class InProcessAPI(ModelAPI):
    """A model API answered in-process by the callable `outputs` gives; its request record
    names the temperature sent (when one is), as a provider's would."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())

    def outputs(self) -> Outputs:
        raise NotImplementedError

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> tuple[ModelOutput, ModelCall]:
        output = self.outputs()(input, tools, tool_choice, config)
        request: dict[str, Any] = {"model": self.model_name}
        if config.temperature is not None:
            request["temperature"] = config.temperature
        return output, ModelCall.create(request, {"content": output.completion})


@modelapi(name="unitscript")
class ScriptedAPI(InProcessAPI):
    def outputs(self) -> Outputs:
        return SCRIPTS[self.model_name]
