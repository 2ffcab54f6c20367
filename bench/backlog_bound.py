"""The bounded wait of the structure-later backlog under a saturated desk, without and with the bound.

One run starts sim-ollama (2 parallel, 1.5 s per call) and, one after the other, two app processes in
front of it (the default background reserve of one slot), each facing the same crowd of clerks
pressing "Tulkitse" (12 clerks, think times 1-4 s: about four times what the two slots serve, so every
slot is busy) while a row is saved for later every 3 s. Sampled every second: the backlog and the
oldest pending row's age.

(a) no bound (``FI_STRUCTURE_MAX_WAIT_S=0``): background work only takes a slot nobody waits for;
(b) the bound at 10 s: a row pending longer asks as a visitor would, one at a time per replica.

What matters: the oldest row's age stays bounded in (b) while it grows with the run in (a), and no
capacity is lost: what the backlog takes in (b) comes out of the clerks' calls one for one (clerks'
results + rows structured in (b) ≥ 95 % of the clerks' results in (a)). The clerks' shed rate rises
by the backlog's share; that is the price of the bound, shown beside it.

Run: .venv/bin/python -m bench.backlog_bound [--clerks 12 --duration 45]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import uuid
from typing import Any

import httpx

from bench.common import pf, print_table, write_result
from feedback_intelligence.cli.crowd import run_crowd
from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama

PARALLEL = 2
SERVICE_MS = 1500
EVERY_S = 3.0  # one row saved for later this often
BOUND_S = 10
COMMON = {
    "FI_LLM_BACKEND": "ollama",
    "FI_LLM_MODEL": "sim-model",
    "FI_LLM_CALL_TIMEOUT_S": "120",
    "FI_LLM_SLOTS": str(PARALLEL),
    "FI_STRUCTURE_POLL_S": "0.5",
}
TARGETS = {"oldestAgeMaxS": 2 * BOUND_S, "workConservedMinRatio": 0.95}


def save_later(http: httpx.Client, n: int) -> None:
    body = {
        "id": f"later-{n}-{uuid.uuid4().hex[:6]}",
        "source": "desk",
        "text": f"Maito oli hapanta jo ostopäivänä, erä {n}.",
        "timestamp": "2026-11-30T10:00:00Z",
        "structureLater": True,
    }
    answer = http.post("/live/feedback", json=body)
    if answer.status_code not in (201, 202):
        raise SystemExit(f"saving a row for later answered {answer.status_code}: {answer.text[:200]}")


def backlog(http: httpx.Client) -> tuple[int, float]:
    board = http.get("/admin/status").json()["structureLater"]["backlog"]["live"]
    return int(board["items"]), float(board["oldestAgeSeconds"])


async def crowd_with_samples(app: ServerProcess, clerks: int, duration_s: float, seed: int) -> dict[str, Any]:
    samples: list[tuple[float, int, float]] = []
    stop = asyncio.Event()

    saved = 0

    async def sample() -> None:
        nonlocal saved
        started = time.monotonic()
        with httpx.Client(base_url=app.url, timeout=30) as http:
            while not stop.is_set():
                elapsed = time.monotonic() - started
                while elapsed <= duration_s and saved <= elapsed / EVERY_S:
                    await asyncio.to_thread(save_later, http, saved)
                    saved += 1
                items, oldest = await asyncio.to_thread(backlog, http)
                samples.append((elapsed, items, oldest))
                await asyncio.sleep(1.0)

    sampler = asyncio.create_task(sample())
    result = await run_crowd(
        app.url, clerks, duration_s, think_s=(1.0, 4.0), seed=seed, http_timeout_s=60.0, drain_timeout_s=120.0
    )
    stop.set()
    await sampler
    summary = result.summary()
    during = [s for s in samples if s[0] <= duration_s]
    return {
        "crowd": summary,
        "shedRate": summary.get("shedRate"),
        "clerkResults": summary.get("results"),
        "savedForLater": saved,
        "structuredDuringCrowd": saved - (during[-1][1] if during else saved),
        "oldestAgeMaxS": max((s[2] for s in during), default=None),
        "oldestAgeAtEndS": during[-1][2] if during else None,
    }


def run(clerks: int, duration_s: float, seed: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with sim_ollama(parallel=PARALLEL, max_queue=8, service_ms=SERVICE_MS) as sim:
        for name, bound in (("noBound", "0"), ("bound", str(BOUND_S))):
            env = {**COMMON, "FI_LLM_BASE_URL": sim.url, "FI_STRUCTURE_MAX_WAIT_S": bound}
            with app_server(env) as app:
                out[name] = asyncio.run(crowd_with_samples(app, clerks, duration_s, seed))
    return out


def evaluate(out: dict[str, Any]) -> dict[str, bool | None]:
    free, bound = out["noBound"], out["bound"]
    served_free = free["clerkResults"] + free["structuredDuringCrowd"]
    served_bound = bound["clerkResults"] + bound["structuredDuringCrowd"]
    return {
        "oldestAgeBounded": bound["oldestAgeMaxS"] is not None and bound["oldestAgeMaxS"] <= TARGETS["oldestAgeMaxS"],
        "backlogMoves": bound["structuredDuringCrowd"] > free["structuredDuringCrowd"],
        "workConserved": served_free > 0 and served_bound >= TARGETS["workConservedMinRatio"] * served_free,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.backlog_bound", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clerks", type=int, default=12)
    parser.add_argument("--duration", type=float, default=45.0)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    out = run(args.clerks, args.duration, args.seed)
    verdicts = evaluate(out)
    write_result(
        "backlog_bound",
        {
            "clerks": args.clerks,
            "durationS": args.duration,
            "seed": args.seed,
            "targets": TARGETS,
            "verdicts": verdicts,
            **out,
        },
    )
    free, bound = out["noBound"], out["bound"]
    print_table(
        f"backlog, saturated desk ({args.clerks} clerks, a row every {EVERY_S:g} s, {args.duration:g} s)",
        [
            ("clerks' shed rate: no bound / bound", f"{free['shedRate']} / {bound['shedRate']}", "(the price)"),
            (
                "clerks' results + rows structured: no bound / bound",
                f"{free['clerkResults']}+{free['structuredDuringCrowd']} / "
                f"{bound['clerkResults']}+{bound['structuredDuringCrowd']}",
                pf(verdicts["workConserved"]),
            ),
            (
                "rows structured during the crowd: no bound / bound",
                f"{free['structuredDuringCrowd']} / {bound['structuredDuringCrowd']}",
                pf(verdicts["backlogMoves"]),
            ),
            (
                "oldest pending age, max s: no bound / bound",
                f"{free['oldestAgeMaxS']} / {bound['oldestAgeMaxS']}",
                f"{pf(verdicts['oldestAgeBounded'])} (≤ {TARGETS['oldestAgeMaxS']} s)",
            ),
        ],
    )
    return 0 if all(v is not False for v in verdicts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
