"""`--concurrency N` puts N conversations in flight from the first call (issue 39).

The agent holds every turn until N conversations have reached it: if a2abench let one call
decide something before the others start (as it once did, to see whether the interface
redirects), the run would wait for the task-trial deadline instead. No timing is measured:
the deadline only turns a hang into a failure.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from a2abench.run import RunConfig, execute_async
from tests.asyncio_agent import EchoAgent, PrivateCA, serving
from tests.engine.scripted import ScriptedDriver, ScriptedOptions


class HoldingAgent(EchoAgent):
    """Every turn waits until `together` conversations have sent their first message."""

    def __init__(self, together: int) -> None:
        super().__init__()
        self.together = together
        self.first_messages = 0
        self.most_in_flight = self.in_flight = 0
        self.everyone = asyncio.Event()

    async def turn(self, message: dict[str, object]) -> None:
        if message.get("contextId") is None:
            self.first_messages += 1
            if self.first_messages >= self.together:
                self.everyone.set()
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await self.everyone.wait()
        finally:
            self.in_flight -= 1


@pytest.mark.parametrize("scheme", ["http", "https"])
@pytest.mark.parametrize("client", ["lean", "httpx"])
async def test_every_conversation_is_in_flight_from_the_first_call(
        client: str, scheme: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if client == "httpx":
        monkeypatch.setenv("A2ABENCH_HTTP_CLIENT", "httpx")
    tls = PrivateCA(tmp_path) if scheme == "https" else None
    options = ScriptedOptions(tasks=4, turns=2)
    events: list[Any] = []
    async with serving(HoldingAgent(together=4), tls=tls) as agent:
        config = RunConfig(benchmark="scripted", white_agent_url=agent.url, concurrency=4,
                           num_trials=1, output=tmp_path / "m.jsonl", task_timeout=20,
                           ca_cert=tls.pem if tls else None,
                           options=options.model_dump(mode="json"))
        summary = await execute_async(config, events.append, driver=ScriptedDriver(options))
    assert summary.counts.passed == 4, summary
    assert isinstance(agent, HoldingAgent) and agent.most_in_flight == 4
