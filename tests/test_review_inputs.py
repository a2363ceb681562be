"""What `bedside-bench review score | export` do with what a user can type or a file can hold,
through the command's own `main(argv)` in this process: every refusal is one printable line
naming the file and the field, never a traceback; a labels file proves what it labels (the
answer's SHA-256, its review's id, the benchmark, one key once); reviewers are counted by name
whatever its case, spacing or invisible characters; the outputs are written whole or not at
all. Fast: one small log built with `tests/log_factory.py`, no eval, no subprocess."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.e2e_helpers import bedside_bench_in_process
from tests.log_factory import ANSWER_MODEL
from tests.review_files import entry_of, judged_log, labels_doc, review_id, rows_of

ANSWERS = {"c1": "Stop the NSAID.", "c2": "Give heparin."}
PREFIX = "bedside-bench review: error: "
MAX_MESSAGE = 2_100


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("review-inputs")
    judged_log(root / "logs" / "a.eval", ANSWERS)
    return root / "logs"


def base() -> dict[str, Any]:
    """A labels file as the review page writes it: every item of both answers on the page."""
    rows = rows_of(ANSWERS)
    rows[1]["matched"] = False
    return labels_doc("Dr A", rows)


def write(path: Path, doc: dict[str, Any] | str | bytes) -> Path:
    if isinstance(doc, dict):
        doc = json.dumps(doc)
    path.write_bytes(doc if isinstance(doc, bytes) else doc.encode("utf-8"))
    return path


def score(logs: Path, out: Path, *labels: Path) -> Any:
    return bedside_bench_in_process(
        "review", "score", *map(str, labels), str(logs), "-o", str(out), "--resamples", "20"
    )


def refusal(result: Any) -> str:
    """The one line a refused command printed, checked to be one printable, bounded line."""
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    line = result.stderr.removesuffix("\n")
    assert line.startswith(PREFIX) and "\n" not in line
    assert line.isprintable() and len(line) <= MAX_MESSAGE
    return line.removeprefix(PREFIX)


def relisted(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` with its review_items and review_id made consistent with its labels again: a
    forgery a careful editor would make."""
    doc["review_items"] = [entry_of(r) for r in doc["labels"]]
    doc["review_id"] = review_id(doc["review_items"])
    return doc


def without_sha(doc: dict[str, Any]) -> dict[str, Any]:
    del doc["labels"][0]["answer_sha256"]
    return doc


def other_benchmark(doc: dict[str, Any]) -> dict[str, Any]:
    for row in doc["labels"]:
        row["benchmark"] = "health_equity"
    return relisted(doc)


