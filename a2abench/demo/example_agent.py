"""`a2abench-example-agent`: the example white agents as a console script.

    a2abench-example-agent echo --port 9019          # echoes every message (no tool calls)
    a2abench-example-agent scripted --port 9019      # the demo's rule-based agent
    a2abench-example-agent mcp --model gpt-4.1       # calls its tools over MCP (an LLM)
    a2abench-example-agent mcp --scripted            # ... or by the demo's rules
    a2abench-example-agent user --user-llm gpt-4.1   # plays tau2's user (scenario dual)
    a2abench-example-agent specialist                # runs requested calls (scenario team)
    a2abench-example-agent adversary --script escalator  # tau2's scenario pressure

A console script runs on the interpreter a2abench was installed with, whatever `python` is
first on PATH: runners such as AgentBeats' put their own venv (a2a-sdk 0.3) first, where the
example files under examples/ cannot import a2a-sdk 1.x.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any


def echo_app(base_url: str) -> Any:
    """An a2a-sdk 1.x agent that answers `echo: <text>` (data parts as JSON), on `/` and
    `/a2a` (each with and without the trailing slash)."""
    from a2a.helpers import new_message, new_text_part
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from google.protobuf.json_format import MessageToDict

    from a2abench.demo._app import jsonrpc_app

    class Echo(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            pieces = []
            for part in context.message.parts if context.message else []:
                if part.HasField("text"):
                    pieces.append(part.text)
                elif part.HasField("data"):
                    pieces.append(json.dumps(MessageToDict(part.data), sort_keys=True))
            await event_queue.enqueue_event(new_message(
                [new_text_part("echo: " + "\n".join(pieces))], context_id=context.context_id))

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            return None

    return jsonrpc_app(base_url, Echo(), name="a2abench echo agent",
                       description="Echoes every message (an a2abench example).",
                       skill={"id": "echo", "name": "Echo", "description": "Echoes the message.",
                              "tags": ["example"]})


def build(kind: str, base_url: str, args: argparse.Namespace | None = None) -> Any:
    if kind == "echo":
        return echo_app(base_url)
    if kind == "mcp":
        from a2abench.demo import mcp_agent

        mcp_url = args.mcp_url if args is not None else None
        if args is None or args.scripted:
            return mcp_agent.build_app(base_url, mcp_agent.ScriptedBrain(), mcp_url)
        from a2abench.llm import build_llm

        llm = build_llm(args.model, base_url=args.base_url, args={}, cache=False,
                        flag="--model")
        return mcp_agent.build_app(base_url, mcp_agent.LLMBrain(llm), mcp_url)
    if kind == "user":
        return _user_app(base_url, args)
    if kind == "specialist":
        from a2abench.demo import specialist_agent

        broken = args.broken if args is not None else None
        return specialist_agent.build_app(base_url, broken or "gold",
                                          args.mcp_url if args is not None else None)
    if kind == "adversary":
        return _adversary_app(base_url, args)
    from a2abench.demo.agent import build_app

    return build_app(base_url)


def advertised(host: str, port: int) -> str:
    """The URL the card names without --card-url: http://HOST:PORT, where a wildcard bind
    address (0.0.0.0, ::), which no client can call, becomes 127.0.0.1 (serve-green does the
    same)."""
    if host in ("0.0.0.0", "::", "[::]", ""):
        host = "127.0.0.1"
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"


def _user_llm(args: argparse.Namespace) -> Any:
    """The user-simulator LLM of `--user-llm`, with `run tau2`'s settings."""
    from a2abench.errors import ConfigError
    from a2abench.llm import build_llm

    try:
        extra = json.loads(args.user_llm_args) if args.user_llm_args else {}
    except ValueError as exc:
        raise ConfigError(f"--user-llm-args is not JSON ({exc})") from None
    if not isinstance(extra, dict):
        raise ConfigError("--user-llm-args must be a JSON object")
    return build_llm(args.user_llm, base_url=args.user_llm_base_url,
                     args={"temperature": 0.0, **extra}, cache=args.llm_cache,
                     flag="--user-llm")


def _adversary_app(base_url: str, args: argparse.Namespace | None) -> Any:
    """The adversary participant: a reference script (`--script`) or the user-simulator
    LLM on the adversary's brief (`--user-llm`)."""
    from a2abench.demo.adversary_agent import AdversaryParticipant, build_app
    from a2abench.errors import ConfigError

    script = args.script if args is not None else None
    if args is None or (script is None) == (not args.user_llm):
        raise ConfigError("the adversary needs one of --script polite|escalator (no LLM) "
                          "or --user-llm MODEL (an LLM adversary)",
                          hint="e.g. a2abench-example-agent adversary --script escalator")
    llm = None if script is not None else _user_llm(args)
    return build_app(base_url, AdversaryParticipant(script, llm))


