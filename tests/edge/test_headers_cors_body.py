"""Security headers, CORS and the body cap, and the order the edge applies them in."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from feedback_intelligence.edge.headers import API_CSP, DOCS_CSP, PAGE_CSP, SNAPSHOT_CSP
from feedback_intelligence.instants.clock import ManualClock
from tests.edge.support import LOOPBACK, PROXY, PUBLIC_PEER, build_edge_app, via_proxy

ORIGIN = "https://shop.example"


def assert_common(headers: Any) -> None:
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "no-referrer"


async def test_pages_forbid_inline_script_and_framing() -> None:
    edge = build_edge_app()
    async with edge.client(PUBLIC_PEER) as http:
        page = await http.get("/desk.html")
    assert_common(page.headers)
    csp = page.headers["content-security-policy"]
    assert csp == PAGE_CSP
    for directive in (
        "default-src 'self'",
        "script-src 'self';",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ):
        assert directive in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp


async def test_snapshot_page_runs_no_script_at_all_and_json_nothing() -> None:
    edge = build_edge_app()
    async with edge.client(PUBLIC_PEER) as http:
        snapshot = await http.get("/report/snapshot.html")
        api = await http.get("/health")
        hidden = await http.get("/metrics")
    assert snapshot.headers["content-security-policy"] == SNAPSHOT_CSP and "script-src" not in SNAPSHOT_CSP
    assert api.headers["content-security-policy"] == API_CSP
    for response in (snapshot, api, hidden):
        assert_common(response.headers)


async def test_edge_refusals_carry_the_headers_too(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time, rate_limit="1/60seconds")
    async with edge.client(PUBLIC_PEER) as http:
        await http.get("/health")
        refused = await http.get("/health")
    assert refused.status_code == 429
    assert_common(refused.headers)
    assert refused.headers["content-security-policy"] == API_CSP


async def test_operator_docs_get_a_policy_without_inline_scripts() -> None:
    edge = build_edge_app()
    async with edge.client(LOOPBACK) as http:
        docs = await http.get("/docs")
    assert docs.status_code == 200
    assert docs.headers["content-security-policy"] == DOCS_CSP
    assert "script-src 'self';" in DOCS_CSP and "unsafe-eval" not in DOCS_CSP
    assert_common(docs.headers)


async def test_cors_allows_only_configured_origins_without_credentials(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time, cors_origins=[ORIGIN], rate_limit="2/60seconds")
    preflight_headers = {
        "Origin": ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    }
    async with edge.client(PUBLIC_PEER) as http:
        preflight = await http.options("/interpret", headers=preflight_headers)
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == ORIGIN
        assert "access-control-allow-credentials" not in preflight.headers
        assert set(preflight.headers["access-control-allow-methods"].replace(" ", "").split(",")) == {"GET", "POST"}
        foreign = await http.options("/interpret", headers={**preflight_headers, "Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in foreign.headers
        assert (
            "access-control-allow-origin"
            not in (await http.get("/health", headers={"Origin": "https://evil.example"})).headers
        )

        served = await http.get("/health", headers={"Origin": ORIGIN})
        assert served.headers["access-control-allow-origin"] == ORIGIN
        # the browser may read the limit fields of a 429, so the page can honour Retry-After
        refused = await http.get("/health", headers={"Origin": ORIGIN})
        assert refused.status_code == 429
        assert refused.headers["access-control-allow-origin"] == ORIGIN
        exposed = {h.strip().lower() for h in refused.headers["access-control-expose-headers"].split(",")}
        assert {
            "retry-after",
            "ratelimit-limit",
            "ratelimit-remaining",
            "ratelimit-reset",
            "ratelimit-policy",
        } <= exposed


async def test_no_cors_headers_when_no_origin_is_configured() -> None:
    edge = build_edge_app()
    async with edge.client(PUBLIC_PEER) as http:
        response = await http.get("/health", headers={"Origin": ORIGIN})
    assert "access-control-allow-origin" not in response.headers


async def test_body_cap_answers_413_before_the_route_parses() -> None:
    edge = build_edge_app()
    big = b'{"text": "' + b"x" * 20_000 + b'"}'
    async with edge.client((PROXY, 1)) as http:
        declared = await http.post(
            "/interpret", content=big, headers={**via_proxy("198.51.100.90"), "content-type": "application/json"}
        )

        async def chunks() -> AsyncIterator[bytes]:
            for start in range(0, len(big), 4096):
                yield big[start : start + 4096]

        streamed = await http.post(
            "/interpret", content=chunks(), headers={**via_proxy("198.51.100.90"), "content-type": "application/json"}
        )
    for response in (declared, streamed):
        assert response.status_code == 413
        assert "16384-byte cap" in response.json()["errors"][0]
    assert edge.llm.calls == 0


def _raw_scope(
    method: str, path: str, client: tuple[str, int], headers: list[tuple[bytes, bytes]] | None = None
) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"edge.test"), *(headers or [(b"content-length", b"100")])],
        "client": client,
        "server": ("edge.test", 80),
    }


async def _call_without_reading(app: Any, scope: dict[str, Any]) -> int:
    async def receive() -> dict[str, Any]:
        raise AssertionError("the edge read the body of a request it should have refused unread")

    statuses: list[int] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    await app(scope, receive, send)
    return statuses[0]


async def test_cheap_refusals_never_read_the_body(clock: ManualClock) -> None:
    edge = build_edge_app(clock.time, rate_limit="1/60seconds")
    # the operator surface: 404 without touching the body
    assert await _call_without_reading(edge.app, _raw_scope("POST", "/feedback", PUBLIC_PEER)) == 404
    # the rate limit (the bucket was spent by the request above): 429 without touching the body
    assert await _call_without_reading(edge.app, _raw_scope("POST", "/interpret", PUBLIC_PEER)) == 429
