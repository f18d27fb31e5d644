"""`discover`: fetch an agent card, judge it against its A2A version, probe the agent."""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urljoin, urlsplit

from pydantic import BaseModel, Field

from a2abench.a2a.bindings import (
    InterfaceChoice,
    binding_name,
    host_check_url,
    interface_dialect,
    interface_options,
    resolve_url,
    select_interface,
    unsupported_reason,
    url_is_relative,
)
from a2abench.a2a.card import WARN_CARD_BYTES, CardFetch
from a2abench.a2a.config import A2AConfig, transport_choice
from a2abench.a2a.dialects import dialect_of_version
from a2abench.a2a.models import AgentCard, Dialect
from a2abench.net.retry import RetryPolicy

if TYPE_CHECKING:
    from a2abench.a2a.client import A2AClient
from a2abench.errors import (
    A2ABenchError,
    AgentCardInvalid,
    ConfigError,
    NoUsableInterface,
    ProtocolError,
)

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


class InterfaceVerdict(BaseModel):
    """One advertised interface: can a2abench use it, does it answer, how fast."""

    url: str
    binding: str
    protocol_version: str | None = None
    dialect: Dialect | None = None
    supported: bool
    reason: str | None = None  # why not supported, e.g. "unsupported binding"
    chosen: bool = False  # the one `run` uses
    reachable: bool | None = None  # None: not probed
    probe_latency_ms: float | None = None
    error: str | None = None


class DiscoverResult(BaseModel):
    url: str
    card_url: str
    fetch_latency_ms: float
    size_bytes: int
    legacy_path: bool
    tried: list[tuple[str, str]]
    dialect: Dialect
    interface: dict[str, str] | None = None  # binding, dialect and URL a2abench will use
    interfaces: list[InterfaceVerdict] = Field(default_factory=list)
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
        binding = binding_name(iface.binding)
        try:
            # A gRPC `host:port` target is absolute; judge it as http://host:port.
            url = (host_check_url(iface.url, binding) if binding == "GRPC"
                   and not url_is_relative(iface) else iface.url)
            parts = urlsplit(url)
            _ = parts.port
        except ValueError as exc:
            out.append(Finding(severity="warning", code="invalid-url",
                               message=f"interface URL {iface.url!r} is not a valid URL "
                                       f"({exc})"))
            continue
        if url_is_relative(iface):
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


def interface_verdicts(fetch: CardFetch) -> list[InterfaceVerdict]:
    """Every advertised interface, with whether a2abench can use it and which it will use."""
    card = fetch.card
    out = []
    for iface in card.interfaces:
        binding = binding_name(iface.binding)
        dialect = interface_dialect(card, iface)
        reason = unsupported_reason(binding, dialect)
        out.append(InterfaceVerdict(
            url=resolve_url(iface, fetch.card_url), binding=binding or iface.binding,
            protocol_version=iface.protocol_version, dialect=dialect, supported=reason is None,
            reason=reason))
    return out


def card_findings(fetch: CardFetch) -> list[Finding]:
    """Everything worth telling about a card, without talking to the agent."""
    card, raw = fetch.card, fetch.raw
    out: list[Finding] = []
    for iface in card.interfaces:
        binding = binding_name(iface.binding)
        reason = unsupported_reason(binding, interface_dialect(card, iface))
        if reason is not None:  # not the card's fault: another interface may serve us
            out.append(Finding(severity="info", code="unsupported-binding",
                               message=f"interface {iface.url} ({iface.binding}): {reason}"))
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
    mcp = mcp_client_support(card)
    if mcp is not None:
        out.append(Finding(severity="info", code="mcp-client",
                           message=f"the card declares MCP client support ({mcp}): "
                                   "--tool-channel mcp serves its tools over MCP"))
    out += _url_findings(fetch)
    return out


_MCP_TAGS = frozenset({"mcp", "mcp-client", "mcp_client", "model-context-protocol"})
_MCP_WORD = re.compile(r"(?<![a-z])(mcp|model-?context-?protocol)(?![a-z])", re.I)


def mcp_client_support(card: AgentCard) -> str | None:
    """Where the card says it can call tools over MCP (an extension whose URI names MCP, or
    a skill tagged `mcp`), or None: a note for `discover`, never a requirement."""
    for ext in card.capabilities.extensions:
        uri = str(ext.get("uri") or "")
        if _MCP_WORD.search(uri):
            return f"extension {uri}"
    for skill in card.skills:
        if _MCP_TAGS & {t.lower() for t in skill.tags}:
            return f"skill {skill.id or skill.name!r} tagged mcp"
    return None


