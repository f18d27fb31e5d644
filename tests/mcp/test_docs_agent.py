"""The ~30-line MCP-native agent of docs/mcp.md works: served with a2a-sdk, it passes a tau2
mock task over `--tool-channel mcp`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.run.config import trial_seed
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.servers import serve

DOC = Path(__file__).parents[2] / "docs" / "mcp.md"
TASK = "create_task_1"


def doc_agent() -> type:
    (code,) = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(code.splitlines()) <= 40
    namespace: dict[str, Any] = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    return namespace["McpAgent"]  # type: ignore[no-any-return]


def app(base: str, executor: Any) -> Any:
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore
    from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
    from starlette.applications import Starlette

    card = AgentCard(name="doc", description="d", version="1", default_input_modes=["text/plain"],
                     default_output_modes=["text/plain"], capabilities=AgentCapabilities(),
                     skills=[AgentSkill(id="s", name="s", description="s", tags=["mcp"])],
                     supported_interfaces=[AgentInterface(url=base + "/a2a",
                                                          protocol_binding="JSONRPC",
                                                          protocol_version="1.0")])
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(),
                                    agent_card=card)
    return Starlette(routes=[*create_agent_card_routes(card),
                             *create_jsonrpc_routes(handler, rpc_url="/a2a")])


@pytest.mark.slow
def test_the_documented_agent_passes_a_task(tmp_path: Path) -> None:
    data_dir = shared_data("tau2").parent
    (task,) = load_domain("mock", data_dir=data_dir).tasks(task_ids=[TASK])
    gold = task.evaluation_criteria.actions[0]  # type: ignore[union-attr,index]
    seed = trial_seed(300, TASK, 0)

    def user(body: dict[str, Any]) -> dict[str, Any]:
        assert body["seed"] == seed
        said = [m for m in body["messages"] if m["role"] == "assistant"]
        return completion("###STOP###" if said else "Please create my task.")

    def decide(text: str, tools: list[Any]) -> list[tuple[str, dict[str, Any]]]:
        assert gold.name in {t.name for t in tools}
        return [(gold.name, gold.arguments)]

    out = tmp_path / "doc.jsonl"
    users = FakeLLMServer(handler=user)
    with users.running(), serve(lambda base: app(base, doc_agent()(decide))) as base:
        r = run_cli("run", "tau2", "--white-agent-url", base, "--domain", "mock",
                    "--task-ids", TASK, "--data-dir", str(data_dir), "--user-llm", "u",
                    "--user-llm-base-url", users.base_url, "--output", str(out),
                    "--tool-channel", "mcp")
    assert r.code == 0, r.err
    (rec,) = [json.loads(x) for x in out.read_text().splitlines() if '"type":"task"' in x]
    assert rec["reward"] == 1.0 and rec["details"]["mcp_calls"]
