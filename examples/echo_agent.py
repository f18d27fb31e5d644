"""A minimal real A2A agent on a2a-sdk 1.x: it echoes the text it receives.

It serves A2A 1.0 and 0.3 on one JSON-RPC endpoint (with and without a trailing slash) and the
card at /.well-known/agent-card.json. Try it:

    python examples/echo_agent.py --port 9999 &
    a2abench discover http://127.0.0.1:9999
"""

from __future__ import annotations

import argparse
import json

from a2a.helpers import new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
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


def agent_card(base_url: str) -> AgentCard:
    rpc = base_url.rstrip("/") + "/a2a"
    return AgentCard(
        name="echo", description="Echoes every message back (a2abench example agent).",
        version="1.0.0", capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="Echo", description="Repeats the input.",
                           tags=["test", "echo"], examples=["hello"])],
        supported_interfaces=[
            AgentInterface(url=rpc, protocol_binding="JSONRPC", protocol_version="1.0"),
            AgentInterface(url=rpc, protocol_binding="JSONRPC", protocol_version="0.3"),
        ])


def build_app(base_url: str) -> Starlette:
    """The Starlette app serving the echo agent whose public URL is `base_url`."""
    card = agent_card(base_url)
    handler = DefaultRequestHandler(agent_executor=EchoExecutor(),
                                    task_store=InMemoryTaskStore(), agent_card=card)
    routes = [*create_agent_card_routes(card),
              *create_jsonrpc_routes(handler, rpc_url="/a2a", enable_v0_3_compat=True),
              *create_jsonrpc_routes(handler, rpc_url="/a2a/", enable_v0_3_compat=True)]
    return Starlette(routes=routes)


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9999)
    parser.add_argument("--card-url", default=None, help="public URL the card advertises")
    args = parser.parse_args()
    base = args.card_url or f"http://{args.host}:{args.port}"
    uvicorn.run(build_app(base), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
