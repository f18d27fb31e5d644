"""The door for benchmark plugins: the stable core (docs/writing-a-benchmark.md).

A benchmark is a `Driver[Options]` subclass registered under the entry-point group
`ENTRY_POINT_GROUP` ("a2abench.benchmarks") in the plugin's own pyproject.toml:

    [project.entry-points."a2abench.benchmarks"]
    mybench = "mybench.driver:MyDriver"

The engine loads tasks (`Driver.tasks()`), runs each task-trial (`Driver.run_task(ctx)`) and
owns concurrency, retries, records, resume and shards. Every name in `__all__` is part of
the stable core a third party can rely on: added to, never changed or removed without a
deprecation (tests/test_plugin_api.py pins the list). The groups:

- the benchmark interface: `Driver`, `TaskSpec`, `TaskContext`, `TaskOutcome`, `TaskStatus`,
  `TaskRecord` (what `rescore` gets), `Scoring`, `Skill`, `DataSet`, `Exporter`,
  `ExportFormat`, `ExportResult`, `iter_records` (an export format reads its records);
- talking to the agent: `ctx.conversation()` gives a `Conversation`; `send(...)` takes
  strings (a `TextPart` each), dicts (a `DataPart` each) and parts, and returns an
  `AgentReply` (`.text`, `.data`, `.parts`, `.state`, a `TaskState`); `Part`, `TextPart`,
  `DataPart`, `FilePart`;
- the rules that keep an agent from escaping its score: `agent_input(what)` (whatever the
  code processing the agent's input raises is the agent's failure, scored 0), `loads` with
  `DEFAULT_MAX_DEPTH` (bounded JSON), `evaluator_failure(exc, quirk)` (a scorer that raised
  on a finished conversation), `is_success` (tau2's pass rule); a reply whose A2A task ended
  failed, rejected, canceled or auth-required raises `ProtocolError` by itself;
- errors, recorded by kind: `A2ABenchError`, `AgentError`, `ProtocolError` (the agent's
  fault, scored 0), `InfrastructureError`, `LLMError` (not scored, re-run with `--resume
  --retry-errors`), `ConfigError`, `DataError`, `DataMissing`, `DataCorrupt`;
- options and LLMs: `option()` (what a field alone cannot say about its flag), `LLMOptions`
  (the user-simulator and judge flags), `build_llm`, `ChatLLM`, `ChatResult`;
- data: `RemoteFile`, `ensure_files`, `cache_dir`;
- registration: `ENTRY_POINT_GROUP`, `register`, `unregister` (in-process, e.g. for tests);
  `A2ABENCH_VERSION`.

Names only the built-in benchmarks need (the MCP tool channel, embeddings, download and
limit helpers) are in `a2abench.plugin.provisional`: the same door, outside the stable core,
changed whenever the built-ins change. The built-in benchmarks (tau2, CRMArena) import
nothing else of a2abench (tests/test_layers.py); the example plugin uses the core alone.
"""

from __future__ import annotations

from a2abench._paths import cache_dir
from a2abench._version import __version__ as A2ABENCH_VERSION
from a2abench.a2a import AgentReply, Conversation, DataPart, FilePart, TextPart
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
)
from a2abench.llm import ChatLLM, ChatResult, LLMOptions, build_llm
from a2abench.net.download import RemoteFile
from a2abench.net.download import ensure as ensure_files
from a2abench.net.limits import DEFAULT_MAX_DEPTH, loads
from a2abench.options import option
from a2abench.run.driver import (
    DataSet,
    Driver,
    Exporter,
    ExportFormat,
    ExportResult,
    Skill,
    TaskContext,
    TaskOutcome,
    TaskSpec,
    agent_input,
    evaluator_failure,
)
from a2abench.run.records import Scoring, TaskRecord, TaskStatus
from a2abench.run.registry import GROUP as ENTRY_POINT_GROUP
from a2abench.run.registry import register, unregister
from a2abench.run.status import is_success
from a2abench.run.writer import iter_records

__all__ = [
    "A2ABENCH_VERSION",
    "DEFAULT_MAX_DEPTH",
    "ENTRY_POINT_GROUP",
    "A2ABenchError",
    "AgentError",
    "AgentReply",
    "ChatLLM",
    "ChatResult",
    "ConfigError",
    "Conversation",
    "DataCorrupt",
    "DataError",
    "DataMissing",
    "DataPart",
    "DataSet",
    "Driver",
    "ExportFormat",
    "ExportResult",
    "Exporter",
    "FilePart",
    "InfrastructureError",
    "LLMError",
    "LLMOptions",
    "Part",
    "ProtocolError",
    "RemoteFile",
    "Scoring",
    "Skill",
    "TaskContext",
    "TaskOutcome",
    "TaskRecord",
    "TaskSpec",
    "TaskState",
    "TaskStatus",
    "TextPart",
    "agent_input",
    "build_llm",
    "cache_dir",
    "ensure_files",
    "evaluator_failure",
    "is_success",
    "iter_records",
    "loads",
    "option",
    "register",
    "unregister",
]
