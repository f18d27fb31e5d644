"""`discover` on every binding: a verdict per advertised interface, each usable one probed;
an unsupported binding is not an invalid card; gRPC `host:port` URLs are not relative."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from a2abench.a2a.card import CardFetch
from a2abench.a2a.dialects import parse_card
from a2abench.discover import card_findings, interface_verdicts
from tests.clihelp import run_cli
from tests.sdk_agents import sdk_agent
from tests.servers import serve

pytest.importorskip("grpc")


def _card(interfaces: list[dict[str, str]]) -> dict[str, Any]:
    return {"name": "x", "description": "d", "version": "1", "capabilities": {},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["t"]}],
            "supportedInterfaces": interfaces}


def _fetch(raw: dict[str, Any], card_url: str = "http://127.0.0.1:9/.well-known/"
                                                "agent-card.json") -> CardFetch:
    return CardFetch(card=parse_card(raw), raw=raw, card_url=card_url, latency_ms=0,
                     size_bytes=0, legacy_path=False)


def test_grpc_host_port_is_absolute() -> None:
    fetch = _fetch(_card([{"url": "127.0.0.1:50051", "protocolBinding": "GRPC",
                           "protocolVersion": "1.0"}]))
    assert not [f for f in card_findings(fetch) if f.code == "relative-url"]
    (verdict,) = interface_verdicts(fetch)
    assert (verdict.url, verdict.binding, verdict.supported) == ("127.0.0.1:50051", "GRPC", True)


def test_unsupported_binding_is_reported_not_invalid() -> None:
    fetch = _fetch(_card([{"url": "ws://127.0.0.1:9/ws", "protocolBinding": "WEBSOCKET",
                           "protocolVersion": "1.0"},
                          {"url": "http://127.0.0.1:9/rest", "protocolBinding": "HTTP+JSON",
                           "protocolVersion": "1.0"}]))
    findings = card_findings(fetch)
    assert [f.code for f in findings if f.severity == "error"] == []
    assert any(f.code == "unsupported-binding" and f.severity == "info" for f in findings)
    verdicts = interface_verdicts(fetch)
    assert [(v.binding, v.supported, v.reason) for v in verdicts] == [
        ("WEBSOCKET", False, "unsupported binding"), ("HTTP+JSON", True, None)]


def test_only_unsupported_bindings_exit_1_without_blaming_the_card() -> None:
    raw = _card([{"url": "ws://127.0.0.1:9/ws", "protocolBinding": "WEBSOCKET",
                  "protocolVersion": "1.0"}])

    async def card(_: Request) -> JSONResponse:
        return JSONResponse(raw)

    app = Starlette(routes=[Route("/.well-known/agent-card.json", card)])
    with serve(lambda _b: app) as base:
        r = run_cli("discover", base, "--json")
    assert r.code == 1
    data = r.json()
    assert data["error"]["error"] == "NoUsableInterface"
    assert "Fix the card" not in r.err and "WEBSOCKET" in data["error"]["message"]


def test_every_interface_gets_a_verdict_and_a_probe() -> None:
    with serve(sdk_agent) as base:
        r = run_cli("discover", base, "--json")
        forced = run_cli("discover", base, "--json", "--transport", "grpc")
    assert r.code == 0, r.err
    data = r.json()
    rows = [(i["binding"], i["dialect"], i["supported"], i["reachable"], i["chosen"])
            for i in data["interfaces"]]
    assert rows == [(b, v, True, True, (b, v) == ("JSONRPC", "1.0"))
                    for b in ("JSONRPC", "HTTP+JSON", "GRPC") for v in ("1.0", "0.3")]
    assert all(i["probe_latency_ms"] > 0 for i in data["interfaces"])
    assert data["probe"]["stream_ok"] is True
    assert forced.code == 0, forced.err
    assert forced.json()["interface"]["binding"] == "GRPC"
    assert forced.json()["probe"]["stream_ok"] is True
