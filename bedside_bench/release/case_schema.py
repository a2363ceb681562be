"""The case schemas (`schemas/case.<grading method>.schema.json`), their `benchmark` enum
taken from `core/benchmarks.py` when they are loaded.

The files carry the enum too, for whoever reads or validates a release without the package;
that copy is never what the loader checks against, so a benchmark added to `core/benchmarks.py`
is a valid `benchmark` of its grading method at once, and `tests/test_case_schemas.py` says
when the files' copy is behind.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator

from bedside_bench.core.benchmarks import BENCHMARKS
from bedside_bench.core.contracts import GradingMethod
from bedside_bench.core.schema_files import checked_validator, load_schema

CASE_SCHEMA_FILES: dict[GradingMethod, str] = {
    "points_rubric": "case.points_rubric.schema.json",
    "f1_weighted_rubric": "case.f1_weighted_rubric.schema.json",
}


def benchmarks_graded_by(method: GradingMethod) -> list[str]:
    """The benchmarks of one grading method, in registry order."""
    return [b.name for b in BENCHMARKS if b.grading_method == method]


def case_schema(method: GradingMethod) -> dict[str, Any]:
    """The case schema of `method` with `benchmark` one of that method's benchmarks (a copy:
    the file's cached schema is left as read)."""
    schema = copy.deepcopy(load_schema(CASE_SCHEMA_FILES[method]))
    schema["properties"]["benchmark"]["enum"] = benchmarks_graded_by(method)
    return schema


@cache
def case_validator(method: GradingMethod) -> Draft202012Validator:
    return checked_validator(case_schema(method))
