"""--fail-under on adaptive runs (report/gate.py) and the refused combinations (RunConfig)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from a2abench.errors import ScoreBelowThreshold
from a2abench.report import gate
from a2abench.report.aggregate import Report
from a2abench.run.config import RunConfig


def report(n: int, lower: float, upper: float, *, gate_on: bool, threshold: float = 0.6,
           decision: str | None = None) -> Any:
    header = {"confidence": 0.95, "settings": {"gate": gate_on, "fail_under": threshold}}
    summary = {"n": n, "N": 100, "lower": lower, "upper": upper, "decision": decision}
    fake = Report.model_construct(score=(lower + upper) / 2, adaptive={
        "header": header, "summary": summary})
    return fake


def test_a_partial_target_run_needs_every_task_trial_for_a_gate() -> None:
    with pytest.raises(ScoreBelowThreshold, match="without --adaptive-gate needs every"):
        gate.check(report(40, 0.7, 0.8, gate_on=False), 0.6)


def test_a_partial_gate_run_passes_and_fails_on_its_sequence() -> None:
    gate.check(report(40, 0.62, 0.8, gate_on=True, decision="pass"), 0.6)
    with pytest.raises(ScoreBelowThreshold, match="wholly below --fail-under 0.6"):
        gate.check(report(40, 0.3, 0.5, gate_on=True, decision="fail"), 0.6)
    with pytest.raises(ScoreBelowThreshold, match="undecided"):
        gate.check(report(40, 0.5, 0.7, gate_on=True), 0.6)


def test_another_threshold_is_decided_by_the_bounds() -> None:
    gate.check(report(40, 0.62, 0.8, gate_on=True, decision="pass"), 0.5)
    with pytest.raises(ScoreBelowThreshold):
        gate.check(report(40, 0.62, 0.8, gate_on=True, decision="pass"), 0.7)


def test_refused_combinations() -> None:
    base = {"benchmark": "tau2", "white_agent_url": "http://127.0.0.1:1"}
    with pytest.raises(ValidationError, match="--adaptive-gate needs --fail-under"):
        RunConfig(**base, adaptive_gate=True)
    for flags in ({"target_ci": 0.05}, {"allocate": "neyman"},
                  {"adaptive_gate": True, "fail_under": 0.5}):
        with pytest.raises(ValidationError, match="--shard cannot be combined"):
            RunConfig(**base, shard="1/2", **flags)
    with pytest.raises(ValidationError):
        RunConfig(**base, target_ci=0.0)
    with pytest.raises(ValidationError):
        RunConfig(**base, allocate="optimal")
    assert RunConfig(**base, shard="1/2").shard is not None  # a full run still shards
