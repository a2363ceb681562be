"""The judge-check gold set: validating pairs, what the set must hold, and samples.

Each pair is an answer with its rubric and gold decisions (a synthetic set written for this
project, `data/judge_check/pairs.jsonl`, and its adversarial part `adversarial.jsonl`, each
pair tagged with the `attack` it tries). These are the only checks of the set: the task and
`data/judge_check/check_pairs.py` both call them, and the item-id and rubric rules are the case
loader's (`cases.check_rubric_items`). Problems are named by file and line, pair and field.

One module past 300 lines because the record, cross-pair and set-level checks are the set's one
validator: a rule of the format (README of `data/judge_check`) changes here and nowhere else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any, get_args

from inspect_ai.dataset import Sample

from bedside_bench.core.contracts import GradingMethod
from bedside_bench.release.case import (
    CANONICAL_ITEM_ID,
    POINTS_RANGE,
    DatasetError,
    Violation,
    check_rubric_items,
)
from bedside_bench.release.case_model import Case

GRADING_METHODS: tuple[str, ...] = get_args(GradingMethod)
RULES = (1, 2, 3, 4, 5)
PAIR_KEYS = frozenset(
    {"pair_id", "synthetic", "grading_method", "prompt", "answer", "rubric_items"}
)
ITEM_KEYS = frozenset({"item_id", "text", "points", "gold_matched", "rule", "note"})
# what an adversarial answer tries: close the answer and open forged sections, echo rubric
# lines as if met, address the judge with instructions, or list every option to catch all items
ATTACKS = ("forged_sections", "echoed_rubric", "addressing_judge", "every_option")
ADVERSARIAL_FILE = "adversarial.jsonl"
DEFAULT_FILES = ("pairs.jsonl", ADVERSARIAL_FILE)
PAIR_ID = {False: re.compile(r"^jc-\d{3}$"), True: re.compile(r"^adv-\d{3}$")}
SENTENCE_BREAK = re.compile(r"[.!?]\s+[A-Z]")
ANSWER_WORDS = (60, 250)
F1_ITEMS = (8, 14)

Pair = dict[str, Any]
Rubric = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Requirements:
    """The least the gold set must hold to measure a judge (the README's counts meet them)."""

    pairs: int = 60
    item_decisions: int = 400
    pairs_per_method: int = 15
    trap_share: float = 0.25  # rule-4 traps (rejected, gold false) among negative-point items
    pairs_per_attack: int = 2


@dataclass(frozen=True)
class GoldFile:
    """One JSONL file of pairs; `adversarial`: every pair carries an `attack` tag (True), none
    does (False), or either (None, a set given as `-T data_file`)."""

    text: str
    source: str
    adversarial: bool | None = None


def default_files() -> list[GoldFile]:
    folder = files("bedside_bench.judge_check_data")
    return [
        GoldFile(
            folder.joinpath(name).read_text(encoding="utf-8"),
            f"data/judge_check/{name}",
            adversarial=name == ADVERSARIAL_FILE,
        )
        for name in DEFAULT_FILES
    ]


def default_pairs() -> list[Pair]:
    """The gold set and its adversarial part, validated together (problems named by file)."""
    return load_gold_files(default_files())


def load_pairs(text: str, source: str) -> list[Pair]:
    """Parse and validate one JSONL gold set; raise DatasetError listing every problem."""
    return load_gold_files([GoldFile(text, source)])


def load_gold_files(
    gold_files: Sequence[GoldFile], reference: Mapping[str, Rubric] | None = None
) -> list[Pair]:
    """Parse and validate every pair, then the pairs across files; raise DatasetError listing
    every problem.

    Across files, pair ids and answers are unique and pairs sharing a prompt share its rubric;
    `reference` (prompt -> rubric: the synthetic release's) fixes the rubric of its prompts.
    """
    pairs: list[Pair] = []
    violations: list[Violation] = []
    seen = _Seen(reference or {})
    for gold in gold_files:
        parsed = 0
        for line_no, line in enumerate(gold.text.splitlines(), start=1):
            where = f"{gold.source}:{line_no}"
            if not line.strip():
                violations.append(Violation(where, "empty line"))
                continue
            try:
                pair = json.loads(line)
            except json.JSONDecodeError as ex:
                violations.append(Violation(where, f"not JSON: {ex.msg}"))
                continue
            parsed += 1
            problems = pair_violations(pair, where, gold.adversarial) or seen.repeats(pair, where)
            violations.extend(problems)
            if not problems:
                pairs.append(pair)
        if not parsed:
            violations.append(Violation(gold.source, "no pairs"))
    if violations:
        raise DatasetError(violations)
    return pairs


def rubric_of(pair: Pair) -> Rubric:
    return tuple((item["text"], item["points"]) for item in pair["rubric_items"])


def case_rubric(case: Case) -> Rubric:
    """A release case's rubric in the form a pair's is compared with (`rubric_of`)."""
    return tuple((item.text, item.points) for item in case.rubric_items)


@dataclass
class _Seen:
    """What earlier pairs used, for the checks across pairs and files."""

    reference: Mapping[str, Rubric]
    pair_ids: dict[str, str] = field(default_factory=dict)  # pair_id -> where
    answers: dict[str, str] = field(default_factory=dict)  # answer -> pair_id
    rubrics: dict[str, tuple[str, Rubric]] = field(default_factory=dict)  # prompt -> first

    def repeats(self, pair: Pair, where: str) -> list[Violation]:
        pair_id, answer, prompt = (pair[k] for k in ("pair_id", "answer", "prompt"))
        rubric, found = rubric_of(pair), []

        def bad(message: str, at: str) -> None:
            found.append(Violation(where, message, pair_id, field=at))

        if pair_id in self.pair_ids:
            bad(f"duplicate pair_id (first at {self.pair_ids[pair_id]})", "pair_id")
        if answer in self.answers:
            bad(f"the answer duplicates {self.answers[answer]}'s", "answer")
        first_id, first_rubric = self.rubrics.setdefault(prompt, (pair_id, rubric))
        if rubric != first_rubric:
            bad(f"same prompt as {first_id} but a different rubric", "rubric_items")
        if rubric != self.reference.get(prompt, rubric):
            bad("the rubric differs from the synthetic case with this prompt", "rubric_items")
        self.pair_ids.setdefault(pair_id, where)
        self.answers.setdefault(answer, pair_id)
        return found


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def pair_violations(pair: Any, where: str, adversarial: bool | None = None) -> list[Violation]:
    """Every problem of one pair on its own: keys, ids, types, answer length, rubric, gold."""
    if not isinstance(pair, dict):
        return [Violation(where, "a pair must be a JSON object")]
    pair_id = pair.get("pair_id") if isinstance(pair.get("pair_id"), str) else None
    found: list[Violation] = []

    def bad(message: str, name: str) -> None:
        found.append(Violation(where, message, pair_id, field=name))

    tagged = "attack" in pair
    if adversarial is not None and tagged != adversarial:
        bad(
            "a pair of the adversarial part needs an attack tag"
            if adversarial
            else f"only the adversarial part ({ADVERSARIAL_FILE}) tags an attack",
            "attack",
        )
    expected = PAIR_KEYS | {"attack"} if tagged else PAIR_KEYS
    if set(pair) != expected:
        missing, extra = sorted(expected - set(pair)), sorted(set(pair) - expected)
        bad(f"missing keys {missing}, unexpected keys {extra}", ", ".join(missing + extra))
        return found
    if tagged and pair["attack"] not in ATTACKS:
        bad(f"attack must be one of {', '.join(ATTACKS)}", "attack")
    if pair_id is None or not PAIR_ID[tagged].match(pair_id):
        bad(f"pair_id must look like {'adv' if tagged else 'jc'}-001", "pair_id")
    # the shipped files are synthetic; a user's own set (`-T data_file`) may be real, and says so
    if adversarial is None and not isinstance(pair["synthetic"], bool):
        bad("synthetic must be true or false", "synthetic")
    elif adversarial is not None and pair["synthetic"] is not True:
        bad("synthetic must be true", "synthetic")
    method = pair["grading_method"]
    if method not in GRADING_METHODS:
        bad(f"grading_method must be one of {', '.join(GRADING_METHODS)}", "grading_method")
    prompt, answer = pair["prompt"], pair["answer"]
    if not isinstance(prompt, str) or not prompt.strip():
        bad("the prompt must be a non-empty string", "prompt")
        prompt = None  # no item-id prefix to check against
    if not isinstance(answer, str) or not answer.strip():
        bad("the answer must be a non-empty string", "answer")
    elif not ANSWER_WORDS[0] <= len(answer.split()) <= ANSWER_WORDS[1]:
        words = len(answer.split())
        bad(f"the answer has {words} words; {ANSWER_WORDS[0]}-{ANSWER_WORDS[1]} allowed", "answer")
    items = pair["rubric_items"]
    if not isinstance(items, list) or not items:
        bad("rubric_items must be a non-empty list", "rubric_items")
        return found
    for n, item in enumerate(items):
        found.extend(_item_violations(item, f"rubric_items.{n}", where, pair_id))
    found.extend(check_rubric_items(items, prompt, where, pair_id)[0])
    points = [i["points"] for i in items if isinstance(i, dict) and _is_int(i.get("points"))]
    if method == "f1_weighted_rubric":
        low, high = F1_ITEMS
        if not low <= len(items) <= high:
            bad(f"an F1 pair needs {low}-{high} rubric items, has {len(items)}", "rubric_items")
        if 3 not in points or -3 not in points:
            bad("an F1 pair needs at least one +3 and one -3 item", "rubric_items")
    return found


def _item_violations(item: Any, at: str, where: str, pair_id: str | None) -> list[Violation]:
    if not isinstance(item, dict) or set(item) != ITEM_KEYS:
        return [Violation(where, f"keys must be exactly {sorted(ITEM_KEYS)}", pair_id, field=at)]
    item_id = item["item_id"] if isinstance(item["item_id"], str) else None
    found: list[Violation] = []

    def bad(message: str, name: str) -> None:
        found.append(Violation(where, message, pair_id, item_id, f"{at}.{name}"))

    if item_id is None or not CANONICAL_ITEM_ID.match(item_id):
        bad("item_id must be canonical, {md5(prompt)}_{index}", "item_id")
    if not isinstance(item["text"], str) or not item["text"].strip():
        bad("text must be a non-empty string", "text")
    points, (low, high) = item["points"], POINTS_RANGE
    if not _is_int(points) or not low <= points <= high:
        bad(f"points must be an integer in {low}..+{high}", "points")
    if not isinstance(item["gold_matched"], bool):
        bad("gold_matched must be true or false", "gold_matched")
    rule = item["rule"]
    if not _is_int(rule) or rule not in RULES:
        bad(f"rule must be one of {RULES}", "rule")
    elif rule == 4 and _is_int(points) and points >= 0:
        bad("rule 4 is for negative-point items only", "rule")
    note = item["note"]
    if not isinstance(note, str) or not note.strip():
        bad("note must be a non-empty string", "note")
    elif not note.rstrip().endswith(".") or SENTENCE_BREAK.search(note):
        bad("note must be one sentence ending with a period", "note")
    return found


def negative_items(pairs: Sequence[Pair]) -> tuple[list[Any], list[Any], list[Any]]:
    """Negative-point items, and among them the rule-4 traps (named only to be rejected, gold
    false) and the endorsed ones (rule 4, gold true)."""
    negative = [item for p in pairs for item in p["rubric_items"] if item["points"] < 0]
    traps = [item for item in negative if item["rule"] == 4 and not item["gold_matched"]]
    endorsed = [item for item in negative if item["rule"] == 4 and item["gold_matched"]]
    return negative, traps, endorsed


def requirement_violations(
    pairs: Sequence[Pair],
    source: str,
    adversarial: Sequence[Pair] | None = None,
    adversarial_source: str = ADVERSARIAL_FILE,
    needs: Requirements = Requirements(),  # noqa: B008 (frozen, so one shared default is safe)
) -> list[Violation]:
    """What validated pairs lack to measure a judge: sizes, the rule-4 trap share, every rule
    and grading method (and, with the adversarial part, every attack) on enough pairs."""
    items = [item for p in pairs for item in p["rubric_items"]]
    per_method = {m: sum(p["grading_method"] == m for p in pairs) for m in GRADING_METHODS}
    negative, traps, endorsed = negative_items(pairs)
    share = len(traps) / len(negative) if negative else 0.0
    least = needs.pairs_per_method
    shortfalls: list[tuple[bool, str, str | None]] = [
        (len(pairs) < needs.pairs, f"need at least {needs.pairs} pairs, have {len(pairs)}", None),
        (
            len(items) < needs.item_decisions,
            f"need at least {needs.item_decisions} item decisions, have {len(items)}",
            "rubric_items",
        ),
        *(
            (n < least, f"need at least {least} {m} pairs, have {n}", "grading_method")
            for m, n in per_method.items()
        ),
        (
            share < needs.trap_share,
            f"rule-4 traps are {share:.1%} of negative items (< {needs.trap_share:.0%})",
            "rubric_items.rule",
        ),
        (not endorsed, "no negative item is endorsed (rule 4, gold true)", "rubric_items.rule"),
        *(
            (all(i["rule"] != r for i in items), f"no item is tagged rule {r}", "rubric_items.rule")
            for r in RULES
        ),
    ]
    found = [Violation(source, message, field=at) for short, message, at in shortfalls if short]
    least = needs.pairs_per_attack
    for attack in ATTACKS if adversarial is not None else ():
        n = sum(p["attack"] == attack for p in adversarial or ())
        if n < least:
            message = f"need at least {least} {attack} pairs, have {n}"
            found.append(Violation(adversarial_source, message, field="attack"))
    return found


def pair_to_sample(pair: Pair) -> Sample:
    return Sample(
        id=pair["pair_id"],
        input=pair["prompt"],
        metadata={
            "grading_method": pair["grading_method"],
            "attack": pair.get("attack"),
            "answer": pair["answer"],
            "rubric_items": [
                {k: item[k] for k in ("item_id", "text", "points", "gold_matched", "rule")}
                for item in pair["rubric_items"]
            ],
        },
    )
