"""One verifying TLS context per trust setting for the httpx clients tests build themselves.

httpx loads the whole CA bundle (~30 ms of CPU) for every client made without a context, and
the tests make a few hundred of them against loopback servers (`httpx.get`, polling clients).
The product's own clients already share one context (a2abench/net/tls.py), which this leaves
alone: only httpx's transports, and only the default case (`verify=True`, no client
certificate), get the shared context; SSL_CERT_FILE / SSL_CERT_DIR are part of its key.
"""

from __future__ import annotations

import functools
import os
import ssl
from typing import Any

import httpx._transports.default as transports

_ORIGINAL = transports.create_ssl_context


@functools.cache
def _default(cert_file: str | None, cert_dir: str | None, trust_env: bool) -> ssl.SSLContext:
    return _ORIGINAL(verify=True, trust_env=trust_env)


def _create(verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
    if verify is True and cert is None:
        env = os.environ if trust_env else {}
        return _default(env.get("SSL_CERT_FILE") or None, env.get("SSL_CERT_DIR") or None,
                        trust_env)
    return _ORIGINAL(verify=verify, cert=cert, trust_env=trust_env)


def share_default_contexts() -> None:
    transports.create_ssl_context = _create  # type: ignore[assignment]
