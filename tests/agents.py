"""Hand-written A2A agents for tests: a 0.2-style and a 0.3-dialect agent, and bad servers.

The a2a-sdk 1.x agent is `examples/echo_agent.py`; these cover what the SDK does not serve
(0.2 cards on the legacy path, a raw 0.3 server) and every way a server can misbehave.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import threading
import uuid
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

ROOT = Path(__file__).resolve().parents[1]


def load_example(name: str) -> Any:
    """Import a module from examples/ by file name."""
    spec = importlib.util.spec_from_file_location(f"examples_{name}", ROOT / "examples" / name)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it executes
    spec.loader.exec_module(module)
    return module


def echo_agent(base: str) -> Any:
    return load_example("echo_agent.py").build_app(base)


Mode = Literal["message", "task", "working", "input-required"]


class LegacyAgent:
    """A 0.2/0.3 JSON-RPC agent that echoes `echo[turn=N]: text` per context.

    mode: reply as a Message, a completed Task, a working Task finished only via tasks/get,
    or an input-required Task (continued when the client sends its taskId).
    """

    def __init__(self, base: str, *, version: Literal["0.2", "0.3"] = "0.3",
                 mode: Mode = "message", streaming: bool = True,
                 broken_stream: bool = False, delay: float = 0.0, fail_every: int = 0,
                 fail_status: int = 503, wrong_for: frozenset[str] = frozenset()) -> None:
        self.base, self.version, self.mode, self.streaming = base, version, mode, streaming
        self.broken_stream = broken_stream  # advertise streaming, then fail message/stream
        self.delay = delay  # seconds before each RPC answer
        self.fail_every = fail_every  # answer every Nth RPC with fail_status
        self.fail_status = fail_status
        self.wrong_for = wrong_for  # texts starting with these get a wrong echo
        self.in_flight = 0
        self.max_in_flight = 0
        self.turns: Counter[str] = Counter()
        self.tasks: dict[str, dict[str, Any]] = {}
        self.requests: list[dict[str, Any]] = []
        # Answer this many RPCs in all, then hold every further one until it is set back to
        # None: a test that kills the client mid-run waits on this state, not on timing.
        self.hold_after: int | None = None
        self.answered = 0

    def card(self) -> dict[str, Any]:
        card: dict[str, Any] = {
            "name": f"legacy-{self.version}", "description": "hand-written test agent",
            "version": "0.0.1", "url": self.base + "/rpc",
            "capabilities": {"streaming": self.streaming},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "echo", "name": "echo", "description": "echoes", "tags": ["t"]}],
        }
        if self.version == "0.3":
            card["protocolVersion"] = "0.3.0"
            card["preferredTransport"] = "JSONRPC"
        return card

    def app(self) -> Starlette:
        path = "/.well-known/agent.json" if self.version == "0.2" else \
            "/.well-known/agent-card.json"

        async def card(_: Request) -> JSONResponse:
            return JSONResponse(self.card())

        return Starlette(routes=[Route(path, card), Route("/rpc", self.rpc, methods=["POST"])])

    def _reply(self, params: dict[str, Any]) -> dict[str, Any]:
        msg = params["message"]
        text = " ".join(p.get("text", "") for p in msg.get("parts", []) if p.get("kind") == "text")
        if any(text.startswith(w) for w in self.wrong_for):
            text = "something else"
        ctx = msg.get("contextId") or f"ctx-{uuid.uuid4().hex[:8]}"
        self.turns[ctx] += 1
        answer = {"kind": "message", "role": "agent", "messageId": uuid.uuid4().hex,
                  "contextId": ctx,
                  "parts": [{"kind": "text", "text": f"echo[turn={self.turns[ctx]}]: {text}"}]}
        if self.mode == "message":
            return answer
        task_id = msg.get("taskId") or f"task-{uuid.uuid4().hex[:8]}"
        state = {"task": "completed", "working": "working",
                 "input-required": "input-required"}[self.mode]
        if self.mode == "input-required" and msg.get("taskId"):
            state = "completed"  # the continuation finishes the interrupted task
        task = {"kind": "task", "id": task_id, "contextId": ctx,
                "status": {"state": state, "message": answer}, "artifacts": [], "history": []}
        self.tasks[task_id] = task
        return task

    async def rpc(self, request: Request) -> Response:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            while self.hold_after is not None and self.answered >= self.hold_after:
                await asyncio.sleep(0.01)
            if self.delay:
                await asyncio.sleep(self.delay)
            return await self._rpc(request)
        finally:
            self.answered += 1
            self.in_flight -= 1

    async def _rpc(self, request: Request) -> Response:
        try:
            body = await request.json()
        except ClientDisconnect:  # the client was killed mid-request (durability tests)
            return Response(status_code=499)
        self.requests.append({"body": body, "headers": dict(request.headers)})
        if self.fail_every and len(self.requests) % self.fail_every == 0:
            return PlainTextResponse("temporarily failing", status_code=self.fail_status)
        method, rid, params = body.get("method"), body.get("id"), body.get("params", {})
        if method == "message/send":
            return JSONResponse({"jsonrpc": "2.0", "id": rid, "result": self._reply(params)})
        if method == "tasks/get":
            task = self.tasks.get(params.get("id"))
            if task is None:
                return JSONResponse({"jsonrpc": "2.0", "id": rid,
                                     "error": {"code": -32001, "message": "Task not found"}})
            task["status"]["state"] = "completed"  # the second look finds it done
            return JSONResponse({"jsonrpc": "2.0", "id": rid, "result": task})
        if method == "message/stream" and self.streaming and not self.broken_stream:
            return self._stream(rid, self._reply(params))
        return JSONResponse({"jsonrpc": "2.0", "id": rid,
                             "error": {"code": -32601, "message": f"Method not found: {method}"}})

    def _stream(self, rid: Any, result: dict[str, Any]) -> Response:
        events = [result]
        if result.get("kind") == "task":
            final = {"kind": "status-update", "taskId": result["id"],
                     "contextId": result["contextId"], "final": True,
                     "status": {"state": "completed", "message": result["status"]["message"]}}
            events = [{**result, "status": {"state": "submitted"}}, final]
        lines = "".join(f"data: {json.dumps({'jsonrpc': '2.0', 'id': rid, 'result': e})}\n\n"
                        for e in events)
        return Response(lines, media_type="text/event-stream")


# --- servers that misbehave -------------------------------------------------------------------

def _card_app(handler: Any) -> Starlette:
    return Starlette(routes=[Route("/.well-known/agent-card.json", handler),
                             Route("/.well-known/agent.json", handler)])


def not_found(_: str) -> Starlette:
    return Starlette(routes=[])


def html_page(_: str) -> Starlette:
    async def h(_: Request) -> Response:
        return Response("<!DOCTYPE html><html><body>Welcome</body></html>",
                        media_type="text/html")
    return _card_app(h)


def invalid_json(_: str) -> Starlette:
    async def h(_: Request) -> Response:
        return Response('{"name": "broken",', media_type="application/json")
    return _card_app(h)


def missing_fields(base: str) -> Starlette:
    async def h(_: Request) -> JSONResponse:
        return JSONResponse({"name": "partial", "url": base + "/rpc", "protocolVersion": "0.3.0"})
    return _card_app(h)


def huge_card(base: str) -> Starlette:
    async def h(_: Request) -> Response:
        card = LegacyAgent(base).card()
        card["description"] = "x" * 10_000_000
        return Response(json.dumps(card), media_type="application/json")
    return _card_app(h)


def slow_card(_: str, delay: float = 3.0, arrived: threading.Event | None = None) -> Starlette:
    """A card that answers after `delay` s; `arrived` is set when a request comes in."""
    async def h(_: Request) -> JSONResponse:
        if arrived is not None:
            arrived.set()
        await asyncio.sleep(delay)
        return JSONResponse({})
    return _card_app(h)


def redirect_loop(base: str) -> Starlette:
    async def h(request: Request) -> Response:
        return RedirectResponse(base + "/.well-known/agent-card.json", status_code=302)
    return _card_app(h)


def rpc_failing(base: str, *, status: int = 200, error: dict[str, Any] | None = None,
                body: str | None = None) -> Starlette:
    """A valid 0.3 card whose RPC endpoint answers with a fixed failure."""
    agent = LegacyAgent(base)

    async def card(_: Request) -> JSONResponse:
        return JSONResponse(agent.card())

    async def rpc(request: Request) -> Response:
        payload = await request.json()
        if body is not None:
            return PlainTextResponse(body, status_code=status)
        return JSONResponse({"jsonrpc": "2.0", "id": payload.get("id"),
                             "error": error or {"code": -32603, "message": "Internal error"}},
                            status_code=status)

    return Starlette(routes=[Route("/.well-known/agent-card.json", card),
                             Route("/rpc", rpc, methods=["POST"])])
