"""Adaptive assessment: a seeded, stratified order of task-trials, an always-valid confidence
sequence for the headline score, and the rule that stops a run once the score is known to the
precision asked for (`--target-ci`) or a `--fail-under` gate is decided (`--adaptive-gate`).

`sequence.py` is the policy the engine consults (order, allocation, resume), `tracker.py`
the statistics of one run (pick order, errors, the stop rule), `confseq.py` the betting
capital (numpy), `baseline.py` an A/B run's baseline (`--baseline`). None is imported unless
a run is adaptive.
"""

from __future__ import annotations

from typing import Any

CONFIDENCE = 0.95


def is_adaptive(config: Any) -> bool:
    """Whether a RunConfig (or anything with its fields) asks for an adaptive plan."""
    return bool(config.target_ci is not None or config.adaptive_gate
                or config.allocate != "proportional"
                or getattr(config, "baseline", None) is not None)
