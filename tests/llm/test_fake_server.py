"""The fake LLM server and serve_in_thread are test infrastructure others build on."""

from __future__ import annotations

import socket

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from tests.fakes import FakeLLMServer, Reply, completion
from tests.servers import serve_in_thread


async def _hello(request: Request) -> PlainTextResponse:
    return PlainTextResponse("hello")


def test_serve_in_thread_serves_on_loopback_and_frees_the_port() -> None:
    app = Starlette(routes=[Route("/", _hello)])
    with serve_in_thread(app) as url:
        assert url.startswith("http://127.0.0.1:")
        assert httpx.get(url + "/").text == "hello"
    port = int(url.rsplit(":", 1)[1])
    with socket.socket() as sock, pytest.raises(ConnectionRefusedError):
        sock.connect(("127.0.0.1", port))


def test_two_servers_run_side_by_side() -> None:
    app = Starlette(routes=[Route("/", _hello)])
    with serve_in_thread(app) as first, serve_in_thread(app) as second:
        assert first != second
        assert httpx.get(first + "/").text == httpx.get(second + "/").text == "hello"


def test_script_is_served_in_order_and_requests_are_recorded(
        llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(content="one")
    llm_server.enqueue_error(503, "busy", retry_after=2)
    url = llm_server.base_url + "/chat/completions"
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    first = httpx.post(url, json=body, headers={"Authorization": "Bearer k"})
    second = httpx.post(url, json=body)
    assert first.json()["choices"][0]["message"]["content"] == "one"
    assert first.json()["model"] == "m"  # echoes the requested model by default
    assert second.status_code == 503 and second.headers["retry-after"] == "2"
    assert second.json()["error"]["message"] == "busy"
    assert [r.json for r in llm_server.requests] == [body, body]
    assert llm_server.requests[0].headers["authorization"] == "Bearer k"
    assert llm_server.pending == 0


def test_handler_answers_when_the_script_is_empty(llm_server: FakeLLMServer) -> None:
    llm_server.handler = lambda req: completion("echo: " + req["messages"][-1]["content"])
    llm_server.enqueue(content="scripted first")
    url = llm_server.base_url + "/chat/completions"
    replies = [httpx.post(url, json={"model": "m", "messages": [{"role": "user",
                                                                 "content": str(i)}]})
               for i in range(2)]
    assert [r.json()["choices"][0]["message"]["content"] for r in replies] == \
        ["scripted first", "echo: 1"]


def test_handler_may_return_a_reply_and_its_errors_are_reported(
        llm_server: FakeLLMServer) -> None:
    url = llm_server.base_url + "/chat/completions"
    llm_server.handler = lambda req: Reply(status=418, body={"error": "teapot"})
    assert httpx.post(url, json={}).status_code == 418

    def broken(req: dict[str, object]) -> dict[str, object]:
        raise KeyError("boom")

    llm_server.handler = broken
    response = httpx.post(url, json={})
    assert response.status_code == 501
    assert "KeyError" in response.json()["error"]["message"]
    assert isinstance(llm_server.handler_errors[0], KeyError)


def test_unscripted_request_fails_with_a_clear_message(llm_server: FakeLLMServer) -> None:
    response = httpx.post(llm_server.base_url + "/chat/completions", json={"model": "m"})
    assert response.status_code == 501
    assert "no scripted reply left" in response.json()["error"]["message"]


def test_raw_bodies_and_malformed_requests(llm_server: FakeLLMServer) -> None:
    llm_server.enqueue_raw('{"choices": [', status=200)
    url = llm_server.base_url + "/chat/completions"
    response = httpx.post(url, content=b"not json")
    assert response.text == '{"choices": ['
    assert llm_server.requests[0].json is None
    assert llm_server.requests[0].text == "not json"


def test_completion_builder_keeps_string_arguments_verbatim() -> None:
    body = completion(tool_calls=[{"name": "f", "arguments": "{bad", "id": "c1"},
                                  {"name": "g", "arguments": {"x": 1}}])
    calls = body["choices"][0]["message"]["tool_calls"]
    assert calls[0]["function"]["arguments"] == "{bad" and calls[0]["id"] == "c1"
    assert calls[1]["function"]["arguments"] == '{"x": 1}'
    assert body["choices"][0]["finish_reason"] == "tool_calls"
