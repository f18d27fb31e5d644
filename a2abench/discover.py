"""`discover`: fetch an agent card, judge it against its A2A version, probe the agent."""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urljoin, urlsplit

from pydantic import BaseModel, Field

from a2abench.a2a.card import WARN_CARD_BYTES, CardFetch
from a2abench.a2a.config import A2AConfig, RetryPolicy
from a2abench.a2a.dialects import dialect_of_version
from a2abench.a2a.models import AgentCard, Dialect

if TYPE_CHECKING:
    from a2abench.a2a.client import A2AClient
from a2abench.errors import A2ABenchError, AgentCardInvalid, ProtocolError

Severity = Literal["error", "warning", "info"]
PROBE_TEXT = "Hello from a2abench discover. Please reply with a short greeting."


class Finding(BaseModel):
    severity: Severity
    code: str
    message: str


class Probe(BaseModel):
    ok: bool
    latency_ms: float | None = None
    reply: dict[str, Any] | None = None  # kind, state, part counts
    text_preview: str | None = None
    context_id: str | None = None
    error: dict[str, Any] | None = None
    stream_ok: bool | None = None  # None: not advertised or not tried
    stream_error: str | None = None


class DiscoverResult(BaseModel):
    url: str
    card_url: str
    fetch_latency_ms: float
    size_bytes: int
    legacy_path: bool
    tried: list[tuple[str, str]]
    dialect: Dialect
    interface: dict[str, str] | None = None  # url + dialect a2abench will use
    card: AgentCard
    findings: list[Finding] = Field(default_factory=list)
    probe: Probe | None = None
    usable: bool = False
    error: dict[str, Any] | None = None


# --- required fields per card version (a2a.md §1.3) --------------------------------------------

_COMMON = ("name", "description", "version", "capabilities", "defaultInputModes",
           "defaultOutputModes", "skills")
_SKILL = ("id", "name", "description", "tags")


def _missing(raw: dict[str, Any], names: tuple[str, ...], where: str = "") -> list[str]:
    return [where + n for n in names if raw.get(n) is None]


def _empty(raw: dict[str, Any], names: tuple[str, ...], where: str = "") -> list[str]:
    return [where + n for n in names if raw.get(n) in ("", [])]


def empty_fields(raw: dict[str, Any]) -> list[str]:
    """Descriptive fields present but empty (the AgentBeats template ships `name: ""`)."""
    gaps = _empty(raw, ("name", "description", "version"))
    for i, skill in enumerate(raw.get("skills") or []):
        if isinstance(skill, dict):
            gaps += _empty(skill, _SKILL, f"skills[{i}].")
    return gaps


def required_field_gaps(raw: dict[str, Any], dialect: Dialect) -> list[str]:
    """Required fields absent from the card (empty values are `empty_fields`)."""
    gaps = _missing(raw, _COMMON)
    if dialect == "1.0":
        for i, iface in enumerate(raw.get("supportedInterfaces") or []):
            gaps += _missing(iface if isinstance(iface, dict) else {},
                             ("url", "protocolBinding", "protocolVersion"),
                             f"supportedInterfaces[{i}].")
        for key in ("defaultInputModes", "defaultOutputModes"):
            if raw.get(key) == []:
                gaps.append(f"{key} (must not be empty)")
        provider = raw.get("provider")
        if isinstance(provider, dict):
            gaps += _missing(provider, ("organization", "url"), "provider.")
    else:
        # protocolVersion became required in 0.2.5; a card without it reads as an older 0.2.
        gaps += _missing(raw, ("url",))
    for i, skill in enumerate(raw.get("skills") or []):
        skill = skill if isinstance(skill, dict) else {}
        gaps += _missing(skill, _SKILL, f"skills[{i}].")
    return gaps


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _url_findings(fetch: CardFetch) -> list[Finding]:
    out: list[Finding] = []
    card_host = urlsplit(fetch.card_url).hostname or ""
    for iface in fetch.card.interfaces:
        try:
            parts = urlsplit(iface.url)
            _ = parts.port
        except ValueError as exc:
            out.append(Finding(severity="warning", code="invalid-url",
                               message=f"interface URL {iface.url!r} is not a valid URL "
                                       f"({exc})"))
            continue
        if not parts.scheme or not parts.netloc:
            out.append(Finding(severity="warning", code="relative-url",
                               message=f"interface URL {iface.url!r} is relative; resolved "
                                       f"against the card URL to "
                                       f"{urljoin(fetch.card_url, iface.url)}"))
            continue
        host = parts.hostname or ""
        if host in ("0.0.0.0", "::", "[::]"):
            out.append(Finding(severity="warning", code="wildcard-host",
                               message=f"interface URL {iface.url} uses a bind-all address "
                                       "that clients cannot connect to"))
        elif _is_loopback(host) and not _is_loopback(card_host):
            out.append(Finding(severity="warning", code="loopback-url",
                               message=f"interface URL {iface.url} points at loopback, but the "
                                       f"card was served by {card_host}: remote clients "
                                       "cannot reach it (set the agent's public URL)"))
        elif host != card_host:
            out.append(Finding(severity="warning", code="other-host",
                               message=f"interface URL {iface.url} is on another host than "
                                       f"the card ({card_host})"))
        if parts.scheme == "http" and not _is_loopback(host):
            out.append(Finding(severity="info", code="plain-http",
                               message=f"interface URL {iface.url} is not HTTPS"))
    return out