def case_id(value: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def change(doc: dict[str, Any]) -> dict[str, Any]:
        doc["labels"][0]["case_id"] = value
        return relisted(doc)

    return change


def reviewer(value: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def change(doc: dict[str, Any]) -> dict[str, Any]:
        doc["reviewer"] = value
        return doc

    return change


def other_review_id(doc: dict[str, Any]) -> dict[str, Any]:
    doc["review_id"] = review_id(doc["review_items"][:3])  # the id of a page of c1 only
    return doc


def earlier_format(doc: dict[str, Any]) -> dict[str, Any]:
    doc["format"] = "bedside-bench-labels-v1"
    return doc


SHA_C1 = base()["labels"][0]["answer_sha256"]
FORGED = "c9\x1b[2J\nbedside-bench review: error: forged"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            without_sha,
            "{file}: field labels.0.answer_sha256: Field required",
        ),
        (
            other_review_id,
            "{file}: field review_id: {other} is not the id of the review its review_items "
            "list ({id}); the file was edited or mixes two reviews",
        ),
        (
            other_benchmark,
            f"{{file}}: field labels.0.benchmark: reviewer 'Dr A': case c1 of {ANSWER_MODEL}, "
            "epoch 1: labelled as health_equity, but the logs' case is of drug_safety",
        ),
        (
            reviewer("\u200b \u2060"),
            "{file}: field reviewer: no name (only spaces or invisible characters)",
        ),
        (
            reviewer("Dr \ud800"),
            "{file}: field reviewer: not text: it holds a lone surrogate (\\ud800)",
        ),
        (
            case_id(FORGED),
            "{file}: field labels.0: reviewer 'Dr A': case c9\\x1b[2J\\nbedside-bench review: "
            f"error: forged of {ANSWER_MODEL}, epoch 1: no judged answer in the logs",
        ),
        (
            case_id("x" * 1_000_000),
            f"{{file}}: field labels.0: reviewer 'Dr A': case {'x' * 100}... (1000000 "
            f"characters in all) of {ANSWER_MODEL}, epoch 1: no judged answer in the logs",
        ),
        (
            earlier_format,
            "{file}: format 'bedside-bench-labels-v1' is from an earlier review page, whose "
            "labels do not list their review's items; export the review page again and label "
            "it there (format 'bedside-bench-labels-v2')",
        ),
    ],
    ids=[
        "no-answer-sha256",
        "another-review-id",
        "wrong-benchmark",
        "zero-width-name",
        "lone-surrogate-name",
        "escapes-and-a-forged-line",
        "1MB-case-id",
        "earlier-format",
    ],
)
def test_a_label_that_proves_nothing_is_refused_by_file_and_field(
    logs: Path,
    tmp_path: Path,
    change: Callable[[dict[str, Any]], dict[str, Any]],
    message: str,
) -> None:
    doc = change(base())
    labels = write(tmp_path / "labels.json", doc)
    out = tmp_path / "out"
    expected = message.format(
        file=labels, other=doc["review_id"], id=review_id(doc["review_items"])
    )
    assert refusal(score(logs, out, labels)) == expected
    assert not out.exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"format": "bedside-bench-labels-v2", "labels": '
            + "[" * 100_000
            + "]" * 100_000
            + "}",
            "{file}: its JSON nests too deeply for a labels file or a log",
        ),
        (
            json.dumps(base())[:-1] + ', "reviewer": "Dr B"}',
            "{file}: the key 'reviewer' is given twice in one JSON object",
        ),
        (
            json.dumps(base()).replace('"epoch": 1', '"epoch": ' + "9" * 5000, 1),
            "{file}: not readable JSON (Exceeds the limit (4300 digits) for integer string "
            "conversion: value has 5000 digits; use sys.set_int_max_str_digits() to increase "
            "the limit)",
        ),
        (
            json.dumps(base()).replace('"matched": true', '"matched": NaN', 1),
            "{file}: not a readable JSON labels file (NaN is not a JSON value)",
        ),
        (
            b"\xff\xfe{}",
            "{file}: not readable JSON ('utf-8' codec can't decode byte 0xff in position 0: "
            "invalid start byte)",
        ),
    ],
    ids=["nested-100000-deep", "duplicate-key", "huge-integer", "nan", "not-utf-8"],
)
def test_a_file_that_is_not_strict_json_is_refused_by_name(
    logs: Path, tmp_path: Path, text: str | bytes, message: str
) -> None:
    labels = write(tmp_path / "labels.json", text)
    assert refusal(score(logs, tmp_path / "out", labels)) == message.format(file=labels)


def test_labels_of_two_reviews_are_not_pooled(logs: Path, tmp_path: Path) -> None:
    one = write(tmp_path / "a.json", base())
    rows = rows_of({"c2": ANSWERS["c2"]})
    other = write(tmp_path / "b.json", labels_doc("Dr B", rows))
    assert refusal(score(logs, tmp_path / "out", one, other)) == (
        f"{other}: field review_id: labels of review {review_id(rows)}, but {one} holds labels "
        f"of review {base()['review_id']}; score the labels of one review at a time"
    )


