"""A2A 0.3 over HTTP+JSON and gRPC: the proto-JSON shapes of `a2a_v0_3.proto`.

0.3's REST and gRPC bindings do not carry the JSON-RPC shapes: a Message holds `content`
(not `parts`), roles and states are proto enums (`ROLE_USER`, `TASK_STATE_COMPLETED`), a
DataPart nests its value (`{"data": {"data": {...}}}`), a FilePart is `fileWithUri` /
`fileWithBytes`, and a task is named `tasks/{id}` (a2a.md §1.4). These functions translate
between those shapes and the 0.3 JSON-RPC shapes `dialects.py` already reads and writes.
"""

from __future__ import annotations

from typing import Any

_ROLE_OUT = {"user": "ROLE_USER", "agent": "ROLE_AGENT"}


def part_out(part: dict[str, Any]) -> dict[str, Any]:
    """A 0.3 JSON-RPC part -> a 0.3 proto part."""
    kind = part.get("kind")
    out: dict[str, Any]
    if kind == "text":
        out = {"text": part.get("text", "")}
    elif kind == "data":
        out = {"data": {"data": part.get("data")}}
    else:
        f = part.get("file") or {}
        file: dict[str, Any] = ({"fileWithUri": f["uri"]} if f.get("uri")
                                else {"fileWithBytes": f.get("bytes") or ""})
        if f.get("mimeType"):
            file["mimeType"] = f["mimeType"]
        if f.get("name"):
            file["name"] = f["name"]
        out = {"file": file}
    if part.get("metadata"):
        out["metadata"] = part["metadata"]
    return out


def message_out(message: dict[str, Any]) -> dict[str, Any]:
    """A 0.3 JSON-RPC message -> a 0.3 proto message."""
    out: dict[str, Any] = {"messageId": message["messageId"],
                           "role": _ROLE_OUT.get(message.get("role", "user"), "ROLE_USER"),
                           "content": [part_out(p) for p in message.get("parts", [])]}
    for key in ("contextId", "taskId", "metadata"):
        if message.get(key):
            out[key] = message[key]
    return out


def send_request_out(params: dict[str, Any]) -> dict[str, Any]:
    """0.3 JSON-RPC `message/send` params -> a 0.3 proto SendMessageRequest (JSON)."""
    out: dict[str, Any] = {"message": message_out(params["message"])}
    if params.get("configuration"):
        out["configuration"] = params["configuration"]
    if params.get("metadata"):
        out["metadata"] = params["metadata"]
    return out


def _part_in(part: Any) -> Any:
    if not isinstance(part, dict) or "kind" in part:
        return part
    meta = {"metadata": part["metadata"]} if "metadata" in part else {}
    if "text" in part:
        return {"kind": "text", "text": part["text"], **meta}
    if isinstance(part.get("data"), dict):
        return {"kind": "data", "data": part["data"].get("data"), **meta}
    if isinstance(part.get("file"), dict):
        f = part["file"]
        file = {"uri": f.get("fileWithUri"), "bytes": f.get("fileWithBytes"),
                "mimeType": f.get("mimeType"), "name": f.get("name")}
        return {"kind": "file", "file": {k: v for k, v in file.items() if v}, **meta}
    return part


def _message_in(message: Any) -> Any:
    if not isinstance(message, dict):
        return message
    parts = message.get("content", message.get("parts"))
    out = {k: v for k, v in message.items() if k != "content"}
    if isinstance(parts, list):
        out["parts"] = [_part_in(p) for p in parts]
    return out


def _status_in(status: Any) -> Any:
    if not isinstance(status, dict) or not isinstance(status.get("message"), dict):
        return status
    return {**status, "message": _message_in(status["message"])}


def _artifact_in(artifact: Any) -> Any:
    if not isinstance(artifact, dict) or not isinstance(artifact.get("parts"), list):
        return artifact
    return {**artifact, "parts": [_part_in(p) for p in artifact["parts"]]}


def task_in(task: Any) -> Any:
    """A 0.3 proto Task -> the 0.3 JSON-RPC Task shape."""
    if not isinstance(task, dict):
        return task
    out = dict(task)
    out["status"] = _status_in(task.get("status"))
    if isinstance(task.get("artifacts"), list):
        out["artifacts"] = [_artifact_in(a) for a in task["artifacts"]]
    if isinstance(task.get("history"), list):
        out["history"] = [_message_in(m) for m in task["history"]]
    return out


def response_in(payload: Any) -> Any:
    """A 0.3 proto SendMessageResponse / StreamResponse -> what `dialects` parses."""
    if not isinstance(payload, dict):
        return payload
    if isinstance(payload.get("task"), dict):
        return {"task": task_in(payload["task"])}
    if isinstance(payload.get("message"), dict):
        return {"message": _message_in(payload["message"])}
    if isinstance(payload.get("statusUpdate"), dict):
        event = payload["statusUpdate"]
        return {"statusUpdate": {**event, "status": _status_in(event.get("status"))}}
    if isinstance(payload.get("artifactUpdate"), dict):
        event = payload["artifactUpdate"]
        return {"artifactUpdate": {**event, "artifact": _artifact_in(event.get("artifact"))}}
    return payload
