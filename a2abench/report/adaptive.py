"""An adaptive run's confidence sequence, rebuilt from its records for every report format.

The run record holds the plan (strata, weights, settings) and each task record its stratum
and rank, so shards of evidence from several sessions (`--resume`) give exactly the sequence
the engine saw. numpy is imported only for adaptive runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from a2abench.run.status import SCORED_STATUSES

Tag = tuple[Any, ...]  # stratum, rank, pick, and a weighted draw's scale and top (or None)


def rebuild(runs: list[dict[str, Any]], run_ends: Iterable[dict[str, Any]],
            results: Iterable[tuple[Tag, str, float | None]]) -> dict[str, Any] | None:
    """{header, summary} of the adaptive run in `runs` (None if it was not adaptive or its
    plan cannot be read). `results` are (stratum and rank, status, reward) of the kept task
    records."""
    header = next((r.get("adaptive") for r in runs if isinstance(r.get("adaptive"), dict)),
                  None)
    if header is None:
        return None
    from a2abench.run.adaptive.sequence import Tracker

    try:
        tracker = Tracker.from_header(header)
        voids = {int(p) for r in runs if isinstance(r.get("adaptive"), dict)
                 for p in r["adaptive"].get("void_picks") or []}
        for pick in sorted(voids):
            tracker.void(pick)
        for tag, status, reward in sorted(results, key=lambda x: x[0][2]):
            stratum, rank, pick, *draw = tag
            weighted = rank == -1 and None not in draw
            tracker.record(stratum, rank, float(reward or 0.0)
                           if status in SCORED_STATUSES else None, pick,
                           (float(draw[0]), float(draw[1])) if weighted else None)
    except (KeyError, TypeError, ValueError) as exc:
        return {"header": header, "summary": None, "error": f"unreadable adaptive plan: {exc}"}
    summary = tracker.summary()
    recorded = [e["adaptive"] for e in run_ends if isinstance(e.get("adaptive"), dict)]
    last = recorded[-1] if recorded else {}
    if summary["stop_reason"] != "exhausted":  # the live run's reason and when it was met
        summary["stop_reason"] = last.get("stop_reason")
        summary["decided_at"] = last.get("decided_at")
    if summary["stop_reason"] in ("gate_pass", "gate_fail"):  # decided at the stop
        summary["decision"] = summary["stop_reason"][5:]
    return {"header": header, "summary": summary}


def cost_view(task_trials: int, units: int, tokens: int,
              cost_usd: float | None) -> dict[str, Any]:
    """What the run spent against the full run's estimate (spent x N / n)."""
    scale = units / task_trials if task_trials else 0.0
    return {"spent": {"task_trials": task_trials, "tokens": tokens, "cost_usd": cost_usd},
            "full_estimate": {"task_trials": units, "tokens": round(tokens * scale),
                              "cost_usd": None if cost_usd is None else cost_usd * scale}}
