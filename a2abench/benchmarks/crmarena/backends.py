"""Where the agent's SOQL and SOSL run: the offline sandbox or a live Salesforce org.

Both return upstream's observation text (`SalesforceConnector.run_query` then `str()`): the
rows without their top-level `attributes` and without columns that are None in every row,
`[]` for no rows, `CODE: message` for an API error.

`sandbox` (default) answers over CRMArena's published SQLite dump of the org (downloaded
once, or `--crm-db`), with each task's "Today's date" anchoring relative date literals.
`salesforce` sends the query to a live org through simple-salesforce (the `salesforce`
extra), logged in with upstream's environment variables; at most
`ORG_CONCURRENT_REQUESTS` queries are in flight, the concurrent-request limit of the
Developer Edition and trial orgs CRMArena publishes.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from a2abench.benchmarks.crmarena.sandbox import OrgSandbox, OrgSchema
from a2abench.benchmarks.crmarena.sandbox.engine import preprocess_soql
from a2abench.benchmarks.crmarena.sandbox.serialize import API_VERSION, connector_rows, sf_repr
from a2abench.plugin import ConfigError, InfrastructureError

ORG_CONCURRENT_REQUESTS = 5
# Upstream's variables per org; the SECURITY_TOKEN variable's presence selects them.
ENV_PREFIX = {"b2b": "SALESFORCE_B2B_", "b2c": "SALESFORCE_B2C_", "original": "SALESFORCE_"}
# API errors that say the org cannot serve anyone right now: not the agent's doing.
UNAVAILABLE_CODES = frozenset({"INVALID_SESSION_ID", "REQUEST_LIMIT_EXCEEDED",
                               "API_CURRENTLY_DISABLED", "API_DISABLED_FOR_ORG",
                               "INVALID_LOGIN", "SERVER_UNAVAILABLE"})


class SalesforceUnavailable(InfrastructureError):
    """A live Salesforce org cannot serve queries (login failed, session expired, API limits
    reached, trial expired): nothing the agent did, so not scored."""


class Backend(Protocol):
    name: str

    async def observe(self, query: str, today: dt.date | None) -> str:
        """The observation for one query (never raises for a bad query)."""
        ...

    def describe(self) -> dict[str, Any]:
        """Provenance for the run record."""
        ...

    def close(self) -> None: ...


class SandboxBackend:
    """The offline org (`OrgSandbox`); queries run in a worker thread."""

    name = "sandbox"

    def __init__(self, sandbox: OrgSandbox, provenance: Mapping[str, Any]) -> None:
        self.sandbox = sandbox
        self.provenance = dict(provenance)

    @classmethod
    def open(cls, db_path: Path, schema_records: list[dict[str, Any]] | None,
             provenance: Mapping[str, Any]) -> SandboxBackend:
        schema = OrgSchema.from_records(schema_records) if schema_records else None
        return cls(OrgSandbox.open(db_path, schema=schema), provenance)

    async def observe(self, query: str, today: dt.date | None) -> str:
        return await asyncio.to_thread(self.sandbox.observe, query, today=today)

    def describe(self) -> dict[str, Any]:
        return {"backend": "sandbox", "db": str(self.sandbox.db_path),
                "default_today": self.sandbox.today.isoformat(), **self.provenance}

    def close(self) -> None:
        self.sandbox.close()


def credentials(org: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Upstream's `sf_auth`: username, password and security token of `org`."""
    env = os.environ if environ is None else environ
    prefix = ENV_PREFIX[org]
    names = [f"{prefix}{k}" for k in ("USERNAME", "PASSWORD", "SECURITY_TOKEN")]
    if names[2] not in env:
        raise ConfigError(f"no Salesforce credentials for the {org} org in the environment",
                          hint=f"Set {', '.join(names)} (CRMArena's README publishes the "
                               "current ones), or use --backend sandbox.")
    missing = [n for n in names[:2] if not env.get(n)]
    if missing:
        raise ConfigError(f"{', '.join(missing)} is not set",
                          hint=f"Set all of {', '.join(names)}.")
    return {"username": env[names[0]], "password": env[names[1]],
            "security_token": env[names[2]]}


