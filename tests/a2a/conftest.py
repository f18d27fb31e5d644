"""The lean client's tests run over http and over https (tests/a2a/test_h1*.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.asyncio_agent import PrivateCA

# The CA of the scripted servers while a test runs them over TLS (`over_tls`), else None.
TLS: list[PrivateCA | None] = [None]


@pytest.fixture
def over_tls(request: pytest.FixtureRequest, tmp_path: Path,
             monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Parametrized with "http" and "https": the scripted servers (and every client, through
    SSL_CERT_FILE, as a user would trust a private CA) speak that."""
    scheme = str(request.param)
    if scheme == "https":
        ca = PrivateCA(tmp_path)
        monkeypatch.setenv("SSL_CERT_FILE", str(ca.pem))
        TLS[0] = ca
    try:
        yield scheme
    finally:
        TLS[0] = None
