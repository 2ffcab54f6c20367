"""Watching the edge: a request id on every answer and every log line of its request, HTTP series by route
template and status in the metrics, and the access log's client the one the trusted proxy named."""

from __future__ import annotations

import contextvars
import json
import logging
import re
from typing import Literal

import httpx
from asgi_correlation_id import correlation_id
from starlette.types import Receive, Scope, Send
from uvicorn.logging import AccessFormatter
from uvicorn.protocols.utils import get_client_addr

from feedback_intelligence.cli.log_setup import JsonLines, formatter, uvicorn_config
from feedback_intelligence.edge import request_id
from feedback_intelligence.edge.http_metrics import UNMATCHED
from tests.edge.support import PROXY, EdgeApp, build_edge_app, via_proxy

LOG = logging.getLogger("tests.edge.watchable")


class Lines(logging.Handler):
    """The lines a handler set up as ``feedctl serve`` sets up its own would write."""

    def __init__(self, log_format: str) -> None:
        super().__init__()
        self.setFormatter(formatter("json" if log_format == "json" else "text"))
        self.addFilter(request_id.log_filter())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def with_logging_route(edge: EdgeApp) -> EdgeApp:
    """A public route of the table that writes a log line while it serves."""

    @edge.app.get("/live/version")
    async def version() -> dict[str, int]:
        LOG.warning("version asked")
        return {"version": 1}

    return edge


async def test_a_callers_request_id_is_echoed_and_on_the_log_lines_of_its_request() -> None:
    edge = with_logging_route(build_edge_app())
    lines = Lines("json")
    LOG.addHandler(lines)
    try:
        async with edge.client() as http:
            answered = await http.get("/live/version", headers={"X-Request-ID": "lb-7f3a.42"})
    finally:
        LOG.removeHandler(lines)
    assert answered.status_code == 200 and answered.headers["x-request-id"] == "lb-7f3a.42"
    (line,) = lines.lines
    assert json.loads(line)["request_id"] == "lb-7f3a.42" and json.loads(line)["message"] == "version asked"


async def test_without_an_acceptable_id_one_is_made_and_the_text_line_shows_it() -> None:
    edge = with_logging_route(build_edge_app())
    lines = Lines("text")
    LOG.addHandler(lines)
    try:
        async with edge.client() as http:
            made = (await http.get("/live/version")).headers["x-request-id"]
            forged = await http.get("/live/version", headers={"X-Request-ID": 'x" admin=1'})
            too_long = await http.get("/live/version", headers={"X-Request-ID": "a" * 129})
    finally:
        LOG.removeHandler(lines)
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    for answer in (forged, too_long):
        assert re.fullmatch(r"[0-9a-f]{32}", answer.headers["x-request-id"])
    assert f"[{made}] tests.edge.watchable: version asked" in lines.lines[0]
    assert f"[{forged.headers['x-request-id']}]" in lines.lines[1] and "admin" not in lines.lines[1]


async def test_the_edges_own_refusals_carry_the_id_too() -> None:
    edge = build_edge_app(rate_limit="1/60seconds")
    async with edge.client() as http:
        hidden = await http.get("/admin/status", headers={"X-Request-ID": "r-404"})
        await http.get("/health")
        limited = await http.get("/health", headers={"X-Request-ID": "r-429"})
    assert (hidden.status_code, hidden.headers["x-request-id"]) == (404, "r-404")
    assert (limited.status_code, limited.headers["x-request-id"]) == (429, "r-429")


def test_a_line_outside_any_request_has_no_request_id() -> None:
    made = LOG.makeRecord(LOG.name, logging.WARNING, __file__, 1, "poll", (), None)
    request_id.log_filter().filter(made)
    assert "request_id" not in json.loads(JsonLines().format(made))
    assert "[-] tests.edge.watchable: poll" in formatter("text").format(made)
    unfiltered = LOG.makeRecord(LOG.name, logging.WARNING, __file__, 1, "elsewhere", (), None)
    assert "[-] tests.edge.watchable: elsewhere" in formatter("text").format(unfiltered)  # no KeyError


def test_uvicorns_lines_carry_the_request_id_in_both_formats() -> None:
    def access_line(log_format: Literal["text", "json"]) -> str:
        config = uvicorn_config(log_format)
        assert all("request_id" in handler["filters"] for handler in config["handlers"].values())
        assert config["filters"]["request_id"] == request_id.log_filter_config()
        access = config["formatters"]["access"]
        shown = JsonLines() if log_format == "json" else AccessFormatter(fmt=access["fmt"], use_colors=False)
        made = logging.getLogger("uvicorn.access").makeRecord(
            "uvicorn.access",
            logging.INFO,
            __file__,
            1,
            '%s - "%s %s HTTP/%s" %d',
            ("198.51.100.9:0", "GET", "/x", "1.1", 200),
            None,
        )
        context = contextvars.copy_context()
        context.run(correlation_id.set, "abc-1")
        context.run(request_id.log_filter().filter, made)
        return shown.format(made)

    assert "[abc-1] 198.51.100.9:0" in access_line("text")
    assert json.loads(access_line("json"))["request_id"] == "abc-1"


async def test_requests_are_counted_by_route_template_method_and_status_never_by_raw_path() -> None:
    edge = build_edge_app()
    async with edge.client() as http:
        for item in ("a1", "b2", "c3"):
            assert (await http.get(f"/live/feedback/{item}")).status_code == 200
        assert (await http.get("/wp-login.php")).status_code == 404
        assert (await http.post("/live/feedback", json={"text": "x"})).status_code == 201

    def count(route: str, method: str, status: str) -> float:
        labels = {"route": route, "method": method, "status": status}
        return edge.metrics.registry.get_sample_value("fi_http_requests_total", labels) or 0.0

    assert count("/live/feedback/{feedback_id}", "GET", "200") == 3
    assert count(UNMATCHED, "GET", "404") == 1
    assert count("/live/feedback", "POST", "201") == 1
    latency = edge.metrics.registry.get_sample_value(
        "fi_http_request_duration_seconds_count",
        {"route": "/live/feedback/{feedback_id}", "method": "GET", "status": "200"},
    )
    assert latency == 3
    routes = {
        sample.labels["route"]
        for family in edge.metrics.registry.collect()
        if family.name == "fi_http_requests"
        for sample in family.samples
    }
    assert not any(item in route for route in routes for item in ("a1", "b2", "c3", "wp-login"))


async def test_the_access_log_names_the_client_the_trusted_proxy_named() -> None:
    """uvicorn writes its access line from the scope it handed the app (get_client_addr): the edge's
    answer must be on that scope, not on a copy only the layers inside see."""
    edge = build_edge_app()
    served: list[Scope] = []

    async def server(scope: Scope, receive: Receive, send: Send) -> None:
        served.append(scope)  # the object uvicorn keeps and logs from
        await edge.app(scope, receive, send)

    proxied = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=server, client=(PROXY, 51000)), base_url="http://edge.test"
    )
    direct = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=server, client=("203.0.113.5", 51001)), base_url="http://edge.test"
    )
    async with proxied, direct:
        assert (await proxied.get("/health", headers=via_proxy("198.51.100.9"))).status_code == 200
        # a forged forwarded-for from a peer that is not a trusted proxy changes nothing
        assert (await direct.get("/health", headers={"X-Forwarded-For": "192.0.2.1"})).status_code == 200
    assert get_client_addr(served[0]) == "198.51.100.9:0"
    assert get_client_addr(served[1]) == "203.0.113.5:51001"
