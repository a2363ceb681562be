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


@cache
def validator(name: str) -> Draft202012Validator:
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)
