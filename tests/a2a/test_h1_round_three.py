"""Issue 34 on the lean HTTP/1.1 client (a2abench/net/h1.py) and the one decoder it shares
with the httpx paths (a2abench/net/coding.py): stacked codings, bombs, heads read as h11
reads them, what h11 refuses, and which failures are the server's."""

from __future__ import annotations

import gzip
import zlib

import httpx
import pytest

from a2abench.errors import BrokenReply, ReplyTooLarge
from a2abench.net.coding import CHUNK, MAX_CODINGS, CodingError, Decoder
from a2abench.net.h1 import WireConnectError, WireError, WireFrameError
from a2abench.net.limits import read_body
from tests.a2a.test_h1 import OK, body_of, pool, refused, reply, scripted
from tests.servers import free_port


def _stacked(data: bytes, times: int) -> bytes:
    for _ in range(times):
        data = gzip.compress(data, 9)
    return data


def bomb(size: int) -> bytes:
    """`size` zero bytes as `Content-Encoding: deflate, gzip`, in a few kB, built fast: one
    compressed megabyte repeated (each flushed block starts afresh)."""
    packer, block = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS), b"\0" * 1_000_000
    first = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    count = size // len(block)
    adler = ((count * len(block)) % 65521) << 16 | 1  # of zeros: A stays 1, B adds 1 a byte
    inner = (b"\x78\xda" + first + again * (count - 1) + packer.flush()
             + adler.to_bytes(4, "big"))
    return gzip.compress(inner, 9)


# --- the decoder ------------------------------------------------------------------------------

async def test_two_thousand_stacked_codings_are_the_servers_error_not_a_recursion() -> None:
    # Decoded by recursion, 2,000 codings raised RecursionError: a harness error that took
    # the agent's failure out of the score.
    answer = reply(b"x", headers=b"content-encoding: " + b", ".join([b"gzip"] * 2000) + b"\r\n")
    async with scripted(answer, close_after={1}) as server:
        wire = pool(server.url)
        with pytest.raises(BrokenReply, match="stacks 2000 content codings"):
            await body_of(wire)
        await wire.aclose()


def test_the_codings_a_real_server_stacks_are_decoded() -> None:
    data = b"".join(b'{"n": %d}' % i for i in range(5_000))
    decoder = Decoder.of(", ".join(["gzip"] * MAX_CODINGS))
    assert decoder is not None
    assert b"".join(decoder.decode(_stacked(data, MAX_CODINGS))) == data
    with pytest.raises(CodingError):
        Decoder.of(", ".join(["gzip"] * (MAX_CODINGS + 1)))


def test_a_bomb_comes_out_a_bounded_piece_at_a_time() -> None:
    # 5 kB that decode to 2 GB: httpx undid each coding in one step; each piece here is at
    # most CHUNK bytes, so a reader's cap stops it early.
    packed = bomb(2_000_000_000)
    assert len(packed) < 6_000
    decoder = Decoder.of("deflate, gzip")
    assert decoder is not None
    seen = 0
    for piece in decoder.decode(packed):
        assert len(piece) <= CHUNK
        seen += len(piece)
        if seen > 1_000_000:
            break
    assert seen <= 1_000_000 + CHUNK


def test_bytes_after_the_end_of_a_gzip_stream_are_dropped_as_httpx_drops_them() -> None:
    packed = gzip.compress(b"hello") + b"junk" * 1_000
    decoder = Decoder.of("gzip")
    assert decoder is not None
    assert b"".join(decoder.decode(packed)) == b"hello"
    assert httpx.Response(200, headers={"content-encoding": "gzip"}, content=packed).content \
        == b"hello"


def test_the_bomb_is_a_valid_body() -> None:
    decoder = Decoder.of("deflate, gzip")
    assert decoder is not None
    assert sum(len(piece) for piece in decoder.decode(bomb(3_000_000))) == 3_000_000


async def test_a_double_gzip_bomb_meets_the_reply_cap_on_the_lean_client() -> None:
    answer = reply(_stacked(b"\0" * 20_000_000, 2), headers=b"content-encoding: gzip, gzip\r\n")
    async with scripted(answer, close_after={1}) as server:
        wire = pool(server.url)
        response = await wire.post(b"{}")
        with pytest.raises(ReplyTooLarge) as caught:
            await read_body(response, 1_000_000, url=wire.url)
        await response.aclose()
        await wire.aclose()
    assert caught.value.received <= 1_000_000 + CHUNK


async def test_an_undecodable_body_is_a_broken_reply() -> None:
    answer = b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: 3\r\n\r\nabc"
    async with scripted(answer, close_after={1}) as server:
        wire = pool(server.url)
        with pytest.raises(BrokenReply, match="cannot be decoded"):
            await body_of(wire)
        await wire.aclose()


