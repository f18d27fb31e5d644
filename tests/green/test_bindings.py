"""serve-green on every binding: a2a-sdk clients over JSON-RPC, HTTP+JSON and gRPC, in A2A
1.0 and 0.3; undeclared media types refused; the bearer token on gRPC."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.client import Client
from pydantic import SecretStr

from a2abench.a2a import A2AClient, A2AConfig, FilePart
from a2abench.errors import A2AStatusError, JSONRPCError
from a2abench.green import GreenApp, GreenSettings, build_app
from a2abench.net.tls import verified_context
from tests.green.helpers import STATE, agentbeats, result_of, send
from tests.servers import free_port, serve

grpc = pytest.importorskip("grpc")
CASES = [("JSONRPC", "1.0"), ("JSONRPC", "0.3"), ("HTTP+JSON", "1.0"), ("HTTP+JSON", "0.3"),
         ("GRPC", "1.0"), ("GRPC", "0.3")]


@contextlib.contextmanager
def green_all(settings: GreenSettings) -> Iterator[tuple[str, GreenApp]]:
    holder: dict[str, GreenApp] = {}

    def factory(base: str) -> Any:
        # Chosen once the HTTP socket is bound: a port freed before that could be handed to
        # it, and then gRPC listening there first left uvicorn "address already in use".
        holder["g"] = build_app(settings, base + "/", grpc_port=free_port())
        return holder["g"].app

    with serve(factory) as base:
        yield base, holder["g"]


@pytest.fixture(scope="module")
def default_green(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, GreenApp]]:
    """serve-green with default settings, shared by the tests whose requests are refused
    before any assessment starts (a server on every binding per case cost more than it)."""
    with green_all(GreenSettings(output_dir=tmp_path_factory.mktemp("default-green"))) as g:
        yield g


@contextlib.asynccontextmanager
async def sdk_client_on(base: str, binding: str, version: str,
                        token: str | None = None) -> AsyncIterator[Client]:
    """a2a-sdk's client, forced onto one interface of the card."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(timeout=60, headers=headers,
                                 verify=verified_context()) as http:
        card = await A2ACardResolver(http, base).get_agent_card()
        keep = [i for i in card.supported_interfaces
                if i.protocol_binding == binding and i.protocol_version == version]
        assert len(keep) == 1, card.supported_interfaces
        del card.supported_interfaces[:]
        card.supported_interfaces.extend(keep)
        config = ClientConfig(httpx_client=http, streaming=True,
                              supported_protocol_bindings=[binding],
                              grpc_channel_factory=grpc.aio.insecure_channel)
        yield ClientFactory(config).create(card)


def test_card_advertises_each_binding_in_1_0_and_0_3(default_green: tuple[str, GreenApp]) -> None:
    base, _ = default_green
    raw = httpx.get(base + "/.well-known/agent-card.json").json()
    pairs = [(i["protocolBinding"], i["protocolVersion"]) for i in raw["supportedInterfaces"]]
    assert pairs == CASES
    urls = {i["protocolBinding"]: i["url"] for i in raw["supportedInterfaces"]}
    assert urls["HTTP+JSON"] == base + "/rest"
    assert urls["GRPC"].startswith("127.0.0.1:")
    # a 0.3 client still sees JSON-RPC as the preferred transport
    assert raw["preferredTransport"] == "JSONRPC" and raw["url"] == base + "/"


def test_strict_1_0_card_has_no_legacy_fields_and_no_0_3_endpoints(tmp_path: Any) -> None:
    """--no-a2a-03: the card validates as pure A2A 1.0 (the TCK's CARD-STRUCT-001), and no
    binding answers the 0.3 wire any more."""
    with green_all(GreenSettings(output_dir=tmp_path, a2a_03=False)) as (base, _):
        raw = httpx.get(base + "/.well-known/agent-card.json").json()
        old = httpx.post(base + "/", json={"jsonrpc": "2.0", "id": 1, "method": "message/send",
                                           "params": {}})
        rest_03 = httpx.post(base + "/rest/v1/message:send", json={})
    pairs = [(i["protocolBinding"], i["protocolVersion"]) for i in raw["supportedInterfaces"]]
    assert pairs == [c for c in CASES if c[1] == "1.0"]
    assert not {"url", "preferredTransport", "protocolVersion", "additionalInterfaces"} & set(raw)
    assert old.json()["error"]["code"] == -32601  # method not found: 0.3 is not served
    # a 0.3 REST call (no A2A-Version header means 0.3) is refused as a version not served
    assert rest_03.status_code == 400 and "0.3" in rest_03.text


