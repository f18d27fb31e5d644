"""Scenario dual on loopback: a deterministic fake user LLM (a pure function of the request,
so that two runs asking the same get the same), the gold white agent, and a2abench's example
user participant around the same fake LLM."""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from a2abench.benchmarks.tau2 import load_domain
from a2abench.benchmarks.tau2.models import Task
from a2abench.run.config import trial_seed
from tests.clihelp import Result, run_cli
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.servers import serve
from tests.tau2 import gold_agent


def tasks_of(domain: str, ids: list[str] | None = None, count: int | None = None,
             **load: Any) -> dict[str, Task]:
    d = load_domain(domain, data_dir=shared_data("tau2").parent, **load)
    return {t.id: t for t in d.tasks(task_ids=ids, max_tasks=count)}


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:12]


def user_llm(tasks: dict[str, Task], trials: int = 1, seed: int = 300) -> Any:
    """A user that does its own gold tool calls one at a time, then names the task in words
    drawn from its scenario, then thanks the agent and stops. Everything it returns (tool
    call ids included) is a function of the request alone."""
    seeds = {trial_seed(seed, t, k): t for t in tasks for k in range(trials)}

    def handler(body: dict[str, Any]) -> dict[str, Any]:
        task = tasks[seeds[body["seed"]]]
        move, action = gold_agent.user_move(
            task, [m for m in body["messages"] if m["role"] == "assistant"])
        key = _digest(body["messages"])
        if action is not None:
            return completion(None, [{"id": f"call_{key}", "name": action.name,
                                      "arguments": action.arguments}])
        if move == "name":
            words = str(task.user_scenario).split()[:12]
            return completion(f"TASK:{task.id} " + " ".join(words) + f" [{key}]")
        return completion(f"Thank you, that is all. [{key}] ###STOP###")

    return handler


def user_args(llm: FakeLLMServer, *extra: str) -> argparse.Namespace:
    """`a2abench-example-agent user` flags, parsed by the console script's own parser."""
    from a2abench.demo.example_agent import parser

    return parser().parse_args(["user", "--user-llm", "fake-user", "--user-llm-base-url",
                                llm.base_url, "--no-llm-cache", *extra])


@contextmanager
def example_user(llm: FakeLLMServer) -> Iterator[str]:
    """The example user participant (the console script's app) on loopback."""
    from a2abench.demo.example_agent import build

    with serve(lambda base: build("user", base, user_args(llm))) as url:
        yield url


@contextmanager
def gold(tasks: dict[str, Task], mode: str = "gold",
         plans: dict[str, Any] | None = None) -> Iterator[str]:
    with serve(lambda base: gold_agent.app(base, tasks, mode, plans)[0]) as url:
        yield url


def run_tau2(domain: str, agent: str, out: Path, ids: list[str], *flags: str,
             tables: bool = False) -> Result:
    """`a2abench run tau2`; its stdout is JSON lines (--json) unless the test reads the
    report's tables (`tables`): a multi-party report's Rich tables cost ~60 ms a run."""
    task_flags = [arg for i in ids for arg in ("--task-ids", i)]
    return run_cli("run", "tau2", "--white-agent-url", agent, "--domain", domain,
                   "--data-dir", str(shared_data("tau2").parent), "--output", str(out),
                   "--retry-delay", "0.01", "--no-llm-cache", *task_flags, *flags,
                   *(() if tables else ("--json",)))


def records(path: Path, kind: str = "task") -> list[dict[str, Any]]:
    return [r for r in map(json.loads, path.read_text().splitlines()) if r["type"] == kind]


# What the user's own LLM accounting adds to its messages (the built-in simulator knows it,
# a participant keeps it to itself) and when a message was made: not part of the match.
_ACCOUNTING = ("timestamp", "cost", "usage")


def comparable(record: dict[str, Any]) -> dict[str, Any]:
    """A task record's match: outcome, scores and transcript (without timestamps and the
    user's LLM cost; tool-call ids numbered in order of appearance, since a2abench makes up
    a random one for each call the gold agent sends without an id)."""
    ids: dict[str, str] = {}

    def number(value: str) -> str:
        return ids.setdefault(value, f"id{len(ids)}")

    transcript = []
    for m in record["transcript"] or []:
        m = {k: v for k, v in m.items() if k not in _ACCOUNTING}
        if m.get("tool_calls"):
            m["tool_calls"] = [{**c, "id": number(c["id"])} for c in m["tool_calls"]]
        if m.get("role") == "tool":
            m["id"] = number(m["id"])
        transcript.append(m)
    keep = ("task_id", "trial", "seed", "status", "reward", "success", "reward_components",
            "labels", "termination", "turns", "tool_calls", "requests")
    return {**{k: record[k] for k in keep}, "transcript": transcript,
            "reward_info": record["details"].get("reward_info")}
