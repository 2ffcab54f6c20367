"""The route surface: public routes for everyone, operator routes only for operators, 404 otherwise."""

from __future__ import annotations

import httpx
import pytest

from feedback_intelligence.edge.surface import ROUTES, Access, classify
from tests.edge.support import LOOPBACK, OPERATOR_CALLS, OPERATOR_TOKEN, PROXY, PUBLIC_PEER, build_edge_app, via_proxy


@pytest.mark.parametrize(
    ("method", "target", "access"),
    [
        ("GET", "/health", "public"),
        ("HEAD", "/health", "public"),
        ("GET", "/livez", "public"),
        ("POST", "/interpret", "public"),
        ("GET", "/interpret", "operator"),
        ("POST", "/interpret/proposal", "public"),
        ("GET", "/interpret/proposal", "operator"),
        ("POST", "/live/feedback", "public"),
        ("GET", "/live/feedback", "public"),
        ("GET", "/live/feedback/desk-1", "public"),
        ("GET", "/live/feedback/a/b", "operator"),
        ("GET", "/live/report", "public"),
        ("GET", "/live/version", "public"),
        ("GET", "/schema", "public"),
        ("GET", "/report", "public"),
        ("GET", "/report?from=2026-01-01", "public"),
        ("GET", "/report?snapshot=false", "public"),
        ("GET", "/report?snapshot=0", "public"),
        ("GET", "/report?snapshot=true", "operator"),
        ("GET", "/report?snapshot=TRUE", "operator"),
        ("GET", "/report?snapshot=1", "operator"),
        ("GET", "/report?snapshot=maybe", "operator"),
        ("GET", "/report?snapshot=false&snapshot=true", "operator"),
        ("GET", "/report?snap%73hot=true", "operator"),
        ("GET", "/report/snapshot", "public"),
        ("GET", "/report/snapshot.html", "public"),
        ("GET", "/", "public"),
        ("GET", "/desk", "public"),
        ("GET", "/desk.html", "public"),
        ("GET", "/index.html", "public"),
        ("GET", "/static/desk.js", "public"),
        ("GET", "/static/", "public"),
        ("GET", "/staticx", "operator"),
        ("POST", "/static/x", "operator"),
        ("POST", "/feedback", "operator"),
        ("GET", "/feedback", "operator"),
        ("GET", "/feedback/x", "operator"),
        ("POST", "/live/restructure", "operator"),
        ("GET", "/telemetry/corrections", "operator"),
        ("GET", "/metrics", "operator"),
        ("GET", "/admin/status", "operator"),
        ("POST", "/admin/warm", "operator"),
        ("GET", "/openapi.json", "operator"),
        ("GET", "/docs", "operator"),
        ("GET", "/redoc", "operator"),
        ("GET", "/health/", "operator"),
        ("GET", "/nothing-here", "operator"),
        ("DELETE", "/live/feedback", "operator"),
        ("OPTIONS", "/interpret", "public"),
        ("OPTIONS", "/metrics", "operator"),
    ],
)
def test_classification(method: str, target: str, access: str) -> None:
    path, _, query = target.partition("?")
    assert classify(method, path, query).access.value == access


def test_the_table_lists_each_method_and_path_once() -> None:
    seen = set()
    for rule in ROUTES:
        for method in rule.methods:
            assert (method, rule.path) not in seen, (method, rule.path)
            seen.add((method, rule.path))
    assert any(rule.access is Access.OPERATOR for rule in ROUTES)


async def _unknown_route(http: httpx.AsyncClient) -> httpx.Response:
    return await http.get("/no-such-route")


@pytest.mark.parametrize(("method", "target"), OPERATOR_CALLS)
async def test_spoofed_forwarded_for_does_not_reach_operator_routes(method: str, target: str) -> None:
    edge = build_edge_app()
    async with edge.client(PUBLIC_PEER) as http:
        unknown = await _unknown_route(http)
        refused = await http.request(
            method,
            target,
            json={} if method == "POST" else None,
            headers={"X-Forwarded-For": "127.0.0.1", "X-Real-IP": "127.0.0.1"},
        )
    assert refused.status_code == 404
    assert refused.content == unknown.content == b'{"error":"Not Found"}'
    assert refused.headers["content-type"] == unknown.headers["content-type"]


