"""Helpers for serve-green tests: serve the green app on loopback, talk to it with the a2a-sdk
client (as platforms do), pick the Result artifact apart."""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.client import Client
from a2a.helpers import get_data_parts, get_text_parts, new_data_part
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    Task,
    TaskState,
)

from a2abench.green import GreenApp, GreenSettings, build_app
from a2abench.net.tls import verified_context
from tests.servers import serve


@contextlib.contextmanager
def green_server(settings: GreenSettings, path: str = "/") -> Iterator[tuple[str, GreenApp]]:
    """Serve the green app; yield (base URL, GreenApp). `path` is the card URL's path."""
    holder: dict[str, GreenApp] = {}

    def factory(base: str) -> Any:
        holder["g"] = build_app(settings, base + path)
        return holder["g"].app

    with serve(factory) as base:
        yield base, holder["g"]


@contextlib.asynccontextmanager
async def sdk_client(base: str, *, streaming: bool = True, token: str | None = None,
                     timeout: float = 60.0) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(timeout=timeout, headers=headers,
                                 verify=verified_context()) as http:
        card = await A2ACardResolver(http, base).get_agent_card()
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=streaming)).create(card)
        yield client


def request_message(payload: str | dict[str, Any], message_id: str | None = None) -> Message:
    part = Part(text=payload) if isinstance(payload, str) else new_data_part(payload)
    return Message(role=Role.ROLE_USER, message_id=message_id or uuid.uuid4().hex, parts=[part])


@dataclass
class Outcome:
    """Everything a send produced, in order."""

    events: list[tuple[str, Any]] = field(default_factory=list)
    task: Task | None = None

    @property
    def kinds(self) -> list[str]:
        return [k for k, _ in self.events]

    def status_texts(self) -> list[str]:
        return ["\n".join(get_text_parts(ev.status.message.parts))
                for k, ev in self.events if k == "status_update"]

    @property
    def state(self) -> int:
        assert self.task is not None
        return int(self.task.status.state)

    def final_text(self) -> str:
        assert self.task is not None
        return "\n".join(get_text_parts(self.task.status.message.parts))


async def send(client: Client, payload: str | dict[str, Any], *,
               message_id: str | None = None, stop_after: int | None = None) -> Outcome:
    """Send one request and collect the stream; then read the final task with GetTask."""
    outcome = Outcome()
    request = SendMessageRequest(message=request_message(payload, message_id),
                                 configuration=SendMessageConfiguration())
    task_id = None
    async for event in client.send_message(request):
        kind = event.WhichOneof("payload")
        value = getattr(event, kind)
        outcome.events.append((kind, value))
        task_id = task_id or (value.id if kind == "task" else getattr(value, "task_id", None))
        if stop_after is not None and len(outcome.events) >= stop_after:
            break
    if task_id:
        outcome.task = await client.get_task(GetTaskRequest(id=task_id))
    return outcome


async def cancel(client: Client, task_id: str) -> Task:
    return await client.cancel_task(CancelTaskRequest(id=task_id))


def result_of(task: Task) -> tuple[str, dict[str, Any]]:
    """(text summary, data) of the task's Result artifact: a plain-text summary and the Result
    as a JSON text part (media type application/json, lost in A2A 0.3), no DataPart."""
    artifact = next(a for a in task.artifacts if a.name == "Result")
    assert not get_data_parts(artifact.parts)
    texts = get_text_parts(artifact.parts)
    data = [json.loads(t) for t in texts if t.startswith("{")]  # as AgentBeats' gateway reads
    summary = [t for t in texts if not t.startswith("{")]
    assert len(summary) == 1 and len(data) == 1
    return summary[0], data[0]


def metrics_of(root: Any, task: Task) -> str:
    """The server-side metrics.jsonl of an assessment (the Result never names it)."""
    from pathlib import Path

    (path,) = Path(root).glob(f"*_{task.id[:8]}/metrics.jsonl")
    return str(path)


def agentbeats(agent: str, **config: Any) -> str:
    return json.dumps({"participants": {"agent": agent}, "config": config})


STATE = TaskState
