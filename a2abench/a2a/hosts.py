"""Which hosts the A2A client may contact (`serve-green --allow-host`), checked on every
request, redirects and card-advertised interfaces included."""

from __future__ import annotations

import fnmatch
import ipaddress
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
