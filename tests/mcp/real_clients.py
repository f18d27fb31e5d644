"""Real MCP clients of both eras, each in an environment of its own, driven as tool callers.

| client | package | revision it speaks here |
| --- | --- | --- |
| `python-1` | `mcp` 1.x (the official Python SDK's handshake era) | 2025-11-25 (initialize) |
| `python-2` | `mcp` 2.x, pinned to 2026-07-28 (no fallback) | 2026-07-28 |
| `typescript-1` | `@modelcontextprotocol/sdk` 1.x | 2025-11-25 (initialize) |
| `typescript-2` | `@modelcontextprotocol/client` 2.x, pinned to 2026-07-28 | 2026-07-28 |

`python -m tests.mcp.real_clients` builds them all (.ci/run does); a test builds the one it
needs on first use. They live under A2ABENCH_TEST_CACHE (default ~/.cache/a2abench-tests). A
client that cannot be built (no node, no package index) makes its tests skip, saying why.

Each runs `clients/sdk_client.py` or `clients/sdk_client.mjs`, which read one JSON command a
line on stdin and answer one JSON line on stdout (see those files): a long-lived process per
test that the gold agent asks to make a turn's calls while its A2A request is in flight.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import shutil
import subprocess
import sys
import threading
import venv
from pathlib import Path
from typing import Any

HERE = Path(__file__).with_name("clients")
PYTHON_SPECS = {"python-1": "mcp==1.30.0", "python-2": "mcp==2.3.0"}
NODE_SPECS = {"typescript-1": "@modelcontextprotocol/sdk@1.32.2",
              "typescript-2": "@modelcontextprotocol/client@2.4.0"}
CLIENTS = (*PYTHON_SPECS, *NODE_SPECS)
MODERN = {"python-2", "typescript-2"}  # the clients that speak 2026-07-28 only


def cache_dir() -> Path:
    return Path(os.environ.get("A2ABENCH_TEST_CACHE", Path.home() / ".cache/a2abench-tests"))


def command(client: str) -> list[str]:
    """The argv of `client`'s tool caller; built once. RuntimeError says why it cannot be."""
    if client in PYTHON_SPECS:
        return [str(_python_env(client)), str(HERE / "sdk_client.py")]
    return [_node(), str(HERE / "sdk_client.mjs"), str(_node_env() / "node_modules"),
            client]


def _python_env(client: str) -> Path:
    spec = PYTHON_SPECS[client]
    where = cache_dir() / f"mcp-{client}-{spec.split('==')[1]}-py{sys.version_info.major}." \
                          f"{sys.version_info.minor}"
    python, marker = where / "bin" / "python", where / "a2abench-probed.txt"
    if python.exists() and marker.exists() and marker.read_text() == spec:
        return python  # probed once already: another interpreter start-up is ~0.1 s of CPU
    probe = [str(python), "-c", "from importlib.metadata import version; "
             f"assert version('mcp') == {spec.split('==')[1]!r}"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        marker.write_text(spec)
        return python
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(where)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", spec], check=True,
                       capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", "") or ""
        raise RuntimeError(f"cannot build the {spec} venv at {where} from the package index: "
                           f"{exc} {detail.strip()[-300:]}") from None
    if subprocess.run(probe, capture_output=True).returncode != 0:
        raise RuntimeError(f"{where}: {spec} installed but does not import")
    marker.write_text(spec)
    return python


@functools.cache
def _node() -> str:
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not installed: the TypeScript SDK clients cannot run")
    major = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    if not major.startswith("v") or int(major[1:].split(".")[0]) < 20:
        raise RuntimeError(f"node {major.strip()} is older than the SDKs' minimum, 20")
    return node


def _node_env() -> Path:
    where = cache_dir() / ("mcp-typescript-" + "-".join(
        s.rsplit("@", 1)[1] for s in NODE_SPECS.values()))
    marker = where / "installed.json"
    if marker.exists() and json.loads(marker.read_text()) == list(NODE_SPECS.values()):
        return where
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed: the TypeScript SDK clients cannot be built")
    where.mkdir(parents=True, exist_ok=True)
    (where / "package.json").write_text('{"name": "a2abench-mcp-clients", "private": true}')
    try:
        subprocess.run([npm, "install", "--no-audit", "--no-fund", "--silent",
                        *NODE_SPECS.values()], cwd=where, check=True, capture_output=True,
                       text=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", "") or ""
        raise RuntimeError(f"cannot install {', '.join(NODE_SPECS.values())} at {where} from "
                           f"the npm registry: {exc} {detail.strip()[-300:]}") from None
    marker.write_text(json.dumps(list(NODE_SPECS.values())))
    return where


class ToolCaller:
    """A client's long-lived process: `await caller.turn(command)` sends one command and
    returns its answer (one turn at a time; each answer within `timeout` seconds)."""

    def __init__(self, argv: list[str], timeout: float = 120.0) -> None:
        self.timeout = timeout
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, bufsize=1)
        self._lock = threading.Lock()

    def _exchange(self, line: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        with self._lock:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
            return self.process.stdout.readline()

    async def turn(self, command: dict[str, Any]) -> dict[str, Any]:
        try:
            answer = await asyncio.wait_for(
                asyncio.to_thread(self._exchange, json.dumps(command)), self.timeout)
        except TimeoutError:
            self.process.kill()  # unblocks the reading thread
            raise AssertionError(f"the MCP client gave no answer in {self.timeout:g} s: "
                                 f"{self._stderr()}") from None
        if not answer:
            raise AssertionError(f"the MCP client exited: {self._stderr()}")
        result: dict[str, Any] = json.loads(answer)
        return result

    def _stderr(self) -> str:
        self.process.kill()
        assert self.process.stderr is not None
        return self.process.stderr.read()[-3000:]

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


if __name__ == "__main__":
    failed = False
    for name in CLIENTS:
        try:
            print(name, " ".join(command(name)))
        except RuntimeError as exc:
            print(f"{name}: {exc}", file=sys.stderr)
            failed = True
    sys.exit(1 if failed else 0)
