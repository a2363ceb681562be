"""`bedside-bench data check | pull | path | export`, run as a user types them (the console
script's own main in this process, or in a process of its own where the Hugging Face cache is
another, one process per cache; a second look at the same input, `--json` or a repeat, in this
process's environment).

Expected counts and digests are computed here from the files themselves; the export's rows are
checked one by one against the provider double's scripted answers and decisions and the
independent scoring of tests/independent.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bedside_bench.cli import data as data_cli
from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.protocol import HF_DATASET_REPO, HF_DATASET_REVISION
from bedside_bench.doubles import ProviderDouble, scripted_answer, scripted_decision
from tests.e2e_helpers import (
    Result,
    bedside_bench_in_process,
    eval_ok,
    import_time_settings,
    run_console_script,
    run_tool,
)
from tests.independent import case_score, f1_parts, read_cases
from tests.release_factory import write_case, write_release

REPO = Path(__file__).resolve().parent.parent
PUBLIC_DIGEST = "3f44e6c7773aae3568d32d24c71d31a52ceb7286559d599549b386b3d3760cfe"

pytestmark = pytest.mark.slow


def run_data(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, process: bool = False
) -> Result:
    """`bedside-bench data ARGS` with `env` (default: no data source set, offline), in this
    process; `process=True` gives it a process of its own, for an `env` that names another
    Hugging Face cache (huggingface_hub reads HF_HUB_CACHE when it is imported)."""
    run = run_console_script if process else run_tool
    return run("bedside-bench", "data", *args, env=clean_env() if env is None else env, cwd=cwd)


# `bedside-bench data` commands in turn in one new process through the command's own `main`,
# each with its own changes to the environment (read when it runs): the argv, exit status and
# both streams of each
COMMANDS_IN_ONE_PROCESS = """\
import contextlib, io, json, os, sys, traceback
from bedside_bench.cli.main import main
done, started = [], dict(os.environ)
for words, changes in json.loads(sys.argv[1]):
    os.environ.clear()
    os.environ.update({**started, **changes})
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["data", *words])
        except SystemExit as stopped:
            code = stopped.code if isinstance(stopped.code, int) else int(stopped.code is not None)
        except Exception as error:
            traceback.print_exception(error)
            code = 1
    done.append([words, code, out.getvalue(), err.getvalue()])
print(json.dumps(done))
"""


def data_in_one_process(
    env: dict[str, str], *commands: tuple[list[str], dict[str, str]]
) -> list[Result]:
    """`bedside-bench data WORDS` for each (WORDS, changes) in one new process started with
    `env` (a Hugging Face cache other than this process's: huggingface_hub reads HF_HUB_CACHE
    when it is imported, so one process per cache), each run with `env` and its `changes`;
    the changes name only variables read when a command runs."""
    for _, changes in commands:
        assert not import_time_settings(changes), changes
    result = subprocess.run(
        [sys.executable, "-c", COMMANDS_IN_ONE_PROCESS, json.dumps(commands)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return [
        Result(["bedside-bench", "data", *words], code, out, err)
        for words, code, out, err in json.loads(result.stdout)
    ]


def data_here(*args: str) -> Result:
    """`bedside-bench data ARGS` in this process's environment: for a second look (`--json`,
    a repeat) at what a run showed, or a refusal of a path given; only for arguments that name
    every path, so the environment cannot matter."""
    return bedside_bench_in_process("data", *args)


def clean_env(**changes: str) -> dict[str, str]:
    """No data source set, offline; then `changes`."""
    env = dict(os.environ)
    env.pop("BEDSIDE_BENCH_DATA", None)
    env["HF_HUB_OFFLINE"] = "1"
    env.update(changes)
    return env


def expected_counts(root: Path) -> dict[str, dict[str, int]]:
    """Cases and rubric items per benchmark, straight from the case files."""
    counts = {}
    for benchmark in BENCHMARK_NAMES:
        cases = [json.loads(p.read_text()) for p in (root / "data" / benchmark / "cases").glob("*")]
        counts[benchmark] = {
            "cases": len(cases),
            "rubric_items": sum(len(c["rubric_items"]) for c in cases),
        }
    return counts


def fake_hf_cache(tmp_path: Path, revision: str = HF_DATASET_REVISION) -> tuple[Path, Path]:
    """A Hugging Face cache holding the synthetic release as the dataset's snapshot."""
    cache = tmp_path / "hf" / "hub"
    repo = cache / f"datasets--{HF_DATASET_REPO.replace('/', '--')}"
    snapshot = repo / "snapshots" / revision
    shutil.copytree(REPO / "data" / "synthetic", snapshot)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(revision)
    return cache, snapshot


