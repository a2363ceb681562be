"""Credentials: which variables each provider needs, the alias, and redaction (pure)."""

from __future__ import annotations

import pytest

from bedside_bench.calls import credentials

OPENAI_SECRET = "sk-test-SECRET-7f3a9"


def test_credential_requirements_by_provider() -> None:
    assert credentials.requirement("openai/gpt-5.4-mini") == credentials.OPENAI
    assert credentials.requirement("anthropic/claude-sonnet-4-6") == credentials.ANTHROPIC
    # other credential schemes are Inspect's to check
    assert credentials.requirement("openai/azure/gpt-4.1") is None
    assert credentials.requirement("anthropic/bedrock/claude-sonnet-4-6") is None
    assert credentials.requirement("google/gemini-2.5-pro") is None


def test_missing_credentials_name_the_variables_and_models() -> None:
    env = {"ANTHROPIC_API_KEY": "x"}
    with pytest.raises(credentials.CredentialError) as raised:
        credentials.check_credentials(
            ["openai/gpt-5.4-mini", "anthropic/claude-sonnet-4-6"], "openai/gpt-5.6-sol", env
        )
    message = str(raised.value)
    assert "OPENAI_API_KEY (or OPENAI_ACCESS_TOKEN)" in message
    assert "openai/gpt-5.4-mini, openai/gpt-5.6-sol (judge)" in message
    assert "ANTHROPIC" not in message
    with pytest.raises(credentials.CredentialError, match="set ANTHROPIC_API_KEY for anthropic/c"):
        credentials.check_credentials(
            ["anthropic/claude-sonnet-4-6"], "openai/x", {"OPENAI_API_KEY": "k"}
        )
    # an empty value is no credential; OAuth tokens Inspect accepts count
    with pytest.raises(credentials.CredentialError):
        credentials.check_credentials(["openai/a"], "openai/b", {"OPENAI_API_KEY": ""})
    credentials.check_credentials(
        ["anthropic/c", "google/g"], "anthropic/c", {"ANTHROPIC_AUTH_TOKEN": "t"}
    )


def test_access_token_alias_and_redaction() -> None:
    env = {"OPENAI_ACCESS_TOKEN": OPENAI_SECRET}
    credentials.apply_aliases(env)
    assert env["OPENAI_API_KEY"] == OPENAI_SECRET
    env = {"OPENAI_ACCESS_TOKEN": "other", "OPENAI_API_KEY": OPENAI_SECRET}
    credentials.apply_aliases(env)
    assert env["OPENAI_API_KEY"] == OPENAI_SECRET  # an explicit key wins
    text = f"failed with {OPENAI_SECRET} at https://user:pw@proxy.example/v1"
    redacted = credentials.redact(text, env)
    assert OPENAI_SECRET not in redacted and "user:pw" not in redacted
    assert "https://***@proxy.example/v1" in redacted


def test_s3_store_secrets_are_redacted() -> None:
    env = {"AWS_SECRET_ACCESS_KEY": "s3-SECRET-value-1", "AWS_SESSION_TOKEN": "session-TOKEN-2"}
    text = "PUT failed: key s3-SECRET-value-1, token session-TOKEN-2"
    assert credentials.redact(text, env) == "PUT failed: key ***, token ***"


def test_credentials_in_a_location_are_redacted() -> None:
    assert credentials.redact_credentials("https://x:tok@hf.co/d") == "https://hf.co/d"
    assert credentials.redact_credentials("/data/bedside-bench") == "/data/bedside-bench"
