"""Cancel, concurrent and queued assessments, shutdown, auth and the request-size limit."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.client.client import Client
from a2a.helpers import get_text_parts
from a2a.types import SendMessageConfiguration, SendMessageRequest
from pydantic import SecretStr

from a2abench.green import GreenSettings
from tests.agents import LegacyAgent
from tests.green.helpers import (
    STATE,
    Outcome,
    agentbeats,
    cancel,
    green_server,
    metrics_of,
    request_message,
    result_of,
    sdk_client,
    send,
)
from tests.servers import serve
from tests.waits import HANG_S


def run_records(path: str | Path) -> dict[str, dict[str, Any]]:
    recs = [json.loads(x) for x in Path(path).read_text().splitlines()]
    return {r["type"]: r for r in recs if r["type"] in ("run", "run_end")}


async def until(condition: Callable[[], Any]) -> None:
    """Poll `condition` until it holds (a hang bound, not a speed)."""
    deadline = time.monotonic() + HANG_S
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.01)


def _finished(text: str) -> int:
    """The task-trials a progress line ("3/40 ...") says are done; -1 for any other text."""
    match = re.match(r"(\d+)/\d+", text)
    return int(match.group(1)) if match else -1


async def until_running(client: Client, payload: str, done: int = 1) -> tuple[str, Outcome]:
    """Start a streamed assessment and return once `done` task-trials have finished."""
    request = SendMessageRequest(message=request_message(payload),
                                 configuration=SendMessageConfiguration())
    outcome = Outcome()
    stream = client.send_message(request)
    async with asyncio.timeout(HANG_S):  # a guard against a hang, not a speed
        return await _first_progress(stream, outcome, done)


async def _first_progress(stream: Any, outcome: Outcome, done: int) -> tuple[str, Outcome]:
    async for event in stream:
        kind = event.WhichOneof("payload")
        value = getattr(event, kind)
        outcome.events.append((kind, value))
        if kind == "status_update" and any(  # progress is coalesced: "2/40" may skip "1/40"
                _finished(t) >= done for t in get_text_parts(value.status.message.parts)):
            await stream.aclose()
            return value.task_id, outcome
    raise AssertionError(f"the assessment ended early: {outcome.kinds}")


async def test_cancel_stops_the_run_and_returns_what_finished(settings: GreenSettings,
                                                              held_white: str) -> None:
    with green_server(settings) as (base, _):
        async with sdk_client(base) as client:
            task_id, _ = await until_running(client, agentbeats(
                held_white, benchmark="scripted", tasks=40, turns=1, concurrency=1), done=2)
            canceled = await cancel(client, task_id)
            assert canceled.status.state == STATE.TASK_STATE_CANCELED
            assert "canceled; the results of the task-trials that finished" in \
                "".join(get_text_parts(canceled.status.message.parts))
            _, data = result_of(canceled)
            assert data["status"] == "interrupted"
            assert 2 <= data["summary"]["task_trials"] < 40
            assert data["summary"]["total_passed"] == data["summary"]["task_trials"]
            again = await cancel_error(client, task_id)
    assert again == "Task cannot be canceled"
    records = run_records(metrics_of(settings.output_dir, canceled))
    assert records["run_end"]["status"] == "interrupted"


async def cancel_error(client: Client, task_id: str) -> str:
    try:
        await cancel(client, task_id)
    except Exception as exc:  # the SDK raises its A2AError subclass
        return str(exc)
    raise AssertionError("a second cancel of a finished task succeeded")


async def test_busy_server_rejects_extra_assessments_when_no_queue(
        tmp_path: Path, held_white: str, white: str) -> None:
    settings = GreenSettings(output_dir=tmp_path, max_concurrent_assessments=1,
                             max_queued_assessments=0)
    with green_server(settings) as (base, green):
        async with sdk_client(base) as client:
            first, _ = await until_running(client, agentbeats(
                held_white, benchmark="scripted", tasks=40, turns=1, concurrency=1))
            second = await send(client, agentbeats(white, benchmark="scripted", tasks=1))
            assert second.state == STATE.TASK_STATE_REJECTED
            assert second.final_text().startswith(
                "this server already runs 1 assessment(s) (its limit, "
                "--max-concurrent-assessments 1) and 0 wait (--max-queued-assessments 0)")
            await cancel(client, first)
            assert green.executor.admission.running == 0
            third = await send(client, agentbeats(white, benchmark="scripted", tasks=1))
    assert third.state == STATE.TASK_STATE_COMPLETED


async def test_queued_assessment_runs_when_the_slot_frees(tmp_path: Path, white: str) -> None:
    settings = GreenSettings(output_dir=tmp_path, max_concurrent_assessments=1,
                             max_queued_assessments=1)
    agents: list[LegacyAgent] = []

    def held(base: str) -> Any:  # answers one request, then holds until released
        agents.append(LegacyAgent(base))
        agents[0].hold_after = 1
        return agents[0].app()

    with serve(held) as held_white, green_server(settings) as (base, green):
        async with sdk_client(base) as client:
            first = asyncio.create_task(send(client, agentbeats(
                held_white, benchmark="scripted", tasks=6, turns=1, concurrency=1)))
            await until(lambda: green.executor.admission.running)
            second_task = asyncio.create_task(send(client, agentbeats(
                white, benchmark="scripted", tasks=1)))
            # The first holds its slot until the second waits in line: an event, not a
            # race with the first's speed (issue 35).
            await until(lambda: green.executor.admission.waiting)
            agents[0].hold_after = None
            first_out, second = await first, await second_task
    assert first_out.state == second.state == STATE.TASK_STATE_COMPLETED
    assert second.status_texts()[0] == "queued: position 1 in line; 1 assessment(s) running"
    a = run_records(metrics_of(settings.output_dir, first_out.task))  # type: ignore[arg-type]
    b = run_records(metrics_of(settings.output_dir, second.task))  # type: ignore[arg-type]
    assert a["run_end"]["finished_at"] <= b["run"]["started_at"]


async def test_cancel_while_queued(tmp_path: Path, held_white: str, white: str) -> None:
    settings = GreenSettings(output_dir=tmp_path, max_concurrent_assessments=1,
                             max_queued_assessments=1)
    with green_server(settings) as (base, green):
        async with sdk_client(base) as client:
            first, _ = await until_running(client, agentbeats(
                held_white, benchmark="scripted", tasks=40, turns=1, concurrency=1))
            request = SendMessageRequest(message=request_message(
                agentbeats(white, benchmark="scripted")), configuration=SendMessageConfiguration(
                return_immediately=True))
            async with sdk_client(base, streaming=False) as blocking:
                events = [e async for e in blocking.send_message(request)]
            queued = events[0].task
            assert queued.status.state == STATE.TASK_STATE_SUBMITTED
            await until(lambda: green.executor.admission.waiting)
            canceled = await cancel(client, queued.id)
            assert canceled.status.state == STATE.TASK_STATE_CANCELED
            assert "canceled before it started" in "".join(
                get_text_parts(canceled.status.message.parts))
            assert not canceled.artifacts and green.executor.admission.waiting == 0
            await cancel(client, first)


async def test_parallel_assessments_overlap(tmp_path: Path, slow_white: str) -> None:
    settings = GreenSettings(output_dir=tmp_path, max_concurrent_assessments=2)
    with green_server(settings) as (base, _):
        async with sdk_client(base) as client:
            outs = await asyncio.gather(*[send(client, agentbeats(
                slow_white, benchmark="scripted", tasks=5, turns=1, concurrency=1))
                for _ in range(2)])
    a, b = (run_records(metrics_of(settings.output_dir, o.task)) for o in outs)  # type: ignore[arg-type]
    assert all(o.state == STATE.TASK_STATE_COMPLETED for o in outs)
    assert b["run"]["started_at"] < a["run_end"]["finished_at"]
    assert a["run"]["started_at"] < b["run_end"]["finished_at"]


async def test_server_shutdown_ends_running_assessments_keeping_results(
        tmp_path: Path, held_white: str) -> None:
    settings = GreenSettings(output_dir=tmp_path)
    with green_server(settings) as (base, _):
        async with sdk_client(base) as client:
            await until_running(client, agentbeats(held_white, benchmark="scripted", tasks=40,
                                                   turns=1, concurrency=1))
    (metrics,) = tmp_path.glob("*/metrics.jsonl")
    assert run_records(metrics)["run_end"]["status"] == "interrupted"


async def test_auth_token_is_required_except_for_the_card(tmp_path: Path, white: str) -> None:
    settings = GreenSettings(output_dir=tmp_path, auth_token=SecretStr("s3cret"))
    with green_server(settings) as (base, _):
        card = httpx.get(base + "/.well-known/agent-card.json").json()
        bearer = card["securitySchemes"]["bearer"]
        assert bearer["httpAuthSecurityScheme"]["scheme"] == "Bearer"  # 1.0 shape
        assert (bearer["type"], bearer["scheme"]) == ("http", "Bearer")  # 0.3 shape, by the SDK
        assert card["securityRequirements"] == [{"schemes": {"bearer": {}}}]
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
            r = httpx.post(base + "/", json={"jsonrpc": "2.0", "id": 1, "method": "GetTask",
                                             "params": {"id": "x"}}, headers=headers)
            assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
            assert "bearer token" in r.json()["error"]["message"]
        with pytest.raises(Exception, match="401"):
            async with sdk_client(base) as client:
                await send(client, agentbeats(white, benchmark="scripted"))
        async with sdk_client(base, token="s3cret") as client:
            out = await send(client, agentbeats(white, benchmark="scripted", tasks=1))
    assert out.state == STATE.TASK_STATE_COMPLETED


@pytest.mark.parametrize("chunked", [False, True])
def test_request_size_limit(tmp_path: Path, chunked: bool) -> None:
    settings = GreenSettings(output_dir=tmp_path, max_request_bytes=10_000)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
        "message": {"role": "ROLE_USER", "messageId": "m", "parts": [{"text": "x" * 20_000}]}}})
    content: Any = iter([body[:5000].encode(), body[5000:].encode()]) if chunked else body
    with green_server(settings) as (base, _):
        r = httpx.post(base + "/", content=content, headers={
            "A2A-Version": "1.0", "Content-Type": "application/json"})
        small = httpx.post(base + "/", headers={"A2A-Version": "1.0"}, json={
            "jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}})
    assert r.status_code == 413 and "larger than 10000 bytes" in r.json()["error"]["message"]
    assert small.status_code == 200


async def test_progress_updates_are_coalesced(tmp_path: Path, slow_white: str) -> None:
    # An interval longer than any run here: the whole run is one window, whatever the
    # machine's speed (0.35 s windows gave 7 updates on a loaded machine, issue 35).
    settings = GreenSettings(output_dir=tmp_path, progress_interval_s=600)
    with green_server(settings) as (base, _):
        async with sdk_client(base) as client:
            out = await send(client, agentbeats(slow_white, benchmark="scripted", tasks=12,
                                                turns=1, concurrency=1))
    progress = [t for t in out.status_texts() if " done, pass rate " in t]
    # The first is not held back, the last is always sent, the ten between are coalesced.
    assert progress == ["1/12 done, pass rate 100.0%", "12/12 done, pass rate 100.0%"]
