"""The synthetic release and the judge-check set are built from their source files, and
`--check` proves the built files are current.

The builder runs in-process (imported from a copy of the data folder), so these stay unit tests.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from bedside_bench.release.case import DatasetError
from bedside_bench.release.dataset import load_release
from bedside_bench.release.sources import DataSource
from bedside_bench.task.judge_check.data import GoldFile, load_gold_files

DATA = Path(__file__).resolve().parent.parent / "data"
SOURCE = DATA / "synthetic" / "source"


def load_builder(data_dir: Path) -> ModuleType:
    """Import `make_synthetic.py` from `data_dir`, so that it reads and writes only there."""
    spec = importlib.util.spec_from_file_location(
        f"make_synthetic_{abs(hash(data_dir))}", data_dir / "make_synthetic.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """The builder, the synthetic release and the judge-check set, copied to a scratch folder."""
    copy = tmp_path / "data"
    copy.mkdir()
    shutil.copy2(DATA / "make_synthetic.py", copy / "make_synthetic.py")
    shutil.copytree(DATA / "synthetic", copy / "synthetic")
    (copy / "judge_check").mkdir()
    shutil.copy2(DATA / "judge_check" / "pairs.jsonl", copy / "judge_check" / "pairs.jsonl")
    return copy


def test_committed_files_are_current(capsys: pytest.CaptureFixture[str]) -> None:
    assert load_builder(DATA).main(["--check"]) == 0
    assert capsys.readouterr().out.strip() == "OK: files match the generator"


def test_release_matches_source_on_the_package_loader() -> None:
    """Read with the package's own loader, every case is its source text, in source order."""
    release = load_release(DataSource(root=DATA / "synthetic", label="synthetic"))
    registry = json.loads((DATA / "synthetic" / "registry.json").read_text(encoding="utf-8"))
    assert sorted(p.stem for p in SOURCE.glob("*.json")) == sorted(
        [b["name"] for b in registry["benchmarks"]] + ["judge_check_pairs"]
    )
    for entry in registry["benchmarks"]:
        source = json.loads((SOURCE / f"{entry['name']}.json").read_text(encoding="utf-8"))
        loaded = release.cases[entry["name"]]
        assert [c.prompt for c in loaded] == [c["prompt"] for c in source["cases"]]
        for case, written in zip(loaded, source["cases"], strict=True):
            assert case.grading_method == entry["grading_method"]
            assert [(i.points, i.text) for i in case.rubric_items] == [
                (i["points"], i["text"]) for i in written["rubric"]
            ]
    assert len(release.all_cases) == 20


def test_check_names_a_stale_file_and_writing_fixes_it(
    data_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source_path = data_copy / "synthetic" / "source" / "drug_safety.json"
    source = json.loads(source_path.read_text(encoding="utf-8"))
    source["cases"][0]["rubric"][4]["points"] = -1
    source_path.write_text(json.dumps(source, indent=2), encoding="utf-8")
    manifest = data_copy / "synthetic" / "data" / "drug_safety" / "manifest.json"
    manifest.unlink()
    stray = data_copy / "synthetic" / "data" / "drug_safety" / "cases" / "stray.json"
    stray.write_text("{}\n", encoding="utf-8")
    case_file = next(
        p
        for p in (data_copy / "synthetic" / "data" / "drug_safety" / "cases").glob("*.json")
        if p != stray and "allopurinol" in p.read_text(encoding="utf-8")
    )

    builder = load_builder(data_copy)
    assert builder.main(["--check"]) == 1
    out = capsys.readouterr().out.splitlines()
    # the edited item changes its case file and the judge-check pairs built on that case
    assert out == [
        "differs: data/judge_check/pairs.jsonl",
        f"differs: data/synthetic/data/drug_safety/cases/{case_file.name}",
        "differs: data/synthetic/data/drug_safety/manifest.json",
        "unexpected: data/synthetic/data/drug_safety/cases/stray.json",
        "4 file(s) differ",
    ]

    stray.unlink()
    assert builder.main([]) == 0
    assert json.loads(case_file.read_text(encoding="utf-8"))["rubric_items"][4]["points"] == -1
    assert builder.main(["--check"]) == 0


def test_readme_table_is_written_from_the_topics(data_copy: Path) -> None:
    source_path = data_copy / "synthetic" / "source" / "health_equity.json"
    source = json.loads(source_path.read_text(encoding="utf-8"))
    source["cases"][1]["topic"] = "a new topic line"
    source_path.write_text(json.dumps(source, indent=2), encoding="utf-8")
    builder = load_builder(data_copy)
    assert builder.main(["--check"]) == 1
    builder.main([])
    readme = (data_copy / "synthetic" / "README.md").read_text(encoding="utf-8")
    assert "| health_equity | `a3a59c7980bb878bb2897f1991bf9486` | a new topic line |" in readme
    assert readme.count("| health_equity |") == 2


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda s: s["cases"][1]["rubric"][2].update(points=4),
            "data/synthetic/source/drug_safety.json: case 'ds-pde5': rubric[2].points must be"
            " an integer in -3..3",
        ),
        (
            lambda s: s["cases"][0].pop("topic"),
            "data/synthetic/source/drug_safety.json: cases[0]: missing keys ['topic'],"
            " unexpected keys []",
        ),
        (
            lambda s: s["cases"][1].update(key="ds-aza"),
            "data/synthetic/source/drug_safety.json: case 'ds-aza': key is used twice",
        ),
        (
            lambda s: s["cases"][0].update(prompt=" "),
            "data/synthetic/source/drug_safety.json: case 'ds-aza': prompt: must be a non-empty"
            " string without outer white space",
        ),
        (
            lambda s: s.update(benchmark="drug_safty"),
            "data/synthetic/source/drug_safety.json: benchmark is 'drug_safty', expected"
            " 'drug_safety'",
        ),
    ],
    ids=["points", "missing-key", "duplicate-key", "blank-prompt", "benchmark-name"],
)
def test_a_bad_source_names_file_case_and_field(
    data_copy: Path, edit: Callable[[dict[str, Any]], object], message: str
) -> None:
    source_path = data_copy / "synthetic" / "source" / "drug_safety.json"
    source = json.loads(source_path.read_text(encoding="utf-8"))
    edit(source)
    source_path.write_text(json.dumps(source, indent=2), encoding="utf-8")
    with pytest.raises(SystemExit) as raised:
        load_builder(data_copy)
    assert str(raised.value) == f"error: {message}"