def _simple_salesforce() -> Any:
    try:
        import simple_salesforce
    except ImportError:
        raise ConfigError("--backend salesforce needs the simple-salesforce package",
                          hint="pip install 'a2abench[salesforce]', or use --backend "
                               "sandbox.") from None
    return simple_salesforce


def error_observation(exc: Exception) -> str:
    """`CODE: message` from a simple-salesforce API error, as upstream prints it;
    SalesforceUnavailable when the org itself is the problem."""
    content = getattr(exc, "content", None)
    first = content[0] if isinstance(content, list) and content else None
    if not (isinstance(first, dict) and "errorCode" in first):
        raise SalesforceUnavailable(f"Salesforce answered with an unreadable error: {exc}",
                                    hint="Check the org; this task-trial is not scored.")
    code, message = str(first["errorCode"]), str(first.get("message", ""))
    if code in UNAVAILABLE_CODES:
        raise SalesforceUnavailable(f"the Salesforce org cannot serve queries: {code}: {message}",
                                    hint="CRMArena's orgs expire and rotate credentials; "
                                         "update them, or use --backend sandbox.")
    return f"{code}: {message}"


class SalesforceBackend:
    """A live org through a simple-salesforce client (any object with query_all/search)."""

    name = "salesforce"

    def __init__(self, client: Any, org: str,
                 max_concurrent: int = ORG_CONCURRENT_REQUESTS) -> None:
        self.client = client
        self.org = org
        self.max_concurrent = max_concurrent
        self._slots = asyncio.Semaphore(max_concurrent)  # waiting happens on the event loop

    @classmethod
    def login(cls, org: str) -> SalesforceBackend:
        """Log in with upstream's environment variables (SOAP username/password/token)."""
        sf = _simple_salesforce()
        auth = credentials(org)
        from a2abench.plugin.provisional import egress_refusal

        # simple-salesforce logs in at login.salesforce.com (its default domain)
        refusal = egress_refusal("https://login.salesforce.com/", "the Salesforce login")
        if refusal is not None:
            raise SalesforceUnavailable(refusal, hint="Allow *.salesforce.com with "
                                                      "--allow-host, or use --backend sandbox.")
        try:
            client = sf.Salesforce(**auth, version=API_VERSION)
        except sf.exceptions.SalesforceAuthenticationFailed as exc:
            raise SalesforceUnavailable(f"Salesforce login to the {org} org failed: {exc}",
                                        hint="CRMArena's orgs expire and rotate credentials; "
                                             "update them, or use --backend sandbox.") from exc
        except OSError as exc:  # requests' connection errors are OSErrors
            raise SalesforceUnavailable(f"cannot reach Salesforce to log in: {exc}",
                                        hint="Check the network, or use --backend "
                                             "sandbox.") from exc
        return cls(client, org)

    async def observe(self, query: str, today: dt.date | None) -> str:
        # A live org knows its own date; `today` is a sandbox concept.
        async with self._slots:
            return await asyncio.to_thread(self._observe, query)

    def _observe(self, query: str) -> str:
        sf = _simple_salesforce()
        try:
            if query.startswith("FIND"):  # upstream routes SOSL on this exact prefix
                found = self.client.search(query)
                records = (found or {}).get("searchRecords", [])
            else:
                records = self.client.query_all(preprocess_soql(query))["records"]
        except sf.exceptions.SalesforceError as exc:
            return error_observation(exc)
        except OSError as exc:
            raise SalesforceUnavailable(f"cannot reach Salesforce: {exc}",
                                        hint="This task-trial is not scored; resume later "
                                             "with --resume.") from exc
        return sf_repr(connector_rows(list(records)))

    def describe(self) -> dict[str, Any]:
        return {"backend": "salesforce", "org": self.org,
                "max_concurrent_requests": self.max_concurrent}

    def close(self) -> None:
        session = getattr(self.client, "session", None)
        if session is not None:
            session.close()