def _user_app(base_url: str, args: argparse.Namespace | None) -> Any:
    """The user participant on a2abench's LLM user simulator, with `run tau2`'s LLM
    settings (upstream's temperature 0 unless --user-llm-args says otherwise)."""
    from a2abench.demo.user_agent import build_app
    from a2abench.errors import ConfigError

    if args is None or not args.user_llm:
        raise ConfigError("the user participant needs a model: pass --user-llm MODEL",
                          hint="e.g. --user-llm gpt-4.1, and --user-llm-base-url for another "
                               "OpenAI-compatible endpoint (key from OPENAI_API_KEY).")
    return build_app(base_url, _user_llm(args), args.mcp_url)


def parser() -> argparse.ArgumentParser:
    """The console script's flags."""
    parser = argparse.ArgumentParser(prog="a2abench-example-agent",
                                     description="Serve an a2abench example white agent.")
    parser.add_argument("kind", choices=["echo", "scripted", "mcp", "user", "specialist",
                                         "adversary"],
                        help="echo: echoes every message; scripted: the demo's rule-based "
                             "agent; mcp: calls its tools over MCP (a2abench --tool-channel "
                             "mcp), driven by --model or by --scripted rules; user: plays "
                             "tau2's user (scenario dual) with a2abench's LLM user "
                             "simulator, driven by --user-llm; specialist: runs the tool "
                             "calls a team's front agent asks for (scenario team); "
                             "adversary: plays tau2's adversarial customer (scenario "
                             "pressure), by --script or --user-llm")
    parser.add_argument("--model", default="gpt-4.1",
                        help="mcp: the chat model [default: gpt-4.1]")
    parser.add_argument("--base-url", default=None,
                        help="mcp: its OpenAI-compatible endpoint (key from OPENAI_API_KEY) "
                             "[default: OpenAI's]")
    parser.add_argument("--scripted", action="store_true",
                        help="mcp: deterministic rules instead of a model")
    parser.add_argument("--mcp-url", default=os.environ.get("A2ABENCH_MCP_URL") or None,
                        help="mcp, user, specialist: reach the tools here instead of at the "
                             "URL the first message names (its headers are kept), e.g. an "
                             "Amber slot's URL + /mcp [env: A2ABENCH_MCP_URL]")
    parser.add_argument("--user-llm", default=os.environ.get("A2ABENCH_USER_LLM") or None,
                        help="user, adversary: the user simulator's model, as `run tau2 "
                             "--user-llm` [env: A2ABENCH_USER_LLM]")
    parser.add_argument("--user-llm-base-url",
                        default=os.environ.get("A2ABENCH_USER_LLM_BASE_URL") or None,
                        help="user: its OpenAI-compatible base URL (key from "
                             "OPENAI_API_KEY) [env: A2ABENCH_USER_LLM_BASE_URL]")
    parser.add_argument("--user-llm-args", default=os.environ.get("A2ABENCH_USER_LLM_ARGS"),
                        help="user: JSON object of extra LLM arguments, as `run tau2` "
                             "[env: A2ABENCH_USER_LLM_ARGS]")
    parser.add_argument("--script", choices=["polite", "escalator"], default=None,
                        help="adversary: play a reference adversary's fixed script (no LLM)")
    parser.add_argument("--llm-cache", action=argparse.BooleanOptionalAction, default=True,
                        help="user: cache LLM responses on disk, as `run tau2` "
                             "[default: on]")
    parser.add_argument("--broken", choices=["wrong-arguments", "silent"], default=None,
                        help="specialist: play a faulty specialist (wrong arguments, or an "
                             "empty reply)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9019)
    parser.add_argument("--card-url", default=None,
                        help="public URL the card advertises [default: http://HOST:PORT, "
                             "with 127.0.0.1 for a wildcard HOST such as 0.0.0.0]")
    return parser


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    import uvicorn

    base = args.card_url or advertised(args.host, args.port)
    print(f"a2abench example agent ({args.kind}): {base} (Ctrl-C stops)", file=sys.stderr,
          flush=True)
    if args.card_url is None and base != f"http://{args.host}:{args.port}":
        print(f"note: --host {args.host} is no address to call; the card advertises {base} "
              "(this machine; AgentBeats' gateway routes loopback cards through itself). "
              "Pass --card-url with the URL other machines use.", file=sys.stderr, flush=True)
    from a2abench.errors import A2ABenchError

    try:
        app = build(args.kind, base, args)
    except A2ABenchError as exc:  # e.g. --model without a key for OpenAI's endpoint
        print(f"Error: {exc.render()}", file=sys.stderr)
        sys.exit(1)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after a clean shutdown
        sys.exit(130)


if __name__ == "__main__":
    main()
