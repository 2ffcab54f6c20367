"""Fair request limits (docs/invariants.md, invariant 8), on the ``limits`` library's async fixed window.

Buckets, per request that is not exempt:

- a direct client (no trusted proxy in between): its address (an IPv6 client: its /64),
  ``FI_RATE_LIMIT`` (default 30/60 s);
- behind a trusted proxy, with a valid signed visitor key: the visitor's own bucket
  (``FI_RATE_LIMIT``), and the audience ceiling of its forwarded address (``FI_AUDIENCE_RATE_LIMIT``,
  default 600/60 s: fifty desks behind one NAT address, ADR 0053), which every proxied request from
  that address is charged to; the page a key is issued on already counts as that key;
- behind a trusted proxy without a valid key (absent or forged): the address bucket, and the ceiling.

The client's own bucket is checked first and the ceiling is only charged for requests the client's
bucket admitted, so a visitor hammering after its own bucket ran dry does not eat the ceiling of the
others. Direct loopback callers are exempt when ``FI_RATE_LIMIT_EXEMPT_LOOPBACK`` is on (the
default), and so is a request carrying the valid operator token. A spoofed ``X-Forwarded-For`` from
an untrusted peer changes nothing (the identity layer ignores it).

Headers, on every response that went through a limit: ``RateLimit-Limit``, ``RateLimit-Remaining``,
``RateLimit-Reset`` (delta seconds) and ``RateLimit-Policy`` (``<limit>;w=<window seconds>``), the
fields of draft-ietf-httpapi-ratelimit-headers-06; they describe the bucket with the fewest requests
left. A 429 adds ``Retry-After`` (whole seconds until that bucket's window resets, at least 1) and a
JSON body ``{"error": "rate_limited", "reason": "client"|"audience", ...}``.

Storage: in-process memory, or Redis when ``FI_REDIS_URL`` is set (so replicas share the windows). A
storage failure lets the request through without limit headers and is logged: the limits are about
fairness, the GPU itself stays protected by the gate.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from limits import RateLimitItem, parse
from limits.aio.storage import Storage
from limits.aio.strategies import FixedWindowRateLimiter
from limits.storage import storage_from_string
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from feedback_intelligence.auth.principal import principal_of
from feedback_intelligence.edge.asgi import send_json
from feedback_intelligence.edge.identity import identity_of
from feedback_intelligence.edge.surface import Kind, OperatorAuth, classify_scope
from feedback_intelligence.edge.visitor import STATE_KEY as VISITOR_STATE_KEY

log = logging.getLogger(__name__)

CountHook = Callable[[str], None]
REDIS_TIMEOUT_S = 0.5


def build_storage(redis_url: str | None) -> Storage:
    """Memory, or the Redis at ``FI_REDIS_URL`` through redis-py (the client the gate uses too)."""
    if redis_url:
        # short timeouts: an unreachable Redis must fail fast (and open), not stall every request
        storage = storage_from_string(
            f"async+{redis_url}",
            implementation="redispy",
            key_prefix="fi-edge",
            socket_timeout=REDIS_TIMEOUT_S,
            socket_connect_timeout=REDIS_TIMEOUT_S,
        )
    else:
        storage = storage_from_string("async+memory://")
    assert isinstance(storage, Storage)
    return storage


def client_key(scope: Scope) -> str:
    """The bucket a request belongs to: the signed-in person; else its signed visitor key behind a
    trusted proxy, else its address's aggregate (an IPv6 /64; edge/identity.py).

    The in-flight limit uses the same key, so "one client" means the same thing to both."""
    identity = identity_of(scope)
    principal = principal_of(scope)
    if principal is not None:  # a signed-in person is one client wherever they sign in from
        return f"person:{principal.account_id}"
    visitor_id = scope["state"].get(VISITOR_STATE_KEY)
    if identity.via_proxy and visitor_id:
        return f"visitor:{visitor_id}"
    return address_key(scope)


def address_key(scope: Scope) -> str:
    """The aggregate a request comes from, whatever keys it holds: the audience ceiling, the in-flight
    limit per address and the gate's fair share count this."""
    return f"client:{identity_of(scope).aggregate or identity_of(scope).client_ip}"


