"""The gateway's a2a-sdk 0.3 client, one process for the session's gateway tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.agentbeats.gateway import Gateway, open_gateway


@pytest.fixture(scope="session")
def gateway() -> Iterator[Gateway]:
    try:
        client = open_gateway()
    except RuntimeError as exc:
        pytest.skip(f"the gateway's a2a-sdk 0.3 client is unavailable: {exc}")
    try:
        yield client
    finally:
        client.close()
