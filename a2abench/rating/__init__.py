"""`a2abench rate`: Bradley–Terry ratings per role over the matches of several multi-party
runs or AgentBeats results files (bt.py says how; sources.py what is read; text.py how it
is shown). numpy is imported only here, by the command."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from a2abench.rating.bt import FEW, games, rate_role
from a2abench.rating.sources import Rated, load

DEFAULT_BOOTSTRAP = 500
DEFAULT_SEED = 0


def rate(paths: Iterable[Path], *, bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
         few: int = FEW) -> dict[str, Any]:
    """Every role's ratings over the matches in `paths` (run directories, metrics files,
    results files): {"roles": {role: {...}}, "matches", "sources", "warnings", ...}."""
    loaded = load(paths)
    roles = sorted({role for m in loaded.matches for role in m.seats})
    out: dict[str, Any] = {}
    for role in roles:
        found = games(loaded.matches, role)
        if not found:
            continue
        anchor, reference = anchor_of(loaded.matches, role)
        out[role] = {**rate_role(found, anchor, bootstrap=bootstrap, seed=seed, few=few),
                     "anchor_is_reference": reference}
        if not reference:
            loaded.warnings.append(f"role {role}: no reference partner played; ratings are "
                                   f"relative to {anchor}")
    return {"roles": out, "matches": len(loaded.matches), "sources": loaded.sources,
            "bootstrap": bootstrap, "seed": seed, "few": few, "warnings": loaded.warnings}


def anchor_of(matches: Iterable[Rated], role: str) -> tuple[str, bool]:
    """The role's reference partner (the one in most matches), else its participant in the
    most matches; and whether it is a reference. Ties break by name."""
    refs: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for m in matches:
        seat = m.seats.get(role)
        if seat is not None:
            seen[seat.identity] += 1
            if seat.reference:
                refs[seat.identity] += 1
    pool, is_ref = (refs, True) if refs else (seen, False)
    return min(pool, key=lambda p: (-pool[p], p)), is_ref
