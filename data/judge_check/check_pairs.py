#!/usr/bin/env python3
"""Validate the judge-check gold set (``pairs.jsonl``) and print its counts. Stdlib only.

    python data/judge_check/check_pairs.py [path/to/pairs.jsonl [path/to/adversarial.jsonl]]

Without arguments it checks both shipped files: ``pairs.jsonl`` (the gold set) and
``adversarial.jsonl`` (answers that attack the judge message, each pair tagged with its
``attack``). Exit status 0 when the files are valid and meet the size requirements, 1 otherwise.
The checks:

* every line is a JSON object with exactly the documented keys, of the documented types;
* ``pair_id`` values are ``jc-NNN`` and unique; every answer is unique and 60-250 words;
* every ``item_id`` is canonical, ``{md5(prompt)}_{index}``;
* ``points`` in -3..+3; ``rule`` in 1..5; rule 4 only on negative-point items; ``note`` is
  one non-empty sentence;
* f1_weighted_rubric pairs have 8-14 items including at least one +3 and one -3;
* pairs that share a prompt share the same rubric (text and points, in order);
* if the synthetic release ``../synthetic`` is present, a prompt found there has the same
  rubric as the synthetic case (and the per-benchmark counts are printed);
* adversarial pairs are ``adv-NNN`` and carry an ``attack`` tag (forged_sections,
  echoed_rubric, addressing_judge, every_option), each tag on at least 2 pairs; answers are
  unique across both files;
* totals of the gold set: at least 60 pairs, 400 item decisions, 15 pairs per grading
  method, and rule-4 traps (negative items the answer mentions only to reject, gold false)
  at least a quarter of all negative-point items.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_PATH = HERE / "pairs.jsonl"
ADVERSARIAL_PATH = HERE / "adversarial.jsonl"
ATTACKS = ("forged_sections", "echoed_rubric", "addressing_judge", "every_option")
ADVERSARIAL_ID = re.compile(r"^adv-\d{3}$")
MIN_PAIRS_PER_ATTACK = 2
SYNTHETIC_DATA = HERE.parent / "synthetic" / "data"

PAIR_KEYS = {"pair_id", "synthetic", "grading_method", "prompt", "answer", "rubric_items"}
ITEM_KEYS = {"item_id", "text", "points", "gold_matched", "rule", "note"}
GRADING_METHODS = ("points_rubric", "f1_weighted_rubric")
RULES = (1, 2, 3, 4, 5)
PAIR_ID = re.compile(r"^jc-\d{3}$")
SENTENCE_BREAK = re.compile(r"[.!?]\s+[A-Z]")

MIN_PAIRS = 60
MIN_ITEMS = 400
MIN_PAIRS_PER_METHOD = 15
MIN_TRAP_SHARE = 0.25
MIN_WORDS, MAX_WORDS = 60, 250
F1_MIN_ITEMS, F1_MAX_ITEMS = 8, 14


def md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def load(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    pairs: list[dict[str, Any]] = []
    errors: list[str] = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            errors.append(f"line {lineno}: empty line")
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {lineno}: invalid JSON ({exc})")
            continue
        if not isinstance(obj, dict):
            errors.append(f"line {lineno}: not a JSON object")
            continue
        pairs.append(obj)
    return pairs, errors


def synthetic_rubrics() -> dict[str, tuple[str, list[tuple[str, int]]]]:
    """md5(prompt) -> (benchmark, [(text, points), ...]) for the synthetic release, if present."""
    found: dict[str, tuple[str, list[tuple[str, int]]]] = {}
    if not SYNTHETIC_DATA.is_dir():
        return found
    for path in sorted(SYNTHETIC_DATA.glob("*/cases/*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        found[md5(case["prompt"])] = (
            case["benchmark"],
            [(item["text"], item["points"]) for item in case["rubric_items"]],
        )
    return found


def validate(
    pairs: list[dict[str, Any]],
    adversarial: bool = False,
    seen_answers: dict[str, str] | None = None,
) -> list[str]:
    errors: list[str] = []
    seen_ids: set[str] = set()
    seen_answers = {} if seen_answers is None else seen_answers
    expected_keys = PAIR_KEYS | {"attack"} if adversarial else PAIR_KEYS
    id_pattern = ADVERSARIAL_ID if adversarial else PAIR_ID
    rubric_by_prompt: dict[str, tuple[str, list[tuple[str, int]]]] = {}
    synthetic = synthetic_rubrics()

    for n, pair in enumerate(pairs, start=1):
        where = f"pair #{n} ({pair.get('pair_id', '?')})"
        keys = set(pair)
        if keys != expected_keys:
            errors.append(f"{where}: keys {sorted(keys)} != {sorted(expected_keys)}")
            continue
        if adversarial and pair["attack"] not in ATTACKS:
            errors.append(f"{where}: attack must be one of {ATTACKS}")
        pid = pair["pair_id"]
        if not isinstance(pid, str) or not id_pattern.match(pid):
            errors.append(f"{where}: pair_id must look like {'adv' if adversarial else 'jc'}-001")
        elif pid in seen_ids:
            errors.append(f"{where}: duplicate pair_id")
        else:
            seen_ids.add(pid)
        if pair["synthetic"] is not True:
            errors.append(f"{where}: synthetic must be true")
        method = pair["grading_method"]
        if method not in GRADING_METHODS:
            errors.append(f"{where}: unknown grading_method {method!r}")
        prompt, answer = pair["prompt"], pair["answer"]
        if not isinstance(prompt, str) or not prompt.strip():
            errors.append(f"{where}: prompt must be a non-empty string")
            continue
        if not isinstance(answer, str) or not answer.strip():
            errors.append(f"{where}: answer must be a non-empty string")
            continue
        words = len(answer.split())
        if not MIN_WORDS <= words <= MAX_WORDS:
            errors.append(f"{where}: answer has {words} words (allowed {MIN_WORDS}-{MAX_WORDS})")
        if answer in seen_answers:
            errors.append(f"{where}: answer duplicates {seen_answers[answer]}")
        else:
            seen_answers[answer] = pid

        items = pair["rubric_items"]
        if not isinstance(items, list) or not items:
            errors.append(f"{where}: rubric_items must be a non-empty list")
            continue
        prefix = md5(prompt)
        rubric: list[tuple[str, int]] = []
        for i, item in enumerate(items):
            iw = f"{where} item {i}"
            if not isinstance(item, dict) or set(item) != ITEM_KEYS:
                errors.append(f"{iw}: keys must be exactly {sorted(ITEM_KEYS)}")
                continue
            if item["item_id"] != f"{prefix}_{i}":
                errors.append(f"{iw}: item_id {item['item_id']!r} is not {prefix}_{i}")
            if not isinstance(item["text"], str) or not item["text"].strip():
                errors.append(f"{iw}: text must be a non-empty string")
            points = item["points"]
            if not is_int(points) or not -3 <= points <= 3:
                errors.append(f"{iw}: points must be an integer in -3..3")
                continue
            if not isinstance(item["gold_matched"], bool):
                errors.append(f"{iw}: gold_matched must be a boolean")
            rule = item["rule"]
            if not is_int(rule) or rule not in RULES:
                errors.append(f"{iw}: rule must be one of {RULES}")
            elif rule == 4 and points >= 0:
                errors.append(f"{iw}: rule 4 is for negative-point items only")
            note = item["note"]
            if not isinstance(note, str) or not note.strip():
                errors.append(f"{iw}: note must be a non-empty string")
            elif not note.rstrip().endswith(".") or SENTENCE_BREAK.search(note):
                errors.append(f"{iw}: note must be one sentence ending with a period")
            rubric.append((item["text"], points))

        if method == "f1_weighted_rubric":
            pts = [p for _, p in rubric]
            if not F1_MIN_ITEMS <= len(items) <= F1_MAX_ITEMS:
                errors.append(f"{where}: F1 pairs need {F1_MIN_ITEMS}-{F1_MAX_ITEMS} items")
            if 3 not in pts or -3 not in pts:
                errors.append(f"{where}: F1 pairs need at least one +3 and one -3 item")
        elif not any(p > 0 for _, p in rubric):
            errors.append(f"{where}: a points rubric needs at least one positive item")

        if prefix in rubric_by_prompt:
            first_pid, first_rubric = rubric_by_prompt[prefix]
            if rubric != first_rubric:
                errors.append(f"{where}: same prompt as {first_pid} but a different rubric")
        else:
            rubric_by_prompt[prefix] = (pid, rubric)
        if prefix in synthetic and synthetic[prefix][1] != rubric:
            errors.append(f"{where}: rubric differs from the synthetic case with this prompt")
    return errors


def summarize(pairs: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Return (report lines, requirement failures)."""
    items = [(p, it) for p in pairs for it in p["rubric_items"]]
    neg = [it for _, it in items if it["points"] < 0]
    traps = [it for it in neg if it["rule"] == 4 and not it["gold_matched"]]
    endorsed = [it for it in neg if it["rule"] == 4 and it["gold_matched"]]
    trap_share = len(traps) / len(neg) if neg else 0.0
    synthetic = synthetic_rubrics()

    out = [
        f"pairs: {len(pairs)}   distinct prompts: {len({p['prompt'] for p in pairs})}   "
        f"item decisions: {len(items)}",
        "gold_matched: true {}  false {}".format(
            sum(it["gold_matched"] for _, it in items),
            sum(not it["gold_matched"] for _, it in items),
        ),
    ]
    for method in GRADING_METHODS:
        mp = [p for p in pairs if p["grading_method"] == method]
        mi = [it for p in mp for it in p["rubric_items"]]
        out.append(
            f"{method}: pairs {len(mp)}  items {len(mi)}  "
            f"(true {sum(it['gold_matched'] for it in mi)}, "
            f"false {sum(not it['gold_matched'] for it in mi)})"
        )
    sign = Counter(
        "positive" if it["points"] > 0 else "zero" if it["points"] == 0 else "negative"
        for _, it in items
    )
    points = Counter(it["points"] for _, it in items)
    out.append(
        f"items by sign: positive {sign['positive']}  zero {sign['zero']}  "
        f"negative {sign['negative']}"
    )
    by_points = "  ".join(f"{p:+d}: {points[p]}" for p in sorted(points, reverse=True))
    out.append(f"items by points: {by_points}")
    out.append("items by rule (total / gold true / gold false):")
    for rule in RULES:
        ri = [it for _, it in items if it["rule"] == rule]
        out.append(
            f"  rule {rule}: {len(ri):4d} / {sum(it['gold_matched'] for it in ri):4d} / "
            f"{sum(not it['gold_matched'] for it in ri):4d}"
        )
    out.append(
        f"negative items: {len(neg)}  rule-4 traps (mentioned only to reject, gold false): "
        f"{len(traps)} ({trap_share:.1%})  endorsed (rule 4, gold true): {len(endorsed)}  "
        f"other (absent etc., gold false): {len(neg) - len(traps) - len(endorsed)}"
    )
    if synthetic:
        per_bench: Counter[str] = Counter()
        per_bench_items: Counter[str] = Counter()
        other = 0
        for p in pairs:
            hit = synthetic.get(md5(p["prompt"]))
            if hit:
                per_bench[hit[0]] += 1
                per_bench_items[hit[0]] += len(p["rubric_items"])
            else:
                other += 1
        out.append("pairs (items) by synthetic benchmark:")
        for bench in sorted(per_bench, key=lambda b: -per_bench[b]):
            out.append(f"  {bench}: {per_bench[bench]} ({per_bench_items[bench]})")
        if other:
            out.append(f"  not in data/synthetic: {other}")

    failures = []
    if len(pairs) < MIN_PAIRS:
        failures.append(f"need at least {MIN_PAIRS} pairs, have {len(pairs)}")
    if len(items) < MIN_ITEMS:
        failures.append(f"need at least {MIN_ITEMS} item decisions, have {len(items)}")
    for method in GRADING_METHODS:
        count = sum(p["grading_method"] == method for p in pairs)
        if count < MIN_PAIRS_PER_METHOD:
            failures.append(f"need at least {MIN_PAIRS_PER_METHOD} {method} pairs, have {count}")
    if trap_share < MIN_TRAP_SHARE:
        failures.append(f"rule-4 traps are {trap_share:.1%} of negative items (< 25%)")
    if not endorsed:
        failures.append("no negative item is endorsed (rule 4, gold true)")
    for rule in RULES:
        if not any(it["rule"] == rule for _, it in items):
            failures.append(f"no item is tagged rule {rule}")
    return out, failures


