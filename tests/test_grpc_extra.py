"""Without the `grpc` extra: a clear error naming it where gRPC is needed, and serve-green
goes on without gRPC unless a --grpc-port was asked for."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from a2abench.a2a import bindings as client_bindings
from a2abench.a2a import grpc_binding
from a2abench.a2a.dialects import parse_card
from a2abench.errors import ConfigError
from a2abench.green import GreenSettings
from a2abench.green import bindings as green_bindings
from a2abench.green import starting as green_starting
from tests.clihelp import run_cli


@pytest.fixture
def no_grpc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grpc_binding, "grpc_available", lambda: False)
    monkeypatch.setattr(green_bindings, "grpc_installed", lambda: False)


def _card(*bindings: str) -> Any:
    urls = {"GRPC": "127.0.0.1:50051", "HTTP+JSON": "http://127.0.0.1:9/rest"}
    return parse_card({"name": "x", "description": "d", "version": "1", "capabilities": {},
                       "defaultInputModes": [], "defaultOutputModes": [], "skills": [],
                       "supportedInterfaces": [{"url": urls[b], "protocolBinding": b,
                                                "protocolVersion": "1.0"} for b in bindings]})


def test_grpc_only_card_names_the_extra(no_grpc: None) -> None:
    with pytest.raises(ConfigError) as info:
        client_bindings.select_interface(_card("GRPC"), "http://127.0.0.1:9/")
    assert 'a2abench[grpc]' in info.value.render()


def test_grpc_skipped_when_another_binding_is_offered(no_grpc: None) -> None:
    choice = client_bindings.select_interface(_card("GRPC", "HTTP+JSON"), "http://127.0.0.1:9/")
    assert choice.binding == "HTTP+JSON"
    with pytest.raises(ConfigError, match="grpcio"):
        client_bindings.select_interface(_card("GRPC", "HTTP+JSON"), "http://127.0.0.1:9/",
                                         "GRPC")


def test_serve_green_goes_on_without_grpc(no_grpc: None,
                                          caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="a2abench.green"):
        assert green_starting.pick_grpc_port(GreenSettings()) is None
    assert "a2abench[grpc]" in caplog.text
    with pytest.raises(ConfigError, match="--grpc-port needs grpcio"):
        green_starting.pick_grpc_port(GreenSettings(grpc_port=50051))
    assert green_starting.pick_grpc_port(GreenSettings(grpc=False, grpc_port=50051)) is None


def test_bad_transport_value_is_a_usage_error() -> None:
    r = run_cli("run", "tau2", "--white-agent-url", "http://127.0.0.1:9", "--domain", "mock",
                "--transport", "websocket")
    assert r.code == 2, r.err
    assert "jsonrpc, http-json or grpc" in r.err
