"""serve-green's /mcp (mcp/mount.py) builds its endpoint on the first request, not at start:
once for concurrent first requests, on the registry the task-trials already use, its session
managers stopped with the server; a failure to build reaches every request waiting for it.
A stand-in endpoint keeps the MCP SDK out (tests/mcp/test_green_mcp.py serves the real one)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest

from a2abench.green import GreenSettings
from a2abench.mcp import mount
from a2abench.mcp.session import ToolRegistry
from tests.green.helpers import green_server


class Stand:
    """An endpoint that records its life and answers 200."""

    built: ClassVar[list[Stand]] = []

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry, self.life = registry, ["built"]
        Stand.built.append(self)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        self.life.append("running")
        await asyncio.sleep(0.01)  # the first requests arrive meanwhile
        yield
        self.life.append("stopped")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"stand"})


@pytest.fixture
def stand(monkeypatch: pytest.MonkeyPatch) -> type[Stand]:
    Stand.built = []
    monkeypatch.setattr(mount, "_endpoint_class", lambda: Stand)
    return Stand


def test_serve_green_builds_its_mcp_endpoint_on_the_first_request(
        tmp_path: Path, stand: type[Stand]) -> None:
    with green_server(GreenSettings(output_dir=tmp_path)) as (url, green):
        assert stand.built == []  # started, /mcp unbuilt

        async def both() -> list[httpx.Response]:
            async with httpx.AsyncClient() as client:
                return list(await asyncio.gather(*(client.post(f"{url}/mcp")
                                                   for _ in range(2))))

        assert [r.text for r in asyncio.run(both())] == ["stand", "stand"]
        assert httpx.post(f"{url}/mcp").text == "stand"
        [endpoint] = stand.built
        assert endpoint.registry is green.executor.mcp[0].registry  # the sessions' own
        assert endpoint.life == ["built", "running"]
    assert endpoint.life == ["built", "running", "stopped"]


async def test_a_failure_to_build_reaches_every_waiting_request(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> Any:
        raise ImportError("no mcp")

    monkeypatch.setattr(mount, "_endpoint_class", broken)
    lazy = mount.LazyEndpoint()

    async def receive() -> Any:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        raise AssertionError(f"nothing is sent: {message}")

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": []}
    async with lazy.running():
        failed = await asyncio.gather(lazy(scope, receive, send), lazy(scope, receive, send),
                                      return_exceptions=True)
    assert [type(e) for e in failed] == [ImportError, ImportError]
