"""The episode loop against in-process fakes: upstream's turn rules, one by one."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from a2abench.a2a import TaskState
from a2abench.benchmarks.crmarena.episode import Episode, EpisodeResult

RULE = "Bad format.\n"


@dataclass
class Reply:
    text: str
    data: list[Any] = field(default_factory=list)
    state: TaskState | None = None


class Chat:
    """Replies from a script; records what the harness sent."""

    def __init__(self, script: Sequence[str | Reply]) -> None:
        self.script = [r if isinstance(r, Reply) else Reply(r) for r in script]
        self.sent: list[str] = []

    async def send(self, *parts: Any) -> Reply:
        self.sent.append(parts[0])
        return self.script.pop(0)


class Org:
    name = "fake"

    def __init__(self) -> None:
        self.queries: list[tuple[str, dt.date | None]] = []

    async def observe(self, query: str, today: dt.date | None) -> str:
        self.queries.append((query, today))
        return f"[{{'q': {len(self.queries)}}}]"

    def describe(self) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        pass


class User:
    """A simulated user that answers from a script."""

    def __init__(self, script: Sequence[str]) -> None:
        self.script = list(script)
        self.heard: list[str] = []

    async def reply(self, agent_text: str) -> str:
        self.heard.append(agent_text)
        return self.script.pop(0)


async def play(script: Sequence[str | Reply], *, max_turns: int = 20, user: User | None = None,
               max_user_turns: int = 10) -> tuple[EpisodeResult, Chat, Org]:
    chat, org = Chat(script), Org()
    episode = Episode(chat, org, RULE, max_turns, dt.date(2024, 5, 1),  # type: ignore[arg-type]
                      user, max_user_turns)  # type: ignore[arg-type]
    return await episode.run("TASK", "TASK (logged)"), chat, org


async def test_single_turn_executes_then_answers() -> None:
    result, chat, org = await play(["<execute>SELECT Id FROM Case</execute>",
                                    '{"action": "respond", "answer": "x"}'])
    assert (result.termination, result.answer, result.agent_turns, result.queries) == (
        "respond", "x", 2, 1)
    assert chat.sent == ["TASK", "Salesforce instance output: [{'q': 1}]"]
    assert org.queries == [("SELECT Id FROM Case", dt.date(2024, 5, 1))]
    assert [e["role"] for e in result.transcript] == ["green", "agent", "environment", "agent"]
    assert result.transcript[0]["text"] == "TASK (logged)"


async def test_invalid_replies_use_turns_until_the_limit() -> None:
    result, chat, _ = await play(["hmm", "", "<respond></respond>"], max_turns=3)
    assert (result.termination, result.answer, result.invalid_replies) == ("max_turns", None, 3)
    assert chat.sent == ["TASK", RULE, RULE]


async def test_interactive_turns_restart_after_every_respond() -> None:
    # 19 queries, ask, 19 queries, answer: 40 replies, never more than 20 per user turn
    script = (["<execute>SELECT Id FROM User</execute>"] * 19 + ["<respond>Which?</respond>"]
              + ["<execute>SELECT Id FROM User</execute>"] * 19 + ["<respond>42</respond>"])
    user = User(["This quarter.", "###STOP###"])
    result, chat, _ = await play(script, max_turns=20, user=user)
    assert (result.termination, result.answer, result.agent_turns, result.user_turns) == (
        "user_stop", "42", 40, 2)
    assert user.heard == ["Which?", "42"] and chat.sent[20] == "This quarter."
    assert len(result.trajectory) == 40


async def test_interactive_without_stop_is_not_scored() -> None:
    result, _, _ = await play(["<respond>a</respond>"] * 3, user=User(["no"] * 3),
                              max_user_turns=2)
    # two user turns, then the next action still goes to the user and ends the task
    assert (result.termination, result.answer, result.user_turns) == ("max_user_turns", None, 3)


async def test_interactive_last_action_may_still_be_scored() -> None:
    result, _, _ = await play(["<respond>a</respond>", "<respond>b</respond>"],
                              user=User(["no", "###STOP###"]), max_user_turns=1)
    assert (result.termination, result.answer) == ("user_stop", "b")


async def test_interactive_query_after_the_last_user_turn_ends_the_task() -> None:
    result, _, org = await play(["<respond>a</respond>", "<execute>SELECT Id FROM Case</execute>"],
                                user=User(["no"]), max_user_turns=1)
    assert (result.termination, result.answer, len(org.queries)) == ("max_user_turns", None, 1)
