"""The nginx sites in deploy/nginx are the route table's: written from it, and a real nginx running each
forwards exactly the requests the app's table calls public (a recording upstream says what arrived)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from feedback_intelligence.devtools.processes import REPO, free_port
from feedback_intelligence.edge.nginx_site import SHIPPED, ShippedSite, render_site, shipped_text
from feedback_intelligence.edge.surface import ROUTES, STATIC_PREFIX, Access, classify
from tests.edge import nginx

REACHED = b'{"upstream":"reached"}'


@pytest.mark.parametrize("site", SHIPPED, ids=[site.path for site in SHIPPED])
def test_the_shipped_site_is_what_the_generator_writes_now(site: ShippedSite) -> None:
    shipped = (REPO / site.path).read_text()
    assert shipped == shipped_text(site), f"{site.path} drifted from the route table: run scripts/nginx-config.sh"


def test_every_public_path_of_the_table_has_a_location_and_no_operator_path_has_one() -> None:
    text = render_site(["127.0.0.1:8080"])
    for rule in ROUTES:
        listed = f"location = {rule.path} " in text or (rule.prefix and f"location ^~ {rule.path} " in text)
        if "{" not in rule.path:
            assert listed == (rule.access is Access.PUBLIC), rule.path


class _Recorder(BaseHTTPRequestHandler):
    """Answers every request 200 with REACHED: whatever arrives here, nginx forwarded."""

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(REACHED)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(REACHED)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def recorder() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def _concrete(path: str) -> str:
    """A request path for a table path: each ``{parameter}`` one segment; a prefix with a file under it."""
    segments = ["x1" if part.startswith("{") else part for part in path.split("/")]
    concrete = "/".join(segments)
    return concrete + "app.js" if concrete.endswith("/") and concrete != "/" else concrete


METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
EXTRA_TARGETS = [
    "/health/",
    "/live/feedback/a/b",
    "/staticx",
    "/static",
    "/nothing-here",
    "/report?from=2026-01-01",
    "/cases/x1/actions/more",
    "/auth/other",
    "/admin/users/x1/grants",
]


def requests_to_try() -> list[tuple[str, str]]:
    paths = {_concrete(rule.path) for rule in ROUTES} | {_concrete(STATIC_PREFIX)}
    targets = sorted(paths) + EXTRA_TARGETS
    return [(method, target) for target in targets for method in METHODS]


@pytest.mark.nginx
@pytest.mark.parametrize("site", SHIPPED, ids=[Path(site.path).name for site in SHIPPED])
def test_nginx_forwards_exactly_what_the_table_calls_public(recorder: int, site: ShippedSite) -> None:
    wrong = []
    with (
        nginx.run_nginx(lambda port: nginx.site_config(port, recorder, REPO / site.path)) as edge,
        httpx.Client(base_url=edge.url, timeout=10) as http,
    ):
        for method, target in requests_to_try():
            path, _, query = target.partition("?")
            public = classify(method, path, query).access is Access.PUBLIC
            answer = http.request(method, target)
            reached = answer.status_code == 200 and (method == "HEAD" or answer.content == REACHED)
            refused = answer.status_code == 404 and (method == "HEAD" or answer.json() == {"error": "Not Found"})
            if (public and not reached) or (not public and not refused):
                wrong.append(
                    f"{method} {target}: table says {'public' if public else 'operator'}, "
                    f"nginx answered {answer.status_code}"
                )
        # the operator write stays off the edge, however it is spelt; nginx is stricter than the app here
        for query in ("snapshot=true", "snapshot=1&from=2026-01-01", "SNAPSHOT=yes"):
            answer = http.get("/report?" + query)
            assert answer.status_code == 404 and answer.json() == {"error": "Not Found"}, query
    assert not wrong, "\n".join(wrong)
