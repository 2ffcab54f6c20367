"""The edge names the visitor a request is on behalf of, so the gate can order its waiters fairly: the
route hands it to the gate in a CallContext, on every route, whether the in-flight limiter wraps it
or not (no context variable, no silent "anonymous")."""

from __future__ import annotations

from typing import Any

from tests.edge.support import LOOPBACK, PROXY, PUBLIC_PEER, build_edge_app, via_proxy

TEXT = {"text": "Maito oli hapanta."}


async def test_the_gate_sees_the_visitor_key_the_limits_use() -> None:
    edge = build_edge_app()

    async def call() -> dict[str, Any]:
        return {"structure": None, "failed": True}

    edge.llm.call = call  # type: ignore[method-assign]
    _, alice = edge.edge.visitors.issue("198.51.100.80")
    async with edge.client((PROXY, 1)) as http:
        assert (await http.post("/interpret", json=TEXT, headers=via_proxy("198.51.100.80", alice))).status_code == 200
        assert (await http.post("/interpret", json=TEXT, headers=via_proxy("198.51.100.81"))).status_code == 200
    async with edge.client(PUBLIC_PEER) as http:
        assert (await http.post("/interpret", json=TEXT)).status_code == 200
        assert (await http.get("/report")).status_code == 200  # not an in-flight-limited route
    async with edge.client(LOOPBACK) as http:
        assert (await http.post("/interpret", json=TEXT)).status_code == 200
    assert edge.llm.visitors == [
        "client:198.51.100.80",  # behind the trusted proxy, key or not: its address (keys buy no share)
        "client:198.51.100.81",  # behind the proxy without a key: the forwarded address
        f"client:{PUBLIC_PEER[0]}",  # a direct client: its address
        f"client:{PUBLIC_PEER[0]}",  # ...on a route the in-flight limiter does not wrap too
        "operator:client:127.0.0.1",  # a loopback operator: a share of its own
    ]