def test_a_reviewer_is_one_person_however_the_name_is_written(logs: Path, tmp_path: Path) -> None:
    rows = rows_of(ANSWERS)
    page = [dict(r) for r in rows]
    files = [
        write(tmp_path / f"{n}.json", labels_doc(name, [rows[n]], page))
        for n, name in enumerate(["dr adv", "Dr  Adv\u200b", "\uff24\uff52 Adv", " DR ADV"])
    ]
    files.append(write(tmp_path / "other.json", labels_doc("Dr Other", [rows[0]], page)))
    result = score(logs, tmp_path / "out", *files)
    assert result.returncode == 0, result.stderr
    document = json.loads((tmp_path / "out" / "review.json").read_text())
    assert document["reviewers"] == ["Dr Other", "dr adv"]
    assert document["labels"]["items"] == 4
    assert document["review_id"] == review_id(page)
    # the same item from two spellings of one name is one reviewer labelling it twice
    again = write(tmp_path / "again.json", labels_doc("DR ADV", [rows[0]], page))
    assert refusal(score(logs, tmp_path / "out2", files[0], again)) == (
        f"{again}: field labels.0: reviewer 'dr adv' labelled item c1_0 of case c1 "
        f"({ANSWER_MODEL}, epoch 1) already in {files[0]}: field labels.0"
    )


@pytest.mark.parametrize(
    ("name", "scripts"),
    [
        ("Dr \u0391dv", "Latin and Greek"),  # Greek capital alpha
        ("\u0414r \u0410dv", "Latin and Cyrillic"),  # Cyrillic De and A
        ("\u0410\u03b1a", "Latin and Greek and Cyrillic"),
    ],
)
def test_a_name_mixing_lookalike_scripts_is_refused(
    logs: Path, tmp_path: Path, name: str, scripts: str
) -> None:
    """ "Dr Adv" and "Dr \u0391dv" look the same and would be counted as two reviewers."""
    labels = write(tmp_path / "l.json", labels_doc(name, rows_of(ANSWERS)))
    assert refusal(score(logs, tmp_path / "out", labels)) == (
        f"{labels}: field reviewer: '{name}' mixes {scripts} letters, which look alike (a "
        "Greek \u0391 for a Latin A would count one person twice); write the name in one of "
        "them"
    )
    assert not (tmp_path / "out").exists()


def test_names_wholly_in_one_script_are_counted_as_written(logs: Path, tmp_path: Path) -> None:
    rows = rows_of(ANSWERS)
    page = [dict(r) for r in rows]
    files = [
        write(tmp_path / f"{n}.json", labels_doc(name, [rows[n]], page))
        for n, name in enumerate(
            ["\u0394\u03c1 \u0391", "\u03b4\u03c1 \u03b1", "\u738b \u533b\u751f"]
        )
    ]
    result = score(logs, tmp_path / "out", *files)
    assert result.returncode == 0, result.stderr
    document = json.loads((tmp_path / "out" / "review.json").read_text())
    assert sorted(document["reviewers"]) == sorted(["\u0394\u03c1 \u0391", "\u738b \u533b\u751f"])


def test_one_answer_is_said_in_the_singular(logs: Path, tmp_path: Path) -> None:
    rows = rows_of(ANSWERS)
    one = [r for r in rows if r["case_id"] == rows[0]["case_id"]]
    labels = write(tmp_path / "l.json", labels_doc("Dr A", one, rows))
    result = score(logs, tmp_path / "out", labels)
    assert result.returncode == 0, result.stderr
    judged = [line for line in result.stdout.splitlines() if ": accuracy " in line]
    assert judged and all(line.endswith(f" on {len(one)} items (1 answer)") for line in judged)
    review = (tmp_path / "out" / "review.md").read_text()
    assert f"{len(one)} rubric items of 1 answer reviewed by 1 reviewer (Dr A);" in review


