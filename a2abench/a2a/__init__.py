"""A2A protocol core: normalized models, card discovery, and a client for dialects 0.2/0.3/1.0
over JSON-RPC, HTTP+JSON and gRPC.

The names below load on first use: a submodule such as `a2abench.a2a.metrics` (which `report`
reads) imports without the client, the card fetcher and httpx (~0.2 s of every `report`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from a2abench.a2a.card import CardFetch, fetch_card
    from a2abench.a2a.client import A2AClient, AgentReply, Conversation, select_interface
    from a2abench.a2a.config import A2AConfig
    from a2abench.a2a.dialects import parse_card, parse_message, parse_result, parse_task
    from a2abench.a2a.metrics import ProtocolMetrics
    from a2abench.a2a.models import (
        AgentCard,
        Artifact,
        DataPart,
        FilePart,
        Message,
        Task,
        TaskState,
        TextPart,
    )
    from a2abench.net.limits import ReplyLimits
    from a2abench.net.retry import RetryPolicy

# Each exported name and the module that defines it.
_WHERE = {
    **dict.fromkeys(["CardFetch", "fetch_card"], "a2abench.a2a.card"),
    **dict.fromkeys(["A2AClient", "AgentReply", "Conversation", "select_interface"],
                    "a2abench.a2a.client"),
    "A2AConfig": "a2abench.a2a.config",
    **dict.fromkeys(["parse_card", "parse_message", "parse_result", "parse_task"],
                    "a2abench.a2a.dialects"),
    "ProtocolMetrics": "a2abench.a2a.metrics",
    **dict.fromkeys(["AgentCard", "Artifact", "DataPart", "FilePart", "Message", "Task",
                     "TaskState", "TextPart"], "a2abench.a2a.models"),
    "ReplyLimits": "a2abench.net.limits",
    "RetryPolicy": "a2abench.net.retry",
}

__all__ = [
    "A2AClient",
    "A2AConfig",
    "AgentCard",
    "AgentReply",
    "Artifact",
    "CardFetch",
    "Conversation",
    "DataPart",
    "FilePart",
    "Message",
    "ProtocolMetrics",
    "ReplyLimits",
    "RetryPolicy",
    "Task",
    "TaskState",
    "TextPart",
    "fetch_card",
    "parse_card",
    "parse_message",
    "parse_result",
    "parse_task",
    "select_interface",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'a2abench.a2a' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
