from __future__ import annotations

import logging

import pytest

from a2abench.llm import PRICES, cost_usd, lookup_price


@pytest.mark.parametrize(("model", "base"), [
    ("gpt-4.1", "gpt-4.1"),
    ("gpt-4.1-2025-04-14", "gpt-4.1"),
    ("openai/gpt-4.1-mini", "gpt-4.1-mini"),
    ("GPT-4o-mini-2024-07-18", "gpt-4o-mini"),
    ("gpt-4o-2024-08-06", "gpt-4o"),
    ("gpt-4o-2024-05-13", "gpt-4o-2024-05-13"),  # an exact entry beats the stripped date
])
def test_lookup_finds_snapshots_and_prefixed_names(model: str, base: str) -> None:
    assert lookup_price(model) == PRICES[base]


def test_cost_uses_input_cached_and_output_prices() -> None:
    # gpt-4o-mini: $0.15 input, $0.075 cached input, $0.60 output per million tokens.
    assert cost_usd("gpt-4o-mini", 1_000_000, 0) == pytest.approx(0.15)
    assert cost_usd("gpt-4o-mini", 0, 1_000_000) == pytest.approx(0.60)
    assert cost_usd("gpt-4o-mini", 1_000_000, 0, cached_tokens=1_000_000) == \
        pytest.approx(0.075)
    # cached tokens are a part of prompt tokens and cannot exceed them
    assert cost_usd("gpt-4o-mini", 10, 0, cached_tokens=50) == pytest.approx(10 * 0.075 / 1e6)


def test_unknown_model_is_none_with_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="a2abench.llm"):
        assert cost_usd("llama-unpriced-test", 100, 100) is None
        assert cost_usd("llama-unpriced-test", 5, 5) is None
    assert [r.getMessage() for r in caplog.records] == \
        ["no price known for LLM model 'llama-unpriced-test'; its cost is reported as n/a"]


def test_every_price_is_sane() -> None:
    for name, price in PRICES.items():
        assert name == name.lower()
        assert 0 < price.cached_input <= price.input < price.output, name
