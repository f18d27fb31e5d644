"""serve-green answers its card before the heavy parts are built (issue 35): the front app
(green/starting.py) serves the card and the probes while the full app's build is held on an
event; every other request waits for the full app and goes through its guards. Nothing here
measures time: the build is held until the test lets it go."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from a2abench.errors import ConfigError
from a2abench.green import GreenApp, GreenSettings, build_app
from a2abench.green.card import CardDocument, card_dict, card_for
from a2abench.green.settings import card_paths
from a2abench.green.starting import StartingApp
from a2abench.run.registry import names
from tests.servers import serve

WAIT_S = 30.0  # guards a hang only: the events below are set long before
GET_TASK = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}


@dataclasses.dataclass
class Held:
    """A build of the full app that starts, then waits until `release` is set."""

    settings: GreenSettings
    fail: Exception | None = None
    entered: threading.Event = dataclasses.field(default_factory=threading.Event)
    release: threading.Event = dataclasses.field(default_factory=threading.Event)
    finished: threading.Event = dataclasses.field(default_factory=threading.Event)
    failures: list[BaseException] = dataclasses.field(default_factory=list)

    def app(self, base: str) -> StartingApp:
        url = base + "/"
        card = CardDocument(card_for(self.settings, url, names(), None))

        def build() -> GreenApp:
            self.entered.set()
            assert self.release.wait(WAIT_S), "the test never released the build"
            try:
                if self.fail is not None:
                    raise self.fail
                return build_app(self.settings, url, card=card)
            finally:
                self.finished.set()

        return StartingApp(card, card_paths(url), build, on_failed=self.failures.append)


@pytest.fixture
def held(settings: GreenSettings) -> Iterator[Callable[..., tuple[str, Held]]]:
    stack: list[Any] = []

    def start(**changes: Any) -> tuple[str, Held]:
        holder = Held(dataclasses.replace(settings, **changes))
        context = serve(holder.app)
        stack.append((context, holder))
        return context.__enter__(), holder

    yield start
    for context, holder in stack:
        holder.release.set()
        context.__exit__(None, None, None)


def _post_in_background(url: str, headers: dict[str, str] | None = None,
                        ) -> tuple[threading.Thread, list[Any]]:
    answers: list[Any] = []

    def post() -> None:
        answers.append(httpx.post(url, json=GET_TASK, timeout=WAIT_S,
                                  headers={"A2A-Version": "1.0", **(headers or {})}))

    thread = threading.Thread(target=post, daemon=True)
    thread.start()
    return thread, answers


def test_the_card_and_probes_answer_while_the_build_is_held(held: Any) -> None:
    base, holder = held()
    assert holder.entered.wait(WAIT_S)  # the build has begun and is held
    card = httpx.get(base + "/.well-known/agent-card.json")
    legacy = httpx.get(base + "/.well-known/agent.json")
    assert not holder.finished.is_set()  # ...and none of the above needed it
    assert card.status_code == 200 and card.json()["name"] == "a2abench green agent"
    assert legacy.content == card.content
    assert card.headers["cache-control"] == "public, max-age=300"
    again = httpx.get(base + "/.well-known/agent-card.json",
                      headers={"If-None-Match": card.headers["etag"]})
    assert again.status_code == 304 and again.headers["last-modified"]
    assert httpx.get(base + "/healthz").json() == {"status": "ok"}
    ready = httpx.get(base + "/readyz")
    assert ready.status_code == 503 and ready.json()["reason"] == "starting"
    thread, answers = _post_in_background(base + "/")
    assert not holder.finished.is_set()
    holder.release.set()  # the JSON-RPC request waited for the full app, which answers it
    thread.join(WAIT_S)
    assert answers[0].json()["error"]["code"] == -32001  # TaskNotFound: a2a-sdk's handler
    assert httpx.get(base + "/readyz").json() == {"status": "ready"}
    after = httpx.get(base + "/.well-known/agent-card.json")  # now from the full app
    assert after.content == card.content and after.headers["etag"] == card.headers["etag"]


def test_a_waiting_request_still_meets_the_full_apps_guards(held: Any) -> None:
    """The front answers only what the full app serves to anyone: a request without the
    token waits, then gets the full app's 401; the card stays public."""
    base, holder = held(auth_token=SecretStr("s3cret-token"))
    assert holder.entered.wait(WAIT_S)
    assert httpx.get(base + "/.well-known/agent-card.json").status_code == 200
    thread, answers = _post_in_background(base + "/")
    authorized, good = _post_in_background(
        base + "/", headers={"Authorization": "Bearer s3cret-token"})
    holder.release.set()
    thread.join(WAIT_S)
    authorized.join(WAIT_S)
    assert answers[0].status_code == 401
    assert good[0].json()["error"]["code"] == -32001


