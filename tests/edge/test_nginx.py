"""deploy/nginx in front of the real app (a real nginx, the app and the simulated Ollama as processes).

Test clients connect to nginx from distinct loopback addresses (127.0.0.x), so nginx sees a different
$remote_addr for each; nginx itself connects to the app from 127.0.0.1, the only trusted proxy. The app
must tell "relayed by nginx" (a forwarded header from the trusted peer) from "the operator on the host"
(127.0.0.1 with no forwarded header), although both come from 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.edge import nginx
from tests.edge.test_real_app import rate_limited
from tests.support.form_export import FIRST_LOCAL, export_rows, write_export
from tests.support.waiting import wait_for

pytestmark = [
    pytest.mark.nginx,
]

RATE = 4
OPERATOR_TARGETS = [
    ("GET", "/metrics"),
    ("GET", "/feedback"),
    ("POST", "/feedback"),
    ("GET", "/feedback/x1"),
    ("POST", "/live/restructure"),
    ("GET", "/telemetry/corrections"),
    ("GET", "/admin/status"),
    ("POST", "/admin/warm"),
    ("GET", "/openapi.json"),
    ("GET", "/docs"),
    ("GET", "/report?snapshot=true"),
    ("GET", "/report?snapshot=1&from=2026-01-01"),
    ("GET", "/no-such-route"),
]
_addresses = (f"127.0.0.{n}" for n in itertools.count(10))
_documentation_addresses = (f"198.51.100.{n}" for n in itertools.count(1))


def visitor(address: str | None = None) -> httpx.Client:
    """A client with a loopback address of its own (not 127.0.0.1, which is the trusted proxy)."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address or next(_addresses)), timeout=30)


def async_visitor(address: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(local_address=address), timeout=30)


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[ServerProcess, ServerProcess, nginx.Nginx]]:
    with (
        sim_ollama(parallel=2, max_queue=8, service_ms=800) as sim,
        app_server(
            {
                "FI_LLM_BACKEND": "ollama",
                "FI_LLM_BASE_URL": sim.url,
                "FI_LLM_MODEL": "sim-model",
                "FI_TRUSTED_PROXIES": '["127.0.0.1/32"]',
                "FI_RATE_LIMIT": f"{RATE}/60seconds",
                "FI_REPORT_LLM_BUDGET": "0",
            }
        ) as app,
    ):
        port = int(app.url.rsplit(":", 1)[1])
        with nginx.nginx_edge(port) as edge:
            yield sim, app, edge


def test_public_routes_pass_through_nginx(stack: tuple[ServerProcess, ServerProcess, nginx.Nginx]) -> None:
    _, _, edge = stack
    for path, status in [("/livez", 200), ("/health", 200), ("/schema", 200), ("/live/version", 200)]:
        with visitor() as http:
            response = http.get(edge.url + path)
            assert response.status_code == status, (path, response.text)
            assert response.headers["ratelimit-limit"] == str(RATE)  # the app answered, and limited it
    with visitor() as http:
        assert http.get(edge.url + "/live/feedback", params={"limit": 5}).json() == []
        assert http.get(edge.url + "/live/feedback/nope").status_code == 404  # the app's own 404
        interpreted = http.post(edge.url + "/interpret", json={"text": "Maito oli hapanta."})
        assert interpreted.status_code == 200, interpreted.text
    with visitor() as http:
        schema = http.get(edge.url + "/schema", headers={"X-Forwarded-Proto": "https"})  # nginx overwrites it
        cookie = schema.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie  # plain http


def test_the_edge_access_log_keeps_no_query_string(stack: tuple[ServerProcess, ServerProcess, nginx.Nginx]) -> None:
    """A search's words (a customer's surname) reach the app, never nginx's access log."""
    _, _, edge = stack
    with visitor() as http:
        searched = http.get(
            edge.url + "/report", params={"q": "Vörskälä"}, headers={"Referer": "/?q=V%C3%B6rsk%C3%A4l%C3%A4"}
        )
        assert searched.status_code == 200, searched.text
        # the next request on the same connection is read after the first one's log line is written
        assert http.get(edge.url + "/livez").status_code == 200
    log = edge.access_log()
    assert '"GET /report HTTP/1.1" 200' in log
    assert "rsk" not in log and "q=" not in log