def test_the_scores_are_written_whole_or_not_at_all(
    logs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bedside_bench.cli import review as review_cli
    from bedside_bench.core import owned_output

    labels = write(tmp_path / "labels.json", base())
    out = tmp_path / "out"
    assert score(logs, out, labels).returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert sorted(before) == ["review.json", "review.md", "review_section.html"]
    real = owned_output.write_file
    written: list[str] = []

    def full_disk(path: Path, data: bytes) -> Path:
        written.append(path.name)
        if len(written) == 2:
            raise OSError(28, "No space left on device", str(path))
        return real(path, data)

    monkeypatch.setattr(review_cli, "write_file", full_disk)
    doc = base()
    doc["labels"][0]["matched"] = False
    assert refusal(score(logs, out, write(labels, doc))) == (
        f"cannot write the review score to {out}: No space left on device; the previous one is kept"
    )
    assert written == ["review.json", "review.md"]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def test_an_output_folder_holding_other_files_is_refused_before_reading(
    logs: Path, tmp_path: Path
) -> None:
    labels = write(tmp_path / "labels.json", base())
    assert refusal(score(logs, tmp_path, labels)) == (
        f"{tmp_path} holds 'labels.json', which the review score does not write; the review "
        "score replaces its whole folder, so give an empty or new folder"
    )
    page = bedside_bench_in_process("review", "export", str(logs), "-o", str(labels))
    assert refusal(page) == (f"{labels} is a file, not a folder; give a folder for the review page")


def test_an_export_replaces_the_earlier_export_whole(logs: Path, tmp_path: Path) -> None:
    out = tmp_path / "review"
    first = bedside_bench_in_process("review", "export", str(logs), "-o", str(out))
    again = bedside_bench_in_process(
        "review", "export", str(logs), "-o", str(out), "--items", "2", "--title", "Second"
    )
    assert (first.returncode, again.returncode) == (0, 0), again.stderr
    assert first.stdout == (
        "6 items of 2 answers (3.0 items per answer; 2 where judges or passes disagree) -> "
        f"{out / 'review.html'}\n"
    )
    assert again.stdout == (
        "2 items of 1 answer (2.0 items per answer; 1 where judges or passes disagree) -> "
        f"{out / 'review.html'}\n"
    )
    assert sorted(p.name for p in out.iterdir()) == ["review.html", "review_items.json"]
    assert "<title>Second</title>" in (out / "review.html").read_text()
    assert len(json.loads((out / "review_items.json").read_text())["items"]) == 2


def test_labels_of_items_the_exported_page_never_showed_are_refused(
    logs: Path, tmp_path: Path
) -> None:
    """Given the export's review_items.json, the labels must be of that page: a labels file
    listing every item of both answers (its id the digest of that list, as a careful forger
    would make it) is refused against a page that showed two of them."""
    whole, small = tmp_path / "whole", tmp_path / "small"
    for out, more in ((whole, []), (small, ["--items", "2"])):
        page = bedside_bench_in_process("review", "export", str(logs), "-o", str(out), *more)
        assert page.returncode == 0, page.stderr
    labels = write(tmp_path / "labels.json", base())
    accepted = score(logs, tmp_path / "out", labels, whole / "review_items.json")
    assert accepted.returncode == 0, accepted.stderr
    document = json.loads((tmp_path / "out" / "review.json").read_text())
    assert document["review_id"] == base()["review_id"]
    exported = json.loads((small / "review_items.json").read_text())["review_id"]
    refused = score(logs, tmp_path / "out2", small / "review_items.json", labels)
    assert refusal(refused) == (
        f"{small / 'review_items.json'}: field review_id: the review page exported review "
        f"{exported}, but the labels are of review {base()['review_id']}: they list items "
        "that page never showed"
    )
    assert not (tmp_path / "out2").exists()


def test_a_missing_log_is_named_with_why(logs: Path, tmp_path: Path) -> None:
    missing = tmp_path / "a.eval"
    result = bedside_bench_in_process("review", "export", str(missing), "-o", str(tmp_path / "o"))
    assert refusal(result) == (
        f"no judged BedsideBench answers in {missing} (skipped {missing}: cannot be read "
        f"([Errno 2] No such file or directory: '{missing}'))"
    )


def test_a_title_that_is_not_plain_text_is_refused(logs: Path, tmp_path: Path) -> None:
    for title, shown in (("\udcff", "\\udcff"), ("a\u202eb", "\\u202e"), ("\x1b[2J", "\\x1b")):
        result = bedside_bench_in_process(
            "review", "export", str(logs), "-o", str(tmp_path / "o"), "--title", title
        )
        assert result.returncode == 2
        assert result.stderr.splitlines()[-1] == (
            f"bedside-bench review export: error: argument --title: holds {shown}, a control, "
            "invisible or undecodable character; give a title of plain text"
        )
    assert not (tmp_path / "o").exists()


def test_text_no_writer_encodes_is_written_escaped_not_lost(tmp_path: Path) -> None:
    from bedside_bench.cli.review import write_owned

    write_owned(tmp_path / "out", "review score", ("review.md",), {"review.md": "judge \ud800"})
    assert (tmp_path / "out" / "review.md").read_bytes() == b"judge \\ud800"


# --------------------------------------------------------------------------------------------
# properties: any labels file, any command line


SPECIAL_TEXT = st.sampled_from(
    ["", " ", "\ud800", "\udcff", "\x1b[2J", "\n", "\u202e", "\u200b", "x" * 5000, "1e999"]
)
TEXT = st.one_of(SPECIAL_TEXT, st.text(st.characters(exclude_categories=()), max_size=30))
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)


