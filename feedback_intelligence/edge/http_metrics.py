"""HTTP requests and their latency in ``/metrics``, by route template, method and status.

The route is the row of the route-surface table the request matched (edge/surface.py: the path as the route
declares it, ``/live/feedback/{feedback_id}``; the static tree as ``/static/``), ``unmatched`` for a path
the table does not know. So the series are bounded by the table, whatever paths, ids or scanners arrive,
and an edge refusal (400, 404, 413, 429) is counted under the route it was aimed at.

The layer sits outside the others (edge/stack.py), so the time is the whole edge's and the app's, until the
response's last byte. A request that fails before any response is counted 500 (what the server then
answers); one whose client left first, 499 (nginx's word for it).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from feedback_intelligence.edge.surface import classify_scope
from feedback_intelligence.metrics import Metrics

UNMATCHED = "unmatched"
CLIENT_LEFT = "499"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def route_label(scope: Scope) -> str:
    rule = classify_scope(scope).rule
    return rule.path if rule is not None else UNMATCHED


class HttpMetricsMiddleware:
    def __init__(self, app: ASGIApp, metrics: Callable[[], Metrics | None]) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = ""

        async def send_noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = str(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_noting_status)
        except asyncio.CancelledError:
            status = status or CLIENT_LEFT
            raise
        except Exception:
            status = status or "500"
            raise
        finally:
            self._observe(scope, status or CLIENT_LEFT, time.perf_counter() - started)

    def _observe(self, scope: Scope, status: str, seconds: float) -> None:
        registry = self.metrics()
        if registry is None:  # before the runtime is built
            return
        method = scope["method"] if scope["method"] in METHODS else "other"
        labels = (route_label(scope), method, status)
        registry.http_requests.labels(*labels).inc()
        registry.http_request_duration.labels(*labels).observe(seconds)
