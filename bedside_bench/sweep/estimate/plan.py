"""The estimate of a sweep: every call it would make and the tokens each would carry, from the
real tasks and messages, without a provider call (docs/estimate.md).

Input tokens are counted on the messages the run would send: the physician system message and
the case prompt; the judge's system message and the user message `judge_reply` builds around
the answer and rubric. An answer is not known before it is bought, so the judge message is
built around an empty answer and the estimated answer length is added. Output tokens come from
earlier logs of the same model in the log directory, else from the priors below.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from bedside_bench.core.contracts import SampleMetadata
from bedside_bench.core.protocol import PHYSICIAN_SYSTEM_MESSAGE
from bedside_bench.documents.estimate import (
    EstimateDocument,
    ModelEstimate,
    OutputBasis,
    Tokenizer,
)
from bedside_bench.judging.grading import grading_strategy
from bedside_bench.judging.reply import judge_user_message
from bedside_bench.release.case_model import Case
from bedside_bench.release.dataset import case_of_sample
from bedside_bench.report.prices import (
    Prices,
    Pricing,
    database_label,
    database_source,
    inspect_rates,
)
from bedside_bench.sweep.cost import check_cost_config
from bedside_bench.sweep.estimate.cost import Totals, price_totals, sum_costs
from bedside_bench.sweep.estimate.history import History, RunKey, identity, read_history
from bedside_bench.sweep.estimate.tokens import CALL_OVERHEAD_TOKENS, TokenCounter, counter_for
from bedside_bench.sweep.options import SweepOptions, build_tasks, check_benchmarks, judge_passes
from bedside_bench.sweep.shard import all_runs, shard_runs

if TYPE_CHECKING:
    from inspect_ai import Task

# Priors, used when the log directory holds no earlier answer of the model (or judging by the
# judge). An answer to a clinical question runs to a few paragraphs; a reasoning model is
# assumed to spend twice its visible answer on reasoning. The binary judge writes about 14
# tokens per rubric item (`{"item_id":"item_0","matched":true},`), the three-level one a
# rationale and a quote (about 70).
ANSWER_VISIBLE_PRIOR = 600
REASONING_FACTOR_PRIOR = 2
JUDGE_PER_ITEM_PRIOR = {"binary": 14, "three_level": 70}


def is_reasoning_model(model: str) -> bool:
    """OpenAI's o-series and gpt-5 onwards (not their -chat variants) reason by default; the
    others only when configured to, which a sweep does not do."""
    provider, _, name = model.partition("/")
    name = name.rsplit("/", 1)[-1].lower()
    if provider != "openai":
        return False
    version = re.match(r"gpt-(\d+)", name)
    if version is not None:
        return int(version.group(1)) >= 5 and "-chat" not in name
    return re.match(r"o\d", name) is not None


def task_cases(task: Task) -> list[Case]:
    """The cases of a task as it was built (its samples), so the estimate counts what the run
    would send."""
    cases = []
    for sample in task.dataset:
        meta = SampleMetadata.model_validate(sample.metadata or {})
        prompt = sample.input if isinstance(sample.input, str) else ""
        cases.append(case_of_sample(prompt, meta))
    return cases


def answer_basis(model: str, history: History) -> OutputBasis:
    tally = history.answers.get(model)
    if tally is not None and tally.samples:
        return OutputBasis(
            source="logs",
            samples=tally.samples,
            per_call=tally.output_tokens / tally.samples,
            visible_per_call=tally.visible_tokens / tally.samples,
        )
    reasoning = REASONING_FACTOR_PRIOR if is_reasoning_model(model) else 0
    return OutputBasis(
        source="prior",
        per_call=ANSWER_VISIBLE_PRIOR * (1 + reasoning),
        visible_per_call=ANSWER_VISIBLE_PRIOR,
    )


def judge_basis(judge: str, grading: str, history: History) -> OutputBasis:
    """Output tokens per rubric item judged (a judge's reply grows with the rubric)."""
    tally = history.judges.get((judge, grading))
    if tally is not None and tally.units:
        return OutputBasis(
            source="logs", samples=tally.samples, per_call=tally.output_tokens / tally.units
        )
    reasoning = REASONING_FACTOR_PRIOR if is_reasoning_model(judge) else 0
    return OutputBasis(source="prior", per_call=JUDGE_PER_ITEM_PRIOR[grading] * (1 + reasoning))


def tokenizer(counter: TokenCounter) -> Tokenizer:
    return Tokenizer(name=counter.name, approximate=counter.approximate)


def estimate_sweep(
    options: SweepOptions, prices: Prices | None, history: History | None = None
) -> EstimateDocument:
    """The plan of `options` as a sweep in its log directory would run it now."""
    benchmarks = check_benchmarks(options.benchmarks)
    tasks = dict(zip(benchmarks, build_tasks(options), strict=True))
    cases = {name: task_cases(task) for name, task in tasks.items()}
    any_task = next(iter(tasks.values()))
    epochs = int(any_task.epochs or 1)
    task_meta: Mapping[str, Any] = any_task.metadata or {}
    grading = str(task_meta.get("grading", "binary"))
    passes = judge_passes(options)
    strategy = grading_strategy(grading)
    judge_counter = counter_for(options.judge)
    counters = {m: counter_for(m) for m in options.models}
    if history is None:
        history = read_history(
            options.log_dir, lambda m, t: counters.get(m, counter_for(m)).count(t)
        )
    runs = (
        all_runs(options.models, benchmarks)
        if options.shard.whole
        else shard_runs(options.models, benchmarks, options.shard)
    )
    judge_system = judge_counter.count(strategy.system_message)
    judge_fixed = {
        (b, c.case_id): judge_system
        + judge_counter.count(judge_user_message(c.prompt, "", c.rubric_items))
        + CALL_OVERHEAD_TOKENS
        for b in benchmarks
        for c in cases[b]
    }
    judge_out = judge_basis(options.judge, grading, history)
    batch = options.batch is not None and options.batch is not False
    models: dict[str, ModelEstimate] = {}
    config = options.model_cost_config
    pricing = Pricing(
        prices_file=prices,
        inspect_config=inspect_rates(check_cost_config(config)) if config else None,
    )
    database = False
    for model in options.models:
        counter = counters[model]
        physician = counter.count(PHYSICIAN_SYSTEM_MESSAGE)
        answer_out = answer_basis(model, history)
        visible = answer_out.visible_per_call or 0.0
        answer_calls = answer_input = judged_items = cases_done = 0
        judge_input = 0.0
        todo_runs: set[str] = set()
        todo_cases: set[tuple[str, str]] = set()
        for run_model, benchmark in runs:
            if run_model != model:
                continue
            key = RunKey(model, benchmark, options.judge, identity(tasks[benchmark].metadata or {}))
            done = history.done.get(key, set())
            for case in cases[benchmark]:
                for epoch in range(1, epochs + 1):
                    if (case.case_id, epoch) in done:
                        cases_done += 1
                        continue
                    todo_runs.add(benchmark)
                    todo_cases.add((benchmark, case.case_id))
                    answer_calls += 1
                    answer_input += physician + counter.count(case.prompt) + CALL_OVERHEAD_TOKENS
                    judge_input += passes * (judge_fixed[(benchmark, case.case_id)] + visible)
                    judged_items += passes * len(case.rubric_items)
        totals = Totals(
            answer_input=answer_input,
            answer_output=round(answer_calls * answer_out.per_call),
            judge_input=round(judge_input),
            judge_output=round(judged_items * judge_out.per_call),
        )
        cost, notes, sources = price_totals(
            totals,
            (model, answer_out, counter.approximate),
            (options.judge, judge_out, judge_counter.approximate),
            pricing,
            batch,
        )
        database = database or any(v == database_source() for v in sources.values())
        models[model] = ModelEstimate(
            runs=len(todo_runs),
            cases=len(todo_cases),
            cases_done=cases_done,
            answer_calls=answer_calls,
            judge_calls=answer_calls * passes,
            answer_input_tokens=totals.answer_input,
            answer_output_tokens=totals.answer_output,
            judge_input_tokens=totals.judge_input,
            judge_output_tokens=totals.judge_output,
            tokenizer=tokenizer(counter),
            answer_output=answer_out,
            judge_output=judge_out,
            cost_usd=cost,
            cost_notes=notes,
            price_sources=sources,
        )
    return EstimateDocument(
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        log_dir=options.log_dir,
        judge=options.judge,
        judge_tokenizer=tokenizer(judge_counter),
        judge_passes=passes,
        epochs=epochs,
        grading=grading,
        batch=batch,
        call_overhead_tokens=CALL_OVERHEAD_TOKENS,
        models=models,
        cost_usd=sum_costs([m.cost_usd for m in models.values()], batch),
        notes=estimate_notes(),
        price_data=database_label() if database else None,
    )


def estimate_notes() -> list[str]:
    notes = [
        "calls are those planned: a judge reply that is invalid and asked again, a retried "
        "call or a re-run case adds calls and tokens",
        "input tokens are priced as fresh input: a provider's prompt cache makes them cheaper",
    ]
    notes.append(
        "prices: the prices file (--prices) for the models it lists, else the sweep's Inspect "
        "cost config (--model-cost-config), else the genai-prices database at today's rates"
    )
    return notes
