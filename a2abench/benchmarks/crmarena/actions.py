"""The white agent's reply -> one action: execute a query, or respond with an answer.

Accepted (docs/design.md §3), first match wins:
1. a DataPart `{"action": "execute", "query": ...}` / `{"action": "respond", "answer": ...}`;
2. the same JSON in the text, bare or fenced, found with a balanced scan
   (`json.JSONDecoder.raw_decode` from every `{`), so SOSL braces inside the query survive;
3. upstream's tags: `<execute>...</execute>`, then `<respond>...</respond>` (DOTALL, first
   match, stripped), as `ChatAgent.message_action_parser`.
`content` is accepted in place of `query`/`answer`; a non-string answer becomes text (a list
joined with ", ", null as "None"). Anything else, or an empty query or answer, is no action:
the agent gets the rule text and the turn is used up, as upstream does.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from a2abench.plugin import DEFAULT_MAX_DEPTH
from a2abench.plugin.provisional import raw_decode

ActionName = Literal["execute", "respond", "delegate"]  # delegate: scenario team (team.py)
_TAGS: tuple[ActionName, ...] = ("execute", "respond")
_KEYS: dict[str, str] = {"execute": "query", "respond": "answer"}


@dataclass(frozen=True)
class Action:
    name: ActionName
    content: str
    via: Literal["data", "json", "tags", "mcp", "text"]  # the last two: --tool-channel mcp

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "content": self.content, "via": self.via}


def _text_of(value: Any) -> str | None:
    """An answer or query as text: strings as they are, lists joined with ", " (the
    official prompt asks for a comma-separated string), null as "None", numbers as JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return "None"
    if isinstance(value, list):
        parts = [_text_of(v) for v in value]
        return ", ".join(p for p in parts if p is not None)
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    return None


def from_json(obj: Any, via: Literal["data", "json"]) -> Action | None:
    """An action from a decoded object, or None when it is not one."""
    if not isinstance(obj, dict):
        return None
    name = obj.get("action")
    if name not in _KEYS:
        return None
    key = next((k for k in (_KEYS[name], "content") if k in obj), None)
    if key is None or (name == "execute" and not isinstance(obj[key], str)):
        return None
    text = _text_of(obj[key])
    if text is None or not text.strip():
        return None
    return Action(name, text.strip(), via)


MAX_JSON_STARTS = 1_000  # failed decodes before the scan gives up (the tags still count)


def scan_json(text: str) -> list[Any]:
    """Every JSON object in `text`, outermost first, decoded from each `{` that starts one.

    At most MAX_JSON_STARTS failed starts: each can read far ahead, so a reply made of many
    half-objects would otherwise cost quadratic time.
    """
    found: list[Any] = []
    position, end, failed = 0, len(text), 0
    while (start := text.find("{", position, end)) != -1 and failed < MAX_JSON_STARTS:
        try:
            # depth-limited: JSON nested too deep is the agent's error (ReplyTooDeep)
            obj, stop = raw_decode(text, start, DEFAULT_MAX_DEPTH, what="JSON in the agent's "
                                                                        "reply")
        except ValueError:
            position, failed = start + 1, failed + 1
            continue
        found.append(obj)
        position = stop
    return found


def tag_content(text: str, name: str) -> str | None:
    """What `re.search(rf"<{name}>(.*?)</{name}>", text, re.DOTALL)` captures, in linear time:
    the first opening tag and the nearest closing tag after it (if that opening tag has no
    closing tag, no later one has either). The regex takes minutes on 20,000 opening tags."""
    opening, closing = f"<{name}>", f"</{name}>"
    start = text.find(opening)
    if start < 0:
        return None
    start += len(opening)
    stop = text.find(closing, start)
    return None if stop < 0 else text[start:stop]


def from_tags(text: str) -> Action | None:
    """Upstream's tag parser: execute first, then respond; an empty tag counts as none."""
    for name in _TAGS:
        content = tag_content(text, name)
        if content is not None and content.strip():
            return Action(name, content.strip(), "tags")
    return None


def parse_reply(text: str, data: Sequence[Any] = ()) -> Action | None:
    """The action in an agent reply (its text parts joined, and its DataParts)."""
    for obj in data:
        action = from_json(obj, "data")
        if action is not None:
            return action
    content = text.strip()  # upstream strips the message before matching
    for obj in scan_json(content):
        action = from_json(obj, "json")
        if action is not None:
            return action
    return from_tags(content)
