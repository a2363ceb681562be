"""Where a model's prices come from, in the order a reader expects (pure lookups, no call):

1. the prices file (`--prices`): the user's own rates, named at report time, override the rest;
2. the cost Inspect recorded in the log (`total_cost` of its usage records, present when the
   run had a cost config: `--model-cost-config`, `$INSPECT_EVAL_MODEL_COST_CONFIG`,
   `set_model_cost`); `usage.cost_json` reads it, this module only names the source;
3. pydantic's genai-prices database (the data bundled with the installed package, offline),
   at the rates in force when the run started.

A model none of them knows has no price: its cost is null, never 0, with a note naming it.

genai-prices gives long-context tiers (e.g. above 272,000 input tokens in one request); the
rates taken are the base tier's, the one every call of this suite is in (a case's prompt and
a judge message are a few thousand tokens). Its batch rates (`processing: batch`) are taken
where it has them; a model it serves with no batch variant has no batch price, as in a prices
file without one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal

import genai_prices
from genai_prices import Usage, calc_price, data_snapshot
from genai_prices.types import ModelPrice, TieredPrices

Prices = Mapping[str, Mapping[str, float]]

SOURCE_FILE = "prices file"
SOURCE_INSPECT = "Inspect cost config"
DATABASE = "genai-prices"
# Inspect's provider names that genai-prices spells differently (the others match by id or by
# its own provider matching: `vertex` is google, `bedrock` is aws)
PROVIDER_IDS = {"grok": "x-ai"}
# genai-prices' price keys (USD per million tokens) -> the rate names of a prices file
RATE_NAMES = {
    "input_mtok": "input",
    "output_mtok": "output",
    "cache_read_mtok": "cached_input",
    "cache_write_mtok": "cache_write",
}
BATCH_CONTEXT = {"processing": "batch"}


def database_label() -> str:
    """The price data's version: the package's, and whether its data is the bundled one (the
    only data used unless something in the process started genai-prices' `UpdatePrices`)."""
    snapshot = data_snapshot.get_snapshot()
    data = (
        f"data fetched {snapshot.timestamp.isoformat(timespec='seconds')}"
        if snapshot.from_auto_update
        else "bundled data"
    )
    return f"{DATABASE} {genai_prices.__version__} ({data})"


def database_source() -> str:
    return f"{DATABASE} {genai_prices.__version__}"


@dataclass(frozen=True)
class FoundPrice:
    """A model's rates (USD per million tokens, in a prices file's keys) and where they are
    from; `key` is the name the source knows the model by."""

    key: str
    rates: Mapping[str, float]
    source: str


def _rate(value: Decimal | TieredPrices | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, TieredPrices):
        return float(value.base)
    return float(value)


def _rates(price: ModelPrice, prefix: str = "") -> dict[str, float]:
    rates = {}
    for key, name in RATE_NAMES.items():
        value = _rate(getattr(price, key, None))
        if value is not None:
            rates[prefix + name] = value
    return rates


def database_price(model: str, at: datetime | None = None) -> FoundPrice | None:
    """The genai-prices rates of an Inspect model name (`provider/model`) at time `at` (now
    when None), with its batch rates where the database has a batch variant; None when the
    database knows no such provider (a local server, a double) or no such model."""
    provider, _, name = model.partition("/")
    if not name:
        return None
    provider_id = PROVIDER_IDS.get(provider, provider)
    snapshot = data_snapshot.get_snapshot()
    if data_snapshot.find_provider_by_id(snapshot.providers, provider_id) is None:
        return None
    when = at or datetime.now(timezone.utc)
    try:
        standard = calc_price(
            Usage(input_tokens=0), name, provider_id=provider_id, genai_request_timestamp=when
        )
        batch = calc_price(
            Usage(input_tokens=0),
            name,
            provider_id=provider_id,
            genai_request_timestamp=when,
            price_context=BATCH_CONTEXT,
        )
    except LookupError:
        return None
    rates = _rates(standard.model_price)
    if "input" not in rates or "output" not in rates:
        return None
    if batch.model_price != standard.model_price:
        rates.update(_rates(batch.model_price, "batch_"))
    return FoundPrice(
        key=f"{standard.provider.id}/{standard.model.id}", rates=rates, source=database_source()
    )


def file_price(model: str, prices: Prices) -> FoundPrice | None:
    """The prices file's entry for `model`: its full Inspect name first, then the name without
    provider."""
    for key in (model, model.split("/", 1)[-1]):
        if key in prices:
            return FoundPrice(key=key, rates=prices[key], source=SOURCE_FILE)
    return None


def inspect_rates(config: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """An Inspect cost config (`ModelCost`: input, output, input_cache_write,
    input_cache_read) in a prices file's rate names, for what has no log yet (the estimate)."""
    names = {"input_cache_read": "cached_input", "input_cache_write": "cache_write"}
    return {
        model: {names.get(key, key): float(value) for key, value in cost.items()}
        for model, cost in config.items()
    }


@dataclass(frozen=True)
class Pricing:
    """The sources a report or an estimate prices with, in order: the prices file, an Inspect
    cost config (the estimate's; a report reads the cost Inspect recorded instead), the
    database."""

    prices_file: Prices | None = None
    inspect_config: Prices | None = None
    database: bool = True

    def file(self, model: str) -> FoundPrice | None:
        return None if self.prices_file is None else file_price(model, self.prices_file)

    def find(self, model: str, at: datetime | None = None) -> FoundPrice | None:
        """The first source's rates (Inspect's recorded cost is not rates: `usage.cost_json`)."""
        found = self.file(model)
        if found is None and self.inspect_config is not None and model in self.inspect_config:
            found = FoundPrice(model, self.inspect_config[model], SOURCE_INSPECT)
        if found is None and self.database:
            found = database_price(model, at)
        return found

    def unknown(self, model: str) -> str:
        """Why `model` has no price, for a note."""
        where = [f"the {SOURCE_FILE}"] if self.prices_file is not None else []
        if self.inspect_config is not None:
            where.append("the Inspect cost config")
        if self.database:
            where.append(database_source())
        return f"no price for {model} (not in {' nor in '.join(where)})"