@pytest.mark.parametrize(("method", "target"), OPERATOR_TARGETS)
def test_operator_routes_are_refused_through_nginx(
    stack: tuple[ServerProcess, ServerProcess, nginx.Nginx],
    method: str,
    target: str,
) -> None:
    _, app, edge = stack
    with visitor() as http:
        for headers in ({}, {"X-Forwarded-For": "127.0.0.1", "X-Real-IP": "127.0.0.1", "Forwarded": "for=127.0.0.1"}):
            refused = http.request(method, edge.url + target, headers=headers)
            assert refused.status_code == 404 and refused.json() == {"error": "Not Found"}, refused.text
    # and were nginx to forward everything, the app itself refuses a relayed request
    relayed = httpx.request(
        method, app.url + target, headers={"X-Forwarded-For": next(_documentation_addresses)}, timeout=30
    )
    assert relayed.status_code == 404 and relayed.json() == {"error": "Not Found"}


def test_the_operator_on_the_host_still_reaches_operator_routes(
    stack: tuple[ServerProcess, ServerProcess, nginx.Nginx],
) -> None:
    _, app, _ = stack
    for path in ("/metrics", "/admin/status", "/feedback", "/openapi.json"):
        response = httpx.get(app.url + path, timeout=30)
        assert response.status_code == 200, path
        assert "ratelimit-limit" not in response.headers  # exempt


def test_the_app_sees_each_client_address_behind_nginx(
    stack: tuple[ServerProcess, ServerProcess, nginx.Nginx],
) -> None:
    _, app, edge = stack
    before = rate_limited(httpx.get(app.url + "/metrics", timeout=10).text, "client")
    alice_address = next(_addresses)
    with visitor(alice_address) as alice, visitor() as bob, visitor() as mallory:
        started = time.time()
        for n in range(RATE):
            served = alice.get(edge.url + "/live/version")
            assert served.status_code == 200 and served.headers["ratelimit-remaining"] == str(RATE - 1 - n)
        refused = alice.get(edge.url + "/live/version")
        assert refused.status_code == 429 and refused.json()["reason"] == "client"
        retry_after = int(refused.headers["retry-after"])
        assert 60 - (time.time() - started) - 1 <= retry_after <= 60
        # a forged X-Forwarded-For does not get Alice out of her bucket ...
        assert alice.get(edge.url + "/live/version", headers={"X-Forwarded-For": "198.51.100.77"}).status_code == 429
        # ... Bob, another address behind the same nginx, is served ...
        assert bob.get(edge.url + "/live/version").headers["ratelimit-remaining"] == str(RATE - 1)
        # ... and Mallory cannot spend Alice's bucket (or hide in it) by claiming her address
        claimed = mallory.get(edge.url + "/live/version", headers={"X-Forwarded-For": alice_address})
        assert claimed.status_code == 200 and claimed.headers["ratelimit-remaining"] == str(RATE - 1)
    after = rate_limited(httpx.get(app.url + "/metrics", timeout=10).text, "client")
    assert after - before == 2


def test_a_visitor_double_click_through_nginx(
    stack: tuple[ServerProcess, ServerProcess, nginx.Nginx],
) -> None:
    sim, _, edge = stack
    address = next(_addresses)

    async def double_click() -> tuple[httpx.Response, httpx.Response]:
        async with async_visitor(address) as http:
            first = asyncio.create_task(http.post(edge.url + "/interpret", json={"text": "Kassajono oli pitkä."}))

            async def at_the_llm() -> bool:
                return (await http.get(sim.url + "/sim/stats")).json()["inFlight"] >= 1

            await wait_for(at_the_llm, 10, "the first interpret to reach the LLM", poll_s=0.01)
            second = await http.post(edge.url + "/interpret", json={"text": "Kassajono oli pitkä."})
            return await first, second

    first, second = asyncio.run(double_click())
    assert second.status_code == 429 and second.json()["error"] == "too_many_inflight"
    assert int(second.headers["retry-after"]) >= 1
    assert first.status_code == 200


