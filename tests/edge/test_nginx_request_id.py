"""Through the shipped nginx site: one request id from nginx's access line to the app's log lines, and the
app's access line naming the client nginx saw (not nginx), in the JSON log format."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import httpx
import pytest

from feedback_intelligence.devtools.processes import app_server, on_sim, sim_ollama
from tests.edge import nginx

pytestmark = [pytest.mark.nginx]

CLIENT = "127.0.0.23"  # the visitor's own loopback address; nginx reaches the app from 127.0.0.1


def _app_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def _wait_for(read: Callable[[], str], needle: str, timeout_s: float = 10.0) -> str:
    deadline = time.monotonic() + timeout_s
    while needle not in (text := read()):
        assert time.monotonic() < deadline, f"{needle!r} never appeared in:\n{text[-3000:]}"
        time.sleep(0.05)
    return text


def test_one_request_id_from_nginx_through_the_apps_log_lines() -> None:
    with (
        sim_ollama() as sim,
        app_server(on_sim(sim, FI_TRUSTED_PROXIES='["127.0.0.1/32"]', FI_LOG_FORMAT="json"), log_level="info") as app,
        nginx.nginx_edge(int(app.url.rsplit(":", 1)[1])) as edge,
        httpx.Client(transport=httpx.HTTPTransport(local_address=CLIENT), timeout=30) as http,
    ):
        made = http.get(edge.url + "/live/version")  # no id of its own: nginx makes one
        given = http.get(edge.url + "/live/version", headers={"X-Request-ID": "till-3.0042"})
        assert made.status_code == 200 and given.status_code == 200
        nginx_id = made.headers["x-request-id"]
        assert len(nginx_id) == 32 and given.headers["x-request-id"] == "till-3.0042"

        edge_log = _wait_for(edge.access_log, "request_id=till-3.0042")
        assert f"{CLIENT} - " in edge_log and f"request_id={nginx_id}" in edge_log
        lines = _app_lines(_wait_for(app.log, "till-3.0042"))
        for request in (nginx_id, "till-3.0042"):
            (access,) = [
                line for line in lines if line["logger"] == "uvicorn.access" and line.get("request_id") == request
            ]
            assert str(access["message"]).startswith(f"{CLIENT}:0 - "), access  # the client, not nginx's 127.0.0.1
