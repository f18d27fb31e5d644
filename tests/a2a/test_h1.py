"""The lean HTTP/1.1 client (a2abench/net/h1.py) against scripted servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import ssl
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import httpx
import orjson
import pytest

from a2abench.a2a.client import A2AClient
from a2abench.a2a.config import A2AConfig
from a2abench.a2a.transport import JsonRpcTransport, LeanFirst, LeanWire
from a2abench.errors import BrokenReply, HostNotAllowed
from a2abench.net import h1 as _h1
from a2abench.net.h1 import WireError, WirePool, usable
from a2abench.net.limits import read_body
from a2abench.net.retry import RetryPolicy
from a2abench.net.tls import verified_context
from tests.a2a.conftest import TLS
from tests.asyncio_agent import listening

OK = b'{"jsonrpc":"2.0","id":"1","result":{"kind":"message","role":"agent","messageId":"m",' \
     b'"parts":[]}}'
# Every test here runs over http and over https (the lean client's bounds and h11 parity hold
# over TLS too): the scripted servers and every client follow `over_tls`.
pytestmark = [pytest.mark.parametrize("over_tls", ["http", "https"], indirect=True),
              pytest.mark.usefixtures("over_tls")]
ONCE = RetryPolicy(max_attempts=1, base_delay_s=0.001, max_delay_s=0.01, budget_s=5)


def reply(body: bytes = OK, *, status: bytes = b"200 OK", headers: bytes = b"") -> bytes:
    return (b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\n" + headers
            + b"content-length: %d\r\n\r\n" % len(body) + body)


@dataclass
class Scripted:
    """A server answering each request with the next of `answers` (bytes, or a function of
    the request's head); `close_after` closes the connection after that answer."""

    answers: list[bytes | Callable[[bytes], bytes]]
    close_after: set[int] = field(default_factory=set)
    heads: list[bytes] = field(default_factory=list)
    connections: int = 0
    url: str = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                await reader.readexactly(length)
                self.heads.append(head)
                n = len(self.heads)
                answer = self.answers[n - 1]
                writer.write(answer(head) if callable(answer) else answer)
                await writer.drain()
                if n in self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass  # the client closed the connection
        finally:
            writer.close()


@contextlib.asynccontextmanager
async def scripted(*answers: bytes | Callable[[bytes], bytes],
                   close_after: set[int] | None = None) -> AsyncIterator[Scripted]:
    server = Scripted(list(answers), close_after or set())
    async with listening(server.handle, TLS[0], "/rpc") as server.url:
        yield server


def pool(url: str, **kw: object) -> WirePool:
    tls = verified_context() if url.startswith("https:") else None
    return WirePool(url, {"Content-Type": "application/json"}, connect_timeout=5.0, tls=tls,
                    **kw)  # type: ignore[arg-type]


async def body_of(wire: WirePool, content: bytes = b"{}") -> tuple[int, bytes]:
    response = await wire.post(content)
    try:
        return response.status_code, await read_body(response, 1_000_000, url=wire.url)
    finally:
        await response.aclose()


async def refused(answer: bytes, match: str) -> None:
    """The scripted `answer` to one POST is a WireError matching `match`."""
    async with scripted(answer, close_after={1}) as server:
        wire = pool(server.url)
        with pytest.raises(WireError, match=match):
            await body_of(wire)
        await wire.aclose()


async def test_keep_alive_reuses_one_connection_and_sends_the_headers() -> None:
    async with scripted(reply(), reply()) as server:
        wire = pool(server.url)
        assert await body_of(wire, b'{"a":1}') == (200, OK)
        assert await body_of(wire) == (200, OK)
        await wire.aclose()
    assert server.connections == 1
    head = server.heads[0].decode()
    assert head.startswith("POST /rpc HTTP/1.1\r\n")
    assert f"host: {server.url.split('/')[2]}\r\n" in head
    assert "content-type: application/json\r\n" in head and "content-length: 7\r\n" in head


CHUNKED = (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
           b"5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nx-trailer: t\r\n\r\n")


@pytest.mark.parametrize(("first", "body", "connections"), [
    (CHUNKED, b"hello world", 1),  # extensions and trailers; the connection stays usable
    (b"HTTP/1.1 200 OK\r\n\r\n" + OK, OK, 2),  # no length: the body ends with the connection
    (reply(gzip.compress(OK), headers=b"connection: close\r\ncontent-encoding: gzip\r\n"),
     OK, 2),  # decoded, and not reused
], ids=["chunked", "until-close", "close-gzip"])
async def test_framings_and_what_they_leave_of_the_connection(first: bytes, body: bytes,
                                                              connections: int) -> None:
    async with scripted(first, reply(), close_after={1} if connections == 2 else None) as server:
        wire = pool(server.url)
        assert await body_of(wire) == (200, body)
        assert await body_of(wire) == (200, OK)
        await wire.aclose()
    assert server.connections == connections


async def test_interim_1xx_replies_are_skipped() -> None:
    async with scripted(b"HTTP/1.1 100 Continue\r\n\r\n" + reply()) as server:
        wire = pool(server.url)
        assert await body_of(wire) == (200, OK)
        await wire.aclose()


@pytest.mark.parametrize(("answer", "message"), [
    # the status line and headers
    (b"HTTP/2 200 OK\r\n\r\n", "not an HTTP/1.1 reply"),
    (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "malformed header line"),
    (b"HTTP/1.1 200 OK\r\n x-folded: 1\r\n\r\n", "malformed header line"),
    (b"HTTP/1.1 200 OK\r\nx-big: " + b"a" * 70_000 + b"\r\n\r\n", "exceed 65536 bytes"),
    (b"HTTP/1.1 200 OK\r\ncontent-le", "without sending a complete response"),
    # the body
    (b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nshort", "before the end of the response"),
    (b"HTTP/1.1 200 OK\r\ncontent-length: ten\r\n\r\n", "Content-Length is not a number"),
    (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"),
])
async def test_malformed_replies_are_wire_errors(answer: bytes, message: str) -> None:
    await refused(answer, message)


async def test_an_idle_connection_the_server_closed_is_replaced_without_a_second_request() -> None:
    async with scripted(reply(), reply(), close_after={1}) as server:
        wire = pool(server.url)
        assert await body_of(wire) == (200, OK)
        await asyncio.sleep(0.05)  # the server's close reaches us while the connection idles
        assert await body_of(wire) == (200, OK)
        await wire.aclose()
    assert server.connections == 2 and len(server.heads) == 2


async def test_a_connection_closed_before_the_eof_was_seen_is_not_reused() -> None:
    async with scripted(reply(), reply(), close_after={1}) as server:
        wire = pool(server.url)
        assert await body_of(wire) == (200, OK)
        if wire._idle:  # over TLS the close_notify came with the reply: retired already
            idle = wire._idle[0]
            idle.reader.at_eof = lambda: False  # type: ignore[method-assign]  # EOF unseen
        assert await body_of(wire) == (200, OK)
        await wire.aclose()
    assert server.connections == 2 and len(server.heads) == 2


async def test_unreachable_and_refused_hosts() -> None:
    listener = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    listener.close()
    await listener.wait_closed()
    wire = pool(f"http://127.0.0.1:{port}/")
    with pytest.raises(WireError, match="Connect call failed|refused"):
        await wire.post(b"{}")


async def test_cancelled_reads_close_the_connection() -> None:
    async with scripted(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc", reply()) as server:
        wire = pool(server.url)
        response = await wire.post(b"{}")
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.1):
                await read_body(response, 100, url=wire.url)
        await response.aclose()
        assert not wire._idle  # half-read: never handed out again
        await wire.aclose()


async def test_the_host_check_runs_before_every_request() -> None:
    def refuse(url: str) -> None:
        raise HostNotAllowed(f"{url} refused")

    wire = pool("http://127.0.0.1:9/", check=refuse)
    with pytest.raises(HostNotAllowed):
        await wire.post(b"{}")


@pytest.mark.parametrize(("url", "headers", "ok"), [
    ("http://127.0.0.1:8000/rpc?x=1", {"A": "b"}, True),
    ("https://127.0.0.1/rpc", {}, True),  # TLS over asyncio's streams
    ("http://user:pw@127.0.0.1/", {}, False),  # credentials in the URL: httpx's basic auth
    ("http://127.0.0.1:99999/", {}, False),
    ("http://127.0.0.1/", {"X": "a\r\nInjected: 1"}, False),
    ("http://127.0.0.1/", {"X": "caf\u00e9"}, False),
    ("http://127.0.0.1/", {"Bad Name": "v"}, False),
])
def test_usable_only_where_the_request_is_plain(url: str, headers: dict[str, str],
                                                 ok: bool) -> None:
    assert usable(url, headers) is ok


def test_the_switch_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _h1.enabled()
    monkeypatch.setenv("A2ABENCH_HTTP_CLIENT", "httpx")
    assert not _h1.enabled()


# --- the transport's hand-over ----------------------------------------------------------------

def transport(url: str, wire: WirePool) -> JsonRpcTransport:
    return JsonRpcTransport(httpx.AsyncClient(follow_redirects=True), url, "0.3", retry=ONCE,
                            wire=LeanWire(wire))


def redirected(rpc: JsonRpcTransport) -> bool:
    assert isinstance(rpc.sender, LeanFirst)
    return rpc.sender.lean.redirected


def agents(heads: list[bytes]) -> list[bool]:
    """Which requests the lean client sent (its User-Agent), in order."""
    return [b"user-agent: a2abench/" in h.lower() for h in heads]


async def test_the_lean_client_sends_from_the_first_call() -> None:
    async with scripted(reply(), reply(), reply()) as server:
        wire = pool(server.url)
        rpc = transport(server.url, wire)
        for _ in range(3):
            assert (await rpc.call("message/send", {}))["messageId"] == "m"
        assert not redirected(rpc)
        await rpc.http.aclose()
        await wire.aclose()
    assert agents(server.heads) == [True, True, True]


async def test_a_redirect_hands_the_interface_to_httpx_and_the_target_sees_each_call_once(
) -> None:
    async with scripted(reply()) as target:
        moved = reply(b"", status=b"307 Temporary Redirect",
                      headers=b"location: " + target.url.encode() + b"\r\n")
        async with scripted(moved, moved, moved) as server:
            wire = pool(server.url)
            rpc = transport(server.url, wire)
            await rpc.call("message/send", {})  # lean: 307; sent again through httpx
            assert redirected(rpc)
            target.answers.append(reply())
            await rpc.call("message/send", {})  # httpx from now on
            await rpc.http.aclose()
            await wire.aclose()
    assert agents(server.heads) == [True, False, False]
    assert agents(target.heads) == [False, False]


async def test_an_interface_that_starts_redirecting_is_handed_to_httpx() -> None:
    async with scripted(reply()) as target:
        moved = reply(b"", status=b"308 Permanent Redirect",
                      headers=b"location: " + target.url.encode() + b"\r\n")
        async with scripted(reply(), moved, moved) as server:
            wire = pool(server.url)
            rpc = transport(server.url, wire)
            await rpc.call("message/send", {})  # lean, no redirect
            await rpc.call("message/send", {})  # lean: 308, then httpx follows it
            assert redirected(rpc)
            await rpc.http.aclose()
            await wire.aclose()
    assert agents(server.heads) == [True, True, False]
    assert len(target.heads) == 1


async def test_a_reply_that_began_and_broke_is_the_agents_broken_reply() -> None:
    async with scripted(reply(), b"garbage\r\n\r\n", close_after={2}) as server:
        wire = pool(server.url)
        rpc = transport(server.url, wire)
        await rpc.call("message/send", {})
        with pytest.raises(BrokenReply, match="broke its reply: not an HTTP/1.1 reply"):
            await rpc.call("message/send", {})
        await rpc.http.aclose()
        await wire.aclose()


# --- A2AClient: which calls take the lean client ------------------------------------------------

def card(interface: str) -> Callable[[bytes], bytes]:
    def answer(head: bytes) -> bytes:
        assert head.startswith(b"GET /.well-known/agent-card.json ")
        return reply(orjson.dumps({
            "name": "scripted", "description": "d", "version": "1", "url": interface,
            "protocolVersion": "0.3.0", "preferredTransport": "JSONRPC",
            "capabilities": {"streaming": False}, "defaultInputModes": ["text"],
            "defaultOutputModes": ["text"], "skills": []}))
    return answer


async def test_client_withholds_the_token_from_a_card_host_on_both_clients() -> None:
    async with scripted(reply(), reply(), reply()) as server:
        elsewhere = server.url.replace("127.0.0.1", "localhost")
        server.answers.insert(0, card(elsewhere))
        config = A2AConfig.create(server.url.removesuffix("/rpc"), auth_token="s3cret")
        async with A2AClient(config) as client:
            for _ in range(3):
                await client.conversation().send("hi")
            assert client._wires and not client._wires[0].redirected
    heads = [h.lower() for h in server.heads]
    assert b"authorization: bearer s3cret" in heads[0]  # the card, from the host given
    assert [b"authorization" in h for h in heads[1:]] == [False, False, False]
    assert agents(server.heads) == [False, True, True, True]


async def test_client_without_the_switch_uses_httpx_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A2ABENCH_HTTP_CLIENT", "httpx")
    async with scripted(reply(), reply()) as server:
        server.answers.insert(0, card(server.url))
        async with A2AClient(A2AConfig.create(server.url.removesuffix("/rpc"))) as client:
            await client.conversation().send("hi")
            await client.conversation().send("hi")
            assert not client._wires
    assert not any(b"a2abench/" in h for h in server.heads)


async def test_concurrent_first_calls_all_go_lean_and_none_waits_for_another() -> None:
    """No call waits for another's answer: each of 20 concurrent first calls is answered only
    once all 20 have arrived (a stall would leave the server waiting until --timeout)."""
    arrived, everyone = 0, asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal arrived
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        await reader.readexactly(length)
        arrived += 1
        if arrived == 20:
            everyone.set()
        await everyone.wait()
        writer.write(reply())
        await writer.drain()
        writer.close()

    listener = await asyncio.start_server(handle, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{listener.sockets[0].getsockname()[1]}/rpc"
    wire = pool(url)
    rpc = transport(url, wire)
    try:
        async with asyncio.timeout(30):  # a guard against a hang, not a measurement
            results = await asyncio.gather(*(rpc.call("message/send", {}) for _ in range(20)))
    finally:
        await rpc.http.aclose()
        await wire.aclose()
        listener.close()
    assert [r["messageId"] for r in results] == ["m"] * 20


async def test_a_failing_first_call_holds_back_no_other() -> None:
    async with scripted(b"garbage\r\n\r\n", *[reply()] * 4, close_after={1}) as server:
        wire = pool(server.url)
        rpc = transport(server.url, wire)
        results = await asyncio.gather(*(rpc.call("message/send", {}) for _ in range(4)),
                                       return_exceptions=True)
        assert sum(isinstance(r, BrokenReply) for r in results) == 1
        assert sum(isinstance(r, dict) for r in results) == 3
        await rpc.call("message/send", {})
        assert not redirected(rpc)
        await rpc.http.aclose()
        await wire.aclose()
    assert agents(server.heads) == [True] * 5


async def test_http10_replies_close_unless_they_say_keep_alive() -> None:
    http10 = b"HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\n{}"
    kept = b"HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 2\r\n\r\n{}"
    async with scripted(http10, kept, kept, close_after={1}) as server:
        wire = pool(server.url)
        idle = []
        for _ in range(3):
            assert await body_of(wire) == (200, b"{}")
            idle.append(len(wire._idle))
        await wire.aclose()
    assert idle == [0, 1, 1] and server.connections == 2
