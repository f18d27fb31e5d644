"""A task-trial's environment: tool dispatch, initial state, replay and DB hashes.

Mirrors upstream's `tau2.environment.environment.Environment`: tool calls run by requestor on the
agent or the user toolkit; any exception becomes `ToolMessage(error=True, content="Error: ...")`;
results are serialized by `to_json_str`. Building one is cheap: the toolkits work on
copy-on-write views of the domain's shared base DBs.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, Protocol

from a2abench.benchmarks.tau2.db import StateDB, same_state
from a2abench.benchmarks.tau2.models import (
    AssistantMessage,
    EnvAssertion,
    EnvFunctionCall,
    InitializationData,
    Task,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from a2abench.benchmarks.tau2.toolkit import Toolkit, to_json_str
from a2abench.plugin import A2ABenchError


class DomainSchemas(Protocol):
    """What an environment asks of its domain (`domain_core.Tau2Domain`): the tool schemas,
    which the domain computes once and copies out."""

    def agent_tool_schemas(self) -> list[dict[str, Any]]: ...

    def user_tool_schemas(self) -> list[dict[str, Any]]: ...


class ReplayMismatch(A2ABenchError):
    """Replaying a trajectory gave a tool result different from the recorded one."""


class Tau2Environment:
    """Tools and state of one task-trial. Create with `Tau2Domain.new_environment(task)`."""

    def __init__(self, domain: DomainSchemas, tools: Toolkit[StateDB],
                 user_tools: Toolkit[StateDB] | None,
                 sync: Callable[[Tau2Environment], None] | None = None) -> None:
        self.domain = domain
        self.tools = tools
        self.user_tools = user_tools
        self._sync = sync
        self.task: Task | None = None  # set by Tau2Domain.new_environment
        self.blocking = False  # tools may do network I/O: run them off the event loop
        self.solo = False  # see set_solo
        self.sync_tools()

    @cached_property
    def cancelled(self) -> threading.Event:
        """Set when the task-trial is cancelled: tools still running in a worker thread stop.
        Made on first use: most environments (the evaluator's, every mock or airline one)
        never need it, and an Event cost ~10% of building one."""
        return threading.Event()

    def set_solo(self) -> None:
        """Solo mode (upstream `set_solo_mode`): the agent's calls to the user's tools run on
        the user toolkit, and user tool calls are refused."""
        if self.user_tools is not None:
            overlap = set(self.tools.tool_defs()) & set(self.user_tools.tool_defs())
            if overlap:
                raise ValueError(f"Tool names overlap: {overlap}")
        self.solo = True

    # ------------------------------------------------------------------ schemas
    def agent_tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function schemas of the agent's tools (complete, with `$defs`)."""
        return self.domain.agent_tool_schemas()

    def user_tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function schemas of the user simulator's tools (empty without user tools),
        restricted to the task's `user_tools` when it lists them (upstream v1.0)."""
        schemas = self.domain.user_tool_schemas()
        wanted = self.task.user_tools if self.task is not None else None
        if wanted is None:
            return schemas
        names = {s["function"]["name"] for s in schemas}
        unknown = set(wanted) - names
        if unknown:
            raise ValueError(f"Tool(s) not found: {sorted(unknown)}. Available: {sorted(names)}")
        return [s for s in schemas if s["function"]["name"] in set(wanted)]

    # ------------------------------------------------------------------ execution
    def make_tool_call(self, name: str, requestor: str = "assistant", /, **kwargs: Any) -> Any:
        """Run one tool for `requestor`, raising what the tool raises (no sync)."""
        if requestor == "user":
            if self.solo:
                raise ValueError("User tool calls are not allowed in solo mode")
            if self.user_tools is None:
                raise ValueError("User tools not available")
            return self.user_tools.use_tool(name, **kwargs)
        if requestor == "assistant":
            if self.solo and self.user_tools is not None and self.user_tools.has_tool(name):
                return self.user_tools.use_tool(name, **kwargs)
            return self.tools.use_tool(name, **kwargs)
        raise ValueError(f"Invalid requestor: {requestor}")

    def execute(self, call: ToolCall) -> ToolMessage:
        """Upstream `get_response`: run the call, then sync; errors become `Error: ...`."""
        error = False
        try:
            resp = self._dispatch(call)
            self.sync_tools()
        except Exception as exc:  # upstream turns every tool exception into the message
            resp = f"Error: {exc}"
            error = True
        return ToolMessage(id=call.id, content=to_json_str(resp), requestor=call.requestor,
                           error=error)

    def _dispatch(self, call: ToolCall) -> Any:
        # Upstream calls make_tool_call(name, requestor=..., **arguments): arguments named like
        # its own parameters make Python raise these TypeErrors, which the agent then sees.
        prefix = "Environment.make_tool_call() got multiple values for"
        if "requestor" in call.arguments:  # CPython names the module in this one
            raise TypeError(f"tau2.environment.environment.{prefix} keyword argument 'requestor'")
        for key in call.arguments:
            if key in ("self", "tool_name"):
                raise TypeError(f"{prefix} argument '{key}'")
        return self.make_tool_call(call.name, call.requestor, **call.arguments)

    def sync_tools(self) -> None:
        """Propagate state between the two sides (telecom only; a no-op elsewhere)."""
        if self._sync is not None:
            self._sync(self)

    # ------------------------------------------------------------------ env functions
    def run_env_function_call(self, call: EnvFunctionCall) -> Any:
        """Any toolkit method (tools and helpers) by name, then sync, as upstream."""
        if call.env_type == "user":
            kit: Any = self.user_tools
        elif call.env_type == "assistant":
            kit = self.tools
        else:
            raise ValueError(f"Invalid environment type: {call.env_type}")
        result = getattr(kit, call.func_name)(**call.arguments)
        self.sync_tools()
        return result

    def run_env_assertion(self, assertion: EnvAssertion) -> bool:
        """Whether the assertion's function returns `assert_value` on the current state."""
        result = self.run_env_function_call(assertion)
        if not isinstance(result, bool):
            raise ValueError(f"Function {assertion.func_name} returned {type(result)} "
                             "instead of bool")
        return result == assertion.assert_value

    # ------------------------------------------------------------------ state
    def apply_initialization(self, data: InitializationData | None,
                             actions: Sequence[EnvFunctionCall] | None) -> None:
        if data is not None:
            if data.agent_data is not None:
                self.tools.db.patch(data.agent_data)
                # Upstream quirk: after an agent-data patch the user toolkit is pointed at the
                # agent DB (Environment.set_state re-links `user_tools.db = tools.db`).
                if self.user_tools is not None:
                    self.user_tools.db = self.tools.db
            if data.user_data is not None:
                if self.user_tools is None:
                    raise AttributeError("'NoneType' object has no attribute 'update_db'")
                self.user_tools.db.patch(data.user_data)
                self.tools.db = self.user_tools.db  # the same quirk, the other way round
        for action in actions or []:
            self.run_env_function_call(action)

    def replay(self, messages: Sequence[Any], *, strict: bool = True) -> None:
        """Re-run the state-changing calls of a trajectory (upstream v1.0 `set_state`).

        Unknown tool names and non-mutating tools are skipped; with `strict`, a replayed result
        that differs from the recorded one (after `json.loads`) raises `ReplayMismatch`.
        """
        for call, recorded in tool_call_pairs(messages):
            kit = self._owner(call.name)
            if kit is None or not kit.tool_defs()[call.name].mutates_state:
                continue
            result = self.execute(call)
            if strict and not _same_result(result.content, recorded.content):
                raise ReplayMismatch(
                    f"replaying tool call {call.name} ({call.id}) returned {result.content!r}, "
                    f"recorded {recorded.content!r}",
                    hint="The trajectory was not produced by this environment and task")
        self.sync_tools()

    def _owner(self, name: str) -> Toolkit[StateDB] | None:
        for kit in (self.tools, self.user_tools):
            if kit is not None and kit.has_tool(name):
                return kit
        return None

    def db_hash(self) -> str:
        """Upstream's agent DB hash (SHA-256 over the canonical JSON of the whole DB)."""
        return self.tools.db.db_hash()

    def user_db_hash(self) -> str | None:
        return None if self.user_tools is None else self.user_tools.db.db_hash()

    def same_db_as(self, other: Tau2Environment) -> bool:
        """Upstream's DB check: equal agent-DB hashes and equal user-DB hashes."""
        if not same_state(self.tools.db, other.tools.db):
            return False
        if self.user_tools is None or other.user_tools is None:
            return self.user_tools is other.user_tools
        if self.user_tools.db is self.tools.db and other.user_tools.db is other.tools.db:
            return True  # one DB per side (banking's toolkits share it): compared above
        return same_state(self.user_tools.db, other.user_tools.db)

    def views(self) -> tuple[StateDB, StateDB | None]:
        return self.tools.db, None if self.user_tools is None else self.user_tools.db


def _same_result(replayed: str | None, recorded: str | None) -> bool:
    """Upstream's check, `json.loads` of both equal; equal texts skip the parsing (but not
    with a NaN, which never equals itself)."""
    if replayed == recorded and (replayed is None or "NaN" not in replayed):
        return True
    return bool(_loads(replayed) == _loads(recorded))


def _loads(content: str | None) -> Any:
    try:
        return json.loads(content) if content is not None else None
    except json.JSONDecodeError:
        return content


def tool_call_pairs(messages: Sequence[Any]) -> list[tuple[ToolCall, ToolMessage]]:
    """(call, result) pairs in order; each call must be followed by its ToolMessage (same id)."""
    pairs: list[tuple[ToolCall, ToolMessage]] = []
    queue = list(messages)[::-1]
    while queue:
        message = queue.pop()
        if isinstance(message, ToolMessage):
            raise ValueError("Tool message not expected. Tool messages should always follow "
                             "a tool call.")
        if isinstance(message, AssistantMessage | UserMessage) and message.is_tool_call():
            for call in message.tool_calls or []:
                if not queue:
                    raise ValueError("Tool message expected. Got None.")
                result = queue.pop()
                if not isinstance(result, ToolMessage):
                    raise ValueError(f"Tool message expected. Got {type(result)}")
                if call.id != result.id:
                    raise ValueError(f"Tool call id mismatch. Got {call.id} and {result.id}")
                pairs.append((call, result))
    return pairs
