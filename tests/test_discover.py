"""`a2abench discover` against real loopback agents, and every way a card fetch can fail."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests import agents
from tests.clihelp import run_cli
from tests.servers import free_port, serve


@pytest.fixture(scope="module")
def echo_url() -> Iterator[str]:
    with serve(agents.echo_agent) as base:
        yield base


def legacy(version: str) -> Callable[[str], Any]:
    return lambda base: agents.LegacyAgent(base, version=version).app()  # type: ignore[arg-type]


def test_sdk_agent_card_probe_and_streaming(echo_url: str) -> None:
    r = run_cli("discover", echo_url, "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["usable"] and data["dialect"] == "1.0" and data["card"]["name"] == "echo"
    assert data["interface"] == {"binding": "JSONRPC", "url": echo_url + "/a2a", "dialect": "1.0"}
    assert [(i["binding"], i["dialect"], i["supported"], i["reachable"], i["chosen"])
            for i in data["interfaces"]] == [("JSONRPC", "1.0", True, True, True),
                                             ("JSONRPC", "0.3", True, True, False)]
    assert data["probe"]["ok"] and data["probe"]["stream_ok"] is True
    assert data["probe"]["reply"]["kind"] == "task"
    assert data["probe"]["text_preview"].startswith("echo: Hello from a2abench")
    assert data["card_url"] == echo_url + "/.well-known/agent-card.json"
    assert [f["severity"] for f in data["findings"]] == []


def test_human_output_is_plain_without_a_tty(echo_url: str) -> None:
    r = run_cli("discover", echo_url)
    assert r.code == 0
    for needle in ("echo 1.0.0", "A2A 1.0 card", "JSONRPC", "Skills", "Echo",
                   "Findings: none", "Probe: answered", "Streaming probe: ok"):
        assert needle in r.out, needle
    assert "\x1b[" not in r.out


def test_card_url_itself_works(echo_url: str) -> None:
    r = run_cli("discover", echo_url + "/.well-known/agent-card.json", "--json", "--no-probe")
    assert r.code == 0 and r.json()["probe"] is None


@pytest.mark.parametrize("version", ["0.2", "0.3"])
def test_legacy_dialects(version: str) -> None:
    with serve(legacy(version)) as base:
        r = run_cli("discover", base, "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["dialect"] == version and data["probe"]["ok"]
    codes = {f["code"] for f in data["findings"]}
    assert ("legacy-path" in codes) is (version == "0.2")


def _fails(factory: Callable[[str], Any], *args: str) -> tuple[int, dict[str, Any], str]:
    with serve(factory) as base:
        r = run_cli("discover", base, "--json", *args)
    return r.code, r.json(), r.err


@pytest.mark.parametrize(("factory", "error", "words"), [
    (agents.not_found, "CardNotFound", "agent-card.json"),
    (agents.html_page, "AgentCardInvalid", "HTML"),
    (agents.invalid_json, "AgentCardInvalid", "not valid JSON"),
    # Missing spec fields are warnings (issue 18.8); this card's RPC path is not served.
    (agents.missing_fields, "AgentHTTPError", "HTTP 404"),
    (agents.huge_card, "AgentCardInvalid", "larger than"),
    (agents.redirect_loop, "TooManyRedirects", "redirects"),
    (functools.partial(agents.rpc_failing, error={"code": -32601, "message": "nope"}),
     "JSONRPCError", "-32601"),
    (functools.partial(agents.rpc_failing, status=500, body="crash"), "AgentHTTPError",
     "HTTP 500"),
], ids=["404", "html", "invalid-json", "missing-fields", "10MB", "redirect-loop",
        "jsonrpc-error", "http-500"])
def test_bad_endpoints_end_in_named_errors(factory: Callable[[str], Any], error: str,
                                           words: str) -> None:
    code, data, err = _fails(factory)
    assert code == 1 and not data["usable"]
    assert data["error"]["error"] == error and words in data["error"]["message"]
    assert err.startswith("Error: ") and "Traceback" not in err


def test_not_found_lists_every_url_tried() -> None:
    with serve(agents.not_found) as base:
        r = run_cli("discover", base + "/agents/x")
    assert r.code == 1
    for path in ("/agents/x/.well-known/agent-card.json", "/.well-known/agent-card.json",
                 "/agents/x/.well-known/agent.json", "/.well-known/agent.json"):
        assert path in r.err


def test_slow_server_times_out() -> None:
    code, data, _ = _fails(agents.slow_card, "--timeout", "0.3")
    assert code == 1 and data["error"]["error"] == "AgentTimeout"


def test_unreachable_host() -> None:
    r = run_cli("discover", f"http://127.0.0.1:{free_port()}", "--json")
    assert r.code == 1 and r.json()["error"]["error"] == "AgentUnreachable"
    assert "Check that the agent is running" in r.err


def test_missing_fields_are_listed_as_findings() -> None:
    _, data, _ = _fails(agents.missing_fields)
    gaps = {f["message"].split()[2] for f in data["findings"] if f["code"] == "missing-field"}
    assert gaps == {"description", "version", "capabilities", "defaultInputModes",
                    "defaultOutputModes", "skills"}


def test_no_probe_skips_the_agent() -> None:
    factory = functools.partial(agents.rpc_failing, status=500, body="crash")
    with serve(factory) as base:
        r = run_cli("discover", base, "--no-probe")
    assert r.code == 0 and "Probe: skipped" in r.out


def test_bad_url_is_a_usage_error() -> None:
    r = run_cli("discover", "ftp://example.com")
    assert r.code == 2 and "http:// or https://" in r.err


def test_streaming_advertised_but_broken_is_a_warning_finding() -> None:
    # `run` sends blocking requests, so broken streaming does not stop a run (issue 18.8).
    with serve(lambda b: agents.LegacyAgent(b, broken_stream=True).app()) as base:
        r = run_cli("discover", base, "--json")
    data = r.json()
    assert r.code == 0 and data["probe"]["ok"] and data["probe"]["stream_ok"] is False
    assert {"streaming-broken": "warning"}.items() <= \
        {f["code"]: f["severity"] for f in data["findings"]}.items()
    assert data["usable"] and data["error"] is None
