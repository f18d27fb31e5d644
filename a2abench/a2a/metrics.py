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
                total += _data_len(value)
            else:
                total += content_chars(value)
        return total
    if isinstance(obj, list):
        return sum(content_chars(v) for v in obj)
    return 0


# id(value) -> (value, length). A tau2 first message's data part holds the run's tool schemas
# (~30 KB) in the same objects for every task-trial; walking them again each time was the
# largest CPU cost of sending it. Entries keep their object alive, so an id is never reused
# while cached; the size bound keeps the memo small.
_DATA_LENS: dict[int, tuple[Any, int]] = {}
_DATA_LENS_MAX = 256


def _data_len(value: Any, depth: int = 0) -> int:
    """`_json_len` of a data part's value, with its top levels remembered by identity: parts
    are built fresh per message ({"tools": [...]}), but the schemas inside are the run's own
    shared objects. A cached object is held alive, so its id cannot be reused meanwhile."""
    if not isinstance(value, dict | list):
        return _json_len(value)
    entry = _DATA_LENS.get(id(value))
    if entry is not None and entry[0] is value:
        return entry[1]
    if depth >= 2:
        length = _json_len(value)
    elif isinstance(value, dict):  # the same sums as _json_len, children looked up first
        length = sum(len(str(k)) + 4 + _data_len(v, depth + 1) for k, v in value.items()) + 2
    else:
        length = sum(_data_len(v, depth + 1) + 2 for v in value) + 2
    if len(_DATA_LENS) >= _DATA_LENS_MAX:
        _DATA_LENS.clear()
    _DATA_LENS[id(value)] = (value, length)
    return length


def _json_len(value: Any) -> int:
    if isinstance(value, str):
        return len(value) + 2
    if isinstance(value, dict):
        return sum(len(str(k)) + 4 + _json_len(v) for k, v in value.items()) + 2
    if isinstance(value, list):
        return sum(_json_len(v) + 2 for v in value) + 2
    return len(str(value))
