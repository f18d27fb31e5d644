"""The cyclic garbage collector paused while a large tree of acyclic objects is built."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No collections inside: each young-generation pass would walk every container built
    so far that is still alive (parsed JSON, validated models, records: all acyclic), which
    costs more than the build itself (telecom's 14 MB tasks file parses in 0.11 s instead of
    0.3 s; a report over 500,000 task-trials, a quarter of its time: docs/performance.md).
    Left as it was when the caller had paused it already."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            # What the build allocated goes to the oldest generation unexamined (a freeze
            # and thaw moves every object there): else the first collection after would
            # walk all of it at once.
            gc.freeze()
            gc.unfreeze()
            gc.enable()
