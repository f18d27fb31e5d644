"""Work one test session needs once, shared by its xdist workers through its temp folder."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path

import pytest


def shared_dir(factory: pytest.TempPathFactory) -> Path:
    """A folder of this session's, the same for all its xdist workers."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_session(factory: pytest.TempPathFactory, name: str, make: Callable[[], str]) -> str:
    """The text `make()` returns, made by the first worker that asks for `name` and read from
    a file by the others (which wait for it). A `make` that fails leaves nothing behind: the
    next worker to ask tries again, and fails its own test the same way."""
    shared = shared_dir(factory)
    path = shared / f"{name}.once"
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker making it: wait for it
        if not path.exists():
            path.write_text(make())
    return path.read_text()
