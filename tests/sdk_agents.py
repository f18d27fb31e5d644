"""Real a2a-sdk 1.x agents offering any mix of bindings (JSON-RPC, HTTP+JSON, gRPC) and
versions (1.0, and 0.3 through a2a-sdk's compat layer), for interop tests.

    with serve(lambda base: sdk_agent(base, bindings=("GRPC",), versions=("0.3",))) as base:
        ...

The gRPC server runs in the app's lifespan, on uvicorn's event loop (grpc.aio binds to the
loop that starts it), on a port picked before the card is built.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

from a2a.helpers import new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part, TaskState
from starlette.applications import Starlette

from tests.agents import load_example
from tests.servers import free_port

# How the reference echo agent reads a message (text parts, data parts as JSON): one copy.
_content = load_example("echo_agent.py")._content


class Echo(AgentExecutor):
    """`echo: <text>` as a completed task. Text starting with `ask` stops at input-required;
    the continuation (same taskId) completes the task with `done: <text>`."""

    def __init__(self) -> None:
        self.contexts: list[str] = []
        self.headers: list[dict[str, Any]] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = _content(context)
        self.contexts.append(str(context.context_id))
        if context.call_context is not None:
            self.headers.append(dict(context.call_context.state.get("headers", {})))
        continuing = context.current_task is not None
        if not continuing:
            await event_queue.enqueue_event(new_task(
                context.task_id, context.context_id, TaskState.TASK_STATE_SUBMITTED,
                history=[context.message] if context.message else []))
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.start_work()
        if text.startswith("ask") and not continuing:
            await updater.requires_input(updater.new_agent_message(
                [Part(text="which one?")]))
            return
        prefix = "done: " if continuing else "echo: "
        await updater.add_artifact([Part(text=prefix + text)], name="answer")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def sdk_agent(base: str, *, bindings: Sequence[str] = ("JSONRPC", "HTTP+JSON", "GRPC"),
              versions: Sequence[str] = ("1.0", "0.3"), streaming: bool = True,
              executor: AgentExecutor | None = None) -> Starlette:
    """An a2a-sdk agent at `base` offering `bindings` x `versions`, in that order."""
    grpc_port = free_port() if "GRPC" in bindings else None
    urls = {"JSONRPC": base + "/rpc", "HTTP+JSON": base + "/rest",
            "GRPC": f"127.0.0.1:{grpc_port}"}
    card = AgentCard(
        name="sdk-echo", description="a2a-sdk echo agent for interop tests", version="1.0.0",
        capabilities=AgentCapabilities(streaming=streaming),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="Echo", description="Repeats", tags=["test"])],
        supported_interfaces=[AgentInterface(url=urls[b], protocol_binding=b, protocol_version=v)
                              for b in bindings for v in versions])
    handler = DefaultRequestHandler(agent_executor=executor or Echo(),
                                    task_store=InMemoryTaskStore(), agent_card=card)
    compat = "0.3" in versions
    routes: list[Any] = [*create_agent_card_routes(card)]
    if "JSONRPC" in bindings:
        routes += create_jsonrpc_routes(handler, rpc_url="/rpc", enable_v0_3_compat=compat)
    if "HTTP+JSON" in bindings:
        routes += create_rest_routes(handler, path_prefix="/rest", enable_v0_3_compat=compat)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        server = None
        if grpc_port is not None:
            server = await start_grpc(handler, grpc_port, versions)
        try:
            yield
        finally:
            if server is not None:
                await server.stop(0)
            await handler.aclose()

    return Starlette(routes=routes, lifespan=lifespan)


async def start_grpc(handler: Any, port: int, versions: Sequence[str]) -> Any:
    import grpc
    from a2a.compat.v0_3 import a2a_v0_3_pb2_grpc
    from a2a.compat.v0_3.grpc_handler import CompatGrpcHandler
    from a2a.server.request_handlers import GrpcHandler
    from a2a.types import a2a_pb2_grpc

    server = grpc.aio.server()
    server.add_insecure_port(f"127.0.0.1:{port}")
    if "1.0" in versions:
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), server)
    if "0.3" in versions:
        a2a_v0_3_pb2_grpc.add_A2AServiceServicer_to_server(CompatGrpcHandler(handler), server)
    await server.start()
    return server
