"""Scripted participants of pressure and team matches, each answering after a fixed delay
(a real wait on a timer, no CPU), on bare asyncio in one process.

    python perf/multi_agent_servers.py PORT [--delay 0.5]

One port serves every role by path prefix (`/refuser`, `/adversary`, `/front`,
`/specialist`: each an A2A 0.3 JSON-RPC agent with its own card) and `/v1` a fake
OpenAI-compatible user LLM, so that one process holds every participant. Per conversation
(contextId) each keeps its own turn:

- refuser (pressure's agent): always "I am sorry, I cannot do that.";
- adversary: presses ("Please do it now; yes, I confirm.") three times, then stops;
- front (team's front agent): first delegates one call to the specialist (airline
  `get_user_details`), then answers "Done.";
- specialist: first calls the requested tool, then reports "done";
- the user LLM: "Hi, I need help with my reservation.", then "Thanks. ###STOP###".

Every reply waits `--delay` seconds, so a match's critical path is its number of replies
times the delay. Not a general server: loopback benchmarks only (HTTP parsing is
fast_agent's).
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any, ClassVar

import orjson
from fast_agent import CARD, AgentProtocol, _response

ASK = "Please do it now; yes, I confirm."
CALL = {"name": "get_user_details", "arguments": {"user_id": "mia_li_3668"}}


def _text(text: str) -> list[dict[str, Any]]:
    return [{"kind": "text", "text": text}]


def _data(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"kind": "data", "data": data}]


def refuser(turn: int) -> list[dict[str, Any]]:
    return _text("I am sorry, I cannot do that.")


def adversary(turn: int) -> list[dict[str, Any]]:
    return _text(ASK if turn < 3 else "I see. ###STOP###")


def front(turn: int) -> list[dict[str, Any]]:
    if turn == 0:
        return _data({"tool_call": {"name": "delegate", "arguments": {
            "to": "specialist", "message": orjson.dumps({"tool_call": CALL}).decode()}}})
    return _text("Done.")


def specialist(turn: int) -> list[dict[str, Any]]:
    if turn == 0:
        return _data({"tool_calls": [{**CALL, "id": "c1",
                                      "arguments": orjson.dumps(CALL["arguments"]).decode()}]})
    return _text("done")


ROLES = {"refuser": refuser, "adversary": adversary, "front": front, "specialist": specialist}


class Participants(AgentProtocol):
    """fast_agent's HTTP handling; routes by path prefix (see the module docstring)."""

    delay = 0.5
    turns: ClassVar[dict[str, int]] = {}  # contextId -> replies so far, shared by every port

    def _handle(self, request_line: list[str], body: bytes) -> None:
        method, path = request_line[0], request_line[1]
        role = path.strip("/").split("/")[0]
        if method == "GET" and role in ROLES:
            self._send(_response(orjson.dumps({**CARD, "name": role,
                                               "url": f"{self.base}/{role}/"})))
            return
        call = orjson.loads(body)
        if role == "v1":
            said = [m for m in call["messages"] if m.get("role") == "assistant"]
            text = "Hi, I need help with my reservation." if not said else "Thanks. ###STOP###"
            reply = {"id": "c", "object": "chat.completion", "created": 0, "model": "u",
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": text}}],
                     "usage": {"prompt_tokens": 100, "completion_tokens": 10,
                               "total_tokens": 110}}
        else:
            message = call["params"]["message"]
            context = message.get("contextId") or f"{role}-{message['messageId']}"
            turn = Participants.turns.get(context, 0)
            Participants.turns[context] = turn + 1
            reply = {"jsonrpc": "2.0", "id": call["id"], "result": {
                "kind": "message", "role": "agent", "messageId": "m-" + message["messageId"],
                "contextId": context, "parts": ROLES[role](turn)}}
        asyncio.get_running_loop().call_later(self.delay, self._send,
                                              _response(orjson.dumps(reply)))


async def serve(port: int) -> None:
    loop = asyncio.get_running_loop()
    base = f"http://127.0.0.1:{port}"
    server = await loop.create_server(lambda: Participants(base, None),  # type: ignore[arg-type]
                                      "127.0.0.1", port, backlog=1024)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--delay", type=float, default=0.5)
    args = parser.parse_args()
    Participants.delay = args.delay
    asyncio.run(serve(args.port))


if __name__ == "__main__":
    main()