def test_a_source_file_outside_the_registry_is_an_error(data_copy: Path) -> None:
    shutil.copy2(
        data_copy / "synthetic" / "source" / "drug_safety.json",
        data_copy / "synthetic" / "source" / "drug_safety_v2.json",
    )
    with pytest.raises(SystemExit) as raised:
        load_builder(data_copy)
    assert str(raised.value) == (
        "error: data/synthetic/source: not in the registry: ['drug_safety_v2.json']"
    )


def test_pairs_are_their_source_with_the_case_filled_in() -> None:
    """Each built pair is its source answer and gold with its case's prompt and rubric."""
    source = json.loads((SOURCE / "judge_check_pairs.json").read_text(encoding="utf-8"))
    cases = {}
    for path in SOURCE.glob("*.json"):
        if path.name != "judge_check_pairs.json":
            for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
                cases[case["key"]] = case
    built = [
        json.loads(line)
        for line in (DATA / "judge_check" / "pairs.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert len(built) == len(source["pairs"]) == 68
    for n, (pair, written) in enumerate(zip(built, source["pairs"], strict=True), start=1):
        case = cases[written["case"]]
        assert pair["pair_id"] == f"jc-{n:03d}"
        assert pair["prompt"] == case["prompt"]
        assert pair["answer"] == "\n".join(written["answer"])
        assert [
            (i["points"], i["text"], i["gold_matched"], i["rule"], i["note"])
            for i in pair["rubric_items"]
        ] == [
            (item["points"], item["text"], gold["matched"], gold["rule"], gold["note"])
            for item, gold in zip(case["rubric"], written["gold"], strict=True)
        ]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda s: s["pairs"][0]["gold"].pop(),
            "pairs[0]: gold must list one decision per rubric item (6)",
        ),
        (
            lambda s: s["pairs"][3]["gold"][2].update(note=" A note."),
            "pairs[3]: gold[2].note: must be a non-empty string without outer white space",
        ),
        (
            lambda s: s["pairs"][5].update(case="ds-missing"),
            "pairs[5]: case 'ds-missing' is not a synthetic case key",
        ),
        (
            lambda s: s["pairs"][0].update(answer="one line"),
            "pairs[0]: answer must be a list of lines (strings)",
        ),
    ],
    ids=["gold-count", "note", "case-key", "answer"],
)
def test_a_bad_pair_names_the_pair_and_field(
    data_copy: Path, edit: Callable[[dict[str, Any]], object], message: str
) -> None:
    source_path = data_copy / "synthetic" / "source" / "judge_check_pairs.json"
    source = json.loads(source_path.read_text(encoding="utf-8"))
    edit(source)
    source_path.write_text(json.dumps(source, indent=2), encoding="utf-8")
    with pytest.raises(SystemExit) as raised:
        load_builder(data_copy)
    assert str(raised.value) == f"error: data/synthetic/source/judge_check_pairs.json: {message}"


def test_a_bad_gold_decision_is_built_and_the_validator_names_it(data_copy: Path) -> None:
    """The builder copies gold decisions; what they may hold is the gold set's validator's."""
    source_path = data_copy / "synthetic" / "source" / "judge_check_pairs.json"
    source = json.loads(source_path.read_text(encoding="utf-8"))
    source["pairs"][0]["gold"][0]["rule"] = 4  # on a +2 item
    source["pairs"][1]["gold"][3]["matched"] = "yes"
    source["pairs"][2]["gold"][1]["rule"] = 6
    source_path.write_text(json.dumps(source, indent=2), encoding="utf-8")
    assert load_builder(data_copy).main([]) == 0
    built = (data_copy / "judge_check" / "pairs.jsonl").read_text(encoding="utf-8")
    with pytest.raises(DatasetError) as raised:
        load_gold_files([GoldFile(built, "data/judge_check/pairs.jsonl", adversarial=False)])
    ids = [[i["item_id"] for i in json.loads(line)["rubric_items"]] for line in built.splitlines()]
    assert [str(v) for v in raised.value.violations] == [
        f"data/judge_check/pairs.jsonl:1, case jc-001, item {ids[0][0]}, field "
        "rubric_items.0.rule: rule 4 is for negative-point items only",
        f"data/judge_check/pairs.jsonl:2, case jc-002, item {ids[1][3]}, field "
        "rubric_items.3.gold_matched: gold_matched must be true or false",
        f"data/judge_check/pairs.jsonl:3, case jc-003, item {ids[2][1]}, field "
        "rubric_items.1.rule: rule must be one of (1, 2, 3, 4, 5)",
    ]
