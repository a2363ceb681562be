"""Physician review: put judge decisions in front of clinicians, and measure every judge
against their labels (`bedside-bench review export | score`, `report --labels`). The commands
themselves are `bedside_bench.cli.review`."""
