"""`a2abench serve-green`: flags, startup errors, and a real process serving on loopback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.clihelp import run_cli
from tests.test_cli import HELP
from tests.waits import HANG_S


def test_help_lists_the_flags() -> None:
    # That `serve-green --help` imports nothing heavy (pydantic included) is proved in a fresh
    # interpreter by tests/test_cli.py::test_fast_start_imports_nothing_heavy[serve-green
    # --help], on a superset of what it loads: a second child here proved no more.
    r = run_cli("serve-green", "--help")
    assert r.code == 0
    for flag in ("--host", "--port", "--card-url", "--auth-token", "--max-concurrent-",
                 "--max-queued-", "--allow-host", "--max-request-bytes", "--output-dir",
                 "--option", "A2ABENCH_OUTPUT_DIR"):
        assert flag in r.out, flag
    assert "--tck" not in r.out  # test-only, hidden
    assert ["serve-green", "--help"] in HELP


def test_bad_settings_are_usage_errors() -> None:
    r = run_cli("serve-green", "--option", "max_steps=3")
    assert r.code == 2 and "Error: --option 'max_steps=3' is not BENCHMARK.KEY=VALUE" in r.err
    r = run_cli("serve-green", "--option", "tau2.colour=red", "--port", "0")
    assert r.code == 2 and "--option tau2.colour: not an option of tau2" in r.err
    r = run_cli("serve-green", "--card-url", "green:9009")
    assert r.code == 2 and "--card-url 'green:9009' is not an http(s) URL" in r.err


def test_port_in_use(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        r = run_cli("serve-green", "--port", str(port), "--output-dir", str(tmp_path))
    assert r.code == 2 and f"cannot listen on 127.0.0.1:{port}" in r.err


@pytest.mark.slow
def test_serves_until_ctrl_c(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "A2ABENCH_OUTPUT_DIR": str(tmp_path),
           "A2ABENCH_MAX_CONCURRENT_ASSESSMENTS": "2"}
    proc = subprocess.Popen([sys.executable, "-m", "a2abench", "serve-green", "--port", "0",
                             "--card-url", "http://127.0.0.1:1/a2a"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        deadline, line = time.monotonic() + HANG_S, ""
        while "a2abench green agent" not in line and time.monotonic() < deadline:
            line = proc.stderr.readline()
        assert line.startswith("a2abench green agent: card http://127.0.0.1:1/a2a/.well-known/"
                               "agent-card.json, JSON-RPC http://127.0.0.1:1/a2a (this server "
                               "answers JSON-RPC at /, /a2a, /a2a/;"), line
        port = _listening_port(proc.pid)
        card = httpx.get(f"http://127.0.0.1:{port}/.well-known/agent-card.json").json()
        assert card["supportedInterfaces"][0]["url"] == "http://127.0.0.1:1/a2a"
        # The card answers before the full app is built (green/starting.py): wait for it.
        while httpx.get(f"http://127.0.0.1:{port}/readyz").status_code != 200:
            assert time.monotonic() < deadline + 30, "never ready"
            time.sleep(0.05)
        r = httpx.post(f"http://127.0.0.1:{port}/a2a/", headers={"A2A-Version": "1.0"}, json={
            "jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}})
        assert r.json()["error"]["code"] == -32001
        r = httpx.post(f"http://127.0.0.1:{port}/a2a", headers={"A2A-Version": "1.0"}, json={
            "jsonrpc": "2.0", "id": 2, "method": "SendMessage", "params": {"message": {
                "role": "ROLE_USER", "messageId": "m", "parts": [{"text": "hello"}]}}})
        assert r.json()["result"]["task"]["status"]["state"] == "TASK_STATE_REJECTED"
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=HANG_S)
    assert proc.returncode == 130, err  # docs/design.md §2: interrupted
    assert "Traceback" not in err
    assert "rejected: the text is not a JSON object" in err  # the server's own log line


def _listening_port(pid: int) -> int:
    """The port a process listens on, from /proc (the card advertises another URL)."""
    inodes = {os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1] for fd in os.listdir(f"/proc/{pid}/fd")
              if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "0A" and fields[9] in inodes:  # 0A = LISTEN
            return int(fields[1].split(":")[1], 16)
    raise AssertionError("the server is not listening")
