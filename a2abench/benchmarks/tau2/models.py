"""tau2 records: tasks, trajectory messages and reward information.

The shapes follow upstream tau2-bench (`tau2.data_model.tasks`, `message`, `simulation`) field
for field, so task files validate the same way and records can be compared with upstream runs.
Unknown keys in task files are ignored, as upstream does (airline tasks carry `annotations`).
"""

from __future__ import annotations

import json
import textwrap
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ToolRequestor = Literal["assistant", "user"]


class RewardType(StrEnum):
    DB = "DB"
    ENV_ASSERTION = "ENV_ASSERTION"
    NL_ASSERTION = "NL_ASSERTION"
    ACTION = "ACTION"
    COMMUNICATE = "COMMUNICATE"


class TerminationReason(StrEnum):
    """Upstream's `TerminationReason` values; only the first two are scored."""

    USER_STOP = "user_stop"
    AGENT_STOP = "agent_stop"
    MAX_STEPS = "max_steps"
    TIMEOUT = "timeout"
    TOO_MANY_ERRORS = "too_many_errors"
    AGENT_ERROR = "agent_error"
    USER_ERROR = "user_error"
    INFRASTRUCTURE_ERROR = "infrastructure_error"
    CONTEXT_WINDOW_EXCEEDED = "context_window_exceeded"
    UNEXPECTED_ERROR = "unexpected_error"


def _now() -> str:
    return datetime.now().isoformat()


# --------------------------------------------------------------------------- messages


class ToolCall(BaseModel):
    id: str = ""
    name: str
    arguments: dict[str, Any]
    requestor: ToolRequestor = "assistant"


class _Participant(BaseModel):
    content: str | None = None
    tool_calls: list[ToolCall] | None = None
    turn_idx: int | None = None
    timestamp: str | None = Field(default_factory=_now)
    cost: float | None = None
    usage: dict[str, Any] | None = None
    raw_data: dict[str, Any] | None = None

    def is_tool_call(self) -> bool:
        """Upstream: a message is a tool call when `tool_calls` is not None (even if empty)."""
        return self.tool_calls is not None

    def has_text_content(self) -> bool:
        return self.content is not None and bool(self.content.strip())


class AssistantMessage(_Participant):
    role: Literal["assistant"] = "assistant"


class UserMessage(_Participant):
    role: Literal["user"] = "user"


class ToolMessage(BaseModel):
    id: str
    role: Literal["tool"] = "tool"
    content: str | None = None
    requestor: ToolRequestor = "assistant"
    error: bool = False
    turn_idx: int | None = None
    timestamp: str | None = Field(default_factory=_now)


class SystemMessage(BaseModel):
    role: Literal["system"] = "system"
    content: str | None = None
    turn_idx: int | None = None
    timestamp: str | None = Field(default_factory=_now)


Message = Annotated[AssistantMessage | UserMessage | ToolMessage | SystemMessage,
                    Field(discriminator="role")]


# --------------------------------------------------------------------------- tasks


class StructuredUserInstructions(BaseModel):
    domain: str
    reason_for_call: str
    known_info: str | None = None
    unknown_info: str | None = None
    task_instructions: str

    def __str__(self) -> str:
        tab = "\t"
        lines = [f"Domain: {self.domain}",
                 f"Reason for call:\n{textwrap.indent(self.reason_for_call, tab)}"]
        if self.known_info is not None:
            lines.append(f"Known info:\n{textwrap.indent(self.known_info, tab)}")
        if self.unknown_info is not None:
            lines.append(f"Unknown info:\n{textwrap.indent(self.unknown_info, tab)}")
        lines.append(f"Task instructions:\n{textwrap.indent(self.task_instructions, tab)}")
        return "\n".join(lines)


class UserScenario(BaseModel):
    persona: str | None = None
    instructions: StructuredUserInstructions | str

    def __str__(self) -> str:
        """Exactly the text upstream puts inside `<scenario>` for the user simulator."""
        lines = []
        if self.persona is not None:
            lines.append("Persona:")
            lines.append(textwrap.indent(self.persona, "\t"))
        lines.append("Instructions:")
        lines.append(textwrap.indent(str(self.instructions), "\t"))
        return "\n".join(lines)


