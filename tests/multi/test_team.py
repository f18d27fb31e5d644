"""Scenario team on tau2 end to end (issue 38): the front agent delegates its writes through
the green to the specialist; the reference partners score the gold reward; a broken
specialist lowers the team's score and the attribution moves to it; the solo baseline is
played beside; hostile specialists and front agents are bounded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from a2abench.rating import rate
from a2abench.report import build_report
from tests.fakes.llm_server import FakeLLMServer
from tests.multi.dual_world import gold, records, run_tau2, tasks_of, user_llm
from tests.multi.team_world import specialist, specialists

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


def _entry(roles: dict[str, Any], role: str, pid: str) -> dict[str, Any]:
    return next(e for e in roles["roles"][role] if e["participant"] == pid)


@pytest.mark.parametrize("mode", ["wrong-arguments", "silent"])
def test_a_broken_specialist_lowers_the_score_and_takes_the_blame(
        tmp_path: Path, mode: str) -> None:
    out, r = team_run(tmp_path, IDS[:3], mode, "--pairing", "vs_reference")
    assert r.code == 0, r.err
    by = by_pairing(records(out))
    team = by["agent+specialist"]
    if mode == "silent":  # no reply: the specialist forfeits; kept, counted 0 for it
        assert all(x["status"] == "forfeit" and x["match"]["forfeit"] == "specialist"
                   and x["match"]["scores"] == {"agent": None, "specialist": 0.0}
                   for x in team)
    else:
        assert all(x["reward"] == 0.0 for x in team)
    assert all(x["reward"] == 1.0 for x in by["agent+reference_specialist"])
    assert all(x["reward"] == 1.0 for x in by["agent+no_specialist"])  # the solo baseline
    report = build_report([out])
    if mode == "silent":  # nothing scored: the forfeits are named, never a pass
        assert report.scored == 0 and report.errors["forfeit"] == 3
    else:
        assert report.score == 0.0  # the team's headline
    roles = report.roles
    assert roles is not None
    agent, spec = _entry(roles, "agent", "agent"), _entry(roles, "specialist", "specialist")
    assert agent["vs_reference"]["rate"] == 1.0  # the front agent is not blamed ...
    assert spec["vs_reference"]["rate"] == 0.0  # ... the specialist is
    baseline = next(p for p in roles["pairings"] if p["id"] == "agent+no_specialist")
    assert baseline["mean_reward"] == 1.0  # beside the team's 0
    overhead = next(p for p in roles["pairings"] if p["id"] == "agent+specialist")
    assert overhead["delegation"]["matches"] == 3 and overhead["delegation"]["delegations"] >= 1
    assert "Delegation overhead" in r.out  # the report's tables, shown by `run`
    rated = rate([out], bootstrap=50, seed=1)  # the reference specialist anchors the role
    assert rated["roles"]["specialist"]["anchor"] == "gold_specialist"


def test_hostile_specialists_forfeit_and_nothing_is_dropped(tmp_path: Path) -> None:
    """One that loops tool calls, one that answers 2 MB, one that never answers: each
    forfeits its matches (kept, counted 0 for it), within the limits' flags."""
    ids = IDS[:2]
    tasks = tasks_of("airline", ids)
    llm = FakeLLMServer(handler=user_llm(tasks))
    out = tmp_path / "hostile.jsonl"
    with llm.running(), gold(tasks, "team") as front, \
            specialists("loop", "huge", "hang") as [(loop, looper), (huge, _), (hang, _)]:
        r = run_tau2("airline", front, out, ids, "--specialist-url", loop,
                     "--specialist-url", huge, "--specialist-url", hang, "--pairing", "cross",
                     "--max-specialist-turns", "5", "--delegation-timeout", "1",
                     "--user-llm", "fake-user", "--user-llm-base-url", llm.base_url)
    assert r.code == 0, r.err
    by = by_pairing(records(out))
    assert set(by) == {"agent+specialist", "agent+specialist_2", "agent+specialist_3",
                       "agent+no_specialist"}
    why = {"agent+specialist": "--max-specialist-turns 5",
           "agent+specialist_2": "--max-delegation-bytes",
           "agent+specialist_3": "--delegation-timeout"}
    for pairing, text in why.items():
        for x in by[pairing]:
            assert x["status"] == "forfeit" and x["match"]["forfeit"] == "specialist", pairing
            assert text in x["error"]["message"], (pairing, x["error"])
    assert looper.turns == 5 * len(ids)  # never a sixth reply in one delegation
    assert all(x["reward"] == 1.0 for x in by["agent+no_specialist"])
