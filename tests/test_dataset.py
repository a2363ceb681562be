"""The release loader: every validation path, canonical ids, order, digest, the real data."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from bedside_bench.benchmarks import BENCHMARK_NAMES
from bedside_bench.cases import DatasetError, canonical_item_id
from bedside_bench.dataset import benchmark_dataset, dataset_sha256, load_release
from bedside_bench.sources import DataSource, resolve_source
from tests.release_factory import case_path, write_case, write_release


def load(root: Path) -> Any:
    return load_release(DataSource(root=root, label=str(root)))


def problems(root: Path) -> list[str]:
    with pytest.raises(DatasetError) as caught:
        load(root)
    return [str(v) for v in caught.value.violations]


def rewrite(root: Path, case: dict[str, Any], **changes: Any) -> Path:
    path = case_path(root, case)
    write_case(path, {**case, **changes})
    return path


def test_valid_release_loads_in_manifest_order(tmp_path: Path) -> None:
    cases = write_release(tmp_path, per_benchmark=3)
    # a manifest order that differs from the case_id order wins
    manifest = tmp_path / "data" / "drug_safety" / "manifest.json"
    order = [c["case_id"] for c in reversed(cases["drug_safety"])]
    manifest.write_text(json.dumps({"case_ids": order}))
    release = load(tmp_path)
    assert [c["case_id"] for c in release.cases["drug_safety"]] == order
    assert len(release.all_cases) == 30
    assert [c["benchmark"] for c in release.all_cases][::3] == list(BENCHMARK_NAMES)


def test_without_manifest_cases_are_ordered_by_case_id(tmp_path: Path) -> None:
    write_release(tmp_path, per_benchmark=3, manifests=False)
    release = load(tmp_path)
    ids = [c["case_id"] for c in release.cases["landmark_trials"]]
    assert ids == sorted(ids)


def test_legacy_item_ids_become_canonical(tmp_path: Path) -> None:
    legacy = write_release(tmp_path / "legacy", legacy_ids=True)
    canonical = write_release(tmp_path / "canonical")
    a, b = load(tmp_path / "legacy"), load(tmp_path / "canonical")
    assert a.all_cases == b.all_cases
    assert a.dataset_sha256 == b.dataset_sha256
    first = legacy["drug_safety"][0]
    assert first["rubric_items"][1]["item_id"] == "item_1"
    assert a.cases["drug_safety"][0]["rubric_items"][1]["item_id"] == canonical_item_id(
        first["prompt"], 1
    )
    assert canonical["drug_safety"][0]["rubric_items"] == a.cases["drug_safety"][0]["rubric_items"]


def test_canonical_id_is_md5_of_the_prompt() -> None:
    # the example in the dataset notes: md5(prompt) of case 060fc273... is 68befa69...
    prompt = "x"
    assert canonical_item_id(prompt, 2) == hashlib.md5(b"x").hexdigest() + "_2"


def test_digest_definition_and_key_order_invariance(tmp_path: Path) -> None:
    write_release(tmp_path)
    release = load(tmp_path)
    text = json.dumps(release.all_cases, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert release.dataset_sha256 == hashlib.sha256(text.encode("utf-8")).hexdigest()
    reordered = [dict(reversed(list(c.items()))) for c in release.all_cases]
    assert dataset_sha256(reordered) == release.dataset_sha256
    # and a file written with other key order and indentation loads to the same digest
    case = release.cases["health_equity"][0]
    path = case_path(tmp_path, case)
    path.write_text(json.dumps(dict(reversed(list(json.loads(path.read_text()).items())))))
    assert load(tmp_path).dataset_sha256 == release.dataset_sha256
    # while any content change moves it
    rewrite(tmp_path, case, split="test")
    assert load(tmp_path).dataset_sha256 != release.dataset_sha256


def test_non_ascii_prompts_hash_as_utf8(tmp_path: Path) -> None:
    cases = write_release(tmp_path)
    case = cases["drug_safety"][0]
    prompt = "SpO\u2082 93% \u2014 next step?"
    items = [
        {**item, "item_id": canonical_item_id(prompt, i)}
        for i, item in enumerate(case["rubric_items"])
    ]
    rewrite(tmp_path, case, prompt=prompt, rubric_items=items)
    release = load(tmp_path)
    assert release.cases["drug_safety"][0]["prompt"] == prompt
    assert "\u2082" in json.dumps(release.all_cases, ensure_ascii=False)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda c: {**c, "extra": 1}, "unexpected keys ['extra']"),
        (lambda c: {k: v for k, v in c.items() if k != "split"}, "missing keys ['split']"),
        (lambda c: {**c, "case_id": "0" * 32}, "case_id does not equal the file name"),
        (lambda c: {**c, "case_id": "ABC"}, "does not match"),
        (lambda c: {**c, "benchmark": "guideline_adherence"}, "does not equal its folder"),
        (lambda c: {**c, "grading_method": "f1_weighted_rubric"}, "is not drug_safety's"),
        (lambda c: {**c, "prompt": "   "}, "the prompt is empty"),
        (lambda c: {**c, "prompt": ""}, "field prompt"),
        (lambda c: {**c, "prompt": 7}, "field prompt"),
        (lambda c: {**c, "rubric_items": []}, "field rubric_items"),
        (
            lambda c: {**c, "rubric_items": [{**i, "points": -1} for i in c["rubric_items"]]},
            "no positive-point item",
        ),
        (
            lambda c: {**c, "rubric_items": [{**c["rubric_items"][0], "points": 1.5}]},
            "field rubric_items.0.points",
        ),
        (
            lambda c: {**c, "rubric_items": [{**c["rubric_items"][0], "points": True}]},
            "field rubric_items.0.points",
        ),
        (
            lambda c: {**c, "rubric_items": [{**c["rubric_items"][0], "weight": 1}]},
            "field rubric_items.0",
        ),
        (
            lambda c: {**c, "rubric_items": [{**c["rubric_items"][0], "text": ""}]},
            "field rubric_items.0.text",
        ),
        (
            lambda c: {**c, "rubric_items": [c["rubric_items"][0], c["rubric_items"][0]]},
            "duplicate item_id",
        ),
        (
            lambda c: {**c, "rubric_items": [{**c["rubric_items"][0], "item_id": "item_3"}]},
            "legacy item id index 3 does not equal the item's position 0",
        ),
        (
            lambda c: {**c, "rubric_items": [{**c["rubric_items"][0], "item_id": "0" * 32 + "_0"}]},
            "item id prefix is not md5(prompt)",
        ),
        (
            lambda c: {**c, "rubric_items": [c["rubric_items"][1], c["rubric_items"][0]]},
            "does not equal the item's position",
        ),
        (
            lambda c: {**c, "rubric_items": [{**c["rubric_items"][0], "item_id": "q1"}]},
            "field rubric_items.0.item_id",
        ),
        (lambda c: [c], "a case must be a JSON object"),
    ],
)
def test_each_violation_names_file_case_and_field(
    tmp_path: Path, change: Any, expected: str
) -> None:
    cases = write_release(tmp_path)
    case = cases["drug_safety"][0]
    write_case(case_path(tmp_path, case), change(case))
    found = problems(tmp_path)
    assert any(expected in p for p in found), found
    assert all(str(case_path(tmp_path, case)) in p for p in found), found


def test_f1_points_outside_range(tmp_path: Path) -> None:
    cases = write_release(tmp_path)
    case = cases["safety_therapeutic"][0]
    items = [
        {**i, "points": 4 if n == 0 else i["points"]} for n, i in enumerate(case["rubric_items"])
    ]
    rewrite(tmp_path, case, rubric_items=items)
    found = problems(tmp_path)
    assert len(found) == 1
    assert "field rubric_items.0.points" in found[0] and "4 is greater than" in found[0]
    assert f"item {case['rubric_items'][0]['item_id']}" in found[0]


def test_every_violation_is_listed_not_just_the_first(tmp_path: Path) -> None:
    cases = write_release(tmp_path)
    rewrite(tmp_path, cases["drug_safety"][0], prompt="")
    rewrite(tmp_path, cases["safety_diagnostic"][1], split=3, extra=True)
    (case_path(tmp_path, cases["landmark_trials"][0])).write_text("{not json")
    with pytest.raises(DatasetError) as caught:
        load(tmp_path)
    message = str(caught.value)
    assert "4 problems" in message or len(caught.value.violations) >= 4
    assert "nothing was evaluated" in message
    files = {v.file for v in caught.value.violations}
    assert len(files) == 3
    assert any("cannot be read as JSON" in str(v) for v in caught.value.violations)


def test_duplicate_case_ids_across_benchmarks(tmp_path: Path) -> None:
    cases = write_release(tmp_path, manifests=False)
    case = cases["drug_safety"][0]
    copy = {**case, "benchmark": "guideline_adherence"}
    write_case(
        tmp_path / "data" / "guideline_adherence" / "cases" / f"{case['case_id']}.json", copy
    )
    assert any("duplicate case_id" in p for p in problems(tmp_path))


def test_manifest_is_enforced(tmp_path: Path) -> None:
    cases = write_release(tmp_path)
    manifest = tmp_path / "data" / "drug_safety" / "manifest.json"
    ids = [c["case_id"] for c in cases["drug_safety"]]
    manifest.write_text(json.dumps({"case_ids": [ids[0], "f" * 32]}))
    found = problems(tmp_path)
    assert any("listed in the manifest but there is no file" in p and "f" * 32 in p for p in found)
    assert any(f"case {ids[1]}" in p and "not listed in" in p for p in found)


def test_missing_benchmark_folder(tmp_path: Path) -> None:
    write_release(tmp_path)
    for path in (tmp_path / "data" / "health_equity" / "cases").iterdir():
        path.unlink()
    (tmp_path / "data" / "health_equity" / "cases").rmdir()
    assert any("no case folder for benchmark health_equity" in p for p in problems(tmp_path))


def test_registry_order_is_checked(tmp_path: Path) -> None:
    write_release(tmp_path)
    names = list(BENCHMARK_NAMES)
    (tmp_path / "registry.json").write_text(
        json.dumps({"benchmarks": [{"name": n} for n in names]})
    )
    load(tmp_path)
    names[0], names[1] = names[1], names[0]
    (tmp_path / "registry.json").write_text(
        json.dumps({"benchmarks": [{"name": n} for n in names]})
    )
    assert any("registry order" in p for p in problems(tmp_path))


def test_samples_and_smoke(tmp_path: Path) -> None:
    cases = write_release(tmp_path, per_benchmark=3)
    release = load(tmp_path)
    dataset = benchmark_dataset(release, "safety_diagnostic")
    assert [s.id for s in dataset] == [c["case_id"] for c in cases["safety_diagnostic"]]
    sample = dataset[0]
    assert sample.input == cases["safety_diagnostic"][0]["prompt"]
    assert sample.metadata is not None
    assert set(sample.metadata) == {
        "case_id",
        "benchmark",
        "grading_method",
        "split",
        "rubric_items",
    }
    smoke = benchmark_dataset(release, "safety_diagnostic", smoke=True)
    assert [s.id for s in smoke] == [cases["safety_diagnostic"][0]["case_id"]]


def test_source_resolution_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    monkeypatch.setenv("BEDSIDE_BENCH_DATA", str(b))
    assert resolve_source(str(a)).root == a.resolve()
    assert resolve_source(None).root == b.resolve()
    with pytest.raises(FileNotFoundError, match="data_dir"):
        resolve_source(str(tmp_path / "missing"))


def test_hugging_face_offline_without_cache_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BEDSIDE_BENCH_DATA", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    with pytest.raises(RuntimeError, match="doximity/bedside-bench@90d08d93"):
        resolve_source(None)


REAL = os.environ.get("BEDSIDE_BENCH_DATA")


@pytest.mark.skipif(not REAL, reason="set BEDSIDE_BENCH_DATA to the public release")
def test_real_public_release() -> None:
    release = load_release(resolve_source(REAL))
    assert len(release.all_cases) == 250
    assert {k: len(v) for k, v in release.cases.items()} == {n: 25 for n in BENCHMARK_NAMES}
    first = release.cases["drug_safety"]
    example = next(c for c in first if c["case_id"] == "060fc273ab79cb9d4f7e8a9d8e253dd5")
    assert [i["item_id"] for i in example["rubric_items"]] == [
        f"68befa69f1bcd167c69e95e1462c1bbc_{n}" for n in range(3)
    ]
    for case in release.all_cases:
        for n, item in enumerate(case["rubric_items"]):
            assert item["item_id"] == canonical_item_id(case["prompt"], n)


def test_hugging_face_cached_snapshot_is_used_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A revision already in the normal Hugging Face cache loads with HF_HUB_OFFLINE=1."""
    import shutil

    import huggingface_hub.constants as constants

    from bedside_bench.protocol import HF_DATASET_REVISION

    cache = tmp_path / "hf" / "hub"
    repo = cache / "datasets--doximity--bedside-bench"
    snapshot = repo / "snapshots" / HF_DATASET_REVISION
    shutil.copytree(Path(__file__).resolve().parent.parent / "data" / "synthetic", snapshot)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(HF_DATASET_REVISION)
    monkeypatch.delenv("BEDSIDE_BENCH_DATA", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    source = resolve_source(None)
    assert source.label == f"hf://doximity/bedside-bench@{HF_DATASET_REVISION}"
    assert source.root == snapshot
    assert len(load_release(source).all_cases) == 20


def test_cached_release_is_reused_until_a_file_changes(tmp_path: Path) -> None:
    from bedside_bench.dataset import load_release_cached

    cases = write_release(tmp_path)
    source = DataSource(root=tmp_path, label=str(tmp_path))
    first = load_release_cached(source)
    assert load_release_cached(source) is first
    rewrite(tmp_path, cases["drug_safety"][0], split="test")
    second = load_release_cached(source)
    assert second is not first
    assert second.cases["drug_safety"][0]["split"] == "test"
    rewrite(tmp_path, cases["drug_safety"][0], prompt="")
    with pytest.raises(DatasetError, match="the prompt is empty"):
        load_release_cached(source)
