"""The chain as deploy/ ships it, in Chromium: the shipped replicas site (written from the route table; only
its upstream and listen lines changed, as docs/operations/nginx.md tells an operator) in front of two ``feedctl
serve`` replicas on PostgreSQL and Redis with FI_AUTH=local. The chain's manager (every store) signs in,
saves a desk entry, opens the management view, acts on the entry's case, opens the drill-in and downloads
the CSV: every request goes through nginx, none is a 404, the console has no error.

With the site nginx shipped before it was written from the table, the sign-in page itself was nginx's 404."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest
from playwright.sync_api import expect
from prometheus_client.parser import text_string_to_metric_families

from feedback_intelligence.devtools.databases import postgres_pair
from feedback_intelligence.devtools.processes import REPO, ServerProcess, sim_ollama
from tests.edge import nginx
from tests.scale.conftest import replica_env, replicas, unique_gate_name
from tests.scale.nginx_replicas import nginx_over
from tests.web.conftest import browser, pages, screenshot  # noqa: F401 - the browser fixtures

pytestmark = [pytest.mark.browser, pytest.mark.nginx, pytest.mark.postgres, pytest.mark.redis, pytest.mark.process]

STORE = {"id": "hki-1", "name": "Helsinki Keskusta"}
PASSWORD = "ketjun-paallikko-1"
TEXT = "Lapsi sai vatsataudin, kun söi meiltä ostettua jauhelihaa."


@dataclass
class Chain:
    edge: nginx.Nginx
    replicas: list[ServerProcess]


def _add_manager(replica: ServerProcess) -> None:
    """``feedctl user add`` on the host, against one replica (the loopback operator), as the guide says."""
    env = {**os.environ, "FEEDCTL_URL": replica.url, "PYTHONPATH": str(REPO), "FEEDCTL_PASSWORD": PASSWORD}
    added = subprocess.run(
        [
            sys.executable,
            "-m",
            "feedback_intelligence",
            "user",
            "add",
            "maija",
            "--role",
            "manager:*",
            "--name",
            "Maija",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert added.returncode == 0, added.stderr


@pytest.fixture(scope="module")
def chain() -> Iterator[Chain]:
    with sim_ollama(service_ms=100) as sim, postgres_pair("fi_chain") as databases:
        env = replica_env(
            sim,
            databases,
            gate_name=unique_gate_name(),
            FI_AUTH="local",
            FI_SESSION_SECRET="chain-test-session-secret",
            FI_TRUSTED_PROXIES='["127.0.0.1/32"]',
            FI_STORES=json.dumps([STORE]),
            # One person walks through the desk and the whole management view within a minute, with the
            # page's own refreshes: more than the default 30 requests a minute of one visitor.
            FI_RATE_LIMIT="240/60seconds",
        )
        with replicas(2, env) as servers:
            _add_manager(servers[0])
            ports = [int(server.url.rsplit(":", 1)[1]) for server in servers]
            with nginx_over(ports) as edge:
                yield Chain(edge, servers)


@dataclass
class Traffic:
    """Every request the page made and every answer it got, and the console's errors."""

    edge: str
    foreign: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # any other 4xx or 5xx
    console_errors: list[str] = field(default_factory=list)
    paths: set[str] = field(default_factory=set)
    request_ids: list[str] = field(default_factory=list)  # the X-Request-ID of each answer through nginx

    def watch(self, page) -> None:
        page.on("request", self._request)
        page.on("response", self._response)
        page.on("console", lambda msg: self.console_errors.append(msg.text) if msg.type == "error" else None)

    def _request(self, request) -> None:
        if not request.url.startswith(self.edge + "/"):
            self.foreign.append(request.url)
        self.paths.add(request.url.removeprefix(self.edge).split("?", 1)[0])

    def _response(self, response) -> None:
        if response.url.startswith(self.edge + "/") and (request_id := response.headers.get("x-request-id")):
            self.request_ids.append(request_id)
        if response.status == 404:
            self.not_found.append(f"{response.request.method} {response.url}")
        elif response.status >= 400:
            self.refused.append(f"{response.request.method} {response.url} {response.status} {response.text()[:200]}")


