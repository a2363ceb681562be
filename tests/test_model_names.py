"""A misspelt provider in a model, judge or grader name (`bedside_bench/core/model_names.py`):
one line naming the closest provider Inspect knows, exit 1, never a traceback.

The refusals are checked against Inspect on an independent path: `get_model` itself refuses
every name refused here, and every provider accepted here is one Inspect's registry holds."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai._util.registry import registry_lookup  # independent of the package's lookup
from inspect_ai.model import get_model

from bedside_bench.cli.main import main
from bedside_bench.core import exit_codes
from bedside_bench.core.model_names import (
    CANNOT_JUDGE,
    closest,
    judge_name_problem,
    model_name_problem,
    unknown_provider,
)
from bedside_bench.core.safe_text import is_blank, printable

SYNTHETIC = Path(__file__).resolve().parent.parent / "data" / "synthetic"
JUDGE = "openai/gpt-4"
VALID = ("openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6", "google/gemini-2.5-pro")


def test_a_misspelt_provider_is_named_with_the_closest_one() -> None:
    assert unknown_provider("antropic/claude-sonnet-4-6", "model") == (
        "model antropic/claude-sonnet-4-6: Inspect knows no model provider 'antropic' "
        "(did you mean anthropic/claude-sonnet-4-6?)"
    )
    assert unknown_provider("OpenAI/gpt-4.1-mini") == (
        "Inspect knows no model provider 'OpenAI' (did you mean openai/gpt-4.1-mini?)"
    )


def test_a_known_provider_and_a_name_without_one_are_left_alone() -> None:
    for name in (*VALID, "openai-api/deepseek/deepseek-chat", "mockllm/model", "gpt-4.1"):
        assert unknown_provider(name, "model") is None


def test_nothing_close_lists_every_provider_on_the_one_line() -> None:
    line = unknown_provider("zzzz/model-1", "judge")
    assert line is not None and "\n" not in line
    listed = line.split("(Inspect knows ", 1)[1].rstrip(")").split(", ")
    assert "openai" in listed and "anthropic" in listed and "mockllm" in listed
    assert all(registry_lookup("modelapi", name) is not None for name in listed)


def test_a_control_character_is_shown_escaped() -> None:
    line = unknown_provider("antr\nopic/x\x1b[2J", "model")
    assert line is not None and "\n" not in line and "\x1b" not in line
    assert "antr\\nopic/x\\x1b[2J" in line


def test_closest_ignores_case_and_wants_a_close_word() -> None:
    assert closest("ANTHROPIC", ["anthropic", "openai"]) == "anthropic"
    assert closest("xyz", ["anthropic", "openai"]) is None


# --------------------------------------------------------------------------------------------
# every name a user types: mutated names through the command line


@contextlib.contextmanager
def captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield out, err


def sweep_estimate(tmp_path: Path, model: str, judge: str) -> tuple[int, str, str]:
    """`bedside-bench sweep --estimate` (no provider call by design), its status and streams."""
    argv = [
        "sweep",
        f"--model={model}",
        f"--judge={judge}",
        "--estimate",
        "--benchmarks=drug_safety",
        f"--data-dir={SYNTHETIC}",
        f"--log-dir={tmp_path / 'logs'}",
    ]
    with captured() as (out, err):
        try:
            code = main(argv)
        except SystemExit as stopped:  # argparse
            code = stopped.code if isinstance(stopped.code, int) else 1
    return code, out.getvalue(), err.getvalue()


# the mutations a typing hand makes, on the provider or anywhere in the name; no comma (a
# list separator) and no leading or trailing space (stripped from a list item)
TYPED = st.sampled_from("abcdefghijklmnopqrstuvwxyzAEIO0123456789-_./ é\t\n")


@st.composite
def mutated(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(VALID))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.integers(0, len(name)))
        if draw(st.booleans()):  # on the provider, where a typo cannot be noticed later
            where = draw(st.integers(0, max(0, name.index("/") if "/" in name else 0)))
        kind = draw(st.sampled_from(["delete", "insert", "replace", "swap", "case"]))
        if kind == "delete" and where < len(name):
            name = name[:where] + name[where + 1 :]
        elif kind == "insert":
            name = name[:where] + draw(TYPED) + name[where:]
        elif kind == "replace" and where < len(name):
            name = name[:where] + draw(TYPED) + name[where + 1 :]
        elif kind == "swap" and where + 1 < len(name):
            name = name[:where] + name[where + 1] + name[where] + name[where + 2 :]
        elif kind == "case":
            name = name[:where] + name[where:].swapcase()
    return name.strip()


def inspect_refuses_provider(name: str) -> bool:
    """Inspect's own verdict: get_model refuses the provider (before creating anything)."""
    try:
        get_model(name, memoize=False, api_key="unused")
    except ValueError as ex:
        return "not recognized" in str(ex)
    except Exception:
        return False
    return False


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(name=mutated(), as_judge=st.booleans())
def test_every_mutated_name_is_accepted_or_refused_in_one_line(
    tmp_path: Path, name: str, as_judge: bool
) -> None:
    model, judge = (VALID[0], name) if as_judge else (name, JUDGE)
    code, out, err = sweep_estimate(tmp_path, model, judge)
    assert "Traceback" not in out + err
    provider = name.split("/", 1)[0]
    if code == exit_codes.OK:  # estimated: a name Inspect takes
        assert "no provider was called" in out
        assert registry_lookup("modelapi", provider) is not None
        return
    assert code == exit_codes.ERROR, (code, err)
    (line,) = err.splitlines()
    assert line.startswith("bedside-bench sweep: error: ")
    if "a model name cannot hold control, bidi or surrogate characters" in line:
        assert any(c in name for c in "\t\n"), name  # the controls TYPED can put inside
    elif "Inspect knows no model provider" in line:
        assert inspect_refuses_provider(name)
        assert "did you mean" in line or "(Inspect knows " in line
    else:  # the other refusals of a name: its form, none at all, a judge that cannot judge
        assert (
            "is not an Inspect model name such as" in line
            or (line.endswith("give at least one model with --model (or set $INSPECT_EVAL_MODEL)"))
            or (as_judge and name.split("/")[0] in CANNOT_JUDGE and "cannot judge" in line)
        ), line
    assert out == ""


