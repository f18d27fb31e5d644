from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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
def settings(tmp_path: Path) -> GreenSettings:
    return GreenSettings(output_dir=tmp_path / "runs", progress_interval_s=0)
