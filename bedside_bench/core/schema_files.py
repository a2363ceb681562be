"""Access to the JSON Schemas shipped in `schemas/` (installed as `bedside_bench.schemas`)."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any

from jsonschema import Draft202012Validator


@cache
def load_schema(name: str) -> dict[str, Any]:
    text = files("bedside_bench.schemas").joinpath(name).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def checked_validator(schema: dict[str, Any]) -> Draft202012Validator:
    """A validator of `schema`, once the schema itself is checked (a broken schema file is a
    bug here, and would otherwise pass every document)."""
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@cache
def validator(name: str) -> Draft202012Validator:
    return checked_validator(load_schema(name))
