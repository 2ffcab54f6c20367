"""Hardening the edges (ADR 0012) against real processes (`feedctl serve`, sim-ollama): the HTTP server's bounds, the
connection kept after a refused body, and a frozen backend turning /health "stalled"."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import pytest

from feedback_intelligence.devtools.processes import REPO, ServerProcess, app_server, free_port, sim_ollama
from tests.api.test_gate_over_http import INTERPRET, ollama_env
from tests.support.waiting import wait_for_sync

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def connect(app: ServerProcess) -> socket.socket:
    port = int(app.url.rsplit(":", 1)[1])
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def closed_by_server(sock: socket.socket, within_s: float) -> bool:
    """Whether the server closes the connection within ``within_s`` (reading whatever it sends first)."""
    sock.settimeout(within_s)
    deadline = time.monotonic() + within_s
    try:
        while time.monotonic() < deadline:
            if sock.recv(65536) == b"":
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False
    return False


@pytest.fixture(scope="module")
def bounded_app() -> ServerProcess:
    with (
        sim_ollama(parallel=2, max_queue=8, service_ms=20) as sim,
        app_server(ollama_env(sim, FI_REQUEST_READ_TIMEOUT_S="1", FI_KEEP_ALIVE_TIMEOUT_S="1")) as app,
    ):
        yield app


def test_never_finished_40_mb_headers_are_cut_off_without_growing_the_process(bounded_app: ServerProcess) -> None:
    before = rss_kib(bounded_app.proc.pid)
    sent_per_connection = []
    for _ in range(3):
        with connect(bounded_app) as sock:
            sock.sendall(b"GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ")
            sent = 0
            chunk = b"a" * 65536
            with contextlib.suppress(ConnectionResetError, BrokenPipeError, TimeoutError):
                while sent < 40 * 1024 * 1024:
                    sock.sendall(chunk)
                    sent += len(chunk)
            sent_per_connection.append(sent)
            assert closed_by_server(sock, 5)
    growth_mib = (rss_kib(bounded_app.proc.pid) - before) / 1024
    assert all(sent < 40 * 1024 * 1024 for sent in sent_per_connection), "the server read a 40 MB header"
    assert growth_mib < 20, f"the process grew by {growth_mib:.0f} MiB"
    assert httpx.get(bounded_app.url + "/livez", timeout=5).status_code == 200


def test_trickling_and_silent_connections_are_closed_after_the_read_timeout(bounded_app: ServerProcess) -> None:
    trickling = [connect(bounded_app) for _ in range(30)]
    silent = connect(bounded_app)
    try:
        for sock in trickling:
            sock.sendall(b"GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        stop = threading.Event()

        def trickle() -> None:  # one header byte per connection every 200 ms, never the blank line
            while not stop.is_set():
                for sock in trickling:
                    with contextlib.suppress(OSError):
                        sock.send(b"X")
                stop.wait(0.2)

        feeder = threading.Thread(target=trickle, daemon=True)
        feeder.start()
        started = time.monotonic()
        closed = [closed_by_server(sock, max(0.1, 15 - (time.monotonic() - started))) for sock in trickling]
        stop.set()
        feeder.join(5)
        assert all(closed), f"{closed.count(False)} trickling connections still open after 15 s"
        assert closed_by_server(silent, 5), "a connection that never sent a byte stayed open"
    finally:
        for sock in [*trickling, silent]:
            sock.close()
    assert httpx.get(bounded_app.url + "/livez", timeout=5).status_code == 200


def http_exchange(sock: socket.socket, request: bytes) -> bytes:
    """Send one request, read one whole response (Content-Length framed)."""
    sock.sendall(request)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def test_a_lone_surrogate_body_is_400_and_the_connection_stays_usable(bounded_app: ServerProcess) -> None:
    body = json.dumps({"text": "abc \ud800"}).encode()
    with connect(bounded_app) as sock:
        refused = http_exchange(
            sock,
            b"POST /interpret HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body,
        )
        assert refused.startswith(b"HTTP/1.1 400"), refused[:200]
        assert b"surrogate" in refused
        again = http_exchange(sock, b"GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert again.startswith(b"HTTP/1.1 200"), again[:200]


def test_a_frozen_backend_turns_health_stalled_in_metrics_and_on_the_board() -> None:
    with (
        sim_ollama(parallel=2, max_queue=8, service_ms=50) as sim,
        app_server(ollama_env(sim, FI_HEALTH_TIMEOUT_S="1", FI_LLM_CALL_TIMEOUT_S="90")) as app,
    ):
        assert httpx.post(app.url + "/interpret", json=INTERPRET, timeout=30).status_code == 200  # a mean to judge by
        os.kill(sim.proc.pid, signal.SIGSTOP)  # the backend process freezes (kill -STOP)
        answers: list[tuple[int, str]] = []
        try:

            def interpret() -> None:
                answer = httpx.post(app.url + "/interpret", json=INTERPRET, timeout=120)
                answers.append((answer.status_code, answer.text))

            holders = [threading.Thread(target=interpret) for _ in range(2)]
            for holder in holders:
                holder.start()
            wait_for_sync(
                lambda: httpx.get(app.url + "/admin/status", timeout=5).json()["gate"]["inUse"] == 2,
                timeout_s=20,
                what="both slots held by the frozen backend",
            )
            wait_for_sync(
                lambda: httpx.get(app.url + "/health", timeout=10).status_code == 503,
                timeout_s=30,
                what="/health to stop saying ok",
            )
            health = httpx.get(app.url + "/health", timeout=10)
            assert health.json()["status"] == "stalled", health.text
            metrics = httpx.get(app.url + "/metrics", timeout=5).text
            assert "fi_gate_stalled 1.0" in metrics
            board = subprocess.run(
                [sys.executable, "-m", "feedback_intelligence", "status"],
                capture_output=True,
                text=True,
                timeout=60,
                cwd=REPO,
                env={**os.environ, "PYTHONPATH": str(REPO), "FEEDCTL_URL": app.url, "COLUMNS": "200"},
            )
            assert "stalled" in board.stdout, board.stdout + board.stderr
        finally:
            os.kill(sim.proc.pid, signal.SIGCONT)
        for holder in holders:
            holder.join(120)
        # the frozen calls end once it thaws: answered, or an honest 503 (a frozen server's keep-alive timers
        # fire on SIGCONT and may close the connection a call was sent on); none hangs, none is a 500
        assert len(answers) == 2 and {code for code, _ in answers} <= {200, 503}, answers
        assert httpx.get(app.url + "/health", timeout=30).json()["status"] == "ok"


def test_boot_is_refused_when_both_stores_are_one_sqlite_file_spelled_two_ways() -> None:
    data = Path(tempfile.mkdtemp(prefix="fi-same-file-"))
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "FI_PORT": str(free_port()),
        "FI_DATABASE_URL": "sqlite:///feedback.db",
        "FI_LIVE_DATABASE_URL": f"sqlite:///{data}/feedback.db",
    }
    done = subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", "serve"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=data,
        env=env,
    )
    assert done.returncode == 2
    assert "invalid configuration" in done.stderr and "FI_LIVE_DATABASE_URL" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (data / "feedback.db").exists()  # refused before anything was created


def test_postgresql_down_at_boot_is_one_line_and_exit_3() -> None:
    """Faults by name (ADR 0023): no traceback, the documented code, and which database it was."""
    data = Path(tempfile.mkdtemp(prefix="fi-pg-down-"))
    nobody = free_port()  # nothing listens there: PostgreSQL is down
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "FI_PORT": str(free_port()),
        "FI_DATABASE_URL": f"sqlite:///{data}/feedback.db",
        "FI_LIVE_DATABASE_URL": f"postgresql://postgres@127.0.0.1:{nobody}/live",
    }
    done = subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", "serve"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=data,
        env=env,
    )
    assert done.returncode == 3, done.stderr
    errors = [line for line in done.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and "cannot start: the live database cannot be reached" in errors[0], done.stderr
    assert "Traceback" not in done.stderr
