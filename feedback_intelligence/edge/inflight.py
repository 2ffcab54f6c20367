"""At most ``FI_MAX_INFLIGHT_LLM_PER_CLIENT`` LLM requests in flight per client (default 1), and at
most ``FI_MAX_INFLIGHT_LLM_PER_ADDRESS`` per address aggregate (default half the gate's slots), whatever
visitor keys that address holds.

The gate has a couple of slots for the whole room; without this, one clerk double-clicking
"Interpret" takes both and the rest of the room is shed. A second concurrent LLM request from the same
client (visitor key behind a trusted proxy, else address; the key the rate limit uses) is answered
429 at once, ``{"error": "too_many_inflight", ...}`` with ``Retry-After``; it never waits.

Which requests count: the POST routes the surface table marks ``llm`` (``/interpret``,
``/live/feedback``, ``/feedback``). A desk save with an accepted structure does not call the LLM but
counts too: telling the two apart would mean parsing the body out here, and a save is over in
milliseconds. Exempt like the rate limit: direct loopback operators and operator-token holders.

The counter sits behind :class:`InflightLimiter`: in-process now, and :class:`RedisInflight` for
replicas sharing a Redis: per client, a set of places that are leases (``FI_REDIS_LEASE_S``),
renewed while their request runs, so a replica killed mid-request frees its client's place within
the lease, the way the gate's slots come back (the client's retry through another replica is then
served, not refused as "still running").
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Callable
from typing import Protocol

from starlette.types import ASGIApp, Receive, Scope, Send

from feedback_intelligence.edge.asgi import send_json
from feedback_intelligence.edge.ratelimit import REDIS_TIMEOUT_S, ClientPolicy, CountHook, address_key, client_key
from feedback_intelligence.edge.surface import classify_scope
from feedback_intelligence.redis_leases import ACQUIRE, RELEASE, GiveBacks, LeaseKeeper, connect

log = logging.getLogger(__name__)

YOURS = "Your previous request to the language model is still running; wait for it before sending another."
YOUR_NETWORKS = (
    "As many requests to the language model as it serves at once are already running from your network; "
    "try again in a moment."
)


def visitor_of(scope: Scope, policy: ClientPolicy) -> str:
    """Whose fair share at the gate a request's LLM calls count against: its address's aggregate (an
    IPv6 /64), whatever visitor keys it holds, so minting keys buys no larger share; or a share of the
    operators' own (``operator:<key>``) for exempt callers. Any route may ask, whether or not this
    middleware wraps it; routes pass it to the gate in a ``CallContext`` (docs/adr/0020)."""
    if policy.exempt(scope):
        return f"operator:{client_key(scope)}"
    key = client_key(scope)
    # a signed-in person is a share of their own (accounts are not minted at will); anyone else counts
    # as their address's aggregate
    return key if key.startswith("person:") else address_key(scope)


class InflightLimiter(Protocol):
    async def acquire(self, key: str) -> bool:
        """Take one in-flight place for ``key`` if one is free; never waits."""
        ...

    async def release(self, key: str) -> None: ...

    async def aclose(self) -> None: ...


class LocalInflight:
    """In-flight places per client in this process: ``acquire`` takes one if fewer than ``limit`` are held."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held: dict[str, int] = {}

    async def acquire(self, key: str) -> bool:
        held = self._held.get(key, 0)
        if held >= self.limit:
            return False
        self._held[key] = held + 1
        return True

    async def release(self, key: str) -> None:
        held = self._held.get(key, 0) - 1
        if held > 0:
            self._held[key] = held
        else:
            self._held.pop(key, None)

    def held(self, key: str) -> int:
        return self._held.get(key, 0)

    async def aclose(self) -> None:
        return None


