"""What a chat call returns, and how a Chat Completions response body becomes one."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from a2abench.errors import LLMError, LLMResponseInvalid, ReplyTooDeep
from a2abench.llm._pricing import cost_usd
from a2abench.net.limits import DEFAULT_MAX_DEPTH, loads

API_HINT = "Check that the base URL serves the OpenAI Chat Completions API (usually .../v1)."
# The `system_fingerprint` of the demo's scripted user (a2abench.demo.user_llm): its turns
# come from rules, not a model, and runs it plays are labelled `scripted_user`.
SCRIPTED_FINGERPRINT = "a2abench-scripted-user"


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Usage:
    """Token counts as the provider reported them (zeros when it reported none)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # part of prompt_tokens served from the provider's prompt cache

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class ChatResult:
    """One assistant turn.

    `cost_usd` prices the tokens in `usage` (None when the model or the usage is unknown). It is
    the same whether or not the result came from the on-disk cache, so records of a cached re-run
    match the original; `cached` says that nothing was spent this time.
    """

    content: str | None
    tool_calls: list[ToolCall]
    usage: Usage
    cost_usd: float | None
    cached: bool
    raw: dict[str, Any]
    latency_ms: float
    model: str
    finish_reason: str | None = None
    attempts: int = 1

    @property
    def scripted(self) -> bool:
        """True when the demo's scripted user answered (no model behind this turn)."""
        return self.raw.get("system_fingerprint") == SCRIPTED_FINGERPRINT

    def to_message(self) -> dict[str, Any]:
        """This turn as an OpenAI `assistant` message, ready to append to a conversation."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": call.id, "type": "function",
                 "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}
                for call in self.tool_calls
            ]
        return message


@dataclass(frozen=True)
class LLMCallMetrics:
    """What the per-call hook receives once per `chat()`, after any retries."""

    model: str
    latency_ms: float
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    cached: bool
    attempts: int
    error: LLMError | None = field(default=None)


def parse_completion(raw: dict[str, Any], *, model: str, cached: bool, latency_ms: float,
                     attempts: int) -> ChatResult:
    """Build a ChatResult from a response body; LLMResponseInvalid when it has no usable turn."""
    choices = raw.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise LLMResponseInvalid("the LLM response has no choices", hint=API_HINT)
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise LLMResponseInvalid("the LLM response's first choice has no message", hint=API_HINT)
    usage, has_usage = _usage(raw.get("usage"))
    reported = raw.get("model")
    served_by = reported if isinstance(reported, str) and reported else model
    cost = None
    if has_usage:
        cost = cost_usd(served_by, usage.prompt_tokens, usage.completion_tokens,
                        usage.cached_tokens)
        if cost is None and served_by != model:
            cost = cost_usd(model, usage.prompt_tokens, usage.completion_tokens,
                            usage.cached_tokens)
    finish = choices[0].get("finish_reason")
    return ChatResult(
        content=_content(message.get("content")),
        tool_calls=[_tool_call(item, index) for index, item in
                    enumerate(message.get("tool_calls") or [])],
        usage=usage, cost_usd=cost, cached=cached, raw=raw, latency_ms=latency_ms,
        model=served_by, finish_reason=finish if isinstance(finish, str) else None,
        attempts=attempts,
    )


def _content(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):  # some compatible servers answer with content parts
        return "".join(part.get("text", "") for part in value
                       if isinstance(part, dict) and part.get("type") == "text")
    raise LLMResponseInvalid(f"the LLM message content is a {type(value).__name__}, not text",
                             hint=API_HINT)


def _usage(value: Any) -> tuple[Usage, bool]:
    if not isinstance(value, dict):
        return Usage(), False
    details = value.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return Usage(prompt_tokens=_int(value.get("prompt_tokens")),
                 completion_tokens=_int(value.get("completion_tokens")),
                 cached_tokens=_int(cached)), True


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _tool_call(item: Any, index: int) -> ToolCall:
    function = item.get("function") if isinstance(item, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise LLMResponseInvalid(f"LLM tool call #{index} has no function name", hint=API_HINT)
    name = function["name"]
    text = function.get("arguments")
    if isinstance(text, dict):  # a few compatible servers send the object itself
        arguments: Any = text
    elif text is None or (isinstance(text, str) and not text.strip()):
        arguments = {}  # an argument-less call sometimes arrives as "" rather than "{}"
    elif isinstance(text, str):
        try:
            arguments = loads(text, DEFAULT_MAX_DEPTH, what=f"arguments of tool {name!r}")
        except ReplyTooDeep as exc:
            raise LLMResponseInvalid(exc.message, hint=API_HINT) from None
        except json.JSONDecodeError as exc:
            raise LLMResponseInvalid(
                f"the LLM called tool {name!r} with arguments that are not valid JSON "
                f"({exc.msg} at position {exc.pos}): {text[:200]!r}",
                hint="Retry with another seed or a stronger model.") from exc
    else:
        arguments = text
    if not isinstance(arguments, dict):
        raise LLMResponseInvalid(f"the LLM called tool {name!r} with arguments that are a "
                                 f"JSON {type(arguments).__name__}, not an object",
                                 hint="Retry with another seed or a stronger model.")
    call_id = item.get("id")
    return ToolCall(id=call_id if isinstance(call_id, str) and call_id else f"call_{index}",
                    name=name, arguments=arguments)
