"""The retry policy of every outbound call: A2A requests to the agent, LLM calls.

One value object, two default instances (`A2AConfig` and `LLMConfig` pick their own numbers).
"""

from __future__ import annotations

import email.utils
import random
from dataclasses import dataclass
from datetime import UTC, datetime

from a2abench.errors import ConfigError


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter for transient failures, bounded by count and time.

    The wait before retry n (1-based) is `base_delay_s * 2**(n-1)`, capped at `max_delay_s`,
    scaled by a random factor in [1 - jitter, 1]; a server's Retry-After replaces it. No retry
    starts once `max_attempts` calls were made (the first try counts) or when the wait would
    end more than `budget_s` after the first call started.
    """

    max_attempts: int = 5
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    budget_s: float = 300.0
    jitter: float = 0.5

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ConfigError(f"retry max_attempts must be at least 1, not {self.max_attempts}")
        for name in ("base_delay_s", "max_delay_s", "budget_s"):
            if getattr(self, name) < 0:
                raise ConfigError(f"retry {name} must not be negative")
        if not 0 <= self.jitter <= 1:
            raise ConfigError(f"retry jitter must be between 0 and 1, not {self.jitter}")

    @classmethod
    def none(cls) -> RetryPolicy:
        """One attempt, no retry."""
        return cls(max_attempts=1)

    def delay(self, attempt: int, retry_after: float | None = None,
              rng: random.Random | None = None) -> float:
        """Seconds to wait after failed attempt `attempt` (1-based)."""
        if retry_after is not None:
            return max(0.0, retry_after)
        ceiling = min(self.max_delay_s, self.base_delay_s * 2.0 ** (attempt - 1))
        return float(ceiling * (1.0 - self.jitter * (rng or random).random()))

    def retry_after(self, attempt: int, elapsed_s: float, delay_s: float) -> bool:
        """Whether to retry after failed attempt `attempt`, `elapsed_s` into the call,
        waiting `delay_s` first."""
        return attempt < self.max_attempts and elapsed_s + delay_s <= self.budget_s

def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date); None if absent or
    unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())
