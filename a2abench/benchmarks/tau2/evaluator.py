"""Official tau2 scoring (upstream `evaluate_simulation` with `EvaluationType.ALL`).

    info = await evaluate(task, messages, "user_stop", domain=domain, judge=None,
                          reward_basis_mode="official")

`messages` is the full trajectory, including the task's initial `message_history` (as in
upstream's `SimulationRun.messages`). Components:

* gate: only `user_stop` / `agent_stop` runs are scored; anything else is 0.0;
* DB: a fresh environment replays the trajectory's state-changing calls, a gold environment
  replays the task's actions; agent and user DBs must be equal (upstream's SHA-256 verdict);
* ENV_ASSERTION: the task's assertions on the replayed environment;
* ACTION: each gold action matched by some tool call (by `compare_args`);
* COMMUNICATE: each string in some assistant text (case-insensitive, commas removed);
* NL_ASSERTION: the judge LLM with upstream's prompt. Without a judge (or without upstream's
  prompt text) the component is left out and `nl_skipped` is set — never a silent pass.

The reward is the product over the applied basis; every component is recorded either way.
`reward_basis_mode="classic"` scores retail on DB+COMMUNICATE (v0.2) for older comparisons.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from a2abench.benchmarks.tau2.dbdiff import db_diff
from a2abench.benchmarks.tau2.domain_core import Tau2Domain
from a2abench.benchmarks.tau2.environment import Tau2Environment, tool_call_pairs
from a2abench.benchmarks.tau2.models import (
    ActionCheck,
    AssistantMessage,
    CommunicateCheck,
    DBCheck,
    EnvAssertionCheck,
    NLAssertionCheck,
    RewardInfo,
    RewardType,
    Task,
    TerminationReason,
    ToolCall,
    UserMessage,
)
from a2abench.plugin import LLMError

ScoredReasons = {TerminationReason.USER_STOP.value, TerminationReason.AGENT_STOP.value}
CLASSIC_BASIS = {"retail": [RewardType.DB, RewardType.COMMUNICATE]}


class NLJudge(Protocol):
    """An LLM call: system and user prompt in, the reply text out."""

    async def __call__(self, system: str, user: str) -> str: ...


async def evaluate(task: Task, messages: Sequence[Any], termination_reason: str, *,
                   domain: Tau2Domain, judge: NLJudge | None,
                   reward_basis_mode: Literal["official", "classic"] = "official",
                   solo: bool = False) -> RewardInfo:
    """Score one task-trial exactly as upstream; see the module docstring."""
    info = evaluate_offline(task, messages, termination_reason, domain=domain,
                            reward_basis_mode=reward_basis_mode, solo=solo)
    return await add_nl_judgement(info, task, messages, domain=domain, judge=judge)


async def add_nl_judgement(info: RewardInfo, task: Task, messages: Sequence[Any], *,
                           domain: Tau2Domain, judge: NLJudge | None) -> RewardInfo:
    """Complete an offline RewardInfo with the NL-assertion judge, when one is needed and
    available (callers may run `evaluate_offline` in a worker thread first)."""
    if not info.nl_skipped or judge is None or domain.judge_prompt is None:
        return info
    criteria = task.evaluation_criteria  # present: nl_skipped means it had NL assertions
    checks = await judge_nl_assertions((criteria.nl_assertions if criteria else None) or [],
                                       messages, domain=domain, judge=judge)
    nl_reward = 1.0 if all(c.met for c in checks) else 0.0
    breakdown = dict(info.reward_breakdown or {})
    breakdown[RewardType.NL_ASSERTION] = nl_reward
    return info.model_copy(update={
        "reward": info.reward * nl_reward, "nl_assertions": checks, "nl_skipped": False,
        "reward_breakdown": _ordered(breakdown), "info": {"env": (info.info or {}).get("env")}})


def evaluate_offline(task: Task, messages: Sequence[Any], termination_reason: str, *,
                     domain: Tau2Domain,
                     reward_basis_mode: Literal["official", "classic"] = "official",
                     solo: bool = False) -> RewardInfo:
    """Everything but the judge call. NL_ASSERTION needing a judge is left out: `nl_skipped`.
    `solo`: the trajectory is a solo run, replayed with the agent owning the user's tools."""
    reason = getattr(termination_reason, "value", termination_reason)
    if reason not in ScoredReasons:
        return RewardInfo(reward=0.0, reward_basis=None, reward_basis_mode=reward_basis_mode,
                          info={"note": "Simulation terminated prematurely. Termination "
                                        f"reason: {reason}"})
    criteria = task.evaluation_criteria
    if criteria is None:
        return RewardInfo(reward=1.0, reward_basis=None, reward_basis_mode=reward_basis_mode,
                          info={"note": "No evaluation criteria"})
    basis = list(criteria.reward_basis)
    if reward_basis_mode == "classic" and domain.name in CLASSIC_BASIS:
        basis = list(CLASSIC_BASIS[domain.name])
    env_reward, db_check, env_checks, env_breakdown, env_info = _env_component(
        task, messages, domain, basis, solo)
    action_reward, action_checks = _action_component(task, messages, domain)
    comm_reward, comm_checks = _communicate_component(task, messages)
    needs_nl = RewardType.NL_ASSERTION in basis and bool(criteria.nl_assertions)
    reward, breakdown = 1.0, {}
    if set(basis) & {RewardType.DB, RewardType.ENV_ASSERTION}:
        breakdown.update(env_breakdown)
        reward *= env_reward
    if RewardType.ACTION in basis:
        breakdown[RewardType.ACTION] = action_reward
        reward *= action_reward
    if RewardType.NL_ASSERTION in basis and not needs_nl:
        breakdown[RewardType.NL_ASSERTION] = 1.0  # upstream: no assertions, 1.0 without a call
    if RewardType.COMMUNICATE in basis:
        breakdown[RewardType.COMMUNICATE] = comm_reward
        reward *= comm_reward
    return RewardInfo(
        reward=reward, reward_basis=basis, reward_breakdown=_ordered(breakdown),
        db_check=db_check, env_assertions=env_checks, action_checks=action_checks,
        communicate_checks=comm_checks,
        nl_assertions=[] if RewardType.NL_ASSERTION in basis and not needs_nl else None,
        info={"env": env_info, **({"nl": {"note": _NL_SKIPPED}} if needs_nl else {})},
        nl_skipped=needs_nl, reward_basis_mode=reward_basis_mode)


