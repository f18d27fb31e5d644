"""Issue 18 item 8: `discover` and `run` agree on usability, on the same cards.

The AgentBeats template purple agent (RDI-Foundation/agent-template, src/server.py) ships
`name: ""`, `description: ""` and one skill with empty id, name, description and tags; as
a2a-sdk 0.3 serves it. `run` uses such an agent fine, so `discover` must call it usable,
with warnings that say "empty", not errors that say "missing".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from a2abench.run.registry import unregister
from tests.agents import LegacyAgent
from tests.clihelp import run_cli
from tests.engine.scripted import install
from tests.servers import free_port, serve


@pytest.fixture(autouse=True)
def scripted_benchmark() -> Iterator[None]:
    install()
    yield
    unregister("scripted")


def template_card(base: str) -> dict[str, Any]:
    return {"name": "", "description": "", "url": base + "/rpc", "version": "1.0.0",
            "protocolVersion": "0.3.0", "preferredTransport": "JSONRPC",
            "defaultInputModes": ["text"], "defaultOutputModes": ["text"],
            "capabilities": {"streaming": True},
            "skills": [{"id": "", "name": "", "description": "", "tags": [], "examples": []}]}


def no_interface(base: str) -> dict[str, Any]:
    card = template_card(base)
    del card["url"]
    return card


def dead_interface(base: str) -> dict[str, Any]:
    return {**template_card(base), "url": f"http://127.0.0.1:{free_port()}/rpc"}


class CardAgent(LegacyAgent):
    def __init__(self, base: str, make: Callable[[str], dict[str, Any]]) -> None:
        super().__init__(base)
        self.make = make

    def card(self) -> dict[str, Any]:
        return self.make(self.base)


@pytest.mark.parametrize(("make", "usable"), [
    (template_card, True), (no_interface, False), (dead_interface, False)],
    ids=["agentbeats-template", "no-interface", "unreachable-interface"])
def test_discover_and_run_agree(make: Callable[[str], dict[str, Any]], usable: bool,
                                tmp_path: Path) -> None:
    with serve(lambda b: CardAgent(b, make).app()) as base:
        found = run_cli("discover", base, "--json")
        ran = run_cli("run", "scripted", "--white-agent-url", base, "--output",
                      str(tmp_path / "m.jsonl"), "--option", "tasks=2", "--retries", "0")
    data = found.json()
    assert data["usable"] is usable and (found.code == 0) is usable, found.err
    assert (ran.code == 0) is usable, ran.err
    assert "Traceback" not in found.err + ran.err
    if usable:
        findings = {(f["code"], f["severity"]) for f in data["findings"]}
        assert ("missing-field", "error") not in findings
        empty = [f["message"] for f in data["findings"] if f["code"] == "empty-field"]
        assert "field name is empty" in empty and "field skills[0].id is empty" in empty
        assert all(f["severity"] == "warning" for f in data["findings"]
                   if f["code"] == "empty-field")
        assert not any(f["severity"] == "error" for f in data["findings"])
