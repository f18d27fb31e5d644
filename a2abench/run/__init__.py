"""The run engine both benchmarks share. `execute()` is the one call the CLI makes.

The names below load on first use (run/launch.py and what it imports: the engine, the A2A
client, httpx): `report` imports `a2abench.run.status` and `writer` only, and loading them all
was ~0.4 s of every report's time.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from a2abench.run.config import RunConfig, Shard
    from a2abench.run.driver import Driver, TaskContext, TaskOutcome, TaskSpec
    from a2abench.run.engine import RunSummary
    from a2abench.run.launch import build_driver, execute, execute_async

__all__ = ["Driver", "RunConfig", "RunSummary", "Shard", "TaskContext", "TaskOutcome",
           "TaskSpec", "build_driver", "execute", "execute_async"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("a2abench.run.launch"), name)
    raise AttributeError(f"module 'a2abench.run' has no attribute {name!r}")
