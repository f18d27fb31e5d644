"""Everything a benchmark plugin needs, from one module (docs/writing-a-benchmark.md).

A benchmark is a `Driver[Options]` subclass registered under the entry-point group
`ENTRY_POINT_GROUP` ("a2abench.benchmarks") in the plugin's own pyproject.toml:

    [project.entry-points."a2abench.benchmarks"]
    mybench = "mybench.driver:MyDriver"

The engine loads tasks (`Driver.tasks()`), runs each task-trial (`Driver.run_task(ctx)`),
and owns concurrency, retries, records, resume and shards. A driver talks to the agent through
`ctx.conversation()` (an A2A `Conversation`), may call LLMs through `build_llm`, pins its data
with `RemoteFile` + `ensure_files`, and reports failures as `TaskOutcome(status=...)` or by
raising one of the errors below (the engine records them by kind). Each field of the options
model is a flag of `a2abench run <name>` (`--field-name`, `A2ABENCH_FIELD_NAME`, help from its
description); `option()` says more about a flag, `LLMOptions` is a base with the LLM flags.

Two rules every benchmark needs are here so that a plugin scores like the built-ins:
- `agent_input(what)`: wrap the code that processes what the agent sent; whatever it raises
  is the agent's failure (`agent_error`, scored 0), never an unscored harness error.
- a reply whose A2A task ended failed, rejected, canceled or auth-required raises
  `ProtocolError` (`AgentReply.raise_for_state`, called by `ctx.conversation()` unless it
  is opened with `raise_for_state=False`), so a failed task's text is never scored.
- `evaluator_failure(exc, quirk)`: the `ErrorInfo` for a scorer that raised on a finished
  conversation (`TaskOutcome(status="evaluator_error", error=...)`).

This is the only door: the built-in benchmarks (tau2, CRMArena) import nothing else of
a2abench (tests/test_layers.py). Nothing here is private API; names are added, never
silently changed (tests pin `__all__`).
"""

from __future__ import annotations

from a2abench._paths import cache_dir
from a2abench._version import __version__ as A2ABENCH_VERSION
from a2abench.a2a import (
    A2AClient,
    AgentReply,
    Conversation,
    DataPart,
    FilePart,
    Message,
    TextPart,
)
from a2abench.a2a.models import Part, TaskState
from a2abench.errors import (
    A2ABenchError,
    AgentError,
    ConfigError,
    DataCorrupt,
    DataError,
    DataMissing,
    InfrastructureError,
    LLMError,
    ProtocolError,
    RecordsError,
    ReplyLimitExceeded,
    SalesforceUnavailable,
)
from a2abench.llm import (
    ChatLLM,
    ChatResult,
    LLMArgs,
    LLMConfig,
    LLMOptions,
    api_key_from_env,
    build_llm,
)
from a2abench.llm._embeddings import EmbeddingClient
from a2abench.mcp import CallRejected, McpLimits, ToolResult, ToolSession, ToolSpec
from a2abench.mcp.channel import McpChannel
from a2abench.mcp.options import ToolChannelOptions
from a2abench.net.download import RemoteFile, git_blob_sha1_file, raw_base, sha256_file
from a2abench.net.download import ensure as ensure_files
from a2abench.net.egress import egress_refusal
from a2abench.net.limits import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_TOOL_CALLS,
    check_count,
    loads,
    raw_decode,
)
from a2abench.options import option
from a2abench.run.driver import (
    DataSet,
    Driver,
    EngineTermination,
    Exporter,
    ExportFormat,
    ExportResult,
    ExportWriter,
    LLMUsage,
    OptionsT,
    Skill,
    TaskContext,
    TaskOutcome,
    TaskSpec,
    agent_input,
    evaluator_failure,
)
from a2abench.run.events import DataProgress
from a2abench.run.records import ErrorInfo, Scoring, TaskRecord, TaskStatus
from a2abench.run.registry import GROUP as ENTRY_POINT_GROUP
from a2abench.run.registry import register, unregister
from a2abench.run.status import SCORED_STATUSES, failed_reward, is_success
from a2abench.run.writer import iter_records

__all__ = [
    "A2ABENCH_VERSION",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_TOOL_CALLS",
    "ENTRY_POINT_GROUP",
    "SCORED_STATUSES",
    "A2ABenchError",
    "A2AClient",
    "AgentError",
    "AgentReply",
    "CallRejected",
    "ChatLLM",
    "ChatResult",
    "ConfigError",
    "Conversation",
    "DataCorrupt",
    "DataError",
    "DataMissing",
    "DataPart",
    "DataProgress",
    "DataSet",
    "Driver",
    "EmbeddingClient",
    "EngineTermination",
    "ErrorInfo",
    "ExportFormat",
    "ExportResult",
    "ExportWriter",
    "Exporter",
    "FilePart",
    "InfrastructureError",
    "LLMArgs",
    "LLMConfig",
    "LLMError",
    "LLMOptions",
    "LLMUsage",
    "McpChannel",
    "McpLimits",
    "Message",
    "OptionsT",
    "Part",
    "ProtocolError",
    "RecordsError",
    "RemoteFile",
    "ReplyLimitExceeded",
    "SalesforceUnavailable",
    "Scoring",
    "Skill",
    "TaskContext",
    "TaskOutcome",
    "TaskRecord",
    "TaskSpec",
    "TaskState",
    "TaskStatus",
    "TextPart",
    "ToolChannelOptions",
    "ToolResult",
    "ToolSession",
    "ToolSpec",
    "agent_input",
    "api_key_from_env",
    "build_llm",
    "cache_dir",
    "check_count",
    "egress_refusal",
    "ensure_files",
    "evaluator_failure",
    "failed_reward",
    "git_blob_sha1_file",
    "is_success",
    "iter_records",
    "loads",
    "option",
    "raw_base",
    "raw_decode",
    "register",
    "sha256_file",
    "unregister",
]
