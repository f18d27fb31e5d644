"""Wire JSON <-> normalized models, for A2A 0.2, 0.3 and 1.0 (a2a.md §1).

Parsing is lenient (unknown fields ignored, both enum spellings accepted, `kind` optional)
because agents drift; what cannot be read raises ProtocolError naming the field.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from a2abench.a2a.models import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    Artifact,
    ArtifactUpdate,
    DataPart,
    Dialect,
    FilePart,
    Message,
    Part,
    Role,
    SecurityScheme,
    StatusUpdate,
    StreamEvent,
    Task,
    TaskState,
    TaskStatus,
    TextPart,
)
from a2abench.errors import ProtocolError

# JSON-RPC method names per dialect (a2a.md §1.2).
METHODS: dict[Dialect, dict[str, str]] = {
    "0.2": {"send": "message/send", "stream": "message/stream", "get": "tasks/get",
            "cancel": "tasks/cancel"},
    "0.3": {"send": "message/send", "stream": "message/stream", "get": "tasks/get",
            "cancel": "tasks/cancel"},
    "1.0": {"send": "SendMessage", "stream": "SendStreamingMessage", "get": "GetTask",
            "cancel": "CancelTask"},
}

_STATE_ALIASES = {
    **{s.value: s for s in TaskState},
    **{"TASK_STATE_" + s.name: s for s in TaskState},
    "TASK_STATE_UNSPECIFIED": TaskState.UNKNOWN,
    "TASK_STATE_CANCELLED": TaskState.CANCELED,
    "cancelled": TaskState.CANCELED,
    "input_required": TaskState.INPUT_REQUIRED,
    "auth_required": TaskState.AUTH_REQUIRED,
}
_STATE_NUMBERS = {0: TaskState.UNKNOWN, 1: TaskState.SUBMITTED, 2: TaskState.WORKING,
                  3: TaskState.COMPLETED, 4: TaskState.FAILED, 5: TaskState.CANCELED,
                  6: TaskState.INPUT_REQUIRED, 7: TaskState.REJECTED, 8: TaskState.AUTH_REQUIRED}
_ROLES: dict[object, Role] = {"user": "user", "agent": "agent", "ROLE_USER": "user",
                              "ROLE_AGENT": "agent", 1: "user", 2: "agent"}


def dialect_of_version(version: str | None) -> Dialect | None:
    """'1.0.1' -> '1.0', '0.3.0' -> '0.3', '0.2.5' -> '0.2'; None for anything else."""
    if not version:
        return None
    head = version.strip().lstrip("vV")
    if head.startswith("1."):
        return "1.0"
    if head.startswith("0.3"):
        return "0.3"
    if head.startswith(("0.2", "0.1")):
        return "0.2"
    return None


P = ParamSpec("P")
R = TypeVar("R")


def _typed_errors(parse: Callable[P, R]) -> Callable[P, R]:
    """Whatever an agent sends, a parser raises ProtocolError, never a raw TypeError (a list
    where the role belongs) or a pydantic error (a string where metadata belongs)."""
    @functools.wraps(parse)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return parse(*args, **kwargs)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            raise ProtocolError(f"the agent's {parse.__name__.removeprefix('parse_')} has a "
                                f"field of the wrong type ({detail})") from None
    return guarded


def _obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ProtocolError(f"{where} must be a JSON object, got {type(value).__name__}")
    return value


def _pick(d: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in d:
            return d[name]
    return None


# --- parts, messages, tasks -------------------------------------------------------------------

def parse_part(raw: Any) -> Part:
    d = _obj(raw, "part")
    kind = d.get("kind") or d.get("type")
    meta = d.get("metadata")
    if kind == "text" or (kind is None and "text" in d):
        return TextPart(text=str(d.get("text", "")), metadata=meta)
    if kind == "data" or (kind is None and "data" in d):
        return DataPart(data=d.get("data"), metadata=meta)
    if kind == "file":  # 0.x: {"file": {"uri"|"bytes", "mimeType", "name"}}
        f = _obj(d.get("file", {}), "file part")
        return FilePart(uri=f.get("uri"), bytes=f.get("bytes") or f.get("data"),
                        mime_type=_pick(f, "mimeType", "mime_type"), name=f.get("name"),
                        metadata=meta)
    if kind is None and ("url" in d or "raw" in d):  # 1.0 file parts
        return FilePart(uri=d.get("url"), bytes=d.get("raw"),
                        mime_type=_pick(d, "mediaType", "media_type"),
                        name=d.get("filename"), metadata=meta)
    raise ProtocolError(f"unrecognised part {sorted(d)[:6]}: expected a text, data or file part")


def _parts(d: dict[str, Any], where: str) -> list[Part]:
    raw = d.get("parts")
    if raw is None:
        raw = d.get("content", [])  # 0.3 REST used `content` for parts
    if not isinstance(raw, list):
        raise ProtocolError(f"{where}.parts must be a list")
    return [parse_part(p) for p in raw]


@_typed_errors
def parse_message(raw: Any) -> Message:
    d = _obj(raw, "message")
    raw_role = d.get("role")
    role = _ROLES.get(raw_role) if isinstance(raw_role, str | int) else None
    if role is None:
        raise ProtocolError(f"message.role {d.get('role')!r} is neither user nor agent")
    return Message(role=role, parts=_parts(d, "message"),
                   message_id=str(_pick(d, "messageId", "message_id") or uuid.uuid4()),
                   context_id=_pick(d, "contextId", "context_id"),
                   task_id=_pick(d, "taskId", "task_id"), metadata=d.get("metadata"))


def parse_state(raw: Any) -> TaskState:
    if isinstance(raw, int):
        return _STATE_NUMBERS.get(raw, TaskState.UNKNOWN)
    if isinstance(raw, str):
        return _STATE_ALIASES.get(raw, _STATE_ALIASES.get(raw.lower(), TaskState.UNKNOWN))
    return TaskState.UNKNOWN


def parse_status(raw: Any) -> TaskStatus:
    d = _obj(raw or {}, "task status")
    msg = d.get("message") or d.get("update")
    return TaskStatus(state=parse_state(d.get("state")),
                      message=parse_message(msg) if msg else None,
                      timestamp=d.get("timestamp"))


def parse_artifact(raw: Any) -> Artifact:
    d = _obj(raw, "artifact")
    return Artifact(artifact_id=_pick(d, "artifactId", "artifact_id"), name=d.get("name"),
                    description=d.get("description"), parts=_parts(d, "artifact"),
                    metadata=d.get("metadata"))


@_typed_errors
def parse_task(raw: Any) -> Task:
    d = _obj(raw, "task")
    task_id = d.get("id")
    if not task_id:
        raise ProtocolError("task.id is missing")
    return Task(id=str(task_id), context_id=_pick(d, "contextId", "context_id"),
                status=parse_status(d.get("status")),
                artifacts=[parse_artifact(a) for a in d.get("artifacts") or []],
                history=[parse_message(m) for m in d.get("history") or []],
                metadata=d.get("metadata"))


@_typed_errors
def parse_result(raw: Any) -> Task | Message:
    """The `result` of a send call: 0.x bare Task/Message with `kind`, 1.0 `{task|message}`."""
    d = _obj(raw, "result")
    if "task" in d and isinstance(d["task"], dict):
        return parse_task(d["task"])
    if "message" in d and isinstance(d["message"], dict) and "role" not in d:
        return parse_message(d["message"])
    kind = d.get("kind")
    if kind == "task" or (kind is None and "status" in d and "id" in d):
        return parse_task(d)
    if kind == "message" or (kind is None and "role" in d):
        return parse_message(d)
    raise ProtocolError(f"result is neither a Task nor a Message (keys {sorted(d)[:6]})")


@_typed_errors
def parse_stream_event(raw: Any) -> StreamEvent:
    d = _obj(raw, "stream event")
    for key, wrapped in (("statusUpdate", "status-update"), ("artifactUpdate", "artifact-update")):
        if key in d and isinstance(d[key], dict):
            d = {**d[key], "kind": wrapped}
            break
    kind = d.get("kind")
    if kind == "status-update":
        return StatusUpdate(task_id=_pick(d, "taskId", "task_id"),
                            context_id=_pick(d, "contextId", "context_id"),
                            status=parse_status(d.get("status")), final=bool(d.get("final")))
    if kind == "artifact-update":
        return ArtifactUpdate(task_id=_pick(d, "taskId", "task_id"),
                              context_id=_pick(d, "contextId", "context_id"),
                              artifact=parse_artifact(d.get("artifact")),
                              append=bool(d.get("append")),
                              last_chunk=bool(_pick(d, "lastChunk", "last_chunk")))
    return parse_result(d)


# --- outgoing ---------------------------------------------------------------------------------

def part_to_wire(part: Part, dialect: Dialect) -> dict[str, Any]:
    v1 = dialect == "1.0"
    if isinstance(part, TextPart):
        return {"text": part.text} if v1 else {"kind": "text", "text": part.text}
    if isinstance(part, DataPart):
        return ({"data": part.data, "mediaType": "application/json"} if v1
                else {"kind": "data", "data": part.data})
    if v1:
        out: dict[str, Any] = {"url": part.uri} if part.uri else {"raw": part.bytes}
        if part.mime_type:
            out["mediaType"] = part.mime_type
        if part.name:
            out["filename"] = part.name
        return out
    file: dict[str, Any] = {"uri": part.uri} if part.uri else {"bytes": part.bytes}
    if part.mime_type:
        file["mimeType"] = part.mime_type
    if part.name:
        file["name"] = part.name
    return {"kind": "file", "file": file}


def message_to_wire(message: Message, dialect: Dialect) -> dict[str, Any]:
    v1 = dialect == "1.0"
    out: dict[str, Any] = {
        "role": ("ROLE_USER" if message.role == "user" else "ROLE_AGENT") if v1 else message.role,
        "messageId": message.message_id,
        "parts": [part_to_wire(p, dialect) for p in message.parts],
    }
    if not v1:
        out["kind"] = "message"
    if message.context_id:
        out["contextId"] = message.context_id
    if message.task_id:
        out["taskId"] = message.task_id
    if message.metadata:
        out["metadata"] = message.metadata
    return out


def send_params(message: Message, dialect: Dialect,
                accepted_output_modes: list[str] | None = None) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if dialect != "1.0":
        config["blocking"] = True  # 1.0 blocks by default (`returnImmediately` false)
    if accepted_output_modes:
        config["acceptedOutputModes"] = accepted_output_modes
    return {"message": message_to_wire(message, dialect), "configuration": config}


# --- agent card -------------------------------------------------------------------------------

def card_dialect(raw: dict[str, Any]) -> Dialect:
    """`supportedInterfaces` means 1.0; else the card's protocolVersion; none means 0.2."""
    if isinstance(raw.get("supportedInterfaces"), list) and raw["supportedInterfaces"]:
        return "1.0"
    return dialect_of_version(raw.get("protocolVersion")) or "0.2"


