"""An adaptive run's confidence sequence, rebuilt from its records for every report format.

The run record holds the plan (strata, weights, settings; an A/B run's baseline score and
bounds) and each task record its stratum, rank and pick (an A/B run's: the baseline's reward
and success), so shards of evidence from several sessions (`--resume`) give exactly the
sequence the engine saw. numpy is imported only for adaptive runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from a2abench.run.status import SCORED_STATUSES

# stratum, rank, pick, a weighted draw's scale and top, an A/B run's baseline reward and
# success (None where absent)
Tag = tuple[Any, ...]
FLIPS_SHOWN = 50  # task-trials listed per direction (the counts are always whole)


def rebuild(runs: list[dict[str, Any]], run_ends: Iterable[dict[str, Any]],
            results: Iterable[tuple[Tag, Any]]) -> dict[str, Any] | None:
    """{header, summary} of the adaptive run in `runs` (None if it was not adaptive or its
    plan cannot be read). `results`: each kept task record's tag and report line."""
    header = next((r.get("adaptive") for r in runs if isinstance(r.get("adaptive"), dict)),
                  None)
    if header is None:
        return None
    from a2abench.run.adaptive.tracker import Tracker

    flips: dict[str, list[list[Any]]] = {"to_pass": [], "to_fail": []}
    try:
        tracker = Tracker.from_header(header)
        voids = {int(p) for r in runs if isinstance(r.get("adaptive"), dict)
                 for p in r["adaptive"].get("void_picks") or []}
        for pick in sorted(voids):
            tracker.void(pick)
        for tag, line in sorted(results, key=lambda x: x[0][2]):
            stratum, rank, pick, scale, top, base, base_success = tag
            weighted = rank == -1 and scale is not None and top is not None
            scored = line.status in SCORED_STATUSES
            tracker.record(stratum, rank, float(line.reward or 0.0) if scored else None,
                           pick, (float(scale), float(top)) if weighted else None, base)
            if scored and base_success is not None and base_success != line.success:
                flips["to_pass" if line.success else "to_fail"].append(
                    [line.task_id, line.trial])
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
    if "paired" in summary:
        summary["paired"]["flipped"] = {
            k: {"count": len(v), "task_trials": sorted(v)[:FLIPS_SHOWN]}
            for k, v in flips.items()}
    return {"header": header, "summary": summary}


def cost_view(task_trials: int, units: int, tokens: int,
              cost_usd: float | None) -> dict[str, Any]:
    """What the run spent against the full run's estimate (spent x N / n), and saved."""
    scale = units / task_trials if task_trials else 0.0
    full_tokens = round(tokens * scale)
    full_cost = None if cost_usd is None else cost_usd * scale
    return {"spent": {"task_trials": task_trials, "tokens": tokens, "cost_usd": cost_usd},
            "full_estimate": {"task_trials": units, "tokens": full_tokens,
                              "cost_usd": full_cost},
            "saved": {"task_trials": max(0, units - task_trials),
                      "tokens": max(0, full_tokens - tokens),
                      "cost_usd": None if full_cost is None or cost_usd is None
                      else max(0.0, full_cost - cost_usd)}}
