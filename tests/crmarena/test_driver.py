"""Driver options, registration and the parts of a run that need no agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from a2abench.benchmarks.crmarena import prompt, upstream
from a2abench.benchmarks.crmarena.driver import CRMArenaDriver, CRMArenaOptions
from a2abench.run.registry import get_driver
from tests.clihelp import run_cli


@pytest.mark.parametrize(("given", "dataset", "org", "split"), [
    ({}, "crmarenapro", "b2b", "b2b"),
    ({"org": "b2c", "interactive": True}, "crmarenapro", "b2c", "b2c_interactive"),
    ({"org": "original"}, "crmarena", "original", "original"),
    ({"dataset": "crmarena"}, "crmarena", "original", "original"),
])
def test_dataset_and_org_imply_each_other(given: dict[str, Any], dataset: str, org: str,
                                          split: str) -> None:
    o = CRMArenaOptions.model_validate(given)
    assert (o.dataset, o.org, o.split) == (dataset, org, split)


@pytest.mark.parametrize(("given", "match"), [
    ({"dataset": "crmarena", "org": "b2b"}, "has no b2b org"),
    ({"dataset": "crmarenapro", "org": "original"}, "has no original org"),
    ({"org": "original", "interactive": True}, "CRMArena-Pro"),
    ({"max_turns": 0}, "greater than or equal to 1"),
    ({"user_llm_args": "{nope"}, "not JSON"),
    ({"backend": "cloud"}, "sandbox"),
])
def test_bad_option_combinations(given: dict[str, Any], match: str) -> None:
    with pytest.raises(ValidationError, match=match):
        CRMArenaOptions.model_validate(given)


def test_registered_by_entry_point() -> None:
    assert get_driver("crmarena") is CRMArenaDriver
    assert CRMArenaDriver.scoring.headline == "macro_category_mean"


def test_the_live_backend_without_credentials_is_a_usage_error(tmp_path: Path) -> None:
    tasks = tmp_path / "t.jsonl"
    tasks.write_text('{"idx": 0, "task": "handle_time", "answer": ["x"], '
                     '"reward_metric": "exact_match", "query": "q", "metadata": {}}\n')
    r = run_cli("run", "crmarena", "--white-agent-url", "http://127.0.0.1:1", "--tasks-file",
                str(tasks), "--backend", "salesforce", "--judge-llm", "offline",
                "--output", str(tmp_path / "o.jsonl"))
    assert r.code == 2 and "SALESFORCE_B2B_SECURITY_TOKEN" in r.err


async def test_without_upstream_texts_our_wording_and_offline_scoring(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    driver = CRMArenaDriver(CRMArenaOptions(judge_llm="gpt-4.1"))
    await driver.setup()  # the URL of the pinned files is a closed port (conftest)
    try:
        assert driver.texts.texts is None and driver.evaluator.offline
        assert driver.judge_llm is None and driver._labels() == ["offline"]
        assert driver.texts.describe()["upstream_text"] == "fallback"
        assert prompt.rule_text(None) == prompt.FALLBACK_RULE
    finally:
        await driver.aclose()
    assert upstream.resolve_texts().note.startswith("upstream files unavailable")
