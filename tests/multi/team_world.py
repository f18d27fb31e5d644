"""Scenario team on loopback: the test front agent that delegates its gold writes
(tests/tau2/gold_agent.py, mode "team"), a2abench's example specialist in any of its modes,
and the dual world's fake user LLM."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from a2abench.demo.specialist_agent import SpecialistBrain
from tests.servers import serve


@contextmanager
def specialist(mode: str = "gold") -> Iterator[tuple[str, SpecialistBrain]]:
    """The example specialist (`a2abench-example-agent specialist`) in `mode`."""
    from a2abench.demo.specialist_agent import build_app

    holder: dict[str, Any] = {}

    def factory(base: str) -> Any:
        app = build_app(base, mode)
        holder["brain"] = app.state.brain
        return app

    with serve(factory) as url:
        yield url, holder["brain"]


@contextmanager
def specialists(*modes: str) -> Iterator[list[tuple[str, SpecialistBrain]]]:
    with ExitStack() as stack:
        yield [stack.enter_context(specialist(mode)) for mode in modes]
