"""The bounded reader, SSE parser, depth-limited JSON and deadlines of net/limits.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2abench.errors import ProtocolError, ReplyLimitExceeded, ReplyTooDeep, ReplyTooLarge
from a2abench.net.limits import (
    Deadline,
    DeadlinePassed,
    ReplyLimits,
    check_depth,
    current_task_deadline,
    deadline_scope,
    format_bytes,
    iter_sse,
    loads,
    lone_surrogate,
    raw_decode,
    read_body,
    task_deadline,
)


def _client(chunks: list[bytes], headers: dict[str, str] | None = None) -> httpx.AsyncClient:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    def handler(_: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body(), headers=headers or {})

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def _read(chunks: list[bytes], cap: int, headers: dict[str, str] | None = None) -> bytes:
    async with _client(chunks, headers) as http, http.stream("GET", "http://a/") as response:
        return await read_body(response, cap, url="http://a/")


async def _events(chunks: list[bytes], limits: ReplyLimits | None = None
                  ) -> list[tuple[str, str, int]]:
    async with _client(chunks) as http, http.stream("GET", "http://a/") as response:
        return [e async for e in iter_sse(response, limits or ReplyLimits(), url="http://a/")]


async def test_read_body_within_and_over_the_cap() -> None:
    assert await _read([b"ab", b"cd"], 4) == b"abcd"
    with pytest.raises(ReplyTooLarge, match=r"larger than the 4 bytes cap .*after 6 bytes") as e:
        await _read([b"ab", b"cd", b"ef"], 4)
    assert e.value.max_bytes == 4 and e.value.kind == "agent"


async def test_declared_length_over_the_cap_is_refused_before_reading() -> None:
    with pytest.raises(ReplyTooLarge, match="after 0 bytes"):
        await _read([b"x" * 10], 5, {"content-length": "10"})


def test_format_bytes() -> None:
    assert format_bytes(16_000_000) == "16 MB"
    assert format_bytes(1500) == "1.5 kB"
    assert format_bytes(12) == "12 bytes"


def test_loads_limits_depth_both_ways() -> None:
    assert loads(b'{"a": [1, {"b": 2}]}', 3, what="x") == {"a": [1, {"b": 2}]}
    with pytest.raises(ReplyTooDeep, match="x is nested deeper than 3 levels"):
        loads(b'{"a": [1, {"b": [2]}]}', 3, what="x")
    # Deeper than the interpreter's recursion limit: still our error, not RecursionError.
    deep = "[" * 5000 + "]" * 5000
    with pytest.raises(ReplyTooDeep):
        loads(deep, 100, what="y")
    with pytest.raises(ReplyTooDeep):
        raw_decode("xx" + deep, 2, 100, what="y")
    assert raw_decode('x{"a": 1} tail', 1, 5, what="y") == ({"a": 1}, 9)


def test_a_scalar_is_not_walked() -> None:
    # A top-level string of brackets passes the bracket count; walking it iterated its
    # characters (a 2 MB string: ~0.8 s of CPU). A str iterated would yield str children.
    text = '"' + "[" * 1000 + '"'
    assert raw_decode(text, 0, 10, what="y") == ("[" * 1000, len(text))

    class Untouchable(str):
        def __iter__(self) -> Any:
            raise AssertionError("walked")

    check_depth(Untouchable("[[["), 1, what="z")
    check_depth(7, 1, what="z")


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"text": "[" * 500})
    assert loads(text, 2, what="x") == {"text": "[" * 500}


def test_loads_leaves_invalid_json_to_the_caller() -> None:
    with pytest.raises(ValueError):
        loads(b"\xff\xfe not json", 10, what="x")
    with pytest.raises(ValueError):
        loads("{", 10, what="x")


def test_check_depth_is_iterative() -> None:
    value: list[object] = []
    inner = value
    for _ in range(50_000):
        nxt: list[object] = []
        inner.append(nxt)
        inner = nxt
    with pytest.raises(ReplyTooDeep):
        check_depth(value, 100, what="z")


async def test_sse_events_line_endings_comments_and_split_chunks() -> None:
    stream = [b": hi\r\nevent: status\r", b"\ndata: {\"a\":\r\ndata: 1}\r\n\r\n",
              b"data: two\n\ndata: three\rdata: 3b\r\r", b"data: last"]
    events = await _events(stream)
    assert [(e, d) for e, d, _ in events] == [
        ("status", '{"a":\n1}'), ("message", "two"), ("message", "three\n3b"),
        ("message", "last")]
    assert events[1][2] == len(b"data: two\n\n")


async def test_sse_total_bytes_and_event_count_are_capped() -> None:
    with pytest.raises(ReplyTooLarge):
        await _events([b"data: x\n\n"] * 100, ReplyLimits(max_bytes=500))
    with pytest.raises(ReplyLimitExceeded, match="11 stream events; the limit is 10"):
        await _events([b"data: x\n\n"] * 20, ReplyLimits(max_events=10))
    # one endless line with no newline is stopped by the byte cap too
    with pytest.raises(ReplyTooLarge):
        await _events([b"data: " + b"x" * 1000] * 10, ReplyLimits(max_bytes=5000))


async def test_sse_invalid_utf8_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="not valid UTF-8"):
        await _events([b"data: \xff\xfe\n\n"])


async def test_deadline_scope_names_the_earliest_deadline() -> None:
    request = Deadline.after(10, "request")
    task = Deadline.after(0.05, "task")
    with pytest.raises(DeadlinePassed) as info:
        async with deadline_scope(request, task):
            await asyncio.Event().wait()
    assert info.value.deadline is task
    async with deadline_scope(None, None) as none:
        assert none is None
    with pytest.raises(DeadlinePassed):
        async with deadline_scope(Deadline.after(-1, "request")):
            pass


async def test_deadline_scope_does_not_swallow_other_timeouts() -> None:
    with pytest.raises(TimeoutError):
        async with deadline_scope(Deadline.after(10, "request")):
            raise TimeoutError


async def test_task_deadline_is_seen_by_child_tasks() -> None:
    with task_deadline(30) as deadline:
        seen = await asyncio.create_task(asyncio.sleep(0, current_task_deadline()))
        assert seen is deadline and deadline is not None and deadline.what == "task"
    assert current_task_deadline() is None
    with task_deadline(None) as nothing:
        assert nothing is None


def test_limits_validate() -> None:
    with pytest.raises(ValueError, match="max_bytes must be at least 1"):
        ReplyLimits(max_bytes=0)


async def test_deadline_scope_ends_with_its_body() -> None:
    # Left in time, the scope cancels nothing afterwards (its timeout is cleared on exit).
    async with deadline_scope(Deadline.after(0.02, "request")) as first:
        assert first is not None and first.what == "request"
    await asyncio.sleep(0.05)
    with pytest.raises(ZeroDivisionError):  # the body's own errors pass through unchanged
        async with deadline_scope(Deadline.after(10, "request")):
            raise ZeroDivisionError


def test_a_lone_surrogate_is_found_where_orjson_refuses_for_another_reason_too() -> None:
    # orjson screens at C speed; what it refuses for another reason (an integer beyond 64
    # bits, nesting past its limit) still gets the walk, which alone names the place.
    deep: object = "\ud800"
    for _ in range(300):
        deep = [deep]
    assert lone_surrogate({"n": 10**30, "t": ["ok", "x\udfff"]}) == "U+DFFF at character 1 of t[1]"
    assert lone_surrogate({"n": 10**30, "t": "\U0001F600 caf\u00e9"}) is None
    assert (lone_surrogate({"d": deep}) or "").startswith("U+D800 at character 0 of d[0][0]")
    assert lone_surrogate({"\udc00k": 1}) == "U+DC00 at character 0 of a key of the reply"
    assert lone_surrogate(json.loads('{"pair": "\\ud83d\\ude00"}')) is None  # one character
