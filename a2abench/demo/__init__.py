"""`a2abench demo`: a short, offline, deterministic benchmark run on generated data.

It starts the bundled scripted agent and a scripted user (an OpenAI-compatible stand-in for
the user LLM) on free loopback ports, generates a tau2-style task-tracker domain (and a
synthetic CRM org with its tasks), and runs the real `run` pipeline against them: every piece
is the production code path; only the agent and the user are scripted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2abench.run.events import EventSink


@dataclass
class DemoResult:
    output: Path
    metrics: dict[str, Path] = field(default_factory=dict)  # benchmark -> metrics.jsonl
    duration_s: float = 0.0
    scripted: bool = True  # the bundled scripted agent (not the user's) was benchmarked


# What the scripted agent scores, and why: it fails these on purpose so the reports show
# failures (the CRMArena rules are in demo/crm_rules.py, the tau2 phrasings in tau2_data.py).
EXPECTED = {
    "tau2": (10, "the scripted agent matches keywords: create_5 and complete_5 are phrased so "
                 "that it misreads them, on purpose"),
    "crmarena": (4, "the scripted agent has rules for only a few of CRMArena's 21 categories "
                    "(knowledge search, the most frequent issue, refusing private data) and "
                    "answers \"None\" to the rest, on purpose: it checks the pipeline, it is "
                    "not a baseline (examples/llm_agent.py is)"),
}


def explain(benchmark: str, passed: int, scored: int) -> str | None:
    """Why the scripted agent scored what it did (None for a benchmark without a note)."""
    if benchmark not in EXPECTED:
        return None
    want, why = EXPECTED[benchmark]
    if passed == want:
        return f"{passed}/{scored} is the expected score: {why}"
    return f"{passed}/{scored} differs from the expected {want}/{scored}: please report it"


def _prepare(output: Path) -> None:
    """The demo's folder exists and takes files, or a ConfigError says why not."""
    from a2abench.errors import ConfigError

    if output.exists() and not output.is_dir():
        raise ConfigError(f"--output {output} is a file, not a directory",
                          hint="Pass a new or empty directory (the demo writes its data and "
                               "metrics under it).")
    try:
        output.mkdir(parents=True, exist_ok=True)
        (output / "data").mkdir(exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--output {output} cannot be used: {exc.strerror or exc}",
                          hint="Pass a writable directory.") from None


@contextlib.contextmanager
def _quiet(name: str) -> Iterator[None]:
    """Raise a logger's level to ERROR for the block, then restore it."""
    logger = logging.getLogger(name)
    before = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(before)


def _crm_data(folder: Path) -> tuple[Path, Path]:
    """A small synthetic b2b org and one generated task per category."""
    import json

    from a2abench.benchmarks.crmarena.synthetic import generate_org, generate_tasks

    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "b2b.db"
    if not db.exists():
        generate_org(db, org="b2b", seed=0, scale="small")
    tasks = folder / "tasks.json"
    tasks.write_text(json.dumps(generate_tasks(db, org="b2b", seed=0, per_category=1)))
    return db, tasks


def _agent_app(tool_channel: str) -> Callable[[str], Any]:
    """The scripted agent: the A2A one, or its MCP twin (same rules, tools over MCP)."""
    from a2abench.demo import agent, mcp_agent

    if tool_channel == "mcp":
        return lambda base: mcp_agent.build_app(base, mcp_agent.ScriptedBrain())
    return agent.build_app


@contextlib.contextmanager
def _agent(url: str | None, tool_channel: str = "a2a") -> Iterator[str]:
    """The agent under test: the user's at `url`, else the bundled scripted one."""
    if url is not None:
        yield url
        return
    from a2abench.demo.servers import serve

    with serve(_agent_app(tool_channel)) as base:
        yield base


async def run_demo(output: Path, on_event: EventSink,
                   white_agent_url: str | None = None, tool_channel: str = "a2a") -> DemoResult:
    """The demo's two runs; against `white_agent_url` when given (still offline: the data
    and the user are generated here); `tool_channel` "mcp" serves the tools over MCP."""
    from a2abench.demo import tau2_data, user_llm
    from a2abench.demo.servers import serve
    from a2abench.run import RunConfig, execute_async

    started = time.monotonic()
    result = DemoResult(output=output, scripted=white_agent_url is None)
    _prepare(output)
    data_root = tau2_data.write(output / "data")
    channel = {"tool_channel": tool_channel}
    # The scripted user has no price; the "unknown price" warning would only be noise here.
    with _quiet("a2abench.llm"), _agent(white_agent_url, tool_channel) as agent_url, \
            serve(lambda _: user_llm.app()) as user_url:
        tau2 = RunConfig(
            benchmark="tau2", white_agent_url=agent_url, concurrency=4,
            output=output / "tau2" / "metrics.jsonl",
            options={"domain": "mock", "data_dir": str(data_root), "user_llm": "scripted-user",
                     "user_llm_base_url": user_url + "/v1", "llm_cache": False, **channel})
        await execute_async(tau2, on_event)
        assert tau2.output is not None  # set above
        result.metrics["tau2"] = tau2.output
        crm_db, tasks_file = await asyncio.to_thread(_crm_data, output / "data" / "crm")
        crm = RunConfig(
            benchmark="crmarena", white_agent_url=agent_url, concurrency=4,
            output=output / "crmarena" / "metrics.jsonl",
            options={"org": "b2b", "crm_db": str(crm_db), "tasks_file": str(tasks_file),
                     "judge_llm": "offline", "upstream_text": False, **channel})
        await execute_async(crm, on_event)
        assert crm.output is not None  # set above
        result.metrics["crmarena"] = crm.output
    result.duration_s = time.monotonic() - started
    return result
