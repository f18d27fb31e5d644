"""The network in three more places (issue 17): data and upstream prompt downloads, the
Hugging Face hub, the Salesforce login. Under a run's --allow-host each is refused before it
connects when its host is not allowed; without a policy nothing changes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from a2abench.benchmarks.crmarena.backends import SalesforceBackend, SalesforceUnavailable
from a2abench.benchmarks.crmarena.tasks import load_hub_rows
from a2abench.errors import DataMissing
from a2abench.net import download as _download
from a2abench.net.egress import HostPolicy, egress_policy, egress_refusal
from tests.clihelp import run_cli
from tests.hostile.hostile_agent import hostile
from tests.hostile.probe_run import make_org
from tests.servers import serve

BODY = b"hello"
SHA = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"


class Mirror:
    def __init__(self) -> None:
        self.hits: list[str] = []

    def app(self, base: str) -> Starlette:
        async def file(request: Request) -> Response:
            self.hits.append(request.url.hostname or "")
            return Response(BODY)

        async def moved(request: Request) -> Response:
            self.hits.append(request.url.hostname or "")
            return RedirectResponse(base.replace("127.0.0.1", "localhost") + "/file")

        return Starlette(routes=[Route("/file", file), Route("/moved", moved),
                                 Route("/{rest:path}", file)])


def _fetch(url: str) -> dict[str, Path]:
    return _download.ensure([_download.RemoteFile("f.txt", url, sha256=SHA)], folder="egress")


def test_without_a_policy_downloads_work_as_before() -> None:
    mirror = Mirror()
    with serve(mirror.app) as base:
        assert _fetch(base + "/file")["f.txt"].read_bytes() == BODY
    assert egress_refusal("http://anything/", "x") is None


def test_a_download_outside_the_policy_is_refused_before_connecting() -> None:
    mirror = Mirror()
    refused = pytest.raises(DataMissing, match="downloading data needs 127.0.0.1, which is "
                                               "not an allowed host")
    with serve(mirror.app) as base, egress_policy(HostPolicy(["agent.example"])), refused:
        _fetch(base + "/file")
    assert mirror.hits == []


def test_concurrent_downloads_are_bound_by_the_policy_too() -> None:
    """Files fetched on worker threads (banking_knowledge's 814) see the run's policy."""
    mirror = Mirror()
    files = [_download.RemoteFile(f"f{i}.txt", "", sha256=SHA) for i in range(4)]
    refused = pytest.raises(DataMissing, match="not an allowed host")
    with serve(mirror.app) as base, egress_policy(HostPolicy(["agent.example"])), refused:
        _download.ensure([_download.RemoteFile(f.path, f"{base}/{f.path}", sha256=SHA)
                          for f in files], folder="egress-many", workers=4)
    assert mirror.hits == []


def test_a_download_redirected_outside_the_policy_is_refused() -> None:
    mirror = Mirror()
    refused = pytest.raises(DataMissing, match="needs localhost")
    with serve(mirror.app) as base, egress_policy(HostPolicy(["127.0.0.1"])), refused:
        _fetch(base + "/moved")
    assert mirror.hits == ["127.0.0.1"]


def test_hub_and_salesforce_are_refused_under_a_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (("SALESFORCE_B2B_USERNAME", "u"), ("SALESFORCE_B2B_PASSWORD", "p"),
                        ("SALESFORCE_B2B_SECURITY_TOKEN", "t")):
        monkeypatch.setenv(name, value)
    with egress_policy(HostPolicy(["agent.example"])):
        with pytest.raises(DataMissing, match="Hugging Face hub needs huggingface.co"):
            load_hub_rows("Salesforce/CRMArenaPro", "CRMArenaPro", "b2b")
        with pytest.raises(SalesforceUnavailable, match="login needs login.salesforce.com"):
            SalesforceBackend.login("b2b")


def test_run_allow_host_covers_the_upstream_prompt_download(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db, tasks_file = make_org(tmp_path, 1)
    mirror = Mirror()
    out = tmp_path / "m.jsonl"
    with serve(mirror.app) as mirror_base, hostile("normal") as (_, base):
        # the mirror is named `localhost`: not the agent's host, not allowed
        monkeypatch.setenv("A2ABENCH_CRMARENA_DATA_URL",
                           mirror_base.replace("127.0.0.1", "localhost") + "/")
        result = run_cli("run", "crmarena", "--white-agent-url", base, "--tasks-file",
                         str(tasks_file), "--crm-db", str(db), "--output", str(out),
                         "--judge-llm", "offline", "--allow-host", "agent.example")
    assert result.code == 0, result.err
    assert mirror.hits == []
    run: dict[str, Any] = json.loads(out.read_text().splitlines()[0])
    note = json.dumps(run["data"])
    assert "needs localhost, which is not an allowed host" in note, note


def test_run_policy_adds_only_the_agents_own_port() -> None:
    from a2abench.net.egress import policy_for

    assert policy_for([], "http://agent:9000") is None
    policy = policy_for(["10.0.0.0/8"], "http://agent:9000/a2a")
    assert policy is not None
    assert policy.allows("http://agent:9000/other") and policy.allows("http://10.1.2.3:1/")
    assert not policy.allows("http://agent:9001/") and not policy.allows("http://evil/")
    https = policy_for(["x"], "https://agent/")
    assert https is not None and https.allows("https://agent:443/")
