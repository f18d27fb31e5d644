"""A scripted tau2 airline agent and a fake OpenAI-compatible user LLM, each answering after
a lognormal delay (a real wait on a timer, no CPU), on bare asyncio in one process.

    python perf/multiturn_servers.py AGENT_PORT LLM_PORT [--agent 1.5,6] [--user 0.8,2.5]

A conversation: the user LLM's first answer names it (`[conv N]`, N in the order first calls
arrive); the agent asks for the user id, looks the user up with a `get_user_details` tool
call (a2abench runs the tool and sends the result back), then answers; the user says
`###STOP###` on its third turn. That is 3 user LLM calls and 3 agent turns per conversation,
each delay drawn from a generator seeded by (seed, who, N, turn) and logged under N:
`GET /log` (either port) returns each conversation's summed delays, which is the critical path
no harness can beat; `POST /reset` with a seed as its body starts again.
Not a general server: loopback benchmarks only (HTTP parsing is fast_agent's).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import re
from typing import Any

import orjson
from fast_agent import CARD, AgentProtocol, _response

_CONV = re.compile(r"\[conv (\d+)\]")
USER_TURNS = 3


class Script:
    """Conversation ids, delays and their log, shared by both servers."""

    def __init__(self, agent: tuple[float, float], user: tuple[float, float]) -> None:
        self.shapes = {"agent": agent, "user": user}
        self.reset(0)

    def reset(self, seed: int) -> None:
        self.seed, self.conversations = seed, 0
        self.log: dict[int, float] = {}
        self.turns: dict[str, int] = {}  # the agent's turns per contextId

    def delay(self, who: str, conv: int, turn: int) -> float:
        median, p95 = self.shapes[who]
        rng = random.Random(f"{self.seed}:{who}:{conv}:{turn}")
        value = rng.lognormvariate(math.log(median), math.log(p95 / median) / 1.6448536)
        self.log[conv] = self.log.get(conv, 0.0) + value
        return value


class ScriptedServer(AgentProtocol):
    """fast_agent's HTTP handling; `answer` says what to send and after how long."""

    script: Script
    kind: str  # "agent" or "user"

    def _handle(self, request_line: list[str], body: bytes) -> None:
        method, path = request_line[0], request_line[1]
        if path == "/reset":
            self.script.reset(int(body or b"0"))
            self._send(_response(b"{}"))
            return
        if path == "/log":
            self._send(_response(orjson.dumps({str(k): v for k, v in self.script.log.items()})))
            return
        if method == "GET" and path.startswith("/.well-known/"):
            self._send(_response(orjson.dumps({**CARD, "url": self.base + "/"})))
            return
        payload, delay = self.answer(orjson.loads(body))
        asyncio.get_running_loop().call_later(delay, self._send, _response(payload))

    def answer(self, call: dict[str, Any]) -> tuple[bytes, float]:
        raise NotImplementedError


class UserLLM(ScriptedServer):
    kind = "user"

    def answer(self, call: dict[str, Any]) -> tuple[bytes, float]:
        messages = call["messages"]
        said = [m for m in messages if m.get("role") == "assistant"]  # the user's own turns
        found = _CONV.search(" ".join(str(m.get("content")) for m in said))
        if found is None:
            conv = self.script.conversations
            self.script.conversations += 1
        else:
            conv = int(found.group(1))
        turn = len(said)
        text = ("Hi, I need help with my reservation." if turn == 0 else
                "My user id is mia_li_3668." if turn < USER_TURNS - 1 else
                "Thanks, that is all. ###STOP###")
        reply = {"id": f"c{conv}-{turn}", "object": "chat.completion", "created": 0,
                 "model": call.get("model", "u"),
                 "choices": [{"index": 0, "finish_reason": "stop", "message": {
                     "role": "assistant", "content": f"{text} [conv {conv}]"}}],
                 "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}
        return orjson.dumps(reply), self.script.delay("user", conv, turn)


class Agent(ScriptedServer):
    kind = "agent"

    def answer(self, call: dict[str, Any]) -> tuple[bytes, float]:
        message = call["params"]["message"]
        context = message.get("contextId")
        if context is None:
            text = " ".join(p.get("text", "") for p in message["parts"] if p.get("kind") == "text")
            found = _CONV.findall(text)
            context = f"ctx-{found[-1] if found else 'x'}-{message['messageId']}"
        conv = int(context.split("-")[1]) if context.split("-")[1].isdigit() else -1
        turn = self.script.turns.get(context, 0)
        self.script.turns[context] = turn + 1
        if turn == 1:
            parts: list[dict[str, Any]] = [{"kind": "data", "data": {"tool_call": {
                "name": "get_user_details", "arguments": {"user_id": "mia_li_3668"}}}}]
        else:
            parts = [{"kind": "text", "text": "Could you give me your user id?" if turn == 0
                      else "I found your profile; anything else?"}]
        reply = {"jsonrpc": "2.0", "id": call["id"], "result": {
            "kind": "message", "role": "agent", "messageId": f"m-{message['messageId']}",
            "contextId": context, "parts": parts}}
        return orjson.dumps(reply), self.script.delay("agent", conv, turn)


async def serve(agent_port: int, llm_port: int, script: Script) -> None:
    loop = asyncio.get_running_loop()
    servers = []
    for cls, port in ((Agent, agent_port), (UserLLM, llm_port)):
        kind = type(cls.__name__, (cls,), {"script": script})
        base = f"http://127.0.0.1:{port}"
        servers.append(await loop.create_server(lambda k=kind, b=base: k(b, None), "127.0.0.1",
                                                port, backlog=1024))
    await asyncio.gather(*(s.serve_forever() for s in servers))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("agent_port", type=int)
    parser.add_argument("llm_port", type=int)
    shape = lambda s: tuple(float(x) for x in s.split(","))  # noqa: E731
    parser.add_argument("--agent", type=shape, default=(1.5, 6.0))
    parser.add_argument("--user", type=shape, default=(0.8, 2.5))
    args = parser.parse_args()
    asyncio.run(serve(args.agent_port, args.llm_port, Script(args.agent, args.user)))


if __name__ == "__main__":
    main()
