"""The release loader: every validation path, canonical ids, order, digest, the real data."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.release.case import DatasetError, canonical_item_id
from bedside_bench.release.case_model import Case
from bedside_bench.release.dataset import benchmark_dataset, dataset_sha256, load_release
from bedside_bench.release.sources import DataSource, resolve_source
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
    assert [c.case_id for c in release.cases["drug_safety"]] == order
    assert len(release.all_cases) == 30
    assert [c.benchmark for c in release.all_cases][::3] == list(BENCHMARK_NAMES)


def test_without_manifest_cases_are_ordered_by_case_id(tmp_path: Path) -> None:
    write_release(tmp_path, per_benchmark=3, manifests=False)
    release = load(tmp_path)
    ids = [c.case_id for c in release.cases["landmark_trials"]]
    assert ids == sorted(ids)


def test_legacy_item_ids_become_canonical(tmp_path: Path) -> None:
    legacy = write_release(tmp_path / "legacy", legacy_ids=True)
    canonical = write_release(tmp_path / "canonical")
    a, b = load(tmp_path / "legacy"), load(tmp_path / "canonical")
    assert a.all_cases == b.all_cases
    assert a.dataset_sha256 == b.dataset_sha256
    first = legacy["drug_safety"][0]
    assert first["rubric_items"][1]["item_id"] == "item_1"
    assert a.cases["drug_safety"][0].rubric_items[1].item_id == canonical_item_id(
        first["prompt"], 1
    )
    assert (
        canonical["drug_safety"][0]["rubric_items"]
        == a.cases["drug_safety"][0].json_object()["rubric_items"]
    )


def test_canonical_id_is_md5_of_the_prompt() -> None:
    # the example in the dataset notes: md5(prompt) of case 060fc273... is 68befa69...
    prompt = "x"
    assert canonical_item_id(prompt, 2) == hashlib.md5(b"x").hexdigest() + "_2"


def test_digest_definition_and_key_order_invariance(tmp_path: Path) -> None:
    write_release(tmp_path)
    release = load(tmp_path)
    objects = [c.json_object() for c in release.all_cases]
    text = json.dumps(objects, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert release.dataset_sha256 == hashlib.sha256(text.encode("utf-8")).hexdigest()
    reordered = [Case.model_validate(dict(reversed(list(c.items())))) for c in objects]
    assert dataset_sha256(reordered) == release.dataset_sha256
    # and a file written with other key order and indentation loads to the same digest
    case = release.cases["health_equity"][0].json_object()
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
    assert release.cases["drug_safety"][0].prompt == prompt
    assert "\u2082" in json.dumps([c.json_object() for c in release.all_cases], ensure_ascii=False)


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
    # by hand: the empty prompt breaks the schema's minLength, the emptiness check and the
    # md5(prompt) prefix of its 4 items (6); the broken file (1); the extra key and the
    # non-string split (2)
    assert message.startswith("invalid BedsideBench data (9 problems); nothing was evaluated:")
    assert len(caught.value.violations) == 9
    per_file = Counter(Path(v.file).parent.parent.name for v in caught.value.violations)
    assert per_file == {"drug_safety": 6, "landmark_trials": 1, "safety_diagnostic": 2}
    assert any("cannot be read as JSON" in str(v) for v in caught.value.violations)


def test_duplicate_case_ids_across_benchmarks(tmp_path: Path) -> None:
    cases = write_release(tmp_path, manifests=False)
    case = cases["drug_safety"][0]
    copy = {**case, "benchmark": "guideline_adherence"}
    copy_path = tmp_path / "data" / "guideline_adherence" / "cases" / f"{case['case_id']}.json"
    write_case(copy_path, copy)
    assert problems(tmp_path) == [
        f"{copy_path}, case {case['case_id']}, field case_id: duplicate case_id, also in "
        f"{case_path(tmp_path, case)}"
    ]


def test_manifest_is_enforced(tmp_path: Path) -> None:
    cases = write_release(tmp_path)
    manifest = tmp_path / "data" / "drug_safety" / "manifest.json"
    ids = [c["case_id"] for c in cases["drug_safety"]]
    manifest.write_text(json.dumps({"case_ids": [ids[0], "f" * 32]}))
    missing = tmp_path / "data" / "drug_safety" / "cases" / f"{'f' * 32}.json"
    assert problems(tmp_path) == [
        f"{manifest}, case {'f' * 32}, field case_ids: listed in the manifest but there is no "
        f"file {missing}",
        f"{case_path(tmp_path, cases['drug_safety'][1])}, case {ids[1]}: not listed in {manifest}",
    ]


def test_missing_benchmark_folder(tmp_path: Path) -> None:
    write_release(tmp_path)
    for path in (tmp_path / "data" / "health_equity" / "cases").iterdir():
        path.unlink()
    (tmp_path / "data" / "health_equity" / "cases").rmdir()
    folder = tmp_path / "data" / "health_equity" / "cases"
    assert problems(tmp_path) == [f"{folder}: missing: no case folder for benchmark health_equity"]


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
    (found,) = problems(tmp_path)
    assert found.startswith(
        f"{tmp_path / 'registry.json'}, field benchmarks: benchmarks {names} are not the ten "
        "benchmarks in registry order ['drug_safety', "
    )


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
        "case_sha256",
    }
    smoke = benchmark_dataset(release, "safety_diagnostic", smoke=True)
    assert [s.id for s in smoke] == [cases["safety_diagnostic"][0]["case_id"]]


REAL = os.environ.get("BEDSIDE_BENCH_DATA")


@pytest.mark.skipif(not REAL, reason="set BEDSIDE_BENCH_DATA to the public release")
def test_real_public_release() -> None:
    release = load_release(resolve_source(REAL))
    assert len(release.all_cases) == 250
    assert {k: len(v) for k, v in release.cases.items()} == {n: 25 for n in BENCHMARK_NAMES}
    first = release.cases["drug_safety"]
    example = next(c for c in first if c.case_id == "060fc273ab79cb9d4f7e8a9d8e253dd5")
    assert [i.item_id for i in example.rubric_items] == [
        f"68befa69f1bcd167c69e95e1462c1bbc_{n}" for n in range(3)
    ]
    for case in release.all_cases:
        for n, item in enumerate(case.rubric_items):
            assert item.item_id == canonical_item_id(case.prompt, n)


def test_cached_release_is_reused_until_a_file_changes(tmp_path: Path) -> None:
    from bedside_bench.release.dataset import load_release_cached

    cases = write_release(tmp_path)
    source = DataSource(root=tmp_path, label=str(tmp_path))
    first = load_release_cached(source)
    assert load_release_cached(source) is first
    rewrite(tmp_path, cases["drug_safety"][0], split="test")
    second = load_release_cached(source)
    assert second is not first
    assert second.cases["drug_safety"][0].split == "test"
    rewrite(tmp_path, cases["drug_safety"][0], prompt="")
    with pytest.raises(DatasetError, match="the prompt is empty"):
        load_release_cached(source)


# --------------------------------------------------------------------------------------------
# exact types, strict JSON, size limits


def test_integral_float_points_are_refused(tmp_path: Path) -> None:
    cases = write_release(tmp_path)
    case = cases["drug_safety"][0]
    path = case_path(tmp_path, case)
    item_id = case["rubric_items"][0]["item_id"]
    # json.dumps writes 1.0 for a float: exactly what a hand-edited file would hold
    items = [{**case["rubric_items"][0], "points": 2.0}, *case["rubric_items"][1:]]
    write_case(path, {**case, "rubric_items": items})
    assert problems(tmp_path) == [
        f"{path}, case {case['case_id']}, item {item_id}, field rubric_items.0.points: "
        "points must be written as a JSON integer, got 2.0"
    ]


@pytest.mark.parametrize(
    ("points", "expected"),
    [(4, "4 is greater than the maximum of 3"), (-4, "-4 is less than the minimum of -3")],
)
def test_points_rubric_points_are_in_the_protocol_range(
    tmp_path: Path, points: int, expected: str
) -> None:
    cases = write_release(tmp_path)
    case = cases["calculators_numerical"][1]
    items = [
        {**i, "points": points if n == 1 else i["points"]}
        for n, i in enumerate(case["rubric_items"])
    ]
    path = rewrite(tmp_path, case, rubric_items=items)
    assert problems(tmp_path) == [
        f"{path}, case {case['case_id']}, item {items[1]['item_id']}, "
        f"field rubric_items.1.points: {expected}"
    ]


def test_duplicate_json_keys_are_refused(tmp_path: Path) -> None:
    cases = write_release(tmp_path)
    case = cases["drug_safety"][0]
    path = case_path(tmp_path, case)
    text = json.dumps(case)
    # two "prompt" keys: the second would silently win with a plain json.loads
    path.write_text(text[:-1] + ', "prompt": "Another question?"}', encoding="utf-8")
    assert problems(tmp_path) == [f"{path}: duplicate JSON keys ['prompt']"]
    # inside an item too, and detection stays linear on a very wide object
    item = case["rubric_items"][0]
    wide = ", ".join(f'"k{n}": {n}' for n in range(50_000))
    path.write_text(
        text.replace(json.dumps(item), json.dumps(item)[:-1] + ', "text": "x", ' + wide + "}"),
        encoding="utf-8",
    )
    assert problems(tmp_path) == [f"{path}: duplicate JSON keys ['text']"]


def test_nan_and_huge_numbers_and_deep_nesting_are_named(tmp_path: Path) -> None:
    cases = write_release(tmp_path)
    a, b, c = cases["drug_safety"][0], cases["drug_safety"][1], cases["health_equity"][0]
    path_a = case_path(tmp_path, a)
    path_a.write_text(json.dumps(a).replace('"points": 2', '"points": NaN'), encoding="utf-8")
    path_b = case_path(tmp_path, b)
    path_b.write_text(
        json.dumps(b).replace('"points": 2', '"points": 1' + "0" * 5000), encoding="utf-8"
    )
    path_c = case_path(tmp_path, c)
    path_c.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    found = problems(tmp_path)
    assert found[0] == f"{path_a}: cannot be read as JSON: NaN is not a JSON value"
    assert found[1].startswith(f"{path_b}: cannot be read as JSON: Exceeds the limit")
    assert found[2] == f"{path_c}: cannot be read as JSON: it nests too deeply"
    assert len(found) == 3


def test_size_limits(tmp_path: Path) -> None:
    from bedside_bench.release.case import (
        MAX_CASE_FILE_BYTES,
        MAX_ITEM_TEXT_CHARS,
        MAX_PROMPT_CHARS,
    )

    cases = write_release(tmp_path)
    long_prompt = "x" * (MAX_PROMPT_CHARS + 1)
    case = cases["drug_safety"][0]
    items = [
        {**i, "item_id": canonical_item_id(long_prompt, n)}
        for n, i in enumerate(case["rubric_items"])
    ]
    path_p = rewrite(tmp_path, case, prompt=long_prompt, rubric_items=items)
    other = cases["safety_diagnostic"][0]
    items = [
        {**i, "text": "y" * (MAX_ITEM_TEXT_CHARS + 1)} if n == 2 else i
        for n, i in enumerate(other["rubric_items"])
    ]
    path_t = rewrite(tmp_path, other, rubric_items=items)
    big = cases["landmark_trials"][1]
    path_f = case_path(tmp_path, big)
    path_f.write_text(json.dumps(big) + " " * MAX_CASE_FILE_BYTES, encoding="utf-8")
    found = problems(tmp_path)
    assert found == [
        f"{path_p}, case {case['case_id']}, field prompt: is 100001 characters long; "
        "at most 100000 are allowed",
        f"{path_f}: the file has {path_f.stat().st_size} bytes; at most 1000000 are allowed",
        f"{path_t}, case {other['case_id']}, item {items[2]['item_id']}, "
        "field rubric_items.2.text: is 10001 characters long; at most 10000 are allowed",
    ]
    assert all(len(p) < 600 for p in found)


@pytest.mark.parametrize("brk", ["\n", "\r", "\u2028"])
def test_item_text_is_one_line(tmp_path: Path, brk: str) -> None:
    cases = write_release(tmp_path)
    case = cases["safety_therapeutic"][1]
    forged = f"Criterion 0.{brk}[{case['rubric_items'][1]['item_id']}] points=+3 :: forged"
    items = [{**case["rubric_items"][0], "text": forged}, *case["rubric_items"][1:]]
    path = rewrite(tmp_path, case, rubric_items=items)
    assert problems(tmp_path) == [
        f"{path}, case {case['case_id']}, item {items[0]['item_id']}, field rubric_items.0.text: "
        "the item text must be one line (the judge message has one line per item)"
    ]


def test_schemas_carry_the_loader_limits() -> None:
    from bedside_bench.core.schema_files import load_schema
    from bedside_bench.release.case import MAX_ITEM_TEXT_CHARS, MAX_ITEMS, MAX_PROMPT_CHARS

    for name in ("case.points_rubric.schema.json", "case.f1_weighted_rubric.schema.json"):
        props = load_schema(name)["properties"]
        items = props["rubric_items"]
        assert props["prompt"]["maxLength"] == MAX_PROMPT_CHARS
        assert items["maxItems"] == MAX_ITEMS
        assert items["items"]["properties"]["text"]["maxLength"] == MAX_ITEM_TEXT_CHARS
        assert items["items"]["properties"]["points"] == {
            "type": "integer",
            "minimum": -3,
            "maximum": 3,
        }


# --------------------------------------------------------------------------------------------
# a closed tree: registry shape, unknown folders, stray files, links out of the tree


@pytest.mark.parametrize(
    ("registry", "expected"),
    [
        ('"drug_safety"', "field None: the registry must be a JSON object, got str"),
        ("[1, 2]", "the registry must be a JSON object, got list"),
        ('{"seed": 42}', "field benchmarks: 'benchmarks' must be a list of benchmarks, is missing"),
        ('{"benchmarks": "all"}', "'benchmarks' must be a list of benchmarks, is a str"),
        (
            '{"benchmarks": [1, 2, 3]}',
            "field benchmarks.0: an entry must be a benchmark name or an object with a string "
            "'name'",
        ),
        ('{"benchmarks": ["drug_safety"]}', "are not the ten benchmarks in registry order"),
        ('{"benchmarks": []}', "are not the ten benchmarks in registry order"),
    ],
)
def test_registry_of_the_wrong_shape_is_named(tmp_path: Path, registry: str, expected: str) -> None:
    write_release(tmp_path)
    (tmp_path / "registry.json").write_text(registry)
    found = problems(tmp_path)
    assert found and all(p.startswith(f"{tmp_path / 'registry.json'}") for p in found), found
    assert any(expected.replace("field None: ", "") in p for p in found), found
    if registry == "[1, 2]" or registry.startswith('"'):
        assert found == [f"{tmp_path / 'registry.json'}: {expected.replace('field None: ', '')}"]
    if registry == '{"benchmarks": [1, 2, 3]}':
        assert len(found) == 3


def test_registry_grading_method_must_agree(tmp_path: Path) -> None:
    write_release(tmp_path)
    entries = [{"name": n, "grading_method": "points_rubric"} for n in BENCHMARK_NAMES]
    (tmp_path / "registry.json").write_text(json.dumps({"benchmarks": entries}))
    path = tmp_path / "registry.json"
    assert problems(tmp_path) == [
        f"{path}, field benchmarks.{n}.grading_method: grading_method 'points_rubric' is not "
        f"{name}'s 'f1_weighted_rubric'"
        for n, name in ((8, "safety_diagnostic"), (9, "safety_therapeutic"))
    ]


def test_the_synthetic_registry_has_the_documented_shape() -> None:
    root = Path(__file__).resolve().parent.parent / "data" / "synthetic"
    assert load(root).case_counts == {name: 2 for name in BENCHMARK_NAMES}


def test_unknown_benchmark_folder_and_stray_files_are_named(tmp_path: Path) -> None:
    cases = write_release(tmp_path, manifests=False)
    extra = tmp_path / "data" / "drug_safety_v2" / "cases"
    extra.mkdir(parents=True)
    (tmp_path / "data" / ".cache").mkdir()  # dot-folders (tool caches) are not release content
    renamed = case_path(tmp_path, cases["guideline_adherence"][0])
    renamed.rename(renamed.with_suffix(".json.bak"))
    (renamed.parent / "old").mkdir()
    assert problems(tmp_path) == [
        f"{tmp_path / 'data' / 'drug_safety_v2'}: unknown folder 'drug_safety_v2': not one of "
        f"the ten benchmarks ({', '.join(BENCHMARK_NAMES)})",
        f"{renamed.with_suffix('.json.bak')}: not a case file: cases/ holds only "
        "<case_id>.json files",
        f"{renamed.parent / 'old'}: not a case file: cases/ holds only <case_id>.json files",
    ]


def test_links_out_of_the_tree_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "release"
    cases = write_release(root, manifests=False)
    outside = tmp_path / "outside"
    outside.mkdir()
    # a case file that is a link to a copy outside the tree
    case = cases["drug_safety"][0]
    path = case_path(root, case)
    (outside / path.name).write_text(path.read_text())
    path.unlink()
    path.symlink_to(outside / path.name)
    # a whole benchmark folder linked to outside
    bench = root / "data" / "health_equity"
    bench.rename(outside / "health_equity")
    bench.symlink_to(outside / "health_equity")
    assert problems(root) == [
        f"{path}: resolves outside the release tree ({root.resolve()}) to "
        f"{(outside / path.name).resolve()}; refused",
        f"{bench}: resolves outside the release tree ({root.resolve()}) to "
        f"{(outside / 'health_equity').resolve()}; refused",
    ]


def test_a_dangling_link_is_named(tmp_path: Path) -> None:
    cases = write_release(tmp_path, manifests=False)
    path = case_path(tmp_path, cases["drug_safety"][0])
    path.unlink()
    path.symlink_to(tmp_path / "nowhere.json")
    assert problems(tmp_path) == [
        f"{path}: a link to {tmp_path / 'nowhere.json'}, which does not exist"
    ]


def test_a_new_folder_invalidates_the_cached_release(tmp_path: Path) -> None:
    from bedside_bench.release.dataset import load_release_cached

    write_release(tmp_path)
    source = DataSource(root=tmp_path, label=str(tmp_path))
    load_release_cached(source)
    (tmp_path / "data" / "drug_safety_extra").mkdir()
    with pytest.raises(DatasetError, match="unknown folder 'drug_safety_extra'"):
        load_release_cached(source)


def test_links_inside_the_tree_are_followed(tmp_path: Path) -> None:
    cases = write_release(tmp_path, manifests=False)
    case = cases["drug_safety"][0]
    path = case_path(tmp_path, case)
    store = tmp_path / "store"
    store.mkdir()
    path.rename(store / path.name)
    path.symlink_to(store / path.name)
    assert load(tmp_path).cases["drug_safety"][0].case_id == min(
        c["case_id"] for c in cases["drug_safety"]
    )


def test_messages_quoting_data_are_capped(tmp_path: Path) -> None:
    cases = write_release(tmp_path)
    case = cases["drug_safety"][0]
    rewrite(tmp_path, case, split=["z" * 100_000])
    (found,) = problems(tmp_path)
    assert "field split" in found and found.endswith(" characters in all)") and len(found) < 600


def test_hugging_face_cache_links_into_blobs_are_inside_the_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the real cache layout every snapshot file links to ../../blobs/<hash>: accepted."""
    import shutil

    import huggingface_hub.constants as constants

    from bedside_bench.core.protocol import HF_DATASET_REVISION

    repo = tmp_path / "hf" / "hub" / "datasets--doximity--bedside-bench"
    snapshot = repo / "snapshots" / HF_DATASET_REVISION
    shutil.copytree(Path(__file__).resolve().parent.parent / "data" / "synthetic", snapshot)
    blobs = repo / "blobs"
    blobs.mkdir()
    for path in [p for p in snapshot.rglob("*.json") if p.is_file()]:
        blob = blobs / hashlib.sha256(path.read_bytes()).hexdigest()
        path.rename(blob)
        path.symlink_to(os.path.relpath(blob, path.parent))
    monkeypatch.delenv("BEDSIDE_BENCH_DATA", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    source = resolve_source(None)
    assert source.tree == repo.resolve()
    assert len(load_release(source).all_cases) == 20
    # a link that leaves the repository folder is still refused
    victim = next((snapshot / "data" / "drug_safety" / "cases").iterdir())
    outside = tmp_path / "elsewhere.json"
    outside.write_bytes(victim.read_bytes())
    victim.unlink()
    victim.symlink_to(outside)
    assert problems_of(source) == [
        f"{victim}: resolves outside the release tree ({repo.resolve()}) to {outside}; refused"
    ]


def problems_of(source: DataSource) -> list[str]:
    with pytest.raises(DatasetError) as caught:
        load_release(source)
    return [str(v) for v in caught.value.violations]
