"""Text from a model, or from a data file, made safe to show: one printable, bounded line.

A model's text (a judge reply, an item id it invented, an answer quoted as evidence) reaches
exception messages, the transcript, the log and the terminal. Raw, it can hold lone surrogates
(which no UTF-8 writer encodes, so a log or a terminal display raises), control characters
(terminal escapes, line breaks that forge log lines) and megabytes. Every such text goes
through `printable` before it is put into a message; the text itself, where kept as data, is
kept by the caller (cut, see `judge.RAW_REPLY_LIMIT`) and made encodable with `encodable`.
"""

from __future__ import annotations

import re
import unicodedata

MAX_SHOWN_CHARS = 1_000

# the characters a terminal, a Markdown file or a page must never be handed raw: C0 controls
# (line breaks, ESC), DEL and C1 controls (U+0085 is a line break too), the Unicode line and
# paragraph separators, lone surrogates (no UTF-8 writer encodes them), and the bidi controls
# (embeddings and overrides U+202A-U+202E, isolates U+2066-U+2069, the marks U+200E, U+200F,
# U+061C), which reorder what is shown around them
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
UNSHOWABLE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff{BIDI_CONTROLS}]")
# the same, less the line feed: what a text of several lines may not hold
UNSHOWABLE_IN_LINES = re.compile(
    f"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff{BIDI_CONTROLS}]"
)


def _escaped(char: str) -> str:
    """A character as it may be shown: itself when printable (or a plain space), otherwise its
    Python escape (`\\n`, `\\x1b`, `\\u200b`, `\\ud800`), which is ASCII."""
    return char if char == " " or char.isprintable() else ascii(char)[1:-1]


def printable(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """`text` as one printable line of at most `limit` characters plus a count of the rest.

    Line breaks, control and format characters, lone surrogates and unassigned code points are
    written as escapes, so the result encodes to UTF-8, prints as one line and moves no cursor.
    The cost is bounded by `limit`, not by the length of `text`.
    """
    line = "".join(_escaped(char) for char in text[:limit])
    if len(line) <= limit and len(text) <= limit:
        return line
    return f"{line[:limit]}... ({len(text)} characters in all)"


def unshowable_characters(text: str) -> list[str]:
    """The characters of `text` that `UNSHOWABLE` names, each once, as their escapes."""
    return list(dict.fromkeys(_escaped(m.group()) for m in UNSHOWABLE.finditer(text)))


def printable_lines(text: str) -> str:
    """`text` (a report's table, a paragraph of several lines) with its line breaks kept and
    every other character of `UNSHOWABLE` written as its escape (`\\x1b`, `\\u202e`): no
    terminal escape, bidi reordering or lone surrogate reaches the screen or a file, and the
    rest (accents, symbols, any printable script) is left as it is. Unbounded, unlike
    `printable`: the caller's text is its own, only what it quotes came from outside."""
    return UNSHOWABLE_IN_LINES.sub(lambda m: _escaped(m.group()), text)


def encodable(text: str) -> str:
    """`text` with every lone surrogate written as its escape (`\\ud800`); the rest unchanged.

    For model text kept as data (a raw reply in the score metadata), which a JSON writer that
    encodes UTF-8 (pydantic's) would otherwise refuse, taking the whole log with it.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


# characters that show nothing: a text of only these (and whitespace) is blank
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Me"})
BLANK_CHARACTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def is_blank(text: str) -> bool:
    """True when `text` shows nothing: only whitespace, zero-width, control, combining or
    blank characters (a prompt of zero-width spaces passes `str.strip`)."""
    return all(
        char.isspace()
        or char in BLANK_CHARACTERS
        or unicodedata.category(char) in INVISIBLE_CATEGORIES
        for char in text
    )