class RedisInflight:
    """The same limit in Redis, shared by replicas. Each place is a lease of ``expiry_s`` that this
    process renews while its request runs; a replica that dies stops renewing, and its places lapse
    within ``expiry_s`` (``FI_REDIS_LEASE_S``), not a whole call deadline later."""

    def __init__(self, url: str, limit: int, expiry_s: float, prefix: str = "fi-edge:inflight:") -> None:
        self.limit = limit
        self.expiry_s = expiry_s
        self.prefix = prefix
        self._lease_ms = max(1, int(expiry_s * 1000))
        self._redis = connect(url, REDIS_TIMEOUT_S)  # a dead pooled connection is retried on a fresh one
        self._acquire = self._redis.register_script(ACQUIRE)
        self._release = self._redis.register_script(RELEASE)
        self.keeper = LeaseKeeper(self._redis, self._lease_ms, what="in-flight place")
        self._held: dict[str, list[str]] = {}  # client key -> ids of the places this process holds
        self._give_backs = GiveBacks("in-flight place")
        self._unreleased: dict[str, set[str]] = {}  # client key -> places whose release failed (Redis away)

    async def acquire(self, key: str) -> bool:
        await self._release_unreleased(key)  # a place this client could not give back must not refuse it now
        place = uuid.uuid4().hex
        try:
            granted = await self._acquire(keys=[self.prefix + key], args=[place, self._lease_ms, self.limit])
        except Exception:
            # The script may have run with its reply lost: give back whatever it took, now or (Redis still
            # away) on this client's next acquire, or it would be refused as "still running" until the
            # lease ran out. Then fail as before (the middleware lets the request pass).
            try:
                await self._release(keys=[self.prefix + key], args=[place])
            except Exception:
                self._retry_release(key, place)
            raise
        if not granted:
            return False
        self._held.setdefault(key, []).append(place)
        self.keeper.hold(self.prefix + key, place)
        return True

    async def release(self, key: str) -> None:
        places = self._held.get(key)
        if not places:
            return
        place = places.pop()  # a client's places in one process are interchangeable
        if not places:
            del self._held[key]
        self.keeper.drop(self.prefix + key, place)
        try:
            await self._release(keys=[self.prefix + key], args=[place])
        except Exception:
            # Redis is away even after the client's reconnects (restarting): renew the place no longer and
            # keep trying in the background, so a Redis that kept it (persistence) frees it once back
            # instead of a whole lease (FI_REDIS_LEASE_S) later.
            self._retry_release(key, place)
            raise

    async def _release_unreleased(self, key: str) -> None:
        for place in list(self._unreleased.get(key, ())):
            with contextlib.suppress(Exception):
                await self._release(keys=[self.prefix + key], args=[place])
                self._forget_unreleased(key, place)

    def _forget_unreleased(self, key: str, place: str) -> None:
        places = self._unreleased.get(key)
        if places is not None:
            places.discard(place)
            if not places:
                del self._unreleased[key]

    def _retry_release(self, key: str, place: str) -> None:
        self._unreleased.setdefault(key, set()).add(place)
        self._give_backs.retry(
            lambda: self._release(keys=[self.prefix + key], args=[place]),
            self.expiry_s,  # past that the place has lapsed
            settled=lambda: place not in self._unreleased.get(key, ()),  # the client's next acquire gave it back
            then=lambda: self._forget_unreleased(key, place),
        )

    async def aclose(self) -> None:
        await self._give_backs.aclose()
        await self.keeper.aclose()
        await self._redis.aclose()


class InflightLimitMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        inflight: InflightLimiter,
        policy: ClientPolicy,
        retry_after_s: Callable[[], int] = lambda: 1,
        count: CountHook = lambda reason: None,
        per_address: InflightLimiter | None = None,
    ) -> None:
        self.app = app
        self.inflight = inflight
        self.per_address = per_address
        self.policy = policy
        self.retry_after_s = retry_after_s
        self.count = count

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        rule = classify_scope(scope).rule
        if rule is None or not rule.llm:
            await self.app(scope, receive, send)
            return
        if self.policy.exempt(scope):
            await self.app(scope, receive, send)  # operators and direct loopback callers: no limit
            return
        key, address = client_key(scope), address_key(scope)
        # a signed-in person is bounded per person: the per-address bound is for keys anyone can mint
        if self.per_address is None or key == address or key.startswith("person:"):
            await self._limited(self.inflight, key, scope, receive, send, self.app, YOURS)
            return

        async def within_the_address(scope: Scope, receive: Receive, send: Send) -> None:
            assert self.per_address is not None
            await self._limited(self.per_address, address, scope, receive, send, self.app, YOUR_NETWORKS)

        await self._limited(self.inflight, key, scope, receive, send, within_the_address, YOURS)

    async def _limited(
        self,
        inflight: InflightLimiter,
        key: str,
        scope: Scope,
        receive: Receive,
        send: Send,
        app: ASGIApp,
        message: str,
    ) -> None:
        try:
            admitted = await inflight.acquire(key)
        except Exception as exc:  # shared counter down: fail open, the gate still sheds
            log.warning("in-flight counter unavailable, request passes: %s", exc)
            await app(scope, receive, send)
            return
        if not admitted:
            self.count("inflight")
            retry = max(1, int(self.retry_after_s()))
            await send_json(
                send,
                429,
                {
                    "error": "too_many_inflight",
                    "retryAfterSeconds": retry,
                    "message": message,
                },
                [("Retry-After", str(retry))],
            )
            return
        try:
            await app(scope, receive, send)
        finally:
            try:
                await inflight.release(key)
            except Exception as exc:
                log.warning("could not release the in-flight place of %s: %s", key, exc)
