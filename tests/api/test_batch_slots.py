"""Bulk import past the process's batch slots is shed, not queued (docs/adr/0043): of four batches sent at
once, each is either admitted or answered 503 with ``Retry-After``; sent again, nothing is lost and nothing
stored twice, by a client here and by ``feedctl load``; the event loop answers while an admitted batch works.

An admitted batch is held inside its rules (``IngestService.record_many``, in its worker thread) until the
test lets it go, so which batches are admitted and which are shed is decided by the slots, never by timing.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from feedback_intelligence.api.app import create_app
from feedback_intelligence.devtools.processes import REPO, free_port
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.services.ingest import IngestCommand, IngestService
from tests.api.test_batch import app_with, item
from tests.api.test_hardening import client, counting_backend
from tests.edge.test_real_app import LOOPBACK, real_settings
from tests.support.waiting import wait_for_sync

WAIT_S = 30  # only ever reached when the behaviour is wrong
CHANNEL_BATCHES = ("/feedback/batch", "/live/feedback/batch")


class HeldRules:
    """Stands in for ``IngestService.record_many`` (``install``): holds the first ``holds`` batches, each in
    its worker thread, until ``release``; ``held`` is set once that many are inside."""

    def __init__(self, holds: int) -> None:
        self.holds = holds
        self.held = threading.Event()
        self.release = threading.Event()
        self._inside = 0
        self._lock = threading.Lock()

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real = IngestService.record_many

        def record_many(service: IngestService, commands: Sequence[IngestCommand]) -> list[StoredFeedback]:
            with self._lock:
                hold = self._inside < self.holds
                self._inside += hold
                if self._inside == self.holds:
                    self.held.set()
            if hold:
                assert self.release.wait(WAIT_S), "never released"
            return real(service, commands)

        monkeypatch.setattr(IngestService, "record_many", record_many)


class CountedSheds:
    """Stands in for the ``fi_batch_sheds_total`` counter: counts as it does and sets ``shed`` at the first."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.shed = threading.Event()

    def inc(self, amount: float = 1) -> None:
        self.real.inc(amount)
        self.shed.set()


def batch_of(name: str, size: int = 5) -> dict[str, Any]:
    return {"items": [item(0, id=f"{name}-{n}", text=f"Leipä loppui, {name} kerta {n}.") for n in range(size)]}


async def stored_ids(operator: httpx.AsyncClient, path: str) -> list[str]:
    return [row["id"] for row in (await operator.get(path, params={"limit": 1000})).json()]


@pytest.mark.parametrize("slots", [1, 2])
async def test_four_batches_at_once_are_admitted_or_shed_and_sent_again_each_item_is_stored_once(
    tmp_path: Path, databases: dict[str, str], monkeypatch: pytest.MonkeyPatch, slots: int
) -> None:
    rules = HeldRules(slots)
    rules.install(monkeypatch)
    # two batches for each channel: the slots are the process's, whichever channel a batch is for
    sends = [(path, batch_of(f"{path.strip('/').replace('/', '-')}-{n}")) for path in CHANNEL_BATCHES for n in (1, 2)]
    async for app in app_with(tmp_path, databases, counting_backend(), batch_slots=slots):
        async with client(app, LOOPBACK) as operator:
            answers = [asyncio.create_task(operator.post(path, json=body)) for path, body in sends]
            try:
                shed = await _shed_while_held(operator, rules, sends, answers, slots)
                assert app.state.runtime.metrics.registry.get_sample_value("fi_batch_sheds_total") == len(shed)
            finally:
                rules.release.set()
                settled = await asyncio.gather(*answers)
            admitted = [answer for answer in settled if answer.status_code != 503]
            assert [(a.status_code, a.json()["accepted"]) for a in admitted] == [(200, 5)] * slots
            for path, body in shed:  # the client sends a shed batch again, after Retry-After
                again = await operator.post(path, json=body)
                assert again.status_code == 200 and again.json()["accepted"] == 5, again.text
            for path, body in sends:  # and every batch once more: all of it is there already
                twice = await operator.post(path, json=body)
                assert twice.status_code == 200 and twice.json()["duplicate"] == 5, twice.text
            for single in ("/feedback", "/live/feedback"):
                expected = sorted(i["id"] for path, body in sends if path == f"{single}/batch" for i in body["items"])
                assert sorted(await stored_ids(operator, single)) == expected