def test_a_failed_build_answers_503_with_the_reason(held: Any) -> None:
    base, holder = held()
    holder.fail = ConfigError("--option tau2.colour: not an option of tau2")
    assert holder.entered.wait(WAIT_S)
    thread, answers = _post_in_background(base + "/")
    holder.release.set()
    thread.join(WAIT_S)
    assert answers[0].status_code == 503
    assert "could not start: --option tau2.colour" in answers[0].json()["error"]["message"]
    assert [str(f) for f in holder.failures] == ["--option tau2.colour: not an option of tau2"]
    ready = httpx.get(base + "/readyz").json()
    assert ready["reason"].startswith("failed: --option tau2.colour")
    assert httpx.get(base + "/.well-known/agent-card.json").status_code == 200


@pytest.mark.parametrize("grpc_port", [50051, None])
@pytest.mark.parametrize("changes", [
    {}, {"auth_token": SecretStr("tok-123456")}, {"tck": True}, {"a2a_03": False},
    {"auth_token": SecretStr("tok-123456"), "a2a_03": False}])
def test_the_card_is_served_as_a2a_sdk_serves_it(settings: GreenSettings,
                                                 changes: dict[str, Any],
                                                 grpc_port: int | None) -> None:
    """CardDocument's body and ETag are a2a-sdk's own for the same card (its card route is
    what served it before), in each card shape."""
    from a2a.server.request_handlers.response_helpers import agent_card_to_dict
    from a2a.server.routes.agent_card_routes import _etag_for

    card = card_for(dataclasses.replace(settings, **changes), "http://g:1/a2a", names(),
                    grpc_port)
    document = CardDocument(card)
    assert card_dict(card) == agent_card_to_dict(card)
    assert json.loads(document.body) == agent_card_to_dict(card)
    assert document.etag == _etag_for(agent_card_to_dict(card))
    if not changes.get("a2a_03", True):
        assert "url" not in json.loads(document.body)  # strict 1.0: no legacy fields


def test_the_light_start_imports_nothing_heavy() -> None:
    """What serve() does before it serves (settings, card, front app) leaves a2a-sdk's server
    stack, the benchmarks, the MCP server, gRPC and the full app unimported."""
    code = (
        "import sys\n"
        "from a2abench.green.settings import GreenSettings\n"
        "from a2abench.green.card import CardDocument, card_for\n"
        "from a2abench.green.starting import StartingApp, pick_grpc_port\n"
        "from a2abench.run.registry import names\n"
        "s = GreenSettings(caps=['concurrency=2'], presets=['tau2.max_steps=5'])\n"
        "card = CardDocument(card_for(s, 'http://g:1/', names(), pick_grpc_port(s)))\n"
        "StartingApp(card, ['/.well-known/agent-card.json'], lambda: None)\n"
        "assert len(card.card.skills) >= 2\n"
        "print(sorted(m for m in sys.modules if m.startswith(('a2a.server', 'mcp', "
        "'a2abench.benchmarks', 'a2abench.mcp.server', 'a2abench.green.app', "
        "'a2abench.green.executor', 'starlette.applications', 'starlette.routing', "
        "'grpc'))))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