class Description(BaseModel):
    purpose: str | None = None
    relevant_policies: str | None = None
    notes: str | None = None


class Action(BaseModel):
    action_id: str
    requestor: ToolRequestor = "assistant"
    name: str
    arguments: dict[str, Any]
    info: str | None = None
    compare_args: list[str] | None = None

    def compare_with_tool_call(self, tool_call: ToolCall) -> bool:
        """Same name, and equal values on `compare_args` (all of the call's args when None)."""
        if self.name != tool_call.name:
            return False
        keys = list(tool_call.arguments) if self.compare_args is None else self.compare_args
        if len(keys) == 0:
            return True
        tool_args = {k: v for k, v in tool_call.arguments.items() if k in keys}
        action_args = {k: v for k, v in self.arguments.items() if k in keys}
        return tool_args == action_args


class EnvFunctionCall(BaseModel):
    env_type: ToolRequestor
    func_name: str
    arguments: dict[str, Any]

    def __str__(self) -> str:
        return (f"Env Type: {self.env_type}\nFunc Name: {self.func_name}\n"
                f"Arguments:\n{json.dumps(self.arguments, indent=2)}")


class EnvAssertion(EnvFunctionCall):
    assert_value: bool = True
    message: str | None = None


class EvaluationCriteria(BaseModel):
    actions: list[Action] | None = None
    env_assertions: list[EnvAssertion] | None = None
    communicate_info: list[str] | None = None
    nl_assertions: list[str] | None = None
    reward_basis: list[RewardType] = Field(
        default_factory=lambda: [RewardType.DB, RewardType.COMMUNICATE])


class InitializationData(BaseModel):
    agent_data: dict[str, Any] | None = None
    user_data: dict[str, Any] | None = None


class InitialState(BaseModel):
    initialization_data: InitializationData | None = None
    initialization_actions: list[EnvFunctionCall] | None = None
    message_history: list[Message] | None = None


class Task(BaseModel):
    """One tau2 task. `str(task.user_scenario)` is what the user simulator is given."""

    model_config = ConfigDict(extra="ignore")

    id: str
    description: Description | None = None
    user_scenario: UserScenario
    ticket: str | None = None
    initial_state: InitialState | None = None
    evaluation_criteria: EvaluationCriteria | None = None
    issues: list[dict[str, Any]] | None = None
    required_documents: list[str] | None = None
    user_tools: list[str] | None = None


# --------------------------------------------------------------------------- rewards


class DBCheck(BaseModel):
    db_match: bool
    db_reward: float


class EnvAssertionCheck(BaseModel):
    env_assertion: EnvAssertion
    met: bool
    reward: float


class ActionCheck(BaseModel):
    action: Action
    action_match: bool
    action_reward: float
    tool_type: str | None = None


class CommunicateCheck(BaseModel):
    info: str
    met: bool
    justification: str


class NLAssertionCheck(BaseModel):
    nl_assertion: str
    met: bool
    justification: str


class RewardInfo(BaseModel):
    """Upstream's RewardInfo plus what a2abench records about how it was scored.

    `reward_basis` is the basis actually applied (the task's, or DB+COMMUNICATE in classic
    mode); `nl_skipped` is true when NL_ASSERTION was in that basis but no judge was available,
    so the reward was computed without it (and must not be read as an official pass).
    """

    reward: float
    reward_basis: list[RewardType] | None = None
    reward_breakdown: dict[RewardType, float] | None = None
    db_check: DBCheck | None = None
    env_assertions: list[EnvAssertionCheck] | None = None
    action_checks: list[ActionCheck] | None = None
    communicate_checks: list[CommunicateCheck] | None = None
    nl_assertions: list[NLAssertionCheck] | None = None
    info: dict[str, Any] | None = None
    nl_skipped: bool = False
    reward_basis_mode: Literal["official", "classic"] = "official"
