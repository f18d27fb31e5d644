"""An adversarial review of the lean HTTP/1.1 client (a2abench/net/h1.py): framing, reuse,
bounds and parity with the httpx path, each against a scripted server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import functools
import gzip
import zlib

import httpx
import pytest

from a2abench.a2a.client import A2AClient
from a2abench.a2a.config import A2AConfig
from a2abench.a2a.transport import JsonRpcTransport, LeanWire
from a2abench.errors import A2ABenchError, ReplyTooLarge
from a2abench.net.h1 import WireError, usable
from a2abench.net.limits import read_body
from a2abench.net.retry import RetryPolicy
from tests.a2a.test_h1 import OK, body_of, card, pool, refused, reply, scripted
from tests.waits import HANG_S

# Every review finding holds over http and over https (tests/a2a/conftest.py).
pytestmark = [pytest.mark.parametrize("over_tls", ["http", "https"], indirect=True),
              pytest.mark.usefixtures("over_tls")]
HEAD = b"HTTP/1.1 200 OK\r\n"
CHUNKED = HEAD + b"transfer-encoding: chunked\r\n\r\n"


# --- framing ----------------------------------------------------------------------------------

async def test_a_huge_chunk_is_read_in_pieces_and_meets_the_reply_cap() -> None:
    # A chunk declaring 128 MB must not be buffered whole before --max-reply-bytes sees it.
    async with scripted(CHUNKED + b"8000000\r\n" + b"a" * 2_000_000) as server:
        wire = pool(server.url)
        response = await wire.post(b"{}")
        with pytest.raises(ReplyTooLarge):
            async with asyncio.timeout(5):
                await read_body(response, 1_000_000, url=wire.url)
        await response.aclose()
        await wire.aclose()


@pytest.mark.parametrize("size", [b"-3", b"0x5", b"+5", b"1_0", b"", b" 5", b"1" * 21])
async def test_chunk_sizes_are_hex_digits_only(size: bytes) -> None:
    # What h11 accepts: 1 to 20 hex digits; int(..., 16) alone takes signs, 0x and _.
    answer = CHUNKED + size + b"\r\nhello\r\n0\r\n\r\n"
    await refused(answer, "bad chunk size")


@pytest.mark.parametrize("trailers", [
    b"x-long: " + b"a" * 70_000 + b"\r\n",  # one line over the head's bound
    b"x-many: aaaaaaaaaa\r\n" * 4_000,  # short lines adding up past it
], ids=["long-line", "many-lines"])
async def test_trailers_are_bounded_like_the_head(trailers: bytes) -> None:
    answer = CHUNKED + b"5\r\nhello\r\n0\r\n" + trailers + b"\r\n"
    await refused(answer, "trailers")


@pytest.mark.parametrize("length", [
    "\u00b2".encode("latin-1"),  # a latin-1 superscript: str.isdigit() says yes, int() no
    b"1" * 5_000,  # past int()'s 4,300-digit limit
    b"1" * 21,  # h11 allows 20 digits
    b"5, 6",
], ids=["superscript", "5000-digits", "21-digits", "conflicting"])
async def test_bad_content_lengths_are_wire_errors(length: bytes) -> None:
    answer = HEAD + b"content-length: " + length + b"\r\n\r\nhello"
    await refused(answer, "Content-Length")


async def test_repeated_equal_content_lengths_are_one_length_as_in_h11() -> None:
    answer = HEAD + b"content-length: 5\r\ncontent-length: 5, 5\r\n\r\nhello"
    async with scripted(answer, reply()) as server:
        wire = pool(server.url)
        assert await body_of(wire) == (200, b"hello")
        assert await body_of(wire) == (200, OK)
        await wire.aclose()
    assert server.connections == 1


@pytest.mark.parametrize("coding", [b"gzip, chunked", b"identity", b"xchunked"])
async def test_transfer_codings_other_than_chunked_are_refused_as_in_h11(coding: bytes) -> None:
    answer = HEAD + b"transfer-encoding: " + coding + b"\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
    await refused(answer, "Transfer-Encoding")


@pytest.mark.parametrize("status", [b"HTTP/1.1 099 Odd", b"HTTP/1.1 2000 OK",
                                    b"HTTP/1.1 200OK", b"HTTP/1.1 20x OK"])
async def test_status_lines_outside_h11s_grammar_are_wire_errors(status: bytes) -> None:
    await refused(status + b"\r\ncontent-length: 2\r\n\r\n{}", "not an HTTP/1.1 reply")


async def test_folded_header_lines_are_unfolded_as_rfc_9112_asks() -> None:
    answer = HEAD + b"x-note: a\r\n  b\r\ncontent-length: 2\r\n\r\n{}"
    async with scripted(answer) as server:
        wire = pool(server.url)
        response = await wire.post(b"{}")
        assert response.headers.get("x-note") == "a b"
        assert await read_body(response, 100, url=wire.url) == b"{}"
        await response.aclose()
        await wire.aclose()


@functools.cache
def _bomb() -> bytes:
    """20 MB of zeros, gzipped (0.14 s of CPU: made once for the http and https cases)."""
    return gzip.compress(b"0" * 20_000_000)


async def test_a_compressed_body_is_decoded_a_piece_at_a_time() -> None:
    # 20 MB of zeros fit in one 20 kB read: decoding it whole would hold 20 MB in memory
    # before --max-reply-bytes is looked at.
    bomb = _bomb()
    answer = reply(bomb, headers=b"content-encoding: gzip\r\n")
    async with scripted(answer, close_after={1}) as server:
        wire = pool(server.url)
        response = await wire.post(b"{}")
        with pytest.raises(ReplyTooLarge) as caught:
            await read_body(response, 1_000_000, url=wire.url)
        await response.aclose()
        await wire.aclose()
    assert caught.value.received <= 1_000_000 + 65_536


def _raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


TEXT = b"".join(b'{"n":%d,"text":"lorem ipsum"},' % i for i in range(20_000))


@pytest.mark.parametrize(("coding", "packed"), [
    ("gzip", gzip.compress(TEXT)),
    ("deflate", zlib.compress(TEXT)),
    ("deflate", _raw_deflate(TEXT)),  # headerless, which httpx also reads
    ("deflate, gzip", gzip.compress(zlib.compress(TEXT))),  # applied in this order
    ("identity, GZIP", gzip.compress(TEXT)),
    ("x-unknown", TEXT),  # passed through, as httpx does
], ids=["gzip", "deflate", "raw-deflate", "deflate-then-gzip", "identity-gzip", "unknown"])
async def test_compressed_bodies_decode_as_httpx_decodes_them(coding: str, packed: bytes) -> None:
    answer = reply(packed, headers=b"content-encoding: " + coding.encode() + b"\r\n")
    async with httpx.AsyncClient() as http, scripted(answer, close_after={1}) as server:
        assert (await http.post(server.url, content=b"{}")).content == TEXT
    async with scripted(answer, close_after={1}) as server:
        wire = pool(server.url)
        assert await body_of(wire, b"{}") == (200, TEXT)
        await wire.aclose()


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("headers", [b"", b"content-type: application/json"],
                         ids=["no-headers", "headers"])
async def test_heads_with_bare_lf_or_crlf_line_ends_are_read_as_h11_reads_them(
        eol: bytes, headers: bytes) -> None:
    # h11 accepts a bare LF; a head read only up to CRLF CRLF waited for the deadline.
    def answer(body: bytes) -> bytes:
        lines = [b"HTTP/1.1 200 OK", headers, b"content-length: %d" % len(body)]
        return eol.join(line for line in lines if line) + eol + eol + body
    async with scripted(answer(b"{}"), answer(OK)) as server:
        wire = pool(server.url)
        async with asyncio.timeout(2):
            assert await body_of(wire) == (200, b"{}")
            assert await body_of(wire) == (200, OK)  # the same connection, its line end known
        await wire.aclose()
    assert server.connections == 1


# --- connection reuse -------------------------------------------------------------------------

@pytest.mark.parametrize("first", [
    # A body on a 204 (which has none by definition) holding a whole second reply.
    b"HTTP/1.1 204 No Content\r\n\r\n" + reply(b'{"wrong":1}'),
    reply() + reply(b'{"wrong":1}'),  # more bytes than Content-Length said
], ids=["204-with-body", "past-content-length"])
async def test_bytes_left_after_a_reply_never_answer_the_next_request(first: bytes) -> None:
    async with scripted(first, reply()) as server:
        wire = pool(server.url)
        await body_of(wire)
        await asyncio.sleep(0.05)
        assert await body_of(wire) == (200, OK)  # the server's answer to the second request
        await wire.aclose()
    assert len(server.heads) == 2 and server.connections == 2


async def test_an_eof_the_event_loop_has_not_read_yet_retires_the_connection(
        over_tls: str) -> None:
    # The server closes the idle connection; its FIN waits in the socket while the event
    # loop is busy elsewhere (here: reading paused). The socket itself is asked before reuse.
    if over_tls == "https":
        pytest.skip("asyncio's TLS layer reads the close_notify with the reply even while the "
                    "stream's reading is paused: the connection is retired before reuse, and "
                    "this case cannot be set up; the socket is asked the same way over TLS")
    async with scripted(reply(), reply(), close_after={1}) as server:
        wire = pool(server.url)
        response = await wire.post(b"{}")
        response._conn.writer.transport.pause_reading()  # type: ignore[union-attr]
        assert await read_body(response, 1000, url=wire.url) == OK
        await response.aclose()
        await asyncio.sleep(0.05)
        assert wire._idle and wire._idle[0].fresh  # as far as asyncio knows, still open
        async with asyncio.timeout(5):
            assert await body_of(wire) == (200, OK)
        await wire.aclose()
    assert len(server.heads) == 2 and server.connections == 2


@pytest.mark.parametrize("interim", [b"", b"HTTP/1.1 100 Continue\r\n\r\n"],
                         ids=["silent", "after-100"])
async def test_a_request_the_server_read_is_never_sent_again(interim: bytes) -> None:
    # The server read the second request, then closed: it may have acted on it. Resending is
    # the retry policy's decision (as with httpx), not the client's.
    async with scripted(reply(), interim, reply(), close_after={2}) as server:
        wire = pool(server.url)
        assert await body_of(wire) == (200, OK)
        with pytest.raises(WireError, match="Server disconnected"):
            await body_of(wire)
        await wire.aclose()
    assert len(server.heads) == 2


async def test_a_reply_finished_after_the_pool_closed_closes_its_connection() -> None:
    async with scripted(reply()) as server:
        wire = pool(server.url)
        response = await wire.post(b"{}")
        await wire.aclose()
        assert await read_body(response, 1000, url=wire.url) == OK
        await response.aclose()
        assert not wire._idle
        await asyncio.sleep(0.05)
    assert server.connections == 1


@pytest.mark.parametrize("answer", [
    HEAD + b"transfer-encoding: chunked\r\ncontent-length: 5\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    b"HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ntransfer-encoding: chunked\r\n\r\n"
    b"5\r\nhello\r\n0\r\n\r\n",
], ids=["length-and-chunked", "http10-chunked"])
async def test_ambiguous_framing_is_read_but_the_connection_is_not_reused(answer: bytes) -> None:
    # RFC 9112 6.1 and 6.3: both mark a message whose framing cannot be trusted.
    async with scripted(answer, reply()) as server:
        wire = pool(server.url)
        assert await body_of(wire) == (200, b"hello")
        assert await body_of(wire) == (200, OK)
        await wire.aclose()
    assert server.connections == 2


async def test_a_request_cancelled_while_waiting_leaves_nothing_in_the_pool() -> None:
    async with scripted(b"") as server:  # reads the request, never answers
        wire = pool(server.url)
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await wire.post(b"x" * 200_000)
        assert not wire._idle
        await wire.aclose()


# --- what may be sent -------------------------------------------------------------------------

@pytest.mark.parametrize("headers", [
    {"X": "a\x0bb"},  # whitespace other than SP and HT: h11 refuses it
    {"X": "a "},  # h11 refuses surrounding whitespace
    {"X": "a\r\nInjected: 1"},
    {"X(y)": "v"},  # not a token
    {"": "v"},
])
def test_headers_h11_would_refuse_stay_with_httpx(headers: dict[str, str]) -> None:
    assert not usable("http://127.0.0.1/", headers)


async def test_the_request_line_and_host_are_the_ones_httpx_sends() -> None:
    # A path with a space or non-ASCII, a query with a space: httpx percent-encodes them
    # (the lean client sent them raw, or failed to encode the head at all).
    async with scripted(reply(), reply()) as server:
        url = server.url + "/caf\u00e9 x?q=a b&r=\u00e9#frag"
        async with httpx.AsyncClient() as http:
            await http.post(url, content=b"{}")
        assert usable(url, {})
        wire = pool(url)
        await body_of(wire)
        await wire.aclose()
    first_lines = [head.split(b"\r\n")[0] for head in server.heads]
    hosts = [next(line for line in head.lower().split(b"\r\n") if line.startswith(b"host:"))
             for head in server.heads]
    assert first_lines[0] == first_lines[1] and b"%20" in first_lines[0]
    assert hosts[0] == hosts[1]


def test_an_idn_host_is_connected_to_by_its_ascii_name() -> None:
    wire = pool("http://exa\u00e4mple.test:8080/rpc")
    assert wire._host == "xn--example-7wa.test" and wire._port == 8080


# --- parity with the httpx path ---------------------------------------------------------------

TWICE = RetryPolicy(max_attempts=2, base_delay_s=0.001, max_delay_s=0.01, budget_s=HANG_S)


async def _fails_how(answer: bytes, *, lean: bool, close: bool = True,
                     timeout: float = HANG_S) -> tuple[str, int]:
    """(error class, requests the server saw) for one good call, then one call answered
    by `answer` (twice if the transport retries it; `close`: then the connection ends).
    The second call runs under `timeout`; the good one under HANG_S, so that a loaded
    machine never turns it into a timeout (issue 35)."""
    async with scripted(reply(), answer, answer, close_after={2, 3} if close else None
                        ) as server:
        wire = pool(server.url) if lean else None
        rpc = JsonRpcTransport(httpx.AsyncClient(), server.url, "0.3", retry=TWICE,
                               timeout=HANG_S, wire=LeanWire(wire) if wire else None)
        await rpc.call("message/send", {})
        rpc.timeout = timeout
        try:
            await rpc.call("message/send", {})
        except A2ABenchError as exc:
            error = type(exc).__name__
        else:
            error = "none"
        await rpc.http.aclose()
        if wire is not None:
            await wire.aclose()
    return error, len(server.heads)


@pytest.mark.parametrize(("answer", "expected"), [
    (b"", ("AgentTimeout", 3)),  # silence: --timeout, retried
    (HEAD + b"content-length: 10\r\n\r\nabc", ("ReplyTooSlow", 2)),  # a drip: not retried
], ids=["silent", "drip"])
@pytest.mark.slow
async def test_the_request_deadline_is_the_same_error_and_retry_as_with_httpx(
        answer: bytes, expected: tuple[str, int]) -> None:
    # Silence and a drip end only at the deadline, the one thing here that waits for it; 1 s
    # (not 0.3) so that the head of the drip is read before it even on a loaded machine. The
    # two clients, each with its own server, wait at the same time.
    assert await asyncio.gather(
        _fails_how(answer, lean=False, close=False, timeout=1.0),
        _fails_how(answer, lean=True, close=False, timeout=1.0)) == [expected, expected]


@pytest.mark.parametrize("answer", [
    b"",  # closed without a reply
    b"garbage\r\n\r\n",
    b"HTTP/1.1 099 Odd\r\n\r\n",
    HEAD + b"content-length: 100\r\n\r\nshort",
    HEAD + b"content-length: x\r\n\r\n",
    HEAD + b"content-length: 5, 6\r\n\r\nhello",
    CHUNKED + b"-3\r\n",
    CHUNKED + b"5\r\nhelloXX",
    HEAD + b"transfer-encoding: gzip\r\n\r\n",
    HEAD + b"content-length: " + b"1" * 30 + b"\r\n\r\n",
    reply(b"", status=b"503 Service Unavailable"),
    reply(b"not json"),
], ids=["closed", "garbage", "status-099", "short-body", "length-x", "conflicting-length",
        "negative-chunk", "chunk-crlf", "te-gzip", "long-length", "503", "not-json"])
async def test_each_failure_is_the_same_error_and_retry_as_with_httpx(answer: bytes,
                                                                     over_tls: str) -> None:
    httpx_way = await _fails_how(answer, lean=False)
    lean_way = await _fails_how(answer, lean=True)
    if over_tls == "https" and answer.startswith(b"HTTP/1.1 503"):
        # The server closes the kept-alive connection after its 503, and the retry races its
        # close_notify: sent on that connection it fails unread (2 requests), sent on a new
        # one it is answered (3). Over TLS httpx lost the race in every run seen, the lean
        # client (which asks the socket first) mostly won it: the 503's AgentUnreachable, or
        # the lost connection's ConnectionLost, both infrastructure and retried alike.
        ways = {lean_way, httpx_way}
        assert ways <= {("AgentUnreachable", 3), ("ConnectionLost", 2),
                        ("AgentUnreachable", 2)}, ways
    else:
        assert lean_way == httpx_way


async def test_proxy_variables_were_never_honoured_so_the_lean_client_loses_none(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a2abench builds its httpx clients with trust_env=False: an agent on plain http was
    # reached directly before the lean client too. A proxy that answers nothing proves it.
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    async with scripted(reply(), reply()) as server:
        server.answers.insert(0, card(server.url))
        async with A2AClient(A2AConfig.create(server.url.removesuffix("/rpc"))) as client:
            await client.conversation().send("hi")
            await client.conversation().send("hi")
            assert client._wires and not client._wires[0].redirected
    assert [b"a2abench/" in head for head in server.heads] == [False, True, True]
