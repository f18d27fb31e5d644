"""Reply parsing: JSON (text, fenced, DataPart) with SOSL braces, the official tags, junk."""

from __future__ import annotations

import json

import pytest

from a2abench.benchmarks.crmarena.actions import Action, parse_reply, scan_json

SOSL = "FIND {Joe Smith} IN NAME FIELDS RETURNING Lead(Name, Phone)"


@pytest.mark.parametrize("text", [
    json.dumps({"action": "execute", "query": SOSL}),
    "I will search.\n```json\n" + json.dumps({"action": "execute", "query": SOSL}) + "\n```",
    "Thought: names.\n" + json.dumps({"action": "execute", "query": SOSL}) + "\nThanks {x}",
    '{"note": {"nested": true}} then ' + json.dumps({"action": "execute", "query": SOSL}),
])
def test_json_with_sosl_braces_survives(text: str) -> None:
    assert parse_reply(text) == Action("execute", SOSL, "json")


def test_a_non_greedy_regex_would_have_cut_this() -> None:
    text = '{"action": "execute", "query": "FIND {Acme} RETURNING Account(Id)"}'
    assert scan_json(text) == [json.loads(text)]
    assert parse_reply(text) == Action("execute", "FIND {Acme} RETURNING Account(Id)", "json")


@pytest.mark.parametrize(("answer", "content"), [
    ("005Wt000003NDqDIAW", "005Wt000003NDqDIAW"), (["a", "b"], "a, b"), (None, "None"),
    (12, "12"), ("  padded  ", "padded"),
])
def test_respond_answers_become_text(answer: object, content: str) -> None:
    text = json.dumps({"action": "respond", "answer": answer})
    assert parse_reply(text) == Action("respond", content, "json")


def test_a_data_part_wins_over_text() -> None:
    data = [{"unrelated": 1}, {"action": "respond", "answer": "None"}]
    assert parse_reply("<respond>ignored</respond>", data) == Action("respond", "None", "data")


@pytest.mark.parametrize(("text", "expected"), [
    ("<thought>look</thought>\n<execute> SELECT Id FROM Case </execute>",
     Action("execute", "SELECT Id FROM Case", "tags")),
    ("<respond>\nJohn Smith, Jane Smith\n</respond>", Action("respond", "John Smith, Jane Smith",
                                                               "tags")),
    # upstream tries execute first, whatever the order in the text
    ("<respond>x</respond><execute>SELECT Id FROM User</execute>",
     Action("execute", "SELECT Id FROM User", "tags")),
    ("<execute> FIND {refund} RETURNING Knowledge__kav(Id) </execute>",
     Action("execute", "FIND {refund} RETURNING Knowledge__kav(Id)", "tags")),
    # an empty execute falls through to respond, as upstream's `if resp:` does
    ("<execute>  </execute><respond>None</respond>", Action("respond", "None", "tags")),
])
def test_official_tags(text: str, expected: Action) -> None:
    assert parse_reply(text) == expected


@pytest.mark.parametrize("text", [
    "", "   ", "The answer is 42.", "<respond></respond>", "<execute>SELECT", "{not json}",
    '{"action": "dance", "query": "x"}', '{"action": "execute", "query": ""}',
    '{"action": "execute", "query": ["SELECT Id FROM Case"]}', '{"action": "respond"}',
    "```json\n{\"action\": \"respond\", \"answer\": \"x\"\n```",
])
def test_invalid_replies_are_no_action(text: str) -> None:
    assert parse_reply(text) is None


def test_content_is_accepted_for_query_or_answer() -> None:
    assert parse_reply('{"action": "respond", "content": "Closed"}') == Action(
        "respond", "Closed", "json")
