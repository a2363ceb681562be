"""The physician review loop end to end: answers judged by A (Inspect's `eval()`) and re-judged by
B (`bedside-bench rejudge`) against the provider double; `bedside-bench review export` writes
the page; headless Chromium (Selenium, Debian's chromium and chromium-driver) loads it from
disk, marks items with clicks and with keys, reloads and finds the marks kept, downloads
labels.json; `bedside-bench review score` and `report --labels` then give each judge's
accuracy, equal to a computation from the case files here (tests/judge_scripts.py)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bedside_bench.doubles import ProviderDouble, scripted_answer
from tests.e2e_helpers import bedside_bench_in_process, output, run_console_script, run_tool
from tests.independent import read_cases
from tests.judge_scripts import JUDGE_A, JUDGE_B, STRONG, answer_then_rejudge, decision, wire
from tests.release_factory import write_release

BENCHMARKS = ("drug_safety", "safety_diagnostic")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
# CI installs the browser: there a missing one is a failure, not a skip
REQUIRED = os.environ.get("BEDSIDE_BENCH_REQUIRE_BROWSER") == "1"

pytestmark = pytest.mark.slow


def browser_or_skip() -> tuple[str, str]:
    if CHROMIUM and DRIVER:
        return CHROMIUM, DRIVER
    if REQUIRED:
        pytest.fail(
            "chromium and chromedriver are required (apt-get install chromium chromium-driver)"
        )
    pytest.skip("needs chromium and chromedriver (apt-get install chromium chromium-driver)")


def cli(*args: str, env: dict[str, str], cwd: Path, process: bool = False) -> Any:
    """`bedside-bench ARGS`, in this process; `process=True` in a process of its own."""
    result = (run_console_script if process else run_tool)("bedside-bench", *args, env=env, cwd=cwd)
    assert result.returncode == 0, output(result)
    return result


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    root = tmp_path_factory.mktemp("review")
    write_release(root / "release", per_benchmark=3)
    with ProviderDouble() as server:
        env = answer_then_rejudge(root, root / "release", BENCHMARKS, server)
        yield root, env


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    chromium, driver_path = browser_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    downloads = Path(os.environ.get("TMPDIR", "/tmp")) / f"bb-review-dl-{os.getpid()}"
    downloads.mkdir(exist_ok=True)
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900"):
        options.add_argument(arg)
    options.add_experimental_option(
        "prefs",
        {"download.default_directory": str(downloads), "download.prompt_for_download": False},
    )
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.downloads = downloads  # type: ignore[attr-defined]
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(downloads, ignore_errors=True)


def item_facts(release: Path) -> dict[str, tuple[str, int, str]]:
    """item id -> (benchmark, points, the strong model's answer to its case)."""
    facts = {}
    for name in BENCHMARKS:
        for case in read_cases(release, name):
            answer = scripted_answer(wire(STRONG), case["prompt"])
            for item in case["rubric_items"]:
                facts[item["item_id"]] = (case["case_id"], item["points"], answer)
    return facts


def expected_accuracy(
    labels: list[dict[str, Any]], judge: str, facts: dict[str, Any], resamples: int, seed: int
) -> dict[str, Any]:
    """Accuracy and its case bootstrap, computed from the case files and the judge script."""
    per_case: dict[str, list[bool]] = {}
    for label in labels:
        if label["matched"] is None:
            continue
        case_id, points, answer = facts[label["item_id"]]
        per_case.setdefault(case_id, []).append(
            decision(judge, answer, label["item_id"], points) == label["matched"]
        )
    correct = sum(sum(v) for v in per_case.values())
    n = sum(len(v) for v in per_case.values())
    # one row per case, in case id order (the documented resampling unit and order)
    table = np.array([[sum(per_case[c]), len(per_case[c])] for c in sorted(per_case)], dtype=float)
    picks = np.random.default_rng(seed).integers(0, len(table), size=(resamples, len(table)))
    boot = table[picks, 0].sum(axis=1) / table[picks, 1].sum(axis=1)
    return {
        "correct": correct,
        "n": n,
        "accuracy": correct / n,
        "ci95": [float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))],
    }


