"""The A2A app around an example agent's executor: one card (JSON-RPC, 1.0 and 0.3) and the
JSON-RPC routes on `/` and `/a2a`, each with and without the trailing slash."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any


def jsonrpc_app(base_url: str, executor: Any, *, name: str, description: str,
                skill: dict[str, Any],
                on_close: Callable[[], Awaitable[None]] | None = None) -> Any:
    """A Starlette app serving `executor` (an a2a-sdk `AgentExecutor`) at `base_url`; `skill`
    holds the card's one skill (`id`, `name`, `description`, `tags`); `on_close` runs when
    the server shuts down (an LLM client to close)."""
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore
    from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
    from starlette.applications import Starlette

    from a2abench.green import sdk_checks

    sdk_checks.install()
    url = base_url.rstrip("/") + "/"
    card = AgentCard(
        name=name, description=description,
        version="1.0.0", capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(**skill)],
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0"),
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="0.3")])
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(),
                                    agent_card=card)
    routes = list(create_agent_card_routes(card))
    for path in ("/", "/a2a", "/a2a/"):
        routes += create_jsonrpc_routes(handler, rpc_url=path, enable_v0_3_compat=True)
    if on_close is None:
        return Starlette(routes=routes)

    @asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await on_close()

    return Starlette(routes=routes, lifespan=lifespan)


def message_parts(context: Any) -> tuple[list[str], list[dict[str, Any]]]:
    """An a2a-sdk request's text parts and data parts (as dicts), in order."""
    texts: list[str] = []
    data: list[dict[str, Any]] = []
    for part in context.message.parts if context.message else []:
        if part.HasField("text"):
            texts.append(part.text)
        elif part.HasField("data"):
            value = plain(part.data)
            if isinstance(value, dict):
                data.append(value)
    return texts, data


def plain(value: Any) -> Any:
    """A protobuf `Value` as JSON data: what `json_format.MessageToDict` gives (keys in the
    map's order, numbers as floats, unset as None; an infinite or NaN number a ValueError),
    without its generic walk over descriptors (most of a specialist's CPU per turn: a first
    message carries the run's tool schemas)."""
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        fields = value.struct_value.fields
        return {key: plain(fields[key]) for key in fields}
    if kind == "list_value":
        return [plain(v) for v in value.list_value.values]
    if kind == "number_value":
        number = value.number_value
        if math.isinf(number) or math.isnan(number):
            what = "Infinity" if math.isinf(number) else "NaN"
            raise ValueError(f"Fail to serialize {what} for Value.number_value, which would "
                             "parse as string_value")
        return number
    if kind in ("string_value", "bool_value"):
        return getattr(value, kind)
    return None  # null_value or unset


Turn = Callable[[str, list[str], list[dict[str, Any]]],
                Awaitable[tuple[str | None, dict[str, Any] | None]]]


def parts_executor(turn: Turn) -> Any:
    """An a2a-sdk `AgentExecutor` around `turn(context_id, texts, data) -> (text, data)`:
    a message's text parts and DataParts in, a reply of a text part and a DataPart (either
    may be None) out, in the same context."""
    from a2a.helpers import new_data_part, new_message, new_text_part
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue

    class Executor(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            texts, data = message_parts(context)
            text, calls = await turn(str(context.context_id), texts, data)
            parts = ([new_text_part(text)] if text is not None else []) + (
                [new_data_part(calls)] if calls is not None else [])
            await event_queue.enqueue_event(new_message(parts, context_id=context.context_id))

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            return None

    return Executor()
