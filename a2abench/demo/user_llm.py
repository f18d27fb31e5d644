"""A deterministic OpenAI-compatible "user LLM" for the offline demo (no model, no network).

It reads the `Request:` line of the tau2 scenario in the system prompt, says it, and ends the
conversation once the agent has answered (###TRANSFER### when the agent transferred). Its
replies carry `system_fingerprint` SCRIPTED_FINGERPRINT, so every run it plays is labelled
`scripted_user`, whatever model name it was called by.

Serve it on its own for a real tau2 domain offline (README, "Offline, with the scripted user"):

    python -m a2abench.demo.user_llm --port 8000
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from a2abench.llm._result import SCRIPTED_FINGERPRINT

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
        "model": body.get("model", "scripted-user"), "system_fingerprint": SCRIPTED_FINGERPRINT,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}})


def app() -> Starlette:
    return Starlette(routes=[Route("/v1/chat/completions", _chat, methods=["POST"])])


def main(argv: list[str] | None = None) -> None:
    """`python -m a2abench.demo.user_llm --port 8000`: the scripted user on its own."""
    import argparse
    import sys

    import uvicorn

    parser = argparse.ArgumentParser(
        prog="python -m a2abench.demo.user_llm",
        description="Serve the demo's scripted user as an OpenAI-compatible endpoint "
                    "(/v1/chat/completions). Runs it plays are labelled scripted_user: it "
                    "checks the pipeline, it does not measure an agent.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    print(f"a2abench scripted user: --user-llm-base-url http://{args.host}:{args.port}/v1 "
          "(Ctrl-C stops)", file=sys.stderr, flush=True)
    try:
        uvicorn.run(app(), host=args.host, port=args.port, log_level="warning")
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after a clean shutdown
        sys.exit(130)


if __name__ == "__main__":
    main()
