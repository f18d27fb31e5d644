"""Content-Encoding undone in bounded steps: the one decoder of every body a peer sends.

httpx decodes each network chunk in one step (`zlib.decompress(chunk)` without a bound), so
1.8 kB sent as `Content-Encoding: gzip, gzip` became 2 GB before a reply cap saw a byte. Every
reader of a peer's body (net/limits.py, the card fetch, downloads, the lean client) reads the
raw bytes (`aiter_raw`, `iter_raw`) and decodes them here instead:

    async for piece in decode(response.aiter_raw(), response.headers.get("content-encoding")):
        ...              # each piece at most CHUNK bytes once decoded; CodingError if broken

It decodes what httpx decodes, as httpx does (gzip, deflate zlib-wrapped or raw, several
codings in reverse order, identity and unknown codings passed through), with three bounds:
each step yields at most CHUNK bytes at a time (so a reader's byte cap stops a bomb after
CHUNK bytes past it), at most MAX_CODINGS codings are decoded, and the stack is walked with a
loop, never by recursion (2,000 stacked codings once overflowed the interpreter's stack).
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator

import httpx

CHUNK = 65_536
# Codings decoded in one body; real servers send one. urllib3 also stops at 5.
MAX_CODINGS = 5
# What our httpx clients ask for: the codings decoded here and nothing else (httpx would add
# br and zstd when their packages happen to be installed).
ACCEPT_ENCODING = "gzip, deflate"
_WBITS = {"gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}


class CodingError(Exception):
    """The body cannot be decoded as its Content-Encoding says, or stacks too many codings."""


class _Inflate:
    __slots__ = ("_done", "_raw_next", "_zlib")

    def __init__(self, coding: str) -> None:
        self._zlib = zlib.decompressobj(_WBITS[coding])
        self._raw_next = coding == "deflate"  # httpx retries a failing first deflate as raw
        self._done = False

    def decode(self, data: bytes) -> Iterator[bytes]:
        """The output of `data`, at most CHUNK bytes a piece. Input after the end of the
        stream is dropped, as httpx drops it (never piled up in `unused_data`); a stream
        that just stops is accepted, as httpx accepts it."""
        part = b""
        while data and not self._done:
            part = self._inflate(data)
            if part:
                yield part
            data = self._zlib.unconsumed_tail
        while len(part) == CHUNK and not self._done:  # zlib may hold more than fit
            part = self._inflate(b"")
            if part:
                yield part

    def _inflate(self, data: bytes) -> bytes:
        try:
            part = self._zlib.decompress(data, CHUNK)
        except zlib.error as exc:
            if not self._raw_next:
                raise CodingError(f"the body cannot be decoded: {exc}") from None
            self._zlib, self._raw_next = zlib.decompressobj(-zlib.MAX_WBITS), False
            return self._inflate(data)
        self._raw_next = False
        self._done = self._zlib.eof
        return part


class Decoder:
    """One body's codings, undone in order, each step bounded (see the module doc)."""

    __slots__ = ("_steps",)

    def __init__(self, steps: list[_Inflate]) -> None:
        self._steps = steps

    @classmethod
    def of(cls, header: str | None) -> Decoder | None:
        """The decoder for a Content-Encoding header; None when nothing is to be undone."""
        if not header:
            return None
        codings = [c for c in (part.strip().lower() for part in header.split(",")) if c in _WBITS]
        if len(codings) > MAX_CODINGS:
            raise CodingError(f"the body stacks {len(codings)} content codings; at most "
                              f"{MAX_CODINGS} are decoded")
        return cls([_Inflate(coding) for coding in reversed(codings)]) if codings else None

    def decode(self, data: bytes) -> Iterator[bytes]:
        """The decoded pieces of one raw chunk, depth first through the steps: a stack of
        iterators, one per step, so no piece waits whole in memory and nothing recurses."""
        stack: list[Iterator[bytes]] = [iter((data,))]
        steps = self._steps
        while stack:
            piece = next(stack[-1], None)
            if piece is None:
                stack.pop()
            elif len(stack) > len(steps):
                yield piece
            else:
                stack.append(steps[len(stack) - 1].decode(piece))


def decode(raw: AsyncIterator[bytes], header: str | None) -> AsyncIterator[bytes]:
    """The decoded body of the raw chunks `raw` under Content-Encoding `header` (`raw` itself
    when nothing is to be undone: no layer on the hot path)."""
    decoder = Decoder.of(header)
    return raw if decoder is None else _decoded(raw, decoder)


async def _decoded(raw: AsyncIterator[bytes], decoder: Decoder) -> AsyncIterator[bytes]:
    async for chunk in raw:
        for piece in decoder.decode(chunk):
            yield piece


async def drop_redirect_body(response: httpx.Response) -> None:
    """A response hook for httpx clients that follow redirects: httpx reads a redirect's whole
    body into memory (`aread`, decoded in one step) before it follows the Location; nobody
    here reads it. It is closed unread, which also closes its connection."""
    if response.has_redirect_location:
        stream, response.stream = response.stream, httpx.ByteStream(b"")
        response.headers.pop("content-encoding", None)
        assert isinstance(stream, httpx.AsyncByteStream)
        await stream.aclose()


def drop_redirect_body_blocking(response: httpx.Response) -> None:
    """`drop_redirect_body` for blocking clients (downloads)."""
    if response.has_redirect_location:
        stream, response.stream = response.stream, httpx.ByteStream(b"")
        response.headers.pop("content-encoding", None)
        assert isinstance(stream, httpx.SyncByteStream)
        stream.close()


def decode_blocking(raw: Iterator[bytes], header: str | None) -> Iterator[bytes]:
    """`decode` for blocking readers (downloads, the embeddings client)."""
    decoder = Decoder.of(header)
    if decoder is None:
        return raw
    return (piece for chunk in raw for piece in decoder.decode(chunk))
