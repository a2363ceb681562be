"""Physician review: put judge decisions in front of clinicians, and measure every judge
against their labels (`bedside-bench review export | score`, `report --labels`)."""

from bedside_bench.review.command import register

__all__ = ["register"]
