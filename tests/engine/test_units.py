"""Small pieces of the engine: shards, seeds, output paths, the rate limiter, the displays."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from a2abench.errors import ConfigError
from a2abench.render.display import RichDisplay
from a2abench.render.output import Output, OutputMode
from a2abench.report.stats import LogHistogram, mean_ci, pass_hat_k, wilson
from a2abench.run import engine
from a2abench.run.config import RunConfig, Shard, redact, resolve_output, trial_seed
from a2abench.run.driver import TaskSpec
from a2abench.run.events import Progress, RunFinished, RunStarted, TaskFinished
from a2abench.run.plan import Plan, expand, select, shard_items
from tests.clihelp import run_cli
from tests.engine.conftest import agent


def test_shards_partition_the_plan_stably_and_evenly() -> None:
    items = expand([TaskSpec(task_id=str(i)) for i in range(10)], num_trials=3, seed=1)
    parts = [shard_items(items, Shard(index=i, count=4)) for i in (1, 2, 3, 4)]
    assert sorted(len(p) for p in parts) == [7, 7, 8, 8]
    keys = [i.key for p in parts for i in p]
    assert sorted(keys) == sorted(i.key for i in items) and len(set(keys)) == 30
    assert shard_items(items, Shard(index=2, count=4)) == parts[1]


@pytest.mark.parametrize("shard", [None, Shard(index=1, count=1), Shard(index=3, count=4),
                                   Shard(index=7, count=7)])
def test_the_lazy_plan_equals_the_listed_one(shard: Shard | None) -> None:
    tasks = [TaskSpec(task_id=str(i)) for i in range(5)]
    listed = shard_items(expand(tasks, num_trials=3, seed=9), shard)
    lazy = Plan(tuple(tasks), 3, 9, shard)
    assert list(lazy) == listed and len(lazy) == len(listed)


def test_a_huge_plan_is_never_held_in_memory() -> None:
    """Issue 17: 100,000 trials used to be planned as one list up front (hundreds of MB)."""
    import itertools
    import tracemalloc

    tasks = tuple(TaskSpec(task_id=str(i)) for i in range(50))
    tracemalloc.start()
    try:
        plan = Plan(tasks, 100_000, 1, Shard(index=2, count=3))
        first = list(itertools.islice(plan, 5))
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(plan) == len(range(1, 5_000_000, 3)) and len(first) == 5
    assert peak < 1_000_000, peak


@pytest.mark.parametrize("text", ["0/3", "4/3", "a/b", "3", "1/0"])
def test_bad_shards_are_usage_errors(text: str) -> None:
    with pytest.raises(ConfigError):
        Shard.parse(text)


def test_trial_seeds_are_stable_and_distinct() -> None:
    assert trial_seed(300, "7", 0) == trial_seed(300, "7", 0)
    assert len({trial_seed(300, "7", t) for t in range(50)}) == 50
    assert trial_seed(300, "7", 0) != trial_seed(301, "7", 0)


def test_task_selection_keeps_order_and_names_unknown_ids() -> None:
    tasks = [TaskSpec(task_id=str(i)) for i in range(5)]
    assert [t.task_id for t in select(tasks, ["3", "1"], None)] == ["1", "3"]
    assert [t.task_id for t in select(tasks, None, 2)] == ["0", "1"]
    with pytest.raises(ConfigError, match="unknown task id"):
        select(tasks, ["9"], None)


def test_output_is_a_file_unless_a_directory(tmp_path: Path) -> None:
    assert resolve_output(tmp_path / "x.jsonl", "b", None) == tmp_path / "x.jsonl"
    assert resolve_output(tmp_path, "b", None) == tmp_path / "metrics.jsonl"
    # Issue 18 item 9: a new path without a suffix is a directory, as --help says.
    assert resolve_output(tmp_path / "new", "b", None) == tmp_path / "new" / "metrics.jsonl"
    assert resolve_output(tmp_path / "new.jsonl", "b", None) == tmp_path / "new.jsonl"
    (tmp_path / "plain").write_text("")
    assert resolve_output(tmp_path / "plain", "b", None) == tmp_path / "plain"  # existing file
    default = resolve_output(None, "tau2", "airline")
    assert default.parts[0] == "runs" and default.parent.name.endswith("_tau2_airline")


def test_default_output_under_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with agent() as (_, base):
        assert run_cli("run", "scripted", "--white-agent-url", base,
                       "--option", "tasks=1").code == 0
    written = list((tmp_path / "runs").glob("*_scripted_scripted/metrics.jsonl"))
    assert len(written) == 1


def test_redaction_of_secret_keys_and_urls() -> None:
    data = redact({"api_key": "s", "nested": {"password": "p", "fine": 1},
                   "url": "http://u:p@host:8080/x", "token": None})
    assert data == {"api_key": "***", "nested": {"password": "***", "fine": 1},
                    "url": "http://***@host:8080/x", "token": None}
    public = RunConfig(benchmark="b", white_agent_url="http://a:b@h/", auth_token="t").public()
    assert public["auth_token"] == "***" and "a:b" not in str(public)


async def test_rate_limiter_spaces_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(engine.time, "monotonic", lambda: 100.0)
    monkeypatch.setattr(engine.asyncio, "sleep", fake_sleep)
    limiter = engine.RateLimiter(rate=4)
    for _ in range(3):
        await limiter.acquire()
    assert waits == pytest.approx([0.25, 0.5])


def test_pass_hat_k_and_intervals() -> None:
    assert pass_hat_k(4, 2, 1) == 0.5 and pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_hat_k(4, 4, 4) == 1.0 and pass_hat_k(4, 3, 4) == 0.0
    low, high = wilson(10, 10)
    assert 0.69 < low < 0.73 and high == pytest.approx(1.0)
    mean, lo, hi, method = mean_ci([0.5, 1.0, 0.25, 0.75])
    assert method == "t" and lo < mean < hi and mean == 0.625


def test_log_histogram_percentiles_are_close() -> None:
    h = LogHistogram()
    h.extend(float(v) for v in range(1, 10001))
    for q, exact in ((50, 5000), (90, 9000), (99, 9900)):
        assert abs((h.percentile(q) or 0) - exact) / exact < 0.01


def test_rich_display_shows_progress_and_errors() -> None:
    out = Output(OutputMode.RICH)
    from rich.console import Console

    buffer = io.StringIO()
    out._out = Console(file=buffer, force_terminal=True, width=120)
    display = RichDisplay(out)
    p = Progress(total=2)
    display(RunStarted("r", "bench", "dom", "o.jsonl", "agent", "1.0", 2, 0, 2, 2, None))
    p.done, p.scored, p.passed, p.agent_errors = 1, 1, 0, 1
    display(TaskFinished("t1", 0, None, "agent_error", 0.0, False, "agent_error", 1, 10.0,
                         "ProtocolError: bad", p))
    display(RunFinished("completed", "o.jsonl", p, 1.0))
    text = buffer.getvalue()
    assert "bench" in text and "t1 trial 0" in text and "ProtocolError: bad" in text
    assert "run completed" in text


def test_macro_average_and_groups_scored_apart(tmp_path: Path) -> None:
    import json

    from a2abench.report import build_report

    run = {"type": "run", "run_id": "r", "a2abench_version": "x", "benchmark": "b",
           "config": {}, "compat_key": {}, "started_at": "t",
           "scoring": {"headline": "macro_category_mean", "separate": {"privacy": ["p"]}}}
    rewards = {("a", 1): 1.0, ("a", 2): 1.0, ("a", 3): 0.0, ("b", 4): 0.0, ("p", 5): 1.0}
    lines = [json.dumps(run)] + [json.dumps({
        "type": "task", "run_id": "r", "benchmark": "b", "category": cat, "task_id": str(i),
        "trial": 0, "seed": 0, "status": "ok", "reward": r, "success": r == 1.0,
        "started_at": "t", "finished_at": "t"}) for (cat, i), r in rewards.items()]
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(lines) + "\n")
    rep = build_report([path])
    assert rep.score == pytest.approx((2 / 3 + 0.0) / 2)  # macro over a and b; p apart
    assert rep.group_scores == {"privacy": 1.0}


def test_a_progress_copy_is_a_snapshot() -> None:
    import dataclasses

    p = Progress(total=3, running=1)
    p.add("ok", True, 1.0)
    p.add("agent_error", False, 0.0)
    snap = p.copy()
    assert snap == dataclasses.replace(p) and type(snap) is Progress
    p.add("ok", True, 1.0)
    p.running = 0
    assert (snap.done, snap.passed, snap.running, snap.reward_sum) == (2, 1, 1, 1.0)


def test_the_plain_lines_have_no_double_space() -> None:
    """A plugin's run has no domain and its task-trials may have no termination: the run
    header said "quiz  against" and the task line "reward=0.00  1 turns"."""
    from rich.console import Console

    from a2abench.render.display import PlainDisplay

    out = Output(OutputMode.PLAIN)
    buffer = io.StringIO()
    out._out = Console(file=buffer, width=300)
    display = PlainDisplay(out)
    p = Progress(total=1, done=1, scored=1)
    display(RunStarted("r", "quiz", None, "o.jsonl", "agent", "1.0", 1, 0, 1, 1, None))
    display(TaskFinished("t1", 0, None, "ok", 0.0, False, None, 1, 10.0, None, p))
    lines = buffer.getvalue().splitlines()
    assert lines[0].startswith("run r: quiz against agent (A2A 1.0 JSONRPC)"), lines
    assert "reward=0.00 1 turns" in lines[1], lines
    assert ["  " in line for line in lines] == [False, False]


@pytest.mark.parametrize("what", ["answer", "the answer", "the agent's answer",
                                  "The agent's answer", "agent's answer"])
def test_agent_input_names_the_agents_input_once(what: str) -> None:
    from a2abench.errors import ProtocolError
    from a2abench.run.driver import agent_input

    with pytest.raises(ProtocolError) as info, agent_input(what):
        raise KeyError("total")
    assert info.value.message == "a2abench could not process the agent's answer (KeyError: " \
                                 "'total')"
