"""Every request example of docs/serve-green.md runs as written (only the agent's address is
replaced by a real agent's), and no Result of any of them holds an operator-only value."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from a2abench.green import GreenSettings
from tests.agents import echo_agent
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.green.helpers import STATE, green_server, result_of, sdk_client, send
from tests.servers import serve

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DOC_AGENT = re.compile(r"http://purple:9019/?")


def doc_requests() -> list[str]:
    """The code blocks of docs/serve-green.md that are requests (JSON or agentify text)."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in (ROOT / "docs/serve-green.md").read_text().splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            if current is None:
                current = []
            else:
                blocks.append(textwrap.dedent("".join(current)))
                current = None
        elif current is not None:
            current.append(line)
    found = [b for b in blocks if ('"participants"' in b or '"white_agent_url"' in b
                                   or "<white_agent_url>" in b) and '"summary"' not in b]
    assert len(found) == 4, found  # AgentBeats, CRMArena seed, two agentify dialects
    return found


def polite_user(body: dict[str, Any]) -> dict[str, Any]:
    """A user simulator for any task: says one thing, then stops."""
    spoke = any(m["role"] == "assistant" for m in body["messages"][1:])
    return completion("Thanks, that is all. ###STOP###" if spoke else "Hi, I need help.")


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer(handler=polite_user)
    with server.running():
        yield server


@pytest.fixture(scope="module")
def white() -> Iterator[str]:
    with serve(echo_agent) as base:
        yield base


@pytest.fixture(scope="module")
def crm_org(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A tiny org and its tasks file (only read by the runs): built once for the module."""
    from a2abench.benchmarks.crmarena.synthetic import generate_org, generate_tasks

    root = tmp_path_factory.mktemp("crm-operator")
    db = root / "org-b2b.db"
    generate_org(db, org="b2b", scale="tiny")
    tasks_file = root / "crm-tasks.json"
    tasks_file.write_text(json.dumps(generate_tasks(db, org="b2b", per_category=1)))
    return db, tasks_file


@pytest.fixture
def operator(tmp_path: Path, llm: FakeLLMServer, crm_org: tuple[Path, Path]
             ) -> tuple[GreenSettings, list[str]]:
    """Settings with an operator-only value of every kind; returns them and those values."""
    db, tasks_file = crm_org
    data_dir = str(shared_data("tau2").parent)
    settings = GreenSettings(
        output_dir=tmp_path / "operator-runs", allow_hosts=("127.0.0.0/8",),
        auth_token=SecretStr("operator-token-123"), presets={
            "tau2": {"data_dir": data_dir, "user_llm_base_url": llm.base_url,
                     "user_llm": "gpt-4.1"},
            "crmarena": {"tasks_file": str(tasks_file), "crm_db": str(db), "org": "b2b",
                         "judge_llm": "offline"}})
    secret_values = [data_dir, llm.base_url, llm.base_url.split("//")[1], str(tasks_file),
                     str(db), str(db.parent), str(tmp_path), "operator-runs", "127.0.0.0/8",
                     "operator-token-123", "metrics.jsonl"]
    return settings, secret_values


@pytest.mark.slow
@pytest.mark.parametrize("index", range(4))
async def test_doc_request_runs_and_its_result_is_leaderboard_safe(
        operator: tuple[GreenSettings, list[str]], white: str, index: int) -> None:
    settings, operator_values = operator
    request = DOC_AGENT.sub(white, doc_requests()[index])
    with green_server(settings) as (base, _):
        async with sdk_client(base, token="operator-token-123", streaming=False) as client:
            out = await send(client, request)
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    text, data = result_of(out.task)  # type: ignore[arg-type]
    assert data["summary"]["task_trials"] >= 1
    published = text + json.dumps(data)
    assert [v for v in operator_values if v in published] == []
    if "task_split" in request:  # tau-bench positions 1 and 2 of retail's test split
        assert data["config"]["task_ids"] == ["9", "12"] and data["split"] == "test"
    if "max_steps" in request:
        assert data["config"]["options"]["max_steps"] == 20
