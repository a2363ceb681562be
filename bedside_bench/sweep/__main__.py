"""`python -m bedside_bench.sweep ...`, the same as `bedside-bench sweep ...`."""

import sys

from bedside_bench.sweep.command import main

sys.exit(main())