async def discover(url: str, *, timeout: float = 10.0, auth_token: str | None = None,
                   probe: bool = True, transport: str | None = None,
                   max_reply_bytes: int | None = None,
                   ca_cert: str | None = None) -> DiscoverResult:
    """Fetch, judge and (optionally) probe the agent at `url`.

    Every supported interface is probed with one message; the one `run` would use (or the
    one `transport` forces) also gets a streaming probe when the card advertises streaming.
    Raises the named error when no card can be obtained; otherwise returns a result whose
    `usable` says whether a2abench can benchmark the agent and `error` names the first problem.
    """
    from a2abench.a2a.client import A2AClient
    from a2abench.net.limits import ReplyLimits

    limits = ReplyLimits(max_bytes=max_reply_bytes) if max_reply_bytes else ReplyLimits()
    config = A2AConfig.create(url, auth_token=auth_token, timeout=timeout, limits=limits,
                              ca_cert=ca_cert, retry=RetryPolicy(max_attempts=2, base_delay_s=0.5,
                                                max_delay_s=8.0, budget_s=timeout))
    async with A2AClient(config) as client:
        fetch = await client.card()
        result = DiscoverResult(
            url=url, card_url=fetch.card_url, fetch_latency_ms=round(fetch.latency_ms, 1),
            size_bytes=fetch.size_bytes, legacy_path=fetch.legacy_path, tried=fetch.tried,
            dialect=fetch.card.dialect, card=fetch.card, findings=card_findings(fetch),
            interfaces=interface_verdicts(fetch))
        choice = None
        try:
            choice = select_interface(fetch.card, fetch.card_url, transport_choice(transport))
            result.interface = choice.to_dict()
        except (NoUsableInterface, ConfigError) as exc:  # ConfigError: the grpc extra
            result.findings.append(Finding(severity="error", code="no-usable-interface",
                                           message=exc.render()))
        except AgentCardInvalid as exc:  # the chosen interface's URL is unusable
            result.findings.append(Finding(severity="error", code="invalid-interface-url",
                                           message=exc.message))
    if probe and choice is not None:
        await _probe_all(config, fetch, result, choice)
    _conclude(result)
    if auth_token:  # an agent may echo the token it was sent; it never reaches the output
        from a2abench.run.config import Redactor

        redactor = Redactor([auth_token])
        return DiscoverResult.model_validate_json(
            redactor.line(result.model_dump_json().encode()))
    return result


async def _probe_all(config: A2AConfig, fetch: CardFetch, result: DiscoverResult,
                     choice: InterfaceChoice) -> None:
    """Probe each supported interface; the chosen one's probe is `result.probe`."""
    from a2abench.a2a.client import A2AClient

    options: dict[tuple[str, str, str], InterfaceChoice] = {
        (o.binding, o.dialect, o.url): o for o in interface_options(fetch.card, fetch.card_url)}
    for verdict in result.interfaces:
        option = options.get((verdict.binding, verdict.dialect or "0.3", verdict.url))
        if option is None:
            continue
        chosen = option == choice
        verdict.chosen = chosen
        async with A2AClient(config, card=fetch, interface=option) as client:
            outcome = await _probe(client, fetch.card, stream=chosen)
        verdict.reachable = outcome.ok
        verdict.probe_latency_ms = outcome.latency_ms
        if outcome.error:
            verdict.error = f"{outcome.error.get('error')}: {outcome.error.get('message')}"
        if chosen:
            result.probe = outcome
            if outcome.stream_ok is False:
                result.findings.append(Finding(
                    # `run` sends blocking requests unless asked to stream: a warning, not a
                    # verdict, so discover and run agree on usability.
                    severity="warning", code="streaming-broken",
                    message="the card advertises streaming, but streaming on "
                            f"{choice.binding} failed: {outcome.stream_error}"))


def _conclude(result: DiscoverResult) -> None:
    """The first problem, in order: the card itself, the probe, streaming."""
    errors = [f for f in result.findings if f.severity == "error"]
    card_errors = [f for f in errors if f.code not in ("streaming-broken", "no-usable-interface")]
    unusable = [f for f in errors if f.code == "no-usable-interface"]
    if card_errors:
        result.error = AgentCardInvalid(
            f"the card at {result.card_url} has {len(card_errors)} error(s), first: "
            f"{card_errors[0].message}",
            hint="Fix the card; every finding is listed above.").to_dict()
    elif unusable:  # a valid card in bindings we do not speak is not an invalid card
        result.error = NoUsableInterface(unusable[0].message).to_dict()  # it names the fix
    elif result.probe is not None and not result.probe.ok and result.probe.error:
        result.error = result.probe.error
    elif errors:
        result.error = ProtocolError(errors[0].message,
                                     hint="Fix streaming or stop advertising it.").to_dict()
    result.usable = result.error is None


async def _probe(client: A2AClient, card: AgentCard, *, stream: bool = True) -> Probe:
    try:
        # A failed task is a probe finding (its shape is shown), not an error.
        reply = await client.conversation(raise_for_state=False).send(PROBE_TEXT, stream=False)
    except A2ABenchError as exc:
        return Probe(ok=False, error=exc.to_dict())
    text = reply.text
    probe = Probe(ok=True, latency_ms=round(reply.latency_ms, 1), reply=reply.shape(),
                  text_preview=text[:160] if text else None, context_id=reply.context_id)
    if stream and card.capabilities.streaming:
        try:
            await client.conversation(raise_for_state=False).send(PROBE_TEXT, stream=True)
            probe.stream_ok = True
        except A2ABenchError as exc:
            probe.stream_ok, probe.stream_error = False, exc.render()
    return probe
