"""Plays AgentBeats' assessment gateway against a green agent, with a2a-sdk 0.3 (the gateway's
pinned client). Runs in its own venv (tests/agentbeats/gateway.py builds it), never under the
project's a2a-sdk 1.x:

    python gateway_client.py GREEN_URL '{"agent": "http://127.0.0.1:P/agent"}' '{...config}' \
        TIMEOUT_S

What it does, as the gateway does (facts recorded in docs/serve-green.md, "Deploying on
AgentBeats"): one message with one TextPart holding `{"participants": ..., "config": ...}` as
JSON, sent over a streaming client whose httpx timeout is TIMEOUT_S (the gateway uses 300 s);
the final state is that of the last status event; only when it is `completed` are the task's
artifacts read, and from them every DataPart's data and every TextPart that parses as JSON.
Any exception ends the assessment as `failed`. Prints `{"status": ..., "results": [...]}`,
the body the gateway serves and the leaderboard workflow polls.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from typing import Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import DataPart, Message, Part, Role, TaskStatusUpdateEvent, TextPart


def collect(parts: list[Part]) -> list[Any]:
    found: list[Any] = []
    for part in parts:
        root = part.root
        if isinstance(root, DataPart):
            found.append(root.data)
        elif isinstance(root, TextPart):
            try:
                found.append(json.loads(root.text))
            except ValueError:
                continue  # prose: the gateway only prints it
    return found


async def assess(green: str, participants: dict[str, str], config: dict[str, Any],
                 timeout: float) -> dict[str, Any]:
    status: str | None = None
    artifacts: list[Any] = []
    states: list[str] = []
    try:
        async with httpx.AsyncClient(timeout=timeout) as http:
            card = await A2ACardResolver(httpx_client=http, base_url=green).get_agent_card()
            card.url = green  # as the gateway does: talk to the address it was given
            client = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)
            text = json.dumps({"participants": participants, "config": config})
            message = Message(kind="message", role=Role.user, message_id=uuid.uuid4().hex,
                              parts=[Part(root=TextPart(kind="text", text=text))])
            async for event in client.send_message(message):
                if isinstance(event, Message):
                    continue
                task, update = event
                if update is None or isinstance(update, TaskStatusUpdateEvent):
                    state = (update.status if update is not None else task.status).state.value
                    states.append(state)
                    status = state
                    if state == "completed":
                        artifacts = list(task.artifacts or [])
    except Exception as exc:  # the gateway's rule: any failure is a failed assessment
        print(f"assessment failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        status = "failed"
    results = [item for artifact in artifacts for item in collect(artifact.parts)]
    return {"status": status, "results": results, "states": states}


def main() -> None:
    green, participants, config, timeout = sys.argv[1:5]
    outcome = asyncio.run(assess(green, json.loads(participants), json.loads(config),
                                 float(timeout)))
    print(json.dumps(outcome))


if __name__ == "__main__":
    main()
