"""The physician review loop end to end: answers judged by A (Inspect's `eval()`) and re-judged by
B (`bedside-bench rejudge`) against the provider double; `bedside-bench review export` writes
the page; headless Chromium (Selenium, Debian's chromium and chromium-driver) loads it from
disk, marks items as a reviewer does (a name typed, a click, keys, a note), reloads and finds
the marks kept, downloads the reviewer's labels file; `bedside-bench review score` and `report
--labels` then give each judge's accuracy, equal to a computation from the case files here
(tests/judge_scripts.py). A page with hostile answers (1 MB without a break, a right-to-left
override) opens and shows what the judge read."""

from __future__ import annotations

import json
import os
import shutil
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
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    def press(*keys: str) -> None:
        """Keys to whatever has the focus, as a reviewer types them."""
        ActionChains(browser).send_keys(*keys).perform()

    def click(element: Any) -> None:
        """Scrolled to (out from under the page's sticky header), then clicked."""
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()

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
    manifest = json.loads((tmp_path / "review" / "review_items.json").read_text())
    answers = len({(x["answer_model"], x["case_id"], x["epoch"]) for x in manifest["items"]})
    page = tmp_path / "review" / "review.html"
    assert exported.stdout == (
        f"10 items of {answers} answers ({10 / answers:.1f} items per answer; "
        f"{manifest['disagreements']} where judges or passes disagree) -> {page}\n"
    )
    html = page.read_text()
    # blind: no judge named (the answer model's name starts like judge A's)
    assert f'"{JUDGE_A}"' not in html and JUDGE_B not in html

    browser.get(page.as_uri())
    rows = browser.find_elements(By.CSS_SELECTOR, "li.item")
    assert len(rows) == 10
    name = browser.find_element(By.ID, "reviewer")

    def progress() -> str:
        return str(browser.find_element(By.ID, "progress").text)

    def assert_progress(expected: str) -> None:
        """The page's count once it shows `expected` (a loaded machine may render late); its
        last text if it never does."""
        try:
            WebDriverWait(browser, PAGE_WAIT).until(lambda _: progress() == expected)
        except TimeoutException:
            assert progress() == expected

    # typing in a field never marks: "2" goes into the name
    click(name)
    press("Dr Test2")
    assert_progress("0 of 10 items marked")
    press(Keys.BACKSPACE, Keys.ENTER)  # Enter: back to marking
    press("1")  # the first item
    # a click marks its row, and the keys go on from the next unmarked item, never over it
    click(rows[1].find_element(By.CSS_SELECTOR, 'button[data-choice="not_matched"]'))
    press("3")  # the third item, not the clicked second
    click(rows[0].find_element(By.CSS_SELECTOR, ".note input"))
    press("borderline 2", Keys.ESCAPE)  # in the note "2" types; Esc: back to marking
    press("1", "2", "2")
    click(rows[6].find_element(By.CSS_SELECTOR, 'button[data-choice="unsure"]'))
    plan = ["matched", "not_matched", "unsure", "matched", "not_matched", "not_matched", "unsure"]
    assert_progress("7 of 10 items marked")
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
    assert_progress("7 of 10 items marked")
    assert browser.find_element(By.ID, "reviewer").get_attribute("value") == "Dr Test"
    # a key after the reload marks the first unmarked item, never an earlier mark
    press("2")
    plan.append("not_matched")
    assert_progress("8 of 10 items marked")

    browser.find_element(By.ID, "download").click()
    # named after the reviewer and the review
    downloaded = browser.downloads / f"labels-dr-test-{manifest['review_id']}.json"
    # Chrome writes the file under another name and renames it when whole
    try:
        WebDriverWait(browser, PAGE_WAIT).until(lambda _: downloaded.exists())
    except TimeoutException:
        raise AssertionError(f"no download named {downloaded.name}") from None
    labels_file = tmp_path / "labels.json"
    shutil.move(str(downloaded), labels_file)
    labels = json.loads(labels_file.read_text())
    assert labels["format"] == "bedside-bench-labels-v2" and labels["reviewer"] == "Dr Test"
    assert labels["review_id"] == manifest["review_id"]
    assert [
        {k: x[k] for k in ("answer_model", "case_id", "epoch", "item_id")}
        for x in labels["review_items"]
    ] == manifest["items"]
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
    assert labels["labels"][0]["note"] == "borderline 2"
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
    assert document["review_id"] == manifest["review_id"]

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
    from tests.review_files import write_labels

    row = {
        "answer_model": STRONG,
        "case_id": "no-such-case",
        "epoch": 1,
        "item_id": "x_0",
        "benchmark": "drug_safety",
        "answer_sha256": "0" * 64,
        "matched": True,
        "note": "",
    }
    bogus = write_labels(tmp_path / "labels.json", "r", [row])
    # in this process, as `review score` in the browser test
    result = bedside_bench_in_process(
        "review", "score", str(bogus), str(root / "logs"), "-o", str(tmp_path / "out")
    )
    assert result.returncode == 1
    assert result.stderr == (
        f"bedside-bench review: error: {bogus}: field labels.0: reviewer 'r': case no-such-case "
        f"of {STRONG}, epoch 1: no judged answer in the logs\n"
    )
    assert not (tmp_path / "out" / "review.json").exists()


