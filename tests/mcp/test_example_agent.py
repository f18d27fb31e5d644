"""`a2abench-example-agent mcp`: the LLM-driven agent maps MCP tools to chat-completions
tools and back; the scripted one plays the demo over MCP with the A2A channel's scores;
`discover` notes a card's MCP client support."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.demo import mcp_agent
from a2abench.run.config import trial_seed
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.mcp.demo_run import demo
from tests.servers import serve

TASK = "create_task_1"


@pytest.mark.slow
def test_the_llm_agent_calls_mcp_tools_the_model_picks(tmp_path: Path) -> None:
    data_dir = shared_data("tau2").parent
    domain = load_domain("mock", data_dir=data_dir)
    (task,) = domain.tasks(task_ids=[TASK])
    gold = task.evaluation_criteria.actions[0]  # type: ignore[union-attr,index]
    seed = trial_seed(300, TASK, 0)

    def user(body: dict[str, Any]) -> dict[str, Any]:
        assert body["seed"] == seed
        said = [m for m in body["messages"] if m["role"] == "assistant"]
        return completion("###STOP###" if said else f"Please {gold.name} for me.")

    def model(body: dict[str, Any]) -> dict[str, Any]:
        tools = {t["function"]["name"]: t["function"] for t in body.get("tools") or []}
        assert set(tools) == {s["function"]["name"] for s in domain.agent_tool_schemas()}
        assert tools[gold.name]["parameters"] == next(
            s["function"]["parameters"] for s in domain.agent_tool_schemas()
            if s["function"]["name"] == gold.name)
        if body["messages"][-1]["role"] == "tool":
            return completion("Done: " + body["messages"][-1]["content"])
        return completion(None, [{"name": gold.name, "arguments": gold.arguments}])

    users, models = FakeLLMServer(handler=user), FakeLLMServer(handler=model)
    out = tmp_path / "llm.jsonl"
    with users.running(), models.running():
        llm = _llm(models.base_url)
        with serve(lambda base: mcp_agent.build_app(base, mcp_agent.LLMBrain(llm))) as base:
            r = run_cli("run", "tau2", "--white-agent-url", base, "--domain", "mock",
                        "--task-ids", TASK, "--data-dir", str(data_dir), "--user-llm", "u",
                        "--user-llm-base-url", users.base_url, "--output", str(out),
                        "--tool-channel", "mcp")
    assert r.code == 0, r.err
    (rec,) = [json.loads(x) for x in out.read_text().splitlines() if '"type":"task"' in x]
    assert rec["reward"] == 1.0
    calls = [m for m in rec["transcript"] if m.get("tool_calls")]
    assert [c["tool_calls"][0]["name"] for c in calls] == [gold.name]
    result = rec["transcript"][rec["details"]["mcp_calls"][0] + 1]["content"]
    said = [m["content"] for m in rec["transcript"] if m["role"] == "assistant"]
    assert said[-1] == "Done: " + result  # the model saw the MCP result as a tool message


def _llm(base_url: str) -> Any:
    from a2abench.llm import build_llm

    return build_llm("fake-model", base_url=base_url, args={}, cache=False, flag="--model")


@pytest.mark.slow
# Known, not yet fixed: now and then an `mcp` SDK client socket (httpx2, in the example agent's
# thread) is garbage-collected unclosed after a turn, probably its GET-stream retry after our
# 405 cancelled mid-connect; it is not a2abench's endpoint and does not touch the scores.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_the_demo_over_mcp_scores_as_over_a2a(tmp_path_factory: pytest.TempPathFactory
                                              ) -> None:
    # The session's demos (the one over MCP is test_viewer_mcp's too).
    a2a, mcp = demo(tmp_path_factory, "a2a"), demo(tmp_path_factory, "mcp")
    scores = {channel: [(d["benchmark"], d["score"], sorted(f["task_id"] for f in d["failed"]))
                        for d in map(json.loads, (out / "stdout.jsonl").read_text().splitlines())
                        if d.get("kind") == "report"]
              for channel, out in (("a2a", a2a), ("mcp", mcp))}
    assert scores["mcp"] == scores["a2a"]
    assert [s[0] for s in scores["mcp"]] == ["tau2", "crmarena"]
    run = json.loads((mcp / "tau2" / "metrics.jsonl").read_text().splitlines()[0])
    assert run["tool_channel"] == "mcp" and run["data"]["mcp_url"].endswith("/mcp")
    report = run_cli("report", str(mcp / "tau2" / "metrics.jsonl"))
    assert "tools over MCP" in report.out
    gc.collect()  # such a socket is collected here, under this test's filter, not in a later one


def test_discover_notes_mcp_client_support() -> None:
    with serve(lambda base: mcp_agent.build_app(base, mcp_agent.ScriptedBrain())) as base:
        r = run_cli("discover", base, "--json", "--no-probe")
    assert r.code == 0, r.err
    findings = {f["code"]: f for f in r.json()["findings"]}
    assert findings["mcp-client"]["severity"] == "info"
    assert "skill 'mcp-tools' tagged mcp" in findings["mcp-client"]["message"]


def test_mcp_support_comes_from_an_extension_or_a_tag_and_is_never_required() -> None:
    from a2abench.a2a.models import AgentCard
    from a2abench.discover import mcp_client_support

    def card(**extra: Any) -> AgentCard:
        return AgentCard.model_validate({"name": "a", "description": "d", "version": "1",
                                         "dialect": "1.0",
                                         "skills": [], **extra})

    assert mcp_client_support(card()) is None
    assert mcp_client_support(card(capabilities={"extensions": [
        {"uri": "https://example.org/ext/mcp-tools/v1"}]})) == \
        "extension https://example.org/ext/mcp-tools/v1"
    assert mcp_client_support(card(capabilities={"extensions": [
        {"uri": "https://example.org/ext/mcpx"}]})) is None
    assert mcp_client_support(card(skills=[{"id": "s", "name": "S", "tags": ["MCP"]}])) == \
        "skill 's' tagged mcp"


def test_the_llm_agent_without_a_key_is_one_clear_error(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    from a2abench.demo.example_agent import main

    with pytest.raises(SystemExit) as exit_:
        main(["mcp", "--model", "gpt-4.1"])
    assert exit_.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("Error: --model gpt-4.1 needs an API key")
