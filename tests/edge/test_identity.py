"""Client identity: the TCP peer, unless a configured trusted proxy relayed the request."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request

from feedback_intelligence.edge.identity import ClientIdentityMiddleware, TrustedProxies, parse_ip, resolve_identity


def scope(
    peer: str | None, headers: dict[str, str] | list[tuple[str, str]] | None = None, scheme: str = "http"
) -> dict[str, Any]:
    items = headers.items() if isinstance(headers, dict) else (headers or [])
    return {
        "type": "http",
        "scheme": scheme,
        "client": (peer, 5555) if peer else None,
        "headers": [(k.lower().encode(), v.encode()) for k, v in items],
    }


NONE = TrustedProxies([])
PROXIES = TrustedProxies(["10.0.0.0/24", "2001:db8:ffff::1"])


def test_direct_client_is_the_peer() -> None:
    who = resolve_identity(scope("203.0.113.5"), PROXIES)
    assert (who.client_ip, who.via_proxy, who.is_direct_loopback) == ("203.0.113.5", False, False)


def test_forwarded_for_from_an_untrusted_peer_is_ignored() -> None:
    who = resolve_identity(
        scope("203.0.113.5", {"X-Forwarded-For": "127.0.0.1", "X-Forwarded-Proto": "https"}), PROXIES
    )
    assert who.client_ip == "203.0.113.5"
    assert not who.via_proxy and not who.is_direct_loopback
    assert who.scheme == "http"


def test_direct_loopback_caller() -> None:
    for peer in ("127.0.0.1", "::1", "::ffff:127.0.0.1", "127.0.0.9"):
        assert resolve_identity(scope(peer), NONE).is_direct_loopback, peer


def test_loopback_peer_with_forwarding_headers_is_not_a_direct_caller_even_if_untrusted() -> None:
    # e.g. a proxy on the same host that nobody listed in FI_TRUSTED_PROXIES: fail closed
    for header in ("X-Forwarded-For", "X-Real-IP", "Forwarded", "X-Forwarded-Proto"):
        who = resolve_identity(scope("127.0.0.1", {header: "198.51.100.1"}), NONE)
        assert not who.is_direct_loopback, header
        assert who.client_ip == "127.0.0.1" and not who.via_proxy


def test_trusted_proxy_hop_gives_the_forwarded_client() -> None:
    who = resolve_identity(
        scope("10.0.0.7", {"X-Forwarded-For": "198.51.100.20", "X-Forwarded-Proto": "https"}), PROXIES
    )
    assert (who.client_ip, who.via_proxy, who.scheme, who.is_direct_loopback) == ("198.51.100.20", True, "https", False)


def test_rightmost_untrusted_address_wins_over_what_the_client_claims() -> None:
    # the client sent "X-Forwarded-For: 127.0.0.1, 1.2.3.4"; two trusted hops appended what they saw
    who = resolve_identity(
        scope("10.0.0.7", {"X-Forwarded-For": "127.0.0.1, 1.2.3.4, 198.51.100.20, 10.0.0.3"}), PROXIES
    )
    assert who.client_ip == "198.51.100.20"


def test_several_forwarded_for_headers_are_one_list() -> None:
    headers = [("X-Forwarded-For", "127.0.0.1"), ("X-Forwarded-For", "198.51.100.20")]
    assert resolve_identity(scope("10.0.0.7", headers), PROXIES).client_ip == "198.51.100.20"


def test_trusted_loopback_proxy_relaying_a_loopback_client_is_not_a_loopback_operator() -> None:
    local = TrustedProxies(["127.0.0.1/32"])
    who = resolve_identity(scope("127.0.0.1", {"X-Forwarded-For": "127.0.0.1"}), local)
    assert who.via_proxy and not who.is_direct_loopback
    # the same host talking for itself (no forwarding header) is the loopback operator
    assert resolve_identity(scope("127.0.0.1"), local).is_direct_loopback


def test_garbage_hop_stops_at_the_last_address_we_can_vouch_for() -> None:
    who = resolve_identity(scope("10.0.0.7", {"X-Forwarded-For": "198.51.100.20, not-an-ip"}), PROXIES)
    assert who.client_ip == "10.0.0.7" and who.via_proxy


def test_only_trusted_hops_gives_the_leftmost() -> None:
    who = resolve_identity(scope("10.0.0.7", {"X-Forwarded-For": "10.0.0.1, 10.0.0.2"}), PROXIES)
    assert who.client_ip == "10.0.0.1"


def test_proto_is_believed_only_when_it_is_http_or_https() -> None:
    who = resolve_identity(
        scope("10.0.0.7", {"X-Forwarded-For": "198.51.100.20", "X-Forwarded-Proto": "gopher"}), PROXIES
    )
    assert who.scheme == "http"


def test_ipv6_proxy_and_client() -> None:
    who = resolve_identity(scope("2001:db8:ffff::1", {"X-Forwarded-For": "[2001:db8::42]:5123"}), PROXIES)
    assert who.client_ip == "2001:db8::42"


def test_no_peer_at_all() -> None:
    who = resolve_identity(scope(None), PROXIES)
    assert who.client_ip == "unknown" and not who.is_direct_loopback


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("192.0.2.1", "192.0.2.1"),
        ("192.0.2.1:8080", "192.0.2.1"),
        (" 192.0.2.1 ", "192.0.2.1"),
        ("[2001:db8::1]:443", "2001:db8::1"),
        ("2001:db8::1", "2001:db8::1"),
        ("::ffff:192.0.2.1", "192.0.2.1"),
        ('"[2001:db8::1]"', "2001:db8::1"),
        ("unknown", None),
        ("", None),
        ("999.1.1.1", None),
    ],
)
def test_parse_ip(text: str, expected: str | None) -> None:
    parsed = parse_ip(text)
    assert (str(parsed) if parsed else None) == expected


async def test_identity_reaches_request_state() -> None:
    app = FastAPI()

    @app.get("/who")
    async def who(request: Request) -> dict[str, Any]:
        return {
            "ip": request.state.client_ip,
            "proxy": request.state.via_proxy,
            "loopback": request.state.is_direct_loopback,
            "client": request.client.host,
            "scheme": request.url.scheme,
        }

    app.add_middleware(ClientIdentityMiddleware, trusted=TrustedProxies(["10.0.0.7"]))
    transport = httpx.ASGITransport(app=app, client=("10.0.0.7", 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        body = (
            await http.get("/who", headers={"X-Forwarded-For": "198.51.100.3", "X-Forwarded-Proto": "https"})
        ).json()
    assert body == {"ip": "198.51.100.3", "proxy": True, "loopback": False, "client": "198.51.100.3", "scheme": "https"}
