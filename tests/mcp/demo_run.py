"""`a2abench demo --tool-channel <channel> --json`, run once per session for the tests that
read it (test_example_agent's scores, test_viewer_mcp's page): a demo is a few seconds of
CPU. Any test that reads a plain `demo --json` may share the A2A one."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from tests.clihelp import run_cli


def shared_dir(factory: pytest.TempPathFactory) -> Path:
    """A folder of this session's, the same for all its xdist workers."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def demo(factory: pytest.TempPathFactory, channel: str) -> Path:
    """The output folder of the demo over `channel` ("a2a" or "mcp"), its `--json` stdout
    in `stdout.jsonl`: made by the first xdist worker that needs it (in a cache of its
    own), read by the others."""
    shared = shared_dir(factory)
    done = shared / f"{channel}-demo.path"  # names the output folder, left where it is
    with (shared / f"{channel}-demo.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker making it: wait for it
        if not done.exists():
            root = factory.mktemp(f"{channel}-demo")
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv("A2ABENCH_CACHE_DIR", str(root / "cache"))
                r = run_cli("demo", "--tool-channel", channel, "--output", str(root / "demo"),
                            "--json")
            assert r.code == 0, r.err
            (root / "demo" / "stdout.jsonl").write_text(r.out)
            done.write_text(str(root / "demo"))
    return Path(done.read_text())


def mcp_demo(factory: pytest.TempPathFactory) -> Path:
    """The demo over MCP (`demo(factory, "mcp")`)."""
    return demo(factory, "mcp")
