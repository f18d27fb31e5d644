"""Per-request ProtocolMetrics (the seed data model, plus bytes) and the hook that carries them."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel


class ProtocolMetrics(BaseModel):
    """One attempt (HTTP request or gRPC call) of one A2A call. Token counts are estimates
    (characters / 4)."""

    request_id: str
    endpoint: str
    method: str
    binding: str = "JSONRPC"  # JSONRPC | HTTP+JSON | GRPC
    attempt: int = 1
    status_code: int | None = None  # HTTP status; None for gRPC (see grpc_status)
    grpc_status: str | None = None  # gRPC status code name, e.g. OK, UNAVAILABLE
    latency_ms: float
    first_event_ms: float | None = None  # streaming only
    input_tokens: int = 0
    output_tokens: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    context_id: str | None = None
    error: str | None = None
    timestamp: str


MetricsHook = Callable[[ProtocolMetrics], None]


def estimate_tokens(chars: int) -> int:
    """A model-free estimate: about four characters per token for English text and JSON."""
    return math.ceil(chars / 4) if chars > 0 else 0


def content_chars(obj: Any) -> int:
    """Characters of message content in a JSON value: text parts and data parts' values."""
    if isinstance(obj, dict):
        total = 0
        for key, value in obj.items():
            if key == "text" and isinstance(value, str):
                total += len(value)
            elif key == "data" and not isinstance(value, str):
                total += _json_len(value)
            else:
                total += content_chars(value)
        return total
    if isinstance(obj, list):
        return sum(content_chars(v) for v in obj)
    return 0


def _json_len(value: Any) -> int:
    if isinstance(value, str):
        return len(value) + 2
    if isinstance(value, dict):
        return sum(len(str(k)) + 4 + _json_len(v) for k, v in value.items()) + 2
    if isinstance(value, list):
        return sum(_json_len(v) + 2 for v in value) + 2
    return len(str(value))
