#!/usr/bin/env python3
"""Build the project's synthetic fixtures from their source files (stdlib only).

Everything here is ORIGINAL SYNTHETIC TEXT written for the tests of this project. None of it is
a BedsideBench case, none of it paraphrases one, and none of it is medical advice.

The fixtures are data. The text of the cases lives in ``data/synthetic/source/``, one JSON
file per benchmark, with ``data/synthetic/registry.json`` giving the benchmark order and grading
methods; the judge-check answers and gold decisions live in
``data/synthetic/source/judge_check_pairs.json`` and name their case by its key. This script
checks the source format and only fills in what is derived (case and item ids, the case files,
the manifests, the case table of the README, each pair's prompt and rubric), so a reviewer
reads and diffs the source files, not code. (Past 300 lines because every source format is
checked before anything is built, so a problem is named where a person edits it.) Whether the
built gold set is valid is the package's validator's to say: ``data/judge_check/check_pairs.py``.

Outputs:
  data/synthetic/registry.json                            (normalised: indent 2, trailing newline)
  data/synthetic/data/<benchmark>/manifest.json
  data/synthetic/data/<benchmark>/cases/<case_id>.json   (2 cases x 10 benchmarks)
  data/synthetic/README.md                                (the case table between its markers)
  data/judge_check/pairs.jsonl                            (judge-check gold set)

Usage:
  python data/make_synthetic.py           # (re)write the files
  python data/make_synthetic.py --check   # exit 1 unless the files on disk are what it makes
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
SYNTHETIC_DIR = ROOT / "synthetic"
SOURCE_DIR = SYNTHETIC_DIR / "source"
REGISTRY_PATH = SYNTHETIC_DIR / "registry.json"
README_PATH = SYNTHETIC_DIR / "README.md"
PAIRS_SOURCE = SOURCE_DIR / "judge_check_pairs.json"
PAIRS_PATH = ROOT / "judge_check" / "pairs.jsonl"

TABLE_START = "<!-- case table: written by make_synthetic.py -->"
TABLE_END = "<!-- end of case table -->"

REGISTRY_KEYS = {"schema_version", "seed", "benchmarks"}
SOURCE_KEYS = {"benchmark", "cases"}
CASE_KEYS = {"key", "topic", "prompt", "rubric"}
ITEM_KEYS = {"points", "text"}
PAIR_KEYS = {"case", "answer", "gold"}
GOLD_KEYS = {"matched", "rule", "note"}
GRADING_METHODS = ("points_rubric", "f1_weighted_rubric")


class SourceError(Exception):
    """A source file breaks the format; the message names the file, case and field."""


def md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def item_ids(prompt: str, n: int) -> list[str]:
    prefix = md5(prompt)
    return [f"{prefix}_{i}" for i in range(n)]


def case_id_for(benchmark: str, key: str) -> str:
    # Unique string of our own choosing; the md5 of it is the case_id.
    return md5(f"bedside-bench-synthetic-fixture/{benchmark}/{key}")


# ---------------------------------------------------------------------------------------------
# Part 1: the twenty synthetic cases, read from data/synthetic/source/<benchmark>.json.
# ---------------------------------------------------------------------------------------------


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SourceError(f"{path.relative_to(ROOT.parent)}: file is missing") from None
    except json.JSONDecodeError as exc:
        raise SourceError(f"{path.relative_to(ROOT.parent)}: invalid JSON ({exc})") from None


def _keys(where: str, obj: Any, expected: set[str]) -> None:
    if not isinstance(obj, dict):
        raise SourceError(f"{where}: expected a JSON object")
    if set(obj) != expected:
        missing, extra = sorted(expected - set(obj)), sorted(set(obj) - expected)
        raise SourceError(f"{where}: missing keys {missing}, unexpected keys {extra}")


def _text(where: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or value != value.strip():
        raise SourceError(f"{where}: must be a non-empty string without outer white space")
    return value


def load_registry() -> dict[str, Any]:
    """The registry is hand-written source: benchmark order, grading methods, schema, seed."""
    where = str(REGISTRY_PATH.relative_to(ROOT.parent))
    registry: dict[str, Any] = _read_json(REGISTRY_PATH)
    _keys(where, registry, REGISTRY_KEYS)
    if not isinstance(registry["benchmarks"], list) or not registry["benchmarks"]:
        raise SourceError(f"{where}: benchmarks must be a non-empty list")
    names = []
    for n, entry in enumerate(registry["benchmarks"]):
        _keys(f"{where}: benchmarks[{n}]", entry, {"name", "grading_method"})
        if entry["grading_method"] not in GRADING_METHODS:
            raise SourceError(
                f"{where}: benchmarks[{n}].grading_method must be one of {GRADING_METHODS}"
            )
        names.append(_text(f"{where}: benchmarks[{n}].name", entry["name"]))
    if len(set(names)) != len(names):
        raise SourceError(f"{where}: a benchmark is listed twice")
    return registry


def load_cases(
    registry: dict[str, Any],
) -> tuple[dict[str, tuple[str, str, list[tuple[int, str]]]], dict[str, str]]:
    """key -> (benchmark, prompt, [(points, text), ...]) in registry order, and key -> topic."""
    benchmarks = [b["name"] for b in registry["benchmarks"]]
    strays = sorted(
        p.name for p in SOURCE_DIR.glob("*.json") if p.stem not in benchmarks and p != PAIRS_SOURCE
    )
    if strays:
        raise SourceError(f"{SOURCE_DIR.relative_to(ROOT.parent)}: not in the registry: {strays}")
    cases: dict[str, tuple[str, str, list[tuple[int, str]]]] = {}
    topics: dict[str, str] = {}
    for benchmark in benchmarks:
        path = SOURCE_DIR / f"{benchmark}.json"
        where = str(path.relative_to(ROOT.parent))
        source = _read_json(path)
        _keys(where, source, SOURCE_KEYS)
        if source["benchmark"] != benchmark:
            raise SourceError(
                f"{where}: benchmark is {source['benchmark']!r}, expected {benchmark!r}"
            )
        if not isinstance(source["cases"], list) or not source["cases"]:
            raise SourceError(f"{where}: cases must be a non-empty list")
        for n, case in enumerate(source["cases"]):
            _keys(f"{where}: cases[{n}]", case, CASE_KEYS)
            key = _text(f"{where}: cases[{n}].key", case["key"])
            at = f"{where}: case {key!r}"
            if key in cases:
                raise SourceError(f"{at}: key is used twice")
            topics[key] = _text(f"{at}: topic", case["topic"])
            prompt = _text(f"{at}: prompt", case["prompt"])
            if not isinstance(case["rubric"], list) or not case["rubric"]:
                raise SourceError(f"{at}: rubric must be a non-empty list")
            items = []
            for i, item in enumerate(case["rubric"]):
                _keys(f"{at}: rubric[{i}]", item, ITEM_KEYS)
                points = item["points"]
                if not isinstance(points, int) or isinstance(points, bool) or not -3 <= points <= 3:
                    raise SourceError(f"{at}: rubric[{i}].points must be an integer in -3..3")
                items.append((points, _text(f"{at}: rubric[{i}].text", item["text"])))
            cases[key] = (benchmark, prompt, items)
    return cases, topics


# ---------------------------------------------------------------------------------------------
# Part 2: the judge-check pairs, read from data/synthetic/source/judge_check_pairs.json. Each
# pair names a case by its key and gives an answer (its lines; "" between paragraphs) and one
# gold decision per rubric item, in rubric order: {"matched", "rule", "note"}. The rules are
# the judge rules of grading_protocol.md section 2 (1 explicit/absent, 2 equivalent wording,
# 3 partial -> false, 4 negative item: rejected -> false / endorsed -> true, 5 independence).
# What a decision may hold (a boolean, a rule that fits the item) is the gold set's validator's
# to say (bedside_bench/task/judge_check/data.py, run by data/judge_check/check_pairs.py): this part
# only checks what building needs, one decision of the three keys per rubric item.
# ---------------------------------------------------------------------------------------------


def load_pairs(
    cases: dict[str, tuple[str, str, list[tuple[int, str]]]],
) -> list[tuple[str, str, list[tuple[Any, Any, str]]]]:
    """(case key, answer text, [(gold_matched, rule, note), ...]) in file order."""
    where = str(PAIRS_SOURCE.relative_to(ROOT.parent))
    source = _read_json(PAIRS_SOURCE)
    _keys(where, source, {"pairs"})
    if not isinstance(source["pairs"], list) or not source["pairs"]:
        raise SourceError(f"{where}: pairs must be a non-empty list")
    pairs = []
    for n, pair in enumerate(source["pairs"]):
        at = f"{where}: pairs[{n}]"
        _keys(at, pair, PAIR_KEYS)
        if pair["case"] not in cases:
            raise SourceError(f"{at}: case {pair['case']!r} is not a synthetic case key")
        items = cases[pair["case"]][2]
        lines = pair["answer"]
        if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
            raise SourceError(f"{at}: answer must be a list of lines (strings)")
        answer = _text(f"{at}: answer", "\n".join(lines))
        if not isinstance(pair["gold"], list) or len(pair["gold"]) != len(items):
            raise SourceError(f"{at}: gold must list one decision per rubric item ({len(items)})")
        gold = []
        for i, decision in enumerate(pair["gold"]):
            _keys(f"{at}: gold[{i}]", decision, GOLD_KEYS)
            note = _text(f"{at}: gold[{i}].note", decision["note"])
            gold.append((decision["matched"], decision["rule"], note))
        pairs.append((pair["case"], answer, gold))
    return pairs


try:
    REGISTRY = load_registry()
    CASES, TOPICS = load_cases(REGISTRY)
    PAIRS = load_pairs(CASES)
except SourceError as exc:
    raise SystemExit(f"error: {exc}") from None
GRADING = {b["name"]: b["grading_method"] for b in REGISTRY["benchmarks"]}
CASE_ORDER = list(CASES)


# ---------------------------------------------------------------------------------------------
# Building and writing
# ---------------------------------------------------------------------------------------------


def dump(obj: object) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def build_case(key: str) -> dict[str, Any]:
    benchmark, prompt, items = CASES[key]
    ids = item_ids(prompt, len(items))
    return {
        "case_id": case_id_for(benchmark, key),
        "benchmark": benchmark,
        "grading_method": GRADING[benchmark],
        "prompt": prompt,
        "rubric_items": [
            {"item_id": iid, "text": text, "points": points}
            for iid, (points, text) in zip(ids, items, strict=True)
        ],
        "split": "train",
    }


def build_release() -> dict[Path, str]:
    files: dict[Path, str] = {REGISTRY_PATH: dump(REGISTRY)}
    for benchmark, grading in GRADING.items():
        keys = [k for k in CASE_ORDER if CASES[k][0] == benchmark]
        cases = [build_case(k) for k in keys]
        base = SYNTHETIC_DIR / "data" / benchmark
        for case in cases:
            files[base / "cases" / f"{case['case_id']}.json"] = dump(case)
        files[base / "manifest.json"] = dump(
            {
                "benchmark": benchmark,
                "grading_method": grading,
                "case_ids": [c["case_id"] for c in cases],
            }
        )
    return files


def build_readme(current: str) -> str:
    """The README with its case table (between the two markers) rewritten from the source."""
    rows = ["| benchmark | case_id | topic |", "|---|---|---|"]
    for key in CASE_ORDER:
        benchmark = CASES[key][0]
        rows.append(f"| {benchmark} | `{case_id_for(benchmark, key)}` | {TOPICS[key]} |")
    head, start, rest = current.partition(TABLE_START)
    _, end, tail = rest.partition(TABLE_END)
    if not start or not end:
        raise SystemExit(f"error: {README_PATH.relative_to(ROOT.parent)}: table markers missing")
    return head + start + "\n" + "\n".join(rows) + "\n" + end + tail


def build_pairs() -> str:
    lines = []
    for n, (key, answer, gold) in enumerate(PAIRS, start=1):
        benchmark, prompt, items = CASES[key]
        ids = item_ids(prompt, len(items))
        rubric = []
        for iid, (points, text), (matched, rule, note) in zip(ids, items, gold, strict=True):
            rubric.append(
                {
                    "item_id": iid,
                    "text": text,
                    "points": points,
                    "gold_matched": matched,
                    "rule": rule,
                    "note": note,
                }
            )
        lines.append(
            json.dumps(
                {
                    "pair_id": f"jc-{n:03d}",
                    "synthetic": True,
                    "grading_method": GRADING[benchmark],
                    "prompt": prompt,
                    "answer": answer,
                    "rubric_items": rubric,
                },
                ensure_ascii=False,
            )
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    files = build_release()
    files[README_PATH] = build_readme(README_PATH.read_text(encoding="utf-8"))
    files[PAIRS_PATH] = build_pairs()
    check = "--check" in argv
    bad = 0
    for path, text in sorted(files.items()):
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"differs: {path.relative_to(ROOT.parent)}")
                bad += 1
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if check:
        # Files in the release directories that this script would not write.
        for path in sorted((SYNTHETIC_DIR / "data").rglob("*.json")):
            if path not in files:
                print(f"unexpected: {path.relative_to(ROOT.parent)}")
                bad += 1
        print("OK: files match the generator" if not bad else f"{bad} file(s) differ")
        return 1 if bad else 0
    print(f"wrote {len(files)} files ({len(CASE_ORDER)} cases, {len(PAIRS)} judge-check pairs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
