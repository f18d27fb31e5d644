"""`serve-green --log-format json` writes JSON lines only (issue 23 item 9, issue 22 item 7):
the banner, every library's log lines, tracebacks (the SDK's, on a DataPart that is not an
object) and a start-up error are each one JSON object, and no secret appears in any of them.
A NaN in a request is rejected without any traceback (issue 34)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.waits import HANG_S

pytestmark = pytest.mark.slow
CANARY = "canary-23-json-0d9f1e"
ROOT = Path(__file__).resolve().parents[2]


def spawn(tmp_path: Path, port: int) -> subprocess.Popen[str]:
    # The tau2 assessment below fetches its data before the agent's card: from a closed
    # loopback port, never the internet.
    env = {**os.environ, "OPENAI_API_KEY": CANARY, "PYTHONPATH": str(ROOT),
           "A2ABENCH_DATA_MIRROR": f"http://127.0.0.1:{free_port()}/"}
    return subprocess.Popen(
        [sys.executable, "-m", "a2abench", "serve-green", "--port", str(port), "--log-format",
         "json", "--output-dir", str(tmp_path / "runs"), "--no-grpc"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)


def rpc(base: str, part: str) -> Any:
    head = ('{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": '
            f'{{"kind": "message", "role": "user", "messageId": "m{time.time_ns()}", ')
    body = head + '"parts": [' + part + "]}}}"
    return httpx.post(base, content=body, headers={"content-type": "application/json"},
                      timeout=HANG_S).json()


def lines_of(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        if line.strip():
            out.append(json.loads(line))  # raises on any line that is not JSON
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_every_line_is_json_and_secret_free(tmp_path: Path) -> None:
    port = free_port()
    proc = spawn(tmp_path, port)
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + HANG_S  # its start took over 20 s on a loaded machine
        while True:
            try:
                httpx.get(base + "healthz")
                break
            except httpx.HTTPError:
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "serve-green never answered"
                time.sleep(0.1)
        agent = f"http://operator:{CANARY}@127.0.0.1:9"
        rpc(base, json.dumps({"kind": "text", "text": f"{CANARY} is not a request"}))
        nan = ('{"kind": "data", "data": {"participants": {"agent": "http://127.0.0.1:9"}, '
               '"config": {"benchmark": "tau2", "timeout": NaN}}}')
        answer = rpc(base, nan)  # once the SDK's traceback (-32603), now our rejection
        assert answer["result"]["status"]["state"] == "rejected", answer
        rpc(base, '{"kind": "data", "data": "not an object"}')  # the SDK logs a traceback
        rpc(base, json.dumps({"kind": "text", "text": json.dumps(
            {"participants": {"agent": agent}, "config": {"benchmark": "tau2"}})}))
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=HANG_S)
    assert CANARY not in out + err
    lines = lines_of(out) + lines_of(err)
    events = [line.get("event") for line in lines]
    assert "serving" in events  # the banner
    rejected = [line["problem"] for line in lines if line.get("event") == "assessment_rejected"]
    assert any("a DataPart holds a value JSON cannot carry" in p for p in rejected), rejected
    assert any("traceback" in line for line in lines)  # the SDK's own, as a field


def test_a_start_up_error_is_one_json_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        proc = spawn(tmp_path, taken.getsockname()[1])
        out, err = proc.communicate(timeout=HANG_S)
    assert proc.returncode not in (0, None)
    lines = lines_of(out) + lines_of(err)
    assert [line.get("event") for line in lines] == ["error"], lines
    assert lines[0]["level"] == "error" and str(lines[0]["message"])