def _interfaces(raw: dict[str, Any], dialect: Dialect) -> list[AgentInterface]:
    if dialect == "1.0":
        out = []
        for item in raw.get("supportedInterfaces") or []:
            if isinstance(item, dict) and item.get("url"):
                out.append(AgentInterface(
                    url=str(item["url"]),
                    binding=str(_pick(item, "protocolBinding", "transport") or "JSONRPC"),
                    protocol_version=_pick(item, "protocolVersion"), tenant=item.get("tenant")))
        return out
    version = raw.get("protocolVersion")
    out = []
    if raw.get("url"):
        out.append(AgentInterface(url=str(raw["url"]),
                                  binding=str(raw.get("preferredTransport") or "JSONRPC"),
                                  protocol_version=version))
    for item in raw.get("additionalInterfaces") or []:
        if isinstance(item, dict) and item.get("url"):
            iface = AgentInterface(url=str(item["url"]),
                                   binding=str(item.get("transport") or "JSONRPC"),
                                   protocol_version=version)
            if iface not in out:
                out.append(iface)
    return out


def _security_schemes(raw: Any) -> dict[str, SecurityScheme]:
    out: dict[str, SecurityScheme] = {}
    if not isinstance(raw, dict):
        return out
    wrappers = {"apiKeySecurityScheme": "apiKey", "httpAuthSecurityScheme": "http",
                "oauth2SecurityScheme": "oauth2", "openIdConnectSecurityScheme": "openIdConnect",
                "mtlsSecurityScheme": "mutualTLS"}
    for name, scheme in raw.items():
        if not isinstance(scheme, dict):
            continue
        body, kind = scheme, scheme.get("type")
        for wrapper, wrapped_kind in wrappers.items():  # 1.0 oneof wrappers
            if isinstance(scheme.get(wrapper), dict):
                body, kind = scheme[wrapper], wrapped_kind
        details = {k: v for k, v in body.items() if k not in ("type", "description")}
        out[str(name)] = SecurityScheme(type=str(kind or "unknown"),
                                        description=body.get("description"), details=details)
    return out


