"""`a2abench-example-agent`: the example white agents as a console script.

    a2abench-example-agent echo --port 9019          # echoes every message (no tool calls)
    a2abench-example-agent scripted --port 9019      # the demo's rule-based agent

A console script runs on the interpreter a2abench was installed with, whatever `python` is
first on PATH: runners such as AgentBeats' put their own venv (a2a-sdk 0.3) first, where the
example files under examples/ cannot import a2a-sdk 1.x.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def echo_app(base_url: str) -> Any:
    """An a2a-sdk 1.x agent that answers `echo: <text>` (data parts as JSON), on `/` and
    `/a2a` (each with and without the trailing slash)."""
    from a2a.helpers import new_message, new_text_part
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore
    from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
    from google.protobuf.json_format import MessageToDict
    from starlette.applications import Starlette

    class Echo(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            pieces = []
            for part in context.message.parts if context.message else []:
                if part.HasField("text"):
                    pieces.append(part.text)
                elif part.HasField("data"):
                    pieces.append(json.dumps(MessageToDict(part.data), sort_keys=True))
            await event_queue.enqueue_event(new_message(
                [new_text_part("echo: " + "\n".join(pieces))], context_id=context.context_id))

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            return None

    url = base_url.rstrip("/") + "/"
    card = AgentCard(
        name="a2abench echo agent", description="Echoes every message (an a2abench example).",
        version="1.0.0", capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="Echo", description="Echoes the message.",
                           tags=["example"])],
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0"),
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="0.3")])
    handler = DefaultRequestHandler(agent_executor=Echo(), task_store=InMemoryTaskStore(),
                                    agent_card=card)
    routes = list(create_agent_card_routes(card))
    for path in ("/", "/a2a", "/a2a/"):
        routes += create_jsonrpc_routes(handler, rpc_url=path, enable_v0_3_compat=True)
    return Starlette(routes=routes)


def build(kind: str, base_url: str) -> Any:
    if kind == "echo":
        return echo_app(base_url)
    from a2abench.demo.agent import build_app

    return build_app(base_url)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="a2abench-example-agent",
                                     description="Serve an a2abench example white agent.")
    parser.add_argument("kind", choices=["echo", "scripted"],
                        help="echo: echoes every message; scripted: the demo's rule-based "
                             "agent")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9019)
    parser.add_argument("--card-url", default=None,
                        help="public URL the card advertises [default: http://HOST:PORT]")
    args = parser.parse_args(argv)
    import uvicorn

    base = args.card_url or f"http://{args.host}:{args.port}"
    print(f"a2abench example agent ({args.kind}): {base} (Ctrl-C stops)", file=sys.stderr,
          flush=True)
    try:
        uvicorn.run(build(args.kind, base), host=args.host, port=args.port,
                    log_level="warning")
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after a clean shutdown
        sys.exit(130)


if __name__ == "__main__":
    main()