def paths_of(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path into `doc`."""
    found = [prefix] if prefix else []
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += paths_of(value, (*prefix, key))
    elif isinstance(doc, list):
        for n, value in enumerate(doc):
            found += paths_of(value, (*prefix, n))
    return found


ENTRY = {"answer_model", "case_id", "epoch", "item_id", "benchmark", "answer_sha256"}


def listable(doc: Any) -> bool:
    labels = doc.get("labels") if isinstance(doc, dict) else None
    return isinstance(labels, list) and all(
        isinstance(r, dict) and set(r) >= ENTRY and all(isinstance(k, str) for k in r)
        for r in labels
    )


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A labels file as the page writes it, then changed as an editor, a bad disk or an
    attacker would: a value replaced, a key dropped or added, the text cut, repeated or
    wrapped, bytes inserted."""
    doc = base()
    for _ in range(draw(st.integers(1, 3))):
        paths = paths_of(doc)
        path = draw(st.sampled_from(paths))
        *parent_path, last = path
        parent: Any = doc
        for step in parent_path:
            parent = parent[step]
        kind = draw(st.sampled_from(["replace", "drop", "add"]))
        if kind == "replace":
            parent[last] = draw(JSON_VALUES)
        elif kind == "drop":
            del parent[last]
        elif isinstance(parent, dict):
            parent[draw(TEXT)] = draw(JSON_VALUES)
        if draw(st.booleans()) and listable(doc):
            relisted(doc)  # the change made consistent, as a careful forger would
    text = json.dumps(doc)
    cut = draw(st.sampled_from(["none", "truncate", "insert", "repeat-key", "wrap"]))
    if cut == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    elif cut == "insert":
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(TEXT) + text[at:]
    elif cut == "repeat-key":
        text = text[:-1] + ', "format": "bedside-bench-labels-v2"}'
    elif cut == "wrap":
        depth = draw(st.integers(1, 5000))
        text = "[" * depth + text + "]" * depth
    return text.encode("utf-8", "surrogatepass")


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Callable[[], Path]]:
    """A fresh folder per hypothesis example (the test's tmp_path is shared by them)."""

    def make() -> Path:
        return Path(tempfile.mkdtemp(dir=tmp_path))

    yield make
    shutil.rmtree(tmp_path, ignore_errors=True)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(content=mutated())
