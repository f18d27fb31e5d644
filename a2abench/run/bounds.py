"""Bounded records: every line `run` writes can be read back by any JSON reader.

Agent-controlled values reach records (transcripts, tool-call arguments, error messages).
Unbounded, they make a record unreadable (a 4,000-digit integer: orjson refuses anything
beyond 64 bits, Python's json anything beyond 4,300 digits), unwritable (JSON nested 2,000
deep exceeds pydantic's serialization depth) or enormous (a 50 MB reply). `bound()` turns a
value into plain JSON types within these limits, marking every cut so nothing is silently
lost. A lone surrogate (text no UTF-8 encoder takes) is stored as U+FFFD.
"""

from __future__ import annotations

import dataclasses
import math
import re
from enum import Enum
from typing import Any

from pydantic import BaseModel

MAX_STRING_CHARS = 256 * 1024  # per string; a tau2 first message (policy + tools) is ~40 KB
MAX_DEPTH = 64  # containers nested deeper are replaced by a marker
MAX_INT = 2**63 - 1  # what every JSON reader we know of holds as an integer
TRUNCATED = "…[a2abench: {n:,} more characters truncated]"


def _int(value: int) -> int | str:
    if -MAX_INT - 1 <= value <= MAX_INT:
        return value
    digits = len(str(abs(value))) if value.bit_length() < 40_000 else None
    size = f"{digits:,}-digit" if digits is not None else f"{value.bit_length():,}-bit"
    return f"[a2abench: {size} integer not stored]"


def _str(value: str) -> str:
    if len(value) > MAX_STRING_CHARS:
        value = value[:MAX_STRING_CHARS] + TRUNCATED.format(n=len(value) - MAX_STRING_CHARS)
    if not value.isascii():
        try:
            value.encode()
        except UnicodeEncodeError:  # a lone surrogate (JSON escapes allow it, UTF-8 does not)
            return _LONE_SURROGATE.sub(REPLACEMENT, value)
    return value


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"  # what a lone surrogate is stored as: Unicode's replacement character


def bound(value: Any, depth: int = 0) -> Any:
    """`value` as JSON-ready data (dict/list/str/int/float/bool/None) within the limits."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _str(value)
    if isinstance(value, int):
        return _int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None  # JSON has no nan/inf
    if depth >= MAX_DEPTH:
        return f"[a2abench: nested deeper than {MAX_DEPTH} levels, not stored]"
    if isinstance(value, BaseModel):
        fields = dict(value.__dict__)
        fields.update(value.__pydantic_extra__ or {})
        return {k: bound(v, depth + 1) for k, v in fields.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # e.g. the run_end record's Counts (written as its repr string before)
        return {f.name: bound(getattr(value, f.name), depth + 1)
                for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {_str(k if isinstance(k, str) else str(k)): bound(v, depth + 1)
                for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [bound(v, depth + 1) for v in value]
    if isinstance(value, Enum):
        return bound(value.value, depth + 1)
    if hasattr(value, "get_secret_value"):  # SecretStr: never written
        return "***"
    return _str(str(value))