async def _shed_while_held(
    operator: httpx.AsyncClient,
    rules: HeldRules,
    sends: list[tuple[str, dict[str, Any]]],
    answers: list[asyncio.Task[httpx.Response]],
    slots: int,
) -> list[tuple[str, dict[str, Any]]]:
    """While ``slots`` batches are held inside their rules: every other batch is answered 503 with
    Retry-After and nothing of it is stored, and the event loop answers. Returns the shed sends."""
    assert await asyncio.to_thread(rules.held.wait, WAIT_S)
    assert (await operator.get("/livez")).status_code == 200  # the loop serves while the batches work
    done: set[asyncio.Task[httpx.Response]] = set()
    while len(done) < len(sends) - slots:  # no slot frees within their wait
        finished, _ = await asyncio.wait(set(answers) - done, timeout=WAIT_S, return_when=asyncio.FIRST_COMPLETED)
        assert finished, "a batch past the slots was neither shed nor answered"
        done |= finished
    for answer in done:
        refused = answer.result()
        assert refused.status_code == 503, refused.text
        assert int(refused.headers["Retry-After"]) >= 1
        assert refused.json()["error"] == "busy" and refused.json()["reason"] == "batches"
    assert all(not answer.done() for answer in set(answers) - done)  # the admitted are still working
    shed = [send for send, answer in zip(sends, answers, strict=True) if answer in done]
    for path, body in shed:
        ids = {i["id"] for i in body["items"]}
        assert not ids & set(await stored_ids(operator, path.removesuffix("/batch")))
    return shed


@contextmanager
def served(app: FastAPI) -> Iterator[str]:
    """The app behind a real uvicorn on a loopback port, in a thread of this process (its lifespan on), so
    ``feedctl`` talks HTTP to it while the test holds its batches."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name="batch-slots-app", daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{port}"

        def started() -> bool:  # the lifespan has built the runtime and the socket listens
            assert thread.is_alive(), "the server stopped before it started"
            return bool(server.started)

        wait_for_sync(started, WAIT_S, "the server to start", poll_s=0.01)
        yield url
    finally:
        server.should_exit = True
        thread.join(WAIT_S)


def feedctl(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FEEDCTL_URL": url, "PYTHONPATH": str(REPO), "COLUMNS": "160"}
    return subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", *args], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.process
def test_feedctl_load_sends_a_shed_batch_again_after_retry_after_and_stores_each_line_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = HeldRules(1)
    rules.install(monkeypatch)
    app = create_app(
        real_settings(tmp_path, allowed_hosts=[], structure_worker=False, batch_slots=1), backend=counting_backend()
    )
    lines = [{"id": f"ld-{n}", "source": "email", "text": f"Kassajono oli pitkä, kerta {n}."} for n in range(10)]
    jsonl = tmp_path / "tuonti.jsonl"
    jsonl.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines), encoding="utf-8")
    args = ["load", "--later", "--json", "--chunk-size", "5", "--writers", "2", str(jsonl)]
    with served(app) as url:
        sheds = CountedSheds(app.state.runtime.metrics.batch_sheds)
        monkeypatch.setattr(app.state.runtime.metrics, "batch_sheds", sheds)
        loading: dict[str, subprocess.CompletedProcess[str]] = {}
        load = threading.Thread(target=lambda: loading.update(first=feedctl(url, *args)))
        load.start()
        assert rules.held.wait(WAIT_S)  # one chunk admitted and working
        assert sheds.shed.wait(WAIT_S)  # the other shed: 503 with Retry-After
        rules.release.set()
        load.join(WAIT_S * 4)
        first = loading["first"]
        assert first.returncode == 0, first.stdout + first.stderr
        body = json.loads(first.stdout)
        assert (body["savedForLater"], body["alreadyThere"], body["failed"]) == (10, 0, 0)
        rows = httpx.get(url + "/feedback", params={"limit": 1000}).json()
        assert sorted(row["id"] for row in rows) == sorted(line["id"] for line in lines)
        again = feedctl(url, *args)
        assert again.returncode == 0, again.stdout + again.stderr
        assert json.loads(again.stdout)["alreadyThere"] == 10
        assert len(httpx.get(url + "/feedback", params={"limit": 1000}).json()) == 10
