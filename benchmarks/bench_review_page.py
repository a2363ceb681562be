"""How long the review page takes to open with one long answer: headless Chromium (Debian's
chromium and chromium-driver, through Selenium) loads a page whose answer is N characters of
one shape (`SHAPES`: words, or a run without a break of Latin letters, mixed directions,
combining marks, Thai, emoji, bidi controls), until the first item is marked by a click.

Target (issue: the review page shows what the judge read, fast): any answer up to a few MB,
with or without breaks, opens in seconds (before: 200,000 characters without a break took
25-52 s, 1 MB more than 2 minutes, the same size as words 1 s). `--page-template FILE` renders
with another page template (an earlier `review_page.html`, from `git show`) for a before/after
comparison.

    python benchmarks/bench_review_page.py [--sizes 200000 1000000 3000000] [--shapes words thai]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from bedside_bench.review import page as review_page
from bedside_bench.review.page import page_data, render_page
from bedside_bench.review.records import AnsweredCase, ReviewItem, ReviewSource


def _cycle(alphabet: str, n: int) -> str:
    """`n` characters of `alphabet` in a fixed scrambled order (no run of one repeated letter,
    which a browser shapes once and lays out far faster than real text)."""
    return "".join(alphabet[(i * 7 + i // len(alphabet)) % len(alphabet)] for i in range(n))


SHAPES = {
    "words": lambda n: ("word " * (n // 5 + 1))[:n],
    "unbroken": lambda n: _cycle("abcdefghijklmnopqrstuvwxyz0123456789", n),
    # Latin, Hebrew and digits mixed: a bidi run every few characters
    "mixed-direction": lambda n: _cycle("ab1\u05d0\u05d1c2\u05d2", n),
    "combining": lambda n: _cycle("a\u0301e\u0308o\u0303", n),
    "thai": lambda n: _cycle("".join(chr(c) for c in range(0x0E01, 0x0E2F)), n),
    "emoji": lambda n: _cycle("".join(chr(c) for c in range(0x1F600, 0x1F650)), n // 2),
    # a right-to-left override every 1,000 characters
    "bidi-controls": lambda n: ("\u202e" + _cycle("abcdefgh", 999)) * (n // 1000),
    # a right-to-left mark every 4 characters
    "marks": lambda n: "abc\u200f" * (n // 4),
}


def page(answer: str, folder: Path) -> Path:
    source = ReviewSource()
    items = tuple(ReviewItem(f"c1_{n}", f"item {n}", 3 - n) for n in range(3))
    case = AnsweredCase("m", "drug_safety", "c1", 1, "the question", answer, items)
    source.cases[case.key] = case
    data = page_data(source, [(*case.key, i.item_id) for i in items], "timing")
    path = folder / "review.html"
    path.write_text(render_page(data), encoding="utf-8")
    return path


def open_seconds(driver: object, path: Path, timeout: float) -> float:
    """From the request for the page to a click's mark shown (layout done)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    start = time.perf_counter()
    driver.get(path.as_uri())  # type: ignore[attr-defined]
    wait = WebDriverWait(driver, timeout)
    button = wait.until(
        lambda d: d.find_element(By.CSS_SELECTOR, 'li.item button[data-choice="matched"]')
    )
    button.click()
    wait.until(lambda d: d.find_element(By.ID, "progress").text.startswith("1 of"))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200_000, 1_000_000, 3_000_000])
    parser.add_argument("--shapes", nargs="+", choices=list(SHAPES), default=list(SHAPES))
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--page-template", type=Path, help="another review_page.html to render")
    args = parser.parse_args()
    if args.page_template is not None:
        text = args.page_template.read_text(encoding="utf-8")
        review_page.template = lambda: text  # type: ignore[method-assign]
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    driver.set_page_load_timeout(args.timeout)
    driver.set_script_timeout(args.timeout)
    try:
        with tempfile.TemporaryDirectory() as folder:
            for shape in args.shapes:
                for size in args.sizes:
                    path = page(SHAPES[shape](size), Path(folder))
                    try:
                        took = f"{open_seconds(driver, path, args.timeout):7.1f} s"
                    except Exception as ex:  # a timeout is a result here
                        took = f"over {args.timeout:.0f} s ({type(ex).__name__})"
                    print(f"{shape:>9} {size:>10,} characters: {took}", flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
