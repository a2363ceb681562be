"""Property tests through the real loader: a valid case mutated in the ways data goes wrong
(line breaks around ids, lone surrogates, prompts and item texts of whitespace or zero-width
characters, any unicode anywhere) is either accepted or refused with named violations, each one
printable line; never a traceback. Data files that are not regular files (a FIFO, a folder)
are refused by name instead of hanging the loader."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bedside_bench.release.case import DatasetError, Violation, is_blank, validate_case
from bedside_bench.release.case_model import Case
from bedside_bench.release.dataset import load_release
from bedside_bench.release.sources import DataSource
from tests.release_factory import case_path, write_release
from tests.test_cases import CASE_ID, FILE, case

ANY_CHAR = st.characters(exclude_categories=())
INVISIBLE = st.sampled_from(
    [" ", "\t", "\n", "\r", "\u00a0", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u3000"]
    + ["\u2028", "\u2029", "\u3164", "\u2800", "\u0301", "\x00", "\u180e", "\U000e0020"]
)
BLANK_TEXT = st.lists(INVISIBLE, min_size=1, max_size=12).map("".join)
ANY_TEXT = st.lists(st.one_of(ANY_CHAR, INVISIBLE, st.just("\ud800")), max_size=30).map("".join)
AFFIX = st.sampled_from(["\n", "\r\n", " ", "\u200b", "\ud800", "\x00"])


def assert_named(violations: list[Violation]) -> None:
    """Every violation names its file and prints as one line that encodes to UTF-8."""
    assert violations
    for violation in violations:
        line = str(violation)
        assert line.startswith(f"{FILE}")
        assert line.isprintable(), ascii(line)
        line.encode("utf-8")
    str(DatasetError(violations)).encode("utf-8")


def check(value: Any) -> tuple[Case | None, list[Violation]]:
    return validate_case(
        value, file=FILE, expected_case_id=CASE_ID, expected_benchmark="drug_safety"
    )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    field=st.sampled_from(
        ["item_id", "case_id", "prompt", "text", "split", "benchmark", "key", "prompt-only"]
    ),
    mode=st.sampled_from(["append", "prepend", "replace", "blank"]),
    affix=AFFIX,
    text=ANY_TEXT,
    blank=BLANK_TEXT,
)
def test_a_mutated_case_is_accepted_or_refused_with_named_violations(
    field: str, mode: str, affix: str, text: str, blank: str
) -> None:
    value = json.loads(json.dumps(case()))
    item = value["rubric_items"][0]

    def mutate(old: str) -> str:
        return {
            "append": old + affix + text,
            "prepend": affix + text + old,
            "replace": text,
            "blank": blank,
        }[mode]

    if field == "item_id":
        item["item_id"] = mutate(item["item_id"])
    elif field == "text":
        item["text"] = mutate(item["text"])
    elif field == "key":
        item[mutate("note")] = "x"
    elif field == "prompt-only":
        value["prompt"] = blank
    else:
        value[field] = mutate(value[field])
    canonical, violations = check(value)
    if canonical is not None:
        assert violations == []
        # what was accepted is well formed: ids whole, text encodable, prompt visible
        assert not is_blank(canonical.prompt)
        json.dumps(canonical.json_object(), ensure_ascii=False).encode("utf-8")
        for accepted in canonical.rubric_items:
            assert accepted.item_id.strip() == accepted.item_id
            assert "\n" not in accepted.item_id
        return
    assert_named(violations)


@pytest.mark.parametrize(
    ("field", "mutation", "named"),
    [
        ("item_id", "item_0\n", "item item_0\\n, field rubric_items.0.item_id: item_id"),
        ("case_id", CASE_ID + "\n", "field case_id: case_id"),
        ("prompt", "\u200b\u200c\u2060", "field prompt: the prompt is empty"),
        ("prompt", " \u3164 \n\t", "field prompt: the prompt is empty"),
        (
            "prompt",
            "Dose?\ud800",
            "field prompt: holds a lone surrogate ('\\ud800' at character 5)",
        ),
        ("text", "\u200b", "field rubric_items.0.text: the item text is empty"),
    ],
)
def test_each_hole_is_a_named_violation(field: str, mutation: str, named: str) -> None:
    value = case()
    if field in ("item_id", "text"):
        value["rubric_items"][0] = {**value["rubric_items"][0], field: mutation}
    else:
        value[field] = mutation
    canonical, violations = check(value)
    assert canonical is None
    assert_named(violations)
    assert any(named in str(v) for v in violations), [str(v) for v in violations]


@pytest.fixture
def no_hang() -> Iterator[None]:
    """Fail (instead of hanging the test run) if the loader blocks on a file."""

    def hung(signum: int, frame: Any) -> None:
        raise TimeoutError("the loader blocked")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("kind", ["fifo", "folder"])
@pytest.mark.parametrize("which", ["registry", "manifest", "case"])
def test_a_data_file_that_is_not_a_regular_file_is_refused_by_name(
    tmp_path: Path, which: str, kind: str, no_hang: None
) -> None:
    cases = write_release(tmp_path, per_benchmark=1)
    first = cases["drug_safety"][0]
    path = {
        "registry": tmp_path / "registry.json",
        "manifest": tmp_path / "data" / "drug_safety" / "manifest.json",
        "case": case_path(tmp_path, first),
    }[which]
    if path.exists():
        path.unlink()
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    with pytest.raises(DatasetError) as caught:
        load_release(DataSource(root=tmp_path, label=str(tmp_path)))
    found = [str(v) for v in caught.value.violations]
    what = "a FIFO" if kind == "fifo" else "a folder"
    expected = {
        "registry": f"{path}: {what}, not a regular file; refused",
        "manifest": f"{path}: {what}, not a regular file; refused",
        "case": f"{path}: not a case file: cases/ holds only <case_id>.json files",
    }[which]
    assert expected in found, found
