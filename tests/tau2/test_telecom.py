"""Telecom: gold actions (agent and user side) satisfy the env assertions, the untouched
initial state does not; sync between line and phone; splits and policies."""

from __future__ import annotations

from typing import Any

import pytest

from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.evaluator import evaluate_offline
from a2abench.benchmarks.tau2.models import RewardType, ToolCall
from tests.tau2 import tau2_harness as harness
from tests.tau2.tau2_support import data_root, domain


def _gold_script(task: Any) -> list[list[Any]]:
    return [["call", {"name": a.name, "arguments": a.arguments, "requestor": a.requestor}]
            for a in task.evaluation_criteria.actions or []]


@pytest.mark.slow  # every telecom task twice (~2 s of CPU)
def test_gold_actions_satisfy_env_assertions_and_doing_nothing_does_not() -> None:
    d = domain("telecom")
    tasks = d.tasks()
    assert len(tasks) == 114
    unmet, passed_idle = [], []
    for task in tasks:
        _, gold = harness.build_trajectory(d, {"task": task.id, "script": _gold_script(task)})
        info = evaluate_offline(task, gold, "user_stop", domain=d)
        if info.reward != 1.0 or not all(c.met for c in info.env_assertions or []):
            unmet.append(task.id)
        idle = evaluate_offline(task, [], "user_stop", domain=d)
        if idle.reward != 0.0:
            passed_idle.append(task.id)
    assert unmet == [] and passed_idle == []


def test_reward_basis_of_the_base_split() -> None:
    bases = [tuple(t.evaluation_criteria.reward_basis)  # type: ignore[union-attr]
             for t in domain("telecom").tasks()]
    assert set(bases) == {(RewardType.ENV_ASSERTION,),
                          (RewardType.ENV_ASSERTION, RewardType.ACTION)}
    assert bases.count((RewardType.ENV_ASSERTION, RewardType.ACTION)) == 20


def test_sync_moves_line_state_to_the_phone_and_bills_both_ways() -> None:
    d = domain("telecom")
    task = d.tasks()[0]
    env = d.new_environment(task)
    phone = env.user_tools.db.model.surroundings  # type: ignore[union-attr]
    assert phone.phone_number == "555-123-2002" and phone.line_active

    def call(name: str, requestor: str = "assistant", **arguments: Any) -> str:
        msg = env.execute(ToolCall(id="1", name=name, arguments=arguments, requestor=requestor))
        assert not msg.error, msg.content
        return msg.content or ""

    if env.user_tools.db.model.device.airplane_mode:  # type: ignore[union-attr]
        call("toggle_airplane_mode", "user")
    call("suspend_line", customer_id="C1001", line_id="L1002", reason="x")
    assert not phone.line_active
    assert "No Signal" in call("reboot_device", "user")
    call("resume_line", customer_id="C1001", line_id="L1002")
    assert phone.line_active
    call("send_payment_request", customer_id="C1001", bill_id="B1002")
    assert "bill B1002" in call("check_payment_request", "user")
    call("make_payment", "user")
    assert phone.payment_request is None
    assert '"status": "Paid"' in call("get_details_by_id", id="B1002")


@pytest.mark.slow
def test_splits_and_policies() -> None:
    sizes = {s: len(load_domain("telecom", data_dir=data_root(), split=s).tasks())
             for s in ["small", "train", "test", "full"]}
    assert sizes == {"small": 20, "train": 74, "test": 40, "full": 2285}
    root = data_root() / "tau2/domains/telecom"
    manual = domain("telecom").policy
    workflow = load_domain("telecom", data_dir=data_root(), policy="workflow").policy
    assert manual == ("<main_policy>\n" + (root / "main_policy.md").read_text()
                      + "\n</main_policy>\n<tech_support_policy>\n"
                      + (root / "tech_support_manual.md").read_text()
                      + "\n</tech_support_policy>")
    assert (root / "tech_support_workflow.md").read_text() in workflow
    assert domain("telecom").user_guidelines == (
        data_root() / "tau2/user_simulator/simulation_guidelines_tools.md").read_text()


def test_user_tools_can_be_restricted_per_task() -> None:
    d = domain("telecom")
    task = d.tasks()[0].model_copy(update={"user_tools": ["check_status_bar", "toggle_data"]})
    env = d.new_environment(task)
    assert [s["function"]["name"] for s in env.user_tool_schemas()] == [
        "check_status_bar", "toggle_data"]
    assert len(d.new_environment(d.tasks()[0]).user_tool_schemas()) == 30