@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON", "GRPC"])
async def test_strict_1_0_serves_1_0_clients_on_every_binding(tmp_path: Any, white: str,
                                                              binding: str) -> None:
    settings = GreenSettings(output_dir=tmp_path, progress_interval_s=0, a2a_03=False)
    with green_all(settings) as (base, _):
        async with sdk_client_on(base, binding, "1.0") as client:
            out = await send(client, agentbeats(white, benchmark="scripted", max_tasks=1))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()


@pytest.mark.parametrize(("binding", "version"), CASES)
async def test_sdk_client_runs_an_assessment(tmp_path: Any, white: str, binding: str,
                                             version: str) -> None:
    settings = GreenSettings(output_dir=tmp_path, progress_interval_s=0)
    with green_all(settings) as (base, _):
        async with sdk_client_on(base, binding, version) as client:
            out = await send(client, agentbeats(white, benchmark="scripted", max_tasks=2))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    assert result_of(out.task)[1]["summary"]["pass_rate"] == 1.0  # type: ignore[arg-type]


@pytest.mark.parametrize(("binding", "version"), CASES)
async def test_undeclared_media_type_is_refused(default_green: tuple[str, GreenApp],
                                                binding: str, version: str) -> None:
    """Parts whose media type the card does not declare: ContentTypeNotSupportedError."""
    base, _ = default_green
    async with A2AClient(A2AConfig.create(base)) as client:
        fetched = await client.card()
        choice = next(o for o in _options(fetched) if (o.binding, o.dialect) ==
                      (binding, version))
    async with A2AClient(A2AConfig.create(base), card=fetched, interface=choice) as client:
        image = FilePart(uri="https://example.com/cat.png", mime_type="image/png")
        with pytest.raises((JSONRPCError, A2AStatusError)) as info:
            await client.conversation().send(image)
    error = info.value
    if version == "0.3":
        # a2a-sdk's 0.3 adapters check media types too, through the same 1.0 handler
        assert "image/png" in str(error)
    elif isinstance(error, JSONRPCError):
        assert error.code == -32005
    else:
        assert error.reason == "CONTENT_TYPE_NOT_SUPPORTED"
        assert error.status == "INVALID_ARGUMENT"


def _options(fetched: Any) -> list[Any]:
    from a2abench.a2a.bindings import interface_options

    return interface_options(fetched.card, fetched.card_url)


async def test_grpc_needs_the_bearer_token(tmp_path: Any, white: str) -> None:
    settings = GreenSettings(output_dir=tmp_path, progress_interval_s=0,
                             auth_token=SecretStr("s3cret"))
    with green_all(settings) as (base, _):
        async with sdk_client_on(base, "GRPC", "1.0") as client:
            with pytest.raises(Exception, match="bearer token") as info:
                await send(client, agentbeats(white, benchmark="scripted", max_tasks=1))
        assert "UNAUTHENTICATED" in repr(info.value) or "bearer" in str(info.value)
        config = A2AConfig.create(base, transport="grpc", auth_token="s3cret")
        async with A2AClient(config) as ours:
            reply = await ours.conversation().send(
                agentbeats(white, benchmark="scripted", max_tasks=1))
    assert reply.state is not None and reply.state.value == "completed"


@pytest.mark.parametrize(("version", "ok"), [("99.0", False), ("0.3", False), ("1.0", True),
                                             (None, True)])
