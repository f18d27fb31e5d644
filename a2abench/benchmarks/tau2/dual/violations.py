"""The user role's rule violations, read deterministically from a finished match
(docs/multi-agent.md, "Scores per role"). Each is `{"kind", "message"}`:

    early_stop       the user ended the conversation (a stop token) while a gold write of
                     the task had not been made yet (upstream issue #297's failure mode)
    outside_tools    the user called a user tool the task does not allow it (`user_tools`)
    turn_limit       the conversation reached --max-steps without anyone stopping it
    empty_reply      the user participant sent nothing usable (it forfeits the match)
    malformed_reply  the user participant's reply could not be read (it forfeits too)

They are counted for whoever plays the user, the built-in simulator included, so a
submitted user and the reference one are held to the same rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from a2abench.benchmarks.tau2.actions import EmptyReply
from a2abench.benchmarks.tau2.domain_core import Tau2Domain
from a2abench.benchmarks.tau2.episode import Outcome
from a2abench.benchmarks.tau2.evaluator import tool_calls
from a2abench.benchmarks.tau2.models import Task, TerminationReason, UserMessage

WRITE = "write"


def user_violations(task: Task, outcome: Outcome, domain: Tau2Domain,
                    allowed: set[str], start: int = 0) -> list[dict[str, Any]]:
    """The violations of the match's user side (see the module docstring): `allowed` are
    the user tools the task allows, `start` the transcript index where the match began
    (a task's own conversation so far is not the user's doing)."""
    found = []
    outside = [c.name for m in outcome.messages[start:] if isinstance(m, UserMessage)
               for c in m.tool_calls or [] if c.name not in allowed]
    missing = _missing_writes(task, outcome.messages, domain)
    if outcome.termination is TerminationReason.USER_STOP and missing:
        found.append(_v("early_stop", "stopped before the task's gold write(s) were made: "
                        + ", ".join(missing)))
    for name in dict.fromkeys(outside):
        found.append(_v("outside_tools", f"called {name}, a user tool this task does not "
                                         "allow"))
    if outcome.termination is TerminationReason.MAX_STEPS:
        found.append(_v("turn_limit", "the conversation reached the step limit (--max-steps) "
                                      "without a stop token"))
    if outcome.status == "forfeit" and outcome.error is not None:
        empty = outcome.error.error == EmptyReply.__name__
        if empty or (outcome.error.kind == "forfeit" and _malformed(outcome.error.error)):
            found.append(_v("empty_reply" if empty else "malformed_reply",
                            outcome.error.message))
    return found


def _missing_writes(task: Task, messages: Sequence[Any], domain: Tau2Domain) -> list[str]:
    """The task's gold write actions no call in the transcript matches (as upstream's action
    check compares them)."""
    gold = (task.evaluation_criteria.actions if task.evaluation_criteria else None) or []
    types = domain.tool_types()
    calls = tool_calls(messages)
    return [a.name for a in gold if types.get(a.name) == WRITE
            and not any(a.compare_with_tool_call(c) for c in calls)]


def _malformed(error_class: str) -> bool:
    """A forfeit caused by what the participant sent, not by its silence or absence."""
    return error_class in ("ProtocolError", "ReplyLimitExceeded", "ReplyTooLarge",
                           "ReplyTooDeep", "JSONRPCError", "A2AStatusError")


def _v(kind: str, message: str) -> dict[str, Any]:
    return {"kind": kind, "message": message}
