"""Three API replicas behind one Redis gate and one PostgreSQL store, as real processes over real HTTP.

The sim runs exactly the gate's 2 calls in parallel and queues the rest without bound, like Ollama.
So "the replicas share one gate" shows in the sim twice: it never runs more than 2 calls, and no call
ever waits in its queue (with a gate per replica, 3 × 2 admitted calls would queue 4 behind 2).
"""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx
import pytest

from feedback_intelligence.cli.crowd import CrowdResult, run_crowd
from feedback_intelligence.devtools.databases import postgres_pair
from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.scale.conftest import (
    INTERPRET,
    desk_entry,
    gate_status,
    replica_env,
    replicas,
    sim_stats,
    unique_gate_name,
)
from tests.scale.nginx_replicas import nginx_over
from tests.support.waiting import wait_for_sync

pytestmark = [pytest.mark.process, pytest.mark.redis, pytest.mark.postgres]

SERVICE_MS = 300
LEASE_S = 2


@dataclass
class Trio:
    sim: ServerProcess
    apps: list[ServerProcess]
    env: dict[str, str]  # what a further replica of the same deployment is started with


@pytest.fixture(scope="module")
def trio() -> Iterator[Trio]:
    """sim-ollama (2 parallel, 300 ms a call) and three replicas on one gate name and two fresh databases.

    Leases of 2 s (FI_REDIS_LEASE_S) so that a killed replica's slot comes back within a test's patience.
    """
    with postgres_pair() as databases, sim_ollama(parallel=2, max_queue=8, service_ms=SERVICE_MS) as sim:
        env = replica_env(
            sim,
            databases,
            gate_name=unique_gate_name(),
            FI_REDIS_LEASE_S=str(LEASE_S),
            FI_TRUSTED_PROXIES='["127.0.0.1/32"]',
        )
        with replicas(3, env) as apps:
            yield Trio(sim, apps, env)


@pytest.fixture
def idle_trio(trio: Trio) -> Trio:
    wait_for_sync(
        lambda: gate_status(trio.apps[0])["inUse"] == 0 and sim_stats(trio.sim)["inFlight"] == 0, what="an idle gate"
    )
    httpx.post(trio.sim.url + "/sim/config", json={"serviceMs": SERVICE_MS}, timeout=5)
    httpx.post(trio.sim.url + "/sim/reset", timeout=5)
    return trio


def test_a_crowd_over_three_replicas_never_runs_more_than_the_two_shared_slots(idle_trio: Trio) -> None:
    sim, apps = idle_trio.sim, idle_trio.apps

    async def crowds() -> list[CrowdResult]:
        return await asyncio.gather(
            *(run_crowd(app.url, clerks=10, duration_s=8, think_s=(0.2, 1.0), seed=i) for i, app in enumerate(apps))
        )

    started = time.monotonic()
    results = asyncio.run(crowds())
    elapsed_s = time.monotonic() - started
    stats = sim_stats(sim)
    for app, result in zip(apps, results, strict=True):
        assert result.other_errors == {}, f"{app.url} answered something other than 200/503: {result.other_errors}"
        assert result.admitted_latencies_ms, f"{app.url} admitted nothing"
        assert result.shed_latencies_ms, f"{app.url} shed nothing: the crowd was too light to show sharing"
        # a shed is fast: typically the 500 ms acquire timeout, not a queue; the maximum gets a margin that a
        # loaded, shared 2-core machine keeps (three replicas, the sim and the crowd share it)
        assert statistics.median(result.shed_latencies_ms) < 1000
        assert max(result.shed_latencies_ms) < 3000
    assert stats["maxConcurrency"] == 2
    assert stats["maxWaitMs"] < 100, f"calls queued inside the backend: {stats}"
    assert stats["rejectedBusy"] == 0
    admitted = sum(len(r.admitted_latencies_ms) for r in results)
    assert stats["completed"] >= admitted
    # 2 slots × 300 ms: at most ~6.7 calls a second in total over the crowd's whole run (its last
    # presses finish after the 8 s deadline), whichever replica admitted them, plus the two in the slots
    assert admitted <= 2 * elapsed_s * 1000 / SERVICE_MS + 2
    wait_for_sync(lambda: all(gate_status(app)["inUse"] == 0 for app in apps), what="every lease released")


