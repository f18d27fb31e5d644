"""OpenAI-compatible embeddings (`POST {base_url}/embeddings`) with the chat client's on-disk
cache, retries and error mapping.

    client = EmbeddingClient(LLMConfig(model="text-embedding-3-large", base_url=URL))
    vectors = client.embed(["first text", "second text"])   # list[list[float]]

Blocking on purpose (thread-safe: each call has its own connection): embeddings are computed
while a domain loads (in a worker thread) and for a knowledge-base search inside a tool call
(which the tau2 orchestrator runs in a worker thread for such tools). Texts are sent in
batches; each batch is one cache entry, keyed like a chat request (endpoint + exact body), so
repeated runs cost no calls. A base64 `embedding` (asked for with
`args={"encoding_format": "base64"}`) is decoded as float32, like the OpenAI SDK.
"""

from __future__ import annotations

import array
import base64
import binascii
import json
import time
from typing import Any

import httpx

from a2abench.errors import LLMError, LLMResponseInvalid
from a2abench.llm._cache import FORMAT_VERSION, ResponseCache, cache_key, default_cache_root
from a2abench.llm._config import LLMConfig
from a2abench.llm._http import (
    buffered,
    endpoint_auth,
    error_for_status,
    error_for_transport,
    read_reply_blocking,
    retry_after_s,
)
from a2abench.net.attempts import Attempt, AttemptLoop, Outcome
from a2abench.net.tls import verified_context

BATCH = 128


class EmbeddingClient:
    def __init__(self, config: LLMConfig, *, transport: httpx.BaseTransport | None = None
                 ) -> None:
        self.config = config
        self._redact, headers = endpoint_auth(config.api_key)
        # One short-lived httpx client per embed() call: the domain that owns this client is
        # cached for the process and has no close hook, so no connection outlives a call.
        self._client_kwargs: dict[str, Any] = {
            "headers": headers, "transport": transport,
            "timeout": httpx.Timeout(config.timeout_s),
            "verify": verified_context()}

        self._cache = (ResponseCache(config.cache_dir or default_cache_root())
                       if config.cache else None)

    @property
    def endpoint(self) -> str:
        return self.config.base_url.rstrip("/") + "/embeddings"

    def embed(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        with httpx.Client(**self._client_kwargs) as http:
            for start in range(0, len(texts), BATCH):
                out.extend(self._batch(http, texts[start:start + BATCH]))
        return out

    def _batch(self, http: httpx.Client, texts: list[str]) -> list[list[float]]:
        body = {"model": self.config.model, **self.config.args, "input": texts}
        key = cache_key(self.endpoint, body)
        raw = self._cache._read(key) if self._cache is not None else None
        if raw is None:
            raw = self._fetch(http, body)
            if self._cache is not None:
                self._cache._write(key, {"v": FORMAT_VERSION, "key": key,
                                         "model": self.config.model, "created": time.time(),
                                         "response": raw})
        return self._vectors(raw, len(texts))

    def _vectors(self, raw: dict[str, Any], count: int) -> list[list[float]]:
        data: Any = raw.get("data")  # JSON from the wire: a bad shape raises below
        try:
            items = sorted(data, key=lambda d: d.get("index", 0))
            vectors = [_vector(item["embedding"]) for item in items]
        except (TypeError, KeyError, ValueError, AttributeError, binascii.Error) as exc:
            raise LLMResponseInvalid(f"the embeddings endpoint at {self.endpoint} answered "
                                     f"without a usable `data` list: {exc}",
                                     hint="Check that the endpoint serves OpenAI-compatible "
                                          "embeddings") from exc
        if len(vectors) != count:
            raise LLMResponseInvalid(f"the embeddings endpoint at {self.endpoint} returned "
                                     f"{len(vectors)} vectors for {count} texts",
                                     hint="Check the endpoint and the model name")
        return vectors

    def _fetch(self, http: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
        loop = AttemptLoop(self._retry_delay)
        for attempt in loop:
            outcome = self._attempt(http, body)
            if isinstance(outcome, dict):
                attempt.result = outcome
            else:
                attempt.outcome = outcome
        result: dict[str, Any] = loop.result
        return result

    def _retry_delay(self, attempt: Attempt, started: float) -> float | None:
        """Seconds before the next attempt, or None to give up (the retry policy's attempts
        and budget, counted from the first attempt)."""
        outcome, error = attempt.outcome, attempt.outcome.error
        assert error is not None and isinstance(error, LLMError)
        error.attempts = attempt.number
        policy = self.config.retry
        delay = policy.delay(attempt.number, outcome.retry_after)
        if not outcome.transient or not policy.retry_after(
                attempt.number, time.monotonic() - started, delay):
            return None
        return delay

    def _attempt(self, http: httpx.Client, body: dict[str, Any]) -> dict[str, Any] | Outcome:
        """The parsed body, or the failed attempt's outcome (error, worth retrying,
        server-requested delay). The reply is read up to the chat client's cap."""
        url = self.endpoint
        try:
            with http.stream("POST", url, json=body) as streamed:
                content = read_reply_blocking(streamed, self.config.max_reply_bytes, url=url)
                response = buffered(streamed, content)
        except httpx.TransportError as exc:
            return Outcome(error=error_for_transport(exc, url=url,
                                                     timeout_s=self.config.timeout_s),
                           transient=True)
        except LLMError as exc:  # the reply is over the cap
            return Outcome(error=exc)
        if response.status_code >= 300:
            error, transient = error_for_status(response, model=self.config.model,
                                                url=url, redact=self._redact)
            return Outcome(error=error, transient=transient,
                           retry_after=retry_after_s(response.headers))
        try:
            raw = json.loads(content)
        except ValueError:
            raw = None
        if not isinstance(raw, dict):
            return Outcome(error=LLMResponseInvalid(
                f"the embeddings endpoint at {url} answered with a body that is not a JSON "
                "object", hint="Check the base URL"))
        return raw


def _vector(value: Any) -> list[float]:
    """A vector as floats, or (`encoding_format: base64`) little float32s in base64, decoded as
    the OpenAI SDK does: the float32 values, widened."""
    if isinstance(value, str):
        return array.array("f", base64.b64decode(value, validate=True)).tolist()
    return [float(x) for x in value]
