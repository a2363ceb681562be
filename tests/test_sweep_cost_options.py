"""`sweep --cost-limit`: a number of USD written as the other flags' numbers are."""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bedside_bench.sweep.cost import CostOptionError, check_cost_config, positive_usd


def test_a_cost_limit_is_a_number_of_ascii_digits() -> None:
    """`float()` takes full-width digits and underscores; the other flags refuse them."""
    assert [positive_usd(t) for t in ("0.5", "1e-9", ".5", " 2 ")] == [0.5, 1e-9, 0.5, 2.0]
    for text in ("\uff11\uff10", "1_000", "nan", "inf", "-1", "0", "1e400", "20000"):
        with pytest.raises(argparse.ArgumentTypeError):
            positive_usd(text)


@settings(max_examples=60, deadline=None)
@given(name=st.text(min_size=1, max_size=20).filter(lambda t: "/" not in t and "\x00" not in t))
def test_a_cost_config_error_is_one_printable_line(tmp_path_factory: Any, name: str) -> None:
    """The path as typed and the YAML parser's message (which quotes the file) are shown as
    one line that moves no cursor, whatever either holds."""
    folder = tmp_path_factory.mktemp("cost")
    path = folder / f"\x1b[31m{name}\n.yaml"
    path.write_text("a: [\n\x1b[2J\u202e: 1\n")  # unclosed: a YAML error quoting the text
    with pytest.raises(CostOptionError) as raised:
        check_cost_config(str(path))
    shown = str(raised.value)
    assert shown.isprintable(), shown
    assert shown.startswith("model cost config ") and "is not YAML or JSON" in shown
    missing = folder / f"\x1b]0;x\x07{name}"
    with pytest.raises(CostOptionError) as raised:
        check_cost_config(str(missing))
    assert str(raised.value).isprintable(), str(raised.value)