def test_a_save_on_one_replica_moves_the_live_version_and_the_cached_report_of_the_others(idle_trio: Trio) -> None:
    a, b, c = idle_trio.apps
    before = httpx.get(b.url + "/live/version", timeout=10).json()["version"]
    first = httpx.get(b.url + "/live/report", timeout=30).json()
    cached = httpx.get(b.url + "/live/report", timeout=30).json()
    assert cached["generatedAt"] == first["generatedAt"], "the second load should be B's cached report"

    saved = httpx.post(a.url + "/live/feedback", json=desk_entry("scale-cache-1"), timeout=10)
    assert saved.status_code == 201, saved.text

    for other in (b, c):
        assert httpx.get(other.url + "/live/version", timeout=10).json()["version"] == before + 1
    fresh = httpx.get(b.url + "/live/report", timeout=30).json()
    assert fresh["generatedAt"] != first["generatedAt"]
    assert fresh["totalItems"] == first["totalItems"] + 1
    listed = httpx.get(c.url + "/live/feedback", timeout=10).json()
    assert "scale-cache-1" in [row["id"] for row in listed]
    # and the id is taken for every replica: a retry through another one is a duplicate, not a second row
    again = httpx.post(c.url + "/live/feedback", json=desk_entry("scale-cache-1"), timeout=10)
    assert again.status_code == 409


async def _pair(url: str) -> list[int]:
    """Two interprets at once on one replica: both slots, or one and a shed."""
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        responses = await asyncio.gather(*(http.post("/interpret", json=INTERPRET) for _ in range(2)))
    return sorted(r.status_code for r in responses)


def test_a_replica_killed_holding_a_slot_gives_it_back_within_the_lease(idle_trio: Trio) -> None:
    sim, (_, b, c) = idle_trio.sim, idle_trio.apps
    with app_server(idle_trio.env) as doomed, ThreadPoolExecutor(1) as pool:
        httpx.post(sim.url + "/sim/config", json={"serviceMs": 20_000}, timeout=5)
        long_call = pool.submit(httpx.post, doomed.url + "/interpret", json=INTERPRET, timeout=60)
        wait_for_sync(lambda: sim_stats(sim)["inFlight"] == 1, what="the doomed replica's call in the sim")
        # later calls outlast the 500 ms acquire timeout, so a pair on one free slot is one 200 and one shed
        httpx.post(sim.url + "/sim/config", json={"serviceMs": 800}, timeout=5)
        assert gate_status(b)["inUse"] == 1
        assert asyncio.run(_pair(b.url)) == [200, 503], "the doomed replica's slot must count on B too"

        doomed.kill()  # SIGKILL: no release, no more renewals; the kernel closes its sockets
        killed_at = time.monotonic()
        with pytest.raises(httpx.TransportError):
            long_call.result(10)  # its own client loses the request (and retries, elsewhere)
        wait_for_sync(
            lambda: sim_stats(sim)["cancelled"] == 1,
            timeout_s=2,
            what="the sim to cancel the killed replica's call when its connection dropped",
        )

        outcomes: list[tuple[float, list[int]]] = []
        while not outcomes or outcomes[-1][1] != [200, 200]:
            assert time.monotonic() - killed_at < LEASE_S + 5, f"B never got both slots back: {outcomes}"
            outcomes.append((time.monotonic() - killed_at, asyncio.run(_pair(b.url))))
    assert all(statuses in ([200, 200], [200, 503]) for _, statuses in outcomes), outcomes
    assert outcomes[0][1] == [200, 503], "right after the kill the lease is still held"
    recovered_after = outcomes[-1][0]
    assert recovered_after <= LEASE_S + 2, outcomes  # the lease, plus one pair's 0.8 s and some slack
    assert httpx.post(c.url + "/interpret", json=INTERPRET, timeout=30).status_code == 200
    stats = sim_stats(sim)
    assert stats["maxConcurrency"] <= 2 and stats["maxWaitMs"] < 100, stats


