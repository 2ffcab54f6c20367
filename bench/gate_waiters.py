"""Lua time per release with W waiters on the Redis gate: today's pool beside the pool ADR 0020 replaced.

A private ``redis-server`` (so nothing else's scripts are counted), a fresh one for each pool at each W
(so a pool that saturated it leaves nothing behind for the next row), holds one gate of one slot. W
visitors wait for it (W = 10, 100, 1000 by default); then the slot is handed on R times: the holder
releases, the waiter it goes to takes it, and a new waiter arrives so that W stay waiting. Redis's own
``INFO commandstats`` gives the microseconds spent in scripts (``EVALSHA`` and ``EVAL``) over the R
hand-overs, divided by R: the Lua time one release costs, the wake-ups and re-tries it causes included
(and, for the pool before, every waiter's 100 ms re-check). Both pools run at each W, one after the
other, in one run. A row that cannot finish (the pool before saturates Redis at W = 1000: its waiters'
script calls run past the client's timeout) is recorded as failed with its reason, with what it measured
up to then, and the run goes on; a row is bounded to ``ROW_S`` of wall time in all.

Part of ``bench.gate_redis`` (``--waiters``); alone: .venv/bin/python -m bench.gate_waiters [--waiters 10 100 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bench.common import print_table, write_result
from bench.legacy_gate import LegacyRedisSlotPool
from feedback_intelligence.devtools.processes import free_port
from feedback_intelligence.gate.redis_pool import RedisSlotPool
from feedback_intelligence.gate.slots import PoolUnavailable, Priority

WAIT_S = 600.0  # waiters never give up during a measurement
PER_REPLICA = 50
LINE_UP_S = 60.0
BUDGET_S = 30.0  # wall time for one pool's hand-overs at one W
ROW_S = LINE_UP_S + BUDGET_S + 60.0  # one pool at one W in all: line-up, hand-overs, the tear-down
LIVE = Priority.INTERACTIVE


@contextlib.contextmanager
def private_redis() -> Iterator[str]:
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit("bench.gate_waiters needs redis-server on PATH")
    port = free_port()
    proc = subprocess.Popen(
        [server, "--port", str(port), "--save", "", "--appendonly", "no", "--maxclients", "4000"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:  # still busy with a saturating pool's scripts
            proc.kill()
            proc.wait(10)


async def _script_usec(client: aioredis.Redis) -> float:
    stats = await client.info("commandstats")
    return float(sum(stats.get(f"cmdstat_{name}", {}).get("usec", 0) for name in ("evalsha", "eval")))


async def _wait_until(predicate: Any, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not await predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the waiters did not line up")
        await asyncio.sleep(0.05)


async def hand_over(url: str, pool_class: type, waiters: int, releases: int) -> dict[str, Any]:
    # The waiters are spread over "replicas" of PER_REPLICA each (a replica's Redis client keeps at
    # most 100 connections, and the pool before has every waiter of a replica call at once).
    name = f"bench-{uuid.uuid4().hex[:8]}"
    pools = [
        pool_class(url, slots=1, background_reserve=0, name=name, lease_s=30)
        for _ in range(max(1, -(-waiters // PER_REPLICA)))
    ]
    pool = pools[0]
    client = aioredis.from_url(url)
    arrivals = iter(range(10**9))

    async def wait_on(replica: Any, visitor: str) -> tuple[Any, Any]:
        return replica, await replica.acquire(LIVE, WAIT_S, visitor)

    def arrive() -> asyncio.Task[Any]:
        n = next(arrivals)
        return asyncio.create_task(wait_on(pools[n % len(pools)], f"visitor-{n}"))

    tasks: set[asyncio.Task[Any]] = set()
    try:
        held = (pool, await pool.try_acquire(LIVE, "holder"))
        for _ in range(waiters):
            tasks.add(arrive())
            await asyncio.sleep(0)  # arrivals one at a time, as a crowd's are

        async def lined_up() -> bool:
            return (await pool.occupancy()).waiting_interactive >= waiters

        try:
            await _wait_until(lined_up, LINE_UP_S)
        except TimeoutError:
            lined = "?"
            with contextlib.suppress(PoolUnavailable):
                lined = str((await pool.occupancy()).waiting_interactive)
            return failed_row(waiters, f"{lined} of {waiters} waiters lined up within {LINE_UP_S:g} s")
        await asyncio.sleep(0.3)  # every waiter past its first try
        before = await _script_usec(client)
        started = time.perf_counter()
        handed = 0
        failure = ""
        try:
            for _ in range(releases):
                if time.perf_counter() - started > BUDGET_S:
                    break  # the pool before, at large W: a few hand-overs already tell
                await held[0].release(held[1])
                left_s = max(1.0, BUDGET_S - (time.perf_counter() - started))
                done, tasks = await asyncio.wait(tasks, timeout=left_s, return_when=asyncio.FIRST_COMPLETED)
                if not done:  # a release Redis did not take: the slot waits for its lease to lapse
                    failure = f"after {handed} hand-overs: no waiter took the slot within {left_s:.0f} s"
                    break
                held = done.pop().result()
                tasks |= done  # (never more than one: one slot)
                tasks.add(arrive())
                handed += 1
        except PoolUnavailable as exc:  # the waiters' own script calls ran past the client's timeout
            failure = f"after {handed} hand-overs: {exc}"
        elapsed = time.perf_counter() - started
        spent = await _script_usec(client) - before
        if not failure:
            await held[0].release(held[1])
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for replica in pools:
            await replica.aclose()
        await client.aclose()
    per = max(1, handed)
    return {
        "waiters": waiters,
        "releases": handed,
        "luaMsPerRelease": round(spent / per / 1000, 3) if handed else None,
        "wallMsPerRelease": round(elapsed / per * 1000, 3) if handed else None,
        "failed": failure,
    }


def releases_for(waiters: int, requested: int, legacy: bool) -> int:
    # The pool before costs about W² per release: a few hand-overs already show it at W = 1000.
    return max(3, min(requested, 5_000 // waiters)) if legacy else requested


def failed_row(waiters: int, reason: str) -> dict[str, Any]:
    return {"waiters": waiters, "releases": 0, "luaMsPerRelease": None, "wallMsPerRelease": None, "failed": reason}


async def measure(pool_class: type, waiters: int, releases: int) -> dict[str, Any]:
    """One pool at one W on a redis-server of its own; a failure is the row's result, never the run's."""
    with private_redis() as url:
        probe = aioredis.from_url(url)

        async def answers() -> bool:
            with contextlib.suppress(aioredis.ConnectionError):
                return bool(await probe.ping())
            return False

        try:
            await _wait_until(answers, 10)
        finally:
            await probe.aclose()
        try:
            async with asyncio.timeout(ROW_S):
                return await hand_over(url, pool_class, waiters, releases)
        except TimeoutError:
            return failed_row(waiters, f"did not finish within {ROW_S:g} s")
        except (PoolUnavailable, RedisError) as exc:  # before the hand-overs began (the line-up, the holder)
            return failed_row(waiters, f"before the hand-overs: {exc}")


async def sweep(sizes: list[int], releases: int) -> list[dict[str, Any]]:
    rows = []
    for waiters in sizes:
        now = await measure(RedisSlotPool, waiters, releases_for(waiters, releases, legacy=False))
        before = await measure(LegacyRedisSlotPool, waiters, releases_for(waiters, releases, legacy=True))
        rows.append({"waiters": waiters, "today": now, "before": before})
        print(f"W = {waiters}: today {now}, before {before}", flush=True)
    return rows


def flat(rows: list[dict[str, Any]]) -> float:
    """Lua time per release at the largest W over that at the smallest (today's pool): ~1 is flat; NaN
    (no pass) when today's pool failed at either end."""
    first, last = rows[0]["today"]["luaMsPerRelease"] or 0, rows[-1]["today"]["luaMsPerRelease"] or 0
    return round(last / first, 2) if first and last else float("nan")


def table_rows(rows: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    out = []
    for row in rows:
        now, before = row["today"], row["before"]
        ratio = (before["luaMsPerRelease"] or float("nan")) / (now["luaMsPerRelease"] or float("nan"))
        out.append(
            (
                f"W = {row['waiters']}: Lua ms per release, today / before",
                f"{now['luaMsPerRelease']} / {before['luaMsPerRelease']} (×{ratio:.0f})",
                f"n = {now['releases']} / {before['releases']}"
                + (f"; today failed {now['failed'][:60]}" if now["failed"] else "")
                + (f"; before failed {before['failed'][:60]}" if before["failed"] else ""),
            )
        )
        out.append(
            (
                f"W = {row['waiters']}: wall ms per hand-over, today / before",
                f"{now['wallMsPerRelease']} / {before['wallMsPerRelease']}",
                "",
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.gate_waiters", description=__doc__.split("\n\n")[0])
    parser.add_argument("--waiters", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--releases", type=int, default=200, help="hand-overs per W (fewer for the pool before)")
    args = parser.parse_args(argv)
    rows = asyncio.run(sweep(args.waiters, args.releases))
    growth = flat(rows)
    path = write_result("gate_waiters", {"rows": rows, "todayLargestOverSmallest": growth})
    print_table(
        "Redis gate: Lua time per release with W waiters",
        [*table_rows(rows), ("today: Lua per release, largest W / smallest W", f"×{growth}", "flat: ≤ ×2")],
    )
    print(f"written: {path}")
    return 0 if growth <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
