"""The green agent's card: what it is, one skill per benchmark it can run, how to reach it.

Light on purpose: serve-green answers its card before a2a-sdk's server stack, the run engine
and the benchmarks are imported (green/starting.py). The built-in benchmarks' skills come
from a generated table (`_skills.py`), and `CardDocument` serves the card as a2a-sdk would
(its 1.0 form with the 0.3 fields added, a weak ETag, If-None-Match) without its routes.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from email.utils import formatdate
from typing import Any

from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)

from a2abench._version import __version__
from a2abench.green import bindings
from a2abench.green.settings import GreenSettings

DESCRIPTION = (
    "a2abench assessor (green agent): runs tau2-bench and CRMArena against the A2A agent you "
    "name, scores it the way the official benchmark does, streams progress, and returns a "
    "Result artifact (a text summary and a JSON DataPart of scores). Send one message: a JSON "
    '{"participants": {"agent": URL}, "config": {"benchmark": ..., ...}}.'
)

CACHE_CONTROL = "public, max-age=300"


def _skill(name: str) -> AgentSkill:
    """The benchmark's own skill (`Driver.skill`), or a generic one when it has none or its
    driver cannot be loaded (the run itself reports that). A built-in benchmark's comes from
    the generated table while the built-in entry point is the one registered."""
    from a2abench.green._skills import SKILLS
    from a2abench.run.driver import Skill
    from a2abench.run.registry import get_driver, source

    built_in = SKILLS.get(name)
    if built_in is not None and source(name) == built_in[0]:
        skill: Skill | None = Skill(*built_in[1:])
    else:
        try:
            skill = get_driver(name).skill
        except Exception:  # a broken plugin must not take the card (and the server) down
            skill = None
    if skill is None:
        skill = Skill(f"{name} assessment", f"Runs the {name} benchmark (an a2abench plug-in) "
                      "against the named agent.", ("benchmark", name))
    examples = [json.dumps({"participants": {"agent": "http://purple-agent:9019"},
                            "config": {"benchmark": name, **config}})
                for config in skill.examples]
    return AgentSkill(id=name, name=skill.title, description=skill.description,
                      tags=list(skill.tags), examples=examples,
                      input_modes=["text/plain", "application/json"],
                      output_modes=["text/plain", "application/json"])


def build_card(url: str, benchmarks: list[str], *, auth: bool, tck: bool = False,
               rest_url: str | None = None, grpc_url: str | None = None,
               a2a_03: bool = True) -> AgentCard:
    """The card for a server whose JSON-RPC endpoint is `url`. It declares each binding twice,
    A2A 1.0 and 0.3, JSON-RPC first (a2a-sdk then also writes the 0.3 top-level `url` and
    `preferredTransport: JSONRPC` that 0.3 clients need); with `a2a_03=False` only 1.0, and
    the card has no legacy fields."""
    versions = ("1.0", "0.3") if a2a_03 else ("1.0",)
    card = AgentCard(
        name="a2abench green agent", description=DESCRIPTION, version=__version__,
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        skills=[_skill(name) for name in benchmarks],
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version=version)
            for version in versions])
    for binding, extra in (("HTTP+JSON", rest_url), ("GRPC", grpc_url)):
        if extra is not None:
            card.supported_interfaces.extend([
                AgentInterface(url=extra, protocol_binding=binding, protocol_version=version)
                for version in versions])
    if tck:
        card.skills.append(AgentSkill(
            id="tck", name="A2A TCK scenarios (test mode)",
            description="messageId prefixes tck-* and test-resubscribe-* run the A2A TCK "
                        "scenario behaviours instead of an assessment.", tags=["test"]))
    if auth:
        card.security_schemes["bearer"].CopyFrom(SecurityScheme(
            http_auth_security_scheme=HTTPAuthSecurityScheme(
                scheme="Bearer", description="The token the operator passed to serve-green "
                                             "--auth-token.")))
        card.security_requirements.append(
            SecurityRequirement(schemes={"bearer": StringList(list=[])}))
    return card


def card_for(settings: GreenSettings, url: str, benchmarks: list[str],
             grpc_port: int | None) -> AgentCard:
    """The card of a server with these settings whose JSON-RPC endpoint is `url`."""
    return build_card(url, benchmarks, auth=settings.auth_token is not None, tck=settings.tck,
                      rest_url=bindings.rest_url(url),
                      grpc_url=bindings.grpc_url(url, grpc_port) if grpc_port else None,
                      a2a_03=settings.a2a_03)


Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class CardDocument:
    """The card as served, computed once: JSON bytes, a weak ETag over its content and a
    Last-Modified of when the process built it (the card is fixed for the process's life).
    Called as a plain ASGI endpoint for GET and HEAD of the card's paths."""

    def __init__(self, card: AgentCard, modified: float | None = None) -> None:
        self.card = card
        content = card_dict(card)
        self.body = json.dumps(content, ensure_ascii=False, allow_nan=False,
                               separators=(",", ":")).encode()
        canonical = json.dumps({k: v for k, v in content.items() if k != "signatures"},
                               sort_keys=True, separators=(",", ":"))
        self.etag = f'W/"{hashlib.sha256(canonical.encode()).hexdigest()}"'
        self.modified = formatdate(time.time() if modified is None else modified, usegmt=True)

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Send) -> None:
        headers = [(b"etag", self.etag.encode()), (b"cache-control", CACHE_CONTROL.encode()),
                   (b"last-modified", self.modified.encode())]
        if _matches(_header(scope, b"if-none-match"), self.etag):
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        headers += [(b"content-type", b"application/json"),
                    (b"content-length", str(len(self.body)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": self.body})


def card_dict(card: AgentCard) -> dict[str, Any]:
    """The card's JSON as a2a-sdk serves it: the 1.0 fields, plus, when the card has 0.3
    interfaces, the 0.3 fields that 1.0 lacks: `url`, `preferredTransport` and
    `protocolVersion` of the first 0.3 interface, the others as `additionalInterfaces`,
    `security`, and each HTTP scheme's 0.3 form. Written for the cards `build_card` makes,
    without a2a-sdk's 0.3 models (~0.3 s of imports); tests/green/test_starting.py compares
    it with a2a-sdk's own rendering in each card shape."""
    from google.protobuf.json_format import MessageToDict

    out: dict[str, Any] = MessageToDict(card)
    legacy = [i for i in card.supported_interfaces
              if not i.protocol_version or i.protocol_version.startswith("0.")]
    if not legacy:
        return out
    first = legacy[0]
    extra: dict[str, Any] = {"url": first.url, "preferredTransport": first.protocol_binding,
                             "protocolVersion": first.protocol_version or "0.3"}
    if legacy[1:]:
        extra["additionalInterfaces"] = [{"transport": i.protocol_binding, "url": i.url}
                                         for i in legacy[1:]]
    if card.security_requirements:
        extra["security"] = [{name: list(needs.list) for name, needs in r.schemes.items()}
                             for r in card.security_requirements]
    schemes = {name: {"type": "http", **MessageToDict(scheme.http_auth_security_scheme)}
               for name, scheme in card.security_schemes.items()
               if scheme.HasField("http_auth_security_scheme")}
    if schemes:
        extra["securitySchemes"] = schemes
    _add_missing(out, extra)
    return out


def _add_missing(into: Any, extra: Any) -> None:
    """Add `extra`'s keys that `into` lacks, descending into objects and, item by item,
    into lists of objects; what `into` has stays."""
    if isinstance(into, dict) and isinstance(extra, dict):
        for key, value in extra.items():
            if key not in into:
                into[key] = value
            else:
                _add_missing(into[key], value)
    elif isinstance(into, list) and isinstance(extra, list):
        for mine, theirs in zip(into, extra, strict=False):
            _add_missing(mine, theirs)


def _header(scope: MutableMapping[str, Any], name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


def _matches(if_none_match: str, etag: str) -> bool:
    """If-None-Match selects this card: `*`, or any tag equal under weak comparison."""
    tags = [tag.strip() for tag in if_none_match.split(",") if tag.strip()]
    return "*" in tags or any(tag.removeprefix("W/") == etag.removeprefix("W/") for tag in tags)
