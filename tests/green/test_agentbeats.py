"""serve-green on AgentBeats: behind the controller's prefix-stripping proxy (tests/green/
controller.py), started by the run.sh recipe of docs/serve-green.md as the controller starts it,
and the shipped scenario's commands started the way the AgentBeats runner starts them."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2abench.benchmarks.tau2.models import Task
from a2abench.green import GreenSettings, build_app
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer
from tests.green.controller import controller, start_run_sh
from tests.green.helpers import STATE, agentbeats, result_of, sdk_client, send
from tests.green.test_e2e import airline, gold, user_llm  # noqa: F401
from tests.servers import free_port, serve
from tests.tau2.test_run_e2e import TASKS
from tests.waits import HANG_S

ROOT = Path(__file__).resolve().parents[2]
AGENT_ID = "4f6c0b1e9d2a4c7f8e3b5a6d7c8e9f01"


def send_03(url: str, payload: str, method: str = "message/send") -> Any:
    """What the AgentBeats client (a2a-sdk 0.3) puts on the wire: no A2A-Version header,
    `kind` on every object."""
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": {
        "kind": "message", "role": "user", "messageId": os.urandom(8).hex(),
        "parts": [{"kind": "text", "text": payload}]}}}
    headers = {"Accept": "text/event-stream"} if method == "message/stream" else {}
    response = httpx.post(url, json=body, headers=headers, timeout=HANG_S)
    assert response.status_code == 200, response.text
    if method == "message/stream":
        return [json.loads(line[5:])["result"] for line in response.text.splitlines()
                if line.startswith("data:")]
    return response.json()["result"]


@pytest.fixture(scope="module")
def behind_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """serve-green in-process, its card URL the controller's /to_agent/<id>; yields that (one
    for the module: each test sends its own assessments)."""
    settings = GreenSettings(output_dir=tmp_path_factory.mktemp("runs"), progress_interval_s=0)
    ports: dict[str, int] = {}
    with controller(ports) as ctrl:
        agent_url = f"{ctrl}/to_agent/{AGENT_ID}"
        with serve(lambda _base: build_app(settings, agent_url).app) as base:
            ports[AGENT_ID] = int(base.rsplit(":", 1)[1])
            yield agent_url


@pytest.mark.parametrize("streaming", [True, False])
async def test_sdk_1x_client_through_the_proxy(behind_proxy: str, white: str,
                                               streaming: bool) -> None:
    async with sdk_client(behind_proxy, streaming=streaming) as client:
        out = await send(client, agentbeats(white, benchmark="scripted", tasks=2))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    assert result_of(out.task)[1]["summary"]["total_passed"] == 2  # type: ignore[arg-type]


@pytest.mark.parametrize("slash", ["", "/"])
def test_a2a_03_client_through_the_proxy(behind_proxy: str, white: str, slash: str) -> None:
    card = httpx.get(f"{behind_proxy}/.well-known/agent-card.json").json()
    assert card["url"] == behind_proxy and card["protocolVersion"] == "0.3"
    task = send_03(card["url"] + slash, agentbeats(white, benchmark="scripted", tasks=1))
    assert task["status"]["state"] == "completed"
    events = send_03(card["url"] + slash, agentbeats(white, benchmark="scripted", tasks=1),
                     "message/stream")
    assert events[-1]["status"]["state"] == "completed" and events[-1]["final"] is True


def test_rpc_path_chooses_one_path(tmp_path: Path) -> None:
    settings = GreenSettings(output_dir=tmp_path, rpc_path="/rpc")
    body = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}
    with serve(lambda base: build_app(settings, base + "/card-path").app) as base:
        codes = {p: httpx.post(base + p, json=body, headers={"A2A-Version": "1.0"}).status_code
                 for p in ("/rpc", "/rpc/", "/", "/card-path")}
    assert codes == {"/rpc": 200, "/rpc/": 200, "/": 404, "/card-path": 404}


# --- the controller recipe, verbatim from the docs, with a real tau2 assessment ------------

def run_sh_recipe() -> str:
    docs = (ROOT / "docs/serve-green.md").read_text()
    match = re.search(r"<!-- run.sh -->\n```sh\n(.*?)```", docs, re.S)
    assert match, "docs/serve-green.md lost its run.sh recipe"
    return match.group(1)


def wait_for_card(url: str, proc: subprocess.Popen[str], timeout: float = HANG_S
                  ) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stdout.read() if proc.stdout else "exited"
        try:
            card: dict[str, Any] = httpx.get(url + "/.well-known/agent-card.json").json()
            return card
        except (httpx.HTTPError, ValueError):
            time.sleep(0.05)
    raise TimeoutError(f"no card at {url}")


@pytest.mark.slow
async def test_the_docs_run_sh_under_the_controller(tmp_path: Path, gold: str,  # noqa: F811
                                                    user_llm: FakeLLMServer,  # noqa: F811
                                                    airline: dict[str, Task]) -> None:  # noqa: F811
    script = tmp_path / "run.sh"
    script.write_text(run_sh_recipe())
    operator = {"A2ABENCH_OUTPUT_DIR": str(tmp_path / "runs"), "A2ABENCH_ALLOW_HOST": "127.0.0.1",
                "A2ABENCH_OPTION": f"tau2.data_dir={shared_data('tau2').parent} "
                                   f"tau2.user_llm_base_url={user_llm.base_url} "
                                   "tau2.user_llm=fake-user",
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    ports: dict[str, int] = {}
    with controller(ports) as ctrl:
        agent_url = f"{ctrl}/to_agent/{AGENT_ID}"
        ports[AGENT_ID] = free_port()
        with start_run_sh(script, ports[AGENT_ID], agent_url, operator) as proc:
            card = wait_for_card(agent_url, proc)
            assert card["url"] == agent_url
            # --no-grpc: the controller forwards one port, so no gRPC interface is advertised.
            assert "--no-grpc" in script.read_text()
            assert all("GRPC" not in str(i).upper() for i in
                       card.get("supportedInterfaces", []) + card.get("additionalInterfaces", []))
            request = agentbeats(gold, domain="airline", task_ids=TASKS[:2])
            async with sdk_client(agent_url, streaming=False) as client:
                out = await send(client, request)
            legacy = send_03(card["url"], request)
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    assert result_of(out.task)[1]["summary"]["pass_rate"] == 1.0  # type: ignore[arg-type]
    assert legacy["status"]["state"] == "completed"
    assert json.loads(legacy["artifacts"][0]["parts"][1]["text"])["summary"]["pass_rate"] == 1.0


# --- the shipped scenario under the AgentBeats runner's PATH ---------------------------------

@pytest.mark.slow
def test_the_shipped_scenario_starts_whatever_python_comes_first(tmp_path: Path) -> None:
    """The runner (agentbeats-tutorial run_scenario.py) puts its own venv's bin first on PATH
    and starts each `cmd` with shlex.split; its python has a2a-sdk 0.3. A `python` that cannot
    run a2abench stands in for it: the scenario's commands must not need it."""
    scenario = tomllib.loads((ROOT / "examples/agentbeats/scenario.toml").read_text())
    runner_bin = tmp_path / "runner-venv-bin"
    runner_bin.mkdir()
    for name in ("python", "python3"):
        fake = runner_bin / name
        fake.write_text("#!/bin/sh\necho 'ModuleNotFoundError: a2a.helpers' >&2\nexit 1\n")
        fake.chmod(0o755)
    env = {**os.environ, "A2ABENCH_OUTPUT_DIR": str(tmp_path / "runs"),
           "PATH": os.pathsep.join([str(runner_bin), str(Path(sys.executable).parent),
                                    os.environ["PATH"]])}
    procs, urls = [], []
    try:
        for entry in [scenario["green_agent"], *scenario["participants"]]:
            old = entry["endpoint"].rsplit(":", 1)[1]
            port = str(free_port())  # the scenario's fixed ports may be taken on this machine
            args = [port if a == old else a for a in shlex.split(entry["cmd"])]
            assert not args[0].startswith("python"), entry["cmd"]
            procs.append(subprocess.Popen(args, env=env, text=True, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, start_new_session=True))
            urls.append(entry["endpoint"].replace(":" + old, ":" + port))
        for proc, url in zip(procs, urls, strict=True):
            assert wait_for_card(url, proc)["name"]
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, 2)
                proc.wait(timeout=HANG_S)
            if proc.stdout is not None:
                proc.stdout.close()


def test_the_readme_quotes_the_docs_run_sh() -> None:
    """The README's one-line run.sh is the docs' recipe (the one the test above runs)."""
    readme = " ".join((ROOT / "README.md").read_text().split())
    exec_line = next(line for line in run_sh_recipe().splitlines() if line.startswith("exec "))
    assert f"`run.sh`: `{exec_line}`" in readme and "--no-grpc" in exec_line