# --------------------------------------------------------------------------------------------
# hostile answers: 1 MB without a break, and a right-to-left override

# Latin, Hebrew, digits and combining accents without a space: a direction change every few
# characters and no break opportunity, the layout a browser takes minutes over
UNBROKEN = "".join("ab1\u05d0\u0301c\u05d1\u0308"[(i * 7 + i // 8) % 8] for i in range(1_000_000))
OVERRIDE = "Give aspirin. \u202eDO NOT give heparin\u202c today.\nSecond line."
# generous: the page opens in about a second (benchmarks/bench_review_page.py); a busy CI
# machine may take many times that, and the layout the page avoids took minutes
PAGE_WAIT = 180


def test_a_hostile_answer_opens_and_shows_what_the_judge_read(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.review_files import judged_log

    judged_log(tmp_path / "logs" / "hostile.eval", {"c1": UNBROKEN, "c2": OVERRIDE})
    exported = bedside_bench_in_process(
        "review", "export", str(tmp_path / "logs"), "-o", str(tmp_path / "review")
    )
    assert exported.returncode == 0, output(exported)
    browser.set_page_load_timeout(PAGE_WAIT)
    browser.get((tmp_path / "review" / "review.html").as_uri())
    wait = WebDriverWait(browser, PAGE_WAIT)
    # ready: a click on the long answer's first item is marked
    first = wait.until(
        lambda d: d.find_element(By.CSS_SELECTOR, 'li.item button[data-choice="matched"]')
    )
    first.click()
    wait.until(lambda d: d.find_element(By.ID, "progress").text == "1 of 6 items marked")

    long_answer, override = browser.find_elements(By.CSS_SELECTOR, ".texts .text:nth-child(2) pre")
    shown = long_answer.get_attribute("textContent")
    assert UNBROKEN.startswith(shown.split("\u2026")[0]) and len(shown) > 10_000
    # the override is shown as its code point, where it is, and never applied
    text = override.get_attribute("textContent")
    assert text == ("Give aspirin. U+202E RLODO NOT give heparinU+202C PDF today.\nSecond line.")
    marks = override.find_elements(By.CSS_SELECTOR, ".hidden-char")
    assert [m.text for m in marks] == ["U+202E RLO", "U+202C PDF"]
    # read left to right as written: "D" of "DO NOT" left of the final "n" of "heparin"
    left_of = browser.execute_script(
        """const pre = arguments[0];
           const node = [...pre.querySelectorAll("div")].flatMap(d => [...d.childNodes])
             .find(n => n.nodeType === 3 && n.data.startsWith("DO NOT"));
           const at = (i) => { const r = document.createRange(); r.setStart(node, i);
                               r.setEnd(node, i + 1); return r.getBoundingClientRect().left; };
           return [at(0), at(node.data.indexOf("heparin") + 6)];""",
        override,
    )
    assert left_of[0] < left_of[1]
    warning = override.find_element(By.XPATH, "preceding-sibling::p[@class='warn']")
    assert (
        warning.text == "2 characters that show nothing or turn text around, marked where they are"
    )
