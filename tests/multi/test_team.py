"""Scenario team on tau2 end to end (issue 38): the front agent delegates its writes through
the green to the specialist; the reference partners score the gold reward; a broken
specialist lowers the team's score and the attribution moves to it; the solo baseline is
played beside; hostile specialists and front agents are bounded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from a2abench.report import build_report
from tests.fakes.llm_server import FakeLLMServer
from tests.multi.dual_world import gold, records, run_tau2, tasks_of, user_llm
from tests.multi.team_world import specialist

pytestmark = pytest.mark.slow

IDS = ["8", "11", "12", "14", "15", "19"]  # airline tasks with gold writes


def by_pairing(found: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for x in found:
        out.setdefault(x["match"]["pairing"], []).append(x)
    return out


def team_run(tmp_path: Path, ids: list[str], mode: str = "gold", *flags: str,
             name: str = "team.jsonl") -> tuple[Path, Any]:
    tasks = tasks_of("airline", ids)
    llm = FakeLLMServer(handler=user_llm(tasks))
    out = tmp_path / name
    with llm.running(), gold(tasks, "team") as front, specialist(mode) as (spec, _):
        r = run_tau2("airline", front, out, ids, "--specialist-url", spec,
                     "--user-llm", "fake-user", "--user-llm-base-url", llm.base_url, *flags)
    return out, r


def test_the_reference_partners_and_a_faithful_specialist_score_the_gold(
        tmp_path: Path) -> None:
    out, r = team_run(tmp_path, IDS, "gold", "--pairing", "vs_reference")
    assert r.code == 0, r.err
    by = by_pairing(records(out))
    assert set(by) == {"agent+specialist", "agent+no_specialist",
                       "agent+reference_specialist", "reference_agent+specialist"}
    for pairing, found in by.items():
        assert [x["reward"] for x in found] == [1.0] * len(IDS), pairing
    team = by["agent+specialist"]
    assert all(x["match"]["delegation"]["delegations"] >= 1 for x in team)
    assert all(x["match"]["usage"]["specialist"]["requests"] >= 2 for x in team)
    assert all(x["match"]["delegation"] == {"baseline": True}
               for x in by["agent+no_specialist"])
    # the specialist's calls are in the transcript, as the agent's would be, without words
    x = team[0]
    spec = x["details"]["specialist_messages"]
    mine = [x["transcript"][i] for i in spec]
    assert [m["role"] for m in mine] == ["assistant", "tool"] * (len(mine) // 2)
    assert all(m["content"] is None and m["tool_calls"] for m in mine[::2])
    assert x["details"]["specialist_turns"]  # its A2A replies, for the viewer
    report = build_report([out])
    assert report.score == 1.0 and report.task_trials == len(IDS)
