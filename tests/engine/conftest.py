from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from a2abench.run.registry import unregister
from tests.agents import LegacyAgent
from tests.engine.scripted import install
from tests.servers import serve


@pytest.fixture(autouse=True)
def scripted_benchmark() -> Iterator[None]:
    install()
    yield
    unregister("scripted")


@contextmanager
def agent(**kw: Any) -> Iterator[tuple[LegacyAgent, str]]:
    holder: dict[str, LegacyAgent] = {}

    def factory(base: str) -> Any:
        holder["a"] = LegacyAgent(base, **kw)
        return holder["a"].app()

    with serve(factory) as base:
        yield holder["a"], base
