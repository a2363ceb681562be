"""`sweep --cost-limit`: a number of USD written as the other flags' numbers are."""

from __future__ import annotations

import argparse

import pytest

from bedside_bench.sweep.cost import positive_usd


def test_a_cost_limit_is_a_number_of_ascii_digits() -> None:
    """`float()` takes full-width digits and underscores; the other flags refuse them."""
    assert [positive_usd(t) for t in ("0.5", "1e-9", ".5", " 2 ")] == [0.5, 1e-9, 0.5, 2.0]
    for text in ("\uff11\uff10", "1_000", "nan", "inf", "-1", "0", "1e400", "20000"):
        with pytest.raises(argparse.ArgumentTypeError):
            positive_usd(text)