def test_a_misspelt_judge_stops_the_estimate_too(tmp_path: Path) -> None:
    code, out, err = sweep_estimate(tmp_path, VALID[0], "opnai/gpt-5.6-sol")
    assert (code, out) == (exit_codes.ERROR, "")
    assert err == (
        "bedside-bench sweep: error: judge opnai/gpt-5.6-sol: Inspect knows no model provider "
        "'opnai' (did you mean openai/gpt-5.6-sol?)\n"
    )
    assert not (tmp_path / "logs").exists()  # no estimate kept either


@pytest.mark.parametrize("models", ["openai/gpt-4.1-mini,antropic/claude-sonnet-4-6"])
def test_the_second_of_two_models_is_named(tmp_path: Path, models: str) -> None:
    code, _, err = sweep_estimate(tmp_path, models, JUDGE)
    assert code == exit_codes.ERROR
    assert err == (
        "bedside-bench sweep: error: model antropic/claude-sonnet-4-6: Inspect knows no model "
        "provider 'antropic' (did you mean anthropic/claude-sonnet-4-6?)\n"
    )


@settings(max_examples=300, deadline=None)
@given(
    name=st.one_of(
        mutated(),
        st.text(max_size=30),
        st.sampled_from(["openai/\u200b", "openai/x ", "openai/a b", "openai/\ufeffx"]),
    ),
    what=st.sampled_from(["model", "judge"]),
)
def test_a_name_taken_is_one_inspect_can_create_and_a_judge_one_that_can_judge(
    name: str, what: str
) -> None:
    """The one check every command uses (`model_name_problem`, `judge_name_problem`): a name
    it takes has a known provider and a model after it, shows as it is, and, as a judge, is
    not one that never calls; a name it refuses is refused in one printable line naming it."""
    problem = (judge_name_problem if what == "judge" else model_name_problem)(name, what)
    if problem is None:
        provider, _, model = name.partition("/")
        assert provider and model.strip() and not model.endswith("/")
        assert registry_lookup("modelapi", provider) is not None
        assert printable(name) == name
        assert not any(c.isspace() or is_blank(c) for c in name)  # nothing hidden in it
        assert what == "model" or provider not in CANNOT_JUDGE
    else:
        assert problem.startswith(f"{what} ") and problem.isprintable()
        if what == "judge" and model_name_problem(name, what) is None:  # only as a judge
            assert name.partition("/")[0] in CANNOT_JUDGE and "cannot judge" in problem
