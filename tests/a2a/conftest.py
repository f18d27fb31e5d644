"""The lean client's tests run over http and over https (tests/a2a/test_h1*.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.asyncio_agent import PrivateCA

# The CA of the scripted servers while a test runs them over TLS (`over_tls`), else None.
TLS: list[PrivateCA | None] = [None]


@pytest.fixture(scope="session")
def _private_ca(tmp_path_factory: pytest.TempPathFactory) -> PrivateCA:
    """One CA for the process's https cases: a CA and certificate made per test (and the
    client context each new SSL_CERT_FILE path gets) cost more than the test itself."""
    return PrivateCA(tmp_path_factory.mktemp("over-tls"))


@pytest.fixture
def over_tls(request: pytest.FixtureRequest, _private_ca: PrivateCA,
             monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Parametrized with "http" and "https": the scripted servers (and every client, through
    SSL_CERT_FILE, as a user would trust a private CA) speak that."""
    scheme = str(request.param)
    if scheme == "https":
        ca = _private_ca
        monkeypatch.setenv("SSL_CERT_FILE", str(ca.pem))
        TLS[0] = ca
    try:
        yield scheme
    finally:
        TLS[0] = None
