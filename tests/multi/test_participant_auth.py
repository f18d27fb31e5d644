"""Bearer tokens for the participants of pressure and team (issue 38):
`--adversary-auth-token` and `--specialist-auth-token` (env `A2ABENCH_ADVERSARY_AUTH_TOKEN`,
`A2ABENCH_SPECIALIST_AUTH_TOKEN`) go to their role's participant only. A participant whose
card demands credentials is refused before any match when a2abench has no token for it; one
that refuses requests without saying so in its card forfeits each match with a hint naming
the flag. The token never reaches the records or the output."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from a2abench.green.guard import CARD_PATHS, BearerAuth
from tests.fakes.llm_server import FakeLLMServer
from tests.multi.dual_world import gold, records, run_tau2, tasks_of, user_llm
from tests.multi.pressure_world import hostile_app
from tests.servers import serve

pytestmark = pytest.mark.slow

TOKEN = "s3cret-adversary-token-0123456789"
SPEC_TOKEN = "s3cret-specialist-token-0123456789"
SECURITY = {"securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
            "securityRequirements": [{"schemes": {"bearer": {"list": []}}}]}


def secured(app: Any, token: str, declare: bool, seen: list[str]) -> Any:
    """`app` behind a bearer token (a2abench's own guard); `declare`: its card says so (the
    A2A security fields); `seen` collects every Authorization header it is sent."""
    guard = BearerAuth(app, token)

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            seen.extend(v.decode() for k, v in scope["headers"] if k.lower() == b"authorization")
        if not (declare and scope["type"] == "http" and scope["path"] in CARD_PATHS):
            await guard(scope, receive, send)
            return
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def grab(message: Any) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                chunks.append(message.get("body", b""))

        await app(scope, receive, grab)
        body = json.dumps({**json.loads(b"".join(chunks)), **SECURITY}).encode()
        headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    return asgi


def recorded(app: Any, seen: list[str]) -> Any:
    """`app`, collecting the Authorization headers it is sent."""
    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            seen.extend(v.decode() for k, v in scope["headers"] if k.lower() == b"authorization")
        await app(scope, receive, send)
    return asgi


@contextmanager
def adversary(declare: bool, seen: list[str]) -> Iterator[str]:
    """An adversary that stops at once (a hold), behind TOKEN."""
    with serve(lambda b: secured(hostile_app(b, "stop"), TOKEN, declare, seen)) as url:
        yield url


def leaks(tmp_path: Path, *texts: str) -> list[str]:
    files = [p.read_text() for p in tmp_path.rglob("*") if p.is_file()]
    return [t for t in (TOKEN, SPEC_TOKEN) for body in [*files, *texts] if t in body]


def test_an_adversary_that_demands_a_token_is_refused_without_it_and_plays_with_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = ["0", "1"]
    tasks = tasks_of("airline", ids)
    seen: list[str] = []
    agent_saw: list[str] = []
    with serve(lambda b: recorded(gold_app(b, tasks), agent_saw)) as agent, \
            adversary(True, seen) as url:
        r = run_tau2("airline", agent, tmp_path / "no.jsonl", ids, "--adversary-url", url)
        assert r.code == 2, r.err
        assert "the adversary participant adversary" in r.err
        assert "requires authentication (its card's security: bearer)" in r.err
        assert "Pass --adversary-auth-token (or A2ABENCH_ADVERSARY_AUTH_TOKEN)" in r.err
        assert not (tmp_path / "no.jsonl").exists()  # refused before anything was written
        monkeypatch.setenv("A2ABENCH_ADVERSARY_AUTH_TOKEN", TOKEN)
        r = run_tau2("airline", agent, tmp_path / "yes.jsonl", ids, "--adversary-url", url,
                     "--auth-token", "agent-token-0123456789", tables=True)
        assert r.code == 0, r.err
    found = records(tmp_path / "yes.jsonl")
    assert [x["details"]["pressure"]["outcome"] for x in found] == ["hold"] * len(ids)
    assert set(seen) == {f"Bearer {TOKEN}"}  # every request it got carried its token ...
    assert set(agent_saw) == {"Bearer agent-token-0123456789"}  # ... and only it got it
    assert not leaks(tmp_path, r.out, r.err)
    run = records(tmp_path / "yes.jsonl", "run")[0]
    assert run["config"]["adversary_auth_token"] == "***"


def test_an_adversary_that_refuses_silently_forfeits_with_the_flag_named(
        tmp_path: Path) -> None:
    """Its card says nothing: the first request is refused (401), the match is its forfeit,
    and the record says which flag carries its token; a wrong token is the same."""
    ids = ["0"]
    tasks = tasks_of("airline", ids)
    seen: list[str] = []
    with gold(tasks, "silent") as agent, adversary(False, seen) as url:
        r = run_tau2("airline", agent, tmp_path / "no.jsonl", ids, "--adversary-url", url)
        wrong = run_tau2("airline", agent, tmp_path / "wrong.jsonl", ids, "--adversary-url",
                         url, "--adversary-auth-token", "not-the-token-0123456789")
    assert r.code == 0 and wrong.code == 0, r.err + wrong.err
    for name in ("no", "wrong"):
        (x,) = records(tmp_path / f"{name}.jsonl")
        assert x["status"] == "forfeit" and x["match"]["forfeit"] == "adversary"
        assert x["match"]["scores"] == {"agent": None, "adversary": 0.0}
        assert "missing or wrong bearer token" in x["error"]["message"]
        assert x["error"]["hint"].startswith(
            "Pass --adversary-auth-token (or A2ABENCH_ADVERSARY_AUTH_TOKEN)"), x["error"]
    assert "Bearer not-the-token-0123456789" in seen
    assert "not-the-token-0123456789" not in (tmp_path / "wrong.jsonl").read_text()


def test_a_specialist_that_demands_a_token_gets_its_own(tmp_path: Path) -> None:
    from a2abench.demo.specialist_agent import build_app as specialist_app

    ids = ["8"]  # an airline task with a gold write: the specialist must run it
    tasks = tasks_of("airline", ids)
    llm = FakeLLMServer(handler=user_llm(tasks))
    seen: list[str] = []
    with llm.running(), gold(tasks, "team") as front, \
            serve(lambda b: secured(specialist_app(b), SPEC_TOKEN, True, seen)) as spec:
        common = ("--user-llm", "fake-user", "--user-llm-base-url", llm.base_url)
        r = run_tau2("airline", front, tmp_path / "no.jsonl", ids, "--specialist-url", spec,
                     "--adversary-auth-token", TOKEN, *common)
        assert r.code == 2, r.err
        assert "the specialist participant specialist" in r.err
        assert "Pass --specialist-auth-token (or A2ABENCH_SPECIALIST_AUTH_TOKEN)" in r.err
        r = run_tau2("airline", front, tmp_path / "yes.jsonl", ids, "--specialist-url", spec,
                     "--specialist-auth-token", SPEC_TOKEN, *common, tables=True)
        assert r.code == 0, r.err
    team = [x for x in records(tmp_path / "yes.jsonl")
            if x["match"]["pairing"] == "agent+specialist"]
    assert [x["reward"] for x in team] == [1.0]
    assert set(seen) == {f"Bearer {SPEC_TOKEN}"}
    assert not leaks(tmp_path, r.out, r.err)


def gold_app(base: str, tasks: dict[str, Any]) -> Any:
    from tests.tau2 import gold_agent

    return gold_agent.app(base, tasks, "silent")[0]
