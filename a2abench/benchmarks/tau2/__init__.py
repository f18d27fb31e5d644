"""tau2-bench (airline, retail, mock, telecom), reimplemented natively.

Public API (see docs/tau2.md):

    load_domain(domain, *, data_dir=None, split="base", policy="manual") -> Tau2Domain
    Tau2Domain.tasks(task_ids=None, max_tasks=None) -> list[Task]
    Tau2Domain.new_environment(task) -> Tau2Environment
    Tau2Environment.agent_tool_schemas() / user_tool_schemas() -> list[dict]
    Tau2Environment.execute(ToolCall) -> ToolMessage
    Tau2Environment.sync_tools() -> None
    await evaluate(task, messages, termination_reason, *, domain, judge, reward_basis_mode)
        -> RewardInfo
"""

from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.domain_core import Tau2Domain
from a2abench.benchmarks.tau2.environment import Tau2Environment
from a2abench.benchmarks.tau2.evaluator import NLJudge, evaluate, evaluate_offline
from a2abench.benchmarks.tau2.models import (
    AssistantMessage,
    RewardInfo,
    RewardType,
    SystemMessage,
    Task,
    TerminationReason,
    ToolCall,
    ToolMessage,
    UserMessage,
)

__all__ = [
    "AssistantMessage",
    "NLJudge",
    "RewardInfo",
    "RewardType",
    "SystemMessage",
    "Task",
    "Tau2Domain",
    "Tau2Environment",
    "TerminationReason",
    "ToolCall",
    "ToolMessage",
    "UserMessage",
    "evaluate",
    "evaluate_offline",
    "load_domain",
]
