"""A driver's MCP channel is found through its `mcp_channel()` hook and the run record says
which channel ran in a typed field (issue 36): no attribute is looked up by name in
serve-green, and the report no longer reads a key the channel wrote into the driver's data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.green.executor import attach_tools
from a2abench.mcp.channel import McpChannel
from a2abench.mcp.options import ToolChannelOptions
from a2abench.run.records import RunRecord
from tests.clihelp import run_cli
from tests.engine.conftest import agent
from tests.engine.scripted import ScriptedDriver, ScriptedOptions


class _Decoy:
    """An attribute named `mcp` that is not the driver's tool channel (its own MCP client)."""

    def __init__(self) -> None:
        self.attached: list[Any] = []

    def attach(self, *args: Any) -> None:
        self.attached.append(args)


class _Tools(ScriptedDriver):
    def __init__(self, options: ScriptedOptions) -> None:
        super().__init__(options)
        self.mcp = _Decoy()
        self.tools = McpChannel(ToolChannelOptions(tool_channel="mcp"))

    def mcp_channel(self) -> McpChannel:
        return self.tools


def test_serve_green_attaches_the_channel_the_hook_names() -> None:
    driver = _Tools(ScriptedOptions())
    endpoint = object()
    attach_tools(driver, (endpoint, "http://green/mcp"))
    assert (driver.tools.endpoint, driver.tools.url) == (endpoint, "http://green/mcp")
    assert driver.mcp.attached == []  # an attribute's name means nothing
    plain = ScriptedDriver(ScriptedOptions())
    attach_tools(plain, (endpoint, "http://green/mcp"))  # no channel: nothing to attach
    assert plain.mcp_channel() is None


def test_the_run_record_and_the_report_name_the_tool_channel(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    enabled = McpChannel(ToolChannelOptions(tool_channel="mcp"))
    out = {}
    for name, channel in (("a2a", None), ("mcp", enabled)):
        monkeypatch.setattr(ScriptedDriver, "mcp_channel", lambda self, c=channel: c)
        out[name] = tmp_path / f"{name}.jsonl"
        with agent() as (_, base):
            r = run_cli("run", "scripted", "--white-agent-url", base, "--output",
                        str(out[name]), "--option", "tasks=1")
        assert r.code == 0, r.err
        run = json.loads(out[name].read_text().splitlines()[0])
        assert run["tool_channel"] == name and "tool_channel" not in run["data"]
    assert "tools over MCP" in run_cli("report", str(out["mcp"])).out
    assert "tools over MCP" not in run_cli("report", str(out["a2a"])).out
    assert RunRecord.model_fields["tool_channel"].default == "a2a"  # older records: A2A
