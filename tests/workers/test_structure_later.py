"""Save now, structure later, over real processes: the pending lifecycle, a down model, a SIGKILLed
replica's lease taken over, and exactly-once structuring across two replicas on one PostgreSQL."""

from __future__ import annotations

import re
import tempfile
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from feedback_intelligence.devtools.processes import ServerProcess, app_server, free_port, sim_ollama
from tests.support.waiting import wait_for_sync

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

TEXT = "Maito oli hapanta vaikka päiväys oli huomenna, ja kassalla jono."
ACCEPTED = {
    "category": "maito_kylma",
    "theme": "hapan maito",
    "severity": "high",
    "type": "complaint",
    "language": "fi",
}


def ollama_env(sim: ServerProcess, **extra: str) -> dict[str, str]:
    return {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": sim.url,
        "FI_LLM_MODEL": "sim-model",
        "FI_LLM_SLOTS": "2",
        "FI_LLM_ACQUIRE_TIMEOUT_MS": "500",
        "FI_LLM_BACKGROUND_RESERVE": "0",
        **extra,
    }


def later(feedback_id: str | None = None, text: str = TEXT) -> dict:
    return {
        "id": feedback_id or f"later-{uuid.uuid4().hex[:12]}",
        "source": "desk",
        "text": text,
        "structureLater": True,
    }


def sim_stats(sim: ServerProcess) -> dict:
    return httpx.get(sim.url + "/sim/stats", timeout=5).json()


def item(app: ServerProcess, feedback_id: str) -> dict:
    return httpx.get(f"{app.url}/live/feedback/{feedback_id}", timeout=10).json()


def metric(app: ServerProcess, name: str, **labels: str) -> float:
    text = httpx.get(app.url + "/metrics", timeout=10).text
    wanted = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    pattern = (
        re.compile(rf"^{re.escape(name)}\{{{re.escape(wanted)}\}} (\S+)$", re.M)
        if labels
        else re.compile(rf"^{re.escape(name)} (\S+)$", re.M)
    )
    found = pattern.search(text)
    return float(found.group(1)) if found else 0.0


@pytest.fixture(scope="module")
def slow_stack() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with sim_ollama(parallel=2, max_queue=8, service_ms=2500) as sim, app_server(ollama_env(sim)) as app:
        yield sim, app


def test_a_later_save_answers_202_pending_with_the_proposal_then_the_worker_structures_it(slow_stack) -> None:
    sim, app = slow_stack
    version = httpx.get(app.url + "/live/version", timeout=5).json()["version"]
    entry = later()
    saved = httpx.post(app.url + "/live/feedback", json=entry, timeout=10)
    assert saved.status_code == 202, saved.text
    body = saved.json()
    assert body["pending"] is True and body["structure"] is not None and not body["structureFailed"]
    assert saved.headers["Location"] == f"/live/feedback/{entry['id']}"
    proposal = body["structure"]

    # While the model works on it, every list and get says pending, with the raw text and the proposal.
    wait_for_sync(lambda: sim_stats(sim)["inFlight"] >= 1, timeout_s=20, what="the worker's call in the sim")
    while_pending = item(app, entry["id"])
    listed = {i["id"]: i for i in httpx.get(app.url + "/live/feedback", timeout=10).json()}
    assert while_pending["text"] == TEXT
    if while_pending["pending"]:  # (a very slow machine may already have finished the 2.5 s call)
        assert while_pending["structure"] == proposal and listed[entry["id"]]["pending"] is True
        health = httpx.get(app.url + "/health", timeout=30).json()
        assert health["backlog"]["live"]["items"] >= 1

    wait_for_sync(lambda: item(app, entry["id"])["pending"] is False, timeout_s=60, what="the worker to settle it")
    done = item(app, entry["id"])
    assert done["structure"] is not None and not done["structureFailed"] and done["text"] == TEXT
    assert httpx.get(app.url + "/live/version", timeout=5).json()["version"] >= version + 2  # saved, structured
    assert metric(app, "fi_structure_later_total", outcome="structured") >= 1
    assert metric(app, "fi_structure_backlog", channel="live") == 0
    backlog = httpx.get(app.url + "/health", timeout=30).json()["backlog"]["live"]
    assert (backlog["items"], backlog["oldestAgeSeconds"], backlog["minutesLeft"]) == (0, 0.0, 0)
    # The same save retried never makes a second row.
    assert httpx.post(app.url + "/live/feedback", json=entry, timeout=10).status_code == 409


def test_later_with_an_accepted_structure_is_refused_and_stores_nothing(slow_stack) -> None:
    _, app = slow_stack
    entry = {**later(), "acceptedStructure": ACCEPTED}
    refused = httpx.post(app.url + "/live/feedback", json=entry, timeout=10)
    assert refused.status_code == 400
    assert "later_with_structure" in refused.text
    assert httpx.get(f"{app.url}/live/feedback/{entry['id']}", timeout=5).status_code == 404