# --------------------------------------------------------------------------------------------
# check


def test_check_the_public_release(real_release: str) -> None:
    result = run_data("check", real_release)
    assert result.returncode == 0, result.stderr
    counts = expected_counts(Path(real_release))
    assert sum(c["cases"] for c in counts.values()) == 250
    lines = result.stdout.splitlines()
    assert lines[0] == f"release: {Path(real_release).resolve()}"
    for benchmark, count in counts.items():
        assert any(
            line.split()
            == [benchmark, str(count["cases"]), "cases", str(count["rubric_items"]), "items"]
            for line in lines
        ), (benchmark, result.stdout)
    assert f"dataset_sha256: {PUBLIC_DIGEST}" in lines
    assert lines[-1].startswith(
        f"known release: public@{HF_DATASET_REVISION[:7]} (the public train split, "
        f"{HF_DATASET_REPO} at revision {HF_DATASET_REVISION} "
    )

    as_json = data_here("check", real_release, "--json")
    assert as_json.returncode == 0, as_json.stderr
    document = json.loads(as_json.stdout)
    assert document["valid"] is True and document["cases"] == 250
    assert document["benchmarks"] == counts
    assert list(document["benchmarks"]) == list(BENCHMARK_NAMES)
    assert document["dataset_sha256"] == PUBLIC_DIGEST
    assert document["known_release"].startswith(f"public@{HF_DATASET_REVISION[:7]} (")
    assert document["release"] == f"public@{HF_DATASET_REVISION[:7]}"
    assert document["release_case_counts"] == {name: 25 for name in BENCHMARK_NAMES}


