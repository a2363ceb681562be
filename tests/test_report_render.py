"""Rendering report blocks (`report/render.py`): text from a log shows exactly as written in
Markdown and HTML, never as markup; expected output written out by hand."""

from __future__ import annotations

import pytest

from bedside_bench.report.document import Block, Bullets, Figure, Heading, Paragraph, Table
from bedside_bench.report.render import md_text, to_html, to_markdown


@pytest.mark.parametrize(
    ("text", "markdown"),
    [
        ("judge_model openai/gpt-5.4-mini", "judge_model openai/gpt-5.4-mini"),  # plain words
        ("*bold* <b> & a|b ~x~", r"\*bold\* \<b\> \& a\|b \~x\~"),
        ("_emphasis_ snake_case", r"\_emphasis\_ snake_case"),
        ("[0.470, 0.553]", "[0.470, 0.553]"),  # a bracket alone is no link
        ("[click](javascript:x) ![img](y)", r"[click\](javascript:x) \![img\](y)"),
        ("back\\slash", r"back\\slash"),
        ("run `inspect eval-retry` now", "run `inspect eval-retry` now"),  # a code span
        ("a `x|y` cell", r"a \`x\|y\` cell"),  # a pipe would split a table cell
        ("unpaired ` tick", r"unpaired \` tick"),
        ("# not a heading", r"\# not a heading"),
        ("- not a list", r"\- not a list"),
        ("1. not a list", r"1\. not a list"),
        ("  many   spaces\nand a break", "many spaces and a break"),
    ],
)
def test_md_text_escapes_every_markup_character(text: str, markdown: str) -> None:
    assert md_text(text) == markdown


def test_markdown_blocks() -> None:
    blocks: list[Block] = [
        Heading(2, "Scores"),
        Paragraph("Mean of *all* cases."),
        Bullets(("one", "two_")),
        Table(("model", "score"), (("a|b", "0.5"), ("c", ""))),
        Figure(path="forest.png", alt="forest plot"),
    ]
    assert to_markdown(blocks) == (
        "## Scores\n\n"
        "Mean of \\*all\\* cases.\n\n"
        "- one\n- two\\_\n\n"
        "| model | score |\n|---|---|\n| a\\|b | 0.5 |\n| c |   |\n\n"
        "![forest plot](forest.png)\n"
    )


def test_html_escapes_text_and_embeds_the_figure() -> None:
    blocks: list[Block] = [
        Heading(1, "<script>x</script>"),
        Bullets(("run `inspect eval-retry`",), warning=True),
        Table(("a",), (("d&e",),), long_values=True),
        Figure(path="forest.png", alt='say "hi"', png=b"\x89PNG"),
    ]
    page = to_html(blocks, title="T <1>")
    assert "<title>T &lt;1&gt;</title>" in page
    body = page[page.index("<body>\n") + len("<body>\n") : page.index("\n</body>")]
    assert body.split("\n") == [
        "<h1>&lt;script&gt;x&lt;/script&gt;</h1>",
        '<ul class="warnings"><li>run <code>inspect eval-retry</code></li></ul>',
        '<div class="table anywhere"><table><thead><tr><th>a</th></tr></thead>'
        "<tbody><tr><td>d&amp;e</td></tr></tbody></table></div>",
        '<figure><img alt="say &quot;hi&quot;" src="data:image/png;base64,iVBORw=="></figure>',
    ]
