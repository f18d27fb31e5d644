"""The live-org backend: a real simple-salesforce client over a fake REST transport (a requests
adapter standing in for the org), and the sandbox backend beside it."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import pytest

from a2abench.benchmarks.crmarena.backends import (
    SalesforceBackend,
    SalesforceUnavailable,
    SandboxBackend,
    credentials,
)
from a2abench.errors import ConfigError

# requests and simple-salesforce are imported where used: ~0.3 s at every worker's collection.
if TYPE_CHECKING:
    import requests

INSTANCE = "fake.my.salesforce.com"
Route = Callable[[str, str], tuple[int, Any]]  # (path, q) -> (status, JSON body)


class FakeOrg:
    """A requests transport adapter (`send`, `close`) that answers simple-salesforce's REST
    calls from `route`; counts calls in flight."""

    def __init__(self, route: Route, delay: float = 0.0) -> None:
        self.route, self.delay = route, delay
        self.seen: list[tuple[str, str]] = []
        self.in_flight = self.peak = 0
        self.lock = threading.Lock()

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        parts = urlsplit(request.url or "")
        q = parse_qs(parts.query).get("q", [""])[0]
        with self.lock:
            self.seen.append((parts.path, q))
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            time.sleep(self.delay)
            status, body = self.route(parts.path, q)
        finally:
            with self.lock:
                self.in_flight -= 1
        import requests

        response = requests.Response()
        response.status_code, response.url = status, request.url or ""
        response._content = json.dumps(body).encode()
        response.headers["Content-Type"] = "application/json"
        response.request = request
        return response

    def close(self) -> None:
        pass


def backend(route: Route, delay: float = 0.0, limit: int = 5) -> tuple[SalesforceBackend,
                                                                        FakeOrg]:
    import requests
    from simple_salesforce import Salesforce

    fake = FakeOrg(route, delay)
    session = requests.Session()
    session.mount("https://", fake)  # type: ignore[arg-type]  # duck-typed BaseAdapter
    client = Salesforce(instance_url=f"https://{INSTANCE}", session_id="session-token",
                        session=session, version="59.0")
    return SalesforceBackend(client, "b2b", limit), fake


def attrs(kind: str, rid: str) -> dict[str, str]:
    return {"type": kind, "url": f"/services/data/v59.0/sobjects/{kind}/{rid}"}


RECORDS = [
    {"attributes": attrs("Case", "500A"), "Id": "500A", "Subject": "Broken",
     "Account": {"attributes": attrs("Account", "001A"), "Name": "Acme"}, "Reason": None},
    {"attributes": attrs("Case", "500B"), "Id": "500B", "Subject": "Late", "Account": None,
     "Reason": None},
]


def org_route(path: str, q: str) -> tuple[int, Any]:
    if path.endswith("/query/") and q.startswith("SELECT Id, Subject"):
        return 200, {"totalSize": 2, "done": True, "records": RECORDS}
    if path.endswith("/query/") and q.startswith("SELECT COUNT()"):
        return 200, {"totalSize": 2, "done": True, "records": []}
    if path.endswith("/search/"):
        return 200, {"searchRecords": [{"attributes": attrs("Knowledge__kav", "ka0A"),
                                        "Id": "ka0A", "Title": "Refunds"}]}
    if q.startswith("SELEC "):
        return 400, [{"message": "\nSELEC Id\n^\nERROR at Row:1:Column:1\nunexpected token: "
                                 "'SELEC'", "errorCode": "MALFORMED_QUERY"}]
    if q == "SELECT Id FROM Expired":
        return 401, [{"message": "Session expired or invalid",
                      "errorCode": "INVALID_SESSION_ID"}]
    if q == "SELECT Id FROM Limits":
        return 403, [{"message": "TotalRequests Limit exceeded.",
                      "errorCode": "REQUEST_LIMIT_EXCEEDED"}]
    if q == "SELECT Id FROM Html":
        return 500, "<html>oops</html>"
    raise AssertionError(f"unexpected call {path} {q}")


async def test_observations_match_the_official_connector() -> None:
    b, fake = backend(org_route)
    got = await b.observe("```sql\nSELECT Id, Subject,\n Account.Name, Reason FROM Case\n```",
                          None)
    # top level: plain dicts without attributes, the all-None column dropped; nested records
    # keep their attributes and print as 3.10/3.11 OrderedDicts
    assert got == ("[{'Id': '500A', 'Subject': 'Broken', 'Account': OrderedDict([('attributes',"
                   " OrderedDict([('type', 'Account'), ('url', '/services/data/v59.0/sobjects/"
                   "Account/001A')])), ('Name', 'Acme')])}, {'Id': '500B', 'Subject': 'Late', "
                   "'Account': None}]")
    assert fake.seen[0] == ("/services/data/v59.0/query/",
                            "SELECT Id, Subject, Account.Name, Reason FROM Case")  # unfenced
    assert await b.observe("SELECT COUNT() FROM Case", None) == "[]"
    assert await b.observe("FIND {refund} RETURNING Knowledge__kav(Id, Title)", None) == (
        "[{'Id': 'ka0A', 'Title': 'Refunds'}]")
    assert fake.seen[-1][0] == "/services/data/v59.0/search/"


async def test_api_errors_become_the_observation_text() -> None:
    b, _ = backend(org_route)
    assert await b.observe("SELEC Id", None) == (
        "MALFORMED_QUERY: \nSELEC Id\n^\nERROR at Row:1:Column:1\nunexpected token: 'SELEC'")


@pytest.mark.parametrize(("query", "match"), [
    ("SELECT Id FROM Expired", "INVALID_SESSION_ID"),
    ("SELECT Id FROM Limits", "REQUEST_LIMIT_EXCEEDED"), ("SELECT Id FROM Html", "unreadable"),
])
async def test_an_unusable_org_is_not_the_agents_fault(query: str, match: str) -> None:
    b, _ = backend(org_route)
    with pytest.raises(SalesforceUnavailable, match=match):
        await b.observe(query, None)


async def test_a_network_failure_is_infrastructure() -> None:
    import requests

    def down(path: str, q: str) -> tuple[int, Any]:
        raise requests.ConnectionError("connection refused")
    b, _ = backend(down)
    with pytest.raises(SalesforceUnavailable, match="cannot reach"):
        await b.observe("SELECT Id FROM Case", None)


async def test_concurrency_is_capped_at_the_orgs_limit() -> None:
    b, fake = backend(lambda p, q: (200, {"totalSize": 0, "done": True, "records": []}),
                      delay=0.05, limit=3)
    results = await asyncio.gather(*(b.observe(f"SELECT Id FROM Case LIMIT {i}", None)
                                     for i in range(1, 10)))
    assert results == ["[]"] * 9 and fake.peak == 3
    assert b.describe() == {"backend": "salesforce", "org": "b2b",
                            "max_concurrent_requests": 3}


def test_credentials_come_from_upstreams_variables() -> None:
    env = {"SALESFORCE_B2C_USERNAME": "u", "SALESFORCE_B2C_PASSWORD": "p",
           "SALESFORCE_B2C_SECURITY_TOKEN": "t", "SALESFORCE_USERNAME": "o"}
    assert credentials("b2c", env) == {"username": "u", "password": "p",
                                       "security_token": "t"}
    with pytest.raises(ConfigError, match="no Salesforce credentials for the b2b org") as err:
        credentials("b2b", env)
    assert "SALESFORCE_B2B_SECURITY_TOKEN" in (err.value.hint or "")
    with pytest.raises(ConfigError, match="SALESFORCE_PASSWORD"):
        credentials("original", {"SALESFORCE_SECURITY_TOKEN": "t", "SALESFORCE_USERNAME": "o"})


async def test_the_sandbox_backend_passes_each_tasks_date(b2b_db: Path) -> None:
    b = SandboxBackend.open(b2b_db, None, {"origin": "local"})
    try:
        count = "SELECT COUNT(Id) n FROM Case WHERE CreatedDate = LAST_N_DAYS:3650"
        assert await b.observe(count, dt.date(1990, 1, 1)) == "[{'n': 0}]"
        assert await b.observe(count, None) != "[{'n': 0}]"
        assert b.describe()["backend"] == "sandbox" and b.describe()["origin"] == "local"
    finally:
        b.close()