def test_any_labels_file_gives_scores_or_one_line_naming_it(
    logs: Path, scratch: Callable[[], Path], content: bytes
) -> None:
    folder = scratch()
    labels = write(folder / "labels.json", content)
    result = score(logs, folder / "out", labels)
    event(f"exit {result.returncode} {result.stderr.replace(str(labels), '')[28:70]}")
    if result.returncode == 0:
        document = json.loads((folder / "out" / "review.json").read_text())
        assert document["reviewers"] and document["review_id"]
        return
    line = refusal(result)
    assert line.startswith(f"{labels}: ")
    assert not (folder / "out").exists()


# a word as a shell hands it over: any bytes but NUL, decoded as Python decodes argv
ARGUMENT = (
    st.binary(max_size=40)
    .filter(lambda b: b"\x00" not in b)
    .map(lambda b: b.decode("utf-8", "surrogateescape"))
)


@st.composite
def command_lines(draw: st.DrawFn) -> tuple[str, list[str]]:
    """`review export` or `review score` with paths that exist or not and option values of
    any bytes; `-o` inside the example's folder."""
    command = draw(st.sampled_from(["export", "score"]))
    options = {
        "export": ["--items", "--per-answer", "--seed", "--title"],
        "score": ["--resamples", "--seed"],
    }[command]
    words: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        flag = draw(st.sampled_from(options))
        value = draw(
            st.one_of(
                st.sampled_from(["0", "-1", "1", "3", "100001", "9" * 40, "-" + "9" * 40, ""]),
                st.builds(str, st.integers(-(10**6), 10**6)),
                ARGUMENT,
            )
        )
        words += [flag, value]
    inputs = draw(
        st.one_of(
            st.just(["LOGS", "LABELS"] if command == "score" else ["LOGS"]),
            st.lists(
                st.sampled_from(["LOGS", "LABELS", "MISSING", "FOLDER", "NOT_JSON", "WORD"]),
                max_size=3,
            ),
        )
    )
    word = draw(ARGUMENT).replace("/", "_") or "x"
    return command, [*words, *inputs, "-o", "OUT" if draw(st.booleans()) else "LOGS", word]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(line=command_lines())
def test_any_command_line_ends_in_an_exit_code_not_a_traceback(
    logs: Path, scratch: Callable[[], Path], line: tuple[str, list[str]]
) -> None:
    command, words = line
    folder = scratch()
    word = words.pop()
    labels = write(folder / "labels.json", base())
    (folder / "folder").mkdir()
    (folder / "notes.json").write_text("not json")
    where = {
        "LOGS": str(logs),
        "LABELS": str(labels),
        "MISSING": str(folder / "missing.eval"),
        "FOLDER": str(folder / "folder"),
        "NOT_JSON": str(folder / "notes.json"),
        "WORD": str(folder / word) if word not in (".", "..") else str(folder / "word"),
        "OUT": str(folder / "out" / (word if word not in (".", "..") else "w")),
    }
    argv = ["review", command, *(where.get(w, w) for w in words)]
    result = bedside_bench_in_process(*argv)  # an exception here fails the test
    event(f"{command} exit {result.returncode}")
    assert result.returncode in (0, 1, 2), result
    if result.returncode == 1:
        refusal(result)
    elif result.returncode == 2:  # argparse: its usage, then one line
        last = result.stderr.rstrip("\n").split("\n")[-1]
        assert last.startswith(f"bedside-bench review {command}: error: ") or last.startswith(
            "bedside-bench review: error: "
        ), result.stderr
        assert "\x1b" not in result.stderr


# --------------------------------------------------------------------------------------------
# `report --labels`: the labels as `review score` reads them, checked before any log is read


def report(out: Path, *args: str) -> Any:
    return bedside_bench_in_process("report", *args, "-o", str(out), "--resamples", "20")


