"""A2A protocol core: normalized models, card discovery, and a client for dialects 0.2/0.3/1.0
over JSON-RPC, HTTP+JSON and gRPC.

Importing this package pulls in httpx and pydantic; the CLI imports it inside commands only.
"""

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
