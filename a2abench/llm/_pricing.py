"""A small price table for common OpenAI chat models, to put a cost on each call.

Prices are USD per million tokens (input, cached input, output), list prices as published by
OpenAI for the standard tier in late 2025. Anything else is priced None ("n/a"), with a single
log warning per model name, rather than guessed.
"""

from __future__ import annotations

import logging
import re
from typing import NamedTuple

logger = logging.getLogger("a2abench.llm")


class Price(NamedTuple):
    input: float
    cached_input: float
    output: float


PRICES: dict[str, Price] = {
    "gpt-5.2": Price(1.75, 0.175, 14.00),
    "gpt-5.1": Price(1.25, 0.125, 10.00),
    "gpt-5": Price(1.25, 0.125, 10.00),
    "gpt-5-mini": Price(0.25, 0.025, 2.00),
    "gpt-5-nano": Price(0.05, 0.005, 0.40),
    "gpt-4.1": Price(2.00, 0.50, 8.00),
    "gpt-4.1-mini": Price(0.40, 0.10, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.025, 0.40),
    "gpt-4o": Price(2.50, 1.25, 10.00),
    "gpt-4o-2024-05-13": Price(5.00, 5.00, 15.00),  # the first gpt-4o snapshot kept its price
    "gpt-4o-mini": Price(0.15, 0.075, 0.60),
    "o3": Price(2.00, 0.50, 8.00),
    "o3-mini": Price(1.10, 0.55, 4.40),
    "o4-mini": Price(1.10, 0.275, 4.40),
    "gpt-4-turbo": Price(10.00, 10.00, 30.00),
    "gpt-3.5-turbo": Price(0.50, 0.50, 1.50),
}

_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")
_warned: set[str] = set()


def lookup_price(model: str) -> Price | None:
    """The price of `model`: exact name, else without an `openai/` prefix or a date suffix."""
    name = model.strip().lower().removeprefix("openai/")
    for candidate in (name, _SNAPSHOT.sub("", name)):
        if candidate in PRICES:
            return PRICES[candidate]
    return None


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int,
             cached_tokens: int = 0) -> float | None:
    """USD for one call, or None when the model is not in the table."""
    price = lookup_price(model)
    if price is None:
        if model not in _warned:
            _warned.add(model)
            logger.warning("no price known for LLM model %r; its cost is reported as n/a", model)
        return None
    cached = min(max(cached_tokens, 0), prompt_tokens)
    total = ((prompt_tokens - cached) * price.input + cached * price.cached_input
             + completion_tokens * price.output)
    return total / 1_000_000
