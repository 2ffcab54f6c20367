"""A signed visitor key, so visitors behind one shared proxy address keep buckets of their own.

The pages (and ``/schema``) hand each browser a random id signed with HMAC-SHA256 under a server
secret (``FI_VISITOR_SECRET``; generated at start-up when unset, in which case keys die with the
process and replicas behind one balancer must share a configured secret). A key that is absent or
does not verify is simply not used: the request falls back to its address bucket. The key only earns
a bucket of its own behind a trusted proxy, and always under the audience ceiling of its address
(see :mod:`feedback_intelligence.edge.ratelimit`), so minting many keys buys no more than that ceiling.

A key costs something to rotate (ADR 0032): it is bound to the aggregate it was issued to (the
address, or its IPv6 /64; edge/identity.py) and to its issue time, and is not used from another
aggregate or after ``COOKIE_MAX_AGE_S``; one aggregate is issued at most ``FI_VISITOR_ISSUE_LIMIT``
new keys per window (past it, pages are served without one and its requests count as the address). The
request a key is issued on already counts as that key.
The gate's fair share is the aggregate's, whatever keys it holds (edge/inflight.py ``visitor_of``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
from collections.abc import Awaitable, Callable
from http.cookies import SimpleCookie

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from feedback_intelligence.edge.asgi import header
from feedback_intelligence.edge.identity import identity_of
from feedback_intelligence.edge.surface import classify_scope
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock

log = logging.getLogger(__name__)

COOKIE_NAME = "fi_visitor"
COOKIE_MAX_AGE_S = 30 * 24 * 3600
_VERSION = "v2"  # v2: bound to the issuing aggregate and time; a v1 key no longer verifies
STATE_KEY = "visitor_id"

IssueAllowed = Callable[[str], Awaitable[bool]]


async def _always(_aggregate: str) -> bool:
    return True


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class VisitorKeys:
    def __init__(self, secret: str | None, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self._clock = clock  # a key's issue time and its age
        if secret:
            self._secret = secret.encode()
            self.generated = False
        else:
            self._secret = secrets.token_bytes(32)
            self.generated = True
            log.warning(
                "FI_VISITOR_SECRET is unset: visitor keys are signed with a secret generated at start-up; "
                "they end with this process, and replicas must share a configured FI_VISITOR_SECRET"
            )

    def _sign(self, visitor_id: str, issued_s: int, aggregate: str) -> str:
        message = f"fi-visitor:{_VERSION}:{visitor_id}:{issued_s}:{aggregate}".encode()
        return _b64(hmac.new(self._secret, message, hashlib.sha256).digest()[:18])

    def issue(self, aggregate: str, now_s: float | None = None) -> tuple[str, str]:
        """A fresh ``(visitor_id, cookie_value)`` bound to ``aggregate`` (edge/identity.py) and to now."""
        visitor_id = _b64(secrets.token_bytes(16))
        issued_s = int(self._clock.now().timestamp() if now_s is None else now_s)
        return visitor_id, f"{_VERSION}.{visitor_id}.{issued_s}.{self._sign(visitor_id, issued_s, aggregate)}"

    def verify(self, value: str | None, aggregate: str, now_s: float | None = None) -> str | None:
        """The visitor id a cookie value carries, or None if it is absent, malformed, forged, presented
        from another aggregate than it was issued to, or older than ``COOKIE_MAX_AGE_S``."""
        if not value:
            return None
        parts = value.split(".")
        if len(parts) != 4 or parts[0] != _VERSION or not parts[1] or len(parts[1]) > 64 or not parts[2].isdigit():
            return None
        issued_s = int(parts[2])
        age_s = (self._clock.now().timestamp() if now_s is None else now_s) - issued_s
        if not 0 <= age_s <= COOKIE_MAX_AGE_S + 60:  # a minute of clock skew between replicas
            return None
        if not hmac.compare_digest(parts[3].encode(), self._sign(parts[1], issued_s, aggregate).encode()):
            return None
        return parts[1]


def cookie_value(scope: Scope, name: str = COOKIE_NAME) -> str | None:
    raw = header(scope, b"cookie")
    if raw is None:
        return None
    jar = SimpleCookie()
    try:
        jar.load(raw.decode("latin-1"))
    except Exception:  # a mangled Cookie header is the visitor's problem, not a 500
        return None
    morsel = jar.get(name)
    return morsel.value if morsel else None


class VisitorKeyMiddleware:
    """Reads the visitor key into ``scope["state"]``; pages hand out a new one when the caller has none."""

    def __init__(self, app: ASGIApp, keys: VisitorKeys, issue_allowed: IssueAllowed = _always) -> None:
        self.app = app
        self.keys = keys
        self.issue_allowed = issue_allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        aggregate = identity_of(scope).aggregate
        visitor_id = self.keys.verify(cookie_value(scope), aggregate)
        scope.setdefault("state", {})[STATE_KEY] = visitor_id
        rule = classify_scope(scope).rule
        if visitor_id is not None or rule is None or not rule.visitor or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        if not await self.issue_allowed(aggregate):
            await self.app(scope, receive, send)  # served, without a key: it counts as its address
            return

        # The request that is issued a key is that key's first: charged to its bucket, not to the address's,
        # or fifty desks opening behind one NAT address would share one bucket on their first page load
        # (the issue limit above is what bounds the keys an address gets).
        visitor_id, value = self.keys.issue(aggregate)
        scope["state"][STATE_KEY] = visitor_id
        attributes = f"{COOKIE_NAME}={value}; Path=/; Max-Age={COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Lax"
        if identity_of(scope).scheme == "https":
            attributes += "; Secure"

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and 200 <= message["status"] < 400:
                message = {
                    **message,
                    "headers": [*message.get("headers", []), (b"set-cookie", attributes.encode("latin-1"))],
                }
            await send(message)

        await self.app(scope, receive, send_with_cookie)
