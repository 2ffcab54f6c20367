"""Connection shares (ADR 0023) against ``feedctl serve``: 300 slowloris sockets from one address take only that
address's share of the connections; another client's ``/livez`` keeps answering 200 throughout, and
the trickling sockets the server did accept are freed by the header timeout."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import pytest

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from feedback_intelligence.devtools.slowloris import slowloris
from tests.api.test_gate_over_http import ollama_env
from tests.api.test_hardening_over_http import closed_by_server

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

SHARE = 40


@pytest.fixture(scope="module")
def app() -> Iterator[ServerProcess]:
    with (
        sim_ollama(parallel=2, max_queue=8, service_ms=20) as sim,
        app_server(
            ollama_env(
                sim,
                FI_MAX_CONNECTIONS_PER_ADDRESS=str(SHARE),
                FI_REQUEST_HEADER_TIMEOUT_S="2",
                FI_REQUEST_READ_TIMEOUT_S="10",
            )
        ) as server,
    ):
        yield server


def port_of(app: ServerProcess) -> int:
    return int(app.url.rsplit(":", 1)[1])


def livez_from(app: ServerProcess, source: str) -> httpx.Response:
    """A fresh connection from ``source`` (a loopback address that is neither exempt nor the crowd's)."""
    with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=5) as client:
        return client.get(app.url + "/livez")


def test_300_slowloris_sockets_take_one_share_and_livez_answers_throughout(app: ServerProcess) -> None:
    # a socket counts as held once it stayed open a whole trickle round: long enough that a refusal
    # delayed by a loaded machine is not mistaken for a held socket
    with slowloris(port_of(app), 300, source="127.0.0.2", trickle_s=1.0) as crowd:
        answers = [livez_from(app, "127.0.0.3").status_code for _ in range(60)]
        counts = crowd.finish()
    assert answers == [200] * 60, f"{answers.count(200)} of 60 /livez answered 200 during the flood"
    assert counts.most_open <= SHARE, f"{counts.most_open} sockets held at once, above the share of {SHARE}"
    assert counts.refused >= 300 - SHARE, counts  # every socket past the share heard 429 at once
    assert counts.dropped > 0 or counts.open > 0, counts  # the held ones trickled (dropped after the timeout)


def test_the_header_timeout_frees_trickling_sockets_and_their_share(app: ServerProcess) -> None:
    held = [
        socket.create_connection(("127.0.0.1", port_of(app)), timeout=5, source_address=("127.0.0.4", 0))
        for _ in range(SHARE)
    ]
    try:
        for sock in held:
            sock.sendall(b"GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # a head that never ends
        # every place of 127.0.0.4 is taken: one more connection from it is refused at once
        refused = livez_from(app, "127.0.0.4")
        assert refused.status_code == 429 and refused.json()["error"] == "too_many_connections"
        assert refused.headers["Retry-After"] == "1"
        # the 2 s header timeout closes them, well before the 10 s read timeout would
        closed = [closed_by_server(sock, 7) for sock in held]
        assert all(closed), f"{closed.count(False)} trickling sockets still open after the header timeout"
    finally:
        for sock in held:
            sock.close()
    assert livez_from(app, "127.0.0.4").status_code == 200  # the share came back


def test_the_exempt_host_address_is_not_held_to_a_share(app: ServerProcess) -> None:
    held = [socket.create_connection(("127.0.0.1", port_of(app)), timeout=5) for _ in range(SHARE + 5)]
    try:
        assert httpx.get(app.url + "/livez", timeout=5).status_code == 200
    finally:
        for sock in held:
            sock.close()
