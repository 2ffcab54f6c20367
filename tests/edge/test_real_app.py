"""The edge wired into the real app: every route classified, operator routes hidden, one LLM call per client."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts
from prometheus_client.parser import text_string_to_metric_families
from starlette.routing import Mount, Route

from feedback_intelligence.api.app import create_app
from feedback_intelligence.config import Settings, load_settings
from feedback_intelligence.edge.surface import ROUTES, STATIC_PREFIX, Access, classify
from feedback_intelligence.llm.testing import FakeBackend
from tests.edge.support import OPERATOR_TOKEN
from tests.support.databases import migrated

PROXY = ("10.0.0.7", 4242)
LOOPBACK = ("127.0.0.1", 4243)
STRANGER = ("203.0.113.5", 4244)


def real_settings(tmp_path: Path, **overrides: Any) -> Settings:
    return load_settings(
        **{
            "llm_backend": "ollama",
            "llm_base_url": "http://127.0.0.1:9",
            "llm_model": "held",
            "database_url": f"sqlite:///{migrated(tmp_path / 'feedback.db')}",
            "live_database_url": f"sqlite:///{migrated(tmp_path / 'live.db')}",
            "snapshot_dir": tmp_path / "snapshots",
            "trusted_proxies": [PROXY[0]],
            "operator_token": OPERATOR_TOKEN,
            "allowed_hosts": ["fi.test"],
            **overrides,
        }
    )


async def running(app: FastAPI) -> AsyncIterator[FastAPI]:
    async with app.router.lifespan_context(app):
        yield app


def client(app: FastAPI, peer: tuple[str, int]) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=peer), base_url="http://fi.test")


def app_routes(app: FastAPI) -> list[tuple[str, str | None, set[str]]]:
    """(kind, path, methods) of every route the app serves, included routers flattened the way
    FastAPI's own OpenAPI generation does it."""
    flattened = []
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, Mount):
            flattened.append(("mount", context.path, set()))
        elif isinstance(route, APIRoute | Route):
            flattened.append(("route", context.path, set(context.methods or ())))
        else:  # a kind of route this walker does not understand: fail rather than skip it
            flattened.append((type(route).__name__, context.path, set()))
    return flattened


def test_every_route_of_the_real_app_is_classified(tmp_path: Path) -> None:
    app = create_app(real_settings(tmp_path))
    routes = app_routes(app)
    unclassified = []
    for kind, path, methods in routes:
        if kind == "route" and path is not None:
            for method in sorted(methods - {"HEAD"}):
                if not any(method in rule.methods and rule.path == path for rule in ROUTES):
                    unclassified.append(f"{method} {path}")
        elif kind == "mount" and path is not None:
            if not any(rule.prefix and rule.path == path.rstrip("/") + "/" for rule in ROUTES):
                unclassified.append(f"mount {path}")
        else:
            unclassified.append(f"{kind} {path}")
    assert not unclassified, f"routes missing from edge/surface.py ROUTES: {unclassified}"
    walked = {(m, p) for kind, p, ms in routes for m in ms}
    assert ("POST", "/interpret") in walked and ("GET", "/metrics") in walked  # the walk saw the routers


def test_routes_the_reference_hides_are_operator_routes_in_the_real_app(tmp_path: Path) -> None:
    app = create_app(real_settings(tmp_path))
    paths = {(m, p) for _, p, methods in app_routes(app) for m in methods}
    for method, path in [
        ("POST", "/feedback"),
        ("GET", "/feedback"),
        ("GET", "/feedback/{feedback_id}"),
        ("POST", "/live/restructure"),
        ("GET", "/telemetry/corrections"),
        ("GET", "/metrics"),
    ]:
        assert (method, path) in paths
        assert classify(method, path).access is Access.OPERATOR
    assert STATIC_PREFIX.endswith("/")


async def test_hidden_routes_look_exactly_like_unknown_ones(tmp_path: Path) -> None:
    app = create_app(real_settings(tmp_path), backend=FakeBackend(reply="{}"))
    async for _ in running(app):
        async with client(app, LOOPBACK) as operator, client(app, STRANGER) as stranger:
            unknown = await operator.get("/definitely-not-a-route")
            for method, target in [
                ("GET", "/metrics"),
                ("GET", "/feedback"),
                ("POST", "/live/restructure"),
                ("GET", "/telemetry/corrections"),
                ("GET", "/openapi.json"),
                ("GET", "/admin/status"),
                ("GET", "/report?snapshot=true"),
            ]:
                hidden = await stranger.request(method, target, headers={"X-Forwarded-For": "127.0.0.1"})
                assert (hidden.status_code, hidden.content) == (unknown.status_code, unknown.content), target
                assert hidden.headers["content-type"] == unknown.headers["content-type"]
                assert (await operator.request(method, target)).status_code == 200, target
            with_token = await stranger.get("/metrics", headers={"Authorization": f"Bearer {OPERATOR_TOKEN}"})
            assert with_token.status_code == 200


async def test_a_double_click_on_interpret_gets_429_while_the_first_runs(tmp_path: Path) -> None:
    backend = FakeBackend(reply="{}", hold=asyncio.Event())  # nonsense: the app falls back honestly
    app = create_app(real_settings(tmp_path), backend=backend)
    async for _ in running(app):
        async with client(app, PROXY) as http:
            proxied = {"X-Forwarded-For": "198.51.100.30", "X-Forwarded-Proto": "https"}
            schema = await http.get("/schema", headers=proxied)
            assert schema.status_code == 200
            cookie = schema.headers["set-cookie"]
            assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" in cookie
            visitor = {**proxied, "Cookie": cookie.split(";")[0]}

            first = asyncio.create_task(http.post("/interpret", json={"text": "Maito oli hapanta."}, headers=visitor))
            await asyncio.wait_for(backend.arrived.wait(), 10)
            second = await asyncio.wait_for(
                http.post("/interpret", json={"text": "Maito oli hapanta."}, headers=visitor), 5
            )
            assert second.status_code == 429
            assert second.json()["error"] == "too_many_inflight"
            assert int(second.headers["retry-after"]) >= 1
            assert not first.done()
            backend.thaw()
            assert (await first).status_code == 200
        async with client(app, LOOPBACK) as operator:
            metrics = (await operator.get("/metrics")).text
    assert rate_limited(metrics, "inflight") == 1


def rate_limited(exposition: str, reason: str) -> float:
    for family in text_string_to_metric_families(exposition):
        if family.name == "fi_http_rate_limited":
            for sample in family.samples:
                if sample.name.endswith("_total") and sample.labels.get("reason") == reason:
                    return sample.value
    return 0.0


@pytest.mark.parametrize("path", ["/schema", "/live/version", "/health"])
async def test_public_json_routes_carry_the_edge_headers(tmp_path: Path, path: str) -> None:
    app = create_app(real_settings(tmp_path), backend=FakeBackend(reply="{}"))
    async for _ in running(app):
        async with client(app, STRANGER) as http:
            response = await http.get(path)
    assert response.status_code == 200
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["content-security-policy"].startswith("default-src 'none'")
    assert response.headers["ratelimit-policy"] == "30;w=60"
