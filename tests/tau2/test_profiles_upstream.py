"""Optional cross-check: the prompt profiles' texts against the upstream sources they follow.

Needs local git mirrors of the upstream repositories (bare or not), named as GitHub names them,
in the folder `UPSTREAM_MIRRORS` (e.g. `sierra-research+tau2-bench/repo`); skipped
otherwise. Nothing is fetched. The upstream f-strings are read as source text: their literal
pieces must appear in our rendering in order, with each `{expression}` standing for whatever
that expression produced.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from a2abench.benchmarks.tau2.models import AssistantMessage, UserMessage
from a2abench.benchmarks.tau2.profiles import (
    JSON_MARKER,
    TOOLS_MARKER,
    USER_MESSAGES_MARKER,
    AgentBeatsProfile,
    AgentifyProfile,
    extract_agentbeats_text,
)

SOURCES = {
    "agentbeats": ("RDI-Foundation+agentbeats-tutorial", "9b9ca9367f88236518f293b0965fc29b03e1e7b8",
                   "scenarios/tau2/tau2_evaluator.py"),
    "agentify": ("sierra-research+tau2-bench", "a2c024725189473d2d7cea3a5cfdbcc67478e41f",
                 "src/experiments/agentify_tau_bench/src/agentify_tau_bench/green_agent/"
                 "agent.py"),
}
MARKERS = (TOOLS_MARKER, JSON_MARKER, USER_MESSAGES_MARKER)
SCHEMA = {"type": "function", "function": {
    "name": "get_user", "description": "Get a user.",
    "parameters": {"properties": {"user_id": {"title": "User Id", "type": "string"}},
                   "required": ["user_id"], "title": "parameters", "type": "object"}}}


def upstream_source(style: str) -> str:
    root = os.environ.get("UPSTREAM_MIRRORS")
    if not root:
        pytest.skip("UPSTREAM_MIRRORS is not set (a folder of upstream git mirrors)")
    name, commit, path = SOURCES[style]
    repo = next((p for p in (Path(root) / name / "repo", Path(root) / name) if p.exists()), None)
    if repo is None:
        pytest.skip(f"no mirror of {name} in {root}")
    return subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def fstring_body(source: str, start: str) -> str:
    """The body of the first triple-quoted f-string after `start`."""
    at = source.index(start)
    opening = source.index('f"""', at) + 4
    return source[opening:source.index('"""', opening)]


def pattern(body: str) -> re.Pattern[str]:
    """The f-string as a regex: literal pieces exact (`{{`/`}}` unescaped), each
    `{expression}` (balanced braces) any text."""
    out, i, depth, literal = [], 0, 0, ""
    while i < len(body):
        ch = body[i]
        if depth == 0 and body.startswith(("{{", "}}"), i):
            literal += ch
            i += 2
            continue
        if ch == "{":
            if depth == 0:
                out.append(re.escape(literal))
                literal = ""
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                out.append("(.*?)")
        elif depth == 0:
            literal += ch
        i += 1
    out.append(re.escape(literal))
    return re.compile("".join(out) + r"\Z", re.S)


def _agentbeats_file(tmp_path: Path) -> Path:
    source = tmp_path / "tau2_evaluator.py"
    source.write_text(upstream_source("agentbeats"))
    return source


def test_the_agentbeats_pin_is_the_upstream_file(tmp_path: Path) -> None:
    from a2abench.benchmarks.tau2.profiles import AGENTBEATS_SOURCE
    from a2abench.net.download import sha256_file

    _, commit, path = SOURCES["agentbeats"]
    assert (AGENTBEATS_SOURCE.commit, AGENTBEATS_SOURCE.path) == (commit, path)
    assert sha256_file(_agentbeats_file(tmp_path)) == AGENTBEATS_SOURCE.sha256


