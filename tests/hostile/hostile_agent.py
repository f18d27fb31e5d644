"""A hostile white agent: a real A2A 0.3 JSON-RPC server (Starlette on 127.0.0.1:0) whose
first `hostile_calls` replies misbehave in one chosen way; later replies are well-formed.

    with hostile("drip") as (agent, base):
        run_cli("run", "crmarena", "--white-agent-url", base, ...)
        agent.calls, agent.seen          # requests received, (host, Authorization) of each

Modes (each is one of the probes of issues 17 and 18):
    oversize      a 50 MB JSON-RPC result, streamed in 1 MB chunks (no Content-Length)
    deep          a DataPart nested 900 levels deep
    deep_text     a TextPart holding JSON nested 900 levels deep
    role_list     a message whose role is a list
    artifacts     a Task with 20,000 artifacts, each with its own text (about 1.3 MB)
    endless       a text/event-stream answer that never ends (one event every 20 ms)
    drip          a JSON reply dripping one byte every 50 ms, never finished
    silent        headers never sent
    working       a Task that stays `working` however often it is polled (tasks/get)
    bad_utf8      a JSON reply with invalid UTF-8 inside a string
    surrogate     a text part holding a lone surrogate (the JSON escape \\ud800)
    surrogate_arg a tau2 tool call (mock's create_task) whose title holds a lone surrogate
    wrong_ctype   an HTML page with status 200
    retry_after   HTTP 503 with `Retry-After: 999999`
    redirect      HTTP 307 to the same server under another host name (localhost)
    redirect_403  HTTP 307 to another host name, which answers HTTP 403
    tool_calls    a DataPart with 5,000 tau2 tool calls
    normal        always well-formed
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.servers import serve

NORMAL_TEXT = "<respond>I do not know.</respond>"
MB = 1_000_000


def _message(rid: Any, parts: list[dict[str, Any]], role: Any = "agent") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": {
        "kind": "message", "role": role, "messageId": str(uuid.uuid4()),
        "contextId": "ctx-hostile", "parts": parts}}


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value]
    return value


class HostileAgent:
    def __init__(self, base: str, mode: str, *, hostile_calls: int = 1,
                 streaming: bool = False, interface_url: str | None = None) -> None:
        self.base = base
        self.mode = mode
        self.hostile_calls = hostile_calls
        self.streaming = streaming
        self.interface_url = interface_url or base + "/rpc"
        self.calls = 0
        self.seen: list[tuple[str, str | None]] = []  # (host, Authorization) per RPC request
        self.open_streams = 0

    def card(self) -> dict[str, Any]:
        return {"name": f"hostile-{self.mode}", "description": "misbehaves on purpose",
                "version": "1.0", "protocolVersion": "0.3.0", "url": self.interface_url,
                "preferredTransport": "JSONRPC",
                "capabilities": {"streaming": self.streaming},
                "defaultInputModes": ["text"], "defaultOutputModes": ["text"],
                "skills": [{"id": "s", "name": "s", "description": "s", "tags": []}]}

    def app(self) -> Starlette:
        async def card(_: Request) -> JSONResponse:
            return JSONResponse(self.card())

        async def forbidden(_: Request) -> Response:
            return Response("forbidden", status_code=403)

        return Starlette(routes=[
            Route("/.well-known/agent-card.json", card),
            Route("/rpc", self.rpc, methods=["POST"]),
            Route("/forbidden", forbidden, methods=["POST"]),
        ])

    async def rpc(self, request: Request) -> Response:
        body = await request.json()
        self.calls += 1
        self.seen.append((request.url.hostname or "", request.headers.get("authorization")))
        rid = body.get("id")
        if self.mode == "working" and body.get("method") == "tasks/get":
            return await self._working(rid, request)
        if self.calls > self.hostile_calls or self.mode == "normal":
            return JSONResponse(_message(rid, [{"kind": "text", "text": NORMAL_TEXT}]))
        handler = getattr(self, "_" + self.mode)
        response: Response = await handler(rid, request)
        return response

    # --- the probes ---------------------------------------------------------------------------

    async def _oversize(self, rid: Any, _: Request) -> Response:
        head = json.dumps(_message(rid, [{"kind": "text", "text": "@@"}]))
        before, after = head.split("@@")

        async def body() -> AsyncIterator[bytes]:
            yield before.encode()
            chunk = b"x" * MB
            for _ in range(50):
                yield chunk
            yield after.encode()

        return StreamingResponse(body(), media_type="application/json")

    async def _deep(self, rid: Any, _: Request) -> Response:
        text = json.dumps(_message(rid, [{"kind": "data", "data": "@@"}]))
        return Response(text.replace('"@@"', "[" * 900 + "]" * 900),
                        media_type="application/json")

    async def _deep_text(self, rid: Any, _: Request) -> Response:
        inner = '{"action": "respond", "answer": ' + "[" * 900 + "]" * 900 + "}"
        return JSONResponse(_message(rid, [{"kind": "text", "text": inner}]))

    async def _role_list(self, rid: Any, _: Request) -> Response:
        return JSONResponse(_message(rid, [{"kind": "text", "text": "hi"}], role=["agent"]))

    async def _artifacts(self, rid: Any, _: Request) -> Response:
        artifacts = [{"artifactId": f"a{i}", "parts": [{"kind": "text", "text": f"x{i}"}]}
                     for i in range(20_000)]
        return JSONResponse({"jsonrpc": "2.0", "id": rid, "result": {
            "kind": "task", "id": "t1", "contextId": "ctx-hostile",
            "status": {"state": "completed"}, "artifacts": artifacts}})

    async def _endless(self, rid: Any, _: Request) -> Response:
        event = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {
            "kind": "status-update", "taskId": "t1", "contextId": "ctx-hostile",
            "status": {"state": "working"}, "final": False}})

        async def body() -> AsyncIterator[bytes]:
            self.open_streams += 1
            try:
                while True:
                    yield f"data: {event}\n\n".encode()
                    await asyncio.sleep(0.02)
            finally:
                self.open_streams -= 1

        return StreamingResponse(body(), media_type="text/event-stream")

    async def _drip(self, rid: Any, _: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            yield b'{"jsonrpc": "2.0", "id": ' + json.dumps(rid).encode() + b", "
            while True:  # whitespace is valid JSON padding: the reply never completes
                yield b" "
                await asyncio.sleep(0.05)

        return StreamingResponse(body(), media_type="application/json")

    async def _silent(self, rid: Any, _: Request) -> Response:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def _bad_utf8(self, rid: Any, _: Request) -> Response:
        text = json.dumps(_message(rid, [{"kind": "text", "text": "@@"}])).encode()
        return Response(text.replace(b"@@", b"\xff\xfe\xfd"), media_type="application/json")

    async def _surrogate(self, rid: Any, _: Request) -> Response:
        text = json.dumps(_message(rid, [{"kind": "text", "text": "hi @@"}]))
        return Response(text.replace("@@", "\\ud800"), media_type="application/json")

    async def _surrogate_arg(self, rid: Any, _: Request) -> Response:
        call = {"name": "create_task", "arguments": {"user_id": "@@", "title": "t"}}
        text = json.dumps(_message(rid, [{"kind": "data", "data": {"tool_calls": [call]}}]))
        return Response(text.replace("@@", "\\ud800"), media_type="application/json")

    async def _wrong_ctype(self, rid: Any, _: Request) -> Response:
        return Response("<!doctype html><html><body>Welcome</body></html>",
                        media_type="text/html")

    async def _retry_after(self, rid: Any, _: Request) -> Response:
        return Response("busy", status_code=503, headers={"Retry-After": "999999"})

    async def _redirect(self, rid: Any, request: Request) -> Response:
        port = request.url.port
        return RedirectResponse(f"http://localhost:{port}/rpc", status_code=307)

    async def _redirect_403(self, rid: Any, request: Request) -> Response:
        return RedirectResponse(f"http://localhost:{request.url.port}/forbidden",
                                status_code=307)

    async def _working(self, rid: Any, _: Request) -> Response:
        return JSONResponse({"jsonrpc": "2.0", "id": rid, "result": {
            "kind": "task", "id": "t-working", "contextId": "ctx-hostile",
            "status": {"state": "working"}}})

    async def _tool_calls(self, rid: Any, _: Request) -> Response:
        calls = [{"name": "get_users", "arguments": {}} for _ in range(5_000)]
        return JSONResponse(_message(rid, [{"kind": "data", "data": {"tool_calls": calls}}]))


@contextlib.contextmanager
def hostile(mode: str, **kwargs: Any) -> Iterator[tuple[HostileAgent, str]]:
    holder: dict[str, HostileAgent] = {}

    def factory(base: str) -> Starlette:
        holder["agent"] = HostileAgent(base, mode, **kwargs)
        return holder["agent"].app()

    # Endless and dripping responses must not hold the server's shutdown for long.
    with serve(factory) as base:
        yield holder["agent"], base
