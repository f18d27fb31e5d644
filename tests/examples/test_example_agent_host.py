"""`a2abench-example-agent --host 0.0.0.0` without --card-url (issue 35): the card advertises
an address a client can call, never the wildcard bind address."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from a2abench.demo import example_agent


def _card_urls(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], str]:
    """Every URL the served card names, and what the command printed."""
    import uvicorn

    served: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.append(app))
    example_agent.main(argv)

    async def fetch() -> dict[str, Any]:
        transport = httpx.ASGITransport(app=served[0])
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            reply = await client.get("/.well-known/agent-card.json")
            return dict(reply.json())

    import asyncio

    card = asyncio.run(fetch())
    urls = [card.get("url", "")] + [i["url"] for i in card.get("supportedInterfaces", [])
                                    + card.get("additionalInterfaces", [])]
    return [u for u in urls if u], json.dumps(card)


@pytest.mark.parametrize("kind", ["scripted", "echo"])
def test_a_wildcard_host_advertises_loopback_and_says_so(
        kind: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    urls, card = _card_urls([kind, "--host", "0.0.0.0", "--port", "9019"], monkeypatch)
    assert urls and all(u.startswith("http://127.0.0.1:9019") for u in urls), urls
    assert "0.0.0.0" not in card
    assert "Pass --card-url" in capsys.readouterr().err


def test_card_url_and_a_named_host_are_advertised_as_given(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    urls, _ = _card_urls(["scripted", "--host", "0.0.0.0", "--card-url", "http://purple:9019"],
                         monkeypatch)
    assert all(u.startswith("http://purple:9019") for u in urls), urls
    urls, _ = _card_urls(["scripted", "--host", "127.0.0.1", "--port", "9020"], monkeypatch)
    assert all(u.startswith("http://127.0.0.1:9020") for u in urls), urls
    assert "Pass --card-url" not in capsys.readouterr().err
