"""A real OpenAI-compatible Chat Completions server for tests, served on loopback.

    server = FakeLLMServer()
    server.enqueue(content="Hello")                        # the next reply, in order
    server.enqueue_error(429, retry_after=0.1)             # a failure, with Retry-After
    with server.running():
        config = LLMConfig(model="gpt-4.1", base_url=server.base_url)
        ...
    server.requests[0].json["messages"]                    # what the client sent

Replies come from the queue first, then from `handler(request_json)` if one is set; with
neither, the server answers 501 "no scripted reply left" (a status clients do not retry) so a
test that under-scripts fails at once. A handler that raises gets a 501 too, and the exception
is kept in `handler_errors`. Every request is recorded (path, headers, body), malformed ones
included.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import itertools
import json
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.servers import serve_in_thread

DEFAULT_USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


@dataclass
class Reply:
    """One scripted HTTP answer. `body` is sent as JSON unless `raw` (bytes, sent as is)."""

    status: int = 200
    body: Any = None
    raw: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]  # lower-cased names
    text: str
    json: Any  # None when the body was not JSON


Handler = Callable[[dict[str, Any]], "Reply | dict[str, Any]"]
_ids = itertools.count(1)


def completion(content: str | None = None, tool_calls: list[dict[str, Any]] | None = None, *,
               model: str = "fake-model", usage: dict[str, Any] | None = None,
               finish_reason: str | None = None) -> dict[str, Any]:
    """A Chat Completions response body.

    `tool_calls` items are `{"name", "arguments", "id"?}`; a dict `arguments` is JSON-encoded,
    a str is sent verbatim (so tests can send invalid JSON).
    """
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {"id": call.get("id", f"call_{next(_ids)}"), "type": "function",
             "function": {"name": call["name"],
                          "arguments": call["arguments"] if isinstance(call["arguments"], str)
                          else json.dumps(call["arguments"])}}
            for call in tool_calls
        ]
    finish = finish_reason or ("tool_calls" if tool_calls else "stop")
    return {"id": f"chatcmpl-{next(_ids)}", "object": "chat.completion", "created": 0,
            "model": model, "choices": [{"index": 0, "message": message,
                                         "finish_reason": finish}],
            "usage": DEFAULT_USAGE if usage is None else usage}


def word_vector(text: str, dim: int = 64) -> list[float]:
    """A deterministic stand-in embedding: counts of hashed lower-cased words."""
    return list(_text_vector(text, dim))


@functools.lru_cache(maxsize=1 << 12)
def _text_vector(text: str, dim: int) -> tuple[float, ...]:
    # Kept per text: every load of the banking KB embeds its ~700 documents again.
    out = [0.0] * dim
    for word in text.lower().split():
        out[_word_slot(word, dim)] += 1.0
    return tuple(out)


@functools.lru_cache(maxsize=1 << 16)
def _word_slot(word: str, dim: int) -> int:
    # The banking KB has ~120,000 words and few distinct ones; each load embeds them all.
    return int(hashlib.sha256(word.encode()).hexdigest(), 16) % dim


def error_body(message: str, *, code: str | None = None,
               type: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": type, "param": None, "code": code}}


class FakeLLMServer:
    def __init__(self, handler: Handler | None = None) -> None:
        self.handler = handler
        self._script: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self.handler_errors: list[Exception] = []
        self.base_url = ""  # "http://127.0.0.1:PORT/v1" while running
        self.app = Starlette(routes=[
            Route("/v1/chat/completions", self._chat, methods=["POST"]),
            Route("/chat/completions", self._chat, methods=["POST"]),
            Route("/v1/embeddings", self._embeddings, methods=["POST"]),
            Route("/embeddings", self._embeddings, methods=["POST"]),
        ])
        self.embed: Callable[[str], list[float]] = word_vector  # /embeddings: text -> vector

    @contextlib.contextmanager
    def running(self) -> Iterator[FakeLLMServer]:
        with serve_in_thread(self.app, timeout_graceful_shutdown=1) as url:
            self.base_url = url + "/v1"
            try:
                yield self
            finally:
                self.base_url = ""

    def reset(self) -> None:
        """Forget the script, the handler and everything recorded (the server keeps running)."""
        with self._lock:
            self.handler = None
            self._script.clear()
            self._requests.clear()
            self.handler_errors.clear()

    # scripting ---------------------------------------------------------------------------

    def enqueue(self, content: str | None = None, tool_calls: list[dict[str, Any]] | None = None,
                *, model: str | None = None, usage: dict[str, Any] | None = None,
                finish_reason: str | None = None, delay_s: float = 0.0,
                headers: dict[str, str] | None = None) -> None:
        """A successful reply; `model` defaults to the model named in the request."""
        body = completion(content, tool_calls, model=model or "", usage=usage,
                          finish_reason=finish_reason)
        self.enqueue_reply(Reply(body=body, delay_s=delay_s, headers=headers or {}))

    def enqueue_error(self, status: int, message: str = "injected failure", *,
                      code: str | None = None, retry_after: float | str | None = None,
                      delay_s: float = 0.0) -> None:
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        self.enqueue_reply(Reply(status=status, body=error_body(message, code=code),
                                 headers=headers, delay_s=delay_s))

    def enqueue_raw(self, raw: bytes | str, *, status: int = 200,
                    content_type: str = "application/json") -> None:
        """A body sent verbatim, e.g. truncated JSON or an HTML error page."""
        data = raw.encode() if isinstance(raw, str) else raw
        self.enqueue_reply(Reply(status=status, raw=data,
                                 headers={"Content-Type": content_type}))

    def enqueue_reply(self, reply: Reply) -> None:
        with self._lock:
            self._script.append(reply)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def pending(self) -> int:
        """Scripted replies not yet served."""
        with self._lock:
            return len(self._script)

    # serving -----------------------------------------------------------------------------

    async def _take(self, request: Request) -> tuple[Any, Reply | None]:
        """Record the request; return its JSON body (None if not JSON) and the next scripted
        reply, if any."""
        text = (await request.body()).decode("utf-8", "replace")
        try:
            payload: Any = json.loads(text)
        except json.JSONDecodeError:
            payload = None
        with self._lock:
            self._requests.append(RecordedRequest(request.url.path, dict(request.headers),
                                                  text, payload))
            scripted = self._script.popleft() if self._script else None
        return payload, scripted

    async def _chat(self, request: Request) -> Response:
        payload, scripted = await self._take(request)
        reply = scripted or self._from_handler(payload)
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.raw is not None:
            return Response(reply.raw, status_code=reply.status, headers=reply.headers)
        body = reply.body
        if isinstance(body, dict) and body.get("model") == "" and isinstance(payload, dict):
            body = {**body, "model": payload.get("model", "fake-model")}
        return Response(json.dumps(body), status_code=reply.status,
                        headers={"Content-Type": "application/json", **reply.headers})

    async def _embeddings(self, request: Request) -> Response:
        """OpenAI-compatible embeddings: `self.embed(text)` for each input, in order."""
        payload, scripted = await self._take(request)
        if scripted is not None:  # a scripted failure (or body) applies here too
            return Response(json.dumps(scripted.body), status_code=scripted.status,
                            headers={"Content-Type": "application/json", **scripted.headers})
        inputs = payload.get("input") if isinstance(payload, dict) else None
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list):
            return Response(json.dumps(error_body("fake LLM server: no input")), 400,
                            headers={"Content-Type": "application/json"})
        body = {"object": "list", "model": payload.get("model"),
                "data": [{"object": "embedding", "index": i, "embedding": self.embed(t)}
                         for i, t in enumerate(inputs)],
                "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)}}
        return Response(json.dumps(body), headers={"Content-Type": "application/json"})

    def _from_handler(self, payload: Any) -> Reply:
        if self.handler is None:
            return Reply(status=501, body=error_body("fake LLM server: no scripted reply left",
                                                     type="server_error"))
        if not isinstance(payload, dict):
            return Reply(status=400, body=error_body("fake LLM server: body is not JSON"))
        try:
            result = self.handler(payload)
        except Exception as exc:  # reported to the client and kept for the test to see
            with self._lock:
                self.handler_errors.append(exc)
            return Reply(status=501, body=error_body(f"fake LLM server: handler raised "
                                                     f"{type(exc).__name__}: {exc}",
                                                     type="server_error"))
        return result if isinstance(result, Reply) else Reply(body=result)
