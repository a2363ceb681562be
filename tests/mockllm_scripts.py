"""Scripted `mockllm/model` runs of the tasks, as inspect_evals tests its evals: the answer model
and the `grader` role are both `get_model("mockllm/model", custom_outputs=...)`, their replies
scripted, and the expected scores computed on the tests' independent path (`tests/independent.py`
over the case files read with plain `json`, never through the package).

A reply is chosen by what the call was sent (the case's prompt, its item ids, the pair's
answer), not by call order, so samples running concurrently get the right replies. Every output
carries its usage: mockllm would otherwise count tokens with an encoding tiktoken downloads.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)

from tests.independent import exact_case_score, read_cases

REPO = Path(__file__).resolve().parent.parent
SYNTHETIC = REPO / "data" / "synthetic"
GOLD_FILES = (REPO / "data" / "judge_check" / "pairs.jsonl",)
JUDGE_CHECK = "judge_check"


def output(text: str) -> ModelOutput:
    reply = ModelOutput.from_content(model="mockllm/model", content=text)
    reply.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
    return reply


def decisions_reply(decisions: Mapping[str, bool]) -> str:
    """The binary judge's reply format (`judge_reply.parse_decisions`), written out."""
    return json.dumps({"decisions": [{"item_id": i, "matched": m} for i, m in decisions.items()]})


def _text(messages: Sequence[ChatMessage]) -> str:
    return "\n".join(m.text for m in messages)


@dataclass
class Scripted:
    """A mockllm model whose reply to a call is `reply(text of the call's messages)`; the
    calls it received are counted by the key the reply was chosen with."""

    reply: Callable[[str], tuple[str, str]]  # call text -> (key, reply)
    calls: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def model(self) -> Model:
        def generate(
            input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
        ) -> ModelOutput:
            key, text = self.reply(_text(input))
            with self.lock:
                self.calls[key] += 1
            return output(text)

        return get_model("mockllm/model", custom_outputs=generate)


def _only(found: list[str], what: str) -> str:
    if len(found) != 1:
        raise AssertionError(f"expected one {what} in the call, found {found}")
    return found[0]


# --------------------------------------------------------------------------------------------
# a benchmark task: answers and judge decisions


def answer_text(case: Mapping[str, Any]) -> str:
    return f"Scripted answer to case {case['case_id']}."


def scripted_decisions(case: Mapping[str, Any], case_number: int) -> dict[str, bool]:
    """Every other item matched, starting at the first for case 0 and at the second for case
    1, so matched negative items (which deduct) and missed positive ones both occur."""
    return {
        item["item_id"]: (n + case_number) % 2 == 0 for n, item in enumerate(case["rubric_items"])
    }


@dataclass
class BenchmarkScript:
    cases: list[dict[str, Any]]
    answers: Scripted
    judge: Scripted

    def decisions(self, case_id: str) -> dict[str, bool]:
        number = next(n for n, c in enumerate(self.cases) if c["case_id"] == case_id)
        return scripted_decisions(self.cases[number], number)

    def expected(self, case_id: str) -> Fraction:
        case = next(c for c in self.cases if c["case_id"] == case_id)
        return exact_case_score(case, self.decisions(case_id))


def benchmark_script(benchmark: str, release: Path = SYNTHETIC) -> BenchmarkScript:
    """The answer model answers each case by its prompt; the judge, finding the case by its
    item ids in the judge message, returns `scripted_decisions`."""
    cases = read_cases(release, benchmark)

    def answer(text: str) -> tuple[str, str]:
        case = _only([c["case_id"] for c in cases if c["prompt"] in text], "case prompt")
        return case, answer_text(next(c for c in cases if c["case_id"] == case))

    def judge(text: str) -> tuple[str, str]:
        found = [
            n for n, c in enumerate(cases) if all(i["item_id"] in text for i in c["rubric_items"])
        ]
        number = int(_only([str(n) for n in found], "case's rubric"))
        case = cases[number]
        assert answer_text(case) in text, "the judge was not shown the case's answer"
        return case["case_id"], decisions_reply(scripted_decisions(case, number))

    return BenchmarkScript(cases, Scripted(answer), Scripted(judge))


# --------------------------------------------------------------------------------------------
# the judge check: the model under evaluation is the judge


def read_pairs(files: Sequence[Path] = GOLD_FILES) -> list[dict[str, Any]]:
    return [json.loads(line) for path in files for line in path.read_text("utf-8").splitlines()]


def flipped(pair_number: int) -> int:
    """How many of a pair's first items the scripted judge gets wrong: 1 for the first pair,
    2 for the second, ..."""
    return pair_number + 1


@dataclass
class JudgeCheckScript:
    pairs: list[dict[str, Any]]
    judge: Scripted

    def number(self, pair_id: str) -> int:
        return next(n for n, p in enumerate(self.pairs) if p["pair_id"] == pair_id)

    def expected(self, pair_id: str) -> Fraction:
        """The pair's score: the share of its item decisions equal to gold."""
        items = self.pairs[self.number(pair_id)]["rubric_items"]
        return Fraction(len(items) - flipped(self.number(pair_id)), len(items))


def judge_check_script(pairs: list[dict[str, Any]] | None = None) -> JudgeCheckScript:
    """The judge under evaluation, finding the pair by its answer in the judge message,
    returns the gold decisions with the first `flipped(n)` of them wrong."""
    pairs = read_pairs() if pairs is None else pairs

    def judge(text: str) -> tuple[str, str]:
        number = int(_only([str(n) for n, p in enumerate(pairs) if p["answer"] in text], "pair"))
        items = pairs[number]["rubric_items"]
        decisions = {
            i["item_id"]: i["gold_matched"] != (k < flipped(number)) for k, i in enumerate(items)
        }
        return pairs[number]["pair_id"], decisions_reply(decisions)

    return JudgeCheckScript(pairs, Scripted(judge))


# --------------------------------------------------------------------------------------------
# reading a log


def sample_scores(log: EvalLog, scorer: str) -> dict[str, float]:
    """Each sample's score value by sample id; a sample without one fails here, by id."""
    assert log.status == "success", log.error
    assert log.samples, "the log holds no sample"
    scores: dict[str, float] = {}
    for sample in log.samples:
        assert sample.error is None, f"{sample.id}: {sample.error.message}"
        assert sample.scores is not None and scorer in sample.scores, f"{sample.id}: no score"
        scores[str(sample.id)] = float(sample.scores[scorer].value)  # type: ignore[arg-type]
    return scores
