"""Each peer's share of the HTTP server's connections (``FI_MAX_CONNECTIONS_PER_ADDRESS``).

The server's cap (``FI_MAX_CONNECTIONS``) is global: without a share, one address holding 300 silent
or trickling sockets takes every place and ``/livez`` answers ``503`` to everyone else. With it, a
peer holds at most its share; the connection past it is answered ``429 too_many_connections`` and
closed at once, so a slowloris that reconnects gains nothing and costs one accept per attempt.

A peer is its address; IPv6 counts by its /64 (one host usually owns a whole /64, and rotating within
it must not buy more places). Exempt (``FI_CONNECTION_SHARE_EXEMPT``, default the host's own
``127.0.0.1`` and ``::1``) and every ``FI_TRUSTED_PROXIES`` entry: a proxy carries many clients on
its connections, and the host's own tools (``feedctl crowd``, benchmarks) may open many.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from feedback_intelligence.edge.identity import TrustedProxies, parse_ip

IPV6_PREFIX = 64

REFUSAL_BODY = (
    b'{"error":"too_many_connections","retryAfterSeconds":1,'
    b'"message":"Too many open connections from your address; close some and try again."}'
)
REFUSAL = (
    b"HTTP/1.1 429 Too Many Requests\r\n"
    b"content-type: application/json\r\n"
    b"retry-after: 1\r\n"
    b"connection: close\r\n"
    b"content-length: " + str(len(REFUSAL_BODY)).encode() + b"\r\n\r\n" + REFUSAL_BODY
)


def peer_of(host: str) -> str | None:
    """The key a connection from ``host`` counts under: the IPv4 address or the IPv6 /64."""
    address = parse_ip(host)
    if address is None:
        return None  # a Unix socket or something without an address: nothing to share out
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network(f"{address}/{IPV6_PREFIX}", strict=False))
    return str(address)


class ConnectionShare:
    """Open connections per peer, in this process; ``admit`` counts one if the peer is under its share."""

    def __init__(self, limit: int, exempt: Iterable[str]) -> None:
        self.limit = limit
        self.exempt = TrustedProxies(exempt)
        self._open: dict[str, int] = {}

    def counted_key(self, host: str) -> str | None:
        """The key ``host`` counts under, or ``None`` when it is exempt (or has no address)."""
        address = parse_ip(host)
        if address is None or address in self.exempt:
            return None
        return peer_of(host)

    def take(self, key: str) -> bool:
        """Count one more connection under ``key`` if it is below its share; never waits."""
        held = self._open.get(key, 0)
        if held >= self.limit:
            return False
        self._open[key] = held + 1
        return True

    def release(self, key: str) -> None:
        held = self._open.get(key, 0) - 1
        if held > 0:
            self._open[key] = held
        else:
            self._open.pop(key, None)

    def held(self, host: str) -> int:
        key = peer_of(host)
        return self._open.get(key, 0) if key else 0
