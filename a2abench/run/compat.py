"""How two runs' compat keys differ (resume checks it, `report` checks the files it merges).
A module of its own: `report` imports it without the run's config, the A2A client and httpx
that run.plan loads (~0.4 s of every report)."""

from __future__ import annotations

from typing import Any


def diff(recorded: dict[str, Any], current: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for key in sorted(set(recorded) | set(current)):
        a, b = recorded.get(key), current.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            out += diff(a, b, f"{prefix}{key}.")
        elif a != b:
            out.append(f"{prefix}{key}: recorded {a!r}, now {b!r}")
    return out
