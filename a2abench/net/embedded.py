"""uvicorn embedded in a process that owns Ctrl-C: no signal handlers, and a prompt stop.

uvicorn's own loop notices `should_exit` on a 0.1 s tick and then sleeps a fixed 0.1 s
before it waits for connections on 0.1 s polls: ~0.2 s per stop, paid by every embedded
server (the demo's two, the MCP channel's, each test server). `stop()` wakes the loop at
once and the shutdown polls every 5 ms, with uvicorn's graceful timeout unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator
from typing import Any

import uvicorn

from a2abench.errors import ConfigError

_POLL_S = 0.005


def listen(host: str, port: int, *, backlog: int, what: str, hint: str) -> socket.socket:
    """A listening TCP socket on host:port (IPv6 when the host has a colon; brackets are
    allowed), bound before the server starts so that port 0 is known up front. A host or port
    that cannot be had is a ConfigError naming `what` it was for."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    reuse_address(sock, port)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot {what} on {host}:{port}: {exc.strerror}", hint=hint) from None
    sock.listen(backlog)
    return sock


def reuse_address(sock: socket.socket, port: int) -> None:
    """SO_REUSEADDR for a port asked for by number (a restart need not wait out TIME_WAIT),
    never for port 0: there it would let the kernel hand out, or another SO_REUSEADDR socket
    share, a port that is bound but not listening yet, and one of the two listen() calls
    then fails with "address already in use"."""
    if port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)


class EmbeddedServer(uvicorn.Server):
    """A uvicorn Server for a thread or task of a process whose main thread owns signals."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # Ctrl-C and SIGTERM stay with whoever embeds the server

    def stop(self) -> None:
        """Ask the server to stop, from any thread; returns at once."""
        self.should_exit = True
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed in between: it stopped
                loop.call_soon_threadsafe(wake.set)

    async def main_loop(self) -> None:
        self._loop, self._wake = asyncio.get_running_loop(), asyncio.Event()
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 1) % 864_000
            with contextlib.suppress(TimeoutError):  # a tick: uvicorn's date header, limits
                await asyncio.wait_for(self._wake.wait(), 0.1)
            should_exit = await self.on_tick(counter)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _graceful_s(self.config)
        state = self.server_state
        while (state.connections or state.tasks) and not self.force_exit \
                and loop.time() < deadline:
            await asyncio.sleep(_POLL_S)
        for task in state.tasks:
            task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
        for server in self.servers:
            await server.wait_closed()
        if not self.force_exit:
            await self.lifespan.shutdown()


def _graceful_s(config: Any) -> float:
    """uvicorn's graceful timeout in seconds; None means wait as long as it takes."""
    given = config.timeout_graceful_shutdown
    return float("inf") if given is None else float(given)
