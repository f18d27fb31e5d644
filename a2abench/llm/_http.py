"""Turning HTTP failures of a Chat Completions endpoint into LLMError subclasses.

Which failures are worth another attempt: connection errors, timeouts, 429 (unless the quota is
used up) and 500/502/503/504. Everything else is a mistake in the request or the credentials
that another attempt would only repeat.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from pydantic import SecretStr

from a2abench._version import __version__
from a2abench.errors import (
    BrokenReply,
    LLMAuthError,
    LLMBadRequest,
    LLMContextWindowExceeded,
    LLMError,
    LLMRateLimited,
    LLMResponseInvalid,
    ReplyTooDeep,
    ReplyTooLarge,
)
from a2abench.net.coding import ACCEPT_ENCODING
from a2abench.net.limits import (
    DEFAULT_MAX_DEPTH,
    DeadlinePassed,
    loads,
    read_body,
    read_body_blocking,
    read_prefix,
    read_prefix_blocking,
)
from a2abench.net.retry import parse_retry_after

ERROR_BODY_BYTES = 65_536  # what is read of an error body: enough for the provider's message

TRANSIENT_STATUS = frozenset({429, 500, 502, 503, 504})
REPLY_CAP_HINT = "Lower max_tokens, or raise --max-reply-bytes."
AUTH_HINT = "Set OPENAI_API_KEY or A2ABENCH_LLM_API_KEY to a valid key for this endpoint."


class Redactor:
    """Removes the API key from any text that may reach a message or a log."""

    def __init__(self, secret: str | None) -> None:
        self._secret = secret if secret and len(secret) >= 4 else None

    def __call__(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text


async def read_reply(response: httpx.Response, max_bytes: int, *, url: str) -> bytes:
    """A completion body, at most `max_bytes` (error bodies: their first 64 kB)."""
    if response.status_code >= 300:
        return await read_prefix(response, ERROR_BODY_BYTES)
    try:
        return await read_body(response, max_bytes, url=url)
    except ReplyTooLarge as exc:
        raise LLMResponseInvalid(exc.message, hint=REPLY_CAP_HINT) from None
    except BrokenReply as exc:  # an undecodable body: the endpoint's fault, not an agent's
        raise LLMResponseInvalid(exc.message) from None


def read_reply_blocking(response: httpx.Response, max_bytes: int, *, url: str) -> bytes:
    """`read_reply` for the blocking embeddings client."""
    if response.status_code >= 300:
        return read_prefix_blocking(response, ERROR_BODY_BYTES)
    try:
        return read_body_blocking(response, max_bytes, url=url)
    except ReplyTooLarge as exc:
        raise LLMResponseInvalid(exc.message, hint=REPLY_CAP_HINT) from None
    except BrokenReply as exc:
        raise LLMResponseInvalid(exc.message) from None


def endpoint_auth(api_key: SecretStr | None) -> tuple[Redactor, dict[str, str]]:
    """One LLM endpoint's key as a redactor for error text, and its request headers."""
    secret = api_key.get_secret_value() if api_key is not None else None
    headers = {"User-Agent": f"a2abench/{__version__}", "Accept-Encoding": ACCEPT_ENCODING}
    if secret is not None:
        headers["Authorization"] = f"Bearer {secret}"
    return Redactor(secret), headers


def buffered(response: httpx.Response, body: bytes) -> httpx.Response:
    """A read copy of a streamed response (body already decoded), for the error helpers."""
    skip = ("content-encoding", "content-length", "transfer-encoding")
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in skip]
    return httpx.Response(response.status_code, headers=headers, content=body,
                          request=response.request)


def parse_json(body: bytes) -> Any:
    """A completion body as JSON, nesting-limited; ValueError when it is not JSON."""
    try:
        return loads(body, DEFAULT_MAX_DEPTH, what="the LLM reply")
    except ReplyTooDeep as exc:
        raise LLMResponseInvalid(exc.message) from None


