"""ChatLLM: an async client for one model behind an OpenAI-compatible Chat Completions API."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

import httpx

from a2abench.errors import LLMError, LLMResponseInvalid
from a2abench.llm._cache import KeyLocks, ResponseCache, cache_key, default_cache_root
from a2abench.llm._config import LLMConfig, check_args
from a2abench.llm._http import (
    buffered,
    deadline_error,
    endpoint_auth,
    error_for_status,
    error_for_transport,
    parse_json,
    read_reply,
    retry_after_s,
)
from a2abench.llm._result import API_HINT, ChatResult, LLMCallMetrics, parse_completion
from a2abench.net.attempts import Attempt, AttemptLoop, Outcome
from a2abench.net.limits import (
    Deadline,
    DeadlinePassed,
    current_task_deadline,
    deadline_scope,
)
from a2abench.net.tls import verified_context

logger = logging.getLogger("a2abench.llm")

MetricsHook = Callable[[LLMCallMetrics], None]


# No cap of httpx's own (100 connections, 20 kept alive): a run's --concurrency bounds the
# calls in flight, and at 256 the cap queued a user simulator's calls behind each other.
# Idle connections kept 30 s, not 5: a user simulator's next call on a conversation comes
# after the agent's turn, often seconds later.
_LIMITS = httpx.Limits(max_connections=None, max_keepalive_connections=None,
                       keepalive_expiry=30.0)
_PER_LANE = 8  # calls in flight per httpx client (`ChatLLM._lane`)


class ChatLLM:
    """Send chat requests for `config.model`, with retries and the on-disk response cache.

    One httpx.AsyncClient per instance: close it with `aclose()` or `async with ChatLLM(...)`.
    `on_call` receives an LLMCallMetrics once per `chat()`, on success and on failure.
    `transport` replaces the network (tests use httpx.MockTransport).
    """

    def __init__(self, config: LLMConfig, *, on_call: MetricsHook | None = None,
                 transport: httpx.AsyncBaseTransport | None = None,
                 role: str | None = None) -> None:
        self.config = config
        self.role = role  # e.g. "the user simulator's LLM (--user-llm gpt-4.1)", for errors
        self._on_call = on_call
        self._redact, headers = endpoint_auth(config.api_key)
        self._client_args: dict[str, Any] = {
            "headers": headers, "transport": transport,
            "timeout": httpx.Timeout(config.timeout_s), "verify": verified_context(),
            "limits": _LIMITS}
        self._lanes = [httpx.AsyncClient(**self._client_args)]
        self._in_flight = 0
        self._cache = (ResponseCache(config.cache_dir or default_cache_root())
                       if config.cache else None)
        self._locks = KeyLocks()
        self._random = random.Random()

    def __repr__(self) -> str:
        return f"ChatLLM(model={self.config.model!r}, base_url={self.config.base_url!r})"

    async def __aenter__(self) -> ChatLLM:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for http in self._lanes:
            await http.aclose()

    def _lane(self) -> httpx.AsyncClient:
        """The httpx client of the next call: one per _PER_LANE calls in flight. httpcore
        looks at every connection of its pool for each request it places (and counts them
        again for each one): one pool for 256 calls in flight cost ~10 ms of CPU per call
        (perf/tau2_multiturn.py), small pools a few microseconds."""
        index = self._in_flight // _PER_LANE
        while len(self._lanes) <= index:
            self._lanes.append(httpx.AsyncClient(**self._client_args))
        return self._lanes[index]

    def request_body(self, messages: list[dict[str, Any]], *,
                     tools: list[dict[str, Any]] | None = None, seed: int | None = None,
                     **overrides: Any) -> dict[str, Any]:
        """The exact JSON body `chat()` would send (and hash for the cache)."""
        check_args(overrides, source="chat() overrides")
        body: dict[str, Any] = {"model": self.config.model, **self.config.args, **overrides}
        if seed is not None:
            body["seed"] = seed
        body["messages"] = messages
        if tools is not None:
            body["tools"] = tools
        return body

    async def chat(self, messages: list[dict[str, Any]], *,
                   tools: list[dict[str, Any]] | None = None, seed: int | None = None,
                   **overrides: Any) -> ChatResult:
        """One assistant turn for `messages`. Raises LLMError (or a subclass) on failure."""
        body = self.request_body(messages, tools=tools, seed=seed, **overrides)
        started = time.perf_counter()
        try:
            result = await self._cached_or_fetched(body, started)
        except LLMError as exc:
            if self.role and not exc.message.startswith(self.role):
                # Say which LLM failed: a run's summary must not blame the agent for it.
                exc.message = f"{self.role}: {exc.message}"
                exc.args = (exc.message,)
            self._report(LLMCallMetrics(
                model=self.config.model, latency_ms=_ms_since(started), prompt_tokens=0,
                completion_tokens=0, cost_usd=None, cached=False,
                attempts=exc.attempts, error=exc))
            raise
        self._report(LLMCallMetrics(
            model=result.model, latency_ms=result.latency_ms,
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens, cost_usd=result.cost_usd,
            cached=result.cached, attempts=result.attempts))
        return result

    def _report(self, metrics: LLMCallMetrics) -> None:
        if self._on_call is not None:
            self._on_call(metrics)

    async def _cached_or_fetched(self, body: dict[str, Any], started: float) -> ChatResult:
        if self._cache is None:
            return await self._fetch(body, started)
        key = cache_key(self.config.endpoint, body)
        # Identical requests in flight wait for the first one and then read its cache entry,
        # so N concurrent duplicates cost one call.
        async with self._locks.hold(key):
            raw = await self._cache.get(key)
            if raw is not None:
                try:
                    return parse_completion(raw, model=self.config.model, cached=True,
                                            latency_ms=_ms_since(started), attempts=0)
                except LLMResponseInvalid as exc:
                    logger.warning("ignoring LLM cache file %s: %s", self._cache.path(key),
                                   self._redact(exc.message))
            result = await self._fetch(body, started)
            await self._cache.put(key, result.raw, model=self.config.model)
            return result

    async def _fetch(self, body: dict[str, Any], started: float) -> ChatResult:
        loop = AttemptLoop(lambda attempt, _: self._retry_delay(attempt, started))
        async for attempt in loop:
            outcome = await self._attempt(body, started, attempt.number)
            if isinstance(outcome, ChatResult):
                attempt.result = outcome
            else:
                attempt.outcome = outcome
        result: ChatResult = loop.result
        return result

    def _retry_delay(self, attempt: Attempt, started: float) -> float | None:
        """Seconds before the next attempt, or None to give up; the budget counts from the
        start of `chat()` (`started`, perf_counter), cache wait included."""
        outcome, error = attempt.outcome, attempt.outcome.error
        assert error is not None and isinstance(error, LLMError)
        error.attempts = attempt.number
        if not outcome.transient:
            return None
        policy = self.config.retry
        delay = policy.delay(attempt.number, outcome.retry_after, self._random)
        task = current_task_deadline()  # no retry that would outlive the task-trial
        if not policy.retry_after(attempt.number, time.perf_counter() - started, delay) \
                or (task is not None and delay > task.remaining()):
            error.message += (f" (gave up after {attempt.number} "
                              f"attempt{'s' * (attempt.number != 1)})")
            error.args = (error.message,)
            return None
        logger.info("LLM call failed (%s); attempt %d in %.2f s", error.message,
                    attempt.number + 1, delay)
        return delay

    async def _attempt(self, body: dict[str, Any], started: float,
                       attempt: int) -> ChatResult | Outcome:
        url = self.config.endpoint
        cap = self.config.max_reply_bytes
        answered = False
        http = self._lane()
        self._in_flight += 1
        try:  # the whole reply within timeout_s (and the task-trial's deadline), at most `cap`
            async with deadline_scope(Deadline.after(self.config.timeout_s, "request"),
                                      current_task_deadline()), \
                    http.stream("POST", url, json=body) as streamed:
                answered = True
                content = await read_reply(streamed, cap, url=url)
                response = buffered(streamed, content)
        except httpx.TransportError as exc:
            return _failure(error_for_transport(exc, url=url, timeout_s=self.config.timeout_s),
                            transient=True)
        except DeadlinePassed as exc:
            error, transient = deadline_error(exc, url=url, answered=answered)
            return _failure(error, transient)
        except LLMError as exc:
            return _failure(exc)
        finally:
            self._in_flight -= 1
        if response.status_code >= 300:
            error, transient = error_for_status(response, model=self.config.model, url=url,
                                                redact=self._redact)
            return _failure(error, transient, retry_after_s(response.headers))
        try:
            raw = parse_json(content)
        except LLMError as exc:
            return _failure(exc)
        except ValueError:  # JSONDecodeError, UnicodeDecodeError
            snippet = self._redact(response.text[:200])
            return _failure(LLMResponseInvalid(
                f"the LLM endpoint at {url} answered HTTP {response.status_code} with a body "
                f"that is not JSON: {snippet!r}",
                hint=API_HINT))
        if not isinstance(raw, dict):
            return _failure(LLMResponseInvalid(f"the LLM endpoint at {url} answered JSON that "
                                               "is not an object", hint=API_HINT))
        try:
            return parse_completion(raw, model=self.config.model, cached=False,
                                    latency_ms=_ms_since(started), attempts=attempt)
        except LLMResponseInvalid as exc:
            exc.message = self._redact(exc.message)
            exc.args = (exc.message,)
            return _failure(exc)

def _failure(error: LLMError, transient: bool = False,
             retry_after: float | None = None) -> Outcome:
    """One failed attempt: `transient` ones may be retried, after `retry_after` if given."""
    return Outcome(error=error, transient=transient, retry_after=retry_after)


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000
