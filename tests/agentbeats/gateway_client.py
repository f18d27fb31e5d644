"""Plays AgentBeats' assessment gateway against a green agent, with a2a-sdk 0.3 (the gateway's
pinned client). Runs in its own venv (tests/agentbeats/gateway.py builds it), never under the
project's a2a-sdk 1.x. One process runs assessments one after another (its start-up, which
imports a2a-sdk 0.3, costs more CPU than a small assessment): it prints `{"ready": VERSION}`,
then reads one JSON line per assessment and answers each with one JSON line:

    {"green": URL, "participants": {"agent": URL}, "config": {...}, "timeout": SECONDS}

What each assessment does, as the gateway does (facts recorded in docs/serve-green.md,
"Deploying on AgentBeats"): a client of its own (nothing carries over from the last one)
sends one message with one TextPart holding `{"participants": ..., "config": ...}` as JSON,
over a streaming client whose httpx timeout is `timeout` (the gateway uses 300 s); the final
state is that of the last status event; only when it is `completed` are the task's artifacts
read, and from them every DataPart's data and every TextPart that parses as JSON. Any
exception ends the assessment as `failed`. The answer is `{"status": ..., "results": [...]}`,
the body the gateway serves and the leaderboard workflow polls, plus the states seen and
what the assessment wrote to stderr (`log`).
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
import uuid
from contextlib import redirect_stderr
from importlib.metadata import version
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
    sdk = version("a2a-sdk")
    if not sdk.startswith("0.3."):
        sys.exit(f"a2a-sdk {sdk} is not the gateway's 0.3")
    print(json.dumps({"ready": sdk}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        with redirect_stderr(io.StringIO()) as log:
            outcome = asyncio.run(assess(job["green"], job["participants"], job["config"],
                                         float(job["timeout"])))
        print(json.dumps({**outcome, "log": log.getvalue()}), flush=True)


if __name__ == "__main__":
    main()