def test_a_later_save_is_never_shed_while_every_slot_is_busy(slow_stack) -> None:
    sim, app = slow_stack
    with ThreadPoolExecutor(3) as pool:
        holders = [pool.submit(httpx.post, app.url + "/interpret", json={"text": TEXT}, timeout=60) for _ in range(2)]
        wait_for_sync(lambda: sim_stats(sim)["inFlight"] >= 2, timeout_s=20, what="two calls holding the slots")
        shed = httpx.post(app.url + "/feedback", json={"source": "email", "text": TEXT}, timeout=10)
        saved = httpx.post(app.url + "/feedback", json={**later(), "source": "email"}, timeout=10)
        for holder in holders:
            holder.result()
    assert shed.status_code == 503  # API ingest keeps its contract: shed, nothing stored
    assert saved.status_code == 202 and saved.json()["pending"] is True  # ... unless the client asked for later
    wait_for_sync(
        lambda: httpx.get(app.url + saved.headers["Location"], timeout=5).json()["pending"] is False,
        timeout_s=60,
        what="the corpus row to be structured",
    )


class _Failing(BaseHTTPRequestHandler):
    """A backend that is up but fails every completion (500): a failure an attempt is spent on."""

    def do_GET(self) -> None:
        self._answer(200, b'{"models": [], "version": "0.0.0"}')

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer(500, b'{"error": "the simulated GPU fell over"}')

    def _answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def failing_backend() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Failing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_failing_model_settles_a_later_row_structure_failed_after_bounded_attempts(failing_backend) -> None:
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": failing_backend,
        "FI_LLM_MODEL": "sim-model",
        "FI_STRUCTURE_MAX_ATTEMPTS": "2",
        "FI_STRUCTURE_RETRY_S": "0.2",
        "FI_STRUCTURE_POLL_S": "0.2",
    }
    with app_server(env) as app:
        entry = later()
        saved = httpx.post(app.url + "/live/feedback", json=entry, timeout=10)
        assert saved.status_code == 202
        proposal = saved.json()["structure"]
        wait_for_sync(lambda: item(app, entry["id"])["pending"] is False, timeout_s=60, what="the bounded retries")
        settled = item(app, entry["id"])
        assert settled["structureFailed"] is True and settled["structure"] == proposal  # the proposal is kept
        assert settled["text"] == TEXT and settled["salvageNotes"]
        assert metric(app, "fi_structure_later_total", outcome="retry") == 1
        assert metric(app, "fi_structure_later_total", outcome="gave_up") == 1


def test_a_down_model_spends_no_attempt_and_the_row_waits_pending() -> None:
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}",
        "FI_STRUCTURE_MAX_ATTEMPTS": "1",
        "FI_STRUCTURE_RETRY_S": "0.2",
        "FI_STRUCTURE_POLL_S": "0.2",
    }
    with app_server(env) as app:
        entry = later()
        assert httpx.post(app.url + "/live/feedback", json=entry, timeout=10).status_code == 202
        wait_for_sync(
            lambda: metric(app, "fi_structure_later_total", outcome="outage") >= 3,
            timeout_s=60,
            what="the worker to meet the outage three times",
        )
        waiting = item(app, entry["id"])
        assert waiting["pending"] is True and not waiting["structureFailed"]  # one attempt allowed, none spent
        assert metric(app, "fi_structure_later_total", outcome="gave_up") == 0


def test_a_sigkilled_replica_loses_nothing_its_lease_lapses_and_another_process_structures_it() -> None:
    data = Path(tempfile.mkdtemp(prefix="fi-later-kill-"))
    with sim_ollama(parallel=2, max_queue=8, service_ms=120_000) as sim:
        env = ollama_env(sim, FI_STRUCTURE_LEASE_S="3", FI_STRUCTURE_POLL_S="0.3")
        entry = later()
        with app_server(env, data_dir=data) as doomed:
            assert httpx.post(doomed.url + "/live/feedback", json=entry, timeout=10).status_code == 202
            wait_for_sync(lambda: sim_stats(sim)["inFlight"] == 1, timeout_s=20, what="the doomed replica's call")
            doomed.kill()  # SIGKILL: no release, no goodbye
        httpx.post(sim.url + "/sim/config", json={"serviceMs": 100}, timeout=5)
        with app_server(env, data_dir=data) as heir:
            orphan = item(heir, entry["id"])
            assert orphan["text"] == TEXT and orphan["structure"] is not None  # nothing lost
            wait_for_sync(lambda: item(heir, entry["id"])["pending"] is False, timeout_s=60, what="the takeover")
            taken = item(heir, entry["id"])
            assert not taken["structureFailed"] and taken["structure"] is not None
            assert len(httpx.get(heir.url + "/live/feedback", timeout=10).json()) == 1
            assert metric(heir, "fi_structure_later_total", outcome="structured") == 1
