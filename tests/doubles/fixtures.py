"""Pytest fixtures for the provider double; import them into a conftest::

from tests.doubles.fixtures import (  # noqa: F401
    provider_double,
    provider_double_factory,
    provider_env,
)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from bedside_bench.doubles import ProviderDouble


def reset_inspect_model_cache() -> None:
    """Forget Inspect's memoized `get_model()` instances.

    Inspect memoizes models by (name, role, config, base_url, api_key, model_args) and NOT by
    environment, and each instance builds its SDK client (with the base URL read from
    OPENAI_BASE_URL / ANTHROPIC_BASE_URL) once. A model cached by one test would keep talking
    to an earlier double's port, so call this whenever the env changes.
    """
    try:
        from inspect_ai.model import _model
    except ImportError:  # pragma: no cover
        return
    models = getattr(_model, "_models", None)
    if isinstance(models, dict):
        models.clear()


@pytest.fixture
def provider_double() -> Iterator[ProviderDouble]:
    """A started double on a free 127.0.0.1 port (default options; change with
    `configure(...)`), stopped after the test."""
    with ProviderDouble() as server:
        yield server


@pytest.fixture
def provider_env(
    provider_double: ProviderDouble, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ProviderDouble]:
    """`provider_double` with its env applied (OPENAI_* / ANTHROPIC_* pointing at it) and
    Inspect's model cache cleared before and after the test."""
    provider_double.apply_env(monkeypatch)
    reset_inspect_model_cache()
    yield provider_double
    reset_inspect_model_cache()


@pytest.fixture
def provider_double_factory() -> Iterator[Callable[..., ProviderDouble]]:
    """`make(**options)` starts another double (e.g. with construction-time options); all are
    stopped after the test."""
    servers: list[ProviderDouble] = []

    def make(**options: Any) -> ProviderDouble:
        server = ProviderDouble(**options).start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()
