"""Hostile HTTP/1.1 replies, byte for byte (issue 34): compression bombs, broken framing, and
the class each must end in under the transport-failure rule (docs/run-semantics.md).

`FRAMES` maps a name to (the reply's bytes for a JSON-RPC id, what the connection does next,
the task-trial status expected, the error class expected).
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from tests.hostile.raw_server import Then


def bomb(size: int) -> bytes:
    """`size` zero bytes as `Content-Encoding: deflate, gzip` in a few kB, built fast: one
    compressed megabyte repeated (each fully flushed block starts afresh)."""
    packer, block = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS), b"\0" * 1_000_000
    first = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    count = size // len(block)
    adler = ((count * len(block)) % 65521) << 16 | 1  # of zeros: A stays 1, B adds 1 a byte
    inner = (b"\x78\xda" + first + again * (count - 1) + packer.flush()
             + adler.to_bytes(4, "big"))
    return gzip.compress(inner, 9)


BOMB_CODING = b"deflate, gzip"
GIGABYTES_2 = 2_000_000_000


def message(rid: object, text: str = "<respond>I do not know.</respond>") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "result": {
        "kind": "message", "role": "agent", "messageId": "m-1", "contextId": "ctx-raw",
        "parts": [{"kind": "text", "text": text}]}}).encode()


def reply(body: bytes, *, status: bytes = b"200 OK", headers: bytes = b"") -> bytes:
    return (b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\n" + headers
            + b"content-length: %d\r\n\r\n" % len(body) + body)


def card(base: str, *, streaming: bool = False, binding: str = "JSONRPC") -> bytes:
    url = base + ("/rpc" if binding == "JSONRPC" else "")
    return json.dumps({
        "name": "raw", "description": "scripted bytes", "version": "1.0",
        "protocolVersion": "0.3.0", "url": url, "preferredTransport": binding,
        "capabilities": {"streaming": streaming},
        "defaultInputModes": ["text"], "defaultOutputModes": ["text"],
        "skills": [{"id": "s", "name": "s", "description": "s", "tags": []}]}).encode()


@dataclass(frozen=True)
class Frame:
    build: Callable[[object], bytes]  # the reply's bytes for a JSON-RPC id
    then: Then
    status: str  # the task-trial's status under the rule
    error: str  # its error class


HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
CHUNKED = HEAD + b"transfer-encoding: chunked\r\n\r\n"


def _gzip_reply(rid: object, codings: int) -> bytes:
    body = message(rid)
    for _ in range(codings):  # stored blocks: each layer as valid, 50 times cheaper to build
        body = gzip.compress(body, compresslevel=0)
    return reply(body, headers=b"content-encoding: " + b", ".join([b"gzip"] * codings) + b"\r\n")


AGENT = "agent_error"

FRAMES: dict[str, Frame] = {
    # compression: a bomb is over --max-reply-bytes; too many codings, or bytes that are no
    # gzip, cannot be decoded
    "bomb": Frame(lambda rid: reply(bomb(GIGABYTES_2), headers=b"content-encoding: "
                                    + BOMB_CODING + b"\r\n"), "close", AGENT, "ReplyTooLarge"),
    "codings_2000": Frame(lambda rid: _gzip_reply(rid, 2000), "close", AGENT, "BrokenReply"),
    "bad_gzip": Frame(lambda rid: reply(b"not gzip at all", headers=b"content-encoding: gzip\r\n"),
                      "close", AGENT, "BrokenReply"),
    # framing: Content-Length
    "negative_length": Frame(lambda rid: HEAD + b"content-length: -5\r\n\r\n" + message(rid),
                             "close", AGENT, "BrokenReply"),
    "huge_length": Frame(lambda rid: HEAD + b"content-length: " + b"9" * 30 + b"\r\n\r\n",
                         "close", AGENT, "BrokenReply"),
    "conflicting_lengths": Frame(lambda rid: HEAD + b"content-length: 5\r\ncontent-length: 7"
                                 b"\r\n\r\nhello!!", "close", AGENT, "BrokenReply"),
    "short_body": Frame(lambda rid: HEAD + b"content-length: 500\r\n\r\n" + message(rid)[:40],
                        "close", AGENT, "BrokenReply"),
    # framing: chunks and trailers
    "bad_chunk": Frame(lambda rid: CHUNKED + b"zz\r\nhello\r\n0\r\n\r\n", "close", AGENT,
                       "BrokenReply"),
    "endless_trailers": Frame(lambda rid: CHUNKED + b"2\r\n{}\r\n0\r\n"
                              + b"x-trailer: aaaaaaaa\r\n" * 20_000, "hang", AGENT,
                              "BrokenReply"),
    # the head
    "header_line_1mb": Frame(lambda rid: HEAD + b"x-big: " + b"a" * 1_000_000 + b"\r\n\r\n",
                             "hang", AGENT, "BrokenReply"),
    "headers_100k": Frame(lambda rid: HEAD + b"x: y\r\n" * 100_000 + b"\r\n", "hang", AGENT,
                          "BrokenReply"),
    "garbage_status": Frame(lambda rid: b"SPDY/9 hello\r\n\r\n", "close", AGENT, "BrokenReply"),
    "bare_cr_value": Frame(lambda rid: reply(message(rid), headers=b"x-odd: a\rb\r\n"), "close",
                           AGENT, "BrokenReply"),
    "switching_101": Frame(lambda rid: b"HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\n\r\n",
                           "hang", AGENT, "BrokenReply"),
    # the connection ends mid-reply
    "half_close_mid_body": Frame(lambda rid: HEAD + b"content-length: 500\r\n\r\n"
                                 + message(rid)[:40], "half_close", AGENT, "BrokenReply"),
    "reset_mid_body": Frame(lambda rid: HEAD + b"content-length: 500\r\n\r\n"
                            + message(rid)[:40], "reset", AGENT, "BrokenReply"),
    # no reply at all, on every attempt: the same failure through every retry
    "closed_every_time": Frame(lambda rid: b"", "close", AGENT, "RepeatedTransportFailure"),
    "reset_every_time": Frame(lambda rid: b"", "reset", AGENT, "RepeatedTransportFailure"),
    # read as h11 reads it: a good reply
    "mixed_line_ends": Frame(lambda rid: (lambda body: b"HTTP/1.1 200 OK\r\ncontent-length: %d\n"
                             b"content-type: application/json\n\n" % len(body) + body)(
                                 message(rid)), "keep", "ok", ""),
}
