"""serve-green over loopback: an a2a-sdk client -> the green server -> a white agent, with the
scripted benchmark (each task-trial echoes N turns) standing in for tau2 and CRMArena."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from a2a.helpers import get_data_parts
from pydantic import BaseModel

from a2abench.errors import DataMissing
from a2abench.green import ACCEPTED_FORMATS, GreenSettings
from a2abench.run.registry import register, unregister
from tests.engine.scripted import ScriptedDriver
from tests.green.helpers import (
    STATE,
    agentbeats,
    green_server,
    metrics_of,
    result_of,
    sdk_client,
    send,
)
from tests.servers import free_port


@pytest.fixture(scope="module")
def shared_green(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """serve-green's defaults, shared by the cases no assessment runs in (refused requests,
    the card): one server for them all, not one each."""
    settings = GreenSettings(output_dir=tmp_path_factory.mktemp("shared-green") / "runs",
                             progress_interval_s=0)
    with green_server(settings) as (base, _):
        yield base


def records(path: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


async def test_streamed_assessment_reports_progress_then_the_result(
        settings: GreenSettings, white: str) -> None:
    with green_server(settings) as (base, _):
        async with sdk_client(base) as client:
            out = await send(client, agentbeats(white, benchmark="scripted", tasks=4, turns=2,
                                                concurrency=1))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    assert out.kinds[0] == "task" and out.kinds[-2:] == ["artifact_update", "status_update"]
    texts = out.status_texts()
    assert texts[0].startswith("starting the scripted assessment of " + white)
    assert texts[1].startswith("running 4 task-trial(s) of scripted (scripted) against echo")
    # One update per task-trial unless several finish within one fsync of the record writer:
    # then the newest wins (interval 0 here). Never out of order, never the last one dropped.
    updates = [t for t in texts[2:] if " done, pass rate " in t]
    assert updates[-1] == "4/4 done, pass rate 100.0%"
    assert updates == sorted(set(updates))
    assert set(updates) <= {f"{i}/4 done, pass rate 100.0%" for i in range(1, 5)}
    progress = get_data_parts(out.events[-3][1].status.message.parts)  # the last progress
    assert progress == [{"done": 4, "total": 4, "passed": 4, "failed": 0, "scored": 4,
                         "pass_rate": 1.0, "mean_reward": 1.0, "agent_errors": 0,
                         "evaluator_errors": 0, "infra_errors": 0, "harness_errors": 0,
                         "unscored": 0}]
    text, data = result_of(out.task)  # type: ignore[arg-type]
    assert text.startswith(f"scripted (scripted) against {white}: completed. 4/4 passed "
                           "over 4 task-trials (4 tasks × 1 trial); pass rate 100.0%, "
                           "score 1.0000.")
    assert data["summary"] == {**data["summary"], "pass_rate": 1.0, "score": 1.0,
                               "total_tasks": 4, "total_passed": 4, "task_trials": 4}
    assert data["by_category"] == {
        "cat0": {"count": 2, "passed": 2, "pass_rate": 1.0, "mean_reward": 1.0},
        "cat1": {"count": 1, "passed": 1, "pass_rate": 1.0, "mean_reward": 1.0},
        "cat2": {"count": 1, "passed": 1, "pass_rate": 1.0, "mean_reward": 1.0}}
    assert data["pass_k"] == {"1": 1.0}
    assert data["tasks"] == {"t000": 1.0, "t001": 1.0, "t002": 1.0, "t003": 1.0}
    assert data["participant"] == "agent" and data["participants"] == ["agent"]
    assert white not in json.dumps(data) and data["status"] == "completed"
    assert data["config"] == {"options": {"tasks": 4, "turns": 2}, "task_ids": None,
                              "max_tasks": None, "num_trials": 1, "seed": 300}
    assert data["shard"] == {"index": 0, "count": 1} and data["time_used"] > 0
    assert data["pass_rate_pct"] == 100.0 and data["task_rewards"] == data["tasks"]
    assert [(r["task_id"], r["trial"], r["reward"], r["success"]) for r in
            data["task_results"]] == [(f"t00{i}", 0, 1.0, True) for i in range(4)]
    assert data["version"] and data["timestamp"].endswith("+00:00")
    assert "metrics_path" not in data
    metrics = metrics_of(settings.output_dir, out.task)  # type: ignore[arg-type]
    kinds = [r["type"] for r in records(metrics)]
    assert kinds[0] == "run" and kinds[-1] == "run_end" and kinds.count("task") == 4


async def test_blocking_client_gets_the_completed_task(settings: GreenSettings,
                                                       white: str) -> None:
    with green_server(settings) as (base, _):
        async with sdk_client(base, streaming=False) as client:
            out = await send(client, {"participants": {"agent": white},
                                      "config": {"benchmark": "scripted", "tasks": 2}})
    assert out.kinds == ["task"] and out.state == STATE.TASK_STATE_COMPLETED
    assert result_of(out.task)[1]["summary"]["total_tasks"] == 2  # type: ignore[arg-type]


def test_a2a_03_client_on_the_same_endpoint(settings: GreenSettings, white: str) -> None:
    """The AgentBeats client speaks 0.3: no A2A-Version header, `kind` everywhere."""
    with green_server(settings) as (base, _):
        legacy = httpx.get(base + "/.well-known/agent.json").json()
        assert legacy["url"] == base + "/" and legacy["protocolVersion"] == "0.3"
        body = {"jsonrpc": "2.0", "id": 7, "method": "message/send", "params": {"message": {
            "kind": "message", "role": "user", "messageId": "m-1", "parts": [
                {"kind": "text", "text": agentbeats(white, benchmark="scripted", tasks=1)}]}}}
        task = httpx.post(legacy["url"], json=body, timeout=30).json()["result"]
    assert task["kind"] == "task" and task["status"]["state"] == "completed"
    parts = task["artifacts"][0]["parts"]
    assert [p["kind"] for p in parts] == ["text", "text"]
    result = json.loads(parts[1]["text"])
    assert result["summary"]["pass_rate"] == 1.0
    assert "total_tasks\":1," in parts[1]["text"]  # an integer, not 1.0


@pytest.mark.parametrize("path", ["/a2a", "/a2a/"])
def test_rpc_path_answers_with_and_without_trailing_slash(settings: GreenSettings,
                                                          path: str) -> None:
    with green_server(settings, path="/a2a") as (base, green):
        assert green.url == base + "/a2a"
        r = httpx.post(base + path, headers={"A2A-Version": "1.0"}, json={
            "jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "nope"}})
    assert r.status_code == 200 and r.json()["error"]["code"] == -32001


@pytest.mark.parametrize(("payload", "problem"), [
    ("please assess my agent", "the text is not a JSON object"),
    ('{"participants": {"agent": 3}}', "`participants` must map roles to agent URLs"),
    ('{"hello": 1}', "neither `participants` (AgentBeats) nor `white_agent_url`"),
    ({"participants": {"agent": "http://x"}, "config": {"benchmark": "chess"}},
     "unknown benchmark 'chess'"),
    ({"participants": {"agent": "http://x"}, "config": {"benchmark": "scripted", "tasks": "a"}},
     "invalid scripted options: tasks"),
    ({"participants": {"agent": "http://x"}, "config": {"benchmark": "scripted", "colour": 1}},
     "unknown config key(s) for scripted: colour"),
    ({"participants": {"agent": "http://x"}, "config": {"benchmark": "scripted",
                                                        "api_key": "sk-1"}},
     "config keys that look like secrets are refused: api_key"),
    ({"participants": {"agent": "ftp://x"}, "config": {"benchmark": "scripted"}},
     "is not an http(s) URL"),
    ("<white_agent_url>http://x</white_agent_url><env_config>{oops</env_config>",
     "<env_config> is not valid JSON"),
])
async def test_an_invalid_request_is_rejected_with_the_accepted_formats(
        shared_green: str, payload: str | dict[str, object], problem: str) -> None:
    async with sdk_client(shared_green) as client:
        out = await send(client, payload)
    assert out.state == STATE.TASK_STATE_REJECTED
    text = out.final_text()
    assert problem in text and all(fmt in text for fmt in ACCEPTED_FORMATS)
    details = get_data_parts(out.task.status.message.parts)[0]  # type: ignore[union-attr]
    assert problem in details["error"] and details["accepted_formats"] == list(ACCEPTED_FORMATS)


async def test_white_agent_hosts_are_restricted(tmp_path: Path, white: str) -> None:
    settings = GreenSettings(output_dir=tmp_path, allow_hosts=("agents.internal",))
    with green_server(settings) as (base, _):
        async with sdk_client(base) as client:
            out = await send(client, agentbeats(white, benchmark="scripted"))
    assert out.state == STATE.TASK_STATE_REJECTED
    assert "not on this server's allowed hosts (serve-green --allow-host)" in out.final_text()
    assert not tmp_path.joinpath("runs").exists()


async def test_allowed_hosts_bind_the_interfaces_an_agent_advertises(tmp_path: Path,
                                                                    white: str) -> None:
    from tests.agents import LegacyAgent
    from tests.servers import serve

    def pointing(base: str) -> object:  # an allowed host whose card sends us elsewhere
        agent = LegacyAgent(base)
        agent.card = lambda: {**LegacyAgent(base).card(), "url": white + "/a2a"}  # type: ignore[method-assign]
        return agent.app()

    with serve(pointing) as decoy:
        settings = GreenSettings(output_dir=tmp_path, progress_interval_s=0,
                                 allow_hosts=(decoy.removeprefix("http://"),))
        with green_server(settings) as (base, _):
            async with sdk_client(base) as client:
                out = await send(client, agentbeats(decoy, benchmark="scripted",
                                                    max_tasks=2))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    data = result_of(out.task)[1]  # type: ignore[arg-type]
    assert data["summary"]["pass_rate"] == 0.0  # nothing reached the other host
    records = [json.loads(line) for path in tmp_path.rglob("metrics.jsonl")
               for line in path.read_text().splitlines()]
    errors = {r["error"]["error"] for r in records if r["type"] == "task"}
    assert errors == {"HostNotAllowed"}


async def test_an_unreachable_agent_fails_the_task(settings: GreenSettings) -> None:
    agent = f"http://127.0.0.1:{free_port()}"
    with green_server(settings) as (base, _):
        async with sdk_client(base) as client:
            out = await send(client, agentbeats(agent, benchmark="scripted"))
    assert out.state == STATE.TASK_STATE_FAILED
    assert out.final_text().startswith(f"the assessment failed: cannot connect to {agent}")
    assert not any(a.name == "Result" for a in out.task.artifacts)  # type: ignore[union-attr]


async def test_a_second_message_to_a_finished_assessment_is_an_error(
        settings: GreenSettings, white: str) -> None:
    with green_server(settings) as (base, _):
        async with sdk_client(base, streaming=False) as client:
            first = await send(client, agentbeats(white, benchmark="scripted", tasks=1))
            assert first.task is not None
            r = httpx.post(base + "/", headers={"A2A-Version": "1.0"}, json={
                "jsonrpc": "2.0", "id": 2, "method": "SendMessage", "params": {"message": {
                    "role": "ROLE_USER", "messageId": "m2", "taskId": first.task.id,
                    "parts": [{"text": "again"}]}}})
    assert r.json()["error"]["code"] == -32004  # UnsupportedOperation: terminal task


def test_card_caching_headers(shared_green: str) -> None:
    first = httpx.get(shared_green + "/.well-known/agent-card.json")
    again = httpx.get(shared_green + "/.well-known/agent-card.json",
                      headers={"If-None-Match": first.headers["etag"]})
    assert first.headers["cache-control"] == "public, max-age=300"
    assert first.headers["last-modified"].endswith(" GMT")
    assert again.status_code == 304 and again.headers["last-modified"]


class _Broken(ScriptedDriver):
    """A plug-in benchmark with a bug in its constructor."""

    def __init__(self, options: BaseModel) -> None:
        raise RuntimeError("boom")


class _NoData(ScriptedDriver):
    async def setup(self) -> None:
        raise DataMissing("the tasks file is gone", hint="Download it again.")


@pytest.mark.parametrize(("driver", "state", "text"), [
    (_Broken, STATE.TASK_STATE_FAILED, "internal error: RuntimeError: boom"),
    (_NoData, STATE.TASK_STATE_FAILED,
     "the assessment cannot start: the tasks file is gone. Download it again."),
])
async def test_benchmark_failures_fail_the_task_with_the_reason(
        settings: GreenSettings, white: str, driver: type[ScriptedDriver], state: int,
        text: str) -> None:
    register("odd", driver)
    try:
        with green_server(settings) as (base, _):
            async with sdk_client(base) as client:
                out = await send(client, agentbeats(white, benchmark="odd"))
    finally:
        unregister("odd")
    assert out.state == state and out.final_text() == text


def test_a2a_03_streaming_as_the_agentbeats_client_sees_it(settings: GreenSettings,
                                                           white: str) -> None:
    body = {"jsonrpc": "2.0", "id": 3, "method": "message/stream", "params": {"message": {
        "kind": "message", "role": "user", "messageId": "m-3", "parts": [
            {"kind": "data", "data": {"participants": {"agent": white},
                                      "config": {"benchmark": "scripted", "tasks": 2}}}]}}}
    with green_server(settings) as (base, _), httpx.stream(
            "POST", base + "/", json=body, headers={"Accept": "text/event-stream"},
            timeout=30) as response:
        events = [json.loads(line[5:])["result"] for line in response.iter_lines()
                  if line.startswith("data:")]
    assert events[0]["kind"] == "task" and events[0]["status"]["state"] == "submitted"
    kinds = [(e["kind"], e.get("status", {}).get("state"), e.get("final")) for e in events]
    assert kinds[-2:] == [("artifact-update", None, None), ("status-update", "completed", True)]
    assert ("status-update", "working", False) in kinds
    artifact = events[-2]["artifact"]
    assert artifact["name"] == "Result"
    result = json.loads(artifact["parts"][1]["text"])
    assert result["summary"]["total_tasks"] == 2 and type(result["summary"]["total_tasks"]) is int


@pytest.mark.parametrize("payload", [
    '{{"white_agent_url": "{agent}", "benchmark": "scripted", "max_tasks": 2}}',
    "<white_agent_url>{agent}</white_agent_url><env_config>"
    '{{"benchmark": "scripted", "task_ids": ["t001", "t003"]}}</env_config>',
])
async def test_seed_and_agentify_formats_end_to_end(settings: GreenSettings, white: str,
                                                    payload: str) -> None:
    """Both formats name their benchmark implicitly; `benchmark` overrides it for the test."""
    with green_server(settings) as (base, _):
        async with sdk_client(base) as client:
            out = await send(client, payload.format(agent=white))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    data = result_of(out.task)[1]  # type: ignore[arg-type]
    assert data["summary"]["task_trials"] == 2 and data["participant"] == "agent"
