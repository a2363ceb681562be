"""`--batch` of `bedside-bench sweep` takes what Inspect's `--batch` takes (pure, no calls)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inspect_ai._util.flag_values import int_bool_or_str_value
from inspect_ai.model import BatchConfig, GenerateConfig
from inspect_ai.model._generate_config import normalized_batch_config

from bedside_bench import sweep
from bedside_bench.core.ranges import BATCH_SIZE
from bedside_bench.sweep.batch import BatchOptionError, parse_batch

INSPECT_DEFAULT_SIZE = 100  # inspect_ai._util.constants.DEFAULT_BATCH_SIZE (0.3.285)


def effective(value: Any) -> BatchConfig | None:
    """What a model ends up with: Inspect's own normalisation of a GenerateConfig's batch."""
    return normalized_batch_config(GenerateConfig(batch=value).batch)


def parsed(argv: list[str]) -> sweep.SweepOptions:
    parser = argparse.ArgumentParser()
    sweep.configure_parser(parser)
    return sweep.options_from_args(parser.parse_args(["--model", "openai/a", *argv]))


@given(
    st.one_of(
        st.sampled_from(["true", "TRUE", "yes", "1", "false", "no", "0", "Yes", "No"]),
        st.integers(min_value=1, max_value=BATCH_SIZE.most).map(str),
    )
)
def test_sizes_and_words_mean_what_they_mean_to_inspect(text: str) -> None:
    inspect_value = int_bool_or_str_value(text, INSPECT_DEFAULT_SIZE, None)
    assert effective(parse_batch(text)) == effective(inspect_value)


@given(st.integers(min_value=BATCH_SIZE.most + 1, max_value=10**12))
def test_a_size_past_the_ceiling_is_refused(size: int) -> None:
    with pytest.raises(BatchOptionError, match=f"got {size:,}$"):
        parse_batch(str(size))


def test_a_size_in_other_digits_is_not_a_size() -> None:
    """Python's int() reads full-width digits and underscores; a flag does not (a `-T`
    option, read as YAML, would take the full-width ones as text)."""
    for text in ("\uff12\uff15\uff10", "2_50"):
        with pytest.raises(BatchOptionError, match="does not exist"):
            parse_batch(text)


def test_bare_flag_and_values_through_the_command_line() -> None:
    default = BatchConfig(size=INSPECT_DEFAULT_SIZE)
    assert effective(parsed(["--batch"]).batch) == default
    assert effective(parsed(["--batch", "250"]).batch) == BatchConfig(size=250)
    assert parsed(["--batch", "false"]).batch is None
    assert parsed([]).batch is None


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_config_file_is_read_like_inspect_reads_it(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"batch{suffix}"
    if suffix == ".json":
        path.write_text('{"size": 20, "send_delay": 0.5, "tick": 0.25, "max_batches": 3}')
    else:
        path.write_text("size: 20\nsend_delay: 0.5\ntick: 0.25\nmax_batches: 3\n")
    expected = BatchConfig(size=20, send_delay=0.5, tick=0.25, max_batches=3)
    options = parsed(["--batch", str(path)])
    assert options.batch == expected
    # Inspect's own reading of the same file (its CLI's --batch FILE)
    from inspect_ai._util.config import resolve_args

    assert BatchConfig.model_validate(resolve_args(str(path))) == expected
    # the answer models (through eval_set) and the judge role both get it
    assert sweep.generate_config_args(options) == {"batch": expected}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("size: 20\nsend_dealy: 1\n", r"unknown option\(s\) send_dealy"),
        ("send_delay: 0\n", "send_delay must be a number of seconds above 0, not 0"),
        ("tick: -1\n", "tick must be a number of seconds above 0"),
        ("send_delay: .nan\n", "send_delay must be a number of seconds above 0, not nan"),
        ("tick: .inf\n", "tick must be a number of seconds above 0, not inf"),
        ("size: 2.5\n", "size must be a whole number of at least 1, not 2.5"),
        ("max_batches: true\n", "max_batches must be a whole number"),
        ("- size\n", "does not hold a mapping"),
        ("size: [1\n", "cannot be read"),
    ],
)
def test_a_bad_config_file_is_one_line_naming_it(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "batch.yaml"
    path.write_text(content)
    with pytest.raises(BatchOptionError, match=message) as caught:
        parse_batch(str(path))
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_a_missing_file_or_a_size_below_one_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(BatchOptionError, match="does not exist"):
        parse_batch(str(tmp_path / "nope.yaml"))
    with pytest.raises(BatchOptionError, match="not a positive number"):
        parse_batch("-5")
    with pytest.raises(SystemExit):
        parsed(["--batch", str(tmp_path / "nope.yaml")])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.endswith(
        f"argument --batch: batch config file {tmp_path / 'nope.yaml'} does not exist"
    )
