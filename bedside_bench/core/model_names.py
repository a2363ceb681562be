"""A model name's provider, checked against the model APIs Inspect knows before any call.

Inspect refuses a misspelt provider (`antropic/claude-sonnet-4-6`) only once it creates the
model, with a ValueError and a traceback of some 40 lines. Every command that takes a model,
judge or grader name asks `unknown_provider` first, and stops with its one line (exit 1,
nothing bought) naming the closest provider Inspect knows.

A name is also refused when it could not be shown as it is (`unshowable`): a control character
(a line break, ESC, DEL, C1), a lone surrogate or a bidi control would reach every line, table
and log that names the model, where it forges lines, moves the cursor or reorders the text.

`model_name_problem` is the one check of a typed name (its form, then `unshowable`, then
`unknown_provider`), and `judge_name_problem` adds what a judge needs: a model that sends a
request (`mockllm` answers every call with one fixed text, `none` has nothing to call), so no
answer is bought for a judge that could never judge it.
"""

from __future__ import annotations

import difflib

from bedside_bench.core.safe_text import is_blank, printable, unshowable_characters

# how alike a typed provider and a known one must be to be offered as "did you mean"
# (difflib's ratio: `antropic`/`anthropic` 0.94, `opnai`/`openai` 0.91, `gogle`/`google` 0.91)
CLOSE_ENOUGH = 0.6


def closest(word: str, known: list[str]) -> str | None:
    """The known word most like `word` (letter case ignored), if any is close enough."""
    by_lower = {k.lower(): k for k in known}
    match = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=CLOSE_ENOUGH)
    return by_lower[match[0]] if match else None


def unshowable(name: str, what: str | None = None) -> str | None:
    """Why `name` cannot be a model (or judge) name, as one printable line naming the
    characters that could not be shown, after `what` when given; None when every character
    of it can be shown as it is."""
    found = unshowable_characters(name)
    if not found:
        return None
    reason = (
        f"a model name cannot hold control, bidi or surrogate characters "
        f"(it holds {printable(' '.join(found), limit=100)})"
    )
    return f"{what or 'model'} {printable(name, limit=200)}: {reason}"


# model APIs that can never judge a case named by text (a command line, `-T`, `-S`): why
CANNOT_JUDGE = {
    "mockllm": (
        "it answers every call with one fixed text, never a valid judge reply, so every case "
        "would fail; to try a run without keys use the provider doubles: `bedside-bench demo`, "
        "or `bedside-bench doubles serve` (docs/doubles.md)"
    ),
    "none": "it is Inspect's stand-in for no model and has nothing to call",
}
EXAMPLE = "openai/gpt-5.4-mini"


def model_name_problem(name: str, what: str, provider: bool = True) -> str | None:
    """Why `name` cannot be the model `what` names, as one printable line: empty or not of the
    form provider/model, not showable as it is, or (`provider`) of a provider Inspect does not
    know; None when Inspect could create it."""
    if (hostile := unshowable(name, what)) is not None:
        return hostile
    not_a_name = (
        f"{what} {printable(repr(name), 200)} is not an Inspect model name such as {EXAMPLE}"
    )
    # a space or a character that shows nothing (zero-width, a filler): `openai/\u200b` would
    # read as `openai/`, `openai/x ` as `openai/x`, and be sent as typed
    hidden = [c for c in name if c.isspace() or is_blank(c)]
    if hidden:
        shown = " ".join(dict.fromkeys("a space" if c == " " else ascii(c)[1:-1] for c in hidden))
        return f"{not_a_name}: it holds a space or a character that shows nothing ({shown})"
    api, sep, rest = name.partition("/")
    if not sep or not api or not rest or rest.endswith("/"):
        return not_a_name
    return unknown_provider(name, what) if provider else None


def judge_name_problem(name: str, what: str = "judge", provider: bool = True) -> str | None:
    """`model_name_problem`, and a model that can never judge (`CANNOT_JUDGE`)."""
    if (problem := model_name_problem(name, what, provider)) is not None:
        return problem
    why = CANNOT_JUDGE.get(name.partition("/")[0])
    return None if why is None else f"{what} {printable(name, 200)} cannot judge: {why}"


def unknown_provider(name: str, what: str | None = None) -> str | None:
    """Why Inspect would refuse `name` for its provider, as one line naming the closest one it
    knows (or, when none is close, all of them), after `what` and the name when given; None
    when Inspect knows the provider.

    A name without a provider is left to the caller's own check of the form; so is every name
    when this Inspect's registry cannot be read (Inspect then refuses a misspelt one itself,
    before any call)."""
    # lazy: the seam imports Inspect (seconds), and a command line parsed with a typo
    # (`sweep --modle`) must answer without it
    from bedside_bench.core.inspect_private import known_model_apis

    api, sep, rest = name.partition("/")
    if not sep or not api:
        return None
    known = known_model_apis(api)
    if known is None or api in known:
        return None
    near = closest(api, known)
    hint = (
        f"did you mean {printable(f'{near}/{rest}', limit=200)}?"
        if near is not None
        else f"Inspect knows {', '.join(known)}"
    )
    reason = f"Inspect knows no model provider '{printable(api, limit=100)}' ({hint})"
    return reason if what is None else f"{what} {printable(name, limit=200)}: {reason}"
