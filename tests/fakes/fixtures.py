"""Fixtures around the fake LLM server. Import them into a conftest to use them:

    from tests.fakes.fixtures import llm, llm_config, llm_server, llm_server_session  # noqa

(`pytest_plugins` is not an option: pytest refuses it outside the top-level conftest.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from pydantic import SecretStr

from a2abench.llm import ChatLLM, LLMConfig, RetryPolicy
from tests.fakes.llm_server import FakeLLMServer
from tests.waits import HANG_S

TEST_API_KEY = "sk-test-0123456789abcdef"  # a made-up key the tests look for in outputs

# Real backoff shape, test-sized delays: 4 attempts. The attempts end a call, never the time
# budget: a loaded machine spent more than 2 s on four loopback requests (issue 35).
FAST_RETRY = RetryPolicy(max_attempts=4, base_delay_s=0.01, max_delay_s=0.05, budget_s=HANG_S)


@pytest.fixture(scope="session")
def llm_server_session() -> Iterator[FakeLLMServer]:
    # One server for the session: starting and stopping uvicorn costs ~0.2 s a test.
    server = FakeLLMServer()
    with server.running():
        yield server


@pytest.fixture
def llm_server(llm_server_session: FakeLLMServer) -> FakeLLMServer:
    """The running fake server, reset: empty script, no handler, nothing recorded.

    Its base URL ends in /v1. Tests that need a server of their own (e.g. to stop it) use
    `FakeLLMServer().running()` directly.
    """
    llm_server_session.reset()
    return llm_server_session


@pytest.fixture
def llm_config(llm_server: FakeLLMServer) -> LLMConfig:
    """gpt-4.1 (so prices are known) at the fake server, with fast retries and the cache on.
    The request timeout is a hang bound: tests of timeouts set their own."""
    return LLMConfig(model="gpt-4.1", base_url=llm_server.base_url,
                     api_key=SecretStr(TEST_API_KEY), args={"temperature": 0.0},
                     timeout_s=HANG_S, retry=FAST_RETRY)


@pytest.fixture
async def llm(llm_config: LLMConfig) -> AsyncIterator[ChatLLM]:
    async with ChatLLM(llm_config) as client:
        yield client
