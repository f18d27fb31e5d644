"""CRMArena harness costs: reply parsing, one task-trial, scoring every reference task.

    python perf/crmarena_run.py [--repeat 200] [--data-dir ../shared/data]

1. Reply parsing: `parse_reply` (balanced `raw_decode` scan, then tags) on agent-shaped
   replies, against the seed design's non-greedy regex + `json.loads` in the same run; also
   counts the SOSL replies the regex loses.
2. One task-trial through `CRMArenaDriver.run_task` with an in-process agent (no network) on
   the large synthetic b2b org: an oracle that answers at once, and a querying agent (SOSL,
   then two SOQL queries, then the answer). Baseline in the same run: the same three
   `OrgSandbox.observe` calls made directly; the ratio is what the harness adds around them
   (task message, parsing, transcript, scoring, a worker thread per query).
3. Offline scoring of every reference task (oracle answers), tasks per second.
Targets: parse p50 <= 50 us; harness overhead per querying task-trial <= 2x the raw queries.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _util import ROOT, machine

from a2abench.benchmarks.crmarena.actions import parse_reply
from a2abench.benchmarks.crmarena.driver import CRMArenaDriver, CRMArenaOptions
from a2abench.benchmarks.crmarena.evaluator import Evaluator
from a2abench.benchmarks.crmarena.sandbox import OrgSandbox
from a2abench.benchmarks.crmarena.synthetic import generate_org, generate_tasks
from a2abench.benchmarks.crmarena.tasks import read_rows, tasks_from_rows
from a2abench.run.driver import TaskContext

SOSL = "FIND {refund policy} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title, Summary)"
REPLIES = [
    json.dumps({"action": "execute", "query": SOSL}),
    "I will search the knowledge base first.\n```json\n"
    + json.dumps({"action": "execute", "query": SOSL}) + "\n```",
    "<thought>Count the cases per agent.</thought>\n<execute>SELECT OwnerId, COUNT(Id) FROM "
    "Case WHERE CreatedDate = LAST_N_MONTHS:3 GROUP BY OwnerId</execute>",
    json.dumps({"action": "respond", "answer": "005Wt000003NDqDIAW"}),
    "<thought>" + "Reasoning about the observation. " * 40 + "</thought>\n<respond>None</respond>",
]
_NON_GREEDY = re.compile(r"\{.*?\}", re.DOTALL)


def regex_parse(text: str) -> Any:
    """The seed design's parser: a fenced object, else the first non-greedy {...}."""
    fenced = re.search(r"```json\s*(\{.*?\})\s*```", text, re.DOTALL)
    match = fenced.group(1) if fenced else (m.group(0) if (m := _NON_GREEDY.search(text))
                                            else None)
    try:
        obj = json.loads(match) if match else None
    except ValueError:
        return None
    return obj if isinstance(obj, dict) and "action" in obj else None


def bench_parse(repeat: int) -> None:
    def per_reply(fn: Any) -> float:
        samples = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            for text in REPLIES:
                fn(text)
            samples.append((time.perf_counter() - t0) / len(REPLIES))
        return statistics.median(samples) * 1e6

    ours, regex = per_reply(parse_reply), per_reply(regex_parse)
    lost = sum(1 for t in REPLIES[:2] if regex_parse(t) is None)
    print(f"parse_reply        p50 {ours:7.1f} us/reply")
    print(f"regex baseline     p50 {regex:7.1f} us/reply  (ratio {ours / regex:.2f}x; "
          f"loses {lost} of 2 SOSL replies, parse_reply loses "
          f"{sum(1 for t in REPLIES if parse_reply(t) is None)})")


class _Reply:
    """The slice of a2abench.a2a.AgentReply the episode reads: a plain message, no task state."""

    state = None
    task = None

    def __init__(self, text: str) -> None:
        self.text, self.data = text, []


class _Chat:
    def __init__(self, script: list[str]) -> None:
        self.script = list(script)
        self.log: list[dict[str, Any]] = []  # a2abench.a2a.Conversation.log: one entry per reply

    async def send(self, *parts: Any) -> _Reply:
        return _Reply(self.script.pop(0))


