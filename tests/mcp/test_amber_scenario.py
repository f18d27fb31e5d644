"""The Amber scenario variant (examples/agentbeats/scenario-mcp.json5): a well-formed graph
in which the participant reaches the green agent's MCP export only through its binding, and
whose commands use flags the two programs have."""

from __future__ import annotations

import re
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
    root = load("scenario-mcp.json5")
    children = {name: load(ref) for name, ref in root["components"].items()}
    kinds = {**{f"slots.{k}": v["kind"] for k, v in root["slots"].items()},
             **{f"#{c}.{e}": m["provides"][t.split(".", 1)[1]]["kind"]
                for c, m in children.items() for e, t in m.get("exports", {}).items()}}
    bound = set()
    for binding in root["bindings"]:
        child, slot = binding["to"].lstrip("#").split(".")
        assert kinds[binding["from"]] == children[child]["slots"][slot]["kind"], binding
        bound.add((child, slot))
    assert bound == {(c, s) for c, m in children.items() for s in m["slots"]}  # all bound
    tools = next(b for b in root["bindings"] if b["to"] == "#agent.tools")
    assert tools["from"] == "#green.mcp" and tools["weak"] is True  # no start-order cycle
    for name, manifest in children.items():
        endpoints = {e["name"] for e in manifest["program"]["network"]["endpoints"]}
        assert {p["endpoint"] for p in manifest["provides"].values()} <= endpoints, name
        used = set(re.findall(r"\$\{slots\.(\w+)\.url\}", " ".join(
            manifest["program"]["entrypoint"])))
        assert used <= set(manifest["slots"]), name
    assert root["exports"] == {"green": "#green.a2a"}


@pytest.mark.parametrize(("component", "command"), [
    ("mcp-green.json5", ["serve-green", "--help"]),
    ("mcp-participant.json5", None),
])
def test_the_commands_use_real_flags(component: str, command: list[str] | None,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    argv = load(component)["program"]["entrypoint"]
    if command is not None:
        help_text = run_cli(*command).out
    else:
        from a2abench.demo.example_agent import main

        with pytest.raises(SystemExit):
            main(["--help"])
        help_text = capsys.readouterr().out
    flags = [a for a in argv if a.startswith("--")]
    assert flags and all(flag in help_text for flag in flags), flags
