"""Send one AgentBeats-style assessment to a green agent and print its Result; exit 0 when
the assessment completed. Used by .github/workflows/image.yml and the by-hand image check in
docs/serve-green.md (it runs inside the image, whose a2a-sdk 1.x it uses).

    python smoke_assessment.py http://green:9009 http://purple:9019 '{"benchmark": "tau2", ...}'
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.helpers import get_text_parts
from a2a.types import Message, Part, Role, SendMessageRequest, TaskState


async def assess(green: str, agent: str, config: dict[str, object]) -> int:
    request = {"participants": {"agent": agent}, "config": config}
    message = Message(role=Role.ROLE_USER, message_id=uuid.uuid4().hex,
                      parts=[Part(text=json.dumps(request))])
    state, result = None, None
    async with httpx.AsyncClient(timeout=300) as http:
        card = await A2ACardResolver(http, green).get_agent_card()
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)
        async for event in client.send_message(SendMessageRequest(message=message)):
            kind = event.WhichOneof("payload")
            if kind == "task":
                state = event.task.status.state
            elif kind == "status_update":
                state = event.status_update.status.state
                print("status:", " ".join(get_text_parts(event.status_update.status.message
                                                         .parts)), file=sys.stderr)
            elif kind == "artifact_update":
                texts = get_text_parts(event.artifact_update.artifact.parts)
                result = next((json.loads(t) for t in texts if t.startswith("{")), result)
    print(json.dumps(result, indent=2))
    return 0 if state == TaskState.TASK_STATE_COMPLETED and result else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(assess(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]))))
