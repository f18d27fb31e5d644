"""What the echo agent really scores (issue 22: the docs said zero; it passes every airline
task that changes nothing in the database). Pins the figures examples/README.md gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from a2abench.demo import user_llm
from a2abench.demo.example_agent import echo_app
from a2abench.report import build_report
from a2abench.run import RunConfig, execute_async
from tests.conftest import shared_data
from tests.servers import serve, serve_in_thread

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.parametrize(("max_tasks", "passed"), [(3, 3), (None, 24)])
async def test_the_echo_agent_scores_what_the_docs_say(tmp_path: Path, max_tasks: int | None,
                                                       passed: int) -> None:
    data = shared_data("tau2").parent
    out = tmp_path / "m.jsonl"
    with serve(echo_app) as agent, serve_in_thread(user_llm.app()) as user:
        await execute_async(RunConfig(
            benchmark="tau2", white_agent_url=agent, concurrency=8, output=out,
            max_tasks=max_tasks, options={
                "domain": "airline", "data_dir": str(data), "user_llm": "scripted-user",
                "user_llm_base_url": user + "/v1", "llm_cache": False}), lambda e: None)
    report = build_report([out])
    assert (report.passed, report.scored) == (passed, max_tasks or 50)
    readme = (ROOT / "examples" / "README.md").read_text()
    assert f"{passed}/{max_tasks or 50}" in readme and "scores zero" not in readme
