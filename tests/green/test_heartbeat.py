"""Heartbeats: a streaming client with a read timeout shorter than one task-trial (AgentBeats'
gateway gives up after 300 s of silence) still sees the assessment through, because
serve-green says something every --heartbeat seconds."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator

import httpx
import pytest
from a2a.helpers import get_data_parts

from a2abench.green import GreenSettings
from tests.agents import LegacyAgent
from tests.green.helpers import (
    STATE,
    Outcome,
    agentbeats,
    green_server,
    result_of,
    sdk_client,
    send,
)
from tests.servers import serve

TRIAL_S = 3.0  # one task-trial: one turn the agent answers after this long
CLIENT_TIMEOUT_S = 1.5  # shorter than a task-trial


@pytest.fixture(scope="module")
def sluggish() -> Iterator[str]:
    with serve(lambda base: LegacyAgent(base, delay=TRIAL_S).app()) as base:
        yield base


async def _assess(base: str, agent: str) -> Outcome:
    async with sdk_client(base, timeout=CLIENT_TIMEOUT_S) as client:
        return await send(client, agentbeats(agent, benchmark="scripted", tasks=1, turns=1))


@pytest.mark.slow
async def test_heartbeats_keep_a_short_timeout_client_alive(settings: GreenSettings,
                                                            sluggish: str) -> None:
    """With the control at the same time, each on a server of its own: without heartbeats
    the same client times out (the silence really is longer than its timeout)."""
    with green_server(dataclasses.replace(settings, heartbeat_s=0.5)) as (beating, _), \
            green_server(dataclasses.replace(settings, heartbeat_s=0)) as (silent, _):
        out, control = await asyncio.gather(_assess(beating, sluggish),
                                            _assess(silent, sluggish), return_exceptions=True)
    assert isinstance(control, BaseException), control  # the control failed, and by timing out
    assert isinstance(control, httpx.ReadTimeout) or "timeout" in repr(control).lower(), control
    assert isinstance(out, Outcome), out
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    beats = [ev for kind, ev in out.events if kind == "status_update"
             and "heartbeat" in "".join(p.text for p in ev.status.message.parts)]
    assert len(beats) >= 2
    assert get_data_parts(beats[0].status.message.parts)[0] == {
        "done": 0, "total": 1, "heartbeat": True}
    assert result_of(out.task)[1]["summary"]["task_trials"] == 1  # type: ignore[arg-type]


def test_the_flag_and_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.clihelp import run_cli

    captured: list[GreenSettings] = []
    monkeypatch.setattr("a2abench.green.serve", lambda settings, **_: captured.append(settings))
    assert run_cli("serve-green").code == 0 and captured[-1].heartbeat_s == 30
    monkeypatch.setenv("A2ABENCH_HEARTBEAT", "5")
    assert run_cli("serve-green").code == 0 and captured[-1].heartbeat_s == 5
    assert run_cli("serve-green", "--heartbeat", "0").code == 0 and captured[-1].heartbeat_s == 0
    refused = run_cli("serve-green", "--heartbeat", "-1")
    assert refused.code == 2 and "--heartbeat" in refused.err
