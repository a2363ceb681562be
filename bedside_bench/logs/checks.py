"""Whether a sample is what its log says it is (pure): its case as the log's release holds it,
and its score the one its stored decisions give.

A log whose samples were reused across an edit of the case files (a resume) could hold an
answer to a question other than the release it names, and a score edited by hand could be any
number in [0, 1]. The report reads neither as a result: each sample's recorded case digest is
compared with the digest the log's header lists for that case and with the digest of the
question and rubric the sample itself holds (`release.dataset.case_sha256`), and its score is
recomputed from its stored item decisions with the scoring functions the scorer used. What
does not agree fails that case, naming the field (`ReadResult.refused_values`). A log written
before digests were recorded has none in its header, and is not checked for them.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

from bedside_bench.core.contracts import SampleMetadata
from bedside_bench.core.safe_text import printable
from bedside_bench.judging.grading import grading_strategy
from bedside_bench.release.dataset import case_of_sample, case_sha256
from bedside_bench.scoring.case_score import case_score

DIGEST_KEY = "case_sha256"
# a score is stored as the float the scorer computed; a recomputation may differ in the last
# bits only (the same functions on the same values give the same float)
SCORE_TOLERANCE = 1e-9


def _short(value: object) -> str:
    return printable(repr(value), 80)


def sample_metadata(metadata: Mapping[str, object] | None) -> SampleMetadata | None:
    try:
        return SampleMetadata.model_validate(dict(metadata or {}))
    except ValidationError:
        return None


def case_problem(
    case_id: str,
    header_digests: Mapping[str, str] | None,
    prompt: str | None,
    metadata: Mapping[str, object] | None,
) -> str | None:
    """Why the sample is not its case as the log's release holds it, or None. `prompt` and
    `metadata` are the sample's own (the prompt None: not read, only the digests compared)."""
    if header_digests is None:
        return None
    recorded = (metadata or {}).get(DIGEST_KEY)
    expected = header_digests.get(case_id)
    where = f"sample metadata {DIGEST_KEY}:"
    if expected is None:
        return f"{where} the log's release (eval.metadata.{DIGEST_KEY}) has no case {case_id}"
    if recorded != expected:
        return (
            f"{where} {_short(recorded)} is not the digest the log's release has for this case "
            f"({expected}): the answer is to another version of the case"
        )
    if prompt is None:
        return None
    parsed = sample_metadata(metadata)
    if parsed is None or case_sha256(case_of_sample(prompt, parsed)) != expected:
        return (
            f"{where} the sample's question and rubric (its input and metadata) are not the "
            f"case its digest {expected} names"
        )
    return None


def score_problem(
    value: float, score_metadata: Mapping[str, object], metadata: Mapping[str, object] | None
) -> str | None:
    """Why the score is not the one its stored decisions give, or None. Not checked without
    stored decisions or a rubric in the sample's metadata (nothing to recompute from). The
    grading variant is the decisions' own (booleans: binary; levels: three-level), so a judge
    appended with another variant than the log's is checked as it judged."""
    decisions = score_metadata.get("decisions")
    parsed = sample_metadata(metadata)
    if not isinstance(decisions, Mapping) or parsed is None:
        return None
    items = parsed.rubric_items
    severe_gate = score_metadata.get("severe_gate") is True
    binary = all(isinstance(v, bool) for v in decisions.values())
    try:
        matches = grading_strategy("binary" if binary else "three_level").matches(decisions, items)
        recomputed = case_score(parsed.grading_method, items, matches, severe_gate).score
    except (KeyError, ValueError, TypeError) as ex:
        return f"score metadata decisions: they do not decide the case's rubric ({_short(ex)})"
    if abs(recomputed - value) > SCORE_TOLERANCE:
        return f"score value: {value!r} is not the score its stored decisions give ({recomputed!r})"
    return None
