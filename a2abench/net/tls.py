"""One CA-verified TLS context per process, shared by every HTTP client a2abench builds.

httpx loads the whole CA bundle for each client it builds without one (~27 ms of CPU on the
development machine): the A2A client's pool lanes, each ChatLLM, the embeddings client and
the downloader would each pay it. A context is safe to share between clients and threads
once configured, and nothing here configures it further (no client certificates).
"""

from __future__ import annotations

import functools
import os
import ssl

import httpx


def verified_context(*, trust_env: bool = True) -> ssl.SSLContext:
    """The process's verifying context; with `trust_env`, SSL_CERT_FILE / SSL_CERT_DIR as
    httpx reads them (a changed variable gets a context of its own)."""
    if not trust_env:
        return _context(False, None, None)
    return _context(True, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.cache
def _context(trust_env: bool, _cert_file: str | None, _cert_dir: str | None) -> ssl.SSLContext:
    return httpx.create_ssl_context(verify=True, trust_env=trust_env)