def test_report_labels_from_a_pipe_are_read_as_labels(logs: Path, tmp_path: Path) -> None:
    """A FIFO (or `/dev/stdin`) is a labels file too: it is read once, not taken for a log."""
    fifo = tmp_path / "labels"
    os.mkfifo(fifo)
    text = json.dumps(base())
    writer = threading.Thread(target=fifo.write_text, args=(text,))
    writer.start()
    try:
        result = report(tmp_path / "r", str(logs), "--labels", str(fifo))
    finally:
        if writer.is_alive():  # not opened: open it once so the writer ends
            fifo.read_text()
        writer.join()
    assert result.returncode == 0, result.stderr
    assert "## Judge vs physicians" in (tmp_path / "r" / "report.md").read_text()
    review = json.loads((tmp_path / "r" / "review.json").read_text())
    assert review["labels"]["items"] == len(base()["labels"])


def test_report_labels_are_checked_before_the_logs_are_read(tmp_path: Path) -> None:
    """A labels file that is not one is named at once, even where no log could be read."""
    bad = write(tmp_path / "labels.txt", "not json")
    result = report(tmp_path / "r", str(tmp_path / "no-such-logs"), "--labels", str(bad))
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == (
        f"bedside-bench report: error: --labels: {bad}: not a readable JSON labels file "
        "(Expecting value: line 1 column 1 (char 0))\n"
    )


def test_report_log_paths_typed_after_labels_are_reported(logs: Path, tmp_path: Path) -> None:
    """`--labels` takes one or more paths: a log folder typed after it is a log folder, read
    by the report and by the review alike (not the default log folder)."""
    labels = write(tmp_path / "labels.json", base())
    result = report(tmp_path / "r", "--labels", str(labels), str(logs))
    assert result.returncode == 0, result.stderr
    summaries = [json.loads(f.read_text()) for f in (tmp_path / "r").glob("*.summary.json")]
    assert summaries and {s["answer_model"] for s in summaries} == {ANSWER_MODEL}
    assert (tmp_path / "r" / "review.json").is_file()
    # only log folders after it: no labels file given, said so
    result = report(tmp_path / "r2", "--labels", str(logs))
    assert result.stderr == (
        f"bedside-bench report: error: --labels: no labels file given: {logs} is a log folder "
        "or log, not the labels file the review page downloads\n"
    )


def test_report_labels_given_twice_are_both_read(logs: Path, tmp_path: Path) -> None:
    """`--labels A --labels B` is A and B (argparse would keep only the last)."""
    first = write(tmp_path / "a.json", base())
    other = base()
    other["reviewer"] = "Dr B"
    second = write(tmp_path / "b.json", other)
    result = report(tmp_path / "r", str(logs), "--labels", str(first), "--labels", str(second))
    assert result.returncode == 0, result.stderr
    review = json.loads((tmp_path / "r" / "review.json").read_text())
    assert sorted(review["reviewers"]) == ["Dr A", "Dr B"]


def test_review_score_reads_labels_from_a_pipe_or_a_file_of_any_name(
    logs: Path, tmp_path: Path
) -> None:
    """`cat labels.json | review score /dev/stdin LOGS`, or a labels file saved as .txt: read
    as labels, once, never taken for a log folder."""
    text = json.dumps(base())
    fifo = tmp_path / "labels-pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_text, args=(text,))
    writer.start()
    try:
        result = score(logs, tmp_path / "piped", fifo)
    finally:
        if writer.is_alive():
            fifo.read_text()
        writer.join()
    assert result.returncode == 0, result.stderr
    piped = json.loads((tmp_path / "piped" / "review.json").read_text())
    saved = write(tmp_path / "labels.txt", text)
    result = score(logs, tmp_path / "saved", saved)
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "saved" / "review.json").read_text())["judges"] == piped["judges"]
    junk = write(tmp_path / "notes.txt", "not labels")
    assert refusal(score(logs, tmp_path / "junk", junk)).startswith(
        f"{junk}: not a readable JSON labels file"
    )
