"""How `bedside-bench report` scales with the size of a log store.

Writes a synthetic store with Inspect's own log writer (`inspect_ai.log.write_eval_log`): M
models x 10 benchmarks x N cases (default 10 x 10 x 25, the public split: 100 logs, 250 cases per
model), each sample with a realistic conversation and rubric-judge score metadata, scores drawn
from a seeded generator. Then times the report over the first 1, 2, 5 and 10 models' logs (10,
20, 50 and 100 logs) in-process, split into reading the logs and the rest (grouping, bootstrap,
comparison, plot, files), and once as a whole `bedside-bench report` command.

    python benchmarks/bench_report_scale.py               # 10 models, 25 cases per benchmark
    python benchmarks/bench_report_scale.py --cases 50 --keep /tmp/store

Target: 100 local logs in under 5 s (the report's own work, in-process).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalSample,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.scorer import Score

from bedside_bench.core.benchmarks import BENCHMARK_NAMES, get_benchmark
from bedside_bench.core.protocol import PROTOCOL_VERSION
from bedside_bench.logs.read import read_records
from bedside_bench.report import ReportOptions, build_report

JUDGE = "openai/gpt-5.6-sol"
DIGEST = hashlib.sha256(b"synthetic bedside-bench store").hexdigest()
SYSTEM = "You are a physician answering a clinical question at the bedside. " * 20
ANSWER_USAGE = ModelUsage(input_tokens=600, output_tokens=450, total_tokens=1050)
JUDGE_USAGE = ModelUsage(input_tokens=1400, output_tokens=220, total_tokens=1620)
ITEMS = 10


def sample(
    model: str, benchmark: str, n: int, value: float, rng: np.random.Generator
) -> EvalSample:
    case_id = f"{benchmark}-{n:03d}"
    prompt = f"Case {case_id}: " + "A patient presents with findings that need a decision. " * 12
    answer = f"{model} recommends: " + "a considered plan with reasons and follow-up. " * 30
    decisions = {f"{case_id}_{i}": bool(rng.random() < value) for i in range(ITEMS)}
    metadata = {
        "decisions": decisions,
        "grading_method": get_benchmark(benchmark).grading_method,
        "judge_model": JUDGE,
        "judge_temperature": 0.0,
        "answer_temperature": 1.0,
        "judge_attempts": 1,
        "severe_gate": False,
    }
    if metadata["grading_method"] == "f1_weighted_rubric":
        metadata |= {
            "recall": value,
            "precision": min(1.0, value + 0.1),
            "severe_rate": float(value < 0.3),
        }
    else:
        metadata |= {"matched_signed_points": round(value * 12), "available_positive_points": 12}
    output = ModelOutput.from_content(model=model, content=answer)
    return EvalSample(
        id=case_id,
        epoch=1,
        input=prompt,
        target="",
        messages=[
            ChatMessageSystem(content=SYSTEM),
            ChatMessageUser(content=prompt),
            ChatMessageAssistant(content=answer, model=model),
        ],
        output=output,
        scores={"rubric_judge": Score(value=value, answer=answer, metadata=metadata)},
        model_usage={model: ANSWER_USAGE, JUDGE: JUDGE_USAGE},
        role_usage={"grader": JUDGE_USAGE},
    )


def write_log(store: Path, model: str, benchmark: str, cases: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    quality = 0.3 + 0.4 * rng.random()
    values = np.clip(quality + 0.25 * rng.standard_normal(cases), 0.0, 1.0)
    samples = [sample(model, benchmark, n, float(v), rng) for n, v in enumerate(values)]
    started = f"2026-01-01T{seed % 24:02d}:00:00+00:00"
    log = EvalLog(
        status="success",
        eval=EvalSpec(
            created=started,
            task=f"bedside_bench/{benchmark}",
            task_id=f"{model}-{benchmark}",
            dataset=EvalDataset(
                name=f"bedside_bench/{benchmark}",
                samples=cases,
                sample_ids=[s.id for s in samples],
            ),
            model=model,
            task_args={"judge_model": JUDGE},
            config=EvalConfig(epochs=1),
            metadata={
                "benchmark": benchmark,
                "grading_method": get_benchmark(benchmark).grading_method,
                "protocol_version": PROTOCOL_VERSION,
                "dataset_sha256": DIGEST,
                "data_source": "synthetic",
                "smoke": False,
                "severe_gate": False,
                "judge_passes": 1,
                "grading": "binary",
            },
        ),
        stats=EvalStats(
            started_at=started,
            completed_at=started.replace(":00:00+", ":09:00+"),
            model_usage={
                model: ANSWER_USAGE.model_copy(
                    update={"input_tokens": 600 * cases, "output_tokens": 450 * cases}
                ),
                JUDGE: JUDGE_USAGE.model_copy(
                    update={"input_tokens": 1400 * cases, "output_tokens": 220 * cases}
                ),
            },
            role_usage={
                "grader": JUDGE_USAGE.model_copy(
                    update={"input_tokens": 1400 * cases, "output_tokens": 220 * cases}
                )
            },
        ),
        samples=samples,
    )
    write_eval_log(log, str(store / f"{started[:13]}_{benchmark}_{seed:04d}.eval"))


def write_store(store: Path, models: int, cases: int) -> list[Path]:
    folders = []
    for m in range(models):
        folder = store / f"model-{m:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        for b, benchmark in enumerate(BENCHMARK_NAMES):
            write_log(folder, f"openai/synthetic-{m:02d}", benchmark, cases, 100 * m + b)
        folders.append(folder)
    return folders


def time_report(folders: Sequence[Path], out: Path) -> tuple[float, float]:
    """(seconds reading the logs, seconds for the whole report), in-process."""
    paths = [str(f) for f in folders]
    start = time.perf_counter()
    read_records(paths, progress_stream=io.StringIO())
    read = time.perf_counter() - start
    start = time.perf_counter()
    build_report(ReportOptions(log_paths=paths, out_dir=out), out=io.StringIO(), err=io.StringIO())
    return read, time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--cases", type=int, default=25, help="cases per benchmark")
    parser.add_argument("--keep", type=Path, help="write the store here and keep it")
    args = parser.parse_args(argv)

    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-report-"))
    try:
        start = time.perf_counter()
        folders = write_store(root / "store", args.models, args.cases)
        print(
            f"wrote {len(folders) * 10} logs ({args.models} models x 10 benchmarks x "
            f"{args.cases} cases) in {time.perf_counter() - start:.1f} s"
        )
        time_report(folders[:1], root / "warm")  # imports, matplotlib font cache
        print("in-process `build_report` (read: logs to records; rest: groups, bootstrap, ")
        print("comparison of every pair, schema checks, plot, files)")
        print(f"{'models':>6} {'logs':>5} {'read (s)':>9} {'rest (s)':>9} {'total (s)':>10}")
        for k in sorted({1, 2, 5, args.models} & set(range(1, args.models + 1))):
            read, total = time_report(folders[:k], root / f"out-{k}")
            print(f"{k:>6} {10 * k:>5} {read:>9.2f} {total - read:>9.2f} {total:>10.2f}")
        command = [
            str(Path(sys.executable).parent / "bedside-bench"),
            "report",
            *map(str, folders),
            "-o",
            str(root / "cli"),
        ]
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        print(
            f"whole `bedside-bench report` command over {len(folders) * 10} logs "
            f"(interpreter start and imports included): {time.perf_counter() - start:.2f} s"
        )
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
