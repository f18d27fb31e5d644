"""Issue 17 item 12: bad input to every command ends in one line `Error: ...` and a documented
exit code (1 could not do the work, 2 usage, 3 gate), never a traceback.

Found by probing each command with malformed cards, odd URLs, forged records, a full disk
(/dev/full), an output path under a regular file, and forged files given to --resume.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from a2abench.run.registry import unregister
from tests.agents import LegacyAgent
from tests.clihelp import Result, run_cli
from tests.engine.scripted import install
from tests.servers import serve

RUN = {"type": "run", "run_id": "r", "schema_version": 1, "a2abench_version": "0",
       "benchmark": "tau2", "config": {}, "compat_key": {}, "started_at": ""}
TASK = {"type": "task", "run_id": "r", "benchmark": "tau2", "task_id": "t", "trial": 0,
        "seed": 1, "status": "ok", "reward": 1.0, "success": True, "started_at": "",
        "finished_at": ""}

FORGED: dict[str, list[dict[str, Any]]] = {
    "compat-key-list": [{**RUN, "compat_key": [1]}, {**RUN, "run_id": "s"}],
    "shard-text": [{**RUN, "shard": "x"}, {**RUN, "run_id": "s", "shard": [1, 2]}],
    "benchmark-number": [{**RUN, "benchmark": 5}, TASK],
    "run-id-object": [{**RUN, "run_id": {"a": 1}}, {**TASK, "run_id": {"a": 1}}, TASK],
    "scoring-list": [{**RUN, "scoring": [1]}, TASK],
    "scoring-separate-text": [{**RUN, "scoring": {"separate": {"x": "abc"}}}, TASK],
    "task-fields-wrong-types": [RUN, {**TASK, "task_id": [1], "trial": [2], "labels": "a",
                                      "error": "boom", "latency_ms": "x", "turns": -5}],
    "task-numbers-as-text": [RUN, {**TASK, "latency_ms": "y", "input_tokens": "x",
                                   "cost_usd": "z", "turns": [1], "labels": "abc"}],
    "request-latency-text": [RUN, TASK, {"type": "request", "run_id": "r", "latency_ms": "x"}],
}


def ok_exit(r: Result, *codes: int) -> None:
    assert r.code in codes, (r.code, r.out, r.err)
    assert "Traceback" not in r.out + r.err, r.err
    if r.code:
        assert any(line.startswith("Error: ") for line in r.err.splitlines()), r.err


@pytest.fixture(autouse=True)
def scripted_benchmark() -> Iterator[None]:
    install()
    yield
    unregister("scripted")


@pytest.mark.parametrize("name", sorted(FORGED))
def test_report_on_forged_records(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in FORGED[name]))
    for fmt in ("table", "json", "markdown", "junit", "html"):
        ok_exit(run_cli("report", str(path), "--format", fmt), 0, 1)
    ok_exit(run_cli("report", str(path), "--compare", "--format", "html"), 0, 1)
    ok_exit(run_cli("report", str(path), "--format", "tau2"), 0, 1, 2)  # 2: unknown benchmark
    ok_exit(run_cli("report", str(path), "--compare"), 0, 1)
    ok_exit(run_cli("report", str(path), "--fail-under", "0.5"), 0, 1, 3)


def test_report_on_bad_paths_and_outputs(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(RUN) + "\n" + json.dumps(TASK) + "\n")
    (tmp_path / "bin.jsonl").write_bytes(bytes(range(256)) * 20)
    ok_exit(run_cli("report", str(tmp_path / "missing.jsonl")), 1, 2)
    ok_exit(run_cli("report", str(tmp_path)), 1)
    ok_exit(run_cli("report", str(tmp_path / "bin.jsonl")), 1)
    for target in (tmp_path, good / "x.md", Path("/dev/full")):
        r = run_cli("report", str(good), "--format", "markdown", "--output", str(target))
        ok_exit(r, 1)
        assert "cannot write" in r.err
    ok_exit(run_cli("report", str(good), "--compare", "--format", "markdown", "--output",
                    str(good / "c.md")), 1)


def _card(make: Callable[[dict[str, Any], str], Any]) -> Callable[[str], Any]:
    class Agent(LegacyAgent):
        def card(self) -> Any:
            return make(super().card(), self.base)
    return lambda base: Agent(base).app()


CARDS: dict[str, Callable[[dict[str, Any], str], Any]] = {
    "protocol-version-number": lambda c, b: {**c, "protocolVersion": 0.3},
    "url-port-out-of-range": lambda c, b: {**c, "url": "http://127.0.0.1:99999/rpc"},
    "url-broken-ipv6": lambda c, b: {**c, "url": "http://[::1/rpc"},
    "url-nul": lambda c, b: {**c, "url": b + "/rpc\x00"},
    "url-number": lambda c, b: {**c, "url": 5},
    "skills-text": lambda c, b: {**c, "skills": "abc"},
    "interfaces-junk": lambda c, b: {**c, "protocolVersion": "1.0",
                                     "supportedInterfaces": [1, {"url": 5}]},
    "card-is-a-list": lambda c, b: [c],
}


@pytest.mark.parametrize("name", sorted(CARDS))
def test_discover_and_run_on_malformed_cards(name: str, tmp_path: Path) -> None:
    with serve(_card(CARDS[name])) as base:
        ok_exit(run_cli("discover", base, "--timeout", "2"), 0, 1)
        ok_exit(run_cli("discover", base, "--timeout", "2", "--json"), 0, 1)
        ok_exit(run_cli("run", "scripted", "--white-agent-url", base, "--output",
                        str(tmp_path / "m.jsonl"), "--option", "tasks=1", "--retries", "0",
                        "--timeout", "2"), 0, 1)


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:99999", "http://a b",
                                 "http://127.0.0.1:9/\x00", "ftp://x", "http://", ""])
def test_odd_agent_urls(url: str, tmp_path: Path) -> None:
    ok_exit(run_cli("discover", url, "--timeout", "1"), 1, 2)
    ok_exit(run_cli("run", "scripted", "--white-agent-url", url, "--output",
                    str(tmp_path / "m.jsonl"), "--timeout", "1", "--retries", "0"), 1, 2)


def test_unwritable_outputs_and_forged_resume_files(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    forged = {"compat-key-list": [{**RUN, "benchmark": "scripted", "compat_key": [1]}],
              "task-id-list": [{"type": "task", "run_id": "r", "task_id": [1], "trial": [2]}]}
    with serve(lambda b: LegacyAgent(b).app()) as base:
        for target in ("/dev/full", str(afile / "m.jsonl")):
            r = run_cli("run", "scripted", "--white-agent-url", base, "--output", target,
                        "--option", "tasks=2")
            ok_exit(r, 1)
            assert "cannot write" in r.err
        for name, lines in forged.items():
            path = tmp_path / f"{name}.jsonl"
            path.write_text("".join(json.dumps(x) + "\n" for x in lines))
            before = path.read_bytes()
            ok_exit(run_cli("run", "scripted", "--white-agent-url", base, "--output",
                            str(path), "--option", "tasks=2", "--resume"), 1)
            assert path.read_bytes() == before