class _Client:
    def __init__(self, script: list[str]) -> None:
        self.script = script

    def conversation(self) -> _Chat:
        return _Chat(self.script)


async def bench_task(repeat: int, root: Path) -> None:
    db = root / "b2b.db"
    generate_org(db, org="b2b", seed=0, scale="large")
    rows = generate_tasks(db, org="b2b", seed=0, per_category=1)
    tasks_file = root / "tasks.jsonl"
    tasks_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    driver = CRMArenaDriver(CRMArenaOptions(tasks_file=tasks_file, crm_db=db,
                                            judge_llm="offline"))
    await driver.setup()
    spec = next(s for s in driver.tasks() if s.category == "handle_time")
    task = spec.data
    queries = [SOSL, "SELECT OwnerId, COUNT(Id) FROM Case WHERE CreatedDate = LAST_N_MONTHS:6 "
               "GROUP BY OwnerId", f"SELECT Id, Name FROM User WHERE Id = '{task.answer[0]}'"]
    querying = [json.dumps({"action": "execute", "query": queries[0]}),
                f"<execute>{queries[1]}</execute>", f"<execute>{queries[2]}</execute>",
                f"<respond>{task.answer[0]}</respond>"]

    async def one(script: list[str]) -> float:
        ctx = TaskContext(task=spec, trial=0, seed=1, client=_Client(script))  # type: ignore[arg-type]
        t0 = time.perf_counter()
        outcome = await driver.run_task(ctx)
        assert outcome.reward == 1.0, outcome
        return time.perf_counter() - t0

    oracle = [await one([f"<respond>{task.answer[0]}</respond>"]) for _ in range(repeat)]
    full = [await one(list(querying)) for _ in range(repeat)]
    with OrgSandbox.open(db) as sandbox:
        base = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            for q in queries:
                sandbox.observe(q, today=task.today)
            base.append(time.perf_counter() - t0)
    await driver.aclose()
    msg = len(driver.schema_text)
    print(f"task-trial, oracle (1 reply)        p50 {statistics.median(oracle) * 1e3:6.2f} ms "
          f"(task message with a {msg:,}-character schema)")
    print(f"task-trial, 3 queries + answer      p50 {statistics.median(full) * 1e3:6.2f} ms")
    print(f"baseline: the 3 observe() calls     p50 {statistics.median(base) * 1e3:6.2f} ms  "
          f"(ratio {statistics.median(full) / statistics.median(base):.2f}x)")


async def bench_scoring(data_dir: Path) -> None:
    files = [data_dir / "crmarena/tasks/crmarenapro_b2b_tasks.json",
             data_dir / "crmarena/tasks/crmarena_original_tasks_natural.json"]
    if not all(f.is_file() for f in files):
        print(f"scoring: skipped (reference tasks not found under {data_dir})")
        return
    tasks = [t for f in files for t in tasks_from_rows(read_rows(f))]
    evaluator = Evaluator(None, None)
    t0 = time.perf_counter()
    for t in tasks:
        answer = ("I cannot share that for privacy reasons."
                  if t.reward_metric == "privacy_rejection" else ", ".join(t.answer))
        v = await evaluator.evaluate(category=t.category, metric=t.reward_metric,
                                     truth=t.answer, proposed=answer, trajectory=[answer])
        assert v.reward == 1.0
    elapsed = time.perf_counter() - t0
    fuzzy = sum(t.reward_metric == "fuzzy_match" for t in tasks)
    print(f"offline scoring of {len(tasks):,} reference tasks ({fuzzy} free-text): "
          f"{elapsed:.2f} s, {len(tasks) / elapsed:,.0f} tasks/s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args()
    print(machine())
    bench_parse(args.repeat * 10)
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(bench_task(args.repeat, Path(tmp)))
    asyncio.run(bench_scoring(args.data_dir))


if __name__ == "__main__":
    main()