def test_sign_in_desk_save_management_view_case_drill_in_and_csv_through_nginx(chain: Chain, pages, tmp_path) -> None:  # noqa: F811 - chain first: its databases are made before Playwright runs a loop
    edge = chain.edge.url
    traffic = Traffic(edge)
    page = pages.open(setup=traffic.watch)

    # signing in: /desk sends an anonymous browser to the sign-in page, which nginx must serve
    page.goto(f"{edge}/desk?store={STORE['id']}")
    expect(page).to_have_url(f"{edge}/signin?next=/desk")  # (the app's redirect keeps the path, not the query)
    page.locator("#signin-username").fill("maija")
    page.locator("#signin-password").fill(PASSWORD)
    page.locator("#signin-btn").click()
    expect(page).to_have_url(f"{edge}/desk")
    page.goto(f"{edge}/desk?store={STORE['id']}")  # the shop's desk address
    expect(page.locator("#session-name")).to_have_text("Maija")

    # the desk: its store checked (/live/desk-store), then interpret and save
    expect(page.locator("#desk-store")).to_have_text(f"Myymälä: {STORE['name']}", timeout=15000)
    expect(page.locator("#interpret-btn")).to_be_enabled(timeout=15000)
    page.fill("#feedback-text", TEXT)
    page.click("#interpret-btn")
    expect(page.locator("#review")).to_be_visible(timeout=15000)
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_have_text("Tallennettu ✓ Kiitos!", timeout=15000)
    expect(page.locator("#mine-list .mine-item")).to_contain_text(TEXT, timeout=15000)
    screenshot(page, "chain-nginx-desk-saved")

    # the management view, the entry's case acknowledged, the case itself read
    page.goto(edge + "/")
    expect(page.locator("#report")).to_have_attribute("data-items", "1", timeout=30000)
    case = page.locator("#cases-list li.case").first
    expect(case).to_have_attribute("data-state", "open", timeout=30000)
    ref = case.get_attribute("data-ref")
    assert ref and ref.startswith("live:desk-")
    case.locator('button[data-action="acknowledge"]').click()
    expect(case).to_have_attribute("data-state", "acknowledged", timeout=15000)
    opened = page.evaluate("async (ref) => (await fetch('/cases/' + encodeURIComponent(ref))).json()", ref)
    assert opened["ref"] == ref and opened["state"] == "acknowledged"
    audit = page.evaluate("async () => (await fetch('/audit')).text()")
    assert "case.acknowledge" in audit and "Maija" in audit  # signed in: the actor is the person

    # the drill-in, then the CSV export
    page.locator('#report-channels [data-channel="all"]').click()
    drill = page.locator("#drill-dialog")
    expect(drill).to_have_attribute("data-total", "1", timeout=15000)
    expect(drill.locator(".item-text")).to_contain_text(TEXT)
    page.keyboard.press("Escape")
    with page.expect_download() as download:
        page.click("#csv-link")
    saved = tmp_path / "items.csv"
    download.value.save_as(saved)
    assert TEXT in saved.read_text(encoding="utf-8-sig")
    screenshot(page, "chain-nginx-management")

    assert not traffic.foreign, traffic.foreign
    assert not traffic.not_found, traffic.not_found
    assert not traffic.refused, traffic.refused
    assert not traffic.console_errors, traffic.console_errors
    for path in ("/signin", "/auth/signin", "/live/desk-store", "/interpret", "/live/feedback", "/cases", "/audit"):
        assert path in traffic.paths, (path, sorted(traffic.paths))
    assert any(path.startswith("/report/items") for path in traffic.paths)

    # both replicas served the page (the site logs which answered; the session and the cookie hold on each)
    log = chain.edge.access_log()
    for replica in chain.replicas:
        assert "upstream=" + replica.url.removeprefix("http://") in log, log
        assert "Traceback" not in replica.log(), replica.log()

    # one request id from nginx through the app: nginx made it, logged it, the app answered with it
    assert traffic.request_ids and all(f"request_id={rid}" in log for rid in traffic.request_ids), traffic.request_ids
    # the session's HTTP series, by route template and status, summed over the replicas' /metrics
    served = _http_requests(chain.replicas)
    for route, method, status in [
        ("/signin", "GET", "200"),
        ("/auth/signin", "POST", "200"),
        ("/live/feedback", "POST", "201"),
        ("/cases/{ref}/actions", "POST", "200"),
        ("/report/items.csv", "GET", "200"),
    ]:
        assert served.get((route, method, status), 0) >= 1, (route, method, status, sorted(served))
    assert not any("live:desk-" in route for route, _, _ in served)  # templates, never a case's ref


def _http_requests(replicas: list[ServerProcess]) -> dict[tuple[str, str, str], float]:
    """``fi_http_requests_total`` by (route, method, status), summed over the replicas (each the host's
    loopback operator)."""
    served: dict[tuple[str, str, str], float] = {}
    for replica in replicas:
        text = httpx.get(replica.url + "/metrics", timeout=10).text
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == "fi_http_requests_total":
                    key = (sample.labels["route"], sample.labels["method"], sample.labels["status"])
                    served[key] = served.get(key, 0) + sample.value
    return served