_NL_SKIPPED = ("NL_ASSERTION not scored: no judge, or no upstream judge prompt; the reward "
               "leaves it out")


_ORDER = [RewardType.DB, RewardType.ENV_ASSERTION, RewardType.ACTION, RewardType.NL_ASSERTION,
          RewardType.COMMUNICATE]


def _ordered(breakdown: dict[RewardType, float]) -> dict[RewardType, float]:
    """Upstream's breakdown order: env (DB, ENV_ASSERTION), ACTION, NL, COMMUNICATE."""
    return {k: breakdown[k] for k in _ORDER if k in breakdown}


def _env_component(task: Task, messages: Sequence[Any], domain: Tau2Domain,
                   basis: list[RewardType], solo: bool = False
                   ) -> tuple[float, DBCheck, list[EnvAssertionCheck], dict[RewardType, float],
                              dict[str, Any]]:
    criteria = task.evaluation_criteria
    assert criteria is not None
    if criteria.actions is None and criteria.env_assertions is None:
        # Upstream returns 1.0 without any breakdown entry here.
        return 1.0, DBCheck(db_match=True, db_reward=1.0), [], {}, {
            "note": "No expected actions or env assertions"}
    predicted = _initialized(domain, task)
    if solo:  # upstream: only the predicted environment is built in solo mode
        predicted.set_solo()
    predicted.replay(messages)
    gold, gold_errors = gold_environment(domain, task)
    db_match = predicted.same_db_as(gold)
    db_reward = 1.0 if db_match else 0.0
    checks = []
    assertion_reward = 1.0
    for assertion in criteria.env_assertions or []:
        met = predicted.run_env_assertion(assertion)
        checks.append(EnvAssertionCheck(env_assertion=assertion, met=met,
                                        reward=1.0 if met else 0.0))
        assertion_reward *= 1.0 if met else 0.0
    reward, breakdown = 1.0, {}
    if RewardType.DB in basis:
        breakdown[RewardType.DB] = db_reward
        reward *= db_reward
    if RewardType.ENV_ASSERTION in basis:
        breakdown[RewardType.ENV_ASSERTION] = assertion_reward
        reward *= assertion_reward
    info: dict[str, Any] = {"gold_action_errors": gold_errors} if gold_errors else {}
    if not db_match:  # not upstream: which records differ, for the report viewer
        info["db_diff"] = db_diff(predicted.views(), gold.views())
    return reward, DBCheck(db_match=db_match, db_reward=db_reward), checks, breakdown, info


# Gold end states, per domain and task object: the same for every task-trial of a task, so
# built once per process (a multi-trial run and each replay of a trajectory reuse them).
_GOLD: weakref.WeakKeyDictionary[Tau2Domain, dict[int, tuple[Task, Tau2Environment]]] = (
    weakref.WeakKeyDictionary())
_GOLD_LOCK = threading.Lock()


