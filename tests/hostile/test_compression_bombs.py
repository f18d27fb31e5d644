"""Issue 34: a compression bomb on every path that reads a peer's body through httpx. Each
reader stops at its cap a bounded piece at a time (net/coding.py): a 200 MB bomb costs a few
MB of traced allocations, where httpx's own decoder held all 200 MB (2 GB bombs took `run`,
`discover` and serve-green past 2 GB). Allocations are counted with tracemalloc: the bound
does not depend on the machine's speed or on what else the process holds."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import tracemalloc
from collections.abc import Callable, Iterator

import httpx
import pytest

from a2abench.a2a.card import fetch_card
from a2abench.a2a.client import A2AClient
from a2abench.a2a.config import A2AConfig
from a2abench.a2a.rest import RestTransport
from a2abench.a2a.transport import JsonRpcTransport
from a2abench.errors import (
    AgentCardInvalid,
    BrokenReply,
    DataCorrupt,
    LLMResponseInvalid,
    ReplyTooLarge,
)
from a2abench.llm import ChatLLM, LLMConfig, RetryPolicy
from a2abench.llm._embeddings import EmbeddingClient
from a2abench.net import download as _download
from a2abench.net.limits import ReplyLimits
from tests.hostile.frames import BOMB_CODING, bomb, card, message, reply
from tests.hostile.raw_server import Answer, Request, raw_server

BOMB = bomb(200_000_000)
BOMBED = reply(BOMB, headers=b"content-encoding: " + BOMB_CODING + b"\r\n")
ONCE = RetryPolicy(max_attempts=1)
MAX_TRACED = 40_000_000  # the 16 MB cap, a piece past it, and the reader's own copies


@contextlib.contextmanager
def traced() -> Iterator[list[int]]:
    """The peak of traced allocations inside the block, in bytes (in `peak[0]` after it)."""
    peak = [0]
    tracemalloc.start()
    try:
        yield peak
    finally:
        peak[0] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


def always(data: bytes) -> Callable[[Request], Answer]:
    return lambda request: Answer(data, "close")


async def test_the_agent_card() -> None:
    with raw_server(always(BOMBED)) as server, traced() as peak:
        async with httpx.AsyncClient() as http:
            with pytest.raises(AgentCardInvalid, match="larger than 4 MB"):
                await fetch_card(http, server.base + "/.well-known/agent-card.json")
    assert peak[0] < MAX_TRACED


@pytest.mark.parametrize("stream", [False, True], ids=["call", "sse"])
async def test_json_rpc_over_httpx(stream: bool) -> None:
    sse = BOMBED.replace(b"application/json", b"text/event-stream")
    with raw_server(always(sse if stream else BOMBED)) as server, traced() as peak:
        async with httpx.AsyncClient() as http:
            rpc = JsonRpcTransport(http, server.base + "/rpc", "0.3", retry=ONCE)
            with pytest.raises(ReplyTooLarge):
                if stream:
                    async for _ in rpc.stream("message/stream", {}):
                        pass
                else:
                    await rpc.call("message/send", {})
    assert peak[0] < MAX_TRACED


async def test_the_http_json_binding() -> None:
    with raw_server(always(BOMBED)) as server, traced() as peak:
        async with httpx.AsyncClient() as http:
            rest = RestTransport(http, server.base, "1.0", retry=ONCE)
            with pytest.raises(ReplyTooLarge):
                await rest.send({"message": {}})
    assert peak[0] < MAX_TRACED


async def test_the_deciding_first_call_of_the_client() -> None:
    # The first call of every A2AClient goes through httpx, the lean client after it.
    def answer(request: Request) -> Answer:
        if request.method == "GET":
            return Answer(reply(card(server.base)), "close")
        return Answer(BOMBED, "close")

    with raw_server(answer) as server, traced() as peak:
        config = A2AConfig.create(server.base, retry=ONCE)
        async with A2AClient(config) as client:
            with pytest.raises(ReplyTooLarge):
                await client.conversation().send("hi")
    assert peak[0] < MAX_TRACED


async def test_a_redirect_body_is_never_read() -> None:
    # httpx reads a redirect's whole body (aread, decoded in one step) before following it.
    def answer(request: Request) -> Answer:
        if request.method == "GET":
            return Answer(reply(card(server.base)), "close")
        if request.path == "/rpc":
            moved = BOMBED.replace(b"200 OK", b"307 Temporary Redirect").replace(
                b"content-type", b"location: /final\r\ncontent-type", 1)
            return Answer(moved, "close")
        return Answer(reply(message(json.loads(request.body)["id"])), "close")

    with raw_server(answer) as server, traced() as peak:
        async with A2AClient(A2AConfig.create(server.base, retry=ONCE)) as client:
            reply_ = await client.conversation().send("hi")
    assert reply_.text
    assert peak[0] < MAX_TRACED


def test_two_thousand_codings_are_the_servers_error_on_httpx_too() -> None:
    # httpx decoded them all, one step each.
    body = message("1")
    for _ in range(2000):
        body = gzip.compress(body, 0)  # stored: what is counted is the codings, not the ratio
    stacked = reply(body, headers=b"content-encoding: " + b", ".join([b"gzip"] * 2000) + b"\r\n")

    async def call() -> None:
        async with httpx.AsyncClient() as http:
            rpc = JsonRpcTransport(http, server.base + "/rpc", "0.3", retry=ONCE,
                                   limits=ReplyLimits())
            await rpc.call("message/send", {})

    with raw_server(always(stacked)) as server, pytest.raises(BrokenReply, match="2000"):
        asyncio.run(call())


async def test_the_llm_clients() -> None:
    with raw_server(always(BOMBED)) as server, traced() as peak:
        config = LLMConfig(model="m", base_url=server.base + "/v1", cache=False, retry=ONCE)
        async with ChatLLM(config) as llm:
            with pytest.raises(LLMResponseInvalid, match="16 MB cap"):
                await llm.chat([{"role": "user", "content": "hi"}])
        with pytest.raises(LLMResponseInvalid, match="16 MB cap"):
            await asyncio.to_thread(EmbeddingClient(config).embed, ["hi"])
    assert peak[0] < MAX_TRACED


def test_data_downloads() -> None:
    with raw_server(always(BOMBED)) as server, traced() as peak:
        pinned = _download.RemoteFile("bomb.bin", server.base + "/bomb.bin", sha256="0" * 64,
                                      size=1_000_000)
        with pytest.raises(DataCorrupt, match="larger than its pinned size"):
            _download.ensure([pinned], folder="bombs")
    assert peak[0] < MAX_TRACED
