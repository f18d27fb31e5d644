"""A small A2A 0.3 JSON-RPC echo agent on asyncio streams, over http or https, for tests that
run in the test's own event loop (no thread, no subprocess), and a private CA for https.

    ca = PrivateCA(tmp_path)                    # a CA, and a certificate for 127.0.0.1
    async with serving(EchoAgent(), tls=ca) as agent:
        agent.url                               # https://127.0.0.1:PORT/
        ca.pem                                  # the CA's certificate, a PEM file
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import trustme

from tests.waits import HANG_S

CARD = {"name": "asyncio-echo", "description": "d", "version": "1", "protocolVersion": "0.3.0",
        "preferredTransport": "JSONRPC", "capabilities": {"streaming": False},
        "defaultInputModes": ["text"], "defaultOutputModes": ["text"], "skills": []}


class PrivateCA:
    """A certificate authority no default bundle trusts, and a server certificate it signed
    for 127.0.0.1 and localhost; `pem` is the CA's certificate as a file."""

    def __init__(self, folder: Path) -> None:
        self.ca = trustme.CA()
        self.cert = self.ca.issue_cert("127.0.0.1", "localhost")
        self.pem = folder / "private-ca.pem"
        self.ca.cert_pem.write_to_path(str(self.pem))
        self._server_context: ssl.SSLContext | None = None

    def server_context(self) -> ssl.SSLContext:
        """One context per CA (configured once, then only read: safe to share)."""
        if self._server_context is None:
            self._server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            self.cert.configure_cert(self._server_context)
        return self._server_context


class EchoAgent:
    """Answers the card, and each message/send with "echo: " and the message's text."""

    def __init__(self) -> None:
        self.url = ""
        self.requests = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                body = await reader.readexactly(length)
                self.requests += 1
                writer.write(await self.answer(head, body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass  # the client closed the connection (or refused our certificate)
        finally:
            writer.close()

    async def answer(self, head: bytes, body: bytes) -> bytes:
        if head.startswith(b"GET "):
            return http_reply(json.dumps({**CARD, "url": self.url}).encode())
        call = json.loads(body)
        message = call["params"]["message"]
        await self.turn(message)
        text = message["parts"][0]["text"]
        return http_reply(json.dumps({"jsonrpc": "2.0", "id": call["id"], "result": {
            "kind": "message", "role": "agent", "messageId": "m-" + message["messageId"],
            "contextId": message.get("contextId") or "ctx-" + message["messageId"],
            "parts": [{"kind": "text", "text": "echo: " + text}]}}).encode())

    async def turn(self, message: dict[str, object]) -> None:
        """What the agent does before it answers (nothing here)."""


def http_reply(body: bytes) -> bytes:
    return (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n"
            % len(body)) + body


Handle = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.asynccontextmanager
async def listening(handle: Handle, tls: PrivateCA | None = None,
                    path: str = "/") -> AsyncIterator[str]:
    """`handle` serving each connection on 127.0.0.1 (https with `tls`'s certificate) until
    the block ends; yields the URL of `path` there."""
    server = await asyncio.start_server(handle, "127.0.0.1", 0,
                                        ssl=tls.server_context() if tls else None)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{port}{path}"
    finally:
        server.close()
        await server.wait_closed()


@contextlib.asynccontextmanager
async def serving(agent: EchoAgent, *, tls: PrivateCA | None = None) -> AsyncIterator[EchoAgent]:
    """`agent` on 127.0.0.1 (https with `tls`'s certificate) until the block ends."""
    async with listening(agent.handle, tls) as agent.url:
        yield agent


@contextlib.contextmanager
def serving_in_thread(agent: EchoAgent, *,
                      tls: PrivateCA | None = None) -> Iterator[EchoAgent]:
    """`serving`, on an event loop of its own in a thread: for code that runs its own loop
    (the CLI, `asyncio.run`)."""
    loop = asyncio.new_event_loop()
    started, stop = threading.Event(), asyncio.Event()

    async def main() -> None:
        async with serving(agent, tls=tls):
            started.set()
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    # Hang bounds (tests/waits.py), not speeds: a loaded machine took over 10 s to start
    # serving, and the test then ran against no server (issue 35).
    deadline = time.monotonic() + HANG_S
    while not started.wait(0.05):
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the agent did not start serving")
    try:
        yield agent
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(HANG_S)
        if thread.is_alive():
            raise RuntimeError("the agent's loop did not stop")
        loop.close()
