"""Which hosts a2abench may contact (`--allow-host`, `serve-green --allow-host`), checked on
every request to the agent (redirects and card-advertised interfaces included) and, while a
run holds a policy (`egress_policy`), on a2abench's own other requests: data downloads,
upstream prompt files, the Hugging Face hub, the Salesforce login."""

from __future__ import annotations

import fnmatch
import ipaddress
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from urllib.parse import urlsplit


class HostPolicy:
    """`--allow-host` patterns: a glob on the host name (`*.example.com`, `agent`), a glob on
    `host:port` (`agent:9019`), or an IP network (`10.0.0.0/8`). No pattern allows any host.

    Patterns match the URL as written (no DNS resolution), so allow names you control.
    """

    def __init__(self, patterns: tuple[str, ...] | list[str] = ()) -> None:
        self.patterns = tuple(p.strip().lower() for p in patterns if p.strip())
        self._networks = [net for net in map(_network, self.patterns) if net is not None]

    @property
    def open(self) -> bool:
        return not self.patterns

    def allows(self, url: str) -> bool:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if not host:
            return False
        if self.open:
            return True
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return False
        hostport = f"{host}:{port}"
        for pattern in self.patterns:
            target = hostport if _has_port(pattern) else host
            if fnmatch.fnmatchcase(target, pattern):
                return True
        address = _address(host)
        return address is not None and any(address in net for net in self._networks)


def policy_for(allowed: list[str] | tuple[str, ...], agent_url: str) -> HostPolicy | None:
    """A run's policy: `allowed` (--allow-host) plus the agent URL's own host:port (only that
    port: a serve-green pattern may name one port of a host). None when nothing is allowed
    explicitly: no policy, any host."""
    if not allowed:
        return None
    parts = urlsplit(agent_url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = None
    own = f"{parts.hostname}:{port}" if parts.hostname and port else None
    return HostPolicy([*allowed, own] if own else list(allowed))


# serve-green's `--allow-host @participants`: each assessment may contact the hosts of its own
# participants and nothing else (the image's default: a card pointing at a cloud metadata
# address is refused). It admits any participant; other patterns still restrict which.
PARTICIPANTS = "@participants"


def participant_hosts(urls: Iterable[str]) -> list[str]:
    """Patterns matching exactly the hosts of `urls` (any port): a name, or an address as a
    one-address network."""
    out = []
    for url in urls:
        host = urlsplit(url).hostname
        address = _address(host or "")
        if address is not None:
            out.append(f"{address}/{address.max_prefixlen}")
        elif host:
            out.append(re.sub(r"([*?\[\]])", r"[\1]", host))  # a name, never a glob
    return out


def pattern_problem(pattern: str) -> str | None:
    """Why an --allow-host pattern is malformed (None when it is fine): a pattern with a `/`
    is an IP network, so `10.0.0.0/99` would otherwise silently allow nothing."""
    if not pattern.strip():
        return "an empty --allow-host pattern"
    if "/" in pattern and _network(pattern) is None:
        return f"--allow-host {pattern!r} is not an IP network (write it like 10.0.0.0/8)"
    return None


def _has_port(pattern: str) -> bool:
    head, sep, tail = pattern.rpartition(":")
    return bool(sep) and bool(head) and (tail.isdigit() or tail == "*") and "/" not in pattern


def _network(pattern: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    if "/" not in pattern:
        return None
    try:
        return ipaddress.ip_network(pattern, strict=False)
    except ValueError:
        return None


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


_egress: ContextVar[HostPolicy | None] = ContextVar("a2abench_egress", default=None)


@contextmanager
def egress_policy(policy: HostPolicy | None) -> Iterator[None]:
    """Bind a2abench's own outbound requests in this context to `policy` (None: any host)."""
    token = _egress.set(policy)
    try:
        yield
    finally:
        _egress.reset(token)


def egress_refusal(url: str, what: str) -> str | None:
    """Why `what` may not fetch `url` under the current policy, or None when it may.

    The LLM endpoints are not checked: the operator names them, and they are not reached
    because of anything an agent says."""
    policy = _egress.get()
    if policy is None or policy.open or policy.allows(url):
        return None
    host = urlsplit(url).hostname or url
    return (f"{what} needs {host}, which is not an allowed host (--allow-host "
            f"{' '.join(policy.patterns)})")
