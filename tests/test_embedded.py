"""The embedded uvicorn server: stops when asked, from any thread, and still finishes what it
was answering (uvicorn's graceful shutdown, without its fixed sleeps)."""

from __future__ import annotations

import asyncio
import errno
import socket
import threading

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from a2abench.net.embedded import EmbeddedServer, reuse_address
from tests.waits import HANG_S


async def _slow(_request: Request) -> PlainTextResponse:
    await asyncio.sleep(0.3)
    return PlainTextResponse("done")


def _start(app: Starlette) -> tuple[EmbeddedServer, threading.Thread, str, socket.socket]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = EmbeddedServer(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive()
        threading.Event().wait(0.005)
    return server, thread, f"http://127.0.0.1:{sock.getsockname()[1]}", sock


def test_a_request_in_flight_is_answered_before_the_server_stops() -> None:
    server, thread, base, sock = _start(Starlette(routes=[Route("/", _slow)]))
    answers: list[str] = []
    client = threading.Thread(
        target=lambda: answers.append(httpx.get(base, timeout=HANG_S).text))
    client.start()
    while not server.server_state.tasks:  # the request reached the app
        threading.Event().wait(0.005)
    server.stop()
    client.join(HANG_S)
    thread.join(HANG_S)
    sock.close()
    assert answers == ["done"]
    assert not thread.is_alive()


def test_stop_before_the_loop_runs_is_kept() -> None:
    server = EmbeddedServer(uvicorn.Config(Starlette(), lifespan="off"))
    server.stop()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    thread.join(HANG_S)
    sock.close()
    assert not thread.is_alive()


def test_a_port_0_socket_is_ours_alone_from_bind_to_listen() -> None:
    """A port-0 socket takes no SO_REUSEADDR: while it is bound and not yet listening,
    another SO_REUSEADDR socket (uvicorn's, gRPC's) cannot bind the same port, so neither
    server later fails to listen with "address already in use" (seen once in the suite)."""
    with socket.socket() as ours, socket.socket() as other:
        reuse_address(ours, 0)
        ours.bind(("127.0.0.1", 0))
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        with pytest.raises(OSError) as refused:
            other.bind(ours.getsockname())
        assert refused.value.errno == errno.EADDRINUSE
    with socket.socket() as fixed:  # a port asked for by number keeps it (restarts)
        reuse_address(fixed, 9)
        assert fixed.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR)