def summarize_adversarial(pairs: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Per-attack counts of pairs and item decisions; every attack on enough pairs."""
    out = ["adversarial pairs by attack (pairs / items / gold true / gold false):"]
    failures = []
    for attack in ATTACKS:
        ap = [p for p in pairs if p["attack"] == attack]
        ai = [it for p in ap for it in p["rubric_items"]]
        true = sum(it["gold_matched"] for it in ai)
        out.append(f"  {attack}: {len(ap)} / {len(ai)} / {true} / {len(ai) - true}")
        if len(ap) < MIN_PAIRS_PER_ATTACK:
            failures.append(f"need at least {MIN_PAIRS_PER_ATTACK} {attack} pairs, have {len(ap)}")
    return out, failures


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else DEFAULT_PATH
    adversarial_path = Path(argv[1]) if len(argv) > 1 else None if argv else ADVERSARIAL_PATH
    pairs, errors = load(path)
    answers: dict[str, str] = {}
    errors += validate(pairs, seen_answers=answers)
    adversarial: list[dict[str, Any]] = []
    if adversarial_path is not None:
        adversarial, more = load(adversarial_path)
        errors += [f"{adversarial_path.name}: {e}" for e in more]
        errors += [
            f"{adversarial_path.name}: {e}"
            for e in validate(adversarial, adversarial=True, seen_answers=answers)
        ]
    if errors:
        for err in errors:
            print(f"ERROR {err}")
        print(
            f"{len(errors)} error(s) in {path}"
            + (f" or {adversarial_path}" if adversarial_path else "")
        )
        return 1
    report, failures = summarize(pairs)
    print(f"{path}: valid")
    for line in report:
        print(line)
    if adversarial_path is not None:
        more_report, more_failures = summarize_adversarial(adversarial)
        print(f"{adversarial_path}: valid")
        for line in more_report:
            print(line)
        failures += more_failures
    for failure in failures:
        print(f"REQUIREMENT NOT MET: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
