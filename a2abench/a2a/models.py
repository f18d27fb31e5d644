"""Normalized A2A models: one shape for what every dialect (0.2, 0.3, 1.0) says.

Parsing from wire JSON lives in `dialects.py`; these models are dialect-free. Enum values use
the 0.x spelling (`input-required`), which is also what we write in metrics.jsonl.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Dialect = Literal["0.2", "0.3", "1.0"]
Role = Literal["user", "agent"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=False, extra="ignore", populate_by_name=True)


class TextPart(_Model):
    kind: Literal["text"] = "text"
    text: str
    metadata: dict[str, Any] | None = None


class DataPart(_Model):
    kind: Literal["data"] = "data"
    data: Any
    metadata: dict[str, Any] | None = None


class FilePart(_Model):
    kind: Literal["file"] = "file"
    uri: str | None = None
    bytes: str | None = None  # base64, as on the wire
    mime_type: str | None = None
    name: str | None = None
    metadata: dict[str, Any] | None = None


Part = Annotated[TextPart | DataPart | FilePart, Field(discriminator="kind")]


class Message(_Model):
    role: Role
    parts: list[Part] = Field(default_factory=list)
    message_id: str
    context_id: str | None = None
    task_id: str | None = None
    metadata: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.parts if isinstance(p, TextPart))


class TaskState(StrEnum):
    SUBMITTED = "submitted"
    WORKING = "working"
    INPUT_REQUIRED = "input-required"
    AUTH_REQUIRED = "auth-required"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELED = "canceled"
    REJECTED = "rejected"
    UNKNOWN = "unknown"

    @property
    def terminal(self) -> bool:
        return self in _TERMINAL

    @property
    def interrupted(self) -> bool:
        """The agent waits for the client: a blocking call returns here too."""
        return self in (TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED)

    @property
    def settled(self) -> bool:
        """Nothing more will happen without the client: terminal or interrupted."""
        return self.terminal or self.interrupted


_TERMINAL = frozenset({TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED,
                       TaskState.REJECTED})


class TaskStatus(_Model):
    state: TaskState = TaskState.UNKNOWN
    message: Message | None = None
    timestamp: str | None = None


class Artifact(_Model):
    artifact_id: str | None = None
    name: str | None = None
    description: str | None = None
    parts: list[Part] = Field(default_factory=list)
    metadata: dict[str, Any] | None = None


class Task(_Model):
    id: str
    context_id: str | None = None
    status: TaskStatus = Field(default_factory=TaskStatus)
    artifacts: list[Artifact] = Field(default_factory=list)
    history: list[Message] = Field(default_factory=list)
    metadata: dict[str, Any] | None = None


class StatusUpdate(_Model):
    task_id: str | None = None
    context_id: str | None = None
    status: TaskStatus
    final: bool = False


class ArtifactUpdate(_Model):
    task_id: str | None = None
    context_id: str | None = None
    artifact: Artifact
    append: bool = False
    last_chunk: bool = False


StreamEvent = Task | Message | StatusUpdate | ArtifactUpdate


# --- agent card -------------------------------------------------------------------------------

Binding = str  # "JSONRPC" | "HTTP+JSON" | "GRPC" | anything a card invents


class AgentInterface(_Model):
    url: str
    binding: Binding = "JSONRPC"
    protocol_version: str | None = None
    tenant: str | None = None


class AgentSkill(_Model):
    id: str = ""
    name: str = ""
    description: str = ""
    tags: list[str] = Field(default_factory=list)
    examples: list[str] = Field(default_factory=list)
    input_modes: list[str] = Field(default_factory=list)
    output_modes: list[str] = Field(default_factory=list)


class AgentCapabilities(_Model):
    streaming: bool | None = None
    push_notifications: bool | None = None
    state_transition_history: bool | None = None
    extended_agent_card: bool | None = None
    extensions: list[dict[str, Any]] = Field(default_factory=list)


class AgentProvider(_Model):
    organization: str | None = None
    url: str | None = None


class SecurityScheme(_Model):
    type: str  # apiKey | http | oauth2 | openIdConnect | mutualTLS
    description: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class AgentCard(_Model):
    name: str = ""
    description: str = ""
    version: str = ""
    dialect: Dialect
    protocol_version: str | None = None  # the card-level version (0.x); None for 1.0 cards
    provider: AgentProvider | None = None
    documentation_url: str | None = None
    icon_url: str | None = None
    interfaces: list[AgentInterface] = Field(default_factory=list)
    capabilities: AgentCapabilities = Field(default_factory=AgentCapabilities)
    default_input_modes: list[str] = Field(default_factory=list)
    default_output_modes: list[str] = Field(default_factory=list)
    skills: list[AgentSkill] = Field(default_factory=list)
    security_schemes: dict[str, SecurityScheme] = Field(default_factory=dict)
    security: list[dict[str, list[str]]] = Field(default_factory=list)
