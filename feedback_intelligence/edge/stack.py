"""The edge, composed in one place. All layers are pure ASGI (BaseHTTPMiddleware would break the
routes' client-disconnect detection), listed here from the outside in:

0. RequestId        asgi-correlation-id: the caller's ``X-Request-ID`` or a new one, echoed on every
                    answer and on every log line of the request (edge/request_id.py).
0b. HttpMetrics     requests and latency by route template, method and status in ``/metrics``, the
                    refusals of every layer below included (edge/http_metrics.py).
1. ClientIdentity   who is calling: the TCP peer, or behind a trusted proxy its forwarded-for; the
                    rest of the stack reads the result from ``scope["state"]``, and uvicorn's access
                    log the client it writes on the scope.
2. SecurityHeaders  nosniff, referrer policy, frame denial and a CSP by route kind, on every answer
                    below it, the edge's own 400/403/404/413/429 included.
3. AllowedHosts     Starlette's TrustedHostMiddleware over ``FI_ALLOWED_HOSTS`` (default: the listen
                    host and the loopback names): a request for another name (DNS rebinding) is 400.
4. CORS             (only when ``FI_CORS_ORIGINS`` is set) answers preflights, and puts the allow /
                    expose headers on everything below it, so a browser on an allowed origin can read
                    ``Retry-After`` and the RateLimit fields of a 429.
5. CrossSiteGuard   a state-changing request from another site's page (``Origin``,
                    ``Sec-Fetch-Site``) is 403; programs that send neither pass.
6. VisitorKey       reads the signed visitor key; page responses hand out a new one when missing.
6b. People          (FI_AUTH other than none, ADR 0030) the signed-in person from the session cookie
                    or a trusted proxy's identity header; a state-changing request with a person's
                    browser credentials and no CSRF token is 403 here.
7. RateLimit        per-client / per-visitor fixed window under the audience ceiling; 429 here.
                    Before the surface check, so probing hidden paths is charged like anything else.
8. RouteSurface     public routes pass; operator routes only for direct loopback or the token;
                    anything else is the app's ordinary 404. With FI_AUTH on, the table's roles
                    column decides public routes (401 anonymous, 403 without the role).
9. BodyLimit        reads at most ``FI_MAX_BODY_BYTES`` (a bulk import ``FI_BATCH_MAX_BODY_BYTES``; 413
                    beyond) before anything parses the body; inside the cheap refusals above so they
                    never read a body at all.
10. InflightLimit   one LLM request in flight per client, and at most half the gate's slots per
                    address aggregate; released when the route finishes, fails or is cancelled by a
                    client disconnect.
→ the FastAPI app (its exception handlers, then the router).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware

from feedback_intelligence.auth.people import People
from feedback_intelligence.config import GateSettings, Settings
from feedback_intelligence.edge import request_id
from feedback_intelligence.edge.body_limit import BodyLimitMiddleware
from feedback_intelligence.edge.headers import SecurityHeadersMiddleware
from feedback_intelligence.edge.http_metrics import HttpMetricsMiddleware
from feedback_intelligence.edge.identity import Aggregation, ClientIdentityMiddleware, TrustedProxies
from feedback_intelligence.edge.inflight import InflightLimiter, InflightLimitMiddleware, LocalInflight, RedisInflight
from feedback_intelligence.edge.origin import CrossSiteGuardMiddleware
from feedback_intelligence.edge.people import PeopleMiddleware
from feedback_intelligence.edge.ratelimit import (
    ClientPolicy,
    EdgeRateLimiter,
    IssueLimit,
    RateLimitMiddleware,
    build_storage,
)
from feedback_intelligence.edge.surface import OperatorAuth, RouteSurfaceMiddleware
from feedback_intelligence.edge.visitor import VisitorKeyMiddleware, VisitorKeys
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.metrics import Metrics

log = logging.getLogger(__name__)

RATE_LIMIT_HEADERS = ("Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy")


@dataclass
class Edge:
    trusted: TrustedProxies
    auth: OperatorAuth
    policy: ClientPolicy
    visitors: VisitorKeys
    limiter: EdgeRateLimiter
    inflight: InflightLimiter
    per_address: InflightLimiter
    aggregation: Aggregation
    issue_limit: IssueLimit
    people: People

    async def aclose(self) -> None:
        await self.inflight.aclose()
        await self.per_address.aclose()


def build_edge(
    settings: Settings,
    *,
    inflight: InflightLimiter | None = None,
    limiter: EdgeRateLimiter | None = None,
    clock: Clock = SYSTEM_CLOCK,
) -> Edge:
    """The edge's parts; ``clock`` dates visitor keys and ages the people layer's proxy cache (the rate
    limits' windows are the ``limits`` storage's own time)."""
    edge, gate = settings.edge, settings.gate
    auth = OperatorAuth(edge.operator_token, loopback_programs_only=settings.auth.enabled)
    if inflight is None:
        inflight = _inflight(gate, edge.max_inflight_llm_per_client, "fi-edge:inflight:")
    per_address = _inflight(gate, edge.max_inflight_llm_per_address, "fi-edge:inflight-address:")
    storage = build_storage(gate.redis_url)
    return Edge(
        trusted=TrustedProxies(edge.trusted_proxies),
        auth=auth,
        policy=ClientPolicy(auth, edge.rate_limit_exempt_loopback),
        visitors=VisitorKeys(edge.visitor_secret, clock=clock),
        limiter=limiter or EdgeRateLimiter(storage, edge.rate_limit, edge.audience_rate_limit),
        inflight=inflight,
        per_address=per_address,
        aggregation=Aggregation(edge.ipv6_prefix, edge.ipv4_prefix),
        issue_limit=IssueLimit(storage, edge.visitor_issue_limit),
        people=People(settings.auth, settings.chain.stores, storage, clock=clock),
    )


def _inflight(gate: GateSettings, limit: int, prefix: str) -> InflightLimiter:
    if gate.redis_url:
        # leases renewed while a request runs: a killed replica's places lapse like its gate slots
        return RedisInflight(gate.redis_url, limit, gate.lease_s, prefix=prefix)
    return LocalInflight(limit)


def install_edge(
    app: Starlette,
    settings: Settings,
    *,
    metrics: Callable[[], Metrics | None] = lambda: None,
    retry_after_s: Callable[[], int] = lambda: 1,
    edge: Edge | None = None,
) -> Edge:
    """Wrap ``app`` in the edge layers, in the order documented above; returns the parts (tests reset them)."""
    edge = edge or build_edge(settings)

    def count_rate_limited(reason: str) -> None:
        registry = metrics()
        if registry is not None:
            registry.http_rate_limited.labels(reason).inc()

    cors: list[tuple[type, dict[str, Any]]] = []
    if settings.edge.cors_origins:
        cors = [
            (
                CORSMiddleware,
                {
                    "allow_origins": settings.edge.cors_origins,
                    "allow_methods": ["GET", "POST"],
                    "allow_headers": ["Content-Type"],
                    "allow_credentials": False,
                    "expose_headers": [*RATE_LIMIT_HEADERS, request_id.HEADER],
                    "max_age": 600,
                },
            )
        ]
    layers: list[tuple[type, dict[str, Any]]] = [  # outermost first
        request_id.layer(),
        (HttpMetricsMiddleware, {"metrics": metrics}),
        (ClientIdentityMiddleware, {"trusted": edge.trusted, "aggregation": edge.aggregation}),
        (SecurityHeadersMiddleware, {}),
        (TrustedHostMiddleware, {"allowed_hosts": settings.edge.allowed_hosts, "www_redirect": False}),
        *cors,
        (CrossSiteGuardMiddleware, {"cors_origins": settings.edge.cors_origins}),
        (VisitorKeyMiddleware, {"keys": edge.visitors, "issue_allowed": edge.issue_limit}),
        (PeopleMiddleware, {"people": edge.people, "trusted": edge.trusted}),
        (RateLimitMiddleware, {"limiter": edge.limiter, "policy": edge.policy, "count": count_rate_limited}),
        (RouteSurfaceMiddleware, {"auth": edge.auth, "auth_enabled": edge.people.enabled}),
        (
            BodyLimitMiddleware,
            {"max_bytes": settings.edge.max_body_bytes, "bulk_max_bytes": settings.chain.batch_max_body_bytes},
        ),
        (
            InflightLimitMiddleware,
            {
                "inflight": edge.inflight,
                "per_address": edge.per_address,
                "policy": edge.policy,
                "retry_after_s": retry_after_s,
                "count": count_rate_limited,
            },
        ),
    ]
    # Starlette puts each added middleware outside the ones added before it: add innermost first.
    for cls, options in reversed(layers):
        app.add_middleware(cls, **options)
    return edge