def deadline_error(passed: DeadlinePassed, *, url: str,
                   answered: bool) -> tuple[LLMError, bool]:
    """A passed deadline while the LLM answered: the request's own (--timeout of the LLM,
    whole) may be retried, the task-trial's ends the attempt."""
    deadline = passed.deadline
    if deadline.what == "task":
        return LLMError(f"the task-trial deadline (--task-timeout {deadline.seconds:g} s) passed "
                        f"while waiting for the LLM endpoint at {url}",
                        hint="Raise --task-timeout, or use a faster model."), False
    what = "did not finish its reply" if answered else "did not answer"
    return LLMError(f"the LLM endpoint at {url} {what} within {deadline.seconds:g} s",
                    hint="Raise the LLM timeout or check the endpoint's load."), True


def provider_error(response: httpx.Response) -> tuple[str, str | None]:
    """(message, code) from an OpenAI-style `{"error": {...}}` body, or the body text."""
    try:
        body: Any = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return response.text.strip()[:300], None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        code = error.get("code") or error.get("type")
        return str(error.get("message") or "")[:300], str(code) if code else None
    if isinstance(error, str):  # some compatible servers send {"error": "text"}
        return error[:300], None
    return response.text.strip()[:300], None


def is_context_overflow(code: str | None, message: str) -> bool:
    text = message.lower()
    # vLLM and other compatible servers say it in words without OpenAI's code.
    return code == "context_length_exceeded" or "maximum context length" in text \
        or "context window" in text


def error_for_status(response: httpx.Response, *, model: str, url: str,
                     redact: Redactor) -> tuple[LLMError, bool]:
    """The error a non-2xx response means, and whether another attempt may succeed."""
    status = response.status_code
    message, code = provider_error(response)
    detail = redact(f": {message}" if message else "")
    where = f"{url} (model {model})"
    if status in (401, 403):
        return LLMAuthError(f"the LLM endpoint refused the credentials (HTTP {status}) at "
                            f"{where}{detail}", hint=AUTH_HINT, status_code=status,
                            code=code), False
    if status == 429:
        if code == "insufficient_quota":
            return LLMRateLimited(f"the LLM account has no quota left at {where}{detail}",
                                  hint="Check the plan and billing of the API key.",
                                  status_code=status, code=code), False
        return LLMRateLimited(f"the LLM endpoint is rate limiting requests at {where}{detail}",
                              hint="Lower --concurrency or wait and resume the run.",
                              status_code=status, code=code), True
    if status in TRANSIENT_STATUS:
        return LLMError(f"the LLM endpoint failed with HTTP {status} at {where}{detail}",
                        hint="The provider may be down; resume the run later.",
                        status_code=status, code=code), True
    if is_context_overflow(code, message):
        return LLMContextWindowExceeded(
            f"the conversation no longer fits the context window of {model}{detail}",
            hint="Use a model with a longer context or lower --max-steps.",
            status_code=status, code=code), False
    if 400 <= status < 500:
        hint = ("Check the model name and the base URL." if status == 404
                else "Check the model name and the LLM args.")
        return LLMBadRequest(f"the LLM endpoint rejected the request (HTTP {status}) at "
                             f"{where}{detail}", hint=hint, status_code=status,
                             code=code), False
    return LLMError(f"the LLM endpoint answered HTTP {status} at {where}{detail}",
                    status_code=status, code=code), False


def error_for_transport(exc: httpx.TransportError, *, url: str, timeout_s: float) -> LLMError:
    if isinstance(exc, httpx.TimeoutException):
        return LLMError(f"the LLM endpoint at {url} did not answer within {timeout_s:g} s "
                        f"({type(exc).__name__})",
                        hint="Raise the LLM timeout or check the endpoint's load.")
    return LLMError(f"cannot reach the LLM endpoint at {url}: {type(exc).__name__}: {exc}",
                    hint="Check the base URL and the network.")


def retry_after_s(headers: httpx.Headers) -> float | None:
    """Seconds the server asked us to wait: `retry-after-ms`, else `retry-after` (s or date)."""
    value = headers.get("retry-after-ms")
    if value is not None:
        try:
            return max(float(value) / 1000, 0.0)
        except ValueError:
            pass  # fall through to the standard header
    return parse_retry_after(headers.get("retry-after"))
