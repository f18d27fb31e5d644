"""Test doubles that speak real wire protocols on loopback (see llm_server.py)."""

from tests.fakes.llm_server import FakeLLMServer, RecordedRequest, Reply, completion, error_body

__all__ = ["FakeLLMServer", "RecordedRequest", "Reply", "completion", "error_body"]
