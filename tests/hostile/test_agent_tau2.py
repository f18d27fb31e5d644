"""`a2abench run tau2` (mock domain, a real fake LLM server as the user) against a white agent
that answers with 5,000 tool calls in one DataPart, and a user LLM that answers with a reply
over the byte cap: both classified, and the run goes on."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.hostile.hostile_agent import hostile


def _user(body: dict[str, Any]) -> dict[str, Any]:
    said = [m for m in body["messages"] if m["role"] == "assistant"]
    return completion("I need help with my tasks." if not said else "###STOP###")


def _tasks(out: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.read_text().splitlines() if '"type":"task"' in x]


def _run(base: str, llm: FakeLLMServer, out: Path, *extra: str) -> Any:
    data_dir = shared_data("tau2").parent
    return run_cli("run", "tau2", "--white-agent-url", base, "--domain", "mock",
                   "--data-dir", str(data_dir), "--user-llm", "u", "--user-llm-base-url",
                   llm.base_url, "--output", str(out),
                   # tasks whose upstream evaluator cannot raise (that is issue 18 item 2)
                   "--task-ids", "create_task_1", "--task-ids", "update_task_1",
                   "--task-ids", "impossible_task_1",
                   "--concurrency", "1", "--no-llm-cache", *extra)


def test_thousands_of_tool_calls_are_an_agent_error(tmp_path: Path) -> None:
    out = tmp_path / "calls.jsonl"
    llm = FakeLLMServer(handler=_user)
    with llm.running(), hostile("tool_calls") as (_, base):
        result = _run(base, llm, out)
    assert result.code == 0, result.err
    first, *rest = _tasks(out)
    assert (first["status"], first["error"]["error"]) == ("agent_error", "ReplyLimitExceeded")
    assert "5000 tool calls; the limit is 100" in first["error"]["message"]
    assert first["reward"] == 0.0 and first["transcript"]  # the conversation is kept
    assert len(rest) == 2 and all(r["status"] == "ok" for r in rest)


def test_an_oversize_user_llm_reply_is_classified(tmp_path: Path) -> None:
    out = tmp_path / "llm.jsonl"
    calls = {"n": 0}

    def user(body: dict[str, Any]) -> dict[str, Any]:
        calls["n"] += 1
        if calls["n"] == 1:
            return completion("x" * 3_000_000)
        return _user(body)

    llm = FakeLLMServer(handler=user)
    with llm.running(), hostile("normal") as (_, base):
        result = _run(base, llm, out, "--max-reply-bytes", "1000000")
    assert result.code == 0, result.err
    first, *rest = _tasks(out)
    assert first["status"] == "infrastructure_error"
    assert "larger than the 1 MB cap" in first["error"]["message"]
    assert all(r["status"] == "ok" for r in rest)


@pytest.mark.parametrize(("mode", "where"), [
    ("surrogate", "U+D800 at character 3 of parts[0].text"),
    ("surrogate_arg", "U+D800 at character 0 of parts[0].data.tool_calls[0].arguments.user_id"),
])
def test_a_lone_surrogate_in_the_agents_reply_is_the_agents_error(
        tmp_path: Path, mode: str, where: str) -> None:
    """Its text once failed the user simulator's next LLM request: a harness_error, the run
    incomplete, --fail-under refused. Now the agent's error, scored as its failure."""
    out = tmp_path / f"{mode}.jsonl"
    llm = FakeLLMServer(handler=_user)
    with llm.running(), hostile(mode) as (_, base):
        result = _run(base, llm, out, "--fail-under", "0.5")
    first, *rest = _tasks(out)
    assert (first["status"], first["error"]["error"]) == ("agent_error", "ProtocolError")
    assert first["error"]["message"] == (
        f"the agent's reply is not valid Unicode text: a lone surrogate ({where}), which "
        "UTF-8 cannot encode")
    assert first["reward"] == 0.0
    assert len(rest) == 2 and all(r["status"] == "ok" for r in rest)
    # --fail-under evaluates the (complete) score, which counts the failure
    assert result.code == 3, result.err
    assert re.search(r"score 0\.\d+ is below --fail-under 0\.5", result.err), result.err
