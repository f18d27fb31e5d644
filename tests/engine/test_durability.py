"""Kill -9 and resume, Ctrl-C and resume, shards merged: the final report is the same."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from a2abench.report import build_report
from a2abench.report.aggregate import Report
from a2abench.run import RunConfig, TaskContext, TaskOutcome, execute_async
from tests.asyncio_agent import EchoAgent, serving
from tests.clihelp import run_cli
from tests.engine.conftest import agent
from tests.engine.scripted import ScriptedDriver, ScriptedOptions
from tests.waits import HANG_S

ROOT = Path(__file__).resolve().parents[2]
WRONG = frozenset({"t002", "t005", "t011"})
OPTS = ["--option", "tasks=12", "--option", "turns=2", "--num-trials", "2", "--seed", "5"]


def comparable(rep: Report) -> dict[str, Any]:
    """Everything in a report that does not depend on timing."""
    return {"score": rep.score, "tasks": rep.tasks, "task_trials": rep.task_trials,
            "passed": rep.passed, "pass_k": [(p.k, p.value) for p in rep.pass_k],
            "by_category": [(g.name, g.task_trials, g.mean_reward) for g in rep.by_category],
            "terminations": rep.terminations, "errors": rep.errors,
            "outcomes": sorted((t.task_id, t.trial, t.reward) for t in rep.lines)}


def spawn(base: str, out: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.engine.cli_entry", "run", "scripted", "--white-agent-url",
         base, "--output", str(out), *OPTS, *extra], cwd=ROOT, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)})


def resume(base: str, out: Path, *extra: str) -> None:
    """`--resume` in this process: what is proved is the file it continues, not the process
    (the kill or the signal is the spawned run's)."""
    r = run_cli("run", "scripted", "--white-agent-url", base, "--output", str(out), *OPTS,
                "--resume", *extra)
    assert r.code == 0, r.err


def task_count(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(1 for line in path.read_bytes().splitlines() if b'"type":"task"' in line)


def wait_for_tasks(path: Path, n: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + HANG_S
    while task_count(path) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.05)


def _read_until(proc: subprocess.Popen[str], words: str) -> str:
    """The process's stderr up to and including the first line holding `words`."""
    assert proc.stderr is not None
    seen = ""
    while words not in seen:
        line = proc.stderr.readline()
        assert line, f"stderr ended before {words!r}: {seen}"
        seen += line
    return seen


def reference(tmp_path: Path, base: str) -> dict[str, Any]:
    ref = tmp_path / "reference.jsonl"
    r = run_cli("run", "scripted", "--white-agent-url", base, "--output", str(ref), *OPTS)
    assert r.code == 0, r.err
    return comparable(build_report([ref]))


@pytest.mark.slow
def test_kill_9_then_resume_gives_the_uninterrupted_report(tmp_path: Path) -> None:
    with agent(wrong_for=WRONG) as (legacy, base):
        expected = reference(tmp_path, base)
        out = tmp_path / "killed.jsonl"
        # The agent answers 18 more messages (9 task-trials of 2 turns), then holds the rest:
        # the run cannot finish before the kill however slow or fast the machine is.
        legacy.hold_after = legacy.answered + 18
        proc = spawn(base, out, "--concurrency", "2")
        wait_for_tasks(out, 6, proc)
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        with out.open("ab") as f:
            f.write(b'{"type":"task","run_id":"x","task_id":"t0')  # a torn last line
        done_before = task_count(out)
        assert 6 <= done_before <= 10  # 9 answered, one more while the hold was reached
        legacy.hold_after = None
        resume(base, out, "--concurrency", "2")
    rep = build_report([out])
    assert comparable(rep) == expected
    assert rep.read["duplicates"] == 0 and rep.task_trials == 24


@pytest.mark.slow
def test_ctrl_c_stops_prints_the_resume_command_and_keeps_results(tmp_path: Path) -> None:
    with agent(wrong_for=WRONG) as (legacy, base):
        expected = reference(tmp_path, base)
        out = tmp_path / "int.jsonl"
        legacy.hold_after = legacy.answered + 12  # 6 task-trials, then the run waits for us
        proc = spawn(base, out, "--concurrency", "2")
        wait_for_tasks(out, 4, proc)
        proc.send_signal(signal.SIGINT)
        # The run has taken the signal once it says so; only then may the task-trials in
        # flight finish (as Ctrl-C lets them), so none can start after it.
        said = _read_until(proc, "interrupted")
        legacy.hold_after = None
        _, rest = proc.communicate(timeout=HANG_S)
        err = said + rest
        assert proc.returncode == 130, err
        assert "Traceback" not in err and "Resume with:" in err
        command = err.split("Resume with:")[1].strip().splitlines()[0]
        assert command.endswith(f"--output {out} --resume")
        last = json.loads(out.read_text().splitlines()[-1])
        assert last["type"] == "run_end" and last["status"] == "interrupted"
        resume(base, out)
    assert comparable(build_report([out])) == expected


async def test_a_stop_as_the_replies_in_flight_arrive_is_an_interruption(
        tmp_path: Path) -> None:
    # Ctrl-C while the last task-trials in flight finish: each worker records its own and
    # stops before the engine looks. That read as a completed run (exit 0, no resume line)
    # with 2 of 4 task-trials never run, on a loaded machine (the Ctrl-C test above).
    stop = asyncio.Event()

    class StopsAsItEnds(ScriptedDriver):
        async def run_task(self, ctx: TaskContext) -> TaskOutcome:
            outcome = await super().run_task(ctx)
            if ctx.task.task_id == "t001":
                stop.set()  # the signal, between the agent's reply and the record
            return outcome

    options = ScriptedOptions(tasks=4, turns=1)
    out = tmp_path / "m.jsonl"
    async with serving(EchoAgent()) as echo:
        config = RunConfig(benchmark="scripted", white_agent_url=echo.url, concurrency=1,
                           num_trials=1, output=out, options=options.model_dump(mode="json"))
        summary = await execute_async(config, lambda _: None, stop, StopsAsItEnds(options))
    assert summary.status == "interrupted" and task_count(out) == 2


def test_shards_merge_into_the_unsharded_report(tmp_path: Path) -> None:
    with agent(wrong_for=WRONG) as (_, base):
        expected = reference(tmp_path, base)
        shards = []
        for i in (1, 2, 3):
            path = tmp_path / f"shard{i}.jsonl"
            r = run_cli("run", "scripted", "--white-agent-url", base, "--output", str(path),
                        *OPTS, "--shard", f"{i}/3")
            assert r.code == 0, r.err
            shards.append(path)
    sizes = [task_count(p) for p in shards]
    assert sizes == [8, 8, 8]
    assert comparable(build_report(shards)) == expected
    partial = build_report(shards[:2])
    assert any("shard(s) [3] of 3 are missing" in w for w in partial.warnings)
