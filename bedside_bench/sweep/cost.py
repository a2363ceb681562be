"""Inspect's cost options of a sweep: `--model-cost-config` (Inspect's prices, so each log
records `total_cost`, which the report uses) and `--cost-limit` (USD per case, Inspect stops a
case past it; the report names the cases stopped). Both go to `eval_set` as given; their
environment variables are Inspect's (`INSPECT_EVAL_MODEL_COST_CONFIG`,
`INSPECT_EVAL_COST_LIMIT`), read when the flag is not given.

The cost config is checked before any call: Inspect applies it inside the eval, where a model
it does not know or a malformed entry would end the sweep with a traceback.
"""

from __future__ import annotations

import argparse
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path

import yaml

from bedside_bench.core.safe_text import printable
from bedside_bench.core.small_files import SmallFileError, read_small_text
from bedside_bench.sweep.options import SweepError

COST_CONFIG_ENV = "INSPECT_EVAL_MODEL_COST_CONFIG"
COST_LIMIT_ENV = "INSPECT_EVAL_COST_LIMIT"


class CostOptionError(SweepError):
    """A cost option that cannot be used: one line naming the file, model or value."""


# a decimal number of ASCII digits (float() also takes full-width digits and underscores)
_USD = re.compile(r"\s*(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*")
# a case that costs more than this is no case of this benchmark
MAX_CASE_USD = 10_000.0


def positive_usd(text: str) -> float:
    if not _USD.fullmatch(text):
        shown = printable(text, 40)
        raise argparse.ArgumentTypeError(
            f"must be a number of USD written with the digits 0-9 (e.g. 0.5 or 1e-3), got {shown!r}"
        )
    value = float(text)
    if value > MAX_CASE_USD:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_CASE_USD:,.0f} USD, got {text}")
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of USD, got {text}")
    return value


def add_cost_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model-cost-config",
        metavar="FILE",
        help="Inspect's model prices (YAML or JSON: {model: {input, output, input_cache_write, "
        "input_cache_read}}, USD per million tokens): each log records its cost, which the "
        f"report uses (default: ${COST_CONFIG_ENV})",
    )
    parser.add_argument(
        "--cost-limit",
        type=positive_usd,
        metavar="USD",
        help="stop a case once its answer calls cost this much (Inspect's --cost-limit, which "
        "counts the calls made while the answer is made, not the judge's; needs a price for "
        "every model, from --model-cost-config); the report names the cases it stopped "
        f"(default: ${COST_LIMIT_ENV})",
    )


def cost_options(args: argparse.Namespace) -> tuple[str | None, float | None]:
    """(cost config, cost limit): the flags, else Inspect's environment variables."""
    config = args.model_cost_config or os.environ.get(COST_CONFIG_ENV) or None
    limit = args.cost_limit
    if limit is None and os.environ.get(COST_LIMIT_ENV):
        try:
            limit = positive_usd(os.environ[COST_LIMIT_ENV])
        except argparse.ArgumentTypeError as ex:
            raise CostOptionError(f"${COST_LIMIT_ENV} {ex}") from None
    return config, limit


def check_cost_config(path: str) -> dict[str, dict[str, float]]:
    """The cost config as Inspect will apply it, each entry checked as Inspect checks it
    (`ModelCost`, a model its database knows); a `CostOptionError` naming what is wrong."""
    # lazy: `sweep --help` imports no Inspect, and the command line module imports this one
    from inspect_ai.model import ModelCost, get_model_info

    file = Path(path)
    # the path as typed may hold anything a shell lets through; a YAML error quotes the file
    where = f"model cost config {printable(path, 300)}"
    try:
        text = read_small_text(file)
    except SmallFileError as ex:  # a FIFO would block the command; a huge file fill memory
        raise CostOptionError(f"{where} {ex}") from None
    try:
        raw = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError) as ex:
        raise CostOptionError(f"{where} is not YAML or JSON: {printable(str(ex), 300)}") from None
    if not isinstance(raw, Mapping) or not raw:
        raise CostOptionError(
            f"{where} must map model names to prices (input, output, "
            "input_cache_write, input_cache_read: USD per million tokens)"
        )
    checked: dict[str, dict[str, float]] = {}
    for model, cost in raw.items():
        if not isinstance(cost, Mapping):
            raise CostOptionError(f"{where}: {model!r} must map to prices")
        try:
            parsed = ModelCost(**{str(k): v for k, v in cost.items()})
        except (ValueError, TypeError) as ex:  # pydantic's ValidationError is a ValueError
            first = str(ex).splitlines()[0]
            raise CostOptionError(f"{where}: {model!r}: {printable(first, 300)}") from None
        values = parsed.model_dump()
        bad = [k for k, v in values.items() if not math.isfinite(v) or v < 0]
        if bad:
            raise CostOptionError(f"{where}: {model!r}: {', '.join(bad)} must be finite USD >= 0")
        if get_model_info(str(model)) is None:
            raise CostOptionError(
                f"{where}: Inspect's model database has no {model!r} "
                "(Inspect prices only the models it knows)"
            )
        checked[str(model)] = values
    return checked
