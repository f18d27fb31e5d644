"""The embeddings client reads its reply under the chat client's byte cap, and retries on the
one attempt loop."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from a2abench.errors import LLMError, LLMResponseInvalid
from a2abench.llm import LLMConfig, RetryPolicy
from a2abench.llm._embeddings import EmbeddingClient

FAST = RetryPolicy(max_attempts=3, base_delay_s=0.0, jitter=0.0)


def client(handler: object, **config: object) -> EmbeddingClient:
    settings: dict[str, object] = {"model": "e", "base_url": "http://llm/v1", "cache": False,
                                   "retry": FAST, **config}
    return EmbeddingClient(LLMConfig(**settings),  # type: ignore[arg-type]
                           transport=httpx.MockTransport(handler))  # type: ignore[arg-type]


def vectors(count: int) -> bytes:
    return json.dumps({"data": [{"index": i, "embedding": [0.5, 1.0]}
                                for i in range(count)]}).encode()


def endless(total: int, size: int = 1_000_000) -> Iterator[bytes]:
    yield b'{"data": [{"index": 0, "embedding": "'
    for _ in range(total // size):
        yield b"A" * size


def test_an_oversize_reply_is_refused_at_the_cap_and_not_retried() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(200, content=endless(50_000_000))

    with pytest.raises(LLMResponseInvalid, match=r"larger than the 2 MB cap") as caught:
        client(handler, max_reply_bytes=2_000_000).embed(["hello"])
    assert caught.value.hint is not None and "--max-reply-bytes" in caught.value.hint
    assert len(calls) == 1


def test_a_declared_oversize_length_is_refused_before_reading() -> None:
    def handler(_: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=vectors(1),
                              headers={"content-length": str(10_000_000)})

    with pytest.raises(LLMResponseInvalid, match=r"larger than the 1 MB cap"):
        client(handler, max_reply_bytes=1_000_000).embed(["hello"])


def test_a_reply_under_the_cap_is_read_whole() -> None:
    def handler(_: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=vectors(2))

    assert client(handler, max_reply_bytes=1_000_000).embed(["a", "b"]) == [[0.5, 1.0]] * 2


def test_transient_failures_retry_then_give_up_with_the_attempt_count() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(503, json={"error": {"message": "busy"}})

    with pytest.raises(LLMError) as caught:
        client(handler).embed(["hello"])
    assert len(calls) == 3 and caught.value.attempts == 3


def test_a_transient_failure_then_success() -> None:
    replies = [httpx.Response(503, json={"error": {"message": "busy"}}),
               httpx.Response(200, content=vectors(1))]

    def handler(_: httpx.Request) -> httpx.Response:
        return replies.pop(0)

    assert client(handler).embed(["hello"]) == [[0.5, 1.0]]
    assert replies == []
