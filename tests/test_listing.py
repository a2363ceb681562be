"""The suite's listing in inspect_evals' form (`bedside_bench/eval.yaml`), its version and
CHANGELOG.md, and the README sections inspect_evals asks of an eval: the listing names exactly
the registered tasks, with the release's sample counts, and every task carries the version of
the CHANGELOG's newest entry."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai import list_tasks

import bedside_bench
from bedside_bench import _registry
from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.listing import ListingError, parse_version, read_listing, task_version
from bedside_bench.core.options import TaskOptions
from bedside_bench.release.known import PUBLIC
from bedside_bench.task import tasks as bedside_tasks
from bedside_bench.task.judge_check import judge_check
from tests.mockllm_scripts import JUDGE_CHECK, REPO, SYNTHETIC

PACKAGE = Path(bedside_bench.__file__).resolve().parent
TASK_NAMES = [*BENCHMARK_NAMES, JUDGE_CHECK]
GOLD_SET = [REPO / "data" / "judge_check" / name for name in ("pairs.jsonl", "adversarial.jsonl")]
# inspect_evals 0.28.0's eval.yaml (src/inspect_evals/metadata.py): InternalEvalMetadata's keys
# (`id` is the folder's name, added when it is read) and TaskMetadata's, written out
EVAL_KEYS = {
    "title",
    "description",
    "arxiv",
    "group",
    "contributors",
    "version",
    "tasks",
    "tags",
    "metadata",
    "external_assets",
    "dependency",
    "dependency-group",
    "isolated",
}
REQUIRED_EVAL_KEYS = {"title", "description", "group", "contributors", "version", "tasks"}
TASK_KEYS = {"name", "dataset_samples", "human_baseline", "comment", "task_path", "kind"}
GROUPS = {
    "Assistants",
    "Bias",
    "Coding",
    "Cybersecurity",
    "Knowledge",
    "Mathematics",
    "Multimodal",
    "Personality",
    "Reasoning",
    "Safeguards",
    "Scheming",
    "Writing",
}
ENTRY = re.compile(r"^## \[(?P<version>[^\]]+)\] - (?P<date>\d{4}-\d{2}-\d{2})$", re.MULTILINE)
# the sections an inspect_evals README has, in its order, after this README's own
README_SECTIONS = [
    "## Usage",
    "## Options",
    "## Parameters",
    "## Dataset",
    "## Scoring",
    "## Evaluation Report",
    "## Changelog",
]


@pytest.fixture(scope="module")
def listing() -> dict[str, Any]:
    return read_listing()


def tasks_of(listing: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in listing["tasks"]}


def test_the_listing_has_inspect_evals_keys(listing: dict[str, Any]) -> None:
    assert REQUIRED_EVAL_KEYS <= set(listing) <= EVAL_KEYS
    assert all(set(t) <= TASK_KEYS and "name" in t for t in listing["tasks"])
    assert listing["group"] in GROUPS
    # one line, as inspect_evals renders it into its README's table
    assert "\n" not in listing["description"].strip()


def test_the_listing_names_the_registered_tasks_in_order(listing: dict[str, Any]) -> None:
    named = list(tasks_of(listing))
    assert named == TASK_NAMES
    # what the entry point registers (`bedside_bench/<name>`) and what Inspect lists by file
    registered = {name for name, obj in vars(_registry).items() if callable(obj)}
    assert registered == set(named)
    assert sorted(t.name for t in list_tasks([PACKAGE.name], root_dir=PACKAGE.parent)) == sorted(
        named
    )


def test_the_listing_counts_the_public_release(listing: dict[str, Any]) -> None:
    listed = tasks_of(listing)
    assert {b: listed[b]["dataset_samples"] for b in BENCHMARK_NAMES} == dict(PUBLIC.case_counts)
    assert all(listed[b].get("kind", "benchmark") == "benchmark" for b in BENCHMARK_NAMES)
    assert listed[JUDGE_CHECK]["kind"] == "maintenance"
    pairs = sum(len(path.read_text("utf-8").splitlines()) for path in GOLD_SET)
    assert listed[JUDGE_CHECK]["dataset_samples"] == pairs == 76


def test_the_listing_counts_the_real_release(listing: dict[str, Any], real_release: str) -> None:
    """The counts are the release's own: its case files, one per sample."""
    listed = tasks_of(listing)
    for benchmark in BENCHMARK_NAMES:
        folder = Path(real_release) / "data" / benchmark
        cases = sorted(p.stem for p in (folder / "cases").glob("*.json"))
        manifest = folder / "manifest.json"
        if manifest.exists():
            assert sorted(json.loads(manifest.read_text("utf-8"))["case_ids"]) == cases
        assert listed[benchmark]["dataset_samples"] == len(cases), benchmark


