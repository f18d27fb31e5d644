"""An https agent whose certificate comes from a private CA (issue 39): refused with an error
that says what to do, trusted through SSL_CERT_FILE or --ca-cert, never retried in vain."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from a2abench.a2a.client import A2AClient
from a2abench.a2a.config import A2AConfig
from a2abench.a2a.metrics import ProtocolMetrics
from a2abench.a2a.transport import JsonRpcTransport
from a2abench.errors import AgentUnreachable, ConfigError
from a2abench.green.settings import GreenSettings
from a2abench.net.retry import RetryPolicy
from a2abench.net.tls import verified_context
from a2abench.options import request_keys
from a2abench.run import RunConfig
from tests.asyncio_agent import EchoAgent, PrivateCA, serving, serving_in_thread
from tests.clihelp import run_cli


@pytest.fixture
def ca(tmp_path: Path) -> PrivateCA:
    return PrivateCA(tmp_path)


async def test_an_untrusted_certificate_says_what_to_do(ca: PrivateCA,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    async with serving(EchoAgent(), tls=ca) as agent, \
            A2AClient(A2AConfig.create(agent.url)) as client:
        with pytest.raises(AgentUnreachable) as caught:
            await client.card()
    error = caught.value
    assert "TLS certificate is not trusted (CERTIFICATE_VERIFY_FAILED: " in error.message
    assert error.hint is not None and "--ca-cert PATH" in error.hint
    assert "SSL_CERT_FILE" in error.hint


async def test_an_untrusted_certificate_is_not_retried(ca: PrivateCA) -> None:
    attempts: list[ProtocolMetrics] = []
    retry = RetryPolicy(max_attempts=4, base_delay_s=0.001, max_delay_s=0.01, budget_s=5)
    async with serving(EchoAgent(), tls=ca) as agent, \
            httpx.AsyncClient(verify=verified_context(trust_env=False)) as http:
        rpc = JsonRpcTransport(http, agent.url, "0.3", retry=retry, on_request=attempts.append)
        with pytest.raises(AgentUnreachable, match="not trusted"):
            await rpc.call("message/send", {"message": {}})
    assert len(attempts) == 1


async def _echo(config: A2AConfig) -> str:
    async with A2AClient(config) as client:
        return (await client.conversation().send("hi")).text


async def test_ssl_cert_file_is_honoured_as_httpx_reads_it(
        ca: PrivateCA, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(ca.pem))
    async with serving(EchoAgent(), tls=ca) as agent:
        assert await _echo(A2AConfig.create(agent.url)) == "echo: hi"


async def test_ca_cert_trusts_the_private_ca_besides_the_default_bundle(
        ca: PrivateCA, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    async with serving(EchoAgent(), tls=ca) as agent:
        assert await _echo(A2AConfig.create(agent.url, ca_cert=str(ca.pem))) == "echo: hi"
    default = verified_context().cert_store_stats()["x509_ca"]
    assert verified_context(ca_cert=str(ca.pem)).cert_store_stats()["x509_ca"] == default + 1


def test_a_ca_cert_that_is_not_certificates_is_a_usage_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    for path in (junk, tmp_path / "missing.pem"):
        with pytest.raises(ConfigError, match=r"ca_cert cannot be read as CA certificates"):
            A2AConfig.create("https://127.0.0.1:9", ca_cert=str(path))
        with pytest.raises(ConfigError, match=rf"--ca-cert {path} cannot be read"):
            GreenSettings(ca_cert=path)


def test_an_unreadable_ssl_cert_file_is_a_usage_error(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    with pytest.raises(ConfigError, match="SSL_CERT_FILE=.*missing.pem cannot be read") as caught:
        verified_context()
    assert caught.value.hint is not None and "unset it" in caught.value.hint


def test_ca_cert_is_the_operators_never_a_requests() -> None:
    assert "ca_cert" in RunConfig.model_fields
    assert "ca_cert" not in request_keys(RunConfig)


def test_discover_with_and_without_ca_cert(ca: PrivateCA,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    with serving_in_thread(EchoAgent(), tls=ca) as agent:
        refused = run_cli("discover", agent.url)
        trusted = run_cli("discover", agent.url, "--ca-cert", str(ca.pem), "--json")
    assert refused.code == 1
    assert "not trusted" in refused.err and "--ca-cert" in refused.err
    assert trusted.code == 0, trusted.err
    assert trusted.json()["probe"]["ok"] is True
    bad = run_cli("discover", "https://127.0.0.1:9/", "--ca-cert", str(ca.pem) + ".missing")
    assert bad.code == 2 and "cannot be read as CA certificates" in bad.err

