"""The money ledger: what the provider double was paid for, per (model, case, kind).

A benchmark run costs money, so an end-to-end test asserts the exact number of calls it
expects and a repeated purchase (an answer bought twice, a judge asked more often than the
design allows) fails the test that causes it::

    from tests.ledger import assert_bought_once, ledger

    assert_bought_once(double, cases, ["openai/gpt-4.1-mini"])                # 1 + 1 per case
    assert_bought_once(double, cases, models, judge_calls_per_case={broken: 9, "*": 1})
    assert ledger(double, cases)[("openai/gpt-4.1-mini", case_id, "judge")] == 3

What counts: every request the double answered with HTTP 200 (what a provider bills), of kind
"answer", "judge" or "probe" (the Responses API probe a model instance makes once before its
first call); token counts and refused or faulted requests are not purchases. `model` is the
answer model as Inspect names it (`openai/gpt-4.1-mini`, from the API and the name on the
wire): for an answer the model asked, for a judge call the model whose answer is judged (found
from the answer text the double gave out, else from the scripted answer's "Answer from M:"),
for a probe the model probed. `case_id` is the case's id when the cases are given (matched on
the prompt text), else the prompt text itself; a probe has case_id "". To count one judge's
calls only, pass `judge="openai/gpt-4.1"`. Count phases apart with `double.reset()` or by
subtracting ledgers (`after - before`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from bedside_bench.doubles import ProviderDouble, RecordedRequest

KINDS = ("answer", "judge", "probe")
PROVIDER_OF_API = {"chat": "openai", "responses": "openai", "anthropic": "anthropic"}
ANY_CASE = "*"  # judge_calls_per_case key: every case not named


class Purchase(NamedTuple):
    model: str  # the answer model the call is for, e.g. "openai/gpt-4.1-mini"
    case_id: str  # the case id ("" for a probe); the prompt text if no cases were given
    kind: str  # "answer" | "judge" | "probe"


Cases = Iterable[Mapping[str, Any]] | Mapping[str, Iterable[Mapping[str, Any]]]


def case_ids_by_prompt(cases: Cases | None) -> dict[str, str]:
    """prompt -> case_id, from case dicts (or `write_release`'s dict of them by benchmark)."""
    if cases is None:
        return {}
    if isinstance(cases, Mapping):
        cases = [case for group in cases.values() for case in group]
    return {case["prompt"]: case["case_id"] for case in cases}


def case_list(cases: Cases) -> list[Mapping[str, Any]]:
    if isinstance(cases, Mapping):
        return [case for group in cases.values() for case in group]
    return list(cases)


def full_name(request: RecordedRequest) -> str:
    return f"{PROVIDER_OF_API.get(request.api, request.api)}/{request.model}"


def ledger(
    double: ProviderDouble, cases: Cases | None = None, judge: str | None = None
) -> Counter[Purchase]:
    """Successful answer, judge and probe calls the double received, per (model, case, kind).

    `judge`: count only the judge calls sent to this model (e.g. "openai/gpt-4.1")."""
    by_prompt = case_ids_by_prompt(cases)
    paid = [r for r in double.requests() if r.status == 200 and r.kind in KINDS]
    # which answer model gave each answer text out: a judge call is charged to that case
    author = {r.reply: full_name(r) for r in paid if r.kind == "answer" and r.reply is not None}
    counts: Counter[Purchase] = Counter()
    for request in paid:
        if request.kind == "probe":
            counts[Purchase(full_name(request), "", "probe")] += 1
        elif request.kind == "answer":
            prompt = request.request.user
            counts[Purchase(full_name(request), by_prompt.get(prompt, prompt), "answer")] += 1
        else:
            if judge is not None and full_name(request) != judge:
                continue
            judged = request.request.judge
            model = author.get(judged.answer) or answer_author(judged.answer, request)
            counts[Purchase(model, by_prompt.get(judged.prompt, judged.prompt), "judge")] += 1
    return counts


def answer_author(answer: str, request: RecordedRequest) -> str:
    """The model named by a scripted answer ("Answer from M: ..."), with the judge's provider
    when the answer was given out by another double or process ("?" if it names none)."""
    if not answer.startswith("Answer from "):
        return "?"
    wire = answer.removeprefix("Answer from ").split(":", 1)[0]
    provider = "anthropic" if wire.startswith("claude") else "openai"
    return f"{provider}/{wire}"


def expected_purchases(
    cases: Cases,
    models: Iterable[str],
    judge_calls_per_case: int | Mapping[str, int] = 1,
    answers_per_case: int = 1,
) -> Counter[Purchase]:
    """What `assert_bought_once` expects: `answers_per_case` answers of every case by every
    model, and `judge_calls_per_case` judge calls of each (an int, or by case id with "*" for
    the cases not named)."""
    expected: Counter[Purchase] = Counter()
    for model in models:
        for case in case_list(cases):
            case_id = case["case_id"]
            if isinstance(judge_calls_per_case, Mapping):
                judged = judge_calls_per_case.get(case_id, judge_calls_per_case.get(ANY_CASE, 0))
            else:
                judged = judge_calls_per_case
            expected[Purchase(model, case_id, "answer")] = answers_per_case
            expected[Purchase(model, case_id, "judge")] = judged
    return +expected  # zero counts dropped, as a ledger has none


def assert_bought_once(
    double: ProviderDouble,
    cases: Cases,
    models: Iterable[str],
    judge_calls_per_case: int | Mapping[str, int] = 1,
    *,
    answers_per_case: int = 1,
    judge: str | None = None,
    probes: int | None = None,
) -> None:
    """The double was paid exactly this: one answer per (model, case) (`answers_per_case`,
    e.g. the epochs) and `judge_calls_per_case` judge calls for it, nothing else.

    `probes`: also expect exactly this many probe calls per model (None: probes not checked,
    since Inspect makes one per model instance and process)."""
    models = list(models)
    paid = ledger(double, cases, judge=judge)
    if probes is None:
        paid = Counter({k: v for k, v in paid.items() if k.kind != "probe"})
    expected = expected_purchases(cases, models, judge_calls_per_case, answers_per_case)
    if probes:
        expected.update({Purchase(m, "", "probe"): probes for m in models})
    if paid != expected:
        raise AssertionError(ledger_difference(paid, expected))


def ledger_difference(paid: Counter[Purchase], expected: Counter[Purchase]) -> str:
    """Every (model, case, kind) whose count differs, as `paid N, expected M`."""
    lines = ["the provider was not paid as expected (model, case, kind: paid, expected):"]
    for key in sorted(set(paid) | set(expected)):
        if paid[key] != expected[key]:
            lines.append(
                f"  {key.model}, {key.case_id[:60]}, {key.kind}: {paid[key]}, {expected[key]}"
            )
    return "\n".join(lines)