def changelog_entries() -> list[tuple[str, str, str]]:
    """(version, date, text) of each entry of CHANGELOG.md, newest first."""
    text = (REPO / "CHANGELOG.md").read_text("utf-8")
    heads = list(ENTRY.finditer(text))
    ends = [h.start() for h in heads[1:]] + [len(text)]
    spans = zip(heads, ends, strict=True)
    return [(head["version"], head["date"], text[head.end() : end]) for head, end in spans]


def test_the_changelog_runs_newest_first_and_never_decreases() -> None:
    entries = changelog_entries()
    assert entries, "CHANGELOG.md has no `## [N-X] - YYYY-MM-DD` entry"
    versions = [parse_version(v, "CHANGELOG.md") for v, _, _ in entries]
    dates = [d for _, d, _ in entries]
    assert dates == sorted(dates, reverse=True)
    for newer, older in zip(versions, versions[1:], strict=False):
        assert (newer.comparability, newer.interface) > (older.comparability, older.interface)
        assert newer.comparability >= older.comparability and newer.interface >= older.interface


def test_every_task_carries_the_changelogs_newest_version(listing: dict[str, Any]) -> None:
    newest, _, text = changelog_entries()[0]
    assert listing["version"] == task_version().full == newest
    built = [getattr(bedside_tasks, b)(data_dir=str(SYNTHETIC)) for b in BENCHMARK_NAMES]
    built.append(judge_check())
    assert [t.version for t in built] == [parse_version(newest).comparability] * len(TASK_NAMES)
    # the newest entry says what this version of each task means
    assert [name for name in TASK_NAMES if f"`{name}`" not in text] == []


@pytest.mark.parametrize("version", ["1", "1-a", "0-A", "1-AB", "A-1", 1, None])
def test_a_version_not_of_the_form_n_x_is_refused(version: object) -> None:
    with pytest.raises(ListingError, match=r"^where: version must be N-X, like \"1-A\", got "):
        parse_version(version, "where")


def test_the_readme_has_inspect_evals_sections_after_its_own() -> None:
    readme = (REPO / "README.md").read_text("utf-8")
    headings = [line for line in readme.splitlines() if line.startswith("## ")]
    assert [h for h in headings if h in README_SECTIONS] == README_SECTIONS
    # after the main command section, and the existing sections all kept
    assert headings.index("## Run") < headings.index(README_SECTIONS[0])
    parameters = readme.split("## Parameters", 1)[1].split("\n## ", 1)[0]
    options = [*TaskOptions.model_fields, "data_file"]
    assert [o for o in options if f"`{o}`" not in parameters] == []
    for task in TASK_NAMES:
        assert f"### `{task}`" in parameters, task


def test_the_listing_is_shipped_with_the_package() -> None:
    """Installed (not editable), the tasks read their version from the package's own copy."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    assert "eval.yaml" in pyproject["tool"]["setuptools"]["package-data"]["bedside_bench"]
    assert yaml.safe_load((PACKAGE / "eval.yaml").read_text("utf-8")) == read_listing()
