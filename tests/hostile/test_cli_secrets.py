"""Issue 17 item 8: secrets never reach metrics, reports or stdout: the agent's token echoed
back by the agent, a password in --user-llm-base-url, secret-named keys in --user-llm-args."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.run.config import Redactor, redact, redact_url_credentials, secret_values
from a2abench.run.registry import unregister
from tests.agents import LegacyAgent
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.engine.scripted import install
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.servers import serve
from tests.tau2 import gold_agent

TOKEN = "tok-CANARY-7f3a9c"
LLM_PASSWORD = "pw-CANARY-51ab"
NESTED_KEY = "sk-CANARY-nested-99"


@pytest.fixture(autouse=True)
def scripted_benchmark() -> Iterator[None]:
    install()
    yield
    unregister("scripted")


class EchoingAgent(LegacyAgent):
    """Echoes the bearer token it receives: in replies, and in JSON-RPC error messages."""

    def _reply(self, params: dict[str, Any]) -> dict[str, Any]:
        answer = super()._reply(params)
        auth = self.requests[-1]["headers"].get("authorization", "")
        answer["parts"][0]["text"] += f" (you sent {auth!r})"
        return answer


def test_agent_echo_of_the_token_is_redacted_everywhere(tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    with serve(lambda b: EchoingAgent(b, wrong_for=frozenset({"t001"})).app()) as base:
        r = run_cli("run", "scripted", "--white-agent-url", base, "--output", str(out),
                    "--auth-token", TOKEN, "--option", "tasks=2", "--option", "turns=1",
                    "--json")
    assert r.code == 0, r.err
    text = out.read_text()
    assert "Bearer ***" in text  # the echo is recorded, the secret is not
    for fmt in ("json", "markdown", "junit", "html", "table"):
        rep = run_cli("report", str(out), "--format", fmt)
        assert TOKEN not in rep.out + rep.err, fmt
    assert TOKEN not in text + r.out + r.err
    with serve(lambda b: EchoingAgent(b).app()) as base:
        found = run_cli("discover", base, "--auth-token", TOKEN)
        found_json = run_cli("discover", base, "--auth-token", TOKEN, "--json")
    assert found.code == 0 and found_json.code == 0, found.err
    assert "Bearer ***" in found.out
    assert TOKEN not in found.out + found.err + found_json.out + found_json.err


def test_llm_url_password_and_secret_args_are_redacted(tmp_path: Path) -> None:
    data_dir = shared_data("tau2").parent
    tasks = {t.id: t for t in load_domain("mock", data_dir=data_dir).tasks(
        task_ids=["create_task_1"])}

    def user(body: dict[str, Any]) -> dict[str, Any]:
        mine = [m for m in body["messages"] if m["role"] == "assistant"]
        return completion("TASK:create_task_1 hi" if len(mine) < 2 else "###STOP###")

    server = FakeLLMServer(handler=user)
    out = tmp_path / "m.jsonl"
    with server.running(), serve(lambda b: gold_agent.app(b, tasks, "gold")[0]) as base:
        url = server.base_url.replace("://", f"://me:{LLM_PASSWORD}@")
        r = run_cli("run", "tau2", "--white-agent-url", base, "--domain", "mock",
                    "--data-dir", str(data_dir), "--user-llm", "u", "--user-llm-base-url", url,
                    "--user-llm-args",
                    '{"temperature": 0, "extra_body": {"api_key": "' + NESTED_KEY + '"}}',
                    "--output", str(out), "--task-ids", "create_task_1", "--json")
    assert r.code == 0, r.err
    everything = out.read_text() + r.out + r.err
    for fmt in ("json", "markdown"):
        everything += run_cli("report", str(out), "--format", fmt).out
    assert LLM_PASSWORD not in everything and NESTED_KEY not in everything
    assert "***@127.0.0.1" in out.read_text()


def test_cli_errors_never_show_url_passwords(tmp_path: Path) -> None:
    r = run_cli("run", "scripted", "--white-agent-url", f"http://me:{LLM_PASSWORD}@127.0.0.1:9",
                "--output", str(tmp_path / "m.jsonl"), "--retries", "0", "--timeout", "1")
    assert r.code == 1 and "http://***@127.0.0.1:9" in r.err and LLM_PASSWORD not in r.err


def test_redaction_units() -> None:
    assert redact({"args": '{"api_key": "k-123456"}', "max_tokens": 5,
                   "headers": {"X-Api-Key": "abcdefgh"}}) == {
        "args": "***", "max_tokens": 5, "headers": {"X-Api-Key": "***"}}
    assert set(secret_values({"u": "http://a:p%40ss-word@h/", "o": {"client_secret": "s3cr3t!"},
                              "text": '{"deep": {"password": "hunter22"}}'})) >= {
        "p%40ss-word", "p@ss-word", "s3cr3t!", "hunter22"}
    assert redact_url_credentials("HTTP 401 from http://me:pw-1@h:9/x and https://tok@h2/") \
        == "HTTP 401 from http://***@h:9/x and https://***@h2/"
    r = Redactor(['quo"te-secret'])
    assert r.line(b'{"m": "x quo\\"te-secret y"}') == b'{"m": "x *** y"}'
    assert r.text("short ab") == "short ab"
