"""The example benchmark plugin (examples/plugin) runs through the entry-point path.

CI installs it (`.ci/run`: `pip install -e examples/plugin`), so the test uses the installed
distribution. Anywhere else the test writes a throwaway dist-info whose entry_points.txt is
made from the example's own pyproject.toml and puts it on sys.path: either way the `a2abench`
command (its `main`, in this process) finds `arith` through `importlib.metadata` entry points,
exactly as for a user's package. Both runs go over A2A to a real a2a-sdk agent on loopback.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.agents import ROOT, load_example
from tests.clihelp import run_cli
from tests.servers import serve

PLUGIN = ROOT / "examples" / "plugin"
_QUESTION = re.compile(r"What is (-?\d+) ([+*-]) (-?\d+)\?")


def solver_app(base: str) -> Any:
    """An a2a-sdk agent that answers the example's questions correctly."""
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.server.tasks import TaskUpdater
    from a2a.types import Part

    echo = load_example("echo_agent.py")

    class Solver(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            if context.current_task is None:
                await event_queue.enqueue_event(echo.new_task(
                    context.task_id, context.context_id,
                    echo.TaskState.TASK_STATE_SUBMITTED, history=[context.message]))
            found = _QUESTION.search(echo._content(context))
            assert found, echo._content(context)
            left, op, right = int(found[1]), found[2], int(found[3])
            answer = left + right if op == "+" else left - right if op == "-" else left * right
            updater = TaskUpdater(event_queue, context.task_id, context.context_id)
            await updater.add_artifact([Part(text=f"The answer is {answer}")], name="answer")
            await updater.complete()

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()

    card = echo.agent_card(base)
    handler = echo.DefaultRequestHandler(agent_executor=Solver(),
                                         task_store=echo.InMemoryTaskStore(), agent_card=card)
    return echo.Starlette(routes=[*echo.create_agent_card_routes(card),
                                  *echo.create_jsonrpc_routes(handler, rpc_url="/a2a")])


def _installed() -> bool:
    return any(ep.name == "arith" for ep in importlib.metadata.entry_points(
        group="a2abench.benchmarks"))


def _register(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`arith` found through its entry point: installed (CI), else a throwaway dist-info made
    from the example's pyproject.toml put first on sys.path with the example's package, as
    PYTHONPATH would at a process's start (the registry scans entry points per sys.path)."""
    if _installed():
        return
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text())["project"]
    points = project["entry-points"]["a2abench.benchmarks"]
    dist = tmp_path / "site" / f"a2abench_arith-{project['version']}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n")
    (dist / "entry_points.txt").write_text(
        "[a2abench.benchmarks]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()))
    monkeypatch.syspath_prepend(str(PLUGIN))
    monkeypatch.syspath_prepend(str(dist.parent))


@pytest.mark.slow
def test_the_example_plugin_is_found_by_entry_point_and_scores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # In this process: what is proved is the discovery through entry points and the scores
    # (the exit codes are main()'s), not anything of a process of its own.
    _register(tmp_path, monkeypatch)
    listing = run_cli("run", "--help")
    assert listing.code == 0 and "arith" in listing.out, listing.err
    flags = run_cli("run", "arith", "--help")  # the options model's fields are flags
    assert "--count" in flags.out and "A2ABENCH_ARITH_TASK_SEED" in flags.out, flags.err
    with serve(solver_app) as solver:
        good = run_cli("run", "arith", "--white-agent-url", solver, "--output",
                       str(tmp_path / "good.jsonl"), "--count", "2", "--fail-under", "1.0")
    assert good.code == 0, good.err
    assert "Score 1.0000" in good.out and "6/6 passed" in good.out
    # The echo agent repeats the question: its last number is the right operand, never the
    # answer (operands are at least 2), so the run finishes and misses --fail-under.
    with serve(lambda base: load_example("echo_agent.py").build_app(base)) as echo:
        bad = run_cli("run", "arith", "--white-agent-url", echo, "--output",
                      str(tmp_path / "bad.jsonl"), "--option", "count=2",
                      "--option", 'operations=["add"]', "--fail-under", "0.5")
    assert bad.code == 3, bad.out + bad.err
    assert "0/2 passed" in bad.out
