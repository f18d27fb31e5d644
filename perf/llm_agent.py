"""What the reference LLM agent (examples/llm_agent.py) adds to a tau2 turn beyond its two hops.

    python perf/llm_agent.py [--conversations 30] [--turns 20]

A turn through the agent is one A2A round trip plus one model call. The baseline is those two
hops without the agent logic, measured in the same run: a round trip to the echo agent with the
same A2A parts, plus a direct ChatLLM call with the exact request body the agent sent for that
turn. Both agents and the fake OpenAI-compatible server run on loopback in threads of this
process. Each conversation is a tau2-style task: a ~10 KB policy with the mock domain's tools,
then tool calls and tool results alternating with the user's words. Conversations through the
agent and their baseline replays alternate, so machine noise hits both alike.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from typing import Any

from _util import machine, median_ms
from pydantic import SecretStr

from a2abench.a2a import A2AClient, A2AConfig
from a2abench.a2a.models import Part, TextPart
from a2abench.benchmarks.tau2 import actions, prompt
from a2abench.benchmarks.tau2.domains.mock import MockTools
from a2abench.benchmarks.tau2.models import ToolMessage
from a2abench.benchmarks.tau2.toolkit import ToolTexts
from a2abench.llm import ChatLLM, LLMConfig
from tests.agents import load_example
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.servers import serve

POLICY = "Agents must verify the user's identity before changing any task. " * 150


def model(body: dict[str, Any]) -> dict[str, Any]:
    """A tool call after the user's words, words after a tool result."""
    if body["messages"][-1]["role"] == "tool":
        return completion(content="I have updated your task. Anything else?", model="gpt-4.1")
    return completion(tool_calls=[{"name": "get_users", "arguments": {}}], model="gpt-4.1")


async def conversation(client: A2AClient, turns: int, schemas: list[dict[str, Any]]
                       ) -> tuple[list[float], list[list[Part]]]:
    """One task through `client`: per-turn seconds and the parts sent each turn."""
    chat = client.conversation()
    times: list[float] = []
    sent: list[list[Part]] = []
    parts: list[Part] = [*prompt.first_message(POLICY, schemas),
                         TextPart(text="Hi, I need help with my tasks.")]
    for _ in range(turns):
        started = time.perf_counter()
        reply = await chat.send(*parts)
        times.append(time.perf_counter() - started)
        sent.append(parts)
        message = actions.parse_reply(reply)
        if message.tool_calls:
            results = [ToolMessage(id=c.id, content='[{"user_id": "u1", "name": "Ann"}]')
                       for c in message.tool_calls]
            parts = prompt.tool_result_parts(results, message.tool_calls)
        else:
            parts = [TextPart(text="Yes, please also check my other task.")]
    return times, sent


async def baseline(echo: A2AClient, llm: ChatLLM, sent: list[list[Part]],
                   bodies: list[dict[str, Any]]) -> tuple[list[float], list[float]]:
    """The same turns as two bare hops: the echo agent with the same parts, then the model
    (seconds of each hop, per turn)."""
    chat = echo.conversation()
    hops: tuple[list[float], list[float]] = ([], [])
    for parts, body in zip(sent, bodies, strict=True):
        started = time.perf_counter()
        await chat.send(*parts)
        middle = time.perf_counter()
        await llm.chat(body["messages"], tools=body.get("tools"))
        hops[0].append(middle - started)
        hops[1].append(time.perf_counter() - middle)
    return hops


async def run(server: FakeLLMServer, agent_url: str, echo_url: str, conversations: int,
              turns: int) -> dict[str, list[float]]:
    schemas = MockTools.openai_schemas(ToolTexts(source="fallback", tools={}))
    config = LLMConfig(model="gpt-4.1", base_url=server.base_url, api_key=SecretStr("sk-x"),
                       args={"temperature": 0.0}, cache=False)
    times: dict[str, list[float]] = {"agent": [], "echo": [], "model": [], "both": []}
    async with A2AClient(A2AConfig.create(agent_url)) as agent, \
            A2AClient(A2AConfig.create(echo_url)) as echo, ChatLLM(config) as llm:
        await conversation(agent, 4, schemas)  # warm both paths
        for _ in range(conversations):
            first = len(server.requests)
            turn_times, sent = await conversation(agent, turns, schemas)
            bodies = [r.json for r in server.requests[first:]]
            echo_times, model_times = await baseline(echo, llm, sent, bodies)
            times["agent"] += turn_times
            times["echo"] += echo_times
            times["model"] += model_times
            times["both"] += [e + m for e, m in zip(echo_times, model_times, strict=True)]
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=30)
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args()
    agent_mod = load_example("llm_agent.py")
    echo_mod = load_example("echo_agent.py")
    server = FakeLLMServer(handler=model)
    with contextlib.ExitStack() as stack:
        stack.enter_context(server.running())
        config = LLMConfig(model="gpt-4.1", base_url=server.base_url,
                           api_key=SecretStr("sk-x"), cache=False)
        agent_url = stack.enter_context(serve(lambda b: agent_mod.build_app(b, config)))
        echo_url = stack.enter_context(serve(echo_mod.build_app))
        times = asyncio.run(run(server, agent_url, echo_url, args.conversations, args.turns))
    m = {name: median_ms(values) for name, values in times.items()}
    print(f"# llm_agent, {len(times['agent'])} turns each way ({args.conversations} "
          f"conversations of {args.turns}), {machine()}")
    print(f"echo agent round trip (task mode)    median {m['echo']:6.2f} ms/turn")
    print(f"direct ChatLLM call, same body       median {m['model']:6.2f} ms/turn")
    print(f"both hops (baseline)                 median {m['both']:6.2f} ms/turn")
    print(f"through the reference agent          median {m['agent']:6.2f} ms/turn")
    print(f"ratio agent / baseline               {m['agent'] / m['both']:6.2f}")


if __name__ == "__main__":
    main()