def _security(raw: dict[str, Any]) -> list[dict[str, list[str]]]:
    reqs = raw.get("securityRequirements")
    if isinstance(reqs, list):  # 1.0: [{"schemes": {name: {"list": [scopes]}}}]
        out = []
        for req in reqs:
            schemes = req.get("schemes", {}) if isinstance(req, dict) else {}
            out.append({n: list((v or {}).get("list", [])) for n, v in schemes.items()})
        return out
    legacy = raw.get("security")
    return [r for r in legacy if isinstance(r, dict)] if isinstance(legacy, list) else []


def _skill(raw: Any) -> AgentSkill:
    d = raw if isinstance(raw, dict) else {}
    return AgentSkill(id=str(d.get("id", "")), name=str(d.get("name", "")),
                      description=str(d.get("description", "")), tags=d.get("tags") or [],
                      examples=d.get("examples") or [], input_modes=d.get("inputModes") or [],
                      output_modes=d.get("outputModes") or [])


def parse_card(raw: Any) -> AgentCard:
    """Any dialect's card -> AgentCard. Missing fields become empty; `findings` judges them."""
    d = _obj(raw, "agent card")
    dialect = card_dialect(d)
    caps: dict[str, Any] = d["capabilities"] if isinstance(d.get("capabilities"), dict) else {}
    provider: dict[str, Any] | None = (d["provider"] if isinstance(d.get("provider"), dict)
                                       else None)
    try:
        return AgentCard(
            name=str(d.get("name") or ""), description=str(d.get("description") or ""),
            version=str(d.get("version") or ""), dialect=dialect,
            protocol_version=None if dialect == "1.0" else d.get("protocolVersion"),
            provider=AgentProvider(organization=provider.get("organization"),
                                   url=provider.get("url")) if provider else None,
            documentation_url=d.get("documentationUrl"), icon_url=d.get("iconUrl"),
            interfaces=_interfaces(d, dialect),
            capabilities=AgentCapabilities(
                streaming=caps.get("streaming"), push_notifications=caps.get("pushNotifications"),
                state_transition_history=caps.get("stateTransitionHistory"),
                extended_agent_card=caps.get("extendedAgentCard",
                                             d.get("supportsAuthenticatedExtendedCard")),
                extensions=[e for e in caps.get("extensions") or [] if isinstance(e, dict)]),
            default_input_modes=list(d.get("defaultInputModes") or []),
            default_output_modes=list(d.get("defaultOutputModes") or []),
            skills=[_skill(s) for s in d.get("skills") or [] if isinstance(s, dict)],
            security_schemes=_security_schemes(d.get("securitySchemes")),
            security=_security(d),
        )
    except (TypeError, ValueError) as exc:  # pydantic errors subclass ValueError
        raise ProtocolError(f"agent card has fields of the wrong type: {exc}") from exc
