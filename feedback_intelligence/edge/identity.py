"""Who is calling: the TCP peer, or, behind a configured trusted proxy, the address the proxy saw.

Rules (docs/invariants.md, invariant 7):

- The client is the TCP peer, unless the peer is one of ``FI_TRUSTED_PROXIES``. Then the client is the
  right-most address of ``X-Forwarded-For`` that is not itself a trusted proxy (each trusted hop
  appends the address it saw, so everything left of the first untrusted entry is the client's own
  claim). ``X-Forwarded-Proto`` is believed from a trusted peer only.
- A forwarded header from anyone else is ignored: it neither changes the client address nor the bucket
  it is charged to.
- Fair shares, limits and visitor keys count an **aggregate**, not an address: an IPv6 client by its
  prefix (``FI_IPV6_PREFIX``, default /64, what one host or subscriber is given, so rotating through
  its addresses buys nothing), an IPv4 client by its address (``FI_IPV4_PREFIX``, default /32).
- ``is_direct_loopback`` is what operator routes and the rate-limit exemption trust. It holds only
  when the peer is a loopback address and *no* forwarding header came with the request, honoured or
  not. So a request relayed by a trusted proxy on the same host is not a loopback operator, and
  neither is one relayed by a loopback proxy somebody forgot to list in ``FI_TRUSTED_PROXIES``
  (fail closed: that proxy's visitors lose the exemption instead of gaining operator rights).

The middleware puts the result on ``scope["state"]`` (so ``request.state.client_ip`` etc. work) and
rewrites ``scope["client"]`` / ``scope["scheme"]`` in place, the way uvicorn's proxy-headers middleware
would but under our trust list (``feedctl serve`` turns uvicorn's off): everything inside, and uvicorn's
access log, which reads the server's own scope, see the client the trusted proxy named.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

from starlette.types import ASGIApp, Receive, Scope, Send

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

UNKNOWN_CLIENT = "unknown"

# Headers that only a proxy adds; any of them from a loopback peer means "not a direct caller".
FORWARDING_HEADERS = frozenset(
    {b"x-forwarded-for", b"x-forwarded-proto", b"x-forwarded-host", b"x-real-ip", b"forwarded"}
)

STATE_KEY = "client_identity"


def parse_ip(text: str) -> IPAddress | None:
    """An address as proxies write it: bare, ``v4:port``, ``[v6]`` or ``[v6]:port``; IPv4-mapped v6 unwrapped."""
    text = text.strip().strip('"')
    if text.startswith("["):
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:  # IPv4 with a port; a bare IPv6 has several colons
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


class TrustedProxies:
    """The configured proxy addresses and networks (``FI_TRUSTED_PROXIES``)."""

    def __init__(self, entries: Iterable[str]) -> None:
        self.networks = tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries if entry.strip())

    def __bool__(self) -> bool:
        return bool(self.networks)

    def __contains__(self, address: IPAddress | None) -> bool:
        if address is None:
            return False
        return any(address.version == net.version and address in net for net in self.networks)


@dataclass(frozen=True)
class ClientIdentity:
    client_ip: str  # the client's address ("unknown" if there is none)
    peer_ip: str | None  # the TCP peer as the server saw it
    via_proxy: bool  # a trusted proxy relayed this request and its forwarded-for was honoured
    scheme: str  # "https" when a trusted proxy says so, else the connection's own
    is_direct_loopback: bool  # peer is loopback, and nothing about the request says it was relayed
    aggregate: str = ""  # what limits and fair shares count: the address, or its IPv6 prefix


@dataclass(frozen=True)
class Aggregation:
    """How addresses aggregate: IPv6 by ``ipv6_prefix`` bits, IPv4 by ``ipv4_prefix`` bits."""

    ipv6_prefix: int = 64
    ipv4_prefix: int = 32

    def of(self, client_ip: str) -> str:
        """``2001:db8:1:2::/64`` for any address of that /64; ``192.0.2.7`` for an IPv4 host (a
        shorter IPv4 prefix reads ``192.0.2.0/24``); anything unparseable as it is."""
        address = parse_ip(client_ip)
        if address is None:
            return client_ip
        bits = self.ipv6_prefix if address.version == 6 else self.ipv4_prefix
        if bits == address.max_prefixlen:
            return str(address)
        return str(ipaddress.ip_network(f"{address}/{bits}", strict=False))


def _header_values(scope: Scope, name: bytes) -> list[str]:
    return [value.decode("latin-1") for key, value in scope.get("headers", ()) if key == name]


def resolve_identity(scope: Scope, trusted: TrustedProxies, aggregation: Aggregation | None = None) -> ClientIdentity:
    identity = _resolve(scope, trusted)
    return dataclasses.replace(identity, aggregate=(aggregation or Aggregation()).of(identity.client_ip))


def _resolve(scope: Scope, trusted: TrustedProxies) -> ClientIdentity:
    client = scope.get("client")
    peer_text = client[0] if client else None
    peer = parse_ip(peer_text) if peer_text else None
    scheme = scope.get("scheme", "http")
    forwarded_headers = any(key in FORWARDING_HEADERS for key, _ in scope.get("headers", ()))
    direct_loopback = peer is not None and peer.is_loopback and not forwarded_headers

    if peer is None or peer not in trusted or not forwarded_headers:
        # Not a trusted proxy, or a trusted proxy host talking for itself: the peer is the client.
        return ClientIdentity(
            str(peer) if peer else (peer_text or UNKNOWN_CLIENT), peer_text, False, scheme, direct_loopback
        )

    hops = [hop for value in _header_values(scope, b"x-forwarded-for") for hop in value.split(",") if hop.strip()]
    client_ip = str(peer)
    for hop in reversed(hops):
        address = parse_ip(hop)
        if address is None:
            # Garbage where an address should be: stop at the last hop we can vouch for (the proxy's
            # bucket), rather than let a made-up string open a fresh one.
            break
        client_ip = str(address)
        if address not in trusted:
            break
    protos = [p.strip().lower() for value in _header_values(scope, b"x-forwarded-proto") for p in value.split(",")]
    if protos and protos[-1] in ("http", "https"):
        scheme = protos[-1]
    return ClientIdentity(client_ip, peer_text, True, scheme, False)


class ClientIdentityMiddleware:
    """Resolves the caller once per request; everything inside reads ``scope["state"]``."""

    def __init__(self, app: ASGIApp, trusted: TrustedProxies, aggregation: Aggregation | None = None) -> None:
        self.app = app
        self.trusted = trusted
        self.aggregation = aggregation or Aggregation()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        identity = resolve_identity(scope, self.trusted, self.aggregation)
        state = scope.setdefault("state", {})
        state[STATE_KEY] = identity
        state["client_ip"] = identity.client_ip
        state["via_proxy"] = identity.via_proxy
        state["is_direct_loopback"] = identity.is_direct_loopback
        if identity.via_proxy:
            # On the server's own scope, not a copy: uvicorn's access line reads the client from it,
            # so the log names the client the proxy named, by this one rule (as uvicorn's proxy-headers
            # middleware does when it is on; feedctl serve turns it off).
            scope["client"] = (identity.client_ip, 0)
            scope["scheme"] = identity.scheme
        await self.app(scope, receive, send)


def identity_of(scope: Scope) -> ClientIdentity:
    """The identity resolved by :class:`ClientIdentityMiddleware` (which must sit outside the caller)."""
    return cast(ClientIdentity, scope["state"][STATE_KEY])
