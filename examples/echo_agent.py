"""A minimal real A2A agent on a2a-sdk 1.x: it echoes the text it receives.

It serves A2A 1.0 and 0.3 on one JSON-RPC endpoint (with and without a trailing slash) and the
card at /.well-known/agent-card.json; `--bindings` adds HTTP+JSON (at /rest) and gRPC (on
--grpc-port, needs grpcio), or offers only those. Try it:

    python examples/echo_agent.py --port 9999 &
    a2abench discover http://127.0.0.1:9999
    python examples/echo_agent.py --port 9998 --bindings grpc --grpc-port 50051 &
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

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
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Part,
    TaskState,
)
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette
from starlette.routing import BaseRoute


class EchoExecutor(AgentExecutor):
    """Answers every message with `echo: <text>` (data parts are echoed as JSON)."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.current_task is None:  # a2a-sdk 1.x: the Task must be the first event
            await event_queue.enqueue_event(new_task(
                context.task_id, context.context_id, TaskState.TASK_STATE_SUBMITTED,
                history=[context.message] if context.message else []))
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.start_work()
        await updater.add_artifact([Part(text="echo: " + _content(context))], name="answer")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def _content(context: RequestContext) -> str:
    if context.message is None:
        return ""
    pieces = []
    for part in context.message.parts:
        if part.HasField("text"):
            pieces.append(part.text)
        elif part.HasField("data"):
            pieces.append(json.dumps(MessageToDict(part.data), sort_keys=True))
    return "\n".join(pieces)


BINDINGS = {"jsonrpc": "JSONRPC", "http-json": "HTTP+JSON", "grpc": "GRPC"}


def agent_card(base_url: str, bindings: tuple[str, ...] = ("jsonrpc",),
               grpc_port: int | None = None) -> AgentCard:
    urls = {"jsonrpc": base_url.rstrip("/") + "/a2a", "http-json": base_url.rstrip("/") + "/rest",
            "grpc": f"{urlsplit(base_url).hostname}:{grpc_port}"}
    return AgentCard(
        name="echo", description="Echoes every message back (a2abench example agent).",
        version="1.0.0", capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="Echo", description="Repeats the input.",
                           tags=["test", "echo"], examples=["hello"])],
        supported_interfaces=[
            AgentInterface(url=urls[b], protocol_binding=BINDINGS[b], protocol_version=v)
            for b in bindings for v in ("1.0", "0.3")])


def build_app(base_url: str, bindings: tuple[str, ...] = ("jsonrpc",),
              grpc_port: int | None = None) -> Starlette:
    """The Starlette app serving the echo agent whose public URL is `base_url` (and its
    gRPC server, started with the app, when "grpc" is among `bindings`)."""
    card = agent_card(base_url, bindings, grpc_port)
    handler = DefaultRequestHandler(agent_executor=EchoExecutor(),
                                    task_store=InMemoryTaskStore(), agent_card=card)
    routes: list[BaseRoute] = [*create_agent_card_routes(card)]
    if "jsonrpc" in bindings:
        routes += [*create_jsonrpc_routes(handler, rpc_url="/a2a", enable_v0_3_compat=True),
                   *create_jsonrpc_routes(handler, rpc_url="/a2a/", enable_v0_3_compat=True)]
    if "http-json" in bindings:
        routes += create_rest_routes(handler, path_prefix="/rest", enable_v0_3_compat=True)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        server = await _start_grpc(handler, grpc_port) if "grpc" in bindings else None
        yield
        if server is not None:
            await server.stop(0)

    return Starlette(routes=routes, lifespan=lifespan)


async def _start_grpc(handler: DefaultRequestHandler, port: int | None) -> Any:
    """a2a-sdk's gRPC servicers for 1.0 and 0.3 on 127.0.0.1:port (grpc.aio must start on
    the serving event loop, hence the app's lifespan)."""
    import grpc
    from a2a.compat.v0_3 import a2a_v0_3_pb2_grpc
    from a2a.compat.v0_3.grpc_handler import CompatGrpcHandler
    from a2a.server.request_handlers import GrpcHandler
    from a2a.types import a2a_pb2_grpc

    server = grpc.aio.server()
    server.add_insecure_port(f"127.0.0.1:{port}")
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), server)
    a2a_v0_3_pb2_grpc.add_A2AServiceServicer_to_server(CompatGrpcHandler(handler), server)
    await server.start()
    return server


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9999)
    parser.add_argument("--card-url", default=None, help="public URL the card advertises")
    parser.add_argument("--bindings", default="jsonrpc",
                        help="comma list of jsonrpc, http-json, grpc (default: jsonrpc)")
    parser.add_argument("--grpc-port", type=int, default=50051)
    args = parser.parse_args()
    bindings = tuple(b.strip() for b in args.bindings.split(",") if b.strip())
    unknown = set(bindings) - set(BINDINGS)
    if unknown:
        parser.error(f"unknown binding(s): {', '.join(sorted(unknown))}")
    base = args.card_url or f"http://{args.host}:{args.port}"
    uvicorn.run(build_app(base, bindings, args.grpc_port), host=args.host, port=args.port,
                log_level="warning")


if __name__ == "__main__":
    main()
