"""The Amber scenario variant (examples/agentbeats/scenario-mcp.json5): a leaderboard
scenario in which the participant reaches the green agent's MCP export only through its
binding, and whose commands use flags the two programs have."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.clihelp import run_cli

json5 = pytest.importorskip("json5")
ROOT = Path(__file__).parents[2] / "examples" / "agentbeats"


def load(name: str) -> dict[str, Any]:
    value = json5.loads((ROOT / name).read_text())
    assert isinstance(value, dict)
    return value


def test_the_graph_binds_the_participant_to_the_green_agents_mcp_export() -> None:
    # The leaderboard rules every scenario follows (gateway, `results`, the proxy slot, Quick
    # Submit) are checked by tests/agentbeats/test_amber_rules.py; here, what MCP adds.
    root = load("scenario-mcp.json5")
    green = load(root["components"]["a2abench"]["manifest"])
    participant = load(root["components"]["agent"]["manifest"])
    tools = next(b for b in root["bindings"] if b["to"] == "#agent.tools")
    assert tools["from"] == "#a2abench.mcp" and tools["weak"] is True  # no start-order cycle
    assert green["provides"]["mcp"] == {"kind": "mcp", "endpoint": "http"}  # the A2A port
    assert participant["slots"]["tools"]["kind"] == "mcp"
    argv = participant["program"]["entrypoint"]
    assert argv[argv.index("--mcp-url") + 1] == "${slots.tools.url}/mcp"
    for config in (root["components"]["gateway"]["config"]["assessment_config"],
                   green["metadata"]["assessment_config"]):
        assert config["tool_channel"] == "mcp"


@pytest.mark.parametrize(("component", "command"), [
    ("mcp-green.json5", ["serve-green", "--help"]),
    ("mcp-participant.json5", None),
])
def test_the_commands_use_real_flags(component: str, command: list[str] | None,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    entrypoint = load(component)["program"]["entrypoint"]
    argv = entrypoint if isinstance(entrypoint, list) else shlex.split(entrypoint)
    if command is not None:
        help_text = run_cli(*command).out
    else:
        from a2abench.demo.example_agent import main

        with pytest.raises(SystemExit):
            main(["--help"])
        help_text = capsys.readouterr().out
    flags = [a for a in argv if a.startswith("--")]
    assert flags and all(flag in help_text for flag in flags), flags