def test_review_page_marked_in_a_browser_scores_each_judge(
    judged: tuple[Path, dict[str, str]], browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    root, env = judged
    exported = cli(
        "review",
        "export",
        str(root / "logs"),
        str(root / "rejudged"),
        "-o",
        str(tmp_path / "review"),
        "--items",
        "10",
        "--seed",
        "3",
        env=env,
        cwd=tmp_path,
        process=True,  # `bedside-bench review` as a user starts it
    )
    assert "10 items of" in exported.stdout
    page = tmp_path / "review" / "review.html"
    html = page.read_text()
    # blind: no judge named (the answer model's name starts like judge A's)
    assert f'"{JUDGE_A}"' not in html and JUDGE_B not in html

    browser.get(page.as_uri())
    rows = browser.find_elements(By.CSS_SELECTOR, "li.item")
    assert len(rows) == 10
    browser.find_element(By.ID, "reviewer").send_keys("Dr Test")
    # clicks on the first three rows, keys for the next four (j moves past the clicked row)
    plan = ["matched", "not_matched", "unsure", "matched", "not_matched", "not_matched", "unsure"]
    for row, choice in zip(rows[:3], plan[:3], strict=True):
        row.find_element(By.CSS_SELECTOR, f'button[data-choice="{choice}"]').click()
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    for choice in plan[3:]:
        body.send_keys({"matched": "1", "not_matched": "2", "unsure": "3"}[choice])
    rows[0].find_element(By.CSS_SELECTOR, ".note input").send_keys("borderline")
    browser.save_screenshot(str(tmp_path / "review-1400.png"))

    browser.refresh()  # the marks are kept across a reload
    rows = browser.find_elements(By.CSS_SELECTOR, "li.item")
    pressed = [
        next(
            (
                b.get_attribute("data-choice")
                for b in r.find_elements(By.CSS_SELECTOR, "button")
                if b.get_attribute("aria-pressed") == "true"
            ),
            None,
        )
        for r in rows
    ]
    assert pressed == [*plan, None, None, None]
    assert browser.find_element(By.ID, "progress").text == "7 of 10 items marked"
    assert browser.find_element(By.ID, "reviewer").get_attribute("value") == "Dr Test"
    # a key after the reload marks the first unmarked item, never an earlier mark
    browser.find_element(By.TAG_NAME, "body").send_keys("2")
    plan.append("not_matched")
    assert browser.find_element(By.ID, "progress").text == "8 of 10 items marked"

    browser.find_element(By.ID, "download").click()
    downloaded = browser.downloads / "labels.json"
    deadline = time.monotonic() + 20
    while not downloaded.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    labels_file = tmp_path / "labels.json"
    shutil.move(str(downloaded), labels_file)
    labels = json.loads(labels_file.read_text())
    assert labels["format"] == "bedside-bench-labels-v1" and labels["reviewer"] == "Dr Test"
    assert [x["matched"] for x in labels["labels"]] == [
        True,
        False,
        None,
        True,
        False,
        False,
        None,
        False,
    ]
    assert labels["labels"][0]["note"] == "borderline"
    manifest = json.loads((tmp_path / "review" / "review_items.json").read_text())
    assert [x["item_id"] for x in labels["labels"]] == [x["item_id"] for x in manifest["items"][:8]]

    cli(
        "review",
        "score",
        str(labels_file),
        str(root / "logs"),
        str(root / "rejudged"),
        "-o",
        str(tmp_path / "scored"),
        "--resamples",
        "500",
        "--seed",
        "5",
        env=env,
        cwd=tmp_path,
    )
    document = json.loads((tmp_path / "scored" / "review.json").read_text())
    facts = item_facts(root / "release")
    assert set(document["judges"]) == {JUDGE_A, JUDGE_B}
    for judge in (JUDGE_A, JUDGE_B):
        want = expected_accuracy(labels["labels"], judge, facts, 500, 5)
        got = document["judges"][judge]
        assert (got["correct"], got["n"], got["unsure"]) == (want["correct"], want["n"], 2)
        assert document["skipped"] == []
        assert got["accuracy"] == pytest.approx(want["accuracy"])
        assert got["ci95"] == pytest.approx(want["ci95"])
    assert document["labels"]["items"] == 8 and document["labels"]["unsure_or_tied"] == 2

    # the report in this process too (review export above is the process of its own)
    report = bedside_bench_in_process(
        "report",
        str(root / "logs"),
        str(root / "rejudged"),
        "-o",
        str(tmp_path / "report"),
        "--labels",
        str(labels_file),
        "--resamples",
        "200",
    )
    assert report.returncode == 0, output(report)
    text = (tmp_path / "report" / "report.md").read_text()
    assert "## Judge vs physicians" in text
    assert "8 rubric items of" in text


def test_labels_for_items_not_in_the_logs_are_refused(
    judged: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    root, _ = judged
    bogus = tmp_path / "labels.json"
    bogus.write_text(
        json.dumps(
            {
                "format": "bedside-bench-labels-v1",
                "reviewer": "r",
                "labels": [
                    {
                        "case_id": "no-such-case",
                        "item_id": "x_0",
                        "answer_model": STRONG,
                        "epoch": 1,
                        "matched": True,
                        "note": "",
                    }
                ],
            }
        )
    )
    # in this process, as `review score` in the browser test
    result = bedside_bench_in_process(
        "review", "score", str(bogus), str(root / "logs"), "-o", str(tmp_path / "out")
    )
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"bedside-bench review: error: reviewer 'r': case no-such-case of {STRONG}, epoch 1: "
        "no judged answer in the logs"
    )
    assert not (tmp_path / "out" / "review.json").exists()
