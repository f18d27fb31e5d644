"""A deterministic OpenAI-compatible "user LLM" for the offline demo (no model, no network).

It reads the `Request:` line of the tau2 scenario in the system prompt, says it, and ends the
conversation once the agent has answered (###TRANSFER### when the agent transferred).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

_ids = itertools.count(1)


def reply(messages: list[dict[str, Any]]) -> str:
    system = messages[0]["content"] if messages else ""
    match = re.search(r"Request: (.+)", system)
    request = match.group(1).strip() if match else "I need help with my tasks."
    mine = [m for m in messages[1:] if m.get("role") == "assistant"]
    if not mine:
        return request
    agent = [m for m in messages[1:] if m.get("role") == "user"]
    last = (agent[-1].get("content") or "") if agent else ""
    if "TRANSFERRED" in last.upper():
        return "###TRANSFER###"
    return "Thank you, that is all. ###STOP###"


async def _chat(request: Request) -> JSONResponse:
    body = await request.json()
    content = reply(body.get("messages", []))
    return JSONResponse({
        "id": f"demo-{next(_ids)}", "object": "chat.completion", "created": 0,
        "model": body.get("model", "scripted-user"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}})


def app() -> Starlette:
    return Starlette(routes=[Route("/v1/chat/completions", _chat, methods=["POST"])])
