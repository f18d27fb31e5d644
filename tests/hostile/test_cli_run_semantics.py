"""Run semantics (issue 18 items 7, 9, 10; issue 17 items 13, 14, 16)."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from a2abench.run.registry import unregister
from tests.clihelp import run_cli
from tests.engine.conftest import agent
from tests.engine.scripted import install
from tests.engine.test_durability import (
    _read_until,
    resume,
    spawn,
    task_count,
    wait_for_tasks,
)
from tests.servers import free_port, serve
from tests.waits import HANG_S


@pytest.fixture(autouse=True)
def scripted_benchmark() -> Iterator[None]:
    install()
    yield
    unregister("scripted")


def run(base: str, out: Path, *extra: str) -> Any:
    return run_cli("run", "scripted", "--white-agent-url", base, "--output", str(out),
                   "--retry-delay", "0.01", *extra)


def dead_interface(base: str) -> Starlette:
    """A card that is served fine, naming an interface nobody listens on (a Docker
    hostname, a wrong port)."""
    async def card(_: Request) -> JSONResponse:
        return JSONResponse({
            "name": "dead", "description": "d", "version": "1", "protocolVersion": "0.3.0",
            "url": f"http://127.0.0.1:{free_port()}/rpc", "capabilities": {},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": []})
    return Starlette(routes=[Route("/.well-known/agent-card.json", card)])


def test_run_exits_1_when_no_task_trial_reached_the_agent(tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    with serve(dead_interface) as base:
        r = run(base, out, "--option", "tasks=2", "--retries", "0", "--fail-under", "0.5")
    assert r.code == 1, (r.out, r.err)
    assert "Error: no task-trial reached the agent: all 2 ended in an infrastructure " \
           "error (first: AgentUnreachable" in r.err
    assert "Traceback" not in r.err and out.exists()  # the records are kept
    gate = run_cli("report", str(out), "--fail-under", "0.5")
    assert gate.code == 3
    assert "Error: no score (all task-trials failed to reach the agent)" in gate.err
    assert "nan" not in gate.err


def test_resume_refuses_a_file_that_is_not_a_run_and_touches_nothing(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    content = b"my notes\n{\"type\": \"other\"}\nlast line without newline"
    notes.write_bytes(content)
    with agent() as (_, base):
        r = run(base, notes, "--resume", "--option", "tasks=1")
    assert r.code == 1 and "is not an a2abench run" in r.err and "Traceback" not in r.err
    assert notes.read_bytes() == content


def test_output_without_suffix_is_a_directory(tmp_path: Path) -> None:
    target = tmp_path / "runs" / "x"
    with agent() as (_, base):
        r = run(base, target, "--option", "tasks=1")
    assert r.code == 0, r.err
    assert target.is_dir() and (target / "metrics.jsonl").is_file()


def test_zero_task_runs_are_refused(tmp_path: Path) -> None:
    with agent() as (_, base):
        r = run(base, tmp_path / "m.jsonl", "--option", "tasks=0")
    assert r.code == 2 and "no scripted tasks to run" in r.err
    assert not (tmp_path / "m.jsonl").exists()


@pytest.mark.parametrize("value", ["nan", "-0.1", "1.5", "inf"])
def test_fail_under_must_be_a_score(value: str, tmp_path: Path) -> None:
    r = run("http://127.0.0.1:9", tmp_path / "m.jsonl", "--fail-under", value)
    assert r.code == 2 and "is not a number between 0 and 1" in r.err
    r = run_cli("report", str(tmp_path / "m.jsonl"), "--fail-under", value)
    assert r.code == 2 and "is not a number between 0 and 1" in r.err


def test_summary_wording_counts_task_trials_tasks_and_trials(tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    with agent(wrong_for=frozenset({"t001"})) as (_, base):
        r = run(base, out, "--option", "tasks=2", "--option", "turns=1")
        one = run(base, tmp_path / "one.jsonl", "--option", "tasks=1", "--option", "turns=1")
    assert r.code == 0 and one.code == 0
    assert ", 2 task-trials, concurrency" in r.out
    assert "1/2 passed over 2 task-trials (2 tasks × 1 trial)" in r.out
    assert "1 task-trial, concurrency" in one.out
    assert "1/1 passed over 1 task-trial (1 task × 1 trial)" in one.out
    assert "run completed" in one.out and ": 1 task-trial, 1/1 passed" in one.out
    for fmt in ("markdown", "table"):
        text = run_cli("report", str(out), "--format", fmt).out
        assert "1/2 passed over 2 task-trials (2 tasks × 1 trial)" in text, fmt
    data = json.loads(run_cli("report", str(out), "--format", "json").out)
    assert (data["tasks"], data["task_trials"], data["trials"]) == (2, 2, [1, 1])
    junit = run_cli("report", str(out), "--format", "junit").out
    assert 'tests="2"' in junit


@pytest.mark.slow
def test_sigterm_is_handled_like_ctrl_c(tmp_path: Path) -> None:
    out = tmp_path / "term.jsonl"
    with agent(delay=0.05) as (_, base):
        proc = spawn(base, out, "--concurrency", "2")
        wait_for_tasks(out, 3, proc)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=HANG_S)
        assert proc.returncode == 143, err
        assert "Traceback" not in err and "Resume with:" in err and "SIGTERM" in err
        last = json.loads(out.read_text().splitlines()[-1])
        assert last["type"] == "run_end" and last["status"] == "interrupted"
        resume(base, out)


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)],
                         ids=["SIGTERM", "SIGINT"])
def test_a_second_signal_while_the_run_stops_aborts_quietly(
        tmp_path: Path, sig: signal.Signals, code: int) -> None:
    # Issue 34: the second SIGTERM printed a traceback. A task-trial that never stops holds
    # the first signal's stop; the second must end the run at once, same exit code, no
    # traceback, every record written so far on disk.
    out = tmp_path / "m.jsonl"
    with agent() as (_, base):
        proc = spawn(base, out, "--option", "tasks=4", "--option", "turns=1",
                     "--option", "stuck_task=t002", "--concurrency", "1")
        seen = _read_until(proc, "this task-trial is stuck")
        proc.send_signal(sig)
        seen += _read_until(proc, "stopping")
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    err = seen + err
    assert proc.returncode == code, err
    assert "Traceback" not in err and "Resume with:" in err, err
    records = [json.loads(line) for line in out.read_text().splitlines()]
    done = [(r["task_id"], r["trial"]) for r in records if r["type"] == "task"]
    assert done == [("t000", 0), ("t000", 1), ("t001", 0), ("t001", 1)]  # 2 trials each
    assert records[0]["type"] == "run" and task_count(out) == 4


# ----------------------------------------------------------------- issue 23 item 4

def test_concurrency_has_an_upper_limit(tmp_path: Path) -> None:
    r = run("http://127.0.0.1:9", tmp_path / "m.jsonl", "--concurrency", "100000",
            "--max-tasks", "1")
    assert r.code == 2 and "Traceback" not in r.err, r.err
    assert "--concurrency" in r.err and "less than or equal to 1000" in r.err


def test_the_agent_client_is_sized_by_the_work_not_the_flag(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from a2abench.a2a import A2AClient
    from a2abench.run import engine

    sizes: list[int] = []

    class Spy(A2AClient):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            sizes.append(kwargs.get("pool_size", 1))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(engine, "A2AClient", Spy)
    with agent() as (_, base):
        r = run(base, tmp_path / "m.jsonl", "--concurrency", "1000", "--option", "tasks=2")
    assert r.code == 0, r.err
    assert sizes == [1]  # 2 task-trials: one small pool, not 250 (one per 4 of 1000)


@pytest.mark.slow
def test_sigterm_during_start_up_stops_the_run(tmp_path: Path) -> None:
    out = tmp_path / "start.jsonl"
    asked = threading.Event()

    def hanging_card(base: str) -> Starlette:
        async def card(_: Request) -> JSONResponse:
            asked.set()
            await asyncio.Event().wait()
            raise AssertionError("unreachable")
        return Starlette(routes=[Route("/.well-known/agent-card.json", card)])

    with serve(hanging_card) as base:
        proc = spawn(base, out, "--timeout", "300")
        assert asked.wait(HANG_S), proc.communicate()
        proc.send_signal(signal.SIGTERM)
        # main waited for the card, up to --timeout (300 s): past this hang bound
        _, err = proc.communicate(timeout=HANG_S)
    assert proc.returncode == 143, err
    assert "Traceback" not in err and "SIGTERM" in err
