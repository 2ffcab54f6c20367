"""A small FastAPI app shaped like the real one (same paths, same error handlers) behind the real edge."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from fastapi import FastAPI, Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from feedback_intelligence.api.deps import visitor
from feedback_intelligence.api.disconnect import cancel_on_disconnect
from feedback_intelligence.api.errors import install_error_handlers
from feedback_intelligence.config import Settings, load_settings
from feedback_intelligence.edge.ratelimit import EdgeRateLimiter, build_storage
from feedback_intelligence.edge.stack import Edge, build_edge, install_edge
from feedback_intelligence.metrics import Metrics

PROXY = "10.0.0.7"  # the trusted proxy of these tests
PUBLIC_PEER = ("203.0.113.5", 40000)  # somebody on the internet, connecting directly
LOOPBACK = ("127.0.0.1", 40001)
OPERATOR_TOKEN = "s3cret-operator-token"


@dataclass
class Llm:
    """Stands in for the LLM: each call waits until the test lets it finish."""

    started: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    calls: int = 0
    visitors: list[str] = field(default_factory=list)  # whose share each request would count against

    async def call(self) -> dict[str, Any]:
        self.calls += 1
        self.started.set()
        await self.release.wait()
        return {"structure": None, "failed": True}


@dataclass
class EdgeApp:
    app: FastAPI
    edge: Edge
    metrics: Metrics
    settings: Settings
    llm: Llm

    def client(self, peer: tuple[str, int] = PUBLIC_PEER, **kw: Any) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=self.app, client=peer)
        return httpx.AsyncClient(transport=transport, base_url="http://edge.test", **kw)

    def rate_limited(self, reason: str) -> float:
        return self.metrics.registry.get_sample_value("fi_http_rate_limited_total", {"reason": reason}) or 0.0


def build_edge_app(clock: Callable[[], float] | None = None, **overrides: Any) -> EdgeApp:
    settings = load_settings(
        **{
            "trusted_proxies": [PROXY],
            "operator_token": OPERATOR_TOKEN,
            "visitor_secret": "test-visitor-secret",
            "allowed_hosts": ["edge.test"],
            **overrides,
        }
    )
    app = FastAPI()
    llm = Llm()
    metrics = Metrics()
    install_error_handlers(app)

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/schema")
    async def schema() -> dict[str, str]:
        return {"language": "fi"}

    @app.post("/interpret")
    async def interpret(request: Request) -> dict[str, Any]:
        await request.json()
        llm.visitors.append(visitor(request))  # what the real route hands the gate in its CallContext
        return await cancel_on_disconnect(request, llm.call())

    @app.post("/live/feedback", status_code=201)
    async def live_feedback(request: Request) -> dict[str, Any]:
        return await request.json()

    @app.get("/live/feedback/{feedback_id}")
    async def live_item(feedback_id: str) -> dict[str, str]:
        return {"id": feedback_id}

    @app.get("/report")
    async def report(request: Request, snapshot: bool = False) -> dict[str, bool]:
        llm.visitors.append(visitor(request))  # a route the in-flight limiter does not wrap
        return {"persisted": snapshot}

    @app.get("/desk.html")
    async def desk() -> HTMLResponse:
        return HTMLResponse("<!doctype html><title>desk</title><script src='/static/desk.js'></script>")

    @app.get("/static/app.js")
    async def asset() -> Response:
        return Response("export {};", media_type="text/javascript")

    @app.get("/report/snapshot.html")
    async def snapshot_html() -> HTMLResponse:
        return HTMLResponse("<!doctype html><style>p{}</style><p>saved</p>")

    @app.post("/feedback", status_code=201)
    async def corpus_ingest(request: Request) -> dict[str, Any]:
        return await request.json()

    @app.get("/feedback")
    async def corpus_list() -> list[dict[str, Any]]:
        return []

    @app.get("/feedback/{feedback_id}")
    async def corpus_item(feedback_id: str) -> dict[str, str]:
        return {"id": feedback_id}

    @app.post("/live/restructure")
    async def restructure() -> dict[str, int]:
        return {"total": 0}

    @app.get("/telemetry/corrections")
    async def telemetry() -> dict[str, int]:
        return {"deskEntries": 0}

    @app.get("/metrics")
    async def prometheus() -> Response:
        return Response("fi_up 1\n", media_type="text/plain")

    @app.get("/admin/status")
    async def admin_status() -> JSONResponse:
        return JSONResponse({"gate": {}})

    limiter = None
    if clock is not None:
        limiter = EdgeRateLimiter(
            build_storage(None), settings.edge.rate_limit, settings.edge.audience_rate_limit, clock
        )
    edge = install_edge(
        app, settings, metrics=lambda: metrics, retry_after_s=lambda: 3, edge=build_edge(settings, limiter=limiter)
    )
    app.state.edge = edge
    return EdgeApp(app, edge, metrics, settings, llm)


# Operator routes of the table with a concrete path to call.
OPERATOR_CALLS = [
    ("POST", "/feedback"),
    ("GET", "/feedback"),
    ("GET", "/feedback/x1"),
    ("POST", "/live/restructure"),
    ("GET", "/telemetry/corrections"),
    ("GET", "/metrics"),
    ("GET", "/admin/status"),
    ("GET", "/report?snapshot=true"),
    ("GET", "/openapi.json"),
    ("GET", "/docs"),
]


def via_proxy(client_ip: str, visitor_cookie: str | None = None, **extra: str) -> dict[str, str]:
    """Headers a trusted proxy in front of the app would pass on for ``client_ip``."""
    headers = {"X-Forwarded-For": client_ip, "X-Forwarded-Proto": "https", **extra}
    if visitor_cookie:
        headers["Cookie"] = f"fi_visitor={visitor_cookie}"
    return headers