def test_agentbeats_prompt_read_from_upstream_is_the_stock_green_agents(tmp_path: Path) -> None:
    """The text read at run time (Python 3.11 cannot parse that file whole) against the
    source's f-strings matched as text."""
    source = upstream_source("agentbeats")
    profile = AgentBeatsProfile(text=extract_agentbeats_text(_agentbeats_file(tmp_path)))
    ours = profile.prompt("POLICY TEXT", [SCHEMA])
    match = pattern(fstring_body(source, "def agent_prompt(self)")).match(ours)
    assert match, "the literal text differs from upstream's"
    policy, tools, respond, example, respond_example = match.groups()
    assert policy == "POLICY TEXT" and json.loads(tools) == [SCHEMA]
    assert json.loads(respond)["function"]["name"] == "respond"
    assert json.loads(example)["name"] == "find_user_id_by_name_zip"
    assert json.loads(respond_example)["name"] == "respond"
    # the opening: f"{self.agent_prompt}<literal>{'<sep>'.join([...])}", on one line
    line = next(x for x in source.splitlines() if 'outgoing_text = f"{self.agent_prompt}' in x)
    literal, sep = re.match(r'.*\{self\.agent_prompt\}(.*?)\{\'(.*?)\'\.join', line).groups()  # type: ignore[union-attr]
    history = [AssistantMessage(content="Hello."), UserMessage(content="first")]
    first = profile.first("POLICY TEXT", [SCHEMA], history, UserMessage(content="second"), ())
    assert first[0].text == ours + ast.literal_eval(f'"{literal}"') + \
        ast.literal_eval(f"'{sep}'").join(["Hello.", "first", "second"])  # type: ignore[union-attr]


def test_the_agentbeats_fallback_is_not_upstreams_prose(tmp_path: Path) -> None:
    """Our own wording shares only the marker lines with upstream's text."""
    text = extract_agentbeats_text(_agentbeats_file(tmp_path))
    fallback = AgentBeatsProfile().first("P", [SCHEMA], (), UserMessage(content="hi"), ())[0]
    assert AgentBeatsProfile(text=text).prompt("P", [SCHEMA]) != fallback.text  # type: ignore[union-attr]
    upstream = "\n".join(p for p in text.prompt + text.opening if not p.startswith("\0"))
    lines = {x.strip() for x in upstream.splitlines()} - {  # JSON syntax lines of the schema
        x.strip() for x in upstream.splitlines() if x.strip()[:1] in ('"', "{", "}", "]")}
    strings = set(re.findall(r'"((?:[^"\\]|\\.){20,})"', upstream))  # long JSON string values
    shared = {x for x in lines | strings if len(x) >= 8 and x in fallback.text}  # type: ignore[union-attr]
    assert shared == {MARKERS[1], MARKERS[2]}, shared
    assert all(m in fallback.text and m in upstream for m in MARKERS)  # type: ignore[union-attr]


def test_agentify_prompt_is_tau2s_agentify_green_agents() -> None:
    body = fstring_body(upstream_source("agentify"), "task_description = ")
    ours = AgentifyProfile().first("POLICY TEXT", [SCHEMA], (),
                                   UserMessage(content="hi"), ())[0].text  # type: ignore[union-attr]
    match = pattern(body).match(ours)
    assert match, "the literal text differs from upstream's"
    policy, tools, respond, example, respond_example, observation = match.groups()
    assert policy == "POLICY TEXT" and respond == "respond"
    assert [t["function"]["name"] for t in json.loads(tools)] == ["get_user", "done"]
    assert json.loads(example)["name"] == "find_user_id_by_name_zip"
    assert json.loads(respond_example)["name"] == "{RESPOND_ACTION_NAME}"  # upstream's quirk
    assert json.loads(observation) == "user: hi"


def test_the_agentify_text_read_from_upstream_equals_the_written_one(tmp_path: Path) -> None:
    from a2abench.benchmarks.tau2.profiles import extract_agentify_template

    source = tmp_path / "agent.py"
    source.write_text(upstream_source("agentify"))
    read = AgentifyProfile(template=extract_agentify_template(source))
    for incoming in (UserMessage(content="hi"), UserMessage(content='quote " and ✓')):
        assert read.first("POLICY", [SCHEMA], (), incoming, ())[0].text == \
            AgentifyProfile().first("POLICY", [SCHEMA], (), incoming, ())[0].text  # type: ignore[union-attr]
