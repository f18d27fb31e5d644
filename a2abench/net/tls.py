"""One CA-verified TLS context per process and trust setting, shared by every HTTP client
a2abench builds; and what to say when an agent's certificate is not trusted.

httpx loads the whole CA bundle for each client it builds without one (~27 ms of CPU on the
development machine): the A2A client's pool lanes, each ChatLLM, the embeddings client and
the downloader would each pay it. A context is safe to share between clients and threads
once configured, and nothing here configures it further (no client certificates).

Trust, as httpx, curl and requests read it: `SSL_CERT_FILE` (a PEM bundle) or
`SSL_CERT_DIR` (a directory of hashed certificates) replaces the default bundle (certifi's);
`--ca-cert PATH` (`A2ABENCH_CA_CERT`, serve-green's `--ca-cert`) adds a private CA to it for
the agent's connections, which is what a staging deployment with an internal CA needs.
"""

from __future__ import annotations

import functools
import os
import ssl
from pathlib import Path

import httpx

from a2abench.errors import ConfigError

CA_HINT = ("If the agent's certificate comes from a private or self-signed CA, give that CA's "
           "certificate (PEM) with --ca-cert PATH (or A2ABENCH_CA_CERT, or SSL_CERT_FILE; "
           "serve-green: --ca-cert); else fix the agent's certificate chain or its host name.")


def verified_context(*, trust_env: bool = True, ca_cert: str | None = None) -> ssl.SSLContext:
    """The process's verifying context; with `trust_env`, SSL_CERT_FILE / SSL_CERT_DIR as
    httpx reads them, and `ca_cert` trusted besides (a changed setting gets a context of its
    own). A file that cannot be read is a ConfigError naming it."""
    if not trust_env:
        return _context(False, None, None, ca_cert)
    return _context(True, os.environ.get("SSL_CERT_FILE") or None,
                    os.environ.get("SSL_CERT_DIR") or None, ca_cert)


@functools.cache
def _context(trust_env: bool, cert_file: str | None, cert_dir: str | None,
             ca_cert: str | None) -> ssl.SSLContext:
    try:
        context = httpx.create_ssl_context(verify=True, trust_env=trust_env)
    except (OSError, ssl.SSLError) as exc:
        name = "SSL_CERT_FILE" if cert_file else "SSL_CERT_DIR"
        raise ConfigError(f"{name}={cert_file or cert_dir} cannot be read as CA certificates "
                          f"({_reason(exc)})",
                          hint=f"Point {name} at a PEM file of CA certificates (SSL_CERT_DIR: a "
                               "directory of them), or unset it.") from None
    if ca_cert is not None:
        load_ca(context, ca_cert)
    return context


def load_ca(context: ssl.SSLContext, path: str) -> None:
    """Trust the CA certificates of `path` (a PEM file, or a directory of hashed ones)."""
    try:
        if Path(path).is_dir():
            context.load_verify_locations(capath=path)
        else:
            context.load_verify_locations(cafile=path)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"--ca-cert {path} cannot be read as CA certificates "
                          f"({_reason(exc)})",
                          hint="Give a PEM file holding the CA certificate(s) that signed the "
                               "agent's certificate.") from None


def check_ca(path: str) -> None:
    """A ConfigError naming `path` unless it holds CA certificates (read into a scratch
    context: the shared ones are never changed after they are built)."""
    load_ca(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT), path)


def check_ca_file(path: str) -> str:
    """`path` if it holds CA certificates; ValueError naming the problem (the flag's check)."""
    try:
        check_ca(path)
    except ConfigError as exc:
        raise ValueError(exc.message.removeprefix(f"--ca-cert {path} ")) from None
    return path


def untrusted(exc: BaseException) -> str | None:
    """Why the peer's certificate was refused, when `exc` (or what raised it) is a failed
    certificate verification; None for any other failure."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return seen.verify_message or _reason(seen)
        seen = seen.__cause__ or seen.__context__
    text = str(exc)
    if "CERTIFICATE_VERIFY_FAILED" in text:  # httpx keeps only the message of the ssl error
        return text.partition("certificate verify failed: ")[2].partition(" (_ssl")[0] or text
    return None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLError) and exc.reason:
        return str(exc.reason)
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
