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

Nothing here is private API; names are added, never silently changed (tests pin `__all__`).
"""

from __future__ import annotations

from a2abench._download import RemoteFile
from a2abench._download import ensure as ensure_files
from a2abench.a2a import (
    AgentReply,
    Conversation,
    DataPart,
    FilePart,
    Message,
    TextPart,
)
from a2abench.errors import (
    A2ABenchError,
    AgentError,
    ConfigError,
    DataCorrupt,
    DataMissing,
    InfrastructureError,
    ProtocolError,
)
from a2abench.llm import ChatLLM, ChatResult, LLMArgs, LLMOptions, build_llm
from a2abench.options import option
from a2abench.run.driver import (
    Driver,
    EngineTermination,
    Exporter,
    LLMUsage,
    OptionsT,
    TaskContext,
    TaskOutcome,
    TaskSpec,
)
from a2abench.run.records import ErrorInfo, Scoring, TaskRecord, TaskStatus
from a2abench.run.registry import GROUP as ENTRY_POINT_GROUP
from a2abench.run.registry import register, unregister

__all__ = [
    "ENTRY_POINT_GROUP",
    "A2ABenchError",
    "AgentError",
    "AgentReply",
    "ChatLLM",
    "ChatResult",
    "ConfigError",
    "Conversation",
    "DataCorrupt",
    "DataMissing",
    "DataPart",
    "Driver",
    "EngineTermination",
    "ErrorInfo",
    "Exporter",
    "FilePart",
    "InfrastructureError",
    "LLMArgs",
    "LLMOptions",
    "LLMUsage",
    "Message",
    "OptionsT",
    "ProtocolError",
    "RemoteFile",
    "Scoring",
    "TaskContext",
    "TaskOutcome",
    "TaskRecord",
    "TaskSpec",
    "TaskStatus",
    "TextPart",
    "build_llm",
    "ensure_files",
    "option",
    "register",
    "unregister",
]