def test_one_clients_rate_window_holds_across_the_three_replicas(idle_trio: Trio) -> None:
    """Behind a trusted proxy (127.0.0.1 here) the forwarded address is the client, and its window is in Redis."""
    apps = idle_trio.apps
    # a fresh /64 per run (one /64 is one client, ADR 0032): the window outlives the test in the shared Redis
    proxied = {"X-Forwarded-For": f"2001:db8:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}::1"}
    with httpx.Client(timeout=10, headers=proxied) as http:
        for n in range(30):
            answer = http.get(apps[n % 3].url + "/live/version")
            assert answer.status_code == 200, answer.text
            assert int(answer.headers["RateLimit-Remaining"]) == 29 - n  # one count, whichever replica
        for app in apps:
            refused = http.get(app.url + "/live/version")
            assert refused.status_code == 429, f"{app.url}: {refused.status_code}"
            assert refused.json()["error"] == "rate_limited" and int(refused.headers["Retry-After"]) >= 1
        # the operator on the host itself is not that client
        assert httpx.get(apps[0].url + "/live/version", timeout=10).status_code == 200


def test_a_proxied_clients_retry_after_its_replica_died_is_not_held_up_by_the_dead_in_flight_place(
    idle_trio: Trio,
) -> None:
    """The per-client in-flight place of a killed replica lapses within the lease, like its gate slot."""
    sim, b = idle_trio.sim, idle_trio.apps[1]
    proxied = {"X-Forwarded-For": f"2001:db8:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}::1"}
    with app_server(idle_trio.env) as doomed, ThreadPoolExecutor(1) as pool:
        httpx.post(sim.url + "/sim/config", json={"serviceMs": 20_000}, timeout=5)
        lost = pool.submit(httpx.post, doomed.url + "/interpret", json=INTERPRET, headers=proxied, timeout=60)
        wait_for_sync(lambda: sim_stats(sim)["inFlight"] == 1, what="the proxied client's call in the sim")
        httpx.post(sim.url + "/sim/config", json={"serviceMs": SERVICE_MS}, timeout=5)
        while_alive = httpx.post(b.url + "/interpret", json=INTERPRET, headers=proxied, timeout=30)
        assert while_alive.status_code == 429 and while_alive.json()["error"] == "too_many_inflight"

        doomed.kill()
        killed_at = time.monotonic()
        with pytest.raises(httpx.TransportError):
            lost.result(10)
        # the client retries (the desk does so on its own schedule); within the lease it is served again
        while (
            retry := httpx.post(b.url + "/interpret", json=INTERPRET, headers=proxied, timeout=30)
        ).status_code != 200:
            assert retry.status_code == 429, retry.text
            assert time.monotonic() - killed_at < LEASE_S + 3, "the dead replica's in-flight place never lapsed"
            time.sleep(0.2)
    assert time.monotonic() - killed_at <= LEASE_S + 2


@pytest.mark.nginx
def test_nginx_over_the_replicas_routes_around_a_killed_one(idle_trio: Trio) -> None:
    visitor = {"X-Forwarded-For": f"2001:db8:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}::1"}
    with app_server(idle_trio.env) as doomed:
        ports = [int(app.url.rsplit(":", 1)[1]) for app in [*idle_trio.apps, doomed]]
        with nginx_over(ports) as edge, httpx.Client(base_url=edge.url, headers=visitor, timeout=30) as http:
            assert [http.get("/live/version").status_code for _ in range(8)] == [200] * 8
            doomed.kill()
            after = [http.get("/live/version").status_code for _ in range(12)]
            after += [http.post("/interpret", json=INTERPRET).status_code for _ in range(4)]
            assert after == [200] * 16, after  # a refused connection goes to the next replica, never a 502
            assert "connect() failed" in edge.error_log()  # nginx did meet the dead replica
