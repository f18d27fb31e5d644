"""`report` on a multi-party run: the headline covers the primary pairing, and the scores per
role, the pairing matrix, the paired comparisons and the violations come beside it, in every
format; forged match blocks are skipped, never fatal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2.submission import _read
from a2abench.errors import RecordsError
from a2abench.report import build_report, deduped_task_records, render
from a2abench.report.html import report_page

PAIRINGS = {"agent+user": {"agent": "agent", "user": "user"},
            "agent+reference_user": {"agent": "agent", "user": "reference_user"},
            "reference_agent+user": {"agent": "reference_agent", "user": "user"}}
LINEUP = {"scenario": "dual", "pairing": "vs_reference", "primary": "agent+user",
          "participants": {
              "agent": {"role": "agent", "url": "http://a", "builtin": None, "reference": False},
              "user": {"role": "user", "url": "http://u", "builtin": None, "reference": False},
              "reference_user": {"role": "user", "url": None, "builtin": "llm_user",
                                 "reference": True},
              "reference_agent": {"role": "agent", "url": None, "builtin": "gold_agent",
                                  "reference": True}},
          "pairings": [{"id": k, "roles": v} for k, v in PAIRINGS.items()]}


def _task(task: str, trial: int, pairing: str, reward: float, **match: Any) -> dict[str, Any]:
    roles = PAIRINGS[pairing]
    block = {"pairing": pairing, "roles": roles, "scores": dict.fromkeys(roles, reward),
             "forfeit": None, "violations": {"user": []},
             "usage": {roles["agent"]: {"requests": 2, "latency_ms": 5.0, "input_tokens": 10,
                                        "output_tokens": 3}}, **match}
    return {"schema_version": 1, "run_id": "r1", "type": "task", "benchmark": "tau2",
            "domain": "airline", "task_id": task, "trial": trial, "seed": 7 + trial,
            "status": "ok", "reward": reward, "success": reward == 1.0, "match": block,
            "termination": "user_stop", "turns": 3, "started_at": "t", "finished_at": "t"}


def _write(path: Path, extra: list[dict[str, Any]] = ()) -> Path:  # type: ignore[assignment]
    run = {"schema_version": 1, "run_id": "r1", "type": "run", "a2abench_version": "x",
           "benchmark": "tau2", "domain": "airline", "config": {}, "compat_key": {},
           "started_at": "t", "lineup": LINEUP}
    rows = [run]
    for task in ("1", "2", "3"):
        for trial in (0, 1):
            rows.append(_task(task, trial, "agent+user", 1.0 if task != "3" else 0.0))
            rows.append(_task(task, trial, "agent+reference_user", 1.0))
            early = {"violations": {"user": [{"kind": "early_stop", "message": "hung up"}]}}
            rows.append(_task(task, trial, "reference_agent+user",
                              0.0 if task == "3" else 1.0, **(early if task == "3" else {})))
    path.write_text("\n".join(json.dumps(r) for r in [*rows, *extra]) + "\n")
    return path


def test_the_headline_is_the_primary_pairing_and_the_roles_come_beside(tmp_path: Path) -> None:
    report = build_report([_write(tmp_path / "m.jsonl")])
    assert report.task_trials == 6 and report.tasks == 3  # agent+user only
    assert report.mean_reward == 4 / 6
    roles = report.roles
    assert roles is not None and roles["primary"] == "agent+user" and roles["matches"] == 18
    user = next(e for e in roles["roles"]["user"] if e["participant"] == "user")
    assert user["fidelity"]["against"] == ["reference_agent"]
    assert user["fidelity"]["rate"] == 2 / 3 and user["violations"] == {"early_stop": 2}
    ref = next(e for e in roles["roles"]["user"] if e["participant"] == "reference_user")
    assert ref["reference"] and ref["rate"] == 1.0
    agent = next(e for e in roles["roles"]["agent"] if e["participant"] == "agent")
    assert agent["matches"] == 12 and agent["usage"]["requests"] == 24
    assert agent["vs_reference"]["against"] == ["reference_user"]
    assert agent["vs_reference"]["rate"] == 1.0 and "fidelity" not in agent
    assert user["vs_reference"] == user["fidelity"]
    (compared,) = [c for c in roles["comparisons"] if c["role"] == "user"]
    assert (compared["a"], compared["b"], compared["units"]) == ("reference_user", "user", 6)
    assert compared["a_better"] == 2 and compared["ties"] == 4
    assert roles["violation_kinds"] == {"early_stop": "hung up"}


def test_every_format_shows_the_roles(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.jsonl")
    report = build_report([path])
    markdown = render(report, "markdown", [path])
    assert "### Scores per role" in markdown and "### Pairings" in markdown
    assert "| early_stop | hung up |" in markdown
    assert json.loads(render(report, "json", [path]))["roles"]["primary"] == "agent+user"
    _, page = report_page([path])
    html = page.decode()
    assert 'id="roles"' in html and "Paired comparisons" in html
    meta = json.loads(html.split('id="a2ab-data">')[1].split("</script>")[0])
    assert meta["columns"][-1] == "pairing" and len(meta["rows"]) == 18
    assert {row[-1] for row in meta["rows"]} == set(PAIRINGS)


def test_forged_match_blocks_are_skipped(tmp_path: Path) -> None:
    forged = [_task("9", 0, "agent+user", 1.0, roles=["agent"]),
              _task("9", 1, "agent+user", 1.0, scores={"agent": "all", "user": 7}),
              {**_task("9", 2, "agent+user", 1.0), "match": {"pairing": {"x": 1}}}]
    report = build_report([_write(tmp_path / "m.jsonl", forged)])
    assert report.roles is not None
    agent = next(e for e in report.roles["roles"]["agent"] if e["participant"] == "agent")
    assert agent["matches"] == 13  # the second forged row counts, its scores do not
    assert agent["counted"] == 12


def test_exports_hold_the_primary_pairing_and_the_submission_refuses_a_dual_run(
        tmp_path: Path) -> None:
    path = _write(tmp_path / "m.jsonl")
    kept = list(deduped_task_records([path]))
    assert len(kept) == 6 and {r["match"]["pairing"] for r in kept} == {"agent+user"}
    with pytest.raises(RecordsError, match="multi-party run"):
        _read(path)