def test_check_a_valid_unknown_release_and_its_digest(tmp_path: Path) -> None:
    cases = write_release(tmp_path / "release", per_benchmark=2)
    result = run_data("check", str(tmp_path / "release"), "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    ordered = [case for name in BENCHMARK_NAMES for case in cases[name]]
    text = json.dumps(ordered, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert document["dataset_sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert document["known_release"] is None and document["cases"] == 20
    assert document["release"] == "unrecognised"
    assert document["release_case_counts"] == {name: 2 for name in BENCHMARK_NAMES}
    plain = data_here("check", str(tmp_path / "release"))
    assert plain.returncode == 0
    assert plain.stdout.splitlines()[-1].startswith("known release: no")


def test_check_a_corrupted_copy_lists_every_violation(tmp_path: Path, real_release: str) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(real_release, copy)
    drug = sorted((copy / "data" / "drug_safety" / "cases").glob("*.json"))[0]
    case = json.loads(drug.read_text())
    case["rubric_items"][0]["points"] = "two"  # schema: points is an integer
    write_case(drug, case)
    broken_json = sorted((copy / "data" / "safety_therapeutic" / "cases").glob("*.json"))[0]
    broken_json.write_text("{ not json")
    moved = sorted((copy / "data" / "landmark_trials" / "cases").glob("*.json"))[0]
    write_case(moved, {**json.loads(moved.read_text()), "benchmark": "drug_safety"})

    result = run_data("check", str(copy))
    assert result.returncode == 1
    assert result.stdout == ""
    err = result.stderr
    assert f"{copy.resolve()} is not a valid release (3 problems)" in err
    assert f"{drug}, case {case['case_id']}, item item_0, field rubric_items.0.points: " in err
    assert f"{broken_json}: cannot be read as JSON" in err
    assert f"{moved}, case {moved.stem}, field benchmark: " in err

    document = json.loads(data_here("check", str(copy), "--json").stdout)
    assert document["valid"] is False and "dataset_sha256" not in document
    by_file = {v["file"]: v for v in document["violations"]}
    assert len(document["violations"]) == 3
    assert by_file[str(drug)]["case_id"] == case["case_id"]
    assert by_file[str(drug)]["field"] == "rubric_items.0.points"
    assert by_file[str(broken_json)]["message"].startswith("cannot be read as JSON")
    assert (by_file[str(moved)]["case_id"], by_file[str(moved)]["field"]) == (
        moved.stem,
        "benchmark",
    )


def test_check_without_path_uses_the_run_source(tmp_path: Path) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    result = run_data("check", "--json", env=clean_env(BEDSIDE_BENCH_DATA=str(release)))
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert (document["origin"], document["path"]) == ("BEDSIDE_BENCH_DATA", str(release))
    assert document["cases"] == 10

    # nothing set and nothing cached: one line saying what to do, no traceback
    nothing = run_data("check", env=clean_env(HF_HUB_CACHE=str(tmp_path / "empty")), process=True)
    assert nothing.returncode == 1
    assert "is not in the Hugging Face cache" in nothing.stderr
    assert "bedside-bench data pull" in nothing.stderr and "Traceback" not in nothing.stderr
    absent = data_here("check", str(tmp_path / "nowhere"))
    assert absent.returncode == 1 and "nowhere is not a directory" in absent.stderr


def test_check_a_cached_snapshot_offline(tmp_path: Path) -> None:
    cache, snapshot = fake_hf_cache(tmp_path)
    result = run_data("check", "--json", env=clean_env(HF_HUB_CACHE=str(cache)), process=True)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["origin"] == "hugging_face"
    assert document["source"] == f"hf://{HF_DATASET_REPO}@{HF_DATASET_REVISION}"
    assert Path(document["path"]) == snapshot
    assert document["benchmarks"] == expected_counts(REPO / "data" / "synthetic")


# --------------------------------------------------------------------------------------------
# path and pull


def test_path_says_which_source_and_why(tmp_path: Path) -> None:
    release = tmp_path / "release"
    release.mkdir()
    cache, snapshot = fake_hf_cache(tmp_path)
    env = clean_env(HF_HUB_CACHE=str(cache))

    commands = (
        # the order of a run: -T data_dir, then $BEDSIDE_BENCH_DATA, then the cache
        (
            ["path", "--json", "--data-dir", str(release)],
            {"BEDSIDE_BENCH_DATA": str(REPO / "data")},
        ),
        (["path", "--json"], {"BEDSIDE_BENCH_DATA": str(release)}),
        (["path", "--json"], {}),
        (["path", "--json", "--revision", "0" * 40], {}),
        (["path"], {}),
        (["path"], {"BEDSIDE_BENCH_DATA": str(tmp_path / "gone")}),
    )
    *as_json, plain, gone = data_in_one_process(env, *commands)
    for result in as_json:
        assert result.returncode == 0, result.stderr
    given, from_env, cached, other = (json.loads(result.stdout) for result in as_json)
    assert (given["origin"], given["path"]) == ("data_dir", str(release))
    assert (from_env["origin"], from_env["path"]) == ("BEDSIDE_BENCH_DATA", str(release))
    assert from_env["reason"] == "$BEDSIDE_BENCH_DATA is set"
    assert (cached["origin"], Path(cached["path"])) == ("hugging_face", snapshot)
    assert "is in the Hugging Face cache (runs work offline)" in cached["reason"]
    assert other["path"] is None and other["label"] == f"hf://{HF_DATASET_REPO}@{'0' * 40}"
    assert "HF_HUB_OFFLINE is set, so a run would fail" in other["reason"]

    assert plain.returncode == 0
    assert plain.stdout.splitlines()[:2] == ["source: hugging_face", f"path: {snapshot}"]
    assert gone.returncode == 1 and "gone is not a directory" in gone.stderr


def test_pull_finds_a_cached_snapshot_and_fails_clearly_offline(tmp_path: Path) -> None:
    cache, snapshot = fake_hf_cache(tmp_path)
    env = clean_env(HF_HUB_CACHE=str(cache))
    result, missing = data_in_one_process(
        env, (["pull"], {}), (["pull", "--revision", "1" * 40], {})
    )
    assert result.returncode == 0, result.stderr
    label = f"hf://{HF_DATASET_REPO}@{HF_DATASET_REVISION}"
    assert result.stdout.splitlines()[0] == f"{label} is in the Hugging Face cache at {snapshot}"

    assert missing.returncode == 1
    assert f"no BedsideBench release found: {HF_DATASET_REPO}@{'1' * 40}" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_known_release_description() -> None:
    assert data_cli.known_release_description(f"public@{HF_DATASET_REVISION[:7]}") is not None
    assert data_cli.known_release_description("unrecognised") is None


# --------------------------------------------------------------------------------------------
# export

MODEL = "openai/gpt-4.1-mini"
JUDGE = "openai/gpt-4.1"
EXPORT_BENCHMARKS = ("drug_safety", "safety_diagnostic")


def expected_rows(release: Path, model: str, epochs: int, judge: str) -> list[dict[str, Any]]:
    rows = []
    for benchmark in EXPORT_BENCHMARKS:
        for case in sorted(read_cases(release, benchmark), key=lambda c: c["case_id"]):
            answer = scripted_answer(model.split("/", 1)[1], case["prompt"])
            matched = {
                i["item_id"]: scripted_decision(answer, i["item_id"]) for i in case["rubric_items"]
            }
            recall = precision = None
            if case["grading_method"] == "f1_weighted_rubric":
                exact_recall, exact_precision, _, _ = f1_parts(case["rubric_items"], matched)
                recall = float(exact_recall)
                precision = None if exact_precision is None else float(exact_precision)
            for epoch in range(1, epochs + 1):
                for item in case["rubric_items"]:
                    rows.append(
                        {
                            "answer_model": model,
                            "judge_model": judge,
                            "benchmark": benchmark,
                            "grading_method": case["grading_method"],
                            "case_id": case["case_id"],
                            "epoch": epoch,
                            "item_id": item["item_id"],
                            "points": item["points"],
                            "decision": "matched" if matched[item["item_id"]] else "not_matched",
                            "match_value": 1.0 if matched[item["item_id"]] else 0.0,
                            "case_score": case_score(case, matched),
                            "recall": recall,
                            "precision": precision,
                            "answer_stop_reason": "stop",
                            "answer_condition": "complete",
                        }
                    )
    return rows


def test_export_per_item_results_as_parquet(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=2)
    logs = tmp_path / "logs"
    eval_ok(
        EXPORT_BENCHMARKS,
        logs,
        "--epochs",
        "2",
        model=MODEL,
        grader=JUDGE,
        task_args=[f"data_dir={release}"],
        cwd=tmp_path,
        env=provider_double.subprocess_env(),
    )

    out = tmp_path / "export"
    result = run_data("export", str(logs), "-o", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    parquet = out / "results.parquet"
    expected = expected_rows(release, MODEL, epochs=2, judge=JUDGE)
    assert len(expected) == 2 * (2 * 4 + 2 * 5)  # 2 epochs x (points: 4 items, F1: 5 items)
    assert result.stdout.splitlines()[0] == (
        f"wrote {len(expected)} rows (8 scored cases from 2 logs) to {parquet}"
    )

    from datasets import load_dataset

    loaded = load_dataset("parquet", data_files=str(parquet), split="train")
    assert loaded.column_names == [name for name, _ in data_cli_columns()]
    rows = loaded.to_list()
    digest = json.loads(data_here("check", str(release), "--json").stdout)["dataset_sha256"]
    for row in rows:
        assert row.pop("dataset_sha256") == digest
        assert row.pop("protocol_version") == "bedside-bench-grading-v1"
        assert row.pop("log").startswith(str(logs)) and row.pop("task_id")
    assert len(rows) == len(expected)
    for got, want in zip(rows, expected, strict=True):
        assert_same_row(got, want)

    # a scored case is one row set even when several logs (or paths) hold it
    again = data_here("export", str(logs), *map(str, logs.glob("*.eval")), "-o", str(out))
    assert again.returncode == 0 and f"wrote {len(expected)} rows" in again.stdout


def assert_same_row(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert got.keys() == want.keys()
    for key, value in want.items():
        if isinstance(value, float):
            assert got[key] == pytest.approx(value, abs=1e-12), (key, got, want)
        else:
            assert got[key] == value, (key, got, want)


def data_cli_columns() -> tuple[tuple[str, str], ...]:
    from bedside_bench.logs.export import COLUMNS

    return COLUMNS


def test_export_without_logs_fails_clearly(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = data_here("export", str(tmp_path / "empty"), "-o", str(tmp_path / "out"))
    assert result.returncode == 1
    assert "no Inspect logs found under" in result.stderr and "Traceback" not in result.stderr