def test_nginx_caps_the_body(stack: tuple[ServerProcess, ServerProcess, nginx.Nginx]) -> None:
    _, _, edge = stack
    with visitor() as http:
        response = http.post(
            edge.url + "/interpret", content=b"x" * 20_000, headers={"content-type": "application/json"}
        )
    assert response.status_code == 413 and "16384-byte cap" in response.json()["errors"][0]


CSV = {"content-type": "text/csv"}


def test_an_upload_to_the_pages_import_passes_nginx_up_to_the_batch_cap(
    stack: tuple[ServerProcess, ServerProcess, nginx.Nginx], tmp_path: Path
) -> None:
    """The page's import (ADR 0063): its two paths take a batch's body (FI_BATCH_MAX_BODY_BYTES), streamed
    to the app; every other path keeps the 16 KiB cap."""
    _, _, edge = stack
    rows = export_rows(12_000, start=FIRST_LOCAL)
    export = write_export(tmp_path / "vienti.csv", rows).read_bytes()
    assert 1_000_000 < len(export) < 8_388_608  # past the app's in-memory spool, under the cap
    with visitor() as http:
        answer = http.post(edge.url + "/imports/preview", content=export, headers=CSV)
    assert answer.status_code == 200, answer.text[:300]
    assert answer.json()["rows"] == len(rows) and answer.json()["mapping"]["text"] == "Palaute"
    with visitor() as http:
        too_big = http.post(edge.url + "/imports/preview", content=b"x" * 8_388_700, headers=CSV)
    assert too_big.status_code == 413


def test_nginx_holds_each_address_to_its_connection_share(
    stack: tuple[ServerProcess, ServerProcess, nginx.Nginx],
) -> None:
    """limit_conn: 70 requests in progress from one address (heads sent, bodies never); past 64 each
    is answered 429 at once, and another address is served meanwhile."""
    _, _, edge = stack
    port = int(edge.url.rsplit(":", 1)[1])
    address = next(_addresses)
    head = (
        b"POST /interpret HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    )
    held: list[socket.socket] = []
    try:
        for _ in range(70):  # all at once: nginx drops a body that is late by client_body_timeout (15 s)
            sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(address, 0))
            held.append(sock)
            sock.sendall(head)
        refusals = []
        for sock in held:
            sock.settimeout(0.2)
            try:
                refusals.append(sock.recv(4096))
            except TimeoutError:
                refusals.append(b"")  # held, waiting for its body
        answered = [r for r in refusals if r]
        assert len(answered) == 70 - 64, [r[:40] for r in answered]
        assert all(r.startswith(b"HTTP/1.1 429") and b"too_many_requests" in r for r in answered)
        assert b"Retry-After: 1" in answered[0]
        with visitor() as other:
            assert other.get(edge.url + "/livez").status_code == 200
    finally:
        for sock in held:
            sock.close()


def test_nginx_bounds_each_address_request_rate(stack: tuple[ServerProcess, ServerProcess, nginx.Nginx]) -> None:
    """limit_req: 300 requests at once from one address pass the burst of 100 and are then refused."""
    _, _, edge = stack
    address = next(_addresses)

    async def flood() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=25)
        transport = httpx.AsyncHTTPTransport(local_address=address, limits=limits)
        async with httpx.AsyncClient(transport=transport, timeout=30) as http:
            return await asyncio.gather(*(http.get(edge.url + "/livez") for _ in range(300)))

    answers = asyncio.run(flood())
    assert {a.status_code for a in answers} <= {200, 429}
    at_nginx = [a for a in answers if a.status_code == 429 and a.json()["error"] == "too_many_requests"]
    passed = len(answers) - len(at_nginx)  # reached the app (served, or refused by its own rate limit)
    assert passed >= 100, passed  # the burst
    assert at_nginx and all(a.headers["retry-after"] == "1" for a in at_nginx)
    with visitor() as other:
        assert other.get(edge.url + "/livez").status_code == 200
