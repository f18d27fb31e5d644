"""Polled tasks and retries on HTTP+JSON and gRPC: an agent that first fails transiently,
then answers with a working task that GetTask later finds completed."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from a2abench.a2a import A2AClient, A2AConfig
from a2abench.a2a.metrics import ProtocolMetrics
from a2abench.a2a.models import TaskState
from a2abench.net.retry import RetryPolicy
from tests.servers import free_port, serve

grpc = pytest.importorskip("grpc")
RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01)
WORKING = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}
DONE = {**WORKING, "status": {"state": "TASK_STATE_COMPLETED"},
        "artifacts": [{"artifactId": "a1", "parts": [{"text": "done"}]}]}


def _card(url: str, binding: str, version: str) -> dict[str, Any]:
    return {"name": "slow", "description": "d", "version": "1", "capabilities": {},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["t"]}],
            "supportedInterfaces": [{"url": url, "protocolBinding": binding,
                                     "protocolVersion": version}]}


def rest_agent(base: str, version: str, seen: list[dict[str, Any]]) -> Starlette:
    prefix = "/rest/v1" if version == "0.3" else "/rest"
    calls = {"send": 0, "get": 0}

    async def card(_: Request) -> JSONResponse:
        return JSONResponse(_card(base + "/rest", "HTTP+JSON", version))

    async def send(request: Request) -> Response:
        calls["send"] += 1
        seen.append({"headers": dict(request.headers), "body": await request.json()})
        if calls["send"] == 1:
            return JSONResponse({"error": {"code": 503, "status": "UNAVAILABLE",
                                           "message": "warming up"}}, status_code=503)
        return JSONResponse({"task": WORKING})

    async def get(request: Request) -> JSONResponse:
        calls["get"] += 1
        assert request.path_params["id"] == "t1"
        return JSONResponse(WORKING if calls["get"] == 1 else DONE)

    return Starlette(routes=[Route("/.well-known/agent-card.json", card),
                             Route(prefix + "/message:send", send, methods=["POST"]),
                             Route(prefix + "/tasks/{id}", get, methods=["GET"])])


@pytest.mark.parametrize("version", ["1.0", "0.3"])
async def test_rest_retries_then_polls_a_working_task(version: str) -> None:
    seen: list[dict[str, Any]] = []
    metrics: list[ProtocolMetrics] = []
    with serve(lambda base: rest_agent(base, version, seen)) as base:
        config = A2AConfig.create(base, retry=RETRY, auth_token="tok")
        async with A2AClient(config, on_request=metrics.append) as client:
            reply = await client.conversation().send("hi")
    assert reply.state is TaskState.COMPLETED and reply.text == "done"
    assert [(m.method, m.attempt, m.status_code) for m in metrics] == [
        ("message:send", 1, 503), ("message:send", 2, 200), ("tasks:get", 1, 200),
        ("tasks:get", 1, 200)]
    body, headers = seen[-1]["body"], seen[-1]["headers"]
    assert headers["a2a-version"] == version and headers["authorization"] == "Bearer tok"
    if version == "0.3":  # 0.3 REST carries proto shapes: `content`, ROLE_USER, blocking
        assert body["message"]["content"] == [{"text": "hi"}]
        assert body["message"]["role"] == "ROLE_USER" and body["configuration"]["blocking"]
    else:
        assert body["message"]["parts"] == [{"text": "hi"}]


def grpc_agent(base: str, port: int, version: str) -> Starlette:
    """A gRPC-only agent: SendMessage is UNAVAILABLE once, then returns a working task;
    GetTask finds it working once, then completed."""
    if version == "0.3":
        from a2a.compat.v0_3 import a2a_v0_3_pb2 as pb
        from a2a.compat.v0_3 import a2a_v0_3_pb2_grpc as pb_grpc
    else:
        from a2a.types import a2a_pb2 as pb
        from a2a.types import a2a_pb2_grpc as pb_grpc
    from google.protobuf.json_format import ParseDict

    calls = {"send": 0, "get": 0}

    def task(raw: dict[str, Any]) -> Any:
        if version == "0.3":
            raw = {**raw, "artifacts": [{"artifactId": "a1", "parts": [{"text": "done"}]}]
                   if "artifacts" in raw else []}
        return ParseDict(raw, pb.Task())

    class Servicer(pb_grpc.A2AServiceServicer):  # type: ignore[misc,name-defined]
        async def SendMessage(self, request: Any, context: Any) -> Any:
            calls["send"] += 1
            if calls["send"] == 1:
                await context.abort(grpc.StatusCode.UNAVAILABLE, "warming up")
            return pb.SendMessageResponse(task=task(WORKING))

        async def GetTask(self, request: Any, context: Any) -> Any:
            calls["get"] += 1
            assert (request.name if version == "0.3" else request.id) in ("tasks/t1", "t1")
            return task(WORKING if calls["get"] == 1 else DONE)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        server = grpc.aio.server()
        server.add_insecure_port(f"127.0.0.1:{port}")
        pb_grpc.add_A2AServiceServicer_to_server(Servicer(), server)
        await server.start()
        yield
        await server.stop(0)

    async def card(_: Request) -> JSONResponse:
        return JSONResponse(_card(f"127.0.0.1:{port}", "GRPC", version))

    return Starlette(routes=[Route("/.well-known/agent-card.json", card)], lifespan=lifespan)


@pytest.mark.parametrize("version", ["1.0", "0.3"])
async def test_grpc_retries_then_polls_a_working_task(version: str) -> None:
    metrics: list[ProtocolMetrics] = []
    port = free_port()
    with serve(lambda base: grpc_agent(base, port, version)) as base:
        async with A2AClient(A2AConfig.create(base, retry=RETRY),
                             on_request=metrics.append) as client:
            reply = await client.conversation().send("hi")
    assert reply.state is TaskState.COMPLETED and reply.text == "done"
    assert [(m.method, m.attempt, m.grpc_status) for m in metrics] == [
        ("SendMessage", 1, "UNAVAILABLE"), ("SendMessage", 2, "OK"), ("GetTask", 1, "OK"),
        ("GetTask", 1, "OK")]
    assert metrics[0].error is not None and "AgentUnreachable" in metrics[0].error


async def test_rest_tenant_is_a_path_prefix_on_1_0_only() -> None:
    """A 1.0 interface's tenant goes first in the path, as a2a-sdk's REST client sends it;
    0.3 has no tenant and lives under /v1."""
    import httpx

    from a2abench.a2a.rest import RestTransport

    paths: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        paths.append(request.url.raw_path.decode())  # as sent, percent-encoding kept
        return httpx.Response(200, json={"task": DONE} if request.method == "POST" else DONE)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        v1 = RestTransport(http, "http://agent/api/", "1.0", tenant="acme/eu")
        await v1.send({"message": {"messageId": "m", "role": "ROLE_USER", "parts": []},
                       "tenant": "acme/eu"})
        await v1.get_task("t 1")
        v03 = RestTransport(http, "http://agent/api", "0.3", tenant="ignored")
        await v03.cancel_task("t1")
    assert paths == ["/api/acme%2Feu/message:send", "/api/acme%2Feu/tasks/t%201",
                     "/api/v1/tasks/t1:cancel"]
