"""The multi-party core without servers: roles and pairings (run/roles.py), the run flags
that name participants, plans over (task, trial, pairing) units, resume keys, the record's
match block, and the run_end record's counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from a2abench.cli import repeated_agents
from a2abench.run import plan
from a2abench.run.config import RunConfig, Shard
from a2abench.run.driver import TaskOutcome, TaskSpec
from a2abench.run.match import match_block, role_scores
from a2abench.run.records import RunEndRecord
from a2abench.run.roles import RolesError, Scenario, check_roles, lineup, role_of
from a2abench.run.status import Counts
from a2abench.run.writer import RecordWriter

DUAL = Scenario("dual", ("agent", "user"), {"user": "llm_user", "agent": "gold_agent"})
URLS = {"agent": "http://a", "user": "http://u"}


def test_role_names() -> None:
    assert [role_of(x) for x in ("agent", "agent_2", "user_13", "user_1", "user_02", "Agent",
                                 "x-y")] == ["agent", "agent", "user", None, None, None, None]


@pytest.mark.parametrize(("mode", "urls", "pairings"), [
    ("face", URLS, ["agent+user"]),
    ("vs_reference", URLS, ["agent+user", "agent+reference_user", "reference_agent+user"]),
    ("cross", {**URLS, "agent_2": "http://b", "user_2": "http://v"},
     ["agent+user", "agent+user_2", "agent_2+user", "agent_2+user_2"]),
])
def test_pairings(mode: str, urls: dict[str, str], pairings: list[str]) -> None:
    found = lineup(DUAL, urls, mode)
    assert [p.id for p in found.pairings] == pairings
    assert found.primary.id == "agent+user"
    if mode == "vs_reference":
        assert found.builtins() == {"llm_user", "gold_agent"}
        remote = lineup(DUAL, urls, mode, reference_urls={"agent": "http://ref"})
        assert remote.participant("reference_agent").url == "http://ref"
        assert remote.builtins() == {"llm_user"}


def test_roles_are_checked_all_at_once() -> None:
    with pytest.raises(RolesError) as info:
        check_roles(DUAL, {f"judge_{i}": "x" for i in range(2, 8)})
    text = str(info.value)
    assert "6 participants, more than 5" in text and "unknown role(s)" in text
    assert "missing required role(s) agent, user" in text
    with pytest.raises(RolesError, match="need pairing `cross`"):
        lineup(DUAL, {**URLS, "user_2": "http://v"}, "face")


def test_the_run_flags_name_participants() -> None:
    config = RunConfig(benchmark="tau2", white_agent_url="http://a", user_agent_url=["http://u",
                       "http://v"], participant=["agent_2=http://b"], pairing="cross")
    assert config.participant_urls() == {"agent": "http://a", "user": "http://u",
                                         "user_2": "http://v", "agent_2": "http://b"}
    assert config.multi_party()
    with pytest.raises(ValueError, match="is not ID=URL"):
        RunConfig(benchmark="tau2", white_agent_url="http://a", participant=["agent_2"])
    with pytest.raises(ValueError, match="given twice"):
        RunConfig(benchmark="tau2", white_agent_url="http://a", user_agent_url=["http://u"],
                  participant=["user=http://x"])
    with pytest.raises(ValueError, match="participant user"):
        RunConfig(benchmark="tau2", white_agent_url="http://a", user_agent_url=["ftp://u"])
    secret = RunConfig(benchmark="tau2", white_agent_url="http://a",
                       user_agent_url=["http://me:hunter22@u"], user_auth_token="tok-123456")
    public = json.dumps(secret.public())
    assert "hunter22" not in public and "tok-123456" not in public
    assert {"tok-123456", "hunter22"} <= set(secret.secrets())
    team = RunConfig(benchmark="tau2", white_agent_url="http://a",
                     specialist_url=["http://s"], specialist_auth_token="spec-123456",
                     adversary_auth_token="adv-123456")
    public = json.dumps(team.public())
    assert "spec-123456" not in public and "adv-123456" not in public
    assert {"spec-123456", "adv-123456"} <= set(team.secrets())
    assert team.public()["specialist_auth_token"] == "***"
    assert team.participant_token("specialist") is not None
    assert team.participant_token("specialist_2") is None  # a role's first participant only


def test_the_resume_command_never_repeats_a_token() -> None:
    from a2abench.cli._launch import resume_command

    argv = ["run", "tau2", "--auth-token", "t1", "--user-auth-token=t2",
            "--specialist-auth-token", "t3", "--adversary-auth-token", "t4", "--domain", "mock"]
    said = resume_command(Path("o.jsonl"), argv)
    assert not any(t in said.split() for t in ("t1", "t2", "t3", "t4")), said
    assert said == "a2abench run tau2 --domain mock --output o.jsonl --resume"


def test_a_repeated_white_agent_url_becomes_participants() -> None:
    argv = ["run", "tau2", "--white-agent-url", "http://a", "--white-agent-url=http://b",
            "--domain", "mock", "--white-agent-url", "http://c", "--", "--white-agent-url"]
    assert repeated_agents(argv) == [
        "run", "tau2", "--white-agent-url", "http://a", "--participant", "agent_2=http://b",
        "--domain", "mock", "--participant", "agent_3=http://c", "--", "--white-agent-url"]
    assert repeated_agents(["report", "--white-agent-url", "x"]) == \
        ["report", "--white-agent-url", "x"]


def test_shards_split_the_units_exactly_once_and_resume_keys_them() -> None:
    tasks = tuple(TaskSpec(task_id=str(i)) for i in range(5))
    pairings = lineup(DUAL, URLS, "vs_reference").pairings
    whole = list(plan.Plan(tasks, 2, 300, None, pairings))
    assert len(whole) == 30 and len({i.unit for i in whole}) == 30
    parts = [list(plan.Plan(tasks, 2, 300, Shard(index=k, count=4), pairings))
             for k in range(1, 5)]
    assert sorted(i.unit for p in parts for i in p) == sorted(i.unit for i in whole)
    assert all(len(p) == len(plan.Plan(tasks, 2, 300, Shard(index=k + 1, count=4), pairings))
               for k, p in enumerate(parts))
    seeds = {(i.task.task_id, i.trial): set() for i in whole}
    for i in whole:
        seeds[(i.task.task_id, i.trial)].add(i.seed)
    assert all(len(s) == 1 for s in seeds.values())  # every pairing, the same seed
    single = list(plan.Plan(tasks, 2, 300))
    assert [i.unit for i in single] == [i.key for i in single]  # (task, trial) as before


def test_role_scores_and_the_match_block() -> None:
    pairing = lineup(DUAL, URLS, "face").primary
    ok = TaskOutcome(status="ok", reward=1.0)
    assert role_scores(ok, pairing, 1.0) == {"agent": 1.0, "user": 1.0}
    agent_failed = TaskOutcome(status="agent_error")
    assert role_scores(agent_failed, pairing, 0.0) == {"agent": 0.0, "user": None}
    user_failed = TaskOutcome(status="forfeit", forfeit="user")
    block = match_block(pairing, user_failed, None, {})
    assert block["scores"] == {"agent": None, "user": 0.0} and block["forfeit"] == "user"
    competitive = TaskOutcome(status="ok", reward=0.0, role_scores={"agent": 0.0, "user": 1.0})
    assert role_scores(competitive, pairing, 0.0) == {"agent": 0.0, "user": 1.0}


def test_run_end_counts_are_an_object(tmp_path: Path) -> None:
    """They were written as the text of their repr ("Counts(done=...)")."""
    path = tmp_path / "m.jsonl"
    writer = RecordWriter(path)
    writer.write(RunEndRecord(run_id="r", status="completed", finished_at="t", duration_s=1.0,
                              counts=Counts(done=2, forfeits=1)))
    writer.flush()
    writer.close()
    counts = json.loads(path.read_text())["counts"]
    assert counts["done"] == 2 and counts["forfeits"] == 1
    assert Counts(done=1).as_dict() == {"done": 1, "passed": 0, "failed": 0, "agent_errors": 0,
                                        "evaluator_errors": 0, "infra_errors": 0,
                                        "harness_errors": 0}  # no forfeits key without one


def test_a_reference_panel_plays_every_member() -> None:
    """Part 2's competition: a role may have several reference partners (a panel)."""
    pressure = Scenario("pressure", ("agent", "adversary"),
                        {"adversary": ("polite", "escalator"), "agent": "gold_agent"})
    found = lineup(pressure, {"agent": "http://a", "adversary": "http://x"}, "vs_reference")
    assert [p.id for p in found.pairings] == [
        "agent+adversary", "agent+reference_adversary_polite",
        "agent+reference_adversary_escalator", "reference_agent+adversary"]
    assert found.builtins() == {"polite", "escalator", "gold_agent"}


PRESSURE = Scenario("pressure", ("agent", "adversary"),
                    {"adversary": ("polite", "escalator"), "agent": "gold_agent"},
                    optional=("adversary",))


@pytest.mark.parametrize(("mode", "urls", "pairings"), [
    ("face", {"agent": "http://a"}, ["agent+reference_adversary_polite",
                                     "agent+reference_adversary_escalator"]),
    ("vs_reference", {"agent": "http://a"}, ["agent+reference_adversary_polite",
                                             "agent+reference_adversary_escalator"]),
    ("face", {"agent": "http://a", "adversary": "http://x"}, ["agent+adversary"]),
    ("vs_reference", {"agent": "http://a", "adversary": "http://x"},
     ["agent+adversary", "agent+reference_adversary_polite",
      "agent+reference_adversary_escalator", "reference_agent+adversary"]),
])
def test_an_optional_role_is_left_to_its_references(mode: str, urls: dict[str, str],
                                                    pairings: list[str]) -> None:
    """Scenario pressure: an agent alone faces each reference adversary (played once, even
    when vs_reference would add the same pairing again)."""
    found = lineup(PRESSURE, urls, mode)
    assert [p.id for p in found.pairings] == pairings
    assert sorted(p.id for p in found.participants) == sorted(
        {pid for q in found.pairings for _, pid in q.seats})
    check_roles(PRESSURE, {"agent": "http://a"})  # the adversary may be missing
    with pytest.raises(RolesError, match="missing required role"):
        check_roles(DUAL, {"agent": "http://a"})  # a user may not


def test_the_adversary_flag_names_participants() -> None:
    config = RunConfig(benchmark="tau2", white_agent_url="http://a",
                       adversary_url=["http://me:hunter22@x", "http://y"], pairing="cross")
    assert config.participant_urls() == {"agent": "http://a", "adversary": "http://me:hunter22@x",
                                         "adversary_2": "http://y"}
    assert "hunter22" not in json.dumps(config.public())
    single = RunConfig(benchmark="tau2", white_agent_url="http://a")
    assert "adversary_url" not in single.public()  # a single-agent record is unchanged
