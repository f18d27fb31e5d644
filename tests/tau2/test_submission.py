"""`report --format tau2-submission`: the leaderboard directory, its refusals, and (optional)
upstream's own validator on the output.

Runs are synthesized as metrics.jsonl files shaped like `run tau2` writes them: every
base-split task, do-nothing transcripts scored by our evaluator, one file per domain.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.evaluator import evaluate_offline
from a2abench.benchmarks.tau2.models import AssistantMessage, UserMessage
from a2abench.benchmarks.tau2.submission import pass_hat_ks
from tests.clihelp import run_cli
from tests.tau2.tau2_support import UPSTREAM_ENV, data_root

LEADERBOARD = ["airline", "retail", "telecom", "banking_knowledge"]
META = ["--model-name", "my-agent", "--model-organization", "Example Org",
        "--contact-email", "me@example.org"]


def write_run(path: Path, domain: str, *, trials: int = 1, user: str = "gpt-4.1",
              drop: int = 0, split: str = "base") -> Path:
    options = {"domain": domain, "split": split, "data_dir": str(data_root()),
               "max_steps": 200, "max_errors": 10, "policy": "manual",
               "retrieval_variant": "bm25" if domain == "banking_knowledge" else None}
    d = load_domain(domain, data_dir=data_root(), **(
        {"retrieval_variant": "bm25"} if domain == "banking_knowledge" else {}))
    run = {"type": "run", "run_id": "r1", "benchmark": "tau2", "domain": domain,
           "config": {"options": options, "num_trials": trials, "seed": 300,
                      "white_agent_url": "http://127.0.0.1:9999"},
           "models": {"user_simulator": {"model": user, "args": {"temperature": 0.0}}},
           "data": {"commit": "a2c024725189473d2d7cea3a5cfdbcc67478e41f"},
           "started_at": "2026-11-23T10:00:00+00:00"}
    lines = [run]
    messages = [AssistantMessage(role="assistant", content="Hi! How can I help you today?"),
                UserMessage(role="user", content="Bye. ###STOP###")]
    transcript = [m.model_dump(mode="json") for m in messages]
    for i, task in enumerate(d.tasks()[drop:]):
        try:
            info = evaluate_offline(task, messages, "user_stop", domain=d).model_dump(
                mode="json")
        except ValueError:  # a mock env assertion on a record the task never created
            info = {"reward": 0.0}
        for trial in range(trials):
            reward = 1.0 if (i + trial) % 3 == 0 else info["reward"]  # some successes
            lines.append({
                "type": "task", "run_id": "r1", "benchmark": "tau2", "domain": domain,
                "task_id": task.id, "trial": trial, "seed": 1, "status": "ok",
                "reward": reward, "termination": "user_stop", "transcript": transcript,
                "details": {"reward_info": {**info, "reward": reward}},
                "started_at": "2026-11-23T10:00:00+00:00",
                "finished_at": "2026-11-23T10:00:01+00:00"})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def submit(tmp_path: Path, files: list[Path], *extra: str) -> Any:
    return run_cli("report", *map(str, files), "--format", "tau2-submission", "--output",
                   str(tmp_path / "sub"), *META, *extra)


@pytest.mark.slow
def test_two_domain_submission_directory(tmp_path: Path) -> None:
    files = [write_run(tmp_path / "mock.jsonl", "mock", trials=2),
             write_run(tmp_path / "bank.jsonl", "banking_knowledge", trials=2)]
    r = submit(tmp_path, files)
    assert r.code == 0, r.err
    assert "2 trial(s); the leaderboard strongly prefers 4 or more" in r.err
    sub = json.loads((tmp_path / "sub" / "submission.json").read_text())
    assert sub["submission_type"] == "custom" and "A2A" in sub["methodology"]["notes"]
    assert sub["contact_info"] == {"email": "me@example.org"}
    assert sub["results"]["banking_knowledge"]["retrieval_config"] == "bm25"
    assert sub["results"]["mock"]["pass_3"] is None
    for domain, name in sub["trajectory_files"].items():
        doc = json.loads((tmp_path / "sub" / "trajectories" / name).read_text())
        assert doc["info"]["environment_info"]["domain_name"] == domain
        assert doc["info"]["num_trials"] == 2
        assert len(doc["simulations"]) == 2 * len(doc["tasks"])
    bank = json.loads((tmp_path / "sub" / "trajectories" /
                       sub["trajectory_files"]["banking_knowledge"]).read_text())
    assert len(bank["tasks"]) == 97 and bank["info"]["retrieval_config"] == "bm25"


@pytest.mark.parametrize("case", ["missing", "duplicate", "users", "split"])
def test_requirements_not_met_are_refused(tmp_path: Path, case: str) -> None:
    a = write_run(tmp_path / "a.jsonl", "mock", drop=2 if case == "missing" else 0,
                  split="train" if case == "split" else "base")
    b = write_run(tmp_path / "b.jsonl", "mock" if case == "duplicate" else "airline",
                  user="other-model" if case == "users" else "gpt-4.1")
    r = submit(tmp_path, [a, b])
    assert r.code == 1, r.err
    expected = {"missing": "lacks 2 of the 10 mock task-trials",
                "duplicate": "domain mock appears in both",
                "users": "the user simulator differs across domains",
                "split": "the leaderboard needs the base split"}[case]
    assert expected.lower() in r.err.lower()
    assert not (tmp_path / "sub" / "submission.json").exists()


def test_unscored_task_trials_are_refused(tmp_path: Path) -> None:
    # Upstream's metrics leave infrastructure errors out: the submission's pass^k would be
    # over fewer task-trials than the run planned (issue 34).
    path = write_run(tmp_path / "a.jsonl", "mock")
    lines = path.read_text().splitlines()
    task = json.loads(lines[1])
    lines[1] = json.dumps({**task, "status": "infrastructure_error", "reward": None,
                           "details": {}})
    path.write_text("\n".join(lines) + "\n")
    r = submit(tmp_path, [path])
    assert r.code == 1 and "1 mock task-trial(s) that were not scored" in r.err, r.err
    assert not (tmp_path / "sub" / "submission.json").exists()


def test_metadata_flags_are_required(tmp_path: Path) -> None:
    r = run_cli("report", str(write_run(tmp_path / "a.jsonl", "mock")), "--format",
                "tau2-submission", "--output", str(tmp_path / "sub"))
    assert r.code == 2 and "--model-name" in r.err and "--contact-email" in r.err


def test_pass_hat_k_matches_the_definition() -> None:
    tasks = [{"id": "a", "evaluation_criteria": {"actions": [{}, {}]}},
             {"id": "b", "evaluation_criteria": {"actions": []}}]
    sims = [{"task_id": "a", "termination_reason": "user_stop", "reward_info": {"reward": r}}
            for r in (1.0, 1.0, 0.0, 1.0)] + [
            {"task_id": "b", "termination_reason": "user_stop", "reward_info": {"reward": 1.0}}
            for _ in range(4)] + [
            {"task_id": "b", "termination_reason": "infrastructure_error", "reward_info": None}]
    ks = pass_hat_ks(sims, tasks, 4)
    assert ks == {1: (0.75 + 1) / 2, 2: (0.5 + 1) / 2, 3: (0.25 + 1) / 2, 4: 0.5}


def test_upstream_validator_accepts_a_four_domain_submission(tmp_path: Path) -> None:
    """Runs upstream's own `tau2 submit validate` code on our output. Needs an upstream
    checkout (TAU2_UPSTREAM_CHECKOUT, with data/) and a Python with it installed
    (TAU2_UPSTREAM_PYTHON)."""
    checkout, python = os.environ.get(UPSTREAM_ENV), os.environ.get("TAU2_UPSTREAM_PYTHON")
    if not checkout or not python:
        pytest.skip(f"set {UPSTREAM_ENV} and TAU2_UPSTREAM_PYTHON to run upstream's validator")
    files = [write_run(tmp_path / f"{d}.jsonl", d, trials=4) for d in LEADERBOARD]
    r = submit(tmp_path, files)
    assert r.code == 0, r.err
    code = ("from tau2.scripts.leaderboard.prepare_submission import validate_submission; "
            f"validate_submission({str(tmp_path / 'sub')!r})")
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "TAU2_DATA_DIR": str(Path(checkout) / "data")})
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "Submission validation successful" in out, out
    assert "Submission metrics validation successful" in out, out
    assert "❌" not in out, out