@pytest.mark.parametrize(("method", "target"), OPERATOR_CALLS)
async def test_public_client_through_the_trusted_proxy_cannot_reach_operator_routes(method: str, target: str) -> None:
    edge = build_edge_app()
    async with edge.client((PROXY, 1)) as http:
        for client_ip in ("198.51.100.9", "127.0.0.1", "::1"):
            refused = await http.request(
                method, target, json={} if method == "POST" else None, headers=via_proxy(client_ip)
            )
            assert refused.status_code == 404, (client_ip, refused.text)
            assert refused.json() == {"error": "Not Found"}


@pytest.mark.parametrize(("method", "target"), OPERATOR_CALLS)
async def test_direct_loopback_operator_reaches_operator_routes(method: str, target: str) -> None:
    edge = build_edge_app()
    async with edge.client(LOOPBACK) as http:
        response = await http.request(method, target, json={} if method == "POST" else None)
    assert response.status_code in (200, 201), response.text


@pytest.mark.parametrize(
    "headers",
    [
        {"Authorization": f"Bearer {OPERATOR_TOKEN}"},
        {"Authorization": f"bearer {OPERATOR_TOKEN}"},
        {"X-Operator-Token": OPERATOR_TOKEN},
    ],
)
async def test_operator_token_opens_operator_routes_to_any_address(headers: dict[str, str]) -> None:
    edge = build_edge_app()
    async with edge.client(PUBLIC_PEER) as http:
        for method, target in OPERATOR_CALLS:
            response = await http.request(method, target, json={} if method == "POST" else None, headers=headers)
            assert response.status_code in (200, 201), (target, response.text)
    async with edge.client((PROXY, 1)) as http:  # even through the proxy, for a token holder
        response = await http.get("/metrics", headers={**via_proxy("198.51.100.9"), **headers})
        assert response.status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Authorization": "Bearer wrong"},
        {"Authorization": f"Basic {OPERATOR_TOKEN}"},
        {"Authorization": f"Bearer {OPERATOR_TOKEN}x"},
        {"X-Operator-Token": OPERATOR_TOKEN[:-1]},
        {"X-Operator-Token": ""},
        {"Authorization": "Bearer "},
    ],
)
async def test_wrong_token_is_an_ordinary_404(headers: dict[str, str]) -> None:
    edge = build_edge_app()
    async with edge.client(PUBLIC_PEER) as http:
        response = await http.get("/metrics", headers=headers)
    assert response.status_code == 404 and response.json() == {"error": "Not Found"}


async def test_no_token_configured_means_no_token_works() -> None:
    edge = build_edge_app(operator_token=None)
    async with edge.client(PUBLIC_PEER) as http:
        for headers in ({"Authorization": "Bearer "}, {"Authorization": "Bearer None"}, {"X-Operator-Token": ""}):
            assert (await http.get("/metrics", headers=headers)).status_code == 404


async def test_public_routes_answer_everyone() -> None:
    edge = build_edge_app()
    for peer, headers in ((PUBLIC_PEER, {}), ((PROXY, 1), via_proxy("198.51.100.9")), (LOOPBACK, {})):
        async with edge.client(peer) as http:
            assert (await http.get("/health", headers=headers)).status_code == 200
            assert (await http.get("/report", headers=headers)).json() == {"persisted": False}
            assert (await http.get("/live/feedback/d1", headers=headers)).status_code == 200
            assert (await http.post("/live/feedback", json={"id": "d1"}, headers=headers)).status_code == 201


async def test_snapshot_write_is_operator_only() -> None:
    edge = build_edge_app()
    async with edge.client(PUBLIC_PEER) as http:
        assert (await http.get("/report", params={"snapshot": "true"})).status_code == 404
    async with edge.client(LOOPBACK) as http:
        assert (await http.get("/report", params={"snapshot": "true"})).json() == {"persisted": True}


async def test_operator_route_refusal_does_not_read_the_body() -> None:
    """The surface check answers before the body cap reads anything: an oversized body is still a 404."""
    edge = build_edge_app()
    async with edge.client(PUBLIC_PEER) as http:
        response = await http.post("/feedback", content=b"x" * 100_000, headers={"content-type": "application/json"})
    assert response.status_code == 404