def card_findings(fetch: CardFetch) -> list[Finding]:
    """Everything worth telling about a card, without talking to the agent."""
    card, raw = fetch.card, fetch.raw
    out: list[Finding] = []
    # Errors are kept for what stops a run (no usable interface, a failed probe); a card
    # that breaks its spec's required fields still runs, so that is a warning.
    for gap in required_field_gaps(raw, card.dialect):
        out.append(Finding(severity="warning", code="missing-field",
                           message=f"required field {gap} is missing for an A2A "
                                   f"{card.dialect} card"))
    for gap in empty_fields(raw):
        out.append(Finding(severity="warning", code="empty-field",
                           message=f"field {gap} is empty"))
    if fetch.legacy_path:
        out.append(Finding(severity="warning", code="legacy-path",
                           message="only the legacy /.well-known/agent.json path serves the "
                                   "card; A2A 0.3+ clients look for /.well-known/agent-card.json"))
    versions = [i.protocol_version for i in card.interfaces] or [card.protocol_version]
    for version in {v for v in versions if v}:
        if dialect_of_version(version) is None:
            out.append(Finding(severity="warning", code="unknown-protocol-version",
                               message=f"protocol version {version!r} is not one a2abench "
                                       "knows (0.2, 0.3, 1.0)"))
    if fetch.size_bytes > WARN_CARD_BYTES:
        out.append(Finding(severity="warning", code="large-card",
                           message=f"the card is {fetch.size_bytes / 1e6:.1f} MB; clients "
                                   "fetch it often, keep it small"))
    if not card.skills:
        out.append(Finding(severity="warning", code="no-skills",
                           message="the card declares no skills"))
    out += _url_findings(fetch)
    return out


async def discover(url: str, *, timeout: float = 10.0, auth_token: str | None = None,
                   probe: bool = True, max_reply_bytes: int | None = None) -> DiscoverResult:
    """Fetch, judge and (optionally) probe the agent at `url`.

    Raises the named error when no card can be obtained; otherwise returns a result whose
    `usable` says whether a2abench can benchmark the agent and `error` names the first problem.
    """
    from a2abench.a2a._limits import ReplyLimits
    from a2abench.a2a.client import A2AClient, select_interface

    limits = ReplyLimits(max_bytes=max_reply_bytes) if max_reply_bytes else ReplyLimits()
    config = A2AConfig.create(url, auth_token=auth_token, timeout=timeout, limits=limits,
                              retry=RetryPolicy(max_attempts=2, total_budget=timeout))
    async with A2AClient(config) as client:
        fetch = await client.card()
        result = DiscoverResult(
            url=url, card_url=fetch.card_url, fetch_latency_ms=round(fetch.latency_ms, 1),
            size_bytes=fetch.size_bytes, legacy_path=fetch.legacy_path, tried=fetch.tried,
            dialect=fetch.card.dialect, card=fetch.card, findings=card_findings(fetch))
        try:
            iface_url, dialect = select_interface(fetch.card, fetch.card_url)
            result.interface = {"url": iface_url, "dialect": dialect}
        except AgentCardInvalid as exc:
            result.findings.append(Finding(severity="error", code="no-jsonrpc",
                                           message=exc.message))
        if probe and result.interface is not None:
            result.probe = await _probe(client, fetch.card)
            if result.probe.stream_ok is False:
                # `run` sends blocking requests unless asked to stream: a warning, not a
                # verdict, so discover and run agree on usability.
                result.findings.append(Finding(
                    severity="warning", code="streaming-broken",
                    message="the card advertises streaming, but message/stream failed: "
                            f"{result.probe.stream_error}"))
    _conclude(result)
    if auth_token:  # an agent may echo the token it was sent; it never reaches the output
        from a2abench.run.config import Redactor

        redactor = Redactor([auth_token])
        return DiscoverResult.model_validate_json(
            redactor.line(result.model_dump_json().encode()))
    return result


def _conclude(result: DiscoverResult) -> None:
    """The first problem, in order: the card itself, the probe, streaming."""
    errors = [f for f in result.findings if f.severity == "error"]
    card_errors = [f for f in errors if f.code != "streaming-broken"]
    if card_errors:
        result.error = AgentCardInvalid(
            f"the card at {result.card_url} has {len(card_errors)} error(s), first: "
            f"{card_errors[0].message}",
            hint="Fix the card; every finding is listed above.").to_dict()
    elif result.probe is not None and not result.probe.ok and result.probe.error:
        result.error = result.probe.error
    elif errors:
        result.error = ProtocolError(errors[0].message,
                                     hint="Fix streaming or stop advertising it.").to_dict()
    result.usable = result.error is None


async def _probe(client: A2AClient, card: AgentCard) -> Probe:
    try:
        reply = await client.conversation().send(PROBE_TEXT, stream=False)
    except A2ABenchError as exc:
        return Probe(ok=False, error=exc.to_dict())
    text = reply.text
    probe = Probe(ok=True, latency_ms=round(reply.latency_ms, 1), reply=reply.shape(),
                  text_preview=text[:160] if text else None, context_id=reply.context_id)
    if card.capabilities.streaming:
        try:
            await client.conversation().send(PROBE_TEXT, stream=True)
            probe.stream_ok = True
        except A2ABenchError as exc:
            probe.stream_ok, probe.stream_error = False, exc.render()
    return probe
