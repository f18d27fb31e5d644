from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2abench.green import GreenSettings
from a2abench.run.registry import unregister
from tests.agents import LegacyAgent, echo_agent
from tests.engine.scripted import install
from tests.servers import serve


@pytest.fixture(autouse=True)
def scripted_benchmark() -> Iterator[None]:
    """The engine tests' scripted benchmark (echo each turn) stands in for tau2/CRMArena."""
    install()
    yield
    unregister("scripted")


@pytest.fixture(scope="module")
def white() -> Iterator[str]:
    """An a2a-sdk 1.x echo agent: passes every scripted task."""
    with serve(echo_agent) as base:
        yield base


@pytest.fixture(scope="module")
def slow_white() -> Iterator[str]:
    """A 0.3 echo agent that takes 0.1 s per answer (for cancel and queueing)."""
    with serve(lambda base: LegacyAgent(base, delay=0.1).app()) as base:
        yield base


@pytest.fixture
def held_white() -> Iterator[str]:
    """A 0.3 echo agent that answers two requests, then holds every later one until the test
    ends: an assessment against it is still running whenever the test cancels, queues beside
    or shuts down on it, however slow the machine (a 0.1 s agent finished 40 task-trials
    before a loaded machine's cancel arrived, issue 35)."""
    agents: list[LegacyAgent] = []

    def app(base: str) -> Any:
        agents.append(LegacyAgent(base))
        agents[0].hold_after = 2
        return agents[0].app()

    with serve(app) as base:
        yield base
        agents[0].hold_after = None  # let a held answer go before the server stops


@pytest.fixture
def settings(tmp_path: Path) -> GreenSettings:
    return GreenSettings(output_dir=tmp_path / "runs", progress_interval_s=0)
