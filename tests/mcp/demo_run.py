"""`a2abench demo --tool-channel <channel> --json`, run once per session for the tests that
read it (test_example_agent's scores, test_viewer_mcp's page): a demo is a few seconds of
CPU. Any test that reads a plain `demo --json` may share the A2A one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clihelp import run_cli
from tests.session_once import once_per_session


def demo(factory: pytest.TempPathFactory, channel: str) -> Path:
    """The output folder of the demo over `channel` ("a2a" or "mcp"), its `--json` stdout
    in `stdout.jsonl`: made by the first xdist worker that needs it (in a cache of its
    own), read by the others."""
    def make() -> str:
        root = factory.mktemp(f"{channel}-demo")
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("A2ABENCH_CACHE_DIR", str(root / "cache"))
            r = run_cli("demo", "--tool-channel", channel, "--output", str(root / "demo"),
                        "--json")
        assert r.code == 0, r.err
        (root / "demo" / "stdout.jsonl").write_text(r.out)
        return str(root / "demo")

    return Path(once_per_session(factory, f"{channel}-demo", make))


def mcp_demo(factory: pytest.TempPathFactory) -> Path:
    """The demo over MCP (`demo(factory, "mcp")`)."""
    return demo(factory, "mcp")
