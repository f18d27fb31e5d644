"""`traceback.format_exc()`, remembered by where the exception came from.

An evaluator that raises does so from the same few places run after run (mock's env assertion
on a task the agent never created: 1 task-trial in 7 against an agent that gives up at once),
and formatting a traceback costs ~0.5 ms of CPU on Python 3.11 (each frame's caret anchors
parse its source line with `ast`), more than the rest of such a task-trial. The text depends
only on the code positions of the frames, the exception lines and how the chain is linked, so
those are the key; the text is the one `traceback.format_exc()` gave the first time (a source
file edited during the run keeps showing its line as it was when first formatted).
"""

from __future__ import annotations

import sys
import traceback
from types import CodeType
from typing import Any

# key -> (text, the code objects whose ids are in the key: held so that no id is reused)
_MEMO: dict[tuple[Any, ...], tuple[str, list[CodeType]]] = {}
_MEMO_MAX = 256


def format_exc() -> str:
    """The same text as `traceback.format_exc()` for the exception being handled."""
    exc = sys.exc_info()[1]
    found = _key(exc) if exc is not None else None
    if found is None:
        return traceback.format_exc()
    key, codes = found
    entry = _MEMO.get(key)
    if entry is None:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        entry = _MEMO[key] = (traceback.format_exc(), codes)
    return entry[0]


def _key(exc: BaseException) -> tuple[tuple[Any, ...], list[CodeType]] | None:
    """What the formatted text depends on, following the chain as `TracebackException` does;
    None (format afresh) for exception groups and chains that loop back."""
    parts: list[Any] = [getattr(sys, "tracebacklimit", None)]
    codes: list[CodeType] = []
    seen: set[int] = set()
    link, current = "", exc
    while True:
        if id(current) in seen or isinstance(current, BaseExceptionGroup):
            return None
        seen.add(id(current))
        frames = []
        tb = current.__traceback__
        while tb is not None:
            codes.append(tb.tb_frame.f_code)
            frames.append((id(tb.tb_frame.f_code), tb.tb_lasti))
            tb = tb.tb_next
        parts.append((link, tuple(frames),
                      tuple(traceback.format_exception_only(type(current), current))))
        if current.__cause__ is not None:
            link, current = "cause", current.__cause__
        elif current.__context__ is not None and not current.__suppress_context__:
            link, current = "context", current.__context__
        else:
            return tuple(parts), codes
