"""PROVISIONAL: names the built-in benchmarks need that are not part of the stable core.

The built-in benchmarks enter a2abench only through `a2abench.plugin` (tests/test_layers.py),
so whatever they need beyond the core (`a2abench.plugin.__all__`) is here: the MCP tool
channel, embeddings, the download and reply-limit helpers, record and egress helpers. These
names change whenever the built-ins need them to, without a deprecation; a third-party plugin
may use them at that risk. The multi-party names (`Scenario`, `Participant`, `Forfeit`,
`participant_input`; docs/multi-agent.md) start here while the scenarios settle. A name
moves to the core when a benchmark outside a2abench needs it and its shape has settled
(docs/writing-a-benchmark.md, "The door"). Pinned by tests/test_plugin_api.py, so that
every change here is deliberate too.
"""

from __future__ import annotations

from a2abench._gc import gc_paused
from a2abench.errors import Forfeit, RecordsError, ReplyLimitExceeded
from a2abench.llm import LLMConfig, api_key_from_env
from a2abench.llm._embeddings import EmbeddingClient
from a2abench.mcp import CallRejected, ToolResult, ToolSession, ToolSpec
from a2abench.mcp.channel import McpChannel
from a2abench.mcp.options import ToolChannelOptions
from a2abench.net.download import git_blob_sha1_file, raw_base, sha256_file
from a2abench.net.egress import egress_refusal
from a2abench.net.limits import DEFAULT_MAX_TOOL_CALLS, check_count, raw_decode
from a2abench.run.delegation import (
    DELEGATE,
    DELEGATE_DESCRIPTION,
    DELEGATE_PARAMETERS,
    DELEGATING_AGENT,
    GOLD_SPECIALIST,
    NO_SPECIALIST,
    SPECIALIST,
    BudgetSpent,
    DelegateRefused,
    DelegationOptions,
    Delegations,
    refusal_text,
    team_scenario,
)
from a2abench.run.driver import LLMUsage
from a2abench.run.events import DataProgress
from a2abench.run.match import participant_input
from a2abench.run.records import ErrorInfo
from a2abench.run.roles import Lineup, Participant, Scenario
from a2abench.run.status import SCORED_STATUSES, failed_reward

__all__ = [
    "DEFAULT_MAX_TOOL_CALLS",
    "DELEGATE",
    "DELEGATE_DESCRIPTION",
    "DELEGATE_PARAMETERS",
    "DELEGATING_AGENT",
    "GOLD_SPECIALIST",
    "NO_SPECIALIST",
    "SCORED_STATUSES",
    "SPECIALIST",
    "BudgetSpent",
    "CallRejected",
    "DataProgress",
    "DelegateRefused",
    "DelegationOptions",
    "Delegations",
    "EmbeddingClient",
    "ErrorInfo",
    "Forfeit",
    "LLMConfig",
    "LLMUsage",
    "Lineup",
    "McpChannel",
    "Participant",
    "RecordsError",
    "ReplyLimitExceeded",
    "Scenario",
    "ToolChannelOptions",
    "ToolResult",
    "ToolSession",
    "ToolSpec",
    "api_key_from_env",
    "check_count",
    "egress_refusal",
    "failed_reward",
    "gc_paused",
    "git_blob_sha1_file",
    "participant_input",
    "raw_base",
    "raw_decode",
    "refusal_text",
    "sha256_file",
    "team_scenario",
]
