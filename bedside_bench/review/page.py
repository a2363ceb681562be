"""The review page: one self-contained HTML file (no network, no server) for clinicians.

It shows case by case the prompt, the answer and each selected rubric item with its points,
never a judge's decision; the reviewer marks each item matched / not matched / unsure (keys
1, 2, 3; j / k to move), with an optional note. Progress is kept in the browser's localStorage
under the review's id, so a reload or a closed tab loses nothing; "Download labels" saves
`labels-<reviewer>-<review id>.json` in the format `bedside-bench review score` reads
(`review/labels.py`), listing the page's items so the labels prove what they label.

Texts are shown as the judge read them: the page marks every invisible or direction-changing
character (bidi controls, zero-width and tag characters, controls) visibly instead of applying
it, and gives a long run without a break a break opportunity every few dozen characters, so an
answer of a few MB, with or without breaks, opens in seconds (`benchmarks/bench_review_page.py`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from importlib.resources import files

from bedside_bench.documents.review import PageCase, PageData, PageItem
from bedside_bench.review.labels import LABELS_FORMAT, review_digest
from bedside_bench.review.records import ItemKey, ReviewSource

PAGE_FORMAT = "bedside-bench-review-v1"
TEMPLATE_FILE = "review_page.html"


def page_data(source: ReviewSource, items: Sequence[ItemKey], title: str) -> PageData:
    """What the page shows, case by case in presentation order (no decision of any judge)."""
    cases: dict[tuple[str, str, int], list[PageItem]] = {}
    for key in items:
        case = source.cases[key[:3]]
        item = next(i for i in case.items if i.item_id == key[3])
        cases.setdefault(case.key, []).append(
            PageItem(item_id=item.item_id, text=item.text, points=item.points)
        )
    shown = [
        PageCase(
            answer_model=case.answer_model,
            benchmark=case.benchmark,
            case_id=case.case_id,
            epoch=case.epoch,
            answer_sha256=case.answer_sha256,
            prompt=case.prompt,
            answer=case.answer,
            items=chosen,
        )
        for case, chosen in ((source.cases[k], v) for k, v in cases.items())
    ]
    entries = [
        (c.answer_model, c.case_id, c.epoch, i.item_id, c.benchmark, c.answer_sha256)
        for c in shown
        for i in c.items
    ]
    return PageData(
        format=PAGE_FORMAT,
        labels_format=LABELS_FORMAT,
        review_id=review_digest(entries),
        title=title,
        cases=shown,
    )


def _script_json(data: PageData) -> str:
    """JSON safe inside a <script> element: every '<' escaped, so no text can close it."""
    return json.dumps(data.model_dump(), ensure_ascii=True).replace("<", "\\u003c")


@cache
def template() -> str:
    """The page, with `__TITLE__` and `__DATA__` to fill in (shipped as package data)."""
    return files("bedside_bench.review").joinpath(TEMPLATE_FILE).read_text(encoding="utf-8")


def render_page(data: PageData) -> str:
    """The template with its two placeholders filled in one pass: a title that contains a
    placeholder's name stays text."""
    fills = {"__TITLE__": _html_text(data.title), "__DATA__": _script_json(data)}
    return re.sub("__TITLE__|__DATA__", lambda m: fills[m.group(0)], template())


def _html_text(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )
