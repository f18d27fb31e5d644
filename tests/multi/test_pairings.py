"""Pairings end to end (issue 37): a `cross` run of scripted agents and users orders them as
built; `vs_reference` plays each against the reference partners; a user participant that
fails forfeits its matches, kept and counted, without penalising the agent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from a2abench.rating import rate
from a2abench.report import build_report
from tests.fakes.llm_server import FakeLLMServer
from tests.multi import scripted
from tests.multi.dual_world import gold, records, run_tau2, tasks_of, user_llm
from tests.servers import serve

pytestmark = pytest.mark.slow

IDS = ["8", "11", "12", "14", "15", "19"]  # each with gold writes


@contextmanager
def users(tasks: dict[str, Any], *modes: str) -> Iterator[list[tuple[str, Any]]]:
    with ExitStack() as stack:
        found = []
        for mode in modes:
            holder: dict[str, Any] = {}

            def factory(base: str, mode: str = mode, holder: dict[str, Any] = holder) -> Any:
                app, holder["user"] = scripted.app(base, tasks, mode)
                return app

            found.append((stack.enter_context(serve(factory)), holder))
        yield [(url, holder["user"]) for url, holder in found]


def test_cross_orders_agents_and_users_as_built(tmp_path: Path) -> None:
    tasks = tasks_of("airline", IDS)
    out = tmp_path / "cross.jsonl"
    with gold(tasks) as good, gold(tasks, "silent") as refuser, gold(tasks) as mirror, \
            users(tasks, "faithful", "hangs-up") as ((faithful, _), (hangs_up, _)):
        r = run_tau2("airline", good, out, IDS, "--white-agent-url", refuser,
                     "--white-agent-url", mirror, "--user-agent-url", faithful,
                     "--user-agent-url", hangs_up, "--pairing", "cross", "--num-trials", "2")
    assert r.code == 0, r.err
    found = records(out)
    assert len(found) == len(IDS) * 2 * 3 * 2  # tasks x trials x agents x users
    pairings = {x["match"]["pairing"] for x in found}
    assert pairings == {f"{a}+{u}" for a in ("agent", "agent_2", "agent_3")
                        for u in ("user", "user_2")}
    seeds = {(x["task_id"], x["trial"]): set() for x in found}
    for x in found:
        seeds[(x["task_id"], x["trial"])].add(x["seed"])
    assert all(len(s) == 1 for s in seeds.values())  # every pairing, the same seeds
    gold_faithful = [x for x in found if x["match"]["pairing"] == "agent+user"]
    assert all(x["reward"] == 1.0 for x in gold_faithful)
    early = [x for x in found if x["match"]["pairing"] == "agent+user_2"]
    assert all(v["kind"] == "early_stop" for x in early for v in x["match"]["violations"]["user"])
    assert all(x["match"]["violations"]["user"] for x in early)

    # 50 draws: the gold agent and the faithful user win every resample (test_rating.py
    # checks the bootstrap itself), so the intervals separate for any number of draws.
    rated = rate([tmp_path / "cross.jsonl"], bootstrap=50, seed=1)
    agents = {p["participant"]: p for p in rated["roles"]["agent"]["players"]}
    assert agents[good]["ci_low"] > agents[refuser]["ci_high"]
    mirror_pair = next(q for q in rated["roles"]["agent"]["pairs"]
                       if {q["a"], q["b"]} == {good, mirror})
    assert mirror_pair["ci_low"] <= 0.5 <= mirror_pair["ci_high"]
    assert abs(mirror_pair["p_a"] - 0.5) < 0.01
    people = {p["participant"]: p for p in rated["roles"]["user"]["players"]}
    assert people[faithful]["ci_low"] > people[hangs_up]["ci_high"]
    again = rate([tmp_path / "cross.jsonl"], bootstrap=50, seed=1)
    assert json.dumps(again, sort_keys=True) == json.dumps(rated, sort_keys=True)

    report = build_report([out])  # the headline covers the primary pairing only
    assert report.task_trials == len(IDS) * 2 and report.pass_rate == 1.0
    assert report.planned == len(IDS) * 2 and report.score == 1.0 and report.score_complete


def test_vs_reference_plays_the_reference_partners(tmp_path: Path) -> None:
    tasks = tasks_of("airline", IDS[:3])
    llm = FakeLLMServer(handler=user_llm(tasks))
    out = tmp_path / "ref.jsonl"
    with llm.running(), gold(tasks) as good, users(tasks, "faithful") as [(faithful, seen)]:
        r = run_tau2("airline", good, out, IDS[:3], "--user-agent-url", faithful,
                     "--pairing", "vs_reference", "--user-llm", "fake-user",
                     "--user-llm-base-url", llm.base_url)
    assert r.code == 0, r.err
    found = records(out)
    by = {}
    for x in found:
        by.setdefault(x["match"]["pairing"], []).append(x)
    assert set(by) == {"agent+user", "agent+reference_user", "reference_agent+user"}
    assert all(x["reward"] == 1.0 for x in by["reference_agent+user"])  # fidelity 1
    assert all(x["requests"] == 0 for x in by["reference_agent+user"])  # offline, no A2A
    assert all(x["match"]["usage"]["user"]["requests"] >= 2 for x in by["agent+user"])
    first = seen.first[0]
    assert {"user_scenario", "scenario_text", "simulation_guidelines", "system_prompt",
            "seed"} <= set(first)
    assert first["system_prompt"].endswith("</scenario>")
    (run,) = records(out, "run")
    assert run["lineup"]["participants"]["reference_user"]["builtin"] == "llm_user"
    assert run["models"]["user_simulator"]["model"] == "fake-user"


def test_a_failing_user_forfeits_and_the_agent_is_not_penalised(tmp_path: Path) -> None:
    tasks = tasks_of("airline", IDS[:2])
    for mode in ("empty", "failing"):
        out = tmp_path / f"{mode}.jsonl"
        with gold(tasks) as good, users(tasks, mode) as [(broken, _)]:
            r = run_tau2("airline", good, out, IDS[:2], "--user-agent-url", broken)
        assert r.code == 0, r.err
        found = records(out)
        assert {x["status"] for x in found} == {"forfeit"}, mode
        for x in found:
            assert x["match"]["forfeit"] == "user" and x["reward"] is None
            assert x["match"]["scores"] == {"agent": None, "user": 0.0}
            assert x["error"]["kind"] == "forfeit" and "user participant" in x["error"]["message"]
        if mode == "empty":
            assert found[0]["match"]["violations"]["user"][0]["kind"] == "empty_reply"
        report = build_report([out])
        assert report.scored == 0 and report.errors["forfeit"] == 2
        assert any("forfeit" in w for w in report.warnings)
        (end,) = records(out, "run_end")
        assert end["counts"]["forfeits"] == 2


def test_resume_keys_on_the_pairing_and_refuses_another_lineup(tmp_path: Path) -> None:
    tasks = tasks_of("airline", IDS[:2])
    out = tmp_path / "r.jsonl"
    with gold(tasks) as good, users(tasks, "faithful", "hangs-up") as [(faithful, _),
                                                                        (other, _)]:
        first = run_tau2("airline", good, out, IDS[:2], "--user-agent-url", faithful,
                         "--user-agent-url", other, "--pairing", "cross")
        assert first.code == 0, first.err
        lines = out.read_text().splitlines()
        kept = [x for x in lines if '"type":"task"' in x and '"pairing":"agent+user_2"' in x]
        out.write_text("\n".join(x for x in lines if x not in kept) + "\n")  # two lost
        again = run_tau2("airline", good, out, IDS[:2], "--user-agent-url", faithful,
                         "--user-agent-url", other, "--pairing", "cross", "--resume")
        assert again.code == 0, again.err
        found = records(out)
        assert len(found) == 4 and sorted(x["match"]["pairing"] for x in found) == \
            ["agent+user", "agent+user", "agent+user_2", "agent+user_2"]
        swapped = run_tau2("airline", good, out, IDS[:2], "--user-agent-url", other,
                           "--user-agent-url", faithful, "--pairing", "cross", "--resume")
    assert swapped.code != 0 and "configured differently" in swapped.err


def test_a_remote_reference_agent(tmp_path: Path) -> None:
    """--reference-agent-url: the user's reference partner is an A2A agent, not the offline
    gold agent."""
    tasks = tasks_of("airline", IDS[:2])
    llm = FakeLLMServer(handler=user_llm(tasks))
    out = tmp_path / "ref.jsonl"
    with llm.running(), gold(tasks) as good, gold(tasks) as reference, \
            users(tasks, "faithful") as [(faithful, _)]:
        r = run_tau2("airline", good, out, IDS[:2], "--user-agent-url", faithful,
                     "--pairing", "vs_reference", "--reference-agent-url", reference,
                     "--user-llm", "fake-user", "--user-llm-base-url", llm.base_url)
    assert r.code == 0, r.err
    ref = [x for x in records(out) if x["match"]["pairing"] == "reference_agent+user"]
    assert len(ref) == 2 and all(x["reward"] == 1.0 and x["requests"] >= 2 for x in ref)
    (run,) = records(out, "run")
    assert run["lineup"]["participants"]["reference_agent"]["url"] == reference
    assert {q["participant"] for q in records(out, "request")} == {
        "agent", "user", "reference_agent"}
