"""One BedsideBench case as the package holds it once the loader has accepted it.

`validate_case` (`release/case.py`) is the validator: the JSON Schemas in `schemas/` and the
rules a schema cannot say, every violation collected and named by file, case, item and field.
A `Case` is built only from a case with no violation, so the model never reports a problem of
its own; its types say what every layer above may rely on (rubric items as
`contracts.RubricItem`, item ids canonical) instead of keys looked up in a dict.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from bedside_bench.core.contracts import GradingMethod, RubricItem


class Case(BaseModel):
    """A validated case in canonical form (item ids `{md5(prompt)}_{index}`).

    The fields are the case file's six keys in the release's order, so `json_object` is what a
    canonical case file holds and what the digests hash.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    benchmark: str
    grading_method: GradingMethod
    prompt: str
    rubric_items: tuple[RubricItem, ...]
    split: str

    def json_object(self) -> dict[str, Any]:
        """The case as a JSON object: what `case_sha256` hashes and the demo writes."""
        return self.model_dump(mode="json")