def gold_environment(domain: Tau2Domain, task: Task) -> tuple[Tau2Environment, list[str]]:
    """The task's gold end state (its initial state, its history, then its gold actions)
    and the gold actions that failed. Shared between calls for the same task: read it,
    never change it. Not kept when a gold action failed (an endpoint may be down just now)."""
    with _GOLD_LOCK:
        known = _GOLD.get(domain, {}).get(id(task))
    if known is not None and known[0] is task:
        return known[1], []
    gold, errors = _gold_environment(domain, task)
    if not errors:
        with _GOLD_LOCK:
            _GOLD.setdefault(domain, {})[id(task)] = (task, gold)
    return gold, errors


def _gold_environment(domain: Tau2Domain, task: Task) -> tuple[Tau2Environment, list[str]]:
    gold = _initialized(domain, task)
    gold.replay(_history(task))
    errors = []
    for action in (task.evaluation_criteria.actions if task.evaluation_criteria else None) or []:
        try:
            gold.make_tool_call(action.name, action.requestor, **action.arguments)
        except Exception as exc:  # upstream only logs failing gold actions; we record them
            errors.append(f"{action.action_id}: {exc}")
    return gold, errors


def _initialized(domain: Tau2Domain, task: Task) -> Tau2Environment:
    env = domain.fresh_environment(task)
    state = task.initial_state
    if state is not None:
        env.apply_initialization(state.initialization_data, state.initialization_actions)
    return env


def _history(task: Task) -> list[Any]:
    state = task.initial_state
    return list(state.message_history or []) if state is not None else []


def tool_calls(messages: Sequence[Any]) -> list[ToolCall]:
    """Tool calls of assistant and user messages, in order (upstream ActionEvaluator)."""
    calls: list[ToolCall] = []
    for message in messages:
        if isinstance(message, AssistantMessage | UserMessage) and message.is_tool_call():
            calls.extend(message.tool_calls or [])
    return calls


def _action_component(task: Task, messages: Sequence[Any], domain: Tau2Domain
                      ) -> tuple[float, list[ActionCheck] | None]:
    gold = (task.evaluation_criteria.actions if task.evaluation_criteria else None) or []
    if not gold:
        return 1.0, None
    by_name: dict[str, list[ToolCall]] = {}  # compare_with_tool_call is False across names
    for call in tool_calls(messages):
        by_name.setdefault(call.name, []).append(call)
    types = domain.tool_types()
    checks = []
    for action in gold:
        found = any(action.compare_with_tool_call(call) for call in by_name.get(action.name, ()))
        checks.append(ActionCheck(action=action, action_match=found,
                                  action_reward=1.0 if found else 0.0,
                                  tool_type=types.get(action.name)))
    return (1.0 if all(c.action_match for c in checks) else 0.0), checks


def _communicate_component(task: Task, messages: Sequence[Any]
                           ) -> tuple[float, list[CommunicateCheck] | None]:
    wanted = (task.evaluation_criteria.communicate_info
              if task.evaluation_criteria else None) or []
    if not wanted:
        return 1.0, None
    checks = []
    for info in wanted:
        hit = next((m for m in messages if isinstance(m, AssistantMessage)
                    and m.has_text_content()
                    # Upstream: case-insensitive substring, commas removed from the message.
                    and info.lower() in (m.content or "").lower().replace(",", "")), None)
        if hit is not None:
            checks.append(CommunicateCheck(info=info, met=True, justification=(
                f"Information '{info}' communicated in the message:\n '{hit.content}'")))
        else:
            checks.append(CommunicateCheck(info=info, met=False, justification=(
                f"Information '{info}' not communicated.")))
    return (1.0 if all(c.met for c in checks) else 0.0), checks


def render_trajectory(messages: Sequence[Any]) -> str:
    """Upstream's judge transcript: one `role: content` line per message (None as 'None')."""
    return "\n".join(f"{m.role}: {m.content}" for m in messages)


async def judge_nl_assertions(assertions: list[str], messages: Sequence[Any], *,
                              domain: Tau2Domain, judge: NLJudge) -> list[NLAssertionCheck]:
    """One judge call with upstream's prompt; the reply must be upstream's JSON shape."""
    prompt = domain.judge_prompt
    if prompt is None:
        raise LLMError("the NL-assertion judge prompt (upstream text) is not available",
                       hint="Run without --data-dir so the pinned upstream files download")
    user = prompt.render(render_trajectory(messages), str(assertions))
    reply = await judge(prompt.system, user)
    try:
        results = json.loads(reply).get("results", [])
        return [NLAssertionCheck(nl_assertion=r["expectedOutcome"], met=r["metExpectation"],
                                 justification=r["reasoning"]) for r in results]
    except (ValueError, AttributeError, KeyError, TypeError) as exc:
        raise LLMError(f"the NL-assertion judge reply is not the expected JSON: {exc}: "
                       f"{reply[:200]!r}", hint="Use a judge model that follows JSON "
                                                "instructions (--judge-llm)") from exc


__all__ = ["NLJudge", "add_nl_judgement", "evaluate", "evaluate_offline", "judge_nl_assertions",
           "tool_call_pairs"]