# --- heads as h11 reads them ------------------------------------------------------------------

def _head(*lines: bytes, blank: bytes) -> bytes:
    return b"".join(lines) + blank + OK


@pytest.mark.parametrize("answer", [
    # a CRLF status line, then bare-LF headers: the client waited for CRLF CRLF until
    # --timeout, then sent the request again
    _head(b"HTTP/1.1 200 OK\r\n", b"content-type: application/json\n",
          b"content-length: %d\n" % len(OK), blank=b"\n"),
    _head(b"HTTP/1.1 200 OK\n", b"content-length: %d\r\n" % len(OK), blank=b"\r\n"),
    _head(b"HTTP/1.1 200 OK\r\n", b"content-length: %d\r\n" % len(OK), blank=b"\n"),
    _head(b"HTTP/1.1 200 OK\r\n", b"x-a: 1\n", b"content-length: %d\r\n" % len(OK),
          blank=b"\r\n"),
], ids=["crlf-then-lf", "lf-then-crlf", "lf-blank-line", "one-lf-line"])
async def test_mixed_line_ends_are_read_as_h11_reads_them(answer: bytes) -> None:
    # The server closes after its answer: a client that waits for another line end fails.
    async with httpx.AsyncClient() as http, scripted(answer, close_after={1}) as server:
        assert (await http.post(server.url, content=b"{}")).content == OK
    async with scripted(answer, close_after={1}) as server:
        wire = pool(server.url)
        assert await body_of(wire) == (200, OK)
        await wire.aclose()


async def test_mixed_line_ends_keep_the_connection_for_the_next_reply() -> None:
    mixed = _head(b"HTTP/1.1 200 OK\r\n", b"content-length: %d\n" % len(OK), blank=b"\n")
    async with scripted(mixed, reply(), mixed) as server:
        wire = pool(server.url)
        for _ in range(3):
            assert await body_of(wire) == (200, OK)
        await wire.aclose()
    assert server.connections == 1


@pytest.mark.parametrize("value", [b"a\rb", b"a\x00b", b"a\x0bb", b"a\x0cb"],
                         ids=["bare-cr", "nul", "vertical-tab", "form-feed"])
async def test_header_values_h11_refuses_are_refused(value: bytes) -> None:
    answer = b"HTTP/1.1 200 OK\r\nx-odd: " + value + b"\r\ncontent-length: 2\r\n\r\n{}"
    async with httpx.AsyncClient() as http, scripted(answer, close_after={1}) as server:
        with pytest.raises(httpx.RemoteProtocolError):
            await http.post(server.url, content=b"{}")
    await refused(answer, "malformed header line")


async def test_trailers_end_at_a_bare_lf_blank_line_as_in_h11() -> None:
    answer = (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n"
              b"x-trailer: 1\n\n")
    async with scripted(answer, close_after={1}) as server:
        wire = pool(server.url)
        assert await body_of(wire) == (200, b"{}")
        await wire.aclose()


async def test_101_switching_protocols_is_refused_at_once() -> None:
    # Taken as the final reply, it was read until the connection closed (or --timeout).
    answer = b"HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n"
    async with httpx.AsyncClient() as http, scripted(answer) as server:
        with pytest.raises(httpx.RemoteProtocolError):
            await http.post(server.url, content=b"{}")
    async with scripted(answer) as server:  # the connection stays open: nothing to wait for
        wire = pool(server.url)
        with pytest.raises(WireFrameError, match="switched protocols"):
            await wire.post(b"{}")
        await wire.aclose()


# --- whose failure ----------------------------------------------------------------------------

async def test_a_refused_connection_is_a_connect_error() -> None:
    wire = pool(f"http://127.0.0.1:{free_port()}/rpc")
    with pytest.raises(WireConnectError):
        await wire.post(b"{}")


@pytest.mark.parametrize(("answer", "frame"), [
    (b"", False),  # nothing at all: the network's or the server's, nobody can tell
    (b"HTTP/1.1 200 OK\r\ncontent-le", True),
    (b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nshort", True),
    (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel", True),
    (b"HTTP/1.1 200 OK\r\ncontent-length: 5, 6\r\n\r\nhello", True),
    (b"HTTP/1.1 200 OK\r\n" + b"x: y\r\n" * 20_000 + b"\r\n", True),
], ids=["closed", "partial-head", "short-body", "short-chunk", "two-lengths",
        "many-headers"])
async def test_a_reply_that_began_and_broke_is_a_frame_error(answer: bytes, frame: bool) -> None:
    async with scripted(answer, close_after={1}) as server:
        wire = pool(server.url)
        with pytest.raises(WireError) as caught:
            await body_of(wire)
        await wire.aclose()
    assert isinstance(caught.value, WireFrameError) is frame
