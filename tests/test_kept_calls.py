"""The index of kept calls as bookkeeping that never costs an answer (fast; the runs that
inject each kind of damage are in tests/test_kept_calls_faults_e2e.py): a torn last line is a
killed process and is skipped quietly, damage elsewhere is warned about once, a damaged line
can never name a file outside the cache, and what this process kept is released even when
its index is gone."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from inspect_ai.model import cache_path

from bedside_bench.calls import kept_calls

KEY = "0123456789abcdef0123456789abcdef"
MODEL = "openai/gpt-4.1-mini"


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(kept_calls, "_warned", set())
    monkeypatch.setattr(kept_calls, "_kept_here", {})
    monkeypatch.setattr(kept_calls, "active_task_id", lambda: "task-A")
    monkeypatch.setattr(kept_calls, "active_sample_key", lambda: ("case-1", 1))
    return kept_calls.index_path("task-A")


class Entry:
    """What `keep` reads of Inspect's CacheEntry."""

    def __init__(self, key: str) -> None:
        self.model = MODEL
        self.key = key


def line(sample: str, key: str) -> str:
    return kept_calls.KeptCall(sample=sample, epoch=1, model=MODEL, key=key).model_dump_json()


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == kept_calls.__name__]


def test_a_torn_last_line_is_skipped_quietly(index: Path, caplog: pytest.LogCaptureFixture) -> None:
    index.parent.mkdir(parents=True)
    index.write_text(line("case-1", KEY) + "\n" + line("case-2", KEY)[:20])
    assert [c.sample for c in kept_calls.kept("task-A")] == ["case-1"]
    assert warnings_of(caplog) == []


def test_damage_before_the_last_line_is_warned_about_once_naming_the_index(
    index: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    index.parent.mkdir(parents=True)
    index.write_bytes(b"\xff\xfe{\n" + line("case-1", KEY).encode() + b"\n\x00\x00\n")
    assert [c.sample for c in kept_calls.kept("task-A")] == ["case-1"]
    assert [c.sample for c in kept_calls.kept("task-A")] == ["case-1"]
    (warning,) = warnings_of(caplog)
    assert str(index) in warning and "lines that are not kept calls" in warning


def test_a_damaged_line_never_names_a_file_outside_the_cache(index: Path, tmp_path: Path) -> None:
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    index.parent.mkdir(parents=True)
    bad = line("case-1", KEY).replace(KEY, "../../../../precious.txt")
    index.write_text(bad + "\n")
    assert kept_calls.kept("task-A") == []
    kept_calls.release("task-A", [("case-1", 1)])
    assert outside.read_text() == "keep me"


def test_what_this_process_kept_is_released_even_with_its_index_gone(index: Path) -> None:
    entry = cache_path(MODEL) / KEY
    entry.parent.mkdir(parents=True)
    entry.write_bytes(b"a reply")
    kept_calls.keep(Entry(KEY))  # type: ignore[arg-type]
    assert index.exists()
    index.unlink()  # the index deleted while the run goes on
    assert kept_calls.release("task-A", [("case-1", 1)]) == 1
    assert not entry.exists()


def test_an_index_that_cannot_be_written_drops_the_entry(
    index: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A file where the index folder should be: the reply is not kept (its entry removed, so
    nothing outlives the run unlisted), one warning names the path, nothing is raised."""
    caplog.set_level(logging.WARNING)
    index.parent.parent.mkdir(parents=True, exist_ok=True)
    index.parent.write_text("not a folder")
    entry = cache_path(MODEL) / KEY
    entry.parent.mkdir(parents=True)
    entry.write_bytes(b"a reply")
    kept_calls.keep(Entry(KEY))  # type: ignore[arg-type]
    kept_calls.keep(Entry(KEY))  # type: ignore[arg-type]
    assert not entry.exists()
    (warning,) = warnings_of(caplog)
    assert str(index.parent) in warning and "every case is scored as usual" in warning