async def test_grpc_checks_the_a2a_version(default_green: tuple[str, GreenApp],
                                           version: str | None, ok: bool) -> None:
    """a2a-sdk's gRPC handler ignores `a2a-version`; serve-green refuses a wrong one with
    VersionNotSupported (FAILED_PRECONDITION + ErrorInfo), as its HTTP bindings do."""
    from a2a.types import GetTaskRequest, a2a_pb2_grpc

    from a2abench.a2a.grpc_binding import _reason

    _, green = default_green
    target = next(i.url for i in green.card.supported_interfaces
                  if i.protocol_binding == "GRPC")
    metadata = (("a2a-version", version),) if version else ()
    async with grpc.aio.insecure_channel(target) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.GetTask(GetTaskRequest(id="nope"), metadata=metadata)
    if ok:  # the version passes; the task does not exist
        assert info.value.code() == grpc.StatusCode.NOT_FOUND
    else:
        assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert _reason(info.value) == "VERSION_NOT_SUPPORTED"


async def test_request_keys_streaming_and_transport(tmp_path: Any) -> None:
    """serve-green's "streaming" and "transport" request keys drive the same client code as
    `run --streaming --transport`: the run record names the interface used."""
    import json

    from tests.sdk_agents import sdk_agent

    settings = GreenSettings(output_dir=tmp_path, progress_interval_s=0)
    with serve(sdk_agent) as white, green_all(settings) as (base, _):
        async with sdk_client_on(base, "JSONRPC", "1.0") as client:
            out = await send(client, agentbeats(white, benchmark="scripted", max_tasks=1,
                                                streaming=True, transport="grpc"))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    records = [json.loads(line) for path in tmp_path.rglob("metrics.jsonl")
               for line in path.read_text().splitlines()]
    run = next(r for r in records if r["type"] == "run")
    assert run["interface"]["binding"] == "GRPC" and run["interface"]["streaming"] is True
    requests = [r for r in records if r["type"] == "request"]
    assert requests and all(r["method"] == "SendStreamingMessage" for r in requests)


def test_rest_tenants_live_under_the_rest_prefix(tmp_path: Any) -> None:
    """A 1.0 tenant goes after the interface URL (as a2a-sdk's client sends it), and unknown
    paths elsewhere are plain 404s, not redirects into a tenant route."""
    body = {"message": {"role": "ROLE_USER", "messageId": "tck-complete-task-1",
                        "parts": [{"text": "hi"}]}}
    settings = GreenSettings(output_dir=tmp_path, tck=True)
    with green_all(settings) as (base, _):
        tenant = httpx.post(base + "/rest/acme/message:send", json=body,
                            headers={"A2A-Version": "1.0"})
        unknown = httpx.get(base + "/no-such-page")
    assert tenant.status_code == 200, tenant.text
    assert tenant.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert unknown.status_code == 404


def test_rest_behind_a_prefix_stripping_proxy(tmp_path: Any) -> None:
    """Like JSON-RPC, HTTP+JSON answers under `/` and under the card URL's path, so the card's
    REST URL works whether or not a proxy strips the path prefix."""
    body = {"message": {"role": "ROLE_USER", "messageId": "tck-complete-task-2",
                        "parts": [{"text": "hi"}]}}
    holder: dict[str, Any] = {}

    def factory(base: str) -> Any:
        holder["g"] = build_app(GreenSettings(output_dir=tmp_path, tck=True),
                                base + "/to_agent/abc")
        return holder["g"].app

    with serve(factory) as base:
        raw = httpx.get(base + "/.well-known/agent-card.json").json()
        rest = next(i["url"] for i in raw["supportedInterfaces"]
                    if i["protocolBinding"] == "HTTP+JSON")
        assert rest == base + "/to_agent/abc/rest"
        for path in ("/to_agent/abc/rest", "/rest"):  # unstripped and stripped
            r = httpx.post(base + path + "/message:send", json=body,
                           headers={"A2A-Version": "1.0"})
            assert r.status_code == 200, (path, r.text)
