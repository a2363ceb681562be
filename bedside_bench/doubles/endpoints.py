"""Where running doubles are, in the forms a client takes it: base URLs and keys, the
environment of a process, the arguments of Inspect's `get_model`; and `provider_doubles`, the
context manager that starts the doubles and stops them.

Every form carries the doubles' own keys, never a real one: the doubles accept any key, and a
caller that passes `model_args` to `get_model` points one model at them without touching any
variable of the process, so the user's own provider settings stay as they were.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypedDict

from bedside_bench.doubles.server import DEFAULT_ANTHROPIC_KEY, DEFAULT_OPENAI_KEY, ProviderDouble

# the Inspect providers the doubles speak, without a service (`openai/azure/...` is not)
PROVIDERS = ("openai", "anthropic")


class ModelArgs(TypedDict):
    """The arguments of Inspect's `get_model` that point one model at the doubles."""

    base_url: str
    api_key: str


@dataclass(frozen=True)
class Endpoints:
    """Running doubles: where they answer and with which keys. `server` is the double itself,
    for what a test asks of it (recorded requests, faults, a script of one's own)."""

    server: ProviderDouble
    openai_api_key: str = DEFAULT_OPENAI_KEY
    anthropic_api_key: str = DEFAULT_ANTHROPIC_KEY

    @property
    def openai_base_url(self) -> str:
        """The OpenAI SDK's base URL (`http://127.0.0.1:PORT/v1`)."""
        return self.server.openai_base_url

    @property
    def anthropic_base_url(self) -> str:
        """The Anthropic SDK's base URL (`http://127.0.0.1:PORT`)."""
        return self.server.url

    def env(self) -> dict[str, str]:
        """Variables that point the SDKs, and Inspect, at the doubles: for a subprocess's
        environment or a shell's `export` lines (`bedside-bench doubles serve --print-env`)."""
        return self.server.env(self.openai_api_key, self.anthropic_api_key)

    def model_args(self, model: str) -> ModelArgs:
        """`base_url` and `api_key` of an Inspect model name (`openai/...`, `anthropic/...`):
        `get_model(model, **endpoints.model_args(model))` talks to the doubles whatever the
        environment says."""
        provider, _, rest = model.partition("/")
        service = rest.split("/", 1)[0] if "/" in rest else None
        if provider not in PROVIDERS or not rest or service in ("azure", "bedrock", "vertex"):
            raise ValueError(
                f"{model!r}: the provider doubles speak the APIs of openai/<model> and "
                "anthropic/<model> only"
            )
        if provider == "openai":
            return {"base_url": self.openai_base_url, "api_key": self.openai_api_key}
        return {"base_url": self.anthropic_base_url, "api_key": self.anthropic_api_key}


@contextmanager
def provider_doubles(
    *,
    openai_api_key: str = DEFAULT_OPENAI_KEY,
    anthropic_api_key: str = DEFAULT_ANTHROPIC_KEY,
    **options: Any,
) -> Iterator[Endpoints]:
    """Start the doubles on a free 127.0.0.1 port (or `port=N`), yield where they are, stop
    them on the way out. `options` are `ProviderDouble`'s (latency, faults, a script, ...)."""
    with ProviderDouble(**options) as server:
        yield Endpoints(server, openai_api_key, anthropic_api_key)
