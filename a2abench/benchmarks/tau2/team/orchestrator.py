"""The tau2 conversation of a team match: today's Orchestrator, with the front agent's
`delegate` calls run by the green (a2abench.run.delegation) instead of the environment.

A delegate call's result is the specialist's answer (or the green's refusal, a tool error).
The specialist's own tool calls run in the same environment, with the same rules as the
agent's (requestor "assistant"), and enter the trajectory right after the front agent's
message and its results: an assistant message with the calls (no text: the user never
sees the specialist's words) and their results, so that upstream's evaluator replays and
checks them as any agent call. Their tool errors count towards --max-errors.
"""

from __future__ import annotations

from typing import Any

from a2abench.benchmarks.tau2.episode import Orchestrator
from a2abench.benchmarks.tau2.models import AssistantMessage, ToolCall, ToolMessage
from a2abench.benchmarks.tau2.team.specialist import Specialist
from a2abench.plugin.provisional import DELEGATE, DelegateRefused, Delegations, refusal_text


class TeamOrchestrator(Orchestrator):
    """An Orchestrator whose agent may delegate (see the module docstring)."""

    def __init__(self, *args: Any, specialist: Specialist, budget: Delegations,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.specialist = specialist
        self.budget = budget
        self.specialist_messages: list[int] = []  # their transcript indices (the viewer's)
        self._pending: list[Any] = []  # the specialist's messages of the current step

    async def _execute(self, calls: list[ToolCall]) -> list[ToolMessage]:
        results = []
        for call in calls:
            if call.name == DELEGATE and call.requestor == "assistant":
                results.append(await self._delegate(call))
            else:
                results.append(*(await self._run([call])))
        self.errors += sum(r.error for r in results)
        self.trajectory.extend(results)
        for message in self._pending:
            self.specialist_messages.append(len(self.trajectory))
            self.trajectory.append(message)
        self._pending = []
        return results

    async def _delegate(self, call: ToolCall) -> ToolMessage:
        try:
            message = self.budget.request(call.arguments)
            answer = await self.budget.timed(
                lambda: self.specialist.handle(message, self._specialist_calls, self.budget))
        except DelegateRefused as exc:  # refused, or the byte budget ran out (BudgetSpent)
            return ToolMessage(id=call.id, content=refusal_text(exc), requestor="assistant",
                               error=True)
        return ToolMessage(id=call.id, content=answer, requestor="assistant")

    async def _specialist_calls(self, calls: list[ToolCall]) -> list[ToolMessage]:
        results = await self._run(calls)
        self.errors += sum(r.error for r in results)
        self._pending += [AssistantMessage(content=None, tool_calls=calls), *results]
        self.env.sync_tools()
        return results
