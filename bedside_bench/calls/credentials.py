"""API credentials for a sweep: checked before any call, never shown.

A sweep that starts and then fails on its last model's first request wastes the calls already
made, so every model (and the judge) is checked up front, by provider prefix. Providers other
than plain `openai/` and `anthropic/` (and their Azure, Bedrock or Vertex variants) have their
own credential schemes; Inspect checks those itself.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

OPENAI_API_KEY = "OPENAI_API_KEY"
# the reference runner (`evaluation/run_benchmark.py`) reads this name; Inspect does not
OPENAI_ACCESS_TOKEN = "OPENAI_ACCESS_TOKEN"
ANTHROPIC_API_KEY = "ANTHROPIC_API_KEY"
# Inspect's Anthropic provider also authenticates with an OAuth bearer token
ANTHROPIC_AUTH_TOKEN = "ANTHROPIC_AUTH_TOKEN"

# service prefixes after the provider that use other credentials (left to Inspect)
_OTHER_SERVICES = {
    "openai": ("azure", "bedrock"),
    "anthropic": ("azure", "bedrock", "vertex"),
}
# variables whose values are secrets, or URLs that may carry them
PROVIDER_SECRET_VARIABLES = (
    OPENAI_API_KEY,
    OPENAI_ACCESS_TOKEN,
    ANTHROPIC_API_KEY,
    ANTHROPIC_AUTH_TOKEN,
)
# an S3 log store's secrets are masked as well as the providers' keys
SECRET_VARIABLES = (*PROVIDER_SECRET_VARIABLES, "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")
_URL_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s]+@")
REDACTED = "***"


@dataclass(frozen=True)
class Requirement:
    """Any one of `accepted` satisfies it; `label` names them for the user."""

    accepted: tuple[str, ...]
    label: str


OPENAI = Requirement(
    (OPENAI_API_KEY, OPENAI_ACCESS_TOKEN), f"{OPENAI_API_KEY} (or {OPENAI_ACCESS_TOKEN})"
)
ANTHROPIC = Requirement((ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN), ANTHROPIC_API_KEY)


class CredentialError(RuntimeError):
    """A model of the sweep has no credential; the message names the variable(s)."""


def requirement(model: str) -> Requirement | None:
    """The credential an Inspect model name needs, or None when Inspect should decide."""
    provider, _, rest = model.partition("/")
    service = rest.split("/", 1)[0] if "/" in rest else None
    if service in _OTHER_SERVICES.get(provider, ()):
        return None
    return {"openai": OPENAI, "anthropic": ANTHROPIC}.get(provider)


def apply_aliases(environ: MutableMapping[str, str] | None = None) -> None:
    """Let `OPENAI_ACCESS_TOKEN` stand in for `OPENAI_API_KEY` (which Inspect reads)."""
    env = os.environ if environ is None else environ
    if not env.get(OPENAI_API_KEY) and env.get(OPENAI_ACCESS_TOKEN):
        env[OPENAI_API_KEY] = env[OPENAI_ACCESS_TOKEN]


def missing_credentials(
    models: Iterable[tuple[str, str]], environ: Mapping[str, str] | None = None
) -> dict[str, list[str]]:
    """{requirement label: [model descriptions]} for every (model, description) lacking one."""
    env = os.environ if environ is None else environ
    missing: dict[str, list[str]] = {}
    for model, described in models:
        need = requirement(model)
        if need is not None and not any(env.get(name) for name in need.accepted):
            missing.setdefault(need.label, []).append(described)
    return missing


def check_credentials(
    models: Sequence[str], judge: str, environ: Mapping[str, str] | None = None
) -> None:
    """Raise `CredentialError` naming each missing variable and the models that need it."""
    described = [(m, m) for m in models] + [(judge, f"{judge} (judge)")]
    missing = missing_credentials(described, environ)
    if missing:
        parts = [
            f"set {label} for {', '.join(dict.fromkeys(who))}" for label, who in missing.items()
        ]
        raise CredentialError("missing API credentials: " + "; ".join(parts))


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The secrets a message must never show (long ones first, so overlaps redact fully)."""
    env = os.environ if environ is None else environ
    values = {env[name] for name in SECRET_VARIABLES if env.get(name)}
    return sorted((v for v in values if len(v) >= 4), key=len, reverse=True)


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """`text` without credential values or the user:password part of any URL."""
    for value in secret_values(environ):
        text = text.replace(value, REDACTED)
    return _URL_USERINFO.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", text)


def redact_credentials(url: str) -> str:
    """Drop a URL's user and password (`https://user:token@host/...`).

    `hf://owner/repo@revision` is left alone: there `@` names a revision, not a user.
    """
    parts = urlsplit(url)
    if parts.scheme and parts.scheme != "hf" and "@" in parts.netloc:
        return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    return url
