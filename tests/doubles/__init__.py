"""The provider doubles are part of the package (`bedside_bench.doubles`); only their pytest
fixtures live here (`tests.doubles.fixtures`)."""
