"""A2AConfig validation, bearer tokens on the wire, and the card findings one by one."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from a2abench.a2a import A2AClient, A2AConfig
from a2abench.a2a.card import CardFetch
from a2abench.a2a.dialects import parse_card
from a2abench.discover import card_findings
from a2abench.errors import ConfigError
from tests.agents import LegacyAgent
from tests.servers import serve


def test_config_normalises_and_explains() -> None:
    config = A2AConfig.create("https://agent.example.com/a2a/", auth_token="tok-9", timeout=5)
    assert config.endpoint == "https://agent.example.com/a2a"
    assert config.headers() == {"Authorization": "Bearer tok-9"}
    assert "tok-9" not in repr(config)
    for kwargs, words in [({"endpoint": "ftp://x"}, "http:// or https://"),
                          ({"endpoint": "http://"}, "no host"),
                          ({"endpoint": "http://x", "auth_token": "  "}, "must not be empty"),
                          ({"endpoint": "http://x", "timeout": 0}, "greater than 0")]:
        with pytest.raises(ConfigError, match=words):
            A2AConfig.create(**kwargs)  # type: ignore[arg-type]


async def test_bearer_token_reaches_card_and_rpc() -> None:
    seen: list[str | None] = []

    def factory(base: str) -> Starlette:
        agent = LegacyAgent(base)

        async def card(request: Request) -> Response:
            seen.append(request.headers.get("authorization"))
            if request.headers.get("authorization") != "Bearer s3cret":
                return Response(status_code=401)
            return JSONResponse(agent.card())

        async def rpc(request: Request) -> Response:
            seen.append(request.headers.get("authorization"))
            return await agent.rpc(request)

        return Starlette(routes=[Route("/.well-known/agent-card.json", card),
                                 Route("/rpc", rpc, methods=["POST"])])

    with serve(factory) as base:
        async with A2AClient(A2AConfig.create(base, auth_token="s3cret")) as client:
            reply = await client.conversation().send("hi")
    assert reply.text == "echo[turn=1]: hi"
    assert seen == ["Bearer s3cret", "Bearer s3cret"]


def fetch(raw: dict[str, Any], card_url: str = "https://agents.example.com/.well-known/"
          "agent-card.json", size: int = 1000, legacy: bool = False) -> CardFetch:
    return CardFetch(card=parse_card(raw), raw=raw, card_url=card_url, latency_ms=1,
                     size_bytes=size, legacy_path=legacy)


BASE = {"name": "n", "description": "d", "version": "1", "capabilities": {},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["t"]}]}


def codes(f: CardFetch) -> dict[str, str]:
    return {x.code: x.severity for x in card_findings(f)}


def test_a_clean_card_has_no_findings() -> None:
    raw = {**BASE, "supportedInterfaces": [{"url": "https://agents.example.com/rpc",
                                            "protocolBinding": "JSONRPC",
                                            "protocolVersion": "1.0"}]}
    assert codes(fetch(raw)) == {}


def test_interface_url_findings() -> None:
    raw = {**BASE, "supportedInterfaces": [
        {"url": "/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "http://127.0.0.1:8000/rpc", "protocolBinding": "JSONRPC",
         "protocolVersion": "1.0"},
        {"url": "http://0.0.0.0:8000/rpc", "protocolBinding": "JSONRPC",
         "protocolVersion": "1.0"},
        {"url": "https://elsewhere.example.org/rpc", "protocolBinding": "JSONRPC",
         "protocolVersion": "2.7"}]}
    # The probe decides whether these stop a run; the card alone only warns (issue 18.8).
    assert codes(fetch(raw)) == {"relative-url": "warning", "loopback-url": "warning",
                                 "wildcard-host": "warning", "other-host": "warning",
                                 "unknown-protocol-version": "warning", "plain-http": "info"}


def test_size_skills_legacy_and_missing_fields() -> None:
    raw = {**BASE, "skills": [], "url": "https://agents.example.com/rpc",
           "protocolVersion": "0.3.0"}
    del raw["description"]
    found = codes(fetch(raw, size=2_000_000, legacy=True))
    assert found == {"missing-field": "warning", "legacy-path": "warning",
                     "large-card": "warning", "no-skills": "warning"}


def test_v1_specific_required_fields() -> None:
    raw = {**BASE, "defaultOutputModes": [], "provider": {"organization": "o"},
           "skills": [{"id": "s", "name": "s", "description": "d", "tags": []}],
           "supportedInterfaces": [{"url": "https://agents.example.com/rpc",
                                    "protocolBinding": "JSONRPC"}]}
    messages = [f.message for f in card_findings(fetch(raw)) if f.code == "missing-field"]
    for gap in ("supportedInterfaces[0].protocolVersion", "defaultOutputModes (must not",
                "provider.url"):
        assert any(gap in m for m in messages), gap
    empty = [f.message for f in card_findings(fetch(raw)) if f.code == "empty-field"]
    assert empty == ["field skills[0].tags is empty"]


async def test_host_policy_binds_interfaces_and_redirects() -> None:
    from starlette.responses import RedirectResponse

    from a2abench.errors import HostNotAllowed
    from a2abench.net.egress import HostPolicy

    with serve(lambda b: LegacyAgent(b).app()) as elsewhere:
        port = elsewhere.rsplit(":", 1)[1]

        def pointing(base: str) -> Starlette:
            card = {**LegacyAgent(base).card(), "url": elsewhere + "/rpc"}

            async def card_route(_: Request) -> Response:
                return JSONResponse(card)

            async def moved(_: Request) -> Response:
                return RedirectResponse(elsewhere + "/.well-known/agent-card.json")

            return Starlette(routes=[Route("/.well-known/agent-card.json", card_route),
                                     Route("/moved/.well-known/agent-card.json", moved)])

        with serve(pointing) as base:
            own = base.rsplit(":", 1)[1]
            policy = HostPolicy([f"127.0.0.1:{own}"])
            async with A2AClient(A2AConfig.create(base), host_policy=policy) as client:
                await client.card()  # the card itself is on an allowed host
                with pytest.raises(HostNotAllowed, match=port):
                    await client.conversation().send("hi")  # its interface is not
            async with A2AClient(A2AConfig.create(base + "/moved"),
                                 host_policy=policy) as client:
                with pytest.raises(HostNotAllowed):
                    await client.card()  # nor is where the redirect leads
            async with A2AClient(A2AConfig.create(base),
                                 host_policy=HostPolicy(["127.0.0.1"])) as client:
                assert (await client.conversation().send("hi")).text == "echo[turn=1]: hi"


async def test_the_request_hook_is_installed_only_when_it_has_work() -> None:
    # Without a host policy or a token the hook would allow everything and withhold nothing:
    # not installed, a request costs nothing more (perf/throughput.py).
    from a2abench.net.egress import policy_for

    base = "http://127.0.0.1:9/"
    cases = [(A2AClient(A2AConfig.create(base)), 0),
             (A2AClient(A2AConfig.create(base, auth_token="tok")), 1),
             (A2AClient(A2AConfig.create(base), host_policy=policy_for(["x.example"], base)), 1)]
    for client, hooks in cases:
        async with client:
            assert [len(h.event_hooks["request"]) for h in client._pool] == [hooks]
