"""`serve-green --allow-host @participants` (the image's default, issue 34): an assessment may
contact its own participants' hosts and nothing else, whatever participant it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from a2abench.green import GreenSettings, RequestRejected, plan_run
from a2abench.green.request import AssessmentRequest
from a2abench.net.egress import HostPolicy, policy_for

AGENT = "http://purple:9019/"


def planned(tmp_path: Path, *patterns: str) -> HostPolicy | None:
    request = AssessmentRequest("agentbeats", "tau2", AGENT, {"domain": "mock"},
                                {"agent": AGENT, "helper": "http://10.0.0.7:8000/"})
    config = plan_run(request, GreenSettings(output_dir=tmp_path, allow_hosts=patterns),
                      "t").config
    return policy_for(config.allowed_hosts, config.white_agent_url)


def test_participants_only_admits_the_participants_and_refuses_everything_else(
        tmp_path: Path) -> None:
    policy = planned(tmp_path, "@participants")
    assert policy is not None
    assert policy.allows("http://purple:9019/rpc") and policy.allows("http://purple:80/")
    assert policy.allows("http://10.0.0.7:8000/")  # another participant of the request
    for elsewhere in ("http://169.254.169.254/latest/meta-data/", "http://purple.evil/",
                      "http://10.0.0.8/", "https://example.org/"):
        assert not policy.allows(elsewhere), elsewhere


def test_without_it_any_host_stays_allowed_as_before(tmp_path: Path) -> None:
    assert planned(tmp_path) is None


def test_other_patterns_still_decide_which_participants_are_accepted(tmp_path: Path) -> None:
    with pytest.raises(RequestRejected, match="allowed hosts"):
        planned(tmp_path, "@participants", "*.internal")
