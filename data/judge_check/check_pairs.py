#!/usr/bin/env python3
"""Validate the judge-check gold set and print its counts (from the project's environment).

    python data/judge_check/check_pairs.py [path/to/pairs.jsonl [path/to/adversarial.jsonl]]

Without arguments it checks both shipped files: ``pairs.jsonl`` (the gold set) and
``adversarial.jsonl`` (answers that attack the judge message, each pair tagged with its
``attack``); with one argument, that gold set alone. Exit status 0 when the files are valid and
meet the set's requirements, 1 otherwise.

Every check is the package's, the same the ``bedside_bench/judge_check`` task runs:
``load_gold_files`` for the pairs (on their own and across files) and ``requirement_violations``
for the sizes and shares (``bedside_bench/task/judge_check/data.py``; the rules are listed in this
folder's README). This script adds the synthetic release ``../synthetic`` when it is present:
each rubric must be its synthetic case's, and the pairs are counted per benchmark.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bedside_bench.release.case import DatasetError, Violation
from bedside_bench.release.dataset import load_release
from bedside_bench.release.sources import DataSource
from bedside_bench.task.judge_check.data import (
    ATTACKS,
    GRADING_METHODS,
    RULES,
    GoldFile,
    Rubric,
    case_rubric,
    load_gold_files,
    negative_items,
    requirement_violations,
)

HERE = Path(__file__).resolve().parent
DEFAULT_PATH = HERE / "pairs.jsonl"
ADVERSARIAL_PATH = HERE / "adversarial.jsonl"
SYNTHETIC = HERE.parent / "synthetic"


def synthetic_cases(root: Path = SYNTHETIC) -> dict[str, tuple[str, Rubric]]:
    """prompt -> (benchmark, rubric) of the synthetic release, read by the package's loader."""
    if not root.is_dir():
        return {}
    release = load_release(DataSource(root=root, label=str(root)))
    return {case.prompt: (case.benchmark, case_rubric(case)) for case in release.all_cases}


def counts(pairs: list[dict[str, Any]], synthetic: dict[str, tuple[str, Rubric]]) -> list[str]:
    items = [item for p in pairs for item in p["rubric_items"]]
    negative, traps, endorsed = negative_items(pairs)
    trap_share = len(traps) / len(negative) if negative else 0.0
    out = [
        f"pairs: {len(pairs)}   distinct prompts: {len({p['prompt'] for p in pairs})}   "
        f"item decisions: {len(items)}",
        "gold_matched: true {}  false {}".format(
            sum(it["gold_matched"] for it in items), sum(not it["gold_matched"] for it in items)
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
    sign = Counter((it["points"] > 0) - (it["points"] < 0) for it in items)
    out.append(f"items by sign: positive {sign[1]}  zero {sign[0]}  negative {sign[-1]}")
    points = Counter(it["points"] for it in items)
    by_points = "  ".join(f"{p:+d}: {points[p]}" for p in sorted(points, reverse=True))
    out.append(f"items by points: {by_points}")
    out.append("items by rule (total / gold true / gold false):")
    for rule in RULES:
        ri = [it for it in items if it["rule"] == rule]
        true = sum(it["gold_matched"] for it in ri)
        out.append(f"  rule {rule}: {len(ri):4d} / {true:4d} / {len(ri) - true:4d}")
    out.append(
        f"negative items: {len(negative)}  rule-4 traps (mentioned only to reject, gold false): "
        f"{len(traps)} ({trap_share:.1%})  endorsed (rule 4, gold true): {len(endorsed)}  "
        f"other (absent etc., gold false): {len(negative) - len(traps) - len(endorsed)}"
    )
    if synthetic:
        found = [(synthetic[p["prompt"]][0], p) for p in pairs if p["prompt"] in synthetic]
        per_bench = Counter(bench for bench, _ in found)
        per_bench_items = Counter({b: 0 for b in per_bench})
        for bench, pair in found:
            per_bench_items[bench] += len(pair["rubric_items"])
        out.append("pairs (items) by synthetic benchmark:")
        for bench in sorted(per_bench, key=lambda b: -per_bench[b]):
            out.append(f"  {bench}: {per_bench[bench]} ({per_bench_items[bench]})")
        if len(found) < len(pairs):
            out.append(f"  not in data/synthetic: {len(pairs) - len(found)}")
    return out


def attack_counts(pairs: list[dict[str, Any]]) -> list[str]:
    out = ["adversarial pairs by attack (pairs / items / gold true / gold false):"]
    for attack in ATTACKS:
        items = [it for p in pairs if p["attack"] == attack for it in p["rubric_items"]]
        pair_count = sum(p["attack"] == attack for p in pairs)
        true = sum(it["gold_matched"] for it in items)
        out.append(f"  {attack}: {pair_count} / {len(items)} / {true} / {len(items) - true}")
    return out


def read(paths: list[Path]) -> tuple[list[GoldFile], list[Violation]]:
    gold_files, problems = [], []
    for n, path in enumerate(paths):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as ex:
            problems.append(Violation(str(path), f"cannot be read ({ex})"))
            continue
        gold_files.append(GoldFile(text, str(path), adversarial=n == 1))
    return gold_files, problems


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else DEFAULT_PATH
    adversarial_path = Path(argv[1]) if len(argv) > 1 else None if argv else ADVERSARIAL_PATH
    gold_files, problems = read([path] if adversarial_path is None else [path, adversarial_path])
    pairs: list[dict[str, Any]] = []
    try:
        synthetic = synthetic_cases()
        reference = {prompt: rubric for prompt, (_, rubric) in synthetic.items()}
        if not problems:
            pairs = load_gold_files(gold_files, reference)
    except DatasetError as ex:
        problems.extend(ex.violations)
    if problems:
        for problem in problems:
            print(f"ERROR {problem}")
        print(
            f"{len(problems)} error(s) in {path}"
            + (f" or {adversarial_path}" if adversarial_path else "")
        )
        return 1
    gold = [p for p in pairs if "attack" not in p]
    adversarial = [p for p in pairs if "attack" in p]
    print(f"{path}: valid")
    print("\n".join(counts(gold, synthetic)))
    if adversarial_path is not None:
        print(f"{adversarial_path}: valid")
        print("\n".join(attack_counts(adversarial)))
    failures = requirement_violations(
        gold, str(path), adversarial if adversarial_path else None, str(adversarial_path)
    )
    for failure in failures:
        print(f"REQUIREMENT NOT MET: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
