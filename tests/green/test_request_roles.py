"""Participants by role in serve-green requests (issue 37): a multi-party request is seated or
refused at once, naming every problem; a single-agent request keeps today's contract."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from a2abench.green import GreenSettings, RequestRejected, parse_request, plan_run

AGENT, USER = "http://purple:9019", "http://purple:9020"


def _plan(tmp_path: Path, participants: dict[str, str], config: dict[str, Any]) -> Any:
    request = parse_request([], [{"participants": participants,
                                  "config": {"benchmark": "tau2", "domain": "airline",
                                             **config}}], ["tau2"])
    return plan_run(request, GreenSettings(output_dir=tmp_path, allow_hosts=("purple",)),
                    "0123456789abcdef")


def _refused(tmp_path: Path, participants: dict[str, str], config: dict[str, Any]) -> str:
    with pytest.raises(RequestRejected) as info:
        _plan(tmp_path, participants, config)
    return info.value.problem


def test_a_user_participant_makes_a_dual_assessment(tmp_path: Path) -> None:
    planned = _plan(tmp_path, {"agent": AGENT, "user": USER}, {"scenario": "dual"})
    assert planned.config.participant_urls() == {"agent": AGENT, "user": USER}
    assert planned.config.scenario == "dual" and planned.config.pairing == "face"
    inferred = _plan(tmp_path, {"agent": AGENT, "user": USER}, {})  # the role says dual
    assert inferred.config.participant == [f"user={USER}"]


def test_cross_play_names_second_participants_by_suffix(tmp_path: Path) -> None:
    planned = _plan(tmp_path, {"agent": AGENT, "agent_2": "http://purple:9021", "user": USER,
                               "user_2": "http://purple:9022"}, {"pairing": "cross"})
    assert set(planned.config.participant_urls()) == {"agent", "agent_2", "user", "user_2"}


def test_every_problem_with_the_roles_is_named_at_once(tmp_path: Path) -> None:
    problem = _refused(tmp_path, {"agent": AGENT, "critic": USER, "judge": USER},
                       {"scenario": "dual"})
    assert "unknown role(s) critic, judge" in problem
    assert "missing required role(s) user" in problem


@pytest.mark.parametrize(("participants", "config", "words"), [
    ({"agent": AGENT}, {"scenario": "dual"}, "missing required role(s) user"),
    ({"user": USER}, {"scenario": "dual"}, "missing required role agent"),
    ({f"p{i}": AGENT for i in range(6)} | {"agent": AGENT}, {}, "7 participants, more than 5"),
    ({"agent": AGENT, "user": USER, "user_2": USER}, {},
     "several participants of role 'user' need pairing `cross`"),
    ({"agent": AGENT, "user": "http://elsewhere:1"}, {}, "not on this server's allowed hosts"),
    ({"agent": AGENT, "user": USER}, {"scenario": "tournament"},
     "--scenario 'tournament' is not a scenario of tau2"),
    ({"agent": AGENT, "user": USER}, {"scenario": "team"},
     "unknown role(s) user for scenario 'team'"),
    ({"agent": AGENT}, {"scenario": "team"}, "missing required role(s) specialist"),
    ({"agent": AGENT, "user": USER}, {"pairing": "round_robin"}, "pairing: Input should be"),
])
def test_refusals(tmp_path: Path, participants: dict[str, str], config: dict[str, Any],
                  words: str) -> None:
    assert words in _refused(tmp_path, participants, config)


def test_a_single_agent_request_ignores_other_entries_as_before(tmp_path: Path) -> None:
    planned = _plan(tmp_path, {"agent": AGENT, "judge": "http://anywhere:1"}, {})
    assert planned.config.participant == [] and not planned.config.multi_party()


def test_pairings_count_towards_the_task_trial_limit(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from a2abench.green import request as request_module
    from a2abench.green.request import check_tasks
    from tests.conftest import shared_data

    monkeypatch.setattr(request_module, "MAX_TASK_TRIALS", 50)
    data = {"domain": "mock", "num_trials": 2, "data_dir": str(shared_data("tau2").parent)}

    def planned(config: dict[str, Any]) -> Any:
        request = parse_request([], [{"participants": {"agent": AGENT, "user": USER},
                                      "config": {"benchmark": "tau2", "domain": "mock",
                                                 "num_trials": 2, **config}}], ["tau2"])
        settings = GreenSettings(output_dir=tmp_path, allow_hosts=("purple",),
                                 presets={"tau2": {"data_dir": data["data_dir"],
                                                   "user_llm": "fake",
                                                   "user_llm_base_url": "http://127.0.0.1:9/v1"}})
        return plan_run(request, settings, "0123456789abcdef")

    asyncio.run(check_tasks(planned({})))  # 10 tasks x 2 trials x 1 pairing
    with pytest.raises(RequestRejected, match="10 tasks × 2 trials × 3 pairings"):
        asyncio.run(check_tasks(planned({"pairing": "vs_reference"})))


def test_a_face_to_face_assessment_needs_no_user_model(tmp_path: Path) -> None:
    """Nobody in-process plays the user: the server needs no --user-llm for it."""
    import asyncio

    from a2abench.green.request import check_tasks
    from tests.conftest import shared_data

    request = parse_request([], [{"participants": {"agent": AGENT, "user": USER},
                                  "config": {"benchmark": "tau2", "domain": "mock"}}], ["tau2"])
    settings = GreenSettings(output_dir=tmp_path, allow_hosts=("purple",), presets={
        "tau2": {"data_dir": str(shared_data("tau2").parent)}})
    asyncio.run(check_tasks(plan_run(request, settings, "0123456789abcdef")))
