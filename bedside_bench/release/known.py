"""The releases the project has seen, so a run can say which one it evaluated.

A tree that matches none (a private split, a custom set, a modified or incomplete copy) still
loads, but its runs say `release: unrecognised`, with the counts found, and the report does not
compare them with a recognised release. A release is recognised only by its digest together
with its counts: the counts alone say nothing about the content.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.protocol import HF_DATASET_REVISION

UNRECOGNISED = "unrecognised"


@dataclass(frozen=True)
class KnownRelease:
    name: str
    description: str
    # the loaded digest (`dataset_sha256`); None while no copy of the release has been seen
    dataset_sha256: str | None
    case_counts: Mapping[str, int]


PUBLIC = KnownRelease(
    name=f"public@{HF_DATASET_REVISION[:7]}",
    description=(
        f"the public train split, doximity/bedside-bench at revision {HF_DATASET_REVISION} "
        "(the same content with legacy item ids loads to the same digest)"
    ),
    dataset_sha256="3f44e6c7773aae3568d32d24c71d31a52ceb7286559d599549b386b3d3760cfe",
    case_counts={name: 25 for name in BENCHMARK_NAMES},
)
FULL = KnownRelease(
    name="full",
    description=(
        "all 500 cases, public and held out; never published, so its digest is unknown and "
        "no tree is recognised as it until the digest is recorded here"
    ),
    dataset_sha256=None,
    case_counts={name: 50 for name in BENCHMARK_NAMES},
)
KNOWN_RELEASES: tuple[KnownRelease, ...] = (PUBLIC, FULL)


def identify_release(dataset_sha256: str, case_counts: Mapping[str, int]) -> str:
    """The known release's name, or UNRECOGNISED: both digest and counts must match."""
    for known in KNOWN_RELEASES:
        if (
            known.dataset_sha256 is not None
            and known.dataset_sha256 == dataset_sha256
            and dict(known.case_counts) == dict(case_counts)
        ):
            return known.name
    return UNRECOGNISED
