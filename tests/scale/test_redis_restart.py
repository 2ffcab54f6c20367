"""A Redis restart mid-crowd leaks nothing (ADR 0023).

Six clerks, each pressing Interpret one call at a time (so a ``429 too_many_inflight`` can only be a
leaked place), through ``feedctl serve`` on a private redis-server of this test's own (never the
shared one on 6379) that keeps its data across the restart, as a Redis with persistence does: the
in-flight places and gate leases held when it stops are still there when it is back. Before the fix
a release on a dead pooled connection failed and left the clerk's place until its lease ran out, and
the first calls on dead pooled connections after the restart were shed ``gate_unavailable``.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from feedback_intelligence.devtools.processes import ServerProcess, app_server, free_port, sim_ollama
from feedback_intelligence.gate.redis_pool import RedisSlotPool
from feedback_intelligence.gate.slots import Priority
from tests.prerequisites import require
from tests.scale.conftest import INTERPRET, unique_gate_name
from tests.support.waiting import wait_for_sync

pytestmark = [pytest.mark.redis]

CLERKS = 6


class PersistentRedis:
    """A private redis-server that saves on shutdown and loads on start (its own dir and port)."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="fi-redis-")
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        persist = ["--dir", self.dir, "--save", "3600 1", "--appendonly", "no"]
        subprocess.run(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", *persist, "--daemonize", "yes"],
            check=True,
            capture_output=True,
        )
        wait_for_sync(self.answers, 10, "the private redis to start")

    def stop(self) -> None:
        subprocess.run(["redis-cli", "-p", str(self.port), "shutdown", "save"], capture_output=True, check=False)
        wait_for_sync(lambda: not self.answers(), 10, "the private redis to stop")

    def restart(self) -> None:
        self.stop()
        self.start()

    def answers(self) -> bool:
        done = subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True, check=False)
        return done.stdout.strip() == b"PONG"

    def close(self) -> None:
        subprocess.run(["redis-cli", "-p", str(self.port), "shutdown", "nosave"], capture_output=True, check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def redis_server() -> Iterator[PersistentRedis]:
    require("redis-server")
    require("redis-cli")
    binary = shutil.which("redis-server")
    assert binary is not None
    server = PersistentRedis(binary)
    server.start()
    try:
        yield server
    finally:
        server.close()


@dataclass
class Press:
    started: float
    status: int
    error: str


async def clerk(app: ServerProcess, n: int, until: float, presses: list[Press]) -> None:
    transport = httpx.AsyncHTTPTransport(local_address=f"127.0.0.{20 + n}")
    async with httpx.AsyncClient(transport=transport, base_url=app.url, timeout=30) as http:
        while time.monotonic() < until:
            started = time.monotonic()
            try:
                answer = await http.post("/interpret", json=INTERPRET)
            except httpx.HTTPError as exc:
                presses.append(Press(started, 0, type(exc).__name__))
                continue
            body = answer.json() if answer.headers.get("content-type", "").startswith("application/json") else {}
            presses.append(Press(started, answer.status_code, str(body.get("reason") or body.get("error") or "")))
            await asyncio.sleep(0.05)


def test_a_redis_restart_mid_crowd_leaks_no_place_and_sheds_nothing_once_redis_answers(
    redis_server: PersistentRedis,
) -> None:
    with (
        sim_ollama(parallel=2, max_queue=8, service_ms=150) as sim,
        app_server(
            {
                "FI_LLM_BACKEND": "ollama",
                "FI_LLM_BASE_URL": sim.url,
                "FI_LLM_MODEL": "sim-model",
                "FI_LLM_SLOTS": "2",
                "FI_LLM_ACQUIRE_TIMEOUT_MS": "2000",  # the crowd waits for a slot rather than shed
                "FI_REDIS_URL": redis_server.url,
                "FI_GATE_NAME": unique_gate_name(),
                "FI_REDIS_LEASE_S": "10",
                "FI_RATE_LIMIT_EXEMPT_LOOPBACK": "false",  # each clerk's address has its in-flight limit
                "FI_RATE_LIMIT": "100000/60seconds",
                "FI_AUDIENCE_RATE_LIMIT": "100000/60seconds",
            }
        ) as app,
    ):
        presses: list[Press] = []

        async def crowd() -> float:
            until = time.monotonic() + 8
            clerks = [asyncio.create_task(clerk(app, n, until, presses)) for n in range(CLERKS)]
            await asyncio.sleep(2.5)  # every clerk is pressing, places and leases are held
            await asyncio.to_thread(redis_server.restart)
            answered_at = time.monotonic()  # redis-cli ping answered: Redis is up again
            await asyncio.gather(*clerks)
            return answered_at

        answered_at = asyncio.run(crowd())

    leaked = [p for p in presses if p.status == 429]
    assert not leaked, f"{len(leaked)} presses refused as still running: {leaked[:3]}"
    after = [p for p in presses if p.started > answered_at]
    assert len(after) >= CLERKS, "the crowd kept pressing after the restart"
    shed_after = [p for p in after if p.status != 200]
    assert not shed_after, f"{len(shed_after)} presses after Redis answered again were not served: {shed_after[:3]}"
    assert {p.status for p in presses} <= {200, 503}


def test_a_release_sent_while_redis_was_down_frees_the_slot_once_redis_is_back(redis_server: PersistentRedis) -> None:
    """Redis kept the lease across its restart; the release that failed meanwhile is sent again, so the
    slot is free long before the lease (10 s here) would lapse by itself."""

    async def scenario() -> int:
        pool = RedisSlotPool(redis_server.url, slots=1, background_reserve=0, name=unique_gate_name(), lease_s=10)
        try:
            lease = await pool.acquire(Priority.INTERACTIVE, timeout_s=0)
            assert lease is not None
            await asyncio.to_thread(redis_server.stop)
            await pool.release(lease)  # fails: Redis is away
            await asyncio.to_thread(redis_server.start)
            again = await pool.acquire(Priority.INTERACTIVE, timeout_s=5)  # woken by the resent release
            assert again is not None, "the slot stayed taken although its holder had let go"
            await pool.release(again)
            return (await pool.occupancy()).in_use
        finally:
            await pool.aclose()

    assert asyncio.run(scenario()) == 0
