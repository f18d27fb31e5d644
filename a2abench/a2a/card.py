"""Agent-card discovery: well-known paths, legacy fallback, size and content checks."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from a2abench.a2a.models import AgentCard
from a2abench.errors import (
    A2ABenchError,
    AgentCardInvalid,
    AgentHTTPError,
    AgentTimeout,
    AgentUnreachable,
    BrokenReply,
    CardNotFound,
    ProtocolError,
    ReplyTooDeep,
    TooManyRedirects,
)
from a2abench.net.coding import CodingError
from a2abench.net.failures import whose
from a2abench.net.limits import (
    DEFAULT_MAX_DEPTH,
    Deadline,
    DeadlinePassed,
    body_of,
    current_task_deadline,
    deadline_scope,
    loads,
)
from a2abench.net.tls import CA_HINT, untrusted

CARD_PATH = "/.well-known/agent-card.json"
LEGACY_CARD_PATH = "/.well-known/agent.json"
WARN_CARD_BYTES = 1_000_000
MAX_CARD_BYTES = 4_000_000
MAX_REDIRECTS = 5


@dataclass
class CardFetch:
    """A fetched card and how it was found."""

    card: AgentCard
    raw: dict[str, Any]
    card_url: str
    latency_ms: float
    size_bytes: int
    legacy_path: bool
    tried: list[tuple[str, str]] = field(default_factory=list)  # (url, outcome)


def is_card_url(url: str) -> bool:
    path = urlsplit(url).path
    return path.endswith(".json") or "/.well-known/" in path


def candidate_urls(url: str) -> list[str]:
    """Card URLs to try, in order: the URL itself if it is a card URL, else the well-known
    paths under the given path and then under the host root."""
    if is_card_url(url):
        return [url]
    parts = urlsplit(url.rstrip("/"))
    bases = [parts.path.rstrip("/")]
    if bases[0]:
        bases.append("")
    out = []
    for path in (CARD_PATH, LEGACY_CARD_PATH):
        for base in bases:
            out.append(urlunsplit((parts.scheme, parts.netloc, base + path, "", "")))
    return out


async def _get_capped(http: httpx.AsyncClient, url: str,
                      headers: dict[str, str]) -> tuple[httpx.Response, bytes]:
    async with http.stream("GET", url, headers=headers) as response:
        chunks, size = [], 0
        try:
            async for chunk in body_of(response):  # decoded a bounded piece at a time
                size += len(chunk)
                if size > MAX_CARD_BYTES:
                    raise AgentCardInvalid(
                        f"the card at {url} is larger than {MAX_CARD_BYTES // 1_000_000} MB",
                        hint="An agent card should be a few kilobytes; check the URL.")
                chunks.append(chunk)
        except CodingError as exc:
            raise AgentCardInvalid(f"the card at {url} cannot be read: {exc}") from None
        except httpx.HTTPError as exc:  # the card had begun: a reset or a cut is the agent's
            if whose(exc, answered=True) != "peer":
                raise
            raise _broken(url, exc) from None
        return response, b"".join(chunks)


def _broken(url: str, exc: httpx.HTTPError) -> BrokenReply:
    return BrokenReply(f"the agent's server at {url} broke its reply: {exc or type(exc).__name__}",
                       hint="Its HTTP framing is invalid; check the agent's server.")


def _decode(url: str, response: httpx.Response, body: bytes,
            max_depth: int = DEFAULT_MAX_DEPTH) -> dict[str, Any]:
    ctype = response.headers.get("content-type", "")
    text = body.decode("utf-8", errors="replace")
    if "html" in ctype or text.lstrip()[:15].lower().startswith(("<!doctype", "<html")):
        raise AgentCardInvalid(f"{url} returned HTML, not a JSON agent card",
                               hint="Is this the agent's URL? Try its base URL or card URL.")
    try:
        raw = loads(text, max_depth, what=f"the card at {url}")
    except json.JSONDecodeError as exc:
        raise AgentCardInvalid(f"the card at {url} is not valid JSON ({exc.msg} at line "
                               f"{exc.lineno} column {exc.colno})") from None
    except ReplyTooDeep as exc:
        raise AgentCardInvalid(exc.message, hint=exc.hint) from None
    except (ValueError, RecursionError) as exc:  # 5,000-digit numbers, arrays 5,000 deep
        raise AgentCardInvalid(f"the card at {url} cannot be read as JSON "
                               f"({type(exc).__name__}: {str(exc)[:120]})") from None
    if not isinstance(raw, dict):
        raise AgentCardInvalid(f"the card at {url} is JSON but not an object")
    return raw


async def _get_within(http: httpx.AsyncClient, url: str, headers: dict[str, str],
                      timeout: float | None) -> tuple[httpx.Response, bytes]:
    """`_get_capped` within a whole-request deadline (and the task-trial's, if any): a card
    that drips in byte by byte cannot hold discovery or a run forever."""
    request = Deadline.after(timeout, "request") if timeout else None
    try:
        async with deadline_scope(request, current_task_deadline()):
            return await _get_capped(http, url, headers)
    except DeadlinePassed as exc:
        raise AgentTimeout(f"the card at {url} did not arrive within "
                           f"{exc.deadline.seconds:g} s ({exc.deadline.what} deadline)",
                           hint="Check the agent, or raise --timeout.") from None


def _http_error(response: httpx.Response, asked: str, body: bytes) -> AgentHTTPError:
    where, hint = status_origin(response.status_code, asked, str(response.url), None)
    return AgentHTTPError(response.status_code, where, body[:200].decode(errors="replace"),
                          hint=hint)


def status_origin(status: int, asked: str, final: str, hint: str | None
                  ) -> tuple[str, str | None]:
    """Where an HTTP error status came from (the final URL after a redirect) and the next
    step: after a redirect to another host no bearer token was sent, so a token is no fix."""
    if final == asked:
        return asked, hint
    if status in (401, 403) and httpx.URL(final).host != httpx.URL(asked).host:
        hint = ("The URL redirects to another host, which gets no bearer token; pass the "
                "final URL if that host is the agent.")
    return f"{final} (redirected from {asked})", hint


def unreachable(url: str, exc: BaseException) -> tuple[AgentUnreachable, bool]:
    """A connection failure as (our error, is it worth retrying): a certificate that is not
    trusted says what to do about it, and is not retried (it will not change)."""
    reason = untrusted(exc)
    if reason is not None:
        return AgentUnreachable(f"cannot connect to {url}: its TLS certificate is not trusted "
                                f"(CERTIFICATE_VERIFY_FAILED: {reason})", hint=CA_HINT), False
    return AgentUnreachable(f"cannot connect to {url}: {exc or type(exc).__name__}",
                            hint="Check that the agent is running and the URL is right."), True


async def fetch_card(http: httpx.AsyncClient, url: str, *,
                     headers: dict[str, str] | None = None, timeout: float | None = None,
                     max_depth: int = DEFAULT_MAX_DEPTH) -> CardFetch:
    """Find and parse the agent card for a base URL or card URL; each candidate request,
    whole, within `timeout` seconds.

    Raises CardNotFound (every candidate 404/410), AgentUnreachable, AgentTimeout,
    TooManyRedirects, AgentHTTPError, AgentCardInvalid or BrokenReply (a reply that began
    and broke its framing).
    """
    from a2abench.a2a.dialects import parse_card

    tried: list[tuple[str, str]] = []
    started = time.perf_counter()
    last_error: A2ABenchError | None = None
    for candidate in candidate_urls(url):
        try:
            response, body = await _get_within(http, candidate, headers or {}, timeout)
        except httpx.TooManyRedirects:
            raise TooManyRedirects(f"{candidate} redirects more than {MAX_REDIRECTS} times",
                                   hint="The server redirects in a loop; check the URL.") from None
        except httpx.TimeoutException:
            raise AgentTimeout(f"no answer from {candidate} within the timeout",
                               hint="Check the agent, or raise --timeout.") from None
        except httpx.HTTPError as exc:
            if whose(exc, answered=False) == "peer":
                raise _broken(candidate, exc) from None
            raise unreachable(candidate, exc)[0] from None
        tried.append((candidate, f"HTTP {response.status_code}"))
        if response.status_code in (404, 410):
            continue
        if response.status_code >= 400:
            # Name where the error came from: after a redirect that is not the URL asked for.
            # The first such error is kept: the later candidates are only fallbacks.
            last_error = last_error or _http_error(response, candidate, body)
            continue
        raw = _decode(candidate, response, body, max_depth)
        try:
            card = parse_card(raw)
        except ProtocolError as exc:
            raise AgentCardInvalid(f"the card at {candidate} cannot be read: {exc.message}"
                                   ) from None
        except (TypeError, ValueError, AttributeError, KeyError, RecursionError) as exc:
            # A field of an unexpected type (`"protocolVersion": 0.3`): the card's fault.
            raise AgentCardInvalid(f"the card at {candidate} cannot be read: "
                                   f"{type(exc).__name__}: {str(exc)[:160]}",
                                   hint="Check the card's field types against the A2A "
                                        "spec.") from None
        return CardFetch(card=card, raw=raw, card_url=str(response.url),
                         latency_ms=(time.perf_counter() - started) * 1000,
                         size_bytes=len(body), legacy_path=candidate.endswith(LEGACY_CARD_PATH),
                         tried=tried)
    if last_error is not None:
        raise last_error
    listing = ", ".join(u for u, _ in tried)
    raise CardNotFound(f"no agent card found (tried {listing})",
                       hint="Check the URL; pass the card URL itself if it lives elsewhere.")
