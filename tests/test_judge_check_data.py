"""The judge-check gold set's one validator (`bedside_bench/task/judge_check/data.py`) and the
script that runs it over the shipped files (`data/judge_check/check_pairs.py`).

Every record check and set requirement has an input that fails it, and the error must name the
file (and line), the pair and the field. All of it runs in-process except one subprocess run.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from bedside_bench.release.case import DatasetError
from bedside_bench.release.dataset import load_release
from bedside_bench.release.sources import DataSource
from bedside_bench.task.judge_check.data import (
    ATTACKS,
    GoldFile,
    Requirements,
    case_rubric,
    default_files,
    default_pairs,
    load_gold_files,
    load_pairs,
    requirement_violations,
    rubric_of,
)

REPO = Path(__file__).resolve().parent.parent
FOLDER = REPO / "data" / "judge_check"
SCRIPT = FOLDER / "check_pairs.py"


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


GOLD = read(FOLDER / "pairs.jsonl")
ADVERSARIAL = read(FOLDER / "adversarial.jsonl")
BY_ID = {p["pair_id"]: p for p in GOLD + ADVERSARIAL}
ATTACK_LIST = "forged_sections, echoed_rubric, addressing_judge, every_option"


def pair(pair_id: str) -> dict[str, Any]:
    return copy.deepcopy(BY_ID[pair_id])


def item_id(pair_id: str, index: int) -> str:
    prompt = BY_ID[pair_id]["prompt"]
    return f"{hashlib.md5(prompt.encode('utf-8')).hexdigest()}_{index}"


def jsonl(*pairs: dict[str, Any]) -> str:
    return "".join(json.dumps(p) + "\n" for p in pairs)


def problems(*files: GoldFile, reference: dict[str, Any] | None = None) -> list[str]:
    with pytest.raises(DatasetError) as raised:
        load_gold_files(files, reference)
    return [str(v) for v in raised.value.violations]


def edited(pair_id: str, edit: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    changed = pair(pair_id)
    edit(changed)
    return changed


def set_item(index: int, **fields: object) -> Callable[[dict[str, Any]], object]:
    return lambda p: p["rubric_items"][index].update(fields)


AT = "gold.jsonl:1, case jc-001"
I0 = f"{AT}, item {item_id('jc-001', 0)}, field rubric_items.0"

# (edit of jc-001, every violation it causes)
RECORD_CASES: dict[str, tuple[Callable[[dict[str, Any]], object], list[str]]] = {
    "missing-key": (
        lambda p: p.pop("synthetic"),
        [f"{AT}, field synthetic: missing keys ['synthetic'], unexpected keys []"],
    ),
    "unexpected-key": (
        lambda p: p.update(extra=1),
        [f"{AT}, field extra: missing keys [], unexpected keys ['extra']"],
    ),
    "unknown-attack": (
        lambda p: p.update(pair_id="adv-001", attack="flattery"),
        [f"gold.jsonl:1, case adv-001, field attack: attack must be one of {ATTACK_LIST}"],
    ),
    "pair-id": (
        lambda p: p.update(pair_id="jc-1"),
        ["gold.jsonl:1, case jc-1, field pair_id: pair_id must look like jc-001"],
    ),
    "pair-id-not-text": (
        lambda p: p.update(pair_id=1),
        ["gold.jsonl:1, field pair_id: pair_id must look like jc-001"],
    ),
    "adversarial-pair-id": (
        lambda p: p.update(attack="echoed_rubric"),
        [f"{AT}, field pair_id: pair_id must look like adv-001"],
    ),
    "synthetic": (
        lambda p: p.update(synthetic="yes"),
        [f"{AT}, field synthetic: synthetic must be true or false"],
    ),
    "grading-method": (
        lambda p: p.update(grading_method="points"),
        [
            f"{AT}, field grading_method: grading_method must be one of points_rubric, "
            "f1_weighted_rubric"
        ],
    ),
    "prompt": (
        lambda p: p.update(prompt=" "),
        [f"{AT}, field prompt: the prompt must be a non-empty string"],
    ),
    "answer": (
        lambda p: p.update(answer=None),
        [f"{AT}, field answer: the answer must be a non-empty string"],
    ),
    "answer-short": (
        lambda p: p.update(answer=" ".join(["word"] * 59)),
        [f"{AT}, field answer: the answer has 59 words; 60-250 allowed"],
    ),
    "answer-long": (
        lambda p: p.update(answer=" ".join(["word"] * 251)),
        [f"{AT}, field answer: the answer has 251 words; 60-250 allowed"],
    ),
    "rubric-empty": (
        lambda p: p.update(rubric_items=[]),
        [f"{AT}, field rubric_items: rubric_items must be a non-empty list"],
    ),
    "rubric-not-list": (
        lambda p: p.update(rubric_items={"item_id": "x"}),
        [f"{AT}, field rubric_items: rubric_items must be a non-empty list"],
    ),
    "item-keys": (
        lambda p: p["rubric_items"][0].pop("note"),
        [
            f"{AT}, field rubric_items.0: keys must be exactly "
            "['gold_matched', 'item_id', 'note', 'points', 'rule', 'text']"
        ],
    ),
    "item-not-object": (
        lambda p: p["rubric_items"].__setitem__(0, "an item"),
        [
            f"{AT}, field rubric_items.0: keys must be exactly "
            "['gold_matched', 'item_id', 'note', 'points', 'rule', 'text']"
        ],
    ),
    "item-id-legacy": (
        set_item(0, item_id="item_0"),
        [
            f"{AT}, item item_0, field rubric_items.0.item_id: item_id must be canonical, "
            "{md5(prompt)}_{index}"
        ],
    ),
    "item-id-not-text": (
        set_item(0, item_id=0),
        [
            f"{AT}, field rubric_items.0.item_id: item_id must be canonical, "
            "{md5(prompt)}_{index}"
        ],
    ),
    "item-id-prefix": (
        set_item(0, item_id="0" * 32 + "_0"),
        [
            f"{AT}, item {'0' * 32}_0, field item_id: item id prefix is not md5(prompt) = "
            f"{item_id('jc-001', 0)[:32]}"
        ],
    ),
    "item-id-index": (
        set_item(0, item_id=item_id("jc-001", 9)),
        [
            f"{AT}, item {item_id('jc-001', 9)}, field item_id: item id index 9 does not "
            "equal the item's position 0"
        ],
    ),
    "item-id-duplicate": (
        set_item(1, item_id=item_id("jc-001", 0)),
        [
            f"{AT}, item {item_id('jc-001', 0)}, field item_id: duplicate item_id",
            f"{AT}, item {item_id('jc-001', 0)}, field item_id: item id index 0 does not "
            "equal the item's position 1",
        ],
    ),
    "text": (set_item(0, text=""), [f"{I0}.text: text must be a non-empty string"]),
    "text-two-lines": (
        set_item(0, text="Names the interaction.\nAnd stops azathioprine."),
        [f"{I0}.text: the item text must be one line (the judge message has one line per item)"],
    ),
    "points-range": (set_item(0, points=4), [f"{I0}.points: points must be an integer in -3..+3"]),
    "points-boolean": (
        set_item(0, points=True),
        [f"{I0}.points: points must be an integer in -3..+3"],
    ),
    "points-float": (
        set_item(0, points=2.0),
        [
            f"{I0}.points: points must be an integer in -3..+3",
            f"{I0}.points: points must be written as a JSON integer, got 2.0",
        ],
    ),
    "gold-matched": (
        set_item(0, gold_matched="yes"),
        [f"{I0}.gold_matched: gold_matched must be true or false"],
    ),
    "rule-range": (set_item(0, rule=6), [f"{I0}.rule: rule must be one of (1, 2, 3, 4, 5)"]),
    "rule-text": (set_item(0, rule="2"), [f"{I0}.rule: rule must be one of (1, 2, 3, 4, 5)"]),
    "rule-4-positive": (
        set_item(0, rule=4),
        [f"{I0}.rule: rule 4 is for negative-point items only"],
    ),
    "note": (set_item(0, note=" "), [f"{I0}.note: note must be a non-empty string"]),
    "note-two-sentences": (
        set_item(0, note="Named as Crestor. That is rosuvastatin."),
        [f"{I0}.note: note must be one sentence ending with a period"],
    ),
    "note-no-period": (
        set_item(0, note="Named as Crestor"),
        [f"{I0}.note: note must be one sentence ending with a period"],
    ),
    "no-positive-item": (
        lambda p: [item.update(points=-1) for item in p["rubric_items"]],
        [f"{AT}, field rubric_items: the rubric has no positive-point item"],
    ),
}


@pytest.mark.parametrize(("edit", "expected"), RECORD_CASES.values(), ids=RECORD_CASES.keys())
def test_each_record_check_names_file_line_pair_and_field(
    edit: Callable[[dict[str, Any]], object], expected: list[str]
) -> None:
    assert problems(GoldFile(jsonl(edited("jc-001", edit)), "gold.jsonl")) == expected


def test_a_set_of_ones_own_may_be_real_but_a_shipped_part_must_be_synthetic() -> None:
    real = edited("jc-001", lambda p: p.update(synthetic=False))
    assert load_gold_files([GoldFile(jsonl(real), "own.jsonl")]) == [real]
    assert problems(GoldFile(jsonl(real), "pairs.jsonl", adversarial=False)) == [
        "pairs.jsonl:1, case jc-001, field synthetic: synthetic must be true"
    ]


def test_the_f1_rubric_checks() -> None:
    """jc-049 is an F1 pair: 14 items, one +3 (item 0) and one -3 (item 8)."""
    assert [i["points"] for i in BY_ID["jc-049"]["rubric_items"]].count(3) == 1
    extra = {**BY_ID["jc-049"]["rubric_items"][13], "item_id": item_id("jc-049", 14)}
    fifteen = edited("jc-049", lambda p: p["rubric_items"].append(extra))
    seven = edited("jc-049", lambda p: p.update(rubric_items=p["rubric_items"][:7]))
    seven["rubric_items"][6].update(points=-3, rule=1)
    no_plus_3 = edited("jc-049", set_item(0, points=2))
    no_minus_3 = edited("jc-049", set_item(8, points=-2))
    at = "f1.jsonl:{}, case jc-049, field rubric_items: an F1 pair needs"
    assert problems(GoldFile(jsonl(fifteen, seven, no_plus_3, no_minus_3), "f1.jsonl")) == [
        f"{at.format(1)} 8-14 rubric items, has 15",
        f"{at.format(2)} 8-14 rubric items, has 7",
        f"{at.format(3)} at least one +3 and one -3 item",
        f"{at.format(4)} at least one +3 and one -3 item",
    ]


def test_the_line_checks_name_file_and_line() -> None:
    good = json.dumps(BY_ID["jc-001"])
    text = f"{good}\n\n{{\n[1, 2]\n"
    assert problems(GoldFile(text, "gold.jsonl")) == [
        "gold.jsonl:2: empty line",
        "gold.jsonl:3: not JSON: Expecting property name enclosed in double quotes",
        "gold.jsonl:4: a pair must be a JSON object",
    ]
    assert problems(GoldFile("", "empty.jsonl")) == ["empty.jsonl: no pairs"]


def test_the_attack_tag_belongs_to_the_adversarial_file_only() -> None:
    tagged, plain = pair("adv-001"), pair("jc-001")
    assert problems(GoldFile(jsonl(tagged), "pairs.jsonl", adversarial=False)) == [
        "pairs.jsonl:1, case adv-001, field attack: only the adversarial part "
        "(adversarial.jsonl) tags an attack"
    ]
    assert problems(GoldFile(jsonl(plain), "adv.jsonl", adversarial=True)) == [
        "adv.jsonl:1, case jc-001, field attack: a pair of the adversarial part needs an attack tag"
    ]
    # a set given as -T data_file may hold both kinds
    assert len(load_gold_files([GoldFile(jsonl(plain, tagged), "mixed.jsonl")])) == 2


def test_an_unknown_attack_tag_is_named() -> None:
    with pytest.raises(DatasetError, match="adv.jsonl:1, case adv-001, field attack: attack must"):
        load_pairs(json.dumps({**ADVERSARIAL[0], "attack": "flattery"}), "adv.jsonl")


def test_the_checks_across_pairs_and_files() -> None:
    first, second = pair("jc-001"), pair("jc-002")
    assert first["prompt"] == second["prompt"]
    same_id = {**second, "pair_id": "jc-001"}
    assert problems(GoldFile(jsonl(first), "a.jsonl"), GoldFile(jsonl(same_id), "b.jsonl")) == [
        "b.jsonl:1, case jc-001, field pair_id: duplicate pair_id (first at a.jsonl:1)"
    ]
    copied = {**pair("adv-001"), "answer": first["answer"]}
    assert problems(
        GoldFile(jsonl(first), "pairs.jsonl", adversarial=False),
        GoldFile(jsonl(copied), "adv.jsonl", adversarial=True),
    ) == ["adv.jsonl:1, case adv-001, field answer: the answer duplicates jc-001's"]
    other_rubric = edited("jc-002", set_item(0, points=1))
    assert problems(GoldFile(jsonl(first, other_rubric), "gold.jsonl")) == [
        "gold.jsonl:2, case jc-002, field rubric_items: same prompt as jc-001 but a different "
        "rubric"
    ]


def synthetic_rubrics() -> dict[str, Any]:
    release = load_release(DataSource(root=REPO / "data" / "synthetic", label="synthetic"))
    return {case.prompt: case_rubric(case) for case in release.all_cases}


def test_a_rubric_must_be_its_synthetic_case() -> None:
    reference = synthetic_rubrics()
    first = pair("jc-001")
    assert rubric_of(first) == reference[first["prompt"]]
    changed = edited("jc-001", set_item(1, text="Another criterion."))
    assert problems(GoldFile(jsonl(changed), "gold.jsonl"), reference=reference) == [
        "gold.jsonl:1, case jc-001, field rubric_items: the rubric differs from the synthetic "
        "case with this prompt"
    ]
    # without a reference (the installed package has no synthetic release) it is one rubric
    assert load_gold_files([GoldFile(jsonl(changed), "gold.jsonl")]) == [changed]


def test_the_shipped_files_pass_every_check() -> None:
    pairs = load_gold_files(default_files(), synthetic_rubrics())
    assert pairs == GOLD + ADVERSARIAL == default_pairs()
    assert (len(GOLD), len(ADVERSARIAL)) == (68, 8)
    assert requirement_violations(GOLD, "pairs.jsonl", ADVERSARIAL, "adversarial.jsonl") == []


def test_adversarial_pairs_cover_every_attack() -> None:
    assert sorted({p["attack"] for p in ADVERSARIAL}) == sorted(ATTACKS)
    assert all(sum(p["attack"] == a for p in ADVERSARIAL) >= 2 for a in ATTACKS)
    # forged sections really close the answer and open a rubric with the real item ids
    forged = [p for p in ADVERSARIAL if p["attack"] == "forged_sections"]
    for forged_pair in forged:
        assert "</answer>" in forged_pair["answer"] and "<rubric_items>" in forged_pair["answer"]
        assert forged_pair["rubric_items"][0]["item_id"] in forged_pair["answer"]
    assert len(default_pairs()) == len(GOLD) + len(ADVERSARIAL)


# ---- the set's requirements ----------------------------------------------------------------
# The shipped counts (README "Counts", by hand from the files): 68 pairs, 556 item decisions,
# 48 points_rubric and 20 f1_weighted_rubric pairs, rule-4 traps 68 of 174 negative items
# (39.1%), 43 endorsed, every rule tagged; every attack on 2 adversarial pairs.


def test_the_documented_minimums() -> None:
    assert Requirements() == Requirements(
        pairs=60, item_decisions=400, pairs_per_method=15, trap_share=0.25, pairs_per_attack=2
    )


@pytest.mark.parametrize(
    ("needs", "expected"),
    [
        (Requirements(pairs=69), ["pairs.jsonl: need at least 69 pairs, have 68"]),
        (
            Requirements(item_decisions=557),
            ["pairs.jsonl, field rubric_items: need at least 557 item decisions, have 556"],
        ),
        (
            Requirements(pairs_per_method=21),
            [
                "pairs.jsonl, field grading_method: need at least 21 f1_weighted_rubric pairs, "
                "have 20"
            ],
        ),
        (
            Requirements(pairs_per_method=49),
            [
                "pairs.jsonl, field grading_method: need at least 49 points_rubric pairs, have 48",
                "pairs.jsonl, field grading_method: need at least 49 f1_weighted_rubric pairs, "
                "have 20",
            ],
        ),
        (
            Requirements(trap_share=0.4),
            [
                "pairs.jsonl, field rubric_items.rule: rule-4 traps are 39.1% of negative items "
                "(< 40%)"
            ],
        ),
        (
            Requirements(pairs_per_attack=3),
            [
                f"adversarial.jsonl, field attack: need at least 3 {attack} pairs, have 2"
                for attack in ATTACKS
            ],
        ),
    ],
    ids=["pairs", "items", "f1-pairs", "per-method", "trap-share", "per-attack"],
)
def test_each_size_requirement_names_file_and_field(
    needs: Requirements, expected: list[str]
) -> None:
    found = requirement_violations(GOLD, "pairs.jsonl", ADVERSARIAL, "adversarial.jsonl", needs)
    assert [str(v) for v in found] == expected


def test_the_rule_requirements_name_file_and_field() -> None:
    never_endorsed = copy.deepcopy(GOLD)
    for p in never_endorsed:
        for item in p["rubric_items"]:
            if item["rule"] == 4:
                item["gold_matched"] = False
    assert [str(v) for v in requirement_violations(never_endorsed, "pairs.jsonl")] == [
        "pairs.jsonl, field rubric_items.rule: no negative item is endorsed (rule 4, gold true)"
    ]
    no_rule_5 = copy.deepcopy(GOLD)
    for p in no_rule_5:
        for item in p["rubric_items"]:
            item["rule"] = 1 if item["rule"] == 5 else item["rule"]
    assert [str(v) for v in requirement_violations(no_rule_5, "pairs.jsonl")] == [
        "pairs.jsonl, field rubric_items.rule: no item is tagged rule 5"
    ]
    # too few traps: every trap (rule 4, gold false) retagged rule 1 leaves 0 of 174
    no_traps = copy.deepcopy(GOLD)
    for p in no_traps:
        for item in p["rubric_items"]:
            if item["rule"] == 4 and not item["gold_matched"]:
                item["rule"] = 1
    assert [str(v) for v in requirement_violations(no_traps, "pairs.jsonl")] == [
        "pairs.jsonl, field rubric_items.rule: rule-4 traps are 0.0% of negative items (< 25%)"
    ]


def test_too_small_a_set_fails_the_default_sizes() -> None:
    """jc-001..003 (points rubrics) hold 18 items, 2 traps among 6 negative items, all rules."""
    assert [str(v) for v in requirement_violations(GOLD[:3], "g.jsonl", [], "a.jsonl")] == [
        "g.jsonl: need at least 60 pairs, have 3",
        "g.jsonl, field rubric_items: need at least 400 item decisions, have 18",
        "g.jsonl, field grading_method: need at least 15 points_rubric pairs, have 3",
        "g.jsonl, field grading_method: need at least 15 f1_weighted_rubric pairs, have 0",
        *(f"a.jsonl, field attack: need at least 2 {a} pairs, have 0" for a in ATTACKS),
    ]


# ---- the script ------------------------------------------------------------------------------


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_pairs_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def readme_blocks() -> list[str]:
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```text\n(.*?)```", readme, flags=re.DOTALL)


def test_the_script_prints_the_readme_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert load_script().main([]) == 0
    out = capsys.readouterr().out
    blocks = readme_blocks()
    assert len(blocks) == 2 and all(block in out for block in blocks)
    assert out.splitlines()[0] == f"{FOLDER / 'pairs.jsonl'}: valid"
    assert f"{FOLDER / 'adversarial.jsonl'}: valid" in out.splitlines()
    assert "  safety_diagnostic: 10 (140)" in out.splitlines()
    assert "REQUIREMENT NOT MET" not in out


def test_the_script_lists_errors_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(jsonl(edited("jc-001", set_item(0, points=4))), encoding="utf-8")
    adversarial = tmp_path / "adv.jsonl"
    adversarial.write_text(
        jsonl(edited("adv-001", lambda p: p.update(attack="flattery"))), encoding="utf-8"
    )
    script = load_script()
    assert script.main([str(bad), str(adversarial)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"ERROR {bad}:1, case jc-001, item {item_id('jc-001', 0)}, field rubric_items.0.points: "
        "points must be an integer in -3..+3",
        f"ERROR {adversarial}:1, case adv-001, field attack: attack must be one of {ATTACK_LIST}",
        f"2 error(s) in {bad} or {adversarial}",
    ]
    changed = tmp_path / "changed.jsonl"
    changed.write_text(jsonl(edited("jc-001", set_item(1, text="Another one."))), "utf-8")
    missing = tmp_path / "missing.jsonl"
    assert script.main([str(changed)]) == 1
    assert script.main([str(missing)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"ERROR {changed}:1, case jc-001, field rubric_items: the rubric differs from the "
        "synthetic case with this prompt",
        f"1 error(s) in {changed}",
        f"ERROR {missing}: cannot be read ([Errno 2] No such file or directory: '{missing}')",
        f"1 error(s) in {missing}",
    ]


def test_the_script_names_unmet_requirements_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small = tmp_path / "small.jsonl"
    small.write_text(jsonl(*GOLD[:3]), encoding="utf-8")
    assert load_script().main([str(small)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [f"{small}: valid", "pairs: 3   distinct prompts: 1   item decisions: 18"]
    assert [line for line in out if line.startswith("REQUIREMENT")] == [
        f"REQUIREMENT NOT MET: {small}: need at least 60 pairs, have 3",
        f"REQUIREMENT NOT MET: {small}, field rubric_items: need at least 400 item decisions, "
        "have 18",
        f"REQUIREMENT NOT MET: {small}, field grading_method: need at least 15 points_rubric "
        "pairs, have 3",
        f"REQUIREMENT NOT MET: {small}, field grading_method: need at least 15 "
        "f1_weighted_rubric pairs, have 0",
    ]
    assert "adversarial" not in "\n".join(out)


@pytest.mark.slow
def test_check_pairs_validates_both_files() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout
    assert "adversarial.jsonl: valid" in result.stdout
    assert "  forged_sections: 2 / 11 / 4 / 7" in result.stdout
    assert all(block in result.stdout for block in readme_blocks())