class ClientPolicy:
    """Who the per-client limits (rate and in-flight) do not apply to."""

    def __init__(self, auth: OperatorAuth, exempt_loopback: bool) -> None:
        self.auth = auth
        self.exempt_loopback = exempt_loopback

    def exempt(self, scope: Scope) -> bool:
        if self.exempt_loopback and identity_of(scope).is_direct_loopback:
            return True
        route = classify_scope(scope)
        if route.public and route.kind is Kind.ASSET:
            # Static files are cheap and cached; counting them would let one page load of a dozen
            # assets spend a third of a visitor's window before the first API call.
            return True
        return self.auth.token_ok(scope)


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str  # the bucket described: "client" or "audience"
    limit: int
    remaining: int
    reset_s: int  # whole seconds until that bucket's window resets
    window_s: int

    def headers(self) -> list[tuple[str, str]]:
        return [
            ("RateLimit-Limit", str(self.limit)),
            ("RateLimit-Remaining", str(self.remaining)),
            ("RateLimit-Reset", str(self.reset_s)),
            ("RateLimit-Policy", f"{self.limit};w={self.window_s}"),
        ]


class EdgeRateLimiter:
    """Fixed-window limits per client, under a ceiling per audience (docs/invariants.md, invariant 8).

    ``charge`` counts one request against the client's window and, behind a shared proxy, against the
    audience of its source address; the verdict is the first limit that refuses, else the tighter of
    the two. Storage errors propagate: the middleware decides to fail open.
    """

    def __init__(
        self, storage: Storage, per_client: str, audience: str, clock: Callable[[], float] = time.time
    ) -> None:
        self.storage = storage
        self.strategy = FixedWindowRateLimiter(storage)
        self.per_client: RateLimitItem = parse(per_client)
        self.audience: RateLimitItem = parse(audience)
        self.clock = clock

    async def _charge(self, item: RateLimitItem, key: str, reason: str) -> Verdict:
        allowed = await self.strategy.hit(item, key)
        stats = await self.strategy.get_window_stats(item, key)
        reset_s = max(1, math.ceil(stats.reset_time - self.clock()))
        return Verdict(allowed, reason, item.amount, stats.remaining, reset_s, item.get_expiry())

    async def charge(self, key: str, audience_key: str | None) -> Verdict:
        own = await self._charge(self.per_client, key, "client")
        if not own.allowed or audience_key is None:
            return own
        ceiling = await self._charge(self.audience, audience_key, "audience")
        if not ceiling.allowed:
            return ceiling
        return own if own.remaining <= ceiling.remaining else ceiling


class IssueLimit:
    """How many new visitor keys one aggregate may be issued per window (``FI_VISITOR_ISSUE_LIMIT``),
    on the same storage as the rate limits; a storage failure allows (the keys are about fairness)."""

    def __init__(self, storage: Storage, limit: str) -> None:
        self.strategy = FixedWindowRateLimiter(storage)
        self.item: RateLimitItem = parse(limit)

    async def __call__(self, aggregate: str) -> bool:
        try:
            return bool(await self.strategy.hit(self.item, f"visitor-issue:{aggregate}"))
        except Exception as exc:
            log.warning("visitor-key issuance limit unavailable, issuing: %s", exc)
            return True


class RateLimitMiddleware:
    def __init__(
        self, app: ASGIApp, limiter: EdgeRateLimiter, policy: ClientPolicy, count: CountHook = lambda reason: None
    ) -> None:
        self.app = app
        self.limiter = limiter
        self.policy = policy
        self.count = count
        self._last_storage_warning = 0.0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.policy.exempt(scope):
            await self.app(scope, receive, send)
            return
        identity = identity_of(scope)
        audience_key = f"audience:{identity.aggregate or identity.client_ip}" if identity.via_proxy else None
        try:
            verdict = await self.limiter.charge(client_key(scope), audience_key)
        except Exception as exc:  # storage down: fail open (the gate still guards the GPU)
            self._warn_storage(exc)
            await self.app(scope, receive, send)
            return
        headers = verdict.headers()
        if not verdict.allowed:
            self.count(verdict.reason)
            await send_json(
                send,
                429,
                {
                    "error": "rate_limited",
                    "reason": verdict.reason,
                    "retryAfterSeconds": verdict.reset_s,
                    "message": f"Too many requests right now; try again in {verdict.reset_s} s.",
                },
                [*headers, ("Retry-After", str(verdict.reset_s))],
            )
            return
        encoded = [(k.lower().encode(), v.encode()) for k, v in headers]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *encoded]}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _warn_storage(self, exc: Exception) -> None:
        now = time.monotonic()
        if now - self._last_storage_warning > 30:
            self._last_storage_warning = now
            log.warning("rate-limit storage unavailable, requests pass unlimited: %s", exc)
